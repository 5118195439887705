"""``exec`` and ``kill``: commands run as ``docker exec`` would run them, their output kept to a
bound, and every running command's process group killable."""

import base64
import os
import selectors
import signal
import subprocess
import threading

from .users import _become, _user_env, identity
from .wire import _CHUNK, b64

_RUNNING = {}  # request id -> Popen
_RUNNING_LOCK = threading.Lock()
_KILLED = set()  # request ids killed before their process was registered (a thread not yet there)


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


def _unknown_user(name):
    # `docker exec --user` says this for a user the image lacks; the provider looks for it.
    message = f"unable to find user {name}: no matching entries in passwd file\n"
    return {"rc": 126, "out": "", "err": b64(message.encode()), "trunc": False}


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
