"""The witness: records, as it happens and append-only, what judges read about a workspace.

It runs as root inside every looplab-docker container (started by ``init.py``), out of reach of
the harness under test (user ``agent``), and on the host for ``sandbox=local`` (same user as the
harness there: no protection, see sandboxes/README.md). Standard library only: the container's
``python3`` runs this file as it is.

What it records (one JSON line per record: ``seq``, ``t``, ``ev`` and the event's fields), per
sample *segment* (containers serve several samples; each begins its own segment):

- file events under the watched root, via inotify: ``create``, ``delete``, ``move_from`` /
  ``move_to`` (with the kernel's cookie pairing them), ``modify`` (once until the file is
  closed), ``write`` (closed after writing, with its size), ``attrib``; a new directory is
  watched and scanned at once (``scan: true`` on what was already in it);
- evidence files (any file below a ``.looplab`` directory): every complete line appended
  (``append``), every writer that closed it (``write``), and ``tamper`` when such a file
  shrinks, is rewritten, replaced, moved or deleted, or a ``.looplab`` directory is moved or
  deleted: a counter only ever goes up. (Events reach the witness a moment after they happen:
  a burst of appends followed at once by a rewrite may be read as its end state; the ``write``
  records still count every writer.)
- ``overflow`` when the kernel's event queue overflowed (then everything is scanned again),
  ``disk_full`` when a watched file system had no space left, ``oom_kill`` when the kernel's
  out-of-memory killer struck in the container's memory cgroup;
- ``begin`` (a segment starts, with a listing of what is there), ``mark`` (a caller's named
  moment, e.g. the end of the scenario's set-up), ``witness_start``.

Control: a Unix socket in the (root-only) journal directory takes one JSON request per
connection: ``begin`` (segment), ``mark`` (name), ``sync`` (drain every event already queued in
the kernel, then answer with the segment's last sequence number and file). ``ctl`` is the
client: ``python3 witness.py ctl --dir D sync --since N`` prints the answer and the records
after N.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import socket
import sys
import time

# `python3 -I` leaves this script's own directory off sys.path; journal.py lies beside it. In the
# image that directory (/opt/looplab) is root's and read-only to the sandbox's `agent` user, so
# nothing the harness under test writes can stand in for the module imported from it. No
# bytecode cache is written there: the container's file system stays as the image made it (a
# new /opt/looplab/__pycache__ would show in `docker diff` and cost the container its reuse).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from journal import CURRENT_NAME, Witness  # noqa: E402

SOCKET_NAME = "witness.sock"
TICK_S = 1.0


def serve(args: argparse.Namespace) -> None:
    os.makedirs(args.dir, mode=0o700, exist_ok=True)
    witness = Witness(args.root, args.dir, args.disk, oom=not args.no_oom)
    current = os.path.join(args.dir, CURRENT_NAME)
    resume = os.path.exists(current)
    witness.open_segment(open(current, encoding="ascii").read().strip() if resume else "container",
                         resume=resume)
    witness.emit("witness_start", pid=os.getpid(), restart=resume)
    witness.watch_tree("", None if not resume else "present")
    sock_path = os.path.join(args.dir, SOCKET_NAME)
    try:
        os.unlink(sock_path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock_path)
    os.chmod(sock_path, 0o600)
    server.listen(16)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sel = selectors.DefaultSelector()
    sel.register(witness.fd, selectors.EVENT_READ, "events")
    sel.register(server, selectors.EVENT_READ, "control")
    next_tick = time.monotonic()
    while True:
        for key, _ in sel.select(timeout=max(0.0, next_tick - time.monotonic())):
            if key.data == "events":
                witness.drain()
            else:
                _serve_one(server, witness)
        if time.monotonic() >= next_tick:
            witness.tick()
            next_tick = time.monotonic() + TICK_S


def _read_line(conn: socket.socket) -> bytes:
    """One newline-ended message (or what came before the peer closed)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def _serve_one(server: socket.socket, witness: Witness) -> None:
    conn, _ = server.accept()
    with conn:
        conn.settimeout(5)
        try:
            reply = witness.answer(json.loads(_read_line(conn) or b"{}"))
        except (OSError, ValueError) as err:
            reply = {"error": f"{type(err).__name__}: {err}"}
        try:
            conn.sendall(json.dumps(reply).encode() + b"\n")
        except OSError:
            pass


def ctl(args: argparse.Namespace) -> int:
    """Ask the running witness; print its answer (and, for sync, the records after --since)."""
    request = {"op": args.op, "segment": args.name, "name": args.name}
    deadline = time.monotonic() + args.wait
    while True:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(30)
                conn.connect(os.path.join(args.dir, SOCKET_NAME))
                conn.sendall(json.dumps(request).encode() + b"\n")
                data = _read_line(conn)
            break
        except OSError as err:
            if time.monotonic() > deadline:
                print(json.dumps({"error": f"no witness answers in {args.dir}: {err}"}))
                return 3
            time.sleep(0.05)
    reply = json.loads(data or b"{}")
    print(json.dumps(reply))
    if "error" in reply:
        return 1
    if args.op == "sync" and args.since is not None:
        with open(reply["file"], "rb") as f:
            for line in f:
                try:
                    if json.loads(line)["seq"] > args.since:
                        sys.stdout.write(line.decode("utf-8", "replace"))
                except (ValueError, KeyError):
                    continue  # a line torn by a full journal
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="witness", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="watch a root and keep the journal")
    s.add_argument("--root", default="/workspace")
    s.add_argument("--dir", default="/var/lib/looplab")
    s.add_argument("--disk", action="append", default=[], help="another file system to watch for being full")
    s.add_argument("--no-oom", action="store_true",
                   help="do not watch the memory cgroup (on a host it is not the sample's own)")
    c = sub.add_parser("ctl", help="ask the running witness")
    c.add_argument("op", choices=["begin", "mark", "sync"])
    c.add_argument("--dir", default="/var/lib/looplab")
    c.add_argument("--name", default="")
    c.add_argument("--since", type=int, default=None)
    c.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the witness to listen")
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(args)
        return 0
    return ctl(args)


if __name__ == "__main__":
    sys.exit(main())
