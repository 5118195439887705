"""Reuse (``baseline``, ``reset``; see sandboxes/docker_reuse.py): what a fresh container looks
like, and putting a used one back that way."""

import hashlib
import json
import os
import shutil
import signal
import stat
import time

# File systems whose state is the processes' own (gone with them) or read-only to the container.
_UNFINGERPRINTED = {"proc", "sysfs", "cgroup", "cgroup2", "devpts"}


def _pids():
    return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())


def _root_state(path):
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return {"path": path, "missing": True}
    state = {"path": path, "uid": info.st_uid, "gid": info.st_gid,
             "mode": stat.S_IMODE(info.st_mode), "dir": stat.S_ISDIR(info.st_mode),
             "times": [info.st_atime_ns, info.st_mtime_ns],
             "xattrs": sorted(os.listxattr(path, follow_symlinks=False))}
    state["empty"] = state["dir"] and not os.listdir(path)
    return state


def _hash_tree(top, digest, skip):
    # Every entry of one mount (not below other mounts): type, owner, mode, and for files the
    # size, mtime and content. Directory times are left out: they move with any entry made and
    # deleted again, which leaves nothing behind.
    top_dev = os.lstat(top).st_dev
    stack = [top]
    while stack:
        path = stack.pop()
        info = os.lstat(path)
        kind = stat.S_IFMT(info.st_mode)
        line = [path, kind, stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, info.st_rdev]
        if stat.S_ISREG(info.st_mode):
            with open(path, "rb") as f:
                line += [info.st_size, info.st_mtime_ns, hashlib.sha256(f.read()).hexdigest()]
        elif stat.S_ISLNK(info.st_mode):
            line.append(os.readlink(path))
        digest.update(json.dumps(line).encode() + b"\n")
        if stat.S_ISDIR(info.st_mode) and info.st_dev == top_dev and (path == top or path not in skip):
            stack.extend(os.path.join(path, name) for name in sorted(os.listdir(path), reverse=True))


def _fingerprint(keep, cleared, ignored=()):
    """A digest of what `docker diff` does not see: the mount table, the content of writable
    mounts other than the root file system (/dev, /etc/hosts and the like) and the `ignored`
    ones (the witness's journal, which is the sandbox's own and moves on its own), System V IPC
    objects, sockets, and the kept processes' identity. (Their memory maps are left out: the
    kept processes are the sandbox's own, root's, and no command of a sample runs as root.)"""
    digest = hashlib.sha256()
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        mounts = [line.split() for line in f]
    for fields in mounts:
        point, options = fields[4].encode().decode("unicode_escape"), fields[5].split(",")
        fstype = fields[fields.index("-") + 1]
        digest.update(f"{point} {fstype} {fields[5]}\n".encode())
        if (point != "/" and fstype not in _UNFINGERPRINTED and "rw" in options
                and point not in cleared and point not in ignored):
            _hash_tree(point, digest, set(cleared))
    # System V IPC objects outlive their processes; so do sockets in TIME_WAIT (a port the next
    # sample could not bind at once).
    for table in ("sysvipc/shm", "sysvipc/sem", "sysvipc/msg", "net/tcp", "net/tcp6", "net/udp",
                  "net/udp6"):
        try:
            with open(f"/proc/{table}", "rb") as f:
                digest.update(f.read())
        except OSError:
            pass
    for pid in keep:
        for name in ("cmdline", "comm", "oom_score_adj"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    digest.update(f.read())
            except OSError:
                digest.update(b"-")
    return digest.hexdigest()


def op_baseline(req):
    """What a fresh container has: its processes, the state of the roots reuse empties, and
    the fingerprint `reset` must find again."""
    # `spare`: the sandbox's own long-lived processes (the model relay): never killed, and not
    # fingerprinted (their memory maps change as they serve), like this agent itself.
    spare = set(req.get("spare", ()))
    keep = [pid for pid in _pids() if pid != os.getpid() and pid not in spare]
    roots = [_root_state(path) for path in req["roots"]]
    return {"keep": keep, "roots": roots,
            "fingerprint": _fingerprint(keep, req["roots"], req.get("ignored", ()))}


def _kill_others(keep, timeout):
    # SIGKILL everything else until nothing else is left; killed processes whose parent died
    # too are reaped by the container's init, the others by their parent (this agent's
    # command threads). Returns what is still there at the deadline.
    deadline = time.monotonic() + timeout
    while True:
        others = [pid for pid in _pids() if pid not in keep]
        if not others or time.monotonic() > deadline:
            return others
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.005)


def _clear_root(root):
    path = root["path"]
    if root.get("missing"):
        return [f"{path} was made"] if os.path.lexists(path) else []
    if not os.path.lexists(path):
        os.mkdir(path)
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        return [f"{path} is no longer a directory"]
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    os.chown(path, root["uid"], root["gid"], follow_symlinks=False)
    os.chmod(path, root["mode"])
    os.utime(path, ns=tuple(root["times"]), follow_symlinks=False)
    now = _root_state(path)
    return [] if all(now[k] == root[k] for k in ("uid", "gid", "mode", "xattrs", "empty")) \
        else [f"{path} could not be put back as it was"]


def op_reset(req):
    """Stop every process of the sample, empty the roots, put their owner, mode and times back,
    and report the fingerprint (and any problem) for the host to compare."""
    keep = set(req["keep"]) | set(req.get("spare", ())) | {os.getpid()}
    left = _kill_others(keep, float(req.get("timeout", 5)))
    if left:
        return {"problems": [f"processes that could not be stopped: {left[:10]}"]}
    problems = []
    for root in req["roots"]:
        try:
            problems += _clear_root(root)
        except OSError as err:
            problems.append(f"{root['path']}: {err}")
    paths = [root["path"] for root in req["roots"]]
    return {"problems": problems,
            "fingerprint": _fingerprint(sorted(req["keep"]), paths, req.get("ignored", ()))}
