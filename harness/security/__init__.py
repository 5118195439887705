"""Security controls of the reference harness (seed 004 "security", seeds 000/001 modes).

Pure functions other parts call (``context_scan.scan_context_file``, ``redaction.redact``) and
small ``Control`` collaborators (path guard, command guard, permissions, plan/execute mode,
untrusted-output wrapping, redaction of tool output). Submodules are imported where used so that
this package never forms an import cycle with ``harness.controls``.
"""
