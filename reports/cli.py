"""``python -m reports``: scorecards and comparisons from inspect logs (never re-runs anything).

Heavy imports (inspect, pandas, matplotlib) wait until the log directory is known to exist, so
a wrong path is answered at once with one line. A run's scorecard (or benchmark report) goes
beside its logs, in ``LOGDIR/report/``. Exit codes: 0 written; 1 written, but the run is
incomplete (a damaged log, a log that did not finish, an errored sample: the banner says which);
2 bad input.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from reports.logdir import OUT_DIR, ReportError, report_dir, resolve_logdir
from scenarios.checklist import ChecklistError

DESCRIPTION = "Scorecards and comparisons from looplab's inspect logs (reads logs, runs nothing)."
COMPARE_EPILOG = """\
forms:
  python -m reports compare LOGDIR_A LOGDIR_B [--config NAME]
      the same configuration(s) in two runs (every configuration both runs hold, or --config;
      two single-configuration runs are compared whatever their names)
  python -m reports compare --logs LOGDIR CONFIG_A CONFIG_B
      two configurations of one run (names as in the scorecard, e.g. naive looplab)

Outcomes pair on (scenario id, epoch, item). A scripted run is exact: every flip is a fact and
no statistic is computed. With variance (a real model, or epochs that differ) and two or more
pairs per item the report adds an exact McNemar test and a 95% bootstrap interval of the figure
difference. Figures are informational, never judged better or worse."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reports", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True, metavar="{scorecard,compare,bench}")
    s = sub.add_parser("scorecard", help="write scorecard.md, scorecard.html and PNG charts",
                       description="Turn a log directory into LOGDIR/report/ "
                                   "(scorecard.md, scorecard.html, *.png). Exit 1 when the "
                                   "run is incomplete (damaged or unfinished logs, errored "
                                   "samples): the scorecard's banner says why.")
    s.add_argument("logdir", metavar="LOGDIR",
                   help="log directory of one run (a symlink such as logs/latest is resolved)")
    s.add_argument("--out", metavar="DIR", type=Path,
                   help="output folder (default: LOGDIR/report, beside the logs)")
    s.add_argument("--common", action="store_true",
                   help="count only the scenarios every configuration ran (a run stopped early: "
                        "its configurations compared on the same scenarios; still incomplete)")
    c = sub.add_parser("compare", help="compare two runs, or two configurations of one run",
                       description="Items that changed state, figures that moved, and paired "
                                   "statistics; writes compare.md and prints it.",
                       epilog=COMPARE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("a", metavar="A", help="log directory, or configuration name with --logs")
    c.add_argument("b", metavar="B", help="log directory, or configuration name with --logs")
    c.add_argument("--logs", metavar="LOGDIR", help="compare configurations A and B of this run")
    c.add_argument("--config", metavar="NAME",
                   help="with two log directories: compare only this configuration")
    c.add_argument("--out", metavar="DIR", type=Path,
                   help=f"output folder (default: {_show(OUT_DIR)}/compare-<A>-vs-<B>)")
    b = sub.add_parser("bench", help="benchmark report: success clean vs hostile per configuration",
                       description="Turn a benchmark log directory (python -m evals bench) into "
                                   "LOGDIR/report/bench.md and bench.html.")
    b.add_argument("logdir", metavar="LOGDIR", help="log directory of one benchmark run")
    b.add_argument("--out", metavar="DIR", type=Path,
                   help="output folder (default: LOGDIR/report, beside the logs)")
    return p


def _show(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "scorecard":
            return scorecard(args)
        if args.command == "bench":
            from reports.bench import cli_bench  # heavy (see the module's docstring)

            return cli_bench(resolve_logdir(args.logdir), args.out, _show)
        return compare(args)
    except ReportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head`: not an error of ours
        return 0


def scorecard(args: argparse.Namespace) -> int:
    logdir = resolve_logdir(args.logdir)
    out = args.out or report_dir(logdir)
    from reports.scorecard import headline, write_scorecard  # heavy (see the module's docstring)

    card, written = _guard(lambda: write_scorecard(logdir, out, common=args.common))
    print(f"wrote {_show(out)}/: " + ", ".join(p.name for p in written.values()))
    for line in headline(card)[:3]:
        print(line)
    return 1 if card.incomplete else 0


def compare(args: argparse.Namespace) -> int:
    # heavy (see the module's docstring)
    from reports.compare import render_compare, sides_from_dirs, sides_in_run
    from reports.load import load_run

    if args.logs:
        if args.config:
            raise ReportError("--config applies to two log directories, not to --logs")
        logdir = resolve_logdir(args.logs)
        run = _guard(lambda: load_run(logdir))
        sides = sides_in_run(run, args.a, args.b)
        title, default = f"{args.a} → {args.b} in {run.name}", f"{run.name}-{args.a}-vs-{args.b}"
    else:
        dir_a, dir_b = resolve_logdir(args.a), resolve_logdir(args.b)
        run_a, run_b = _guard(lambda: load_run(dir_a)), _guard(lambda: load_run(dir_b))
        sides = sides_from_dirs(run_a, run_b, args.config)
        title, default = f"{run_a.name} → {run_b.name}", f"{run_a.name}-vs-{run_b.name}"
    out = args.out or OUT_DIR / ("compare-" + _safe(default))
    text = render_compare(title, sides)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.md").write_text(text, encoding="utf-8")
    print(text)
    print(f"wrote {_show(out)}/compare.md")
    return 0


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _guard(fn):
    # A damaged checklist file is bad input too: one line naming the file, not a traceback;
    # so is an output folder that cannot be written (someone else's logs: --out elsewhere).
    try:
        return fn()
    except ChecklistError as e:
        raise ReportError(str(e).splitlines()[0]) from e
    except PermissionError as e:
        raise ReportError(f"cannot write {e.filename}: {e.strerror} (give --out DIR)") from e
