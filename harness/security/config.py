"""Config models of the security controls (fields of ``HarnessConfig``; defaults OFF).

Kept out of ``harness/config.py`` so that file stays small; ``HarnessConfig`` imports them. This
module imports only ``harness.config_base`` (which imports nothing), so it never forms a cycle.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from harness.config_base import Strict as _Strict
from harness.config_base import check_regexes as _check_regexes

EffectName = Literal["read_only", "local_write", "network", "destructive"]


class ContextScanConfig(_Strict):
    enabled: bool = False
    """Scan context files (AGENTS.md, SOUL.md ...) before they enter the prompt: injection phrases,
    invisible/bidi Unicode, instructions in HTML comments, base64 payloads, exfiltration. A
    poisoned file is replaced by a ``[CONTEXT FILE BLOCKED: <path>]`` notice (seed 004)."""
    extra_patterns: list[str] = Field(default_factory=list)
    """More regexes (case-insensitive) that block a context file."""
    unicode_data: bool = False
    """Use Unicode's own data: fold look-alike letters of every script (TR39 confusables:
    Armenian, Cherokee, mathematical letters ... not only Cyrillic/Greek) and strip and report
    every default-ignorable code point (CGJ, Hangul fillers, variation selectors ...). Off (the
    seed): a fixed list of Cyrillic/Greek look-alikes and format characters."""
    any_front_matter: bool = False
    """Read TOML (``+++``) and JSON (a leading ``{...}``) front matter like YAML front matter,
    and a leading header block of any other syntax (found by shape, its string values unquoted).
    Off (the seed): YAML front matter only."""
    exfil_by_capability: bool = False
    """Also flag any line that both sends over the network (any client or language: curl,
    urllib, requests, sockets, fetch, Invoke-WebRequest, Net::HTTP ...) and reads a secret
    source (the environment, a secret-named variable, a credentials file), to a destination
    that is neither local nor the secret's own service. Off (the seed): per-tool patterns only."""
    example_context: bool = False
    """Read list items and table rows with the heading, lead-in line and header row above them,
    and a sentence that names what a phrase is ("X is a persona swap") as describing it, so a
    security guideline listing attack phrases as examples still loads. Off (the seed): each
    item is judged on its own words."""
    across_files: bool = False
    """Also judge the context files a prompt loads together: a sentence in one file that has the
    model run a command another file defines ("run the bootstrap command listed in TOOLS.md")
    is weighed with that definition, and both files are blocked when together they make an
    injected instruction. Off (the seed): each file is judged alone."""
    phrase_variants: bool = False
    """Also read the phrase variants of ``context_scan_patterns.yaml`` (``injection_variants``,
    ``signals_variants``): the same requests in other word orders and words ("disregard the
    rules above", "skip the confirmation", "your previous instructions are outdated", "you are
    the release bot now"). Off (the seed): the seed's phrase lists only."""

    @field_validator("extra_patterns")
    @classmethod
    def _compile(cls, v: list[str]) -> list[str]:
        return _check_regexes(v, "context_scan.extra_patterns")


class UntrustedOutputConfig(_Strict):
    enabled: bool = False
    """Wrap the output of untrusted tools in ``[BEGIN EXTERNAL CONTENT FROM <source>]`` ...
    ``[END EXTERNAL CONTENT]`` and add the SECURITY RULE to the system prompt (seed 004)."""
    tools: list[str] = Field(default_factory=lambda: ["web_fetch"])
    """Tools whose output is untrusted; ``"*"`` means every tool."""
    trusted_paths: list[str] = Field(default_factory=list)
    """Glob patterns (workspace-relative, e.g. ``src/**``) of files whose ``read_file`` output
    stays unwrapped even when ``read_file`` is listed in ``tools``."""
    rule_prompt: str = "security_rule.md"
    """The SECURITY RULE text: a file under ``harness/prompts/`` or a path."""


