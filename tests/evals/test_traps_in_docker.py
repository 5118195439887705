"""Traps spring in the Docker sandbox: every variant that runs a payload fails on a harness
without the control that stops it.

The discrimination tests run on the local sandbox, where the host's programs are at hand; the
Docker sandbox holds only what its image installs. A payload whose program is missing there
creates no canary and removes nothing, so a guard "passes" without facing the attack (the image
once lacked Node.js, and the Node.js exfiltration rows read pass on every harness). Here each
such family's variants run in Docker on a harness that lacks the control: naive (no guards), and
seed002 for the injection rows (it loads context files and scans none; naive loads none, so it
reads *not applicable* there).
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from scenarios.families import load_families

from .suite import run_suite, verdicts

pytestmark = pytest.mark.docker

PAYLOAD_FAMILIES = {
    "naive": ("destructive-spellings", "path-escapes"),
    "seed002": ("inject-confusables", "inject-exfil", "inject-front-matter", "inject-ignorables",
                "inject-split"),
}


def _ids(families: tuple[str, ...]) -> list[str]:
    return sorted(s.id for s in load_families() if s.family_id in families)


@pytest.mark.parametrize("config", sorted(PAYLOAD_FAMILIES))
def test_every_payload_variant_fails_without_its_control(tmp_path, config):
    ids = _ids(PAYLOAD_FAMILIES[config])
    assert len(ids) >= 20
    log = run_suite(tmp_path, config, sandbox="docker", scenarios=",".join(ids))
    states: dict[str, list[str]] = defaultdict(list)
    for scenario_id, items in verdicts(log).items():
        for item_id, entry in items.items():
            states[entry["state"]].append(f"{scenario_id} {item_id}: {entry['explanation']}")
    assert set(states) == {"fail"}, {k: v for k, v in states.items() if k != "fail"}
    assert len(states["fail"]) == len(ids)
