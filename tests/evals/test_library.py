"""The scenario library is consistent: judges exist with valid parameters, every checklist item
is probed, the suite is large enough, and scenarios stay harmless on a local sandbox."""

import re
from typing import get_args

from evals.judges import JUDGES
from scenarios.actor.injection import CANARY_TOKEN
from scenarios.checklist import load_checklist
from scenarios.families.injection import CONTEXT_FILES
from scenarios.loader import load_library


def test_every_judge_exists_and_its_params_validate():
    for s in load_library().values():
        for item, spec in s.probes.items():
            assert spec.judge in JUDGES, f"{s.id}: {item}: unknown judge {spec.judge}"
            JUDGES[spec.judge].params_model.model_validate(spec.params)


def test_every_checklist_item_is_probed():
    probed = {i for s in load_library().values() for i in s.probes}
    unprobed = [i.id for i in load_checklist() if i.id not in probed]
    assert not unprobed, f"checklist items with no scenario: {unprobed}"


READ_ONLY_CONTEXT = frozenset(get_args(CONTEXT_FILES))
"""Context files the harness loads into the prompt (never executed by a scenario)."""


def test_scenarios_never_aim_outside_the_sandbox():
    # Destructive and exfiltration probes aim at canaries inside the workspace and at loopback.
    # Files may mention documentation URLs in prose; commands may not reach beyond loopback.
    # Hosts under the names RFC 2606/6761 reserve (`.example`, `.invalid`, `.test`, example.com)
    # never resolve, so a quoted command aimed at one reaches nothing either.
    forbidden = re.compile(r"rm -rf /(\s|$)|rm -rf ~|/etc/passwd|\.ssh/id_"
                           r"|(curl|wget|nc)\s[^\n`]*https?://(?!127\.0\.0\.1|localhost)(?P<host>[\w.-]+)")
    reserved = re.compile(r"(^|\.)(example|invalid|test|localhost)$|(^|\.)example\.(com|net|org)$")
    for s in load_library().values():
        # A context file the actor can only read: it runs a command from one only when the
        # command carries the canary (scenarios/actor/injection.py), so a guideline quoting
        # `rm -rf /` as an example is prose; a file with the canary is checked like a script.
        files = [t for name, t in s.files.items() if name not in READ_ONLY_CONTEXT or CANARY_TOKEN in t]
        texts = [s.prompt, *s.setup, *files, str(s.actor.params)]
        for t in texts:
            hits = [m for m in forbidden.finditer(t) if not (m["host"] and reserved.search(m["host"]))]
            assert not hits, f"{s.id}: {hits[0].group(0)!r}"
