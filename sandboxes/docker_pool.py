"""Warm pools: sandbox containers created, started and given their command agent ahead of the
samples that will use them, so a sample does not wait for the engine to make one.

The pool also takes back a container a sample has finished with when `docker_reuse.recycle`
has shown it to be as fresh (`give_back`); otherwise that container is removed, so every sample
starts from the image or from something proven the same. A pool exists per config while a
`task_init` for it is active (refcounted: inspect runs one `task_init` per distinct config, and
tests may run several); `task_init` starts making the first containers, as many as the samples
expected (`DockerSandboxConfig.expected_samples`, at most `warm`), and `task_cleanup` drains
it. Pooled containers, made or given back, are tracked like any other, without a task scope
until a sample takes one, so exit and signal hooks remove them too.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass

from .config import DockerSandboxConfig
from .docker_agent import AgentHandle
from .docker_engine import TRACKED, api_client, create_container, has_witness, remove_container
from .docker_reuse import Baseline, recycle, reuse_enabled, take_baseline
from .model_relay import ModelRelay
from .witness_client import SOCKET_IN_CONTAINER

logger = logging.getLogger(__name__)

STARTUP = "startup"
"""The task name inspect's `task_init` is called with (once per config, before any sample)."""

_CREATE_WORKERS = 4
"""Containers being made at once for all pools: enough to overlap the engine's round trips on a
small machine without flooding it."""


_CLOSE_WAIT_S = 120
"""How long `close` waits for containers still being made (each takes about a second)."""


@dataclass
class Prepared:
    """A started container with its agent running, not yet handed to a sample."""

    container_id: str
    name: str
    agent: AgentHandle
    baseline: Baseline | None = None
    """The container as it was fresh, when it may be reused (see docker_reuse)."""
    reuses: int = 0
    """How many samples used it before the one it is for now."""
    relay: ModelRelay | None = None
    """The container's model relay (`DockerSandboxConfig.model_relay`), started with it."""


def prepare(config: DockerSandboxConfig, task_name: str) -> Prepared:
    """Create and start a container and start its agent, and its model relay when the config
    asks for one (blocking). The agent is optional: without it (e.g. no python3 in the image)
    the sandbox falls back to `docker exec`, and the container is not reused. The relay is not:
    a container that needs one and cannot start it raises `RelayUnavailableError`."""
    container_id, name = create_container(config, task_name)
    agent = AgentHandle(api_client(), container_id)
    relay = None
    try:
        # Before the baseline: the relay and its listening socket belong to the fresh container.
        relay = ModelRelay.start(api_client(), container_id) if config.model_relay else None
        channel = agent.get()
        baseline = None
        if channel is not None and reuse_enabled(config):
            spare = (relay.pid,) if relay is not None else ()
            settled = SOCKET_IN_CONTAINER if has_witness(config) else None
            baseline = take_baseline(channel, api_client(), container_id, config, spare, settled)
    except BaseException:
        agent.close()
        if relay is not None:
            relay.close()
        remove_container(container_id)
        raise
    return Prepared(container_id, name, agent, baseline, relay=relay)


def give_back_if_fresh(
    prepared: Prepared, agent: AgentHandle, config: DockerSandboxConfig, task_name: str
) -> bool:
    """After a sample (not interrupted): recycle its container and give it back to its pool
    (blocking). False when it may not be reused: the caller removes it."""
    baseline = prepared.baseline
    if baseline is None or prepared.reuses >= config.max_reuses or not reuse_enabled(config):
        return False
    pool = POOLS.pool_for(config, task_name)
    channel = agent.hand_over()  # the finished sample's handle reaches the agent no more
    if channel is None:
        return False  # the agent is gone (or was never there): nothing to vouch for it
    why_not = _relay_unfit(prepared.relay)
    if pool is not None and why_not is None:
        spare = (prepared.relay.pid,) if prepared.relay is not None else ()
        why_not = recycle(channel, api_client(), prepared.container_id, baseline, spare)
        if why_not is None:
            again = Prepared(prepared.container_id, prepared.name,
                             AgentHandle.adopt(api_client(), prepared.container_id, channel),
                             baseline, prepared.reuses + 1, prepared.relay)
            if pool.give_back(again):
                return True
    if why_not is not None:
        logger.info("looplab-docker: %s not reused: %s", prepared.name, why_not)
    channel.close()
    return False


