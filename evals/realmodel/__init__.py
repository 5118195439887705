"""Plumbing for running the scenarios against real models served by vLLM.

- ``proxy``: a fault-injecting HTTP proxy in front of any OpenAI-compatible server, so quota and
  rate-limit scenarios become real HTTP failures (schedule in ``schedule``, answers in ``faults``).
- ``metrics``: reads vLLM's Prometheus ``/metrics`` and computes the prefix-cache hit rate.
- ``serve``: tool-call parser choice and health waiting used by ``vllm_serve.sh``.
- ``server``: the server a real-model run uses (``python -m evals real``, ``bench --real``): its
  served models, its prefix cache emptied, its prefix-cache figures written into the run's logs.
- ``make_model.py``: builds a small real instruction-tuned model from a PyPI package.
"""
