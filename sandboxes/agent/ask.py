"""``ask``: one request to a local service's Unix socket (the witness's). The host asks a witness
on the host with the same function (sandboxes/witness_client.py)."""

import json
import time

from .wire import _CHUNK


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
