"""The actor as summariser: when the harness asks its model to summarise (compaction, handoff),
the actor writes the summary — faithfully only as far as it is told to.

Like real models, it paraphrases opaque identifiers (a well-formed but wrong UUID, a shortened
SHA) unless the instructions say to keep them verbatim, and it writes "some items were processed"
unless told to keep batch progress. ``weak`` summarisers do both whatever they are told: only a
harness that verifies the summary protects them.
"""

from __future__ import annotations

import re

from harness.messages import Message

UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
SHA = re.compile(r"\b[0-9a-f]{12,40}\b")
PROGRESS = re.compile(r"\b(?:processed|done|completed)\s+(\d+)\s+(?:of|/)\s+(\d+)\b", re.I)
_REQUEST = re.compile(r"summari[sz]e|merge these partial summaries|handoff briefing|recovery briefing", re.I)
_KEEP_IDS = re.compile(r"identifiers?\s+EXACTLY|verbatim|preserve all[^.\n]*identifiers", re.I)
_KEEP_PROGRESS = re.compile(r"progress on any batch|processed 17 of 43|batch progress|preserve all[^.\n]*numbers", re.I)


def is_summary_request(messages: list[Message], n_tools: int) -> bool:
    system = next((m.content for m in messages if m.role == "system"), "")
    return n_tools == 0 and bool(_REQUEST.search(system))


def _paraphrase_uuid(u: str) -> str:
    # A hallucinated reconstruction: same shape, different digits in the middle.
    swap = str.maketrans("0123456789abcdef", "56789abcdef01234")
    return u[:9] + u[9:23].translate(swap) + u[23:]


def summarise(messages: list[Message], weak: bool = False) -> str:
    system = next((m.content for m in messages if m.role == "system"), "")
    material = "\n".join(m.content for m in messages if m.role == "user")
    keep_ids = bool(_KEEP_IDS.search(system)) and not weak
    keep_progress = bool(_KEEP_PROGRESS.search(system)) and not weak
    goal = next((ln.strip() for ln in material.splitlines()
                 if ln.strip() and not ln.startswith("#")), "")
    facts = []
    for line in material.splitlines():
        line = line.strip()
        if UUID.search(line) or re.search(r"\b(id|sha|error|code)\b", line, re.I):
            facts.append(line[:600])
    facts = list(dict.fromkeys(facts))[-20:]
    text = "\n".join(facts)
    if not keep_ids:
        text = UUID.sub(lambda m: _paraphrase_uuid(m.group(0)), text)
        text = SHA.sub(lambda m: m.group(0)[:7], text)
    progress = PROGRESS.findall(material)
    if progress and keep_progress:
        done, total = progress[-1]
        progress_line = f"Progress: processed {done} of {total} items."
    elif progress:
        progress_line = "Progress: some items were processed."
    else:
        progress_line = ""
    parts = ["Summary of the work so far.", f"Goal: {goal[:500]}", progress_line, "Key facts:", text]
    return "\n".join(p for p in parts if p)
