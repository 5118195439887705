"""How many `looplab-docker` sandboxes this process may hold at once, without inspect's delay.

inspect bounds sandboxes with `max_sandboxes` (or a provider's `default_concurrency`), and
wherever such a bound is in effect it sleeps every sample a random 0-1 s before giving it a
sandbox, so that the samples of several tasks interleave (`inspect_ai/_eval/task/sandbox.py`,
`sandboxenv_context`). That sleep was most of a spec sample's `init` phase (`make bench-specs`:
0.6-0.9 s against 0.2-0.3 s of container start in the floor) and on average half a second of
every sample of a run. Our runs bound Docker sandboxes here instead (`evals.evaluate`): a slot
is taken in `sample_init` and released in `sample_cleanup`; waiting samples are served in the
order they asked, which interleaves the tasks as they arrive.
"""

from __future__ import annotations

import asyncio

__all__ = ["SLOTS", "SandboxSlots"]


class SandboxSlots:
    """A process-wide bound on live sandboxes; unbounded until `limit` is called."""

    def __init__(self) -> None:
        self._size: int | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def limit(self, size: int | None) -> None:
        """At most ``size`` sandboxes at once from now on (None: no bound). Call it between
        evals, not while one runs: the slots held then are forgotten."""
        if size is not None and size < 1:
            raise ValueError(f"sandbox slots: the bound must be at least 1, got {size}")
        self._size, self._semaphore, self._loop = size, None, None

    async def take(self) -> asyncio.Semaphore | None:
        """Wait for a slot; → what to release it to (once), or None when there is no bound.
        Cancelling the wait takes nothing."""
        if self._size is None:
            return None
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:  # each inspect eval runs its own loop
            self._semaphore, self._loop = asyncio.Semaphore(self._size), loop
        semaphore = self._semaphore
        await semaphore.acquire()
        return semaphore


SLOTS = SandboxSlots()
"""The process's bound, set by `evals.evaluate.run_evals` for a run on `looplab-docker`."""
