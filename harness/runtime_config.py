"""Config models of runtime session controls (fields of ``HarnessConfig``; defaults OFF).

Kept out of ``harness/config.py`` so that file stays small; imports nothing from the harness but
the strict base, so it can never form an import cycle.
"""

from __future__ import annotations

from harness.config_base import Strict as _Strict


class BootstrapOnceConfig(_Strict):
    enabled: bool = False
    """Deliver the bootstrap file (``prompt.bootstrap_file``) once per session (seed 004 failure
    table, "bootstrap re-injected on every turn"): after the first reply to a system prompt that
    held it, the session counts it as delivered (``session:bootstrap:completed``) and later model
    calls get the prompt without it. Off: it stays in the system prompt of every call."""
