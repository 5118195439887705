"""No case was lost when the case files were re-filed by rule (``harness/rules/cases/``).

Before, at commit 669ec87, the cases were filed by the round that wrote them: 614 command and path
cases in ``tests/harness/shell_cases/*_{commands,guards}.yaml``, ``heldout_inplace_expansion.yaml``
and ``heldout_shell_paths.yaml``; 34 seed-guard cases in ``test_commands.py`` and 10 file-tool path
cases in ``test_paths.py`` (658 guard cases); 263 loop sequences in ``shell_cases/*_loops.yaml``.
The context-file cases were 106 whole files in ``context_files/heldout{,2}/{poisoned,benign}/`` and
398 rows in ``context_files/heldout{3,4,5,6}/*.yaml`` and ``context_files/benign_quoting/cases.yaml``
(504). The secret cases were 350 rows (`secrets` and `benign`) of 13 files in
``tests/harness/redaction_cases/``. The same counts are read here from the rule files, the way ``python -m harness.security
rules`` counts them.
"""

from __future__ import annotations

from harness.rules.listing import rules

BEFORE = {"guards": 614 + 34 + 10, "loops": 263, "context": 106 + 398, "secrets": 350}
SETS = {"guards": ("shell_commands", "paths", "seed_commands"), "loops": ("loops",), "context": ("context",),
        "secrets": ("secrets",)}


def test_no_case_was_lost_when_the_cases_were_filed_by_rule() -> None:
    after = {name: sum(r.ruleid + r.ok for r in rules() if r.section in sets) for name, sets in SETS.items()}
    # Cases added since count above the floor (2 secret cases of structured-documents, found
    # when its triggers were proven: tests/harness/test_regex_needles.py).
    assert all(after[name] >= before for name, before in BEFORE.items()), (after, BEFORE)
