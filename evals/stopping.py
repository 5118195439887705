"""How a run stops on a signal: SIGTERM and SIGHUP take the path of Ctrl-C.

inspect stops an eval cleanly on SIGINT (``asyncio.run`` cancels the eval, sandboxes are removed,
the logs written so far are kept); SIGTERM's default action would kill the process on the spot
and leave its containers behind. So every looplab process turns its first SIGTERM or SIGHUP into
one SIGINT and remembers which signal came, for the exit code (128 + the signal: 130 SIGINT,
143 SIGTERM, 129 SIGHUP). A second signal is a second interrupt: it stops at once, and the
containers it leaves are reaped by the next run or ``make clean-sandboxes``.

A split run's child processes take their stop from their parent: the terminal sends Ctrl-C (and
a closing terminal SIGHUP) to the whole process group, the parent forwards one SIGTERM to each
child, and a child blocks SIGINT and counts only its first stopping signal, so no child sees two
interrupts for one. The parent's second signal kills the children at once. A process started
with SIGINT ignored (a background job of a shell script) keeps ignoring SIGINT the same way
(blocked), and SIGTERM still stops it cleanly.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

STOPPING = (signal.SIGTERM, signal.SIGHUP)
EXIT_INTERRUPTED = 128 + signal.SIGINT


class Stop:
    """The signals this process received, in order (the first one names the exit code)."""

    def __init__(self, first_only: bool) -> None:
        self.received: list[int] = []
        self.first_only = first_only

    def exit_code(self) -> int:
        """128 + the first signal that stopped the run (SIGINT when none was caught here)."""
        return 128 + (self.received[0] if self.received else signal.SIGINT)

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self.received and self.first_only:
            return
        self.received.append(signum)
        pending = signal.SIGINT in signal.sigpending()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if not pending:  # else the unblocking delivered the pending SIGINT: that is the interrupt
            signal.raise_signal(signal.SIGINT)


@contextmanager
def stop_on_signals(split_child: bool = False) -> Iterator[Stop]:
    """Handle SIGTERM and SIGHUP as above while the block runs (the handlers, the SIGINT mask
    and handler are put back afterwards); outside the main thread nothing is changed."""
    stop = Stop(first_only=split_child)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, *STOPPING)}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    if split_child or before[signal.SIGINT] is signal.SIG_IGN:
        # Blocked, a SIGINT stays pending until a stopping signal asks for the interrupt; the
        # default handler lets asyncio install its clean one when inspect's eval starts.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in STOPPING:
        signal.signal(sig, stop._interrupt)
    try:
        yield stop
    finally:
        # A SIGINT still pending (the parent's stop is on its way) is dropped, not raised at exit.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for sig, handler in before.items():
            signal.signal(sig, handler)


def stop_children(procs: list[subprocess.Popen]) -> list[int]:
    """Forward the stop to every child still running (SIGTERM) and wait for all of them: they
    remove their sandboxes and keep their logs. A further signal to this process kills the
    children at once (their containers are reaped by the next run)."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    try:
        return [p.wait() for p in procs]
    except KeyboardInterrupt:
        for p in procs:
            if p.poll() is None:
                p.kill()
        return [p.wait() for p in procs]
