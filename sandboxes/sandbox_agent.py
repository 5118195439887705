"""The command agent that runs *inside* a looplab-docker sandbox container (stdlib only).

The provider starts it once per container with one `docker exec` and then sends every command,
file read and file write of the sample over that exec's attached stdin/stdout, instead of paying
a `docker exec` (a runc process start, several engine round trips) for each of them.

Protocol: one JSON object per line each way. Requests carry an `id` and an `op` (`exec`, `read`,
`write`, `rename`, `kill`, `baseline`/`reset` for container reuse, see
sandboxes/docker_reuse.py, and `ask` for the witness, see sandboxes/witness_client.py); binary data travels base64-encoded. Each request but `kill` gets
exactly one reply with the same `id`. The first line the agent prints is `{"ready": ...}`.

The agent runs as root. Each `exec`, `read`, `write` and `rename` names the user it is for
(`user`; none: the agent's own): a command runs as that user (uid, gid, supplementary groups,
`HOME`, as `docker exec --user` gives them), its OOM score raised to 1000 when it is not root (the kernel then kills it, not
the sandbox, when memory runs out), and file operations are done by a child process that has
dropped to that user, so they see exactly what that user's own program would. Each command has
a session of its own and stdin from /dev/null unless input is given: what `docker exec` gives a
command. Start failures answer exit code 126 as `docker exec` does. When stdin closes (the
provider went away or the container is being removed) every running command's process group is
killed.
This file is read by the host and run with `python3 -c`; it must not import anything from looplab.
"""

import base64
import errno
import hashlib
import json
import os
import pwd
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

_OUT = sys.stdout.buffer
_OUT_LOCK = threading.Lock()
_RUNNING = {}  # request id -> Popen
_RUNNING_LOCK = threading.Lock()
_KILLED = set()  # request ids killed before their process was registered (a thread not yet there)
_CHUNK = 65536


def reply(message):
    line = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
    with _OUT_LOCK:
        _OUT.write(line)
        _OUT.flush()


def b64(data):
    return base64.b64encode(data).decode("ascii")


class Tail:
    """Keeps the last `limit` bytes written, and counts them all."""

    def __init__(self, limit):
        self.limit, self.total, self.chunks, self.kept = limit, 0, [], 0

    def write(self, data):
        self.total += len(data)
        self.chunks.append(data)
        self.kept += len(data)
        while len(self.chunks) > 1 and self.kept - len(self.chunks[0]) >= self.limit:
            self.kept -= len(self.chunks.pop(0))

    def value(self):
        data = b"".join(self.chunks)
        return data[-self.limit:] if len(data) > self.limit else data


def _feed(pipe, data):
    # Its own thread: a command may fill its output pipes before it reads all of its input.
    try:
        pipe.write(data)
    except OSError:
        pass  # the command exited without reading everything, as with a closed pipe
    try:
        pipe.close()
    except OSError:
        pass


def _start_failure(argv, cwd, err):
    if cwd and not os.path.isdir(cwd):
        why = f'chdir to cwd ("{cwd}") failed: no such file or directory'
    elif isinstance(err, FileNotFoundError):
        why = f'exec: "{argv[0]}": executable file not found in $PATH'
    elif isinstance(err, PermissionError):
        why = f'exec: "{argv[0]}": permission denied'
    else:
        why = f"{type(err).__name__}: {err}"
    return {"rc": 126, "out": b64(f"exec failed: {why}\n".encode()), "err": "", "trunc": False}


def _initial_environ():
    # The environment `docker exec` gave this process, as it was at exec: Python itself may have
    # added to os.environ since (LC_CTYPE, when it coerces a C locale).
    try:
        with open("/proc/self/environ", "rb") as f:
            pairs = [item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item]
        return {os.fsdecode(k): os.fsdecode(v) for k, v in pairs}
    except OSError:
        return dict(os.environ)


_BASE_ENV = _initial_environ()
_IDENTITIES = {}  # user name -> Identity (or None: unknown)
_OOM_DOOMED = b"1000"


class Identity:
    """A user of the container as a command runs as it."""

    def __init__(self, entry):
        self.name, self.uid, self.gid = entry.pw_name, entry.pw_uid, entry.pw_gid
        self.home = entry.pw_dir or "/"
        self.groups = os.getgrouplist(entry.pw_name, entry.pw_gid)

    @property
    def is_self(self):
        return self.uid == os.getuid()


