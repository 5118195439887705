"""The values the command lines take, checked while the arguments are parsed: a bad value is
argparse's usage error (exit 2, the flag named) before anything is imported, run or written.
What needs the eval stack to check (configuration names, scenario ids, model providers) is
checked by ``evals.runs`` before it creates the log directory."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from scenarios.checklist import FAMILIES

DISPLAYS = ("full", "conversation", "rich", "plain", "log", "none")
"""inspect's display types (``inspect_ai.util.DisplayType``)."""
SANDBOXES = ("docker", "k8s", "local")

EXIT_CODES = """\
exit codes (every looplab command; the README's table says the same):
  0    complete
  1    incomplete: a sample errored, a log did not finish or is damaged (named on stderr; the
       scorecard marks the run incomplete and ranks nothing on it); check-harness: the harness
       never reached the model (its exit code and output tail printed)
  2    bad input: the flag, file or field is named; nothing ran, nothing was written (also: the
       log directory is held by another run, which is named; check-harness: a spec that does
       not load, an image that does not build)
  3    repro: a probed item failed
  129  stopped by SIGHUP (as 130)
  130  interrupted (SIGINT, Ctrl-C): every process of the run stopped, its sandboxes removed,
       the logs written so far kept, logs/latest not moved; a second signal stops at once
  143  stopped by SIGTERM (as 130)"""
"""The epilog of every subcommand's ``--help``."""

__all__ = ["DISPLAYS", "EXIT_CODES", "FAMILIES", "SANDBOXES", "NonEmptyList", "positive_int"]


def positive_int(text: str) -> int:
    """A count flag: 0 or less would hang the run or do nothing, so it is refused up front."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


class NonEmptyList(argparse.Action):
    """A comma-separated list flag. Given, it names at least one item (``--scenarios ,`` would
    otherwise read as "no filter" and run everything); left out, the flag keeps its default.
    The value is stored with blanks and empty items removed."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        items = [i.strip() for i in str(values).split(",") if i.strip()]
        if not items:
            raise argparse.ArgumentError(self, f"an empty list ({values!r}): name at least one, "
                                               "or leave the flag out")
        setattr(namespace, self.dest, ",".join(items))
