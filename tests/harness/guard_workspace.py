"""The workspace every guard case (``harness/rules/cases/{shell_commands,paths}``) is judged in.

It holds what the cases name: data files a deletion must not reach (``data/``, ``data.csv``,
``records.*``), generated folders (``build/``), a secret next to the workspace
(``../secret/deploy.key``, ``../outside/secret.txt``), a symlink that escapes (``link``) and two
that stay inside (``src_alias``, ``keep``). ``{outside}`` in a case stands for the folder next to
the workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

ROWS = "id,name\n1,Ada\n2,Grace\n"


def make(tmp: Path) -> Path:
    """The layout under ``tmp``; returns the workspace (``tmp/ws``)."""
    ws = tmp / "ws"
    for d in ("src", "data/tmp", "build/cache", "notes"):
        (ws / d).mkdir(parents=True, exist_ok=True)
    for d in ("outside", "secret", "home", "tmp"):
        (tmp / d).mkdir(exist_ok=True)
    (tmp / "outside" / "secret.txt").write_text("TOP SECRET")
    (tmp / "secret" / "deploy.key").write_text("KEY-123\n")
    (ws / "src" / "main.py").write_text("print(1)\n")
    (ws / "src" / "app.py").write_text("import shutil\nshutil.rmtree('build')  # rm -rf build\n")
    (ws / "data" / "customers.csv").write_text(ROWS)
    (ws / "data" / "list.txt").write_text("data/customers.csv\n")
    (ws / "data" / "tmp" / "part.csv").write_text(ROWS)
    (ws / "build" / "a.o").write_text("obj\n")
    (ws / "build" / "cache" / "a.bin").write_text("bin\n")
    (ws / "notes.txt").write_text("keep me\n")
    (ws / "notes" / "todo.txt").write_text("keep me\n")
    for name in ("data.csv", "app.db", "data/records.csv", "important.txt", "records.db", "records.csv"):
        (ws / name).write_text("id\n1\n")  # existing files an emptying command must not empty
    os.symlink(tmp / "outside", ws / "link")
    os.symlink(ws / "src", ws / "src_alias")
    os.symlink(ws / "data.csv", ws / "keep")
    return ws
