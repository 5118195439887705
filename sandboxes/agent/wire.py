"""The agent's side of the line protocol: one JSON reply per line on stdout, binary data in
base64."""

import base64
import json
import sys
import threading

_OUT = sys.stdout.buffer
_OUT_LOCK = threading.Lock()
_CHUNK = 65536


def reply(message):
    line = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
    with _OUT_LOCK:
        _OUT.write(line)
        _OUT.flush()


def b64(data):
    return base64.b64encode(data).decode("ascii")
