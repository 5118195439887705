"""Run the reference harness inside inspect: inspect model → harness ``Model``, inspect sandbox →
harness ``Workspace``."""

from evals.adapter.model import InspectModel, classify_error
from evals.adapter.workspace import SandboxWorkspace

__all__ = ["InspectModel", "SandboxWorkspace", "classify_error"]
