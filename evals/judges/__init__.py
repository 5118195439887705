"""Judges: black-box verdicts for checklist items, named in scenario files.

A judge is a small factory: ``judge(params) -> async (Evidence) -> Verdict``. Besides the
scenario, it reads only what any harness leaves behind: files and counters in the sandbox, the
transcript, what the scripted actor observed, and the run's ending. Add one with
``@judge("name", Params)``.
"""

from evals.judges import builtin as _builtin  # noqa: F401  (registers the judges)
from evals.judges import discipline as _discipline  # noqa: F401
from evals.judges import observations as _observations  # noqa: F401
from evals.judges import proxy as _proxy  # noqa: F401
from evals.judges import records as _records  # noqa: F401
from evals.judges import runtime as _runtime  # noqa: F401
from evals.judges import scheduling as _scheduling  # noqa: F401
from evals.judges.base import JUDGES, Verdict, VerdictState, judge
from evals.judges.evidence import Evidence

__all__ = ["JUDGES", "Evidence", "Verdict", "VerdictState", "judge"]
