"""The shell model: how every control of the harness reads a shell command line.

One package reads shell for loop detection, the command guard, the path guard and the
context-file scanner, so they never disagree about what a line runs:

- ``syntax``: parsing (bashlex, cached: one parse per distinct line), here-documents, loops,
  the tolerant tokenizer for what bashlex rejects, and the flag splitter;
- ``wrappers`` and ``programs.yaml``: the one table of programs that run another command
  (``timeout``, ``sudo``, ``uv run``, ``numactl`` ...), shells, interpreters, command strings,
  and every command a command runs (wrappers, ``bash -c``, ``xargs``, ``find -exec``, ``eval``,
  ``git submodule foreach`` ...), for the guards;
- ``meaning``: what a command means for comparing
  calls (loop detection): program, flags as a set, paths in normal form, read from the
  directory a ``cd`` moved to, whole-file reads, ``time`` and no-op pipe stages read through;
- ``words``: what the shell makes of a word before the line runs (``$PWD/..``, ``${x%/*}``);
- ``file_args``, ``code``: the files a line names (the path guard), interpreters and the code
  they are given.

This package imports nothing from the rest of ``harness`` but itself.

Source: beyond the seeds: seed 004's regex blocklist and ``ToolLoopDetector`` compare text; a shell reads a line otherwise.
"""

from harness.shell.syntax import Parsed, SimpleCommand, parse, split_flags
from harness.shell.wrappers import expand, program, unwrap, wrapped

__all__ = ["Parsed", "SimpleCommand", "expand", "parse", "program", "split_flags", "unwrap", "wrapped"]
