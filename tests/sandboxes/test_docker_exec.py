"""exec and file transfer against a real looplab-docker container."""

from __future__ import annotations

import pytest
from inspect_ai.util import SandboxUnavailableError, override_sandbox_output_limit
from sandbox_helpers import with_sandbox

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_provider import LooplabDockerSandbox

pytestmark = pytest.mark.docker


def test_exec_output_exit_code_stdin_cwd_env_user() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        ok = await sb.exec(["bash", "-c", "echo out; echo err >&2; pwd"])
        assert (ok.success, ok.returncode) == (True, 0)
        assert ok.stdout == "out\n/workspace\n" and ok.stderr == "err\n"

        failed = await sb.exec(["sh", "-c", "exit 3"])
        assert (failed.success, failed.returncode) == (False, 3)

        echoed = await sb.exec(
            ["python3", "-c", "import sys; print(sys.stdin.read()[::-1])"], input="stressed"
        )
        assert echoed.stdout == "desserts\n"

        await sb.exec(["mkdir", "-p", "sub/dir"])
        assert (await sb.exec(["pwd"], cwd="sub/dir")).stdout == "/workspace/sub/dir\n"
        assert (await sb.exec(["pwd"], cwd="/tmp")).stdout == "/tmp\n"

        env = await sb.exec(["sh", "-c", 'echo "$GREETING $FROM_CONFIG"'], env={"GREETING": "hi"})
        assert env.stdout == "hi configured\n"

        assert (await sb.exec(["id", "-un"], user="nobody")).stdout == "nobody\n"

    with_sandbox(body, DockerSandboxConfig(env={"FROM_CONFIG": "configured"}))


def test_large_stdin_and_output_do_not_deadlock() -> None:
    payload = "0123456789abcdef" * (1 << 16)  # 1 MiB through stdin, echoed straight back

    async def body(sb: LooplabDockerSandbox) -> None:
        result = await sb.exec(["cat"], input=payload)
        assert result.stdout == payload

    with_sandbox(body)


def test_five_megabyte_output_comes_back_whole() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        script = "import sys\nfor i in range(500_000): sys.stdout.write(f'{i:09d}\\n')"
        result = await sb.exec(["python3", "-c", script])
        assert len(result.stdout) == 5_000_000
        lines = result.stdout.splitlines()
        assert lines[0] == "000000000" and lines[-1] == "000499999" and len(lines) == 500_000

    with_sandbox(body)


def test_timeout_raises_and_kills_the_processes() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        with pytest.raises(TimeoutError):
            # A background child as well: the whole process group must go, not just bash.
            await sb.exec(["bash", "-c", "sleep 300 & sleep 301"], timeout=2)
        ps = await sb.exec(["ps", "-eo", "args"])
        assert ps.success and "sleep 30" not in ps.stdout, ps.stdout

        # A command that ignores SIGTERM is killed too.
        with pytest.raises(TimeoutError):
            await sb.exec(["bash", "-c", "trap '' TERM; sleep 302 & wait"], timeout=1)
        ps = await sb.exec(["ps", "-eo", "args"])
        assert "sleep 302" not in ps.stdout, ps.stdout

        # A command that finishes within its timeout returns normally, exit code and all.
        quick = await sb.exec(["sh", "-c", "exit 124"], timeout=30)
        assert quick.returncode == 124

    with_sandbox(body)


def test_write_then_read_text_and_bytes() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        await sb.write_file("deep/er/notes.txt", "line one\r\nline two ✓\n")
        assert await sb.read_file("deep/er/notes.txt") == "line one\r\nline two ✓\n"
        assert (await sb.exec(["cat", "/workspace/deep/er/notes.txt"])).stdout.startswith("line")

        blob = bytes(range(256)) * 1000
        await sb.write_file("/tmp/blob.bin", blob)
        assert await sb.read_file("/tmp/blob.bin", text=False) == blob

        await sb.write_file("deep/er/notes.txt", b"replaced")
        assert await sb.read_file("/workspace/deep/er/notes.txt") == "replaced"

        await sb.exec(["ln", "-s", "deep/er/notes.txt", "link"])
        assert await sb.read_file("link") == "replaced"

    with_sandbox(body)


def test_file_errors() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        with pytest.raises(FileNotFoundError):
            await sb.read_file("no/such/file.txt")
        with pytest.raises(FileNotFoundError):
            await sb.read_file("/etc/hostname/below-a-file")
        with pytest.raises(IsADirectoryError):
            await sb.read_file("/workspace")
        await sb.exec(["mkdir", "-p", "adir/keep"])
        with pytest.raises(IsADirectoryError):
            await sb.write_file("adir", "would clobber a directory")
        assert (await sb.exec(["test", "-d", "adir/keep"])).success
        await sb.write_file("bad.txt", b"\xff\xfe not utf-8")
        with pytest.raises(UnicodeDecodeError):
            await sb.read_file("bad.txt")

    with_sandbox(body)


def test_config_files_are_written_at_sample_start() -> None:
    config = DockerSandboxConfig(files={"seed/hello.txt": "from config", "/tmp/abs.txt": "abs"})

    async def body(sb: LooplabDockerSandbox) -> None:
        assert await sb.read_file("seed/hello.txt") == "from config"
        assert await sb.read_file("/tmp/abs.txt") == "abs"

    with_sandbox(body, config)


def test_exec_after_cleanup_is_unavailable() -> None:
    import asyncio

    async def run() -> None:
        envs = await LooplabDockerSandbox.sample_init("t", None, {})
        await LooplabDockerSandbox.sample_cleanup("t", None, envs, False)
        with pytest.raises(SandboxUnavailableError):
            await envs["default"].exec(["true"])

    asyncio.run(run())


def test_output_over_inspects_limit_keeps_the_tail() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        script = "for i in range(1000): print(f'{i:04d}')"  # 5000 bytes
        with override_sandbox_output_limit(1000, "exec"):
            result = await sb.exec(["python3", "-c", script])
        assert len(result.stdout) == 1000
        assert result.stdout.endswith("0999\n") and result.stdout.startswith("0800\n")

    with_sandbox(body)
