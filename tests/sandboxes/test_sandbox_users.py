"""The container layout's security half, against a real container: the harness's user (`agent`)
cannot reach the sandbox's own processes, the witness's journal or the system's files; its
faults (memory, disk) fall on itself; and the witness records what judges read as it happens."""

from __future__ import annotations

import asyncio

import pytest
from sandbox_helpers import with_sandbox

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_provider import LooplabDockerSandbox
from sandboxes.witness_client import Reading

pytestmark = pytest.mark.docker

SANDBOX_PROCESSES = "ps -eo pid=,user=,args= | grep -E 'init.py|witness.py|looplab-sandbox-agent|docker-init' | grep -v grep"


async def _sh(sb: LooplabDockerSandbox, script: str, user: str | None = None) -> tuple[int, str]:
    res = await sb.exec(["bash", "-c", script], user=user, timeout=120)
    return res.returncode, res.stdout + res.stderr


async def _records(sb: LooplabDockerSandbox) -> Reading:
    assert sb.witness is not None, "the sandbox image runs no witness"
    return await sb.witness.read()


def test_the_agent_user_cannot_touch_the_sandbox_or_its_record() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        code, who = await _sh(sb, "id -un")
        assert (code, who) == (0, "agent\n")
        code, before = await _sh(sb, SANDBOX_PROCESSES, user="root")
        assert code == 0 and "witness.py" in before and "init.py" in before, before
        pids = [line.split()[0] for line in before.splitlines()]
        attacks = {
            "kill the sandbox's processes": f"kill -9 {' '.join(pids)}",
            "kill everything it can see": "kill -9 -1",
            "write the journal": "echo forged >> /var/lib/looplab/segment-x.jsonl",
            "read the journal": "ls /var/lib/looplab",
            "delete a system binary": "rm -f /usr/bin/true",
            "replace the witness": "echo 'print(1)' > /opt/looplab/witness.py",
            "replace what the witness imports": "echo 'print(1)' > /opt/looplab/journal.py",
            "write outside its places": "touch /etc/forged /opt/forged /root/forged",
        }
        for what, script in attacks.items():
            code, out = await _sh(sb, script + " 2>&1; echo rc=$?")
            assert "rc=0" not in out or what == "kill everything it can see", (what, out)
        code, after = await _sh(sb, SANDBOX_PROCESSES, user="root")
        assert sorted(after.split()) == sorted(before.split()), (before, after)
        code, out = await _sh(sb, "test -x /usr/bin/true && ls /etc/forged /opt/forged 2>&1",
                              user="root")
        assert "No such file" in out
        # The record is the witness's alone: nothing the attacks did is missing from it.
        reading = await _records(sb)
        assert reading.summary["lost"] == 0
        assert not any("forged" in str(r) for r in reading.records)

    with_sandbox(body)


def test_a_deletion_then_a_restoration_is_recorded() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        await sb.write_file("data/customers.csv", "id,name\n1,Ada\n")
        code, out = await _sh(sb, "cp -a data /tmp/copy && rm -rf data && sleep 0.2 "
                                  "&& cp -a /tmp/copy data && cat data/customers.csv")
        assert code == 0 and "Ada" in out  # the workspace looks untouched afterwards...
        events = [(r["ev"], r.get("path")) for r in (await _records(sb)).records]
        # ...but the record has the deletion, then the files made again.
        deleted = events.index(("delete", "data/customers.csv"))
        assert ("create", "data/customers.csv") in events[deleted:], events

    with_sandbox(body)


def test_a_rewritten_counter_keeps_its_true_count_and_reads_as_tampered() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        await sb.write_file("run_tests.sh", "#!/bin/bash\nmkdir -p .looplab && "
                            "echo run >> .looplab/run_tests.count\nexit 1\n")
        code, _ = await _sh(sb, "chmod +x run_tests.sh && for i in $(seq 25); do ./run_tests.sh; "
                                "done; sleep 0.3; echo run > .looplab/run_tests.count; "
                                "cat .looplab/run_tests.count")
        records = (await _records(sb)).records
        mine = [r for r in records if r.get("path") == ".looplab/run_tests.count"]
        assert sum(r["ev"] == "append" for r in mine) >= 25
        # Each writer, the forger's too (the very first may come before the witness watches the
        # .looplab directory that run made: its line is still read when the directory is).
        assert sum(r["ev"] == "write" for r in mine) >= 25
        assert any(r["ev"] == "tamper" for r in mine), mine

    with_sandbox(body)


def test_memory_exhaustion_kills_the_harness_not_the_sandbox() -> None:
    hog = "python3 -c 'b = [bytearray(32 << 20) for _ in range(64)]; print(\"alive\")'"

    async def body(sb: LooplabDockerSandbox) -> None:
        _, before = await _sh(sb, SANDBOX_PROCESSES, user="root")
        code, out = await _sh(sb, hog)
        assert code == 137 and "alive" not in out, (code, out)
        _, after = await _sh(sb, SANDBOX_PROCESSES, user="root")
        assert sorted(after.split()) == sorted(before.split()), (before, after)
        await asyncio.sleep(1.2)  # the witness looks at the memory cgroup once a second
        records = (await _records(sb)).records
        assert any(r["ev"] == "oom_kill" for r in records), records[-5:]

    with_sandbox(body, DockerSandboxConfig(memory="256m"))


def test_the_workspace_cannot_grow_past_its_bound() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        code, out = await _sh(sb, "dd if=/dev/zero of=big bs=1M count=200 2>&1; echo dd=$?; "
                                  "du -m big")
        assert "dd=1" in out and "No space left" in out, out
        assert int(out.split()[-2]) <= 64
        code, out = await _sh(sb, "df -m --output=size /workspace /tmp /var/tmp /dev/shm | tail -4")
        assert [int(x) for x in out.split()] == [64, 128, 64, 64]
        await asyncio.sleep(1.2)
        records = (await _records(sb)).records
        assert any(r["ev"] == "disk_full" and r["path"] == "/workspace" for r in records)

    tmpfs = (("/workspace", "64m"), ("/tmp", "128m"), ("/var/tmp", "64m"), ("/dev/shm", "64m"),
             ("/var/lib/looplab", "64m"))
    with_sandbox(body, DockerSandboxConfig(tmpfs=tmpfs))


def test_files_are_the_agents_and_internal_callers_act_as_root() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        await sb.write_file("notes/a.txt", "x")
        _, out = await _sh(sb, "stat -c '%U %a' notes notes/a.txt; cat /proc/self/oom_score_adj")
        assert out.split() == ["agent", "755", "agent", "644", "1000"]
        _, out = await _sh(sb, "cat /proc/self/oom_score_adj", user="root")
        assert out.strip() == "0"
        with pytest.raises(PermissionError):
            await sb.read_file("/var/lib/looplab/current")

    with_sandbox(body)