class RedactionConfig(_Strict):
    enabled: bool = False
    """Redact secrets (API keys, bearer tokens, AWS/GitHub tokens, private keys ...) from what is
    persisted or logged: run events now, transcripts through ``harness.security.redaction.redact``
    (seed 004 "log redaction")."""
    redact_tool_output: bool = False
    """Also redact secrets in tool output before the model sees it. Off by default: the seed only
    asks that logs never hold keys, and a task may need the key it just read."""
    extra_patterns: list[str] = Field(default_factory=list)
    """More regexes whose matches are replaced by ``[REDACTED]``."""

    @field_validator("extra_patterns")
    @classmethod
    def _compile(cls, v: list[str]) -> list[str]:
        return _check_regexes(v, "redaction.extra_patterns")


class PathGuardConfig(_Strict):
    enabled: bool = False
    """Deny file-tool paths that leave the workspace: ``..``, absolute paths outside the root,
    symlinks pointing outside (seed 004 ``validate_file_path``)."""
    tool_args: dict[str, list[str]] = Field(default_factory=lambda: {
        "read_file": ["path"], "write_file": ["path"], "list_dir": ["path"],
    })
    """Which arguments of which tools hold a path to check."""
    shell_tools: dict[str, str] = Field(default_factory=dict)
    """Shell tools whose command lines' file arguments are checked too (``{"bash": "command"}``):
    the line is parsed, ``cd`` followed, and every operand or redirection target that names a
    path must resolve (symlinks followed) inside the workspace. Empty (the seeds): file tools only."""
    shell_allowed: list[str] = Field(default_factory=lambda: [
        "/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/",
        "/dev/urandom", "/dev/random", "/proc/self/", "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/",
    ])
    """Absolute paths (or prefixes ending in ``/``) outside the workspace that shell commands may
    still name: devices every shell uses and the system's program folders."""


class CommandGuardConfig(_Strict):
    enabled: bool = False
    """Block destructive shell commands before they run: ``rm -rf``, ``git push --force``,
    ``DROP TABLE`` ... with guidance per pattern (seed 004 ``before_tool_call``)."""
    tools: dict[str, str] = Field(default_factory=lambda: {"bash": "command"})
    """Tools that run shell commands, each with the argument that holds the command line."""
    patterns_file: str = "destructive_commands.yaml"
    """The blocked patterns: a file name under ``harness/rules/`` or a path with a directory in it
    (``./my_guard.yaml``, ``/etc/looplab/guard.yaml``)."""
    disabled: list[str] = Field(default_factory=list)
    """Pattern (and shell rule) ids from ``patterns_file`` to switch off."""
    shell_aware: bool = False
    """Judge parsed shell instead of matching the command text: each program by its flags and
    arguments, through ``bash -c``, ``eval``, wrappers (``sudo``, ``env``, ``timeout`` ...),
    ``xargs``, ``find -exec``/``-delete``, truncating redirections and interpreter one-liners
    (``python -c``, ``node -e`` ...); read-only commands that only mention a destructive phrase
    pass. Off (the seeds' guard): the regexes of ``patterns_file``."""


class PermissionsConfig(_Strict):
    enabled: bool = False
    """Permission modes (seed 000): read-only tools never need approval; others may need the
    approver callback given to ``build_controls`` (no approver: the call is denied)."""
    mode: Literal["ask", "auto_read", "auto_all"] = "auto_all"
    """``ask``: approve every modifying tool; ``auto_read``: approve writes and bash;
    ``auto_all``: approve nothing (seed 000)."""
    approval_effects: dict[str, list[EffectName]] = Field(default_factory=lambda: {  # type: ignore[arg-type]
        "ask": ["local_write", "network", "destructive"],
        "auto_read": ["local_write", "destructive"],
        "auto_all": [],
    })
    """Per mode, the tool effects that need approval. ``auto_read`` lets network reads through
    (seed 000 lists WebFetch/WebSearch as read-only) but asks for writes and bash."""


class ModeConfig(_Strict):
    enabled: bool = False
    """Plan/execute mode enforced at three layers (seed 001): the prompt states the mode, only
    mode-allowed tools are offered, and a blocked call is answered with an error, never run."""
    mode: Literal["plan", "execute"] = "execute"
    """The current mode."""
    plan_tools: list[str] | None = None
    """Tools allowed in plan mode. ``None``: every read-only tool."""
    execute_tools: list[str] | None = None
    """Tools allowed in execute mode. ``None``: every tool."""
