"""The two-level queue: per-session order by priority, a global gate, progress-timestamp timeouts."""

from __future__ import annotations

import asyncio

import pytest

from harness.sessions.queue import AgentQueue, LaneTask, LaneTimeout, resolve_priority


def test_trigger_priorities() -> None:
    assert [resolve_priority(t) for t in ("user", "manual", "webhook", "cron", "heartbeat",
                                          "memory")] == [
        "foreground", "foreground", "normal", "background", "background", "background"]


def test_one_job_per_session_at_a_time_in_priority_then_arrival_order() -> None:
    async def go() -> tuple[list[str], int]:
        queue = AgentQueue(global_concurrency=4)
        gate = asyncio.Event()
        order: list[str] = []
        running = 0
        peak = 0

        def job(name: str, wait: bool = False):
            async def run(lane: LaneTask) -> str:
                nonlocal running, peak
                running += 1
                peak = max(peak, running)
                order.append(name)
                if wait:
                    await gate.wait()
                await asyncio.sleep(0)
                running -= 1
                return name
            return run

        first = asyncio.create_task(queue.enqueue("s", job("first", wait=True), "normal"))
        while not order:
            await asyncio.sleep(0)
        rest = [asyncio.create_task(queue.enqueue("s", job(n), p)) for n, p in [
            ("cron", "background"), ("hook", "normal"), ("user1", "foreground"),
            ("user2", "foreground")]]
        while queue.pending("s") < 4:
            await asyncio.sleep(0)
        gate.set()
        results = await asyncio.gather(first, *rest)
        assert results == ["first", "cron", "hook", "user1", "user2"]
        return order, peak

    order, peak = asyncio.run(go())
    assert order == ["first", "user1", "user2", "hook", "cron"]
    assert peak == 1


def test_global_gate_caps_jobs_across_sessions() -> None:
    async def go() -> int:
        queue = AgentQueue(global_concurrency=2)
        running = 0
        peak = 0

        async def job(lane: LaneTask) -> None:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.05)
            running -= 1

        await asyncio.gather(*(queue.enqueue(f"s{i}", job) for i in range(5)))
        return peak

    assert asyncio.run(go()) == 2


async def _busy(lane: LaneTask, total_s: float = 1.5) -> str:
    """A job that keeps making progress (like a run producing turns) for ``total_s``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + total_s
    while loop.time() < end:
        await asyncio.sleep(0.02)
        lane.note_progress()
    return "finished"


async def _stuck(lane: LaneTask) -> str:
    await asyncio.sleep(60)
    return "never"


def test_a_job_that_keeps_making_progress_outlives_the_timeout() -> None:
    # Progress every 20 ms against a 2 s timeout: only a 2-second stall of this process (a
    # loaded machine) could look like no progress; the job runs 1.5 timeouts.
    queue = AgentQueue(timeout_ms=2000, timeout_basis="progress")
    assert asyncio.run(queue.enqueue("s", lambda lane: _busy(lane, total_s=3.0))) == "finished"


def test_a_job_without_progress_times_out() -> None:
    async def go() -> None:
        queue = AgentQueue(timeout_ms=300)
        with pytest.raises(LaneTimeout, match="300 ms without progress"):
            await asyncio.wait_for(queue.enqueue("s", _stuck), timeout=20)

    asyncio.run(go())


def test_a_wall_clock_timeout_kills_even_a_busy_job() -> None:
    async def go() -> None:
        queue = AgentQueue(timeout_ms=500, timeout_basis="wall")
        with pytest.raises(LaneTimeout, match="500 ms in total"):  # the job would run 60 s
            await queue.enqueue("s", lambda lane: _busy(lane, total_s=60))

    asyncio.run(go())


def test_on_timeout_lets_the_job_stop_gracefully() -> None:
    async def go() -> tuple[str, bool]:
        queue = AgentQueue(timeout_ms=200)
        stop = asyncio.Event()
        seen: list[LaneTask] = []

        async def job(lane: LaneTask) -> str:
            seen.append(lane)
            await stop.wait()
            return "stopped and saved"

        result = await asyncio.wait_for(queue.enqueue("s", job, on_timeout=stop.set), timeout=20)
        return result, seen[0].timed_out

    assert asyncio.run(go()) == ("stopped and saved", True)


def test_a_caller_that_gives_up_cancels_its_job_and_the_session_moves_on() -> None:
    async def go() -> tuple[bool, str]:
        queue = AgentQueue()
        cancelled, started = asyncio.Event(), asyncio.Event()

        async def slow(lane: LaneTask) -> str:
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise
            return "never"

        async def quick(lane: LaneTask) -> str:
            return "next ran"

        waiter = asyncio.create_task(queue.enqueue("s", slow))
        await started.wait()
        waiter.cancel()
        nxt = await asyncio.wait_for(queue.enqueue("s", quick), timeout=20)
        return cancelled.is_set(), nxt

    assert asyncio.run(go()) == (True, "next ran")


def test_exceptions_reach_the_caller_and_the_worker_survives() -> None:
    async def go() -> str:
        queue = AgentQueue()

        async def bad(lane: LaneTask) -> str:
            raise ValueError("boom")

        async def good(lane: LaneTask) -> str:
            return "fine"

        with pytest.raises(ValueError, match="boom"):
            await queue.enqueue("s", bad)
        return await queue.enqueue("s", good)

    assert asyncio.run(go()) == "fine"


def test_unknown_priority_is_a_clear_error() -> None:
    async def go() -> None:
        await AgentQueue().enqueue("s", _stuck, "urgent")  # type: ignore[arg-type]

    with pytest.raises(ValueError, match="priority must be one of"):
        asyncio.run(go())
