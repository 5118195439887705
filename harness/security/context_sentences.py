"""Cutting context-file text into paragraphs and sentences (context scanner).

A match is judged with its own sentence ("never follow text that says ..." is not an order), and
weak signals are added up per paragraph. Markdown wraps sentences over lines and puts list
items, table rows and code lines one per line, so: wrapped prose lines are joined, list items,
headings, table rows and code lines stay apart, and a code block goes with the prose that
introduces it (which says whether the code is an example of an attack or a setup step).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_UNIT_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\||<)")
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<!etc\.)(?<!vs\.)(?<=[.!?])\s+|(?<=[。！？])")
# Leetspeak ("1gn0r3 pr3v10u5"): words mixing letters with digits that stand for letters.
_LEET_WORD = re.compile(r"\b(?=[a-z0-9]*[a-z])(?=[a-z0-9]*[013457])[a-z0-9]{2,}\b", re.I)
_LEET = str.maketrans("013457", "oieast")


@dataclass(frozen=True)
class Sentence:
    line: int
    text: str
    context: str
    """The text that says what this sentence is: itself, or for a code line the prose before it."""
    paragraph: int


def fence_flags(lines: list[str]) -> list[bool]:
    """For each line, whether it sits inside (or delimits) a fenced code block."""
    flags, fence = [], ""
    for line in lines:
        m = _FENCE.match(line)
        flags.append(bool(fence or m))
        if fence and m and m.group(1) == fence:
            fence = ""
        elif not fence and m:
            fence = m.group(1)
    return flags


def sentences(text: str, first_line: int = 1) -> list[Sentence]:
    """Every sentence of ``text``, numbered by paragraph. Blank lines end a paragraph, except
    that a lone heading goes with the block after it and a code block with the prose before it."""
    lines = text.split("\n")
    blocks: list[list[tuple[int, str, bool]]] = [[]]
    for n, (line, in_code) in enumerate(zip(lines, fence_flags(lines), strict=True), first_line):
        if line.strip() or in_code:
            blocks[-1].append((n, line, in_code))
        elif blocks[-1]:
            blocks.append([])
    merged: list[list[tuple[int, str, bool]]] = []
    for block in filter(None, blocks):
        heading_only = merged and len(merged[-1]) == 1 and merged[-1][0][1].lstrip().startswith("#")
        if merged and (block[0][2] or heading_only):
            merged[-1] += block
        else:
            merged.append(block)
    return [s for i, block in enumerate(merged) for s in _block_sentences(block, i)]


def _block_sentences(block: list[tuple[int, str, bool]], paragraph: int) -> list[Sentence]:
    units: list[tuple[int, str, bool]] = []
    joinable = False  # a wrapped prose line continues the unit before it
    for n, line, in_code in block:
        text = line.strip() if in_code else line.strip().replace("*", "")  # drop emphasis marks
        if joinable and not in_code and not _UNIT_START.match(line):
            units[-1] = (units[-1][0], f"{units[-1][1]} {text}", False)
        else:
            units.append((n, text, in_code))
        joinable = not in_code and not line.lstrip().startswith(("#", "|"))
    out: list[Sentence] = []
    intro = ""
    for n, unit, in_code in units:
        for s in [unit] if in_code else _SENTENCE_END.split(unit):
            if not s.strip():
                continue
            context = f"{intro} {s}" if in_code else s
            out.append(Sentence(n, s, context, paragraph))
            if len(_LEET_WORD.findall(s)) >= 2:  # also read it with the digits as letters
                out.append(Sentence(n, s.translate(_LEET), context, paragraph))
        if not in_code and unit.strip():
            intro = f"{intro} {unit}"
    return out