def identity(name):
    """The container's user `name` (a name or a uid); None for the agent's own user."""
    if name is None or name == "":
        return None
    if name not in _IDENTITIES:
        try:
            entry = pwd.getpwuid(int(name)) if str(name).isdigit() else pwd.getpwnam(name)
            _IDENTITIES[name] = Identity(entry)
        except (KeyError, ValueError):
            _IDENTITIES[name] = None
    return _IDENTITIES[name]


def _unknown_user(name):
    # `docker exec --user` says this for a user the image lacks; the provider looks for it.
    message = f"unable to find user {name}: no matching entries in passwd file\n"
    return {"rc": 126, "out": "", "err": b64(message.encode()), "trunc": False}


def _become(who):
    """Runs in a command's child before exec: raise its OOM score to 1000 (while still root:
    a process that changed its uid can no longer write its own /proc files), then become the
    user. The kernel then picks this process, and what it starts (which inherits the score),
    before the sandbox's own when memory runs out."""

    def child():
        try:
            fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            try:
                os.write(fd, _OOM_DOOMED)
            finally:
                os.close(fd)
        except OSError:
            pass
        os.setgroups(who.groups)
        os.setgid(who.gid)
        os.setuid(who.uid)

    return child


def _user_env(env, who):
    # As `docker exec --user`: HOME from the user's passwd entry, unless the caller sets one.
    if who is not None and not who.is_self:
        env.setdefault("HOME", who.home)
    return env


def op_exec(req):
    argv, cwd, limit = req["argv"], req.get("cwd") or None, int(req["limit"])
    who = identity(req.get("user"))
    if req.get("user") and who is None:
        return _unknown_user(req["user"])
    env = dict(_BASE_ENV)
    if who is not None and not who.is_self:
        env.pop("HOME", None)  # root's own is not the user's
    env.update(req.get("env") or {})
    env = _user_env(env, who)
    drop = {}
    if who is not None and not who.is_self:
        drop = {"preexec_fn": _become(who)}
    data = base64.b64decode(req["input"]) if req.get("input") is not None else None
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, start_new_session=True,
            stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **drop,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as err:
        return _start_failure(argv, cwd, err)
    with _RUNNING_LOCK:
        _RUNNING[req["id"]] = proc
        early = req["id"] in _KILLED
        _KILLED.discard(req["id"])
    if early:  # the kill came while this thread was still starting it (a loaded machine)
        _kill_group(proc.pid)
    try:
        feeder = None
        if data is not None:
            feeder = threading.Thread(target=_feed, args=(proc.stdin, data), daemon=True)
            feeder.start()
        out, err = Tail(limit), Tail(limit)
        _drain(proc, out, err)
        rc = proc.wait()
        if feeder is not None:
            feeder.join(5)
    finally:
        with _RUNNING_LOCK:
            _RUNNING.pop(req["id"], None)
    # Death by signal N reads 128+N, as `docker exec` (and a shell) report it, not Python's -N.
    return {"rc": rc if rc >= 0 else 128 - rc, "out": b64(out.value()), "err": b64(err.value()),
            "trunc": out.total > limit or err.total > limit}


def _drain(proc, out, err):
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        open_pipes = 2
        while open_pipes:
            for key, _ in sel.select():
                chunk = os.read(key.fd, _CHUNK)
                if chunk:
                    key.data.write(chunk)
                else:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    open_pipes -= 1


def _file_error(err, path):
    kind = {errno.ENOENT: "ENOENT", errno.ENOTDIR: "ENOENT", errno.EISDIR: "EISDIR",
            errno.EACCES: "EACCES", errno.EPERM: "EACCES"}.get(err.errno, "OSERROR")
    return {"error": kind, "message": f"{path}: {err.strerror or err}"}


def as_user(op):
    """`op(req)` done by a child process that has become the request's user (file operations
    see exactly what that user's own program would: permissions, symlinks, ownership of what
    is created). The agent's own user does it in place."""

    def run(req):
        who = identity(req.get("user"))
        if req.get("user") and who is None:
            return {"error": "EACCES", "message": f"unable to find user {req['user']}"}
        if who is None or who.is_self:
            return op(req)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: drop to the user, do the one operation, report, exit
            code = 0
            try:
                os.close(rfd)
                os.setgroups(who.groups)
                os.setgid(who.gid)
                os.setuid(who.uid)
                result = op(req)
            except BaseException as err:  # noqa: BLE001 - everything goes back to the parent
                result, code = {"error": "AGENT", "message": f"{type(err).__name__}: {err}"}, 1
            try:
                data = json.dumps(result).encode()
                while data:
                    data = data[os.write(wfd, data):]
            finally:
                os._exit(code)
        os.close(wfd)
        chunks = []
        with os.fdopen(rfd, "rb") as reader:
            while chunk := reader.read(_CHUNK):
                chunks.append(chunk)
        os.waitpid(pid, 0)
        try:
            return json.loads(b"".join(chunks))
        except ValueError:
            return {"error": "AGENT", "message": "the file operation's process gave no answer"}

    return run


