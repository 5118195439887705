"""Container reuse: a container that served a sample goes back to its warm pool, for the next
sample of the same config, only when it can be shown to be what a fresh container would be.

Removing a container and making the next one is most of the engine's work per sample (create,
start, agent start, remove: runc, shim, overlay mounts, cgroups). Reusing one costs a request to
its agent and one `docker diff`. The proof, at `sample_cleanup`:

1. At creation (`take_baseline`), before any sample, the agent records the fresh container: its
   processes (init, main process), the owner/mode/times of the roots reuse may empty (the
   workdir and the scratch directories), and a fingerprint of what `docker diff` cannot see
   (writable mounts such as /dev, /dev/mqueue and /etc/hosts, System V IPC, the kept processes);
   the container's diff against its image is recorded (the engine's own mount points).
2. After the sample (`recycle`), the agent SIGKILLs every process but those and itself until
   none is left, empties the roots and puts their owner, mode and times back, and the
   fingerprint must come out the same. Then the container's diff must show nothing beyond the
   fresh container's and the roots themselves (their parents included) as "changed": any file
   added, changed or deleted anywhere else, e.g. in /etc, /opt or /root, refuses the reuse.
   The diff is read from the overlay2 upper directory where the engine is local
   (`docker_upper.py`: cheaper, and it sees metadata changes too), else from `docker diff`.

Anything unexpected (agent gone, engine error, a process that cannot be killed, a root that
cannot be emptied) refuses it too, and the container is removed as it was before reuse existed.
"""

from __future__ import annotations

import logging
import os
import posixpath
from dataclasses import dataclass
from typing import Any

from .config import WITNESS_DIR, DockerSandboxConfig
from .docker_agent import AgentChannel
from .docker_upper import Entry, parents_of, unexpected, upper_dir, upper_entries

logger = logging.getLogger(__name__)

_REQUEST_WAIT_S = 60  # the agent answers in milliseconds; this only catches a hung container
_KILL_WAIT_S = 30  # SIGKILLed processes go at once and init reaps them right after, but on a
# loaded machine (a parallel test run, load 5 on 2 cores) that took past 5 s and the container
# was thrown away instead of reused; the wait ends as soon as they are gone
REUSE_ENV = "LOOPLAB_SANDBOX_REUSE"
"""Set to 0 (or false/no/off) to switch reuse off for every config, whatever it says."""

_CHANGED = 0  # `docker diff` kinds: 0 changed, 1 added, 2 deleted


@dataclass(frozen=True)
class Baseline:
    """What a container looked like before its first sample."""

    keep: tuple[int, ...]
    """Processes that belong to the container itself (its init and main process)."""
    roots: tuple[dict[str, Any], ...]
    """The agent's record of each root to empty: owner, mode, times, whether it exists."""
    fingerprint: str
    """Digest of the state `docker diff` does not cover (see `agent.reuse._fingerprint`)."""
    diff: frozenset[tuple[str, int]]
    """The fresh container's own differences from its image (`docker diff`), plus the roots and
    their parents as changed directories: all a recycled container may show."""
    upper: tuple[str, tuple[str, ...], dict[str, Entry]] | None = None
    """Where the engine is local: the upper directory, the lower ones, and the fresh upper
    directory's entries; then `diff` is not used."""
    ignored: tuple[str, ...] = ()
    """Mounts whose content is the sandbox's own and moves between samples (the witness's
    journal): left out of the fingerprint."""


def reuse_enabled(config: DockerSandboxConfig) -> bool:
    """Whether containers of `config` may be reused (the config, unless LOOPLAB_SANDBOX_REUSE
    switches reuse off for the whole process)."""
    switch = os.environ.get(REUSE_ENV, "").strip().lower()
    return config.reuse and switch not in ("0", "false", "no", "off")


def cleared_roots(config: DockerSandboxConfig) -> tuple[str, ...]:
    """The directories emptied between samples: the workdir and the scratch directories."""
    roots = (posixpath.normpath(config.workdir), *map(posixpath.normpath, config.scratch_dirs))
    return tuple(dict.fromkeys(roots))


def _ask(channel: AgentChannel, op: str, **fields: Any) -> dict[str, Any]:
    _, future = channel.request(op, **fields)
    reply = future.result(timeout=_REQUEST_WAIT_S)
    if reply.get("error"):
        raise RuntimeError(f"the agent could not {op}: {reply.get('message')}")
    return reply


def _parents(path: str) -> list[str]:
    out = []
    while path not in ("/", ""):
        out.append(path)
        path = posixpath.dirname(path)
    return out