def _relay_unfit(relay: ModelRelay | None) -> str | None:
    """Why the container's relay keeps it from being reused (None: it may be). The relay must
    still answer, and no harness may still hold a connection to it (each is reset now: a
    connection left to close normally would leave a TIME_WAIT socket behind)."""
    if relay is None:
        return None
    try:
        relay.drop_connections()
    except Exception as err:  # a stream that ended: the relay was killed, or the container
        return f"its model relay is gone: {err}"
    return None


def discard(prepared: Prepared) -> None:
    prepared.agent.close()
    if prepared.relay is not None:
        prepared.relay.close()
    remove_container(prepared.container_id)


class WarmPool:
    """Keeps `size` prepared containers ready; `take` hands one out, or the next one made."""

    def __init__(self, config: DockerSandboxConfig, task_name: str, size: int) -> None:
        self.config = config
        self.task_name = task_name
        self.size = size
        self.taken = 0
        """Samples that took a container from this pool so far."""
        self._lock = threading.Condition()  # notified whenever a creation has ended
        self._ready: deque[Prepared] = deque()
        self._waiters: deque[Future[Prepared]] = deque()
        self._creating = 0
        self.active = True

    def take(self) -> Future[Prepared]:
        """A future of a prepared container: done at once if one is ready."""
        future: Future[Prepared] = Future()
        with self._lock:
            if not self.active:
                raise RuntimeError("looplab-docker: the warm pool was closed")
            self.taken += 1
            if self._ready:
                future.set_result(self._ready.popleft())
            else:
                self._waiters.append(future)
        self._refill()
        return future

    def prewarm(self) -> None:
        """Start making the containers the first samples will take (not blocking)."""
        self._refill()

    def give_back(self, prepared: Prepared) -> bool:
        """Take back a recycled container for the next sample; False (the caller removes it)
        when the pool is closed."""
        with self._lock:
            if not self.active:
                return False
            # Pooled again: no task's `task_cleanup` may remove it, only the pool's own close.
            TRACKED.add(prepared.container_id, self.config, pooled=True)
            while self._waiters:
                waiter = self._waiters.popleft()
                try:
                    waiter.set_result(prepared)
                    return True
                except InvalidStateError:
                    continue  # that sample was cancelled while it waited: next one
            # Used first, ahead of fresh ones: fewer containers stay alive.
            self._ready.appendleft(prepared)
            return True

    def close(self, wait_s: float = _CLOSE_WAIT_S) -> None:
        """Stop refilling and remove every container of the pool (blocking): the ready ones now,
        those still being made as soon as they are (waited for). Waiting samples get an error."""
        with self._lock:
            self.active = False
            ready, self._ready = list(self._ready), deque()
            waiters, self._waiters = list(self._waiters), deque()
        for future in waiters:
            _fail(future, RuntimeError("looplab-docker: the task ended before a sandbox was ready"))
        # Removed side by side: each removal is mostly the engine's wait on the container's
        # processes and mounts, and the run's end waits for all of them.
        with ThreadPoolExecutor(max(1, min(len(ready), 8)), "looplab-docker-remove") as removing:
            for prepared in ready:
                removing.submit(_quietly, discard, prepared)
        with self._lock:
            if not self._lock.wait_for(lambda: self._creating <= 0, timeout=wait_s):
                logger.warning("looplab-docker: %d pooled sandbox(es) still being made after "
                               "%.0fs; exit hooks will remove them", self._creating, wait_s)

    def _refill(self) -> None:
        with self._lock:
            if not self.active:
                return
            wanted = self._ahead() + len(self._waiters) - len(self._ready) - self._creating
            self._creating += max(wanted, 0)
        for _ in range(max(wanted, 0)):
            _executor().submit(self._create)

    def _ahead(self) -> int:
        """Containers to have ready for samples not started yet: `size`, but never more than
        the samples the task still has to start (`expected_samples`, when known)."""
        expected = self.config.expected_samples
        return self.size if expected <= 0 else min(self.size, max(expected - self.taken, 0))

    def _create(self) -> None:
        if not self.active or not threading.main_thread().is_alive():
            # Closed, or the interpreter is exiting (queued work still runs then): make nothing.
            self._created()
            return
        try:
            prepared = prepare(self.config, self.task_name)
        except Exception as err:
            with self._lock:
                self._creating -= 1
                self._lock.notify_all()
                waiter = self._waiters.popleft() if self._waiters else None
            # The sample that waits gets the engine's error (no retry loop against a broken engine).
            logger.warning("looplab-docker: could not prepare a pooled sandbox: %s", err)
            if waiter is not None:
                _fail(waiter, err)
            return
        self._deliver(prepared)
        self._refill()

    def _deliver(self, prepared: Prepared) -> None:
        while True:
            with self._lock:
                if not self.active:
                    break
                if not self._waiters:
                    self._ready.append(prepared)
                    self._creating -= 1
                    self._lock.notify_all()
                    return
                waiter = self._waiters.popleft()
            try:
                waiter.set_result(prepared)
            except InvalidStateError:
                continue  # that sample was cancelled while it waited: next one
            self._created()
            return
        # Closed while it was being made: remove it before `close` may return.
        _quietly(discard, prepared)
        self._created()

    def _created(self) -> None:
        with self._lock:
            self._creating -= 1
            self._lock.notify_all()