def op_read(req):
    path, limit = req["path"], int(req["limit"])
    try:
        info = os.stat(path)  # follows symlinks, as a reader of the file would
        if stat.S_ISDIR(info.st_mode):
            return {"error": "EISDIR", "message": f"{path}: Is a directory"}
        if not stat.S_ISREG(info.st_mode):
            return {"error": "ENOENT", "message": f"{path}: not a regular file"}
        if info.st_size > limit:
            return {"error": "TOOBIG", "message": f"{path}: {info.st_size} bytes"}
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        return _file_error(err, path)
    if len(data) > limit:
        return {"error": "TOOBIG", "message": f"{path}: over {limit} bytes"}
    return {"data": b64(data)}


def op_write(req):
    # A temp file renamed over the target: readers see the old file or the new one, and the
    # result is a fresh regular file (mode 0644) even where a file or symlink was.
    path = req["path"]
    parent = os.path.dirname(path) or "/"
    if os.path.isdir(path):
        return {"error": "EISDIR", "message": f"{path}: Is a directory"}
    tmp = os.path.join(parent, f".{os.path.basename(path)}.looplab-{req['id']}")
    try:
        os.makedirs(parent, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(base64.b64decode(req["data"]))
            os.fchmod(f.fileno(), 0o644)
        os.replace(tmp, path)
    except OSError as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return _file_error(err, path)
    return {}


def op_rename(req):
    try:
        os.replace(req["src"], req["dst"])
    except OSError as err:
        return _file_error(err, req["src"])
    return {}


def op_ask(req):
    """One request to a local service's Unix socket (the witness's, in its root-only
    directory), and its one-line answer; with ``tail`` set, also the lines of the file the
    answer names (``file``) whose ``seq`` is above ``tail``: the witness's records since then,
    without a process started for the asking."""
    import socket

    deadline = time.monotonic() + float(req.get("wait", 10))
    while True:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(30)
                conn.connect(req["socket"])
                conn.sendall(json.dumps(req["request"]).encode() + b"\n")
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(_CHUNK)
                    if not chunk:
                        break
                    data += chunk
            break
        except OSError as err:
            if time.monotonic() > deadline:
                return {"error": "ENOENT", "message": f"{req['socket']}: {err}"}
            time.sleep(0.05)
    answer = json.loads(data or b"{}")
    lines = []
    if req.get("tail") is not None and "file" in answer:
        with open(answer["file"], "rb") as f:
            for line in f:
                try:
                    if json.loads(line)["seq"] > int(req["tail"]):
                        lines.append(line.decode("utf-8", "replace").rstrip("\n"))
                except (ValueError, KeyError):
                    continue  # a line torn by a full journal
    return {"answer": answer, "lines": lines}


def op_kill(req):
    with _RUNNING_LOCK:
        proc = _RUNNING.get(req["target"])
        if proc is None:
            _KILLED.add(req["target"])  # not registered yet: killed as soon as it is
    if proc is not None:
        _kill_group(proc.pid)


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


# --- reuse: what a fresh container looks like, and putting a used one back that way ---------

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


OPS = {"exec": op_exec, "read": as_user(op_read), "write": as_user(op_write),
       "rename": as_user(op_rename), "baseline": op_baseline, "reset": op_reset, "ask": op_ask}


def handle(req):
    try:
        result = OPS[req["op"]](req)
    except Exception as err:  # a bug or a resource limit (pids, memory): report, keep serving
        result = {"error": "AGENT", "message": f"{type(err).__name__}: {err}"}
    result["id"] = req["id"]
    reply(result)


def main():
    try:
        import pwd

        name = pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        name = None
    reply({"ready": True, "pid": os.getpid(), "uid": os.getuid(), "user": name})
    for line in sys.stdin.buffer:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if req.get("op") == "kill":
            op_kill(req)
            continue
        try:
            threading.Thread(target=handle, args=(req,), daemon=True).start()
        except RuntimeError as err:  # no thread to be had (pids limit): answer inline
            reply({"id": req.get("id"), "error": "AGENT", "message": str(err)})
    with _RUNNING_LOCK:
        running = list(_RUNNING.values())
    for proc in running:
        _kill_group(proc.pid)


if __name__ == "__main__":
    main()
