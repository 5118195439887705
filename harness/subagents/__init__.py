"""Sub-agents (seeds 000, 002, 004): the ``agent`` tool, the registry, the tool policy and the
spawn rules. Import the submodules directly (``harness.subagents.tool``); this package file stays
empty so that ``harness.config`` can import ``harness.subagents.config`` without a cycle."""
