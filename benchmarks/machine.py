"""The line every benchmark prints about the machine it ran on (figures are only comparable on
one machine, and a shared machine's load says how much to trust them)."""

from __future__ import annotations

import os
import platform


def describe() -> str:
    """``CPython 3.11.7, 2 CPUs, load 1.3`` (the load: the last minute's average)."""
    return (f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
            f"load {os.getloadavg()[0]:.1f}")
