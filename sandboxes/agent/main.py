"""The agent's main loop: announce readiness, read requests from stdin, answer each in a thread
of its own (``kill`` at once), and kill every running command when stdin closes."""

import json
import os
import sys
import threading

from .ask import op_ask
from .commands import _RUNNING, _RUNNING_LOCK, _kill_group, op_exec, op_kill
from .files import as_user, op_read, op_rename, op_write
from .reuse import op_baseline, op_reset
from .wire import reply

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
