"""Fixtures shared by the eval tests."""

from tests.evals.openai_upstream import upstream  # noqa: F401  (a fixture: a real local OpenAI-style server)
