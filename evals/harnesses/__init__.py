"""Harness specs: any harness under test, run inside the sandbox against inspect's agent bridge.

``spec`` (the schema and loader of ``sandboxes/harnesses/<id>/harness.yaml``), ``image``
(content-hashed image builds), ``bridge_agent`` (the solver) and ``configs`` (how ``CONFIGS=``
and the task reach them).
"""
