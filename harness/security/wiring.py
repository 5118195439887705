"""Which security controls a config enables, in the order they must run.

``build_controls`` calls these two (imported inside the function, so this package and
``harness.controls`` never import each other at module load).

Before a tool: mode first (a blocked tool is never even considered), then the destructive
command and path checks, and permissions last so the user is never asked to approve a call the
harness would refuse anyway. After a tool: redaction before wrapping, so a wrapped block never
holds a secret, and both after truncation (placed by ``build_controls``) so the END marker is
never cut off.
"""

from __future__ import annotations

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.security.permissions import Approver


def before_tool_controls(config: HarnessConfig, approver: Approver | None = None) -> list[Control]:
    from harness.security.commands import CommandGuard
    from harness.security.modes import ModeGuard
    from harness.security.paths import PathGuard
    from harness.security.permissions import Permissions

    out: list[Control] = []
    if config.mode.enabled:
        out.append(ModeGuard(config.mode))
    if config.command_guard.enabled:
        out.append(CommandGuard(config.command_guard))
    if config.path_guard.enabled:
        out.append(PathGuard(config.path_guard))
    if config.permissions.enabled:
        out.append(Permissions(config.permissions, approver))
    return out


def after_tool_controls(config: HarnessConfig) -> list[Control]:
    from harness.security.redaction_control import RedactToolOutput
    from harness.security.untrusted import UntrustedOutput

    out: list[Control] = []
    if config.redaction.enabled and config.redaction.redact_tool_output:
        out.append(RedactToolOutput(config.redaction))
    if config.untrusted_output.enabled:
        out.append(UntrustedOutput(config.untrusted_output))
    return out
