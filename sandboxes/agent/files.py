"""``read``, ``write`` and ``rename``, each done as the request's user."""

import base64
import errno
import json
import os
import stat

from .users import identity
from .wire import _CHUNK, b64


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
