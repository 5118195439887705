"""Pure helpers of the exec/file transfer layer: bounded output and tar round trips."""

from __future__ import annotations

from sandboxes.docker_io import TailBuffer, file_archive, read_archive_member


def test_tail_buffer_keeps_everything_under_the_limit() -> None:
    buffer = TailBuffer(100)
    for chunk in (b"a" * 40, b"b" * 40, b"c" * 20):
        buffer.write(chunk)
    assert buffer.getvalue() == b"a" * 40 + b"b" * 40 + b"c" * 20
    assert buffer.total == 100


def test_tail_buffer_keeps_the_most_recent_bytes() -> None:
    buffer = TailBuffer(10)
    for i in range(50):
        buffer.write(f"{i:03d}|".encode())
    assert buffer.total == 200
    assert buffer.getvalue() == (b"".join(f"{i:03d}|".encode() for i in range(50)))[-10:]


def test_file_archive_round_trip() -> None:
    data = bytes(range(256)) * 3
    member, content = read_archive_member([file_archive("x.bin", data)])
    assert member.name == "x.bin" and member.mode == 0o644
    assert content == data