def _fail(future: Future[Prepared], err: BaseException) -> None:
    try:
        future.set_exception(err)
    except InvalidStateError:
        pass  # cancelled meanwhile


def _quietly(fn: object, *args: object) -> None:
    try:
        fn(*args)  # type: ignore[operator]
    except Exception as err:  # the engine may be gone; exit hooks try again
        logger.warning("looplab-docker: could not remove a pooled sandbox: %s", err)


_executor_lock = threading.Lock()
_executor_instance: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _executor_instance
    with _executor_lock:
        if _executor_instance is None:
            _executor_instance = ThreadPoolExecutor(_CREATE_WORKERS, "looplab-docker-pool")
        return _executor_instance


class Pools:
    """The process's warm pools, by config (refcounted by `task_init`/`task_cleanup`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[DockerSandboxConfig, int] = {}
        self._pools: dict[DockerSandboxConfig, WarmPool] = {}

    def acquire(self, config: DockerSandboxConfig) -> None:
        """A task with `config` starts: samples of it may take from pools from now on."""
        with self._lock:
            self._users[config] = self._users.get(config, 0) + 1

    def release(self, config: DockerSandboxConfig) -> None:
        """A task with `config` ended: when none is left, close its pools (blocking)."""
        with self._lock:
            users = self._users.get(config, 0) - 1
            if users > 0:
                self._users[config] = users
                return
            self._users.pop(config, None)
            pool = self._pools.pop(config, None)
        if pool is not None:
            pool.close()

    def pool_for(self, config: DockerSandboxConfig, task_name: str) -> WarmPool | None:
        """The pool of `config` to take from and give back to, or None (no active task, or
        neither `warm` nor reuse). One pool per config, whatever the task: a container is made
        from the config alone, and inspect starts a config's sandboxes (`task_init`) under the
        name "startup", before any task's samples ask for one. `task_name` names the
        containers the pool makes from then on."""
        if config.warm <= 0 and not reuse_enabled(config):
            return None
        with self._lock:
            if config not in self._users:
                return None
            pool = self._pools.get(config)
            if pool is None:
                pool = self._pools[config] = WarmPool(config, task_name, config.warm)
            elif task_name != STARTUP and pool.task_name == STARTUP:
                pool.task_name = task_name
            return pool


POOLS = Pools()
