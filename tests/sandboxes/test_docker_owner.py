"""Who owns a sandbox container, and when it counts as orphaned (no engine needed)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from sandboxes.docker_owner import (
    LABEL_OWNER_BOOT,
    LABEL_OWNER_HOST,
    LABEL_OWNER_PID,
    LABEL_OWNER_START,
    boot_id,
    owner_gone,
    owner_identity,
)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_this_process_owns_its_containers():
    assert not owner_gone(owner_identity())


def test_a_dead_owner_makes_an_orphan():
    assert owner_gone({**owner_identity(), LABEL_OWNER_PID: str(_dead_pid())})


def test_a_reused_pid_is_not_the_owner():
    labels = {**owner_identity(), LABEL_OWNER_START: "1"}  # same pid, another start time
    assert owner_gone(labels)


def test_another_boot_means_the_owner_is_gone():
    assert boot_id()
    assert owner_gone({**owner_identity(), LABEL_OWNER_BOOT: "another-boot"})


def test_another_hosts_container_is_never_taken():
    labels = {**owner_identity(), LABEL_OWNER_HOST: socket.gethostname() + "-elsewhere",
              LABEL_OWNER_PID: str(_dead_pid())}
    assert not owner_gone(labels)


def test_legacy_labels_judged_by_pid_on_a_local_engine(monkeypatch):
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    assert owner_gone({"looplab.pid": str(_dead_pid())})
    assert not owner_gone({"looplab.pid": str(os.getpid())})
    assert not owner_gone({})
    monkeypatch.setenv("DOCKER_HOST", "tcp://elsewhere:2375")
    assert not owner_gone({"looplab.pid": str(_dead_pid())})
