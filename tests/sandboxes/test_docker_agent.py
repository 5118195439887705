"""The in-container command agent: same results as `docker exec`, robust to being killed,
kills what an interrupt abandons, and a clean fallback where it cannot run."""

from __future__ import annotations

import asyncio
import io
import time
import uuid
from collections.abc import Iterator

import pytest
from sandbox_helpers import with_sandbox

from sandboxes.config import AGENT_USER, DockerSandboxConfig
from sandboxes.docker_engine import api_client
from sandboxes.docker_io import run_exec
from sandboxes.docker_provider import LooplabDockerSandbox

pytestmark = pytest.mark.docker

BASE_IMAGE = "looplab-base:bookworm"  # plain Debian made by setup.sh: no python3


def test_commands_see_what_docker_exec_gives_them() -> None:
    """The agent and a plain `docker exec --user` agree on environment (HOME from the user's
    entry), working directory, stdin and session, for the default user (`agent`) and for
    root, whom internal callers name."""

    async def body(sb: LooplabDockerSandbox) -> None:
        script = "id -un; env | sort; pwd; ls -l /proc/self/fd/0 | sed 's/.*-> //'; ps -o sid= -p $$"
        for user in (None, "root"):
            by_agent = await sb.exec(["bash", "-c", script], cwd="/tmp", user=user)
            by_engine = await asyncio.to_thread(
                run_exec, api_client(), sb.container_id, ["bash", "-c", script], stdin=None,
                workdir="/tmp", env=None, user=user or AGENT_USER, deadline_s=60,
                output_limit=1 << 20,
            )
            assert by_agent.success and by_engine.returncode == 0
            agent_lines = by_agent.stdout.splitlines()
            engine_lines = by_engine.stdout.decode().splitlines()
            # Same user and variables (FROM_CONFIG included, nothing added), same cwd, stdin.
            assert agent_lines[:-1] == engine_lines[:-1]
            assert agent_lines[0] == (user or AGENT_USER)
            assert "FROM_CONFIG=configured" in agent_lines and "/dev/null" in agent_lines
            assert not any(line.startswith("LC_CTYPE=") for line in agent_lines)
        # Each command leads a session of its own, as with `docker exec`.
        pid = (await sb.exec(["bash", "-c", "echo $$; ps -o sid= -p $$"], user="root")).stdout
        assert pid.split()[0] == pid.split()[1]
        assert sb.agent.runs_as("root") and not sb.agent.runs_as("nobody")

    with_sandbox(body, DockerSandboxConfig(env={"FROM_CONFIG": "configured"}))


def test_start_failures_answer_126_like_docker_exec() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        missing = await sb.exec(["no-such-program"])
        assert missing.returncode == 126 and "executable file not found" in missing.stdout
        no_cwd = await sb.exec(["pwd"], cwd="/no/such/dir")
        assert no_cwd.returncode == 126 and "/no/such/dir" in no_cwd.stdout
        killed = await sb.exec(["bash", "-c", "kill -9 $$"])
        assert killed.returncode == 137  # 128 + SIGKILL, not Python's -9

    with_sandbox(body)


def test_many_commands_at_once_get_their_own_results() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        results = await asyncio.gather(
            *(sb.exec(["sh", "-c", f"sleep 0.$(( {i} % 3 )); echo {i}; exit {i % 5}"])
              for i in range(30))
        )
        assert [r.stdout for r in results] == [f"{i}\n" for i in range(30)]
        assert [r.returncode for r in results] == [i % 5 for i in range(30)]

    with_sandbox(body)


def test_a_command_that_kills_the_agent_reads_killed_and_the_sandbox_goes_on() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        # The harness's user cannot (the agent is root's); a root command can.
        res = await sb.exec(["bash", "-c", "pkill -9 -f [l]ooplab-sandbox-agent; sleep 0.5; echo alive"])
        assert (res.returncode, res.stdout) == (0, "alive\n") and "not permitted" in res.stderr
        res = await sb.exec(["bash", "-c", "pkill -9 -f looplab-sandbox-agent; sleep 5"],
                            user="root")
        assert res.returncode == 137 and "agent ended" in res.stderr
        assert (await sb.exec(["echo", "still here"])).stdout == "still here\n"
        await sb.write_file("after.txt", "written")
        assert await sb.read_file("after.txt") == "written"

    with_sandbox(body)


def test_a_cancelled_command_is_killed_in_the_container() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        task = asyncio.create_task(sb.exec(["bash", "-c", "sleep 303 & sleep 304"]))
        deadline = time.monotonic() + 60  # a loaded machine is slow, never this slow
        while "sleep 304" not in (await sb.exec(["ps", "-eo", "args"])).stdout:  # until it runs
            assert time.monotonic() < deadline and not task.done(), "the command never ran"
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline = time.monotonic() + 60
        while "sleep 30" in (ps := (await sb.exec(["ps", "-eo", "args"])).stdout):
            assert time.monotonic() < deadline, ps  # the kill is asynchronous: polled, bounded
            await asyncio.sleep(0.05)

    with_sandbox(body)


def test_rename_replaces_atomically_and_reports_errors() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        await sb.write_file("state.json", "old")
        await sb.write_file(".state.json.tmp", "new")
        await sb.rename(".state.json.tmp", "state.json")
        assert await sb.read_file("state.json") == "new"
        assert not (await sb.exec(["test", "-e", ".state.json.tmp"])).success
        with pytest.raises(FileNotFoundError):
            await sb.rename("missing.tmp", "state.json")
        # No temp files of the agent's own writes are left behind.
        assert (await sb.exec(["ls", "-A"])).stdout == "state.json\n"

    with_sandbox(body)


@pytest.fixture
def image_without_python() -> Iterator[str]:
    """The plain Debian base (no python3) with a command that keeps the container up."""
    import docker

    try:
        api_client().inspect_image(BASE_IMAGE)
    except docker.errors.ImageNotFound:
        pytest.skip(f"{BASE_IMAGE} not built here (sandboxes/setup.sh makes it)")
    tag = f"looplab-test-no-python:{uuid.uuid4().hex[:8]}"
    dockerfile = f'FROM {BASE_IMAGE}\nCMD ["sleep", "infinity"]\n'.encode()
    list(api_client().build(fileobj=io.BytesIO(dockerfile), tag=tag, rm=True))
    try:
        yield tag
    finally:
        api_client().remove_image(tag, force=True)


def test_image_without_python_falls_back_to_docker_exec(image_without_python: str) -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        assert sb.agent.disabled  # no python3: the agent could not start
        res = await sb.exec(["sh", "-c", "echo fallback; exit 4"])
        assert (res.stdout, res.returncode) == ("fallback\n", 4)
        await sb.write_file("notes/a.txt", "via the archive API")
        assert await sb.read_file("notes/a.txt") == "via the archive API"
        with pytest.raises(FileNotFoundError):
            await sb.read_file("notes/missing.txt")
        await sb.rename("notes/a.txt", "notes/b.txt")
        assert await sb.read_file("notes/b.txt") == "via the archive API"

    # The archive API cannot reach tmpfs mounts, and the image has no `agent` user.
    with_sandbox(body, DockerSandboxConfig(image=image_without_python, user=None, tmpfs=()))