def ignored_mounts(config: DockerSandboxConfig) -> tuple[str, ...]:
    """The witness's journal, when the config mounts it (its segments are the sandbox's own)."""
    return tuple(path for path, _ in config.tmpfs if posixpath.normpath(path) == WITNESS_DIR)


def take_baseline(
    channel: AgentChannel, api: Any, container_id: str, config: DockerSandboxConfig,
    spare: tuple[int, ...] = (), settled: str | None = None,
) -> Baseline | None:
    """Record a fresh container (blocking); None, with the reason logged, when it cannot be
    reused at all (a root that is "/" or holds files in the image, an agent error). ``spare``:
    the sandbox's own processes started with it (the model relay), kept but not fingerprinted.
    ``settled``: the Unix socket the container's own service (the witness) listens on once it
    has started; the baseline waits for it."""
    roots = cleared_roots(config)
    if "/" in roots:
        logger.warning("looplab-docker: workdir or scratch_dirs is '/'; containers are not reused")
        return None
    try:
        if settled is not None:
            # The processes kept are those alive now. Taken while the witness was still
            # starting, they could miss the witness (killed at the first reset) or hold a child
            # of its start that is gone by the reset (it ran `ldconfig` once: the fingerprint
            # then differed and the container was never reused). Once it answers, its start is
            # over. (A sync only drains its queue into the journal, which is ignored.)
            _ask(channel, "ask", socket=settled, request={"op": "sync"}, wait=_REQUEST_WAIT_S / 2)
        ignored = ignored_mounts(config)
        reply = _ask(channel, "baseline", roots=list(roots), ignored=list(ignored),
                     spare=list(spare))
        layers = upper_dir(api, container_id)
        upper = (*layers, upper_entries(layers[0])) if layers else None
        changes = [] if upper else (api.diff(container_id) or [])
    except Exception as err:
        logger.info("looplab-docker: no reuse baseline for %s: %s", container_id[:12], err)
        return None
    full = [r for r in reply["roots"] if not r.get("missing") and not r.get("empty")]
    if full:
        logger.warning("looplab-docker: %s not empty in image %s; its containers are not reused",
                       ", ".join(r["path"] for r in full), config.image)
        return None
    allowed = {(c["Path"], int(c["Kind"])) for c in changes}
    for root in reply["roots"]:
        if not root.get("missing"):
            allowed.update((p, _CHANGED) for p in _parents(root["path"]))
    return Baseline(tuple(reply["keep"]), tuple(reply["roots"]), reply["fingerprint"],
                    frozenset(allowed), upper, ignored)


def recycle(channel: AgentChannel, api: Any, container_id: str, baseline: Baseline,
            spare: tuple[int, ...] = ()) -> str | None:
    """Put a used container back as it was fresh (blocking). None when it now is; otherwise why
    not (the caller removes it). ``spare``: as for `take_baseline` (the caller has checked
    that those processes are still the sandbox's own)."""
    try:
        reply = _ask(channel, "reset", keep=list(baseline.keep), roots=list(baseline.roots),
                     ignored=list(baseline.ignored), spare=list(spare), timeout=_KILL_WAIT_S)
    except Exception as err:  # a dead agent, a closed channel, a hung container
        return f"the agent could not reset it: {err}"
    if reply.get("problems"):
        return "; ".join(reply["problems"])
    if reply.get("fingerprint") != baseline.fingerprint:
        return "state outside the file system differs (mounts, /dev, /etc/hosts, IPC, sockets, kept processes)"
    try:
        extra = _changes(api, container_id, baseline)
    except Exception as err:
        return f"its file-system changes could not be read: {err}"
    if extra:
        more = f" (+{len(extra) - 5} more)" if len(extra) > 5 else ""
        return "changed outside the emptied roots: " + ", ".join(extra[:5]) + more
    return None


def _changes(api: Any, container_id: str, baseline: Baseline) -> list[str]:
    """The container's changes a fresh one would not have, as `docker diff` lines."""
    if baseline.upper is not None:
        upper, lowers, fresh = baseline.upper
        roots = {r["path"]: r for r in baseline.roots if not r.get("missing")}
        return unexpected(upper_entries(upper), fresh, roots, parents_of(list(roots)), lowers)
    changes = api.diff(container_id) or []
    return sorted(
        f"{'CAD'[int(c['Kind'])] if int(c['Kind']) in (0, 1, 2) else c['Kind']} {c['Path']}"
        for c in changes
        if (c["Path"], int(c["Kind"])) not in baseline.diff
    )
