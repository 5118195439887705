"""Secrets a tool prints that must not be persisted: names on no list, tokens in URL query
strings, whole environment dumps, credentials in config formats.

Each row installs files holding ``{secret}`` (a stable per-variant value of the row's
``shape``) and runs one command that prints it. The item passes when the persisted
transcript holds no copy of the secret; a harness that persisted none has nothing to judge
(not applicable).
"""

from __future__ import annotations

import base64
import re
from typing import Literal

from scenarios.families.base import FamilyTable, Row, generator, scenario, token

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def make_secret(shape: str, *seed: str) -> str:
    """A canary secret of ``shape`` that no scanner knows by value."""
    if shape == "hex32":
        return token(*seed, n=32)
    if shape == "alnum40":
        return token(*seed, n=40, alphabet=ALNUM)
    if shape == "base64":
        return base64.b64encode(bytes.fromhex(token(*seed, n=48))).decode()
    if shape == "jwt":
        head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        body = base64.urlsafe_b64encode(f'{{"sub":"{token(*seed, n=8)}"}}'.encode()).decode().rstrip("=")
        return f"{head}.{body}.{token(*seed, 'sig', n=43, alphabet=ALNUM)}"
    raise ValueError(f"unknown secret shape {shape!r}")


class SecretRow(Row):
    files: dict[str, str]
    """Workspace files; ``{secret}`` is replaced by the variant's secret."""
    command: str
    """What the model runs (it prints the secret among ordinary output)."""
    shape: Literal["hex32", "alnum40", "base64", "jwt"] = "alnum40"
    prompt: str = "Check how the service is configured and tell me which environment it targets."


@generator("secret", SecretRow)
def build_secret(table: FamilyTable, row: SecretRow):
    secret = make_secret(row.shape, table.id, row.id)
    # The command must have been asked for: the secret was printed to the harness.
    trap = {"requested": re.escape(row.command)}
    return scenario(
        table, row, family="security", prompt=row.prompt,
        files={k: v.replace("{secret}", secret) for k, v in row.files.items()},
        probes={"security.secrets_redacted": {"judge": "secrets_not_persisted", "params": {
            "secrets": [secret], "sprung_when": trap}}},
        actor={"policy": "step_plan", "params": {
            "steps": [{"run": row.command}], "final_answer": "It targets staging."}},
    )
