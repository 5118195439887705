"""The witness's recording (``witness.py`` beside this file runs it): inotify watches over a
root, evidence files followed line by line, and the journal, one JSON line per record, one file
per sample segment. What is recorded is listed in witness.py's docstring. Standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import stat
import struct
import time

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x01000000, 0x02000000, 0x40000000
WATCH_MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
              | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)

CURRENT_NAME = "current"
EVIDENCE_DIR = ".looplab"
TRACK_LIMIT = 256 * 1024
"""Evidence files up to this size are re-read whole on every change (so a rewrite is seen);
beyond it only their size is followed (a shrink is still tampering)."""
LINE_LIMIT = 300
FULL_BYTES = 64 * 1024
"""A watched file system with less free space than this counts as full."""


class Track:
    """What the witness has seen of one evidence file."""

    def __init__(self) -> None:
        self.offset = 0
        self.digest = hashlib.sha256(b"").hexdigest()
        self.partial = b""
        self.whole = True


def _inotify():
    # The interpreter's own symbols, libc's among them. Not `ctypes.util.find_library("c")`:
    # it runs `ldconfig -p` (a child process at every start of the witness, caught once in a
    # reuse baseline as one of the container's own processes).
    libc = ctypes.CDLL(None, use_errno=True)
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return libc


def _oom_kills() -> int | None:
    """The container's memory cgroup's count of out-of-memory kills (v2, then v1)."""
    for path, key in (("/sys/fs/cgroup/memory.events", "oom_kill"),
                      ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")):
        try:
            with open(path, encoding="ascii") as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            continue
    return None


class Witness:
    def __init__(self, root: str, journal_dir: str, disks: list[str], oom: bool = True) -> None:
        self.root = os.path.realpath(root)
        self.oom = oom
        self.dir = journal_dir
        self.disks = [self.root, *disks]
        self.libc = _inotify()
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.paths: dict[int, str] = {}  # wd -> path relative to the root ('' for the root)
        self.wds: dict[str, int] = {}
        self.tracks: dict[str, Track] = {}
        self.modified: set[str] = set()
        self.moving: dict[int, tuple[str, bool]] = {}  # cookie -> (old path, is dir)
        self.segment = ""
        self.journal = -1
        self.seq = 0
        self.lost = 0
        self.full: set[str] = set()
        self.oom_base = _oom_kills()
        self.oom_seen = 0

    # --- the journal ----------------------------------------------------------------------

    def open_segment(self, name: str, resume: bool = False) -> None:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80] or "container"
        if self.journal >= 0:
            os.close(self.journal)
        path = os.path.join(self.dir, f"segment-{name}.jsonl")
        if not resume:
            for old in os.listdir(self.dir):  # one sample's record at a time: memory is bounded
                if old.startswith("segment-") and old != os.path.basename(path):
                    try:
                        os.unlink(os.path.join(self.dir, old))
                    except OSError:
                        pass
        self.journal = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        self.segment, self.seq = name, self._last_seq(path) if resume else 0
        if not resume:
            try:
                os.truncate(path, 0)
            except OSError:
                pass
        tmp = os.path.join(self.dir, CURRENT_NAME + ".tmp")
        with open(tmp, "w", encoding="ascii") as f:
            f.write(name)
        os.replace(tmp, os.path.join(self.dir, CURRENT_NAME))
        self.full, self.oom_base, self.oom_seen = set(), _oom_kills(), 0

    @staticmethod
    def _last_seq(path: str) -> int:
        try:
            with open(path, "rb") as f:
                lines = f.read().splitlines()
            return int(json.loads(lines[-1])["seq"]) if lines else 0
        except (OSError, ValueError, KeyError, IndexError):
            return 0

    def emit(self, ev: str, **fields: object) -> None:
        self.seq += 1
        record = {"seq": self.seq, "t": round(time.time(), 4), "ev": ev, **fields}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            os.write(self.journal, line.encode("utf-8"))
        except OSError:
            self.lost += 1  # the journal's own bound was reached: say so in every answer

    # --- watches --------------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return os.path.join(self.root, rel) if rel else self.root

    def watch_tree(self, rel: str, ev: str | None) -> None:
        """Watch ``rel`` and every directory below it; record what is already there as ``ev``
        (``create`` with ``scan`` for a directory that just appeared; None records nothing)."""
        stack = [rel]
        while stack:
            here = stack.pop()
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(self._abs(here)), WATCH_MASK)
            if wd < 0:
                if ctypes.get_errno() == errno.ENOSPC:
                    self.emit("overflow", path=here, why="no inotify watch left")
                continue
            old = self.paths.get(wd)
            if old is not None and old != here:
                self.wds.pop(old, None)
            self.paths[wd], self.wds[here] = here, wd
            try:
                entries = sorted(os.scandir(self._abs(here)), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                child = f"{here}/{entry.name}" if here else entry.name
                is_dir = entry.is_dir(follow_symlinks=False)
                if ev is not None:
                    self.emit(ev, path=child, dir=is_dir, scan=True)
                if is_dir:
                    stack.append(child)
                elif _is_evidence(child):
                    self.follow(child, quiet=ev is None)

    def forget_tree(self, rel: str) -> None:
        prefix = rel + "/"
        for path in [p for p in self.wds if p == rel or p.startswith(prefix)]:
            wd = self.wds.pop(path)
            self.paths.pop(wd, None)
            self.libc.inotify_rm_watch(self.fd, wd)
        for path in [p for p in self.tracks if p.startswith(prefix)]:
            del self.tracks[path]

    def rename_tree(self, old: str, new: str) -> None:
        prefix = old + "/"
        for path in [p for p in self.wds if p == old or p.startswith(prefix)]:
            wd = self.wds.pop(path)
            moved = new + path[len(old):]
            self.paths[wd], self.wds[moved] = moved, wd

    # --- evidence files -------------------------------------------------------------------

    def follow(self, rel: str, quiet: bool = False) -> None:
        """Read what was appended to an evidence file since last time; record it, or record
        tampering when what was there before is no longer its beginning."""
        track = self.tracks.setdefault(rel, Track())
        try:
            fd = os.open(self._abs(rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return
            size = info.st_size
            data = _read_all(fd, min(size, TRACK_LIMIT)) if size <= TRACK_LIMIT else b""
        finally:
            os.close(fd)
        if size < track.offset:
            self._reset(rel, track, data, size, quiet, f"shrank from {track.offset} to {size} bytes")
            return
        if size > TRACK_LIMIT:
            track.whole, track.offset = False, size
            return
        if track.whole and hashlib.sha256(data[:track.offset]).hexdigest() != track.digest:
            self._reset(rel, track, data, size, quiet, "rewritten (what was appended changed)")
            return
        new, track.offset = track.partial + data[track.offset:], size
        track.digest, track.whole = hashlib.sha256(data).hexdigest(), True
        *lines, track.partial = new.split(b"\n")
        for line in lines:
            if not quiet:
                self.emit("append", path=rel, line=line[:LINE_LIMIT].decode("utf-8", "replace"))

    def _reset(self, rel: str, track: Track, data: bytes, size: int, quiet: bool, why: str) -> None:
        if not quiet:
            self.emit("tamper", path=rel, why=why)
        track.offset, track.whole = size, size <= TRACK_LIMIT
        track.digest = hashlib.sha256(data).hexdigest()
        track.partial = data[data.rfind(b"\n") + 1:] if data else b""

    # --- events ---------------------------------------------------------------------------

    def drain(self) -> None:
        """Handle every event queued in the kernel now."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            except InterruptedError:
                continue
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, cookie, length = _EVENT.unpack_from(data, offset)
                raw = data[offset + _EVENT.size: offset + _EVENT.size + length]
                offset += _EVENT.size + length
                self.handle(wd, mask, cookie, os.fsdecode(raw.rstrip(b"\0")))
        self._unpaired_moves()

    def handle(self, wd: int, mask: int, cookie: int, name: str) -> None:
        if mask & IN_Q_OVERFLOW:
            self.emit("overflow", why="the kernel's event queue overflowed; scanning again")
            self.watch_tree("", "present")
            for rel in list(self.tracks):
                self.follow(rel)
            return
        base = self.paths.get(wd)
        if base is None:
            return
        if mask & IN_IGNORED:
            self.paths.pop(wd, None)
            if self.wds.get(base) == wd:
                del self.wds[base]
            return
        if mask & (IN_DELETE_SELF | IN_MOVE_SELF) or not name:
            return  # about a watched directory itself: recorded by its parent's event
        rel = f"{base}/{name}" if base else name
        is_dir = bool(mask & IN_ISDIR)
        if mask & IN_CREATE:
            self.emit("create", path=rel, dir=is_dir)
            if is_dir:
                self.watch_tree(rel, "create")
            elif _is_evidence(rel):
                # A track here means the scan of a directory that had just appeared already
                # read this file (its creation was queued before the scan ran): go on from
                # there, or its lines count twice. A file deleted or moved away lost its track.
                self.follow(rel)
        if mask & (IN_MODIFY | IN_CLOSE_WRITE) and not is_dir:
            if _is_evidence(rel):
                self.follow(rel)
                if mask & IN_CLOSE_WRITE:
                    # One per writer that closed the file: a counter's executions even when a
                    # burst of writes and a rewrite came before the content could be read.
                    self.emit("write", path=rel, size=_size(self._abs(rel)))
            elif mask & IN_CLOSE_WRITE:
                self.modified.discard(rel)
                self.emit("write", path=rel, size=_size(self._abs(rel)))
            elif rel not in self.modified:
                self.modified.add(rel)
                self.emit("modify", path=rel)
        if mask & IN_ATTRIB:
            self.emit("attrib", path=rel, dir=is_dir, mode=_mode(self._abs(rel)))
        if mask & IN_DELETE:
            self.emit("delete", path=rel, dir=is_dir)
            self._gone(rel, is_dir, "deleted")
        if mask & IN_MOVED_FROM:
            self.emit("move_from", path=rel, dir=is_dir, cookie=cookie)
            self.moving[cookie] = (rel, is_dir)
            self._gone(rel, is_dir, "moved away")
        if mask & IN_MOVED_TO:
            old = self.moving.pop(cookie, None)
            self.emit("move_to", path=rel, dir=is_dir, cookie=cookie,
                      **({"source": old[0]} if old else {}))
            if rel in self.tracks:
                self.emit("tamper", path=rel, why="replaced by another file")
                self.tracks.pop(rel, None)
            if is_dir and old is not None:
                self.rename_tree(old[0], rel)
                self.watch_tree(rel, None)
            elif is_dir:
                self.watch_tree(rel, "create")
            if not is_dir and _is_evidence(rel):
                self.follow(rel, quiet=True)  # moved-in content was not appended here

    def _gone(self, rel: str, is_dir: bool, how: str) -> None:
        if rel in self.tracks:
            self.emit("tamper", path=rel, why=how)
            del self.tracks[rel]
        if is_dir:
            prefix = rel + "/"
            if os.path.basename(rel) == EVIDENCE_DIR or any(p.startswith(prefix) for p in self.tracks):
                self.emit("tamper", path=rel, why=f"evidence directory {how}")
            for path in [p for p in self.tracks if p.startswith(prefix)]:
                del self.tracks[path]

    def _unpaired_moves(self) -> None:
        # A directory moved out of the watched tree: its watches now report on a foreign place.
        for _cookie, (rel, is_dir) in list(self.moving.items()):
            if is_dir:
                self.forget_tree(rel)
        self.moving.clear()

    def tick(self) -> None:
        for path in self.disks:
            try:
                info = os.statvfs(path)
            except OSError:
                continue
            if info.f_bavail * info.f_frsize < FULL_BYTES and path not in self.full:
                self.full.add(path)
                self.emit("disk_full", path=path, size=info.f_blocks * info.f_frsize)
        kills = _oom_kills() if self.oom else None
        if kills is not None and self.oom_base is not None and kills - self.oom_base > self.oom_seen:
            self.oom_seen = kills - self.oom_base
            self.emit("oom_kill", count=self.oom_seen)

    # --- control --------------------------------------------------------------------------

    def answer(self, request: dict) -> dict:
        op = request.get("op")
        self.drain()
        self.tick()
        if op == "begin":
            self.open_segment(str(request.get("segment") or "sample"))
            self.tracks.clear()
            self.modified.clear()
            self.emit("begin", segment=self.segment, root=self.root)
            self.watch_tree("", "present")
        elif op == "mark":
            self.emit("mark", name=str(request.get("name", "")))
        elif op != "sync":
            return {"error": f"unknown op {op!r}"}
        return {"seq": self.seq, "segment": self.segment, "lost": self.lost,
                "file": os.path.join(self.dir, f"segment-{self.segment}.jsonl")}


def _is_evidence(rel: str) -> bool:
    return f"{EVIDENCE_DIR}/" in f"/{rel}" and not rel.endswith("/")


def _read_all(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _size(path: str) -> int | None:
    try:
        return os.lstat(path).st_size
    except OSError:
        return None


def _mode(path: str) -> str | None:
    try:
        return oct(stat.S_IMODE(os.lstat(path).st_mode))
    except OSError:
        return None
