"""The actor as summariser: when the harness asks its model to summarise (compaction, handoff),
the actor writes the summary — faithfully only as far as it is told to.

Like real models, it paraphrases opaque identifiers unless the instructions say to keep them
verbatim, and it writes "some items were processed" unless told to keep batch progress. Every
identifier shape is paraphrased, each into a plausible look-alike of the same kind (a UUID with
other middle digits, a shortened SHA, a neighbouring IP address, a truncated token, a URL
without its port, a path cut to its file name, an environment value left out, a rounded
quantity, a vague progress count). Which lines it keeps is decided by shape, never by keyword:
any line that carries a value a later step could need. ``weak`` summarisers paraphrase whatever
they are told: only a harness that verifies the summary protects them.
"""

from __future__ import annotations

import ipaddress
import re

from harness.messages import Message

UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
SHA = re.compile(r"\b[0-9a-f]{12,64}\b")
PROGRESS = re.compile(r"\b(?:processed|done|completed)\s+(\d+)\s+(?:of|/)\s+(\d+)\b", re.I)

# Identifier shapes, most specific first: one pass replaces each match once (a URL's host is
# not then paraphrased again as an IP address).
_SHAPES = {
    "url": r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>)\]]+",
    "jwt": r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}",
    "env": r"\b[A-Z][A-Z0-9_]{2,}=[^\s\"']+",
    "uuid": UUID.pattern,
    "ipv6": r"(?<![\w:])(?:[0-9a-fA-F]{0,4}:){2,7}[0-9a-fA-F]{0,4}(?![\w:])",
    "ipv4": r"\b(?:\d{1,3}\.){3}\d{1,3}\b",
    "path": r"(?<![\w.])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?",
    "sha": r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,64}\b",
    "token": r"(?<![\w/])(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Za-z])[A-Za-z0-9+/_-]{20,}={0,2}",
    "counter": r"\b\d+\s*(?:of|/|out of)\s*\d+\b",
    "quantity": r"\b\d+(?:\.\d+)?\s?(?:[kKMGTP]i?B|bytes?|ms|µs|ns|s|sec|seconds?|min|minutes?|h|hours?"
                r"|days?|%|[kKM]?Hz|rps|qps|req/s|items?|records?|rows?|files?|tokens?)\b",
}
IDENTIFIER = re.compile("|".join(f"(?P<{k}>{v})" for k, v in _SHAPES.items()))
"""Any identifier shape the summariser paraphrases (and keeps the line for)."""
NUMERIC = frozenset({"counter", "quantity"})
"""Shapes that are numbers (kept when told to keep progress and numbers)."""

_REQUEST = re.compile(r"summari[sz]e|merge these partial summaries|handoff briefing|recovery briefing", re.I)
_KEEP_IDS = re.compile(r"identifiers?\s+EXACTLY|verbatim|preserve all[^.\n]*identifiers", re.I)
_KEEP_PROGRESS = re.compile(r"progress on any batch|processed 17 of 43|batch progress|preserve all[^.\n]*numbers", re.I)


def is_summary_request(messages: list[Message], n_tools: int) -> bool:
    system = next((m.content for m in messages if m.role == "system"), "")
    return n_tools == 0 and bool(_REQUEST.search(system))


def _paraphrase_uuid(u: str) -> str:
    # A hallucinated reconstruction: same shape, different digits in the middle.
    swap = str.maketrans("0123456789abcdefABCDEF", "56789abcdef01234ABCDEF")
    return u[:9] + u[9:23].translate(swap) + u[23:]


def _ipv6(text: str) -> str:
    try:
        addr = ipaddress.IPv6Address(text)
    except ValueError:
        return text  # a clock time or a MAC-like string: not an address
    return str(ipaddress.IPv6Address(int(addr) ^ 0x11))


def _ipv4(text: str) -> str:
    try:
        addr = ipaddress.IPv4Address(text)
    except ValueError:
        return text  # a version number such as 1.2.3.400
    return str(ipaddress.IPv4Address(int(addr) ^ 0x3))


def _quantity(text: str) -> str:
    m = re.match(r"(\d+(?:\.\d+)?)\s?(.*)", text)
    assert m is not None
    value = float(m.group(1))
    rounded = float(f"{value:.1g}") if value >= 10 else round(value)
    return f"about {rounded:g} {m.group(2)}" if rounded != value else f"some {m.group(2)}"


PARAPHRASE = {
    "url": lambda t: re.sub(r":\d+(?=/|$)", "", t.split("?")[0]),
    "jwt": lambda t: t.split(".")[0] + ".…",
    "env": lambda t: t.split("=")[0] + " (set)",
    "uuid": _paraphrase_uuid,
    "ipv6": _ipv6,
    "ipv4": _ipv4,
    "path": lambda t: "…/" + t.rstrip("/").rsplit("/", 1)[-1],
    "sha": lambda t: t[:7] if len(t) > 7 else t[:4],
    "token": lambda t: t[:6] + "…",
    "counter": lambda t: "some of " + re.split(r"of|/|out of", t)[-1].strip(),
    "quantity": _quantity,
}
"""Shape -> how a model misremembers it (same kind of thing, not the same value)."""


def paraphrase(text: str, keep_ids: bool = False, keep_numbers: bool = False) -> str:
    """``text`` with every identifier shape paraphrased, except the kinds it is told to keep."""

    def swap(m: re.Match[str]) -> str:
        kind = m.lastgroup or ""
        if (keep_numbers if kind in NUMERIC else keep_ids):
            return m.group(0)
        return PARAPHRASE[kind](m.group(0))

    return IDENTIFIER.sub(swap, text)


def facts(material: str, limit: int = 20) -> list[str]:
    """Lines worth keeping: those that carry an identifier-shaped value (by shape, not by
    keyword), the most recent ``limit`` of them, each once."""
    lines = [ln.strip()[:600] for ln in material.splitlines() if IDENTIFIER.search(ln)]
    return list(dict.fromkeys(lines))[-limit:]


def summarise(messages: list[Message], weak: bool = False) -> str:
    system = next((m.content for m in messages if m.role == "system"), "")
    material = "\n".join(m.content for m in messages if m.role == "user")
    keep_ids = bool(_KEEP_IDS.search(system)) and not weak
    keep_progress = bool(_KEEP_PROGRESS.search(system)) and not weak
    goal = next((ln.strip() for ln in material.splitlines()
                 if ln.strip() and not ln.startswith("#")), "")
    progress = PROGRESS.findall(material)
    if progress and keep_progress:
        done, total = progress[-1]
        progress_line = f"Progress: processed {done} of {total} items."
    elif progress:
        progress_line = "Progress: some items were processed."
    else:
        progress_line = ""
    kept = "\n".join(facts(material))
    parts = ["Summary of the work so far.", f"Goal: {goal[:500]}", progress_line, "Key facts:", kept]
    return paraphrase("\n".join(p for p in parts if p), keep_ids, keep_progress)
