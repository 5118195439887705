"""Oversize tool output: cut, offload, store as artifact, or summarise (seeds 004, 003, 002).

A single huge result (a log, a 10 MB JSON) can fill the window and leave no room to reason. The
cap is ``max_chars`` or ``max_context_share`` of the window, whichever is smaller. Modes:

- ``head_tail``: head+tail cut that keeps an important tail (seed 004 ``truncate_tool_result``);
- ``offload``: the same cut, and the full output written to ``.agent-output/<label>-<ts>.txt``
  in the workspace, named in the text so the model can read it (seed 004 ``offload_large_result``);
- ``artifact``: the output goes to the session's artifact store; the model gets a compact
  reference, an outcome of kind ``artifact`` (seed 003 ``ArtifactStore``);
- ``summarize``: offloaded, and the model sees a summary written by the run's model instead of
  the cut text (seed 002 "route huge tool outputs through a summarizer"); falls back to the cut.

Source: seed 004, "head+tail with smart tail detection" and ``offload_large_result``; seed 003 ``ArtifactStore``.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time

from harness.artifacts import ArtifactStore
from harness.compaction.compactor import compaction_timeout
from harness.compaction.identifiers import verify_summary
from harness.compaction.summarize import Summarizer, SummaryFailed
from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import ToolCall, estimate_tokens
from harness.model import Usage
from harness.state import RunState
from harness.textcut import MIDDLE_MARKER, has_important_tail, truncate
from harness.tools.base import ToolOutcome

log = subsystem_logger("truncation")

__all__ = ["MIDDLE_MARKER", "Truncation", "has_important_tail", "truncate"]

_LABEL = re.compile(r"[^A-Za-z0-9_-]+")


class Truncation(Control):
    name = "truncation"

    def __init__(self, config: HarnessConfig) -> None:
        t = config.truncation
        self.cfg = t
        self.config = config
        # Characters allowed: the hard cap, or the share of the context window (4 chars/token).
        self.limit = min(t.max_chars, int(t.max_context_share * config.context_window * 4))
        self.keep_tail = t.keep_tail
        self.store = ArtifactStore(t.artifact_dir, t.artifact_ttl_s) if t.mode == "artifact" else None
        self._offloaded: dict[str, str] = {}
        """Content digest -> offload path: the same output is written once and named the same."""

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        content = outcome.content
        if len(content) <= self.limit:
            return outcome
        mode = self.cfg.mode
        run.emit("tool.truncated", tool=call.name, chars=len(content), limit=self.limit, mode=mode)
        if mode == "artifact" and self.store is not None:
            try:
                art = await self.store.put(run.workspace, content, call.name)
            except Exception:  # the workspace refused the write: cut instead of failing the call
                log.warning("artifact store write failed; cutting instead", exc_info=True)
            else:
                run.emit("tool.artifact", tool=call.name, id=art.id, path=art.path, chars=art.chars)
                return ToolOutcome(
                    "artifact", self.store.reference(art, content, self.cfg.preview_chars),
                    {**outcome.metadata, "artifact_id": art.id, "artifact_path": art.path,
                     "original_kind": outcome.kind, "truncated_from": len(content)},
                )
        path = await self._offload(run, call, content) if mode != "head_tail" else None
        if path and mode == "summarize":
            summary = await self._summarize(run, call, content, path)
            if summary is not None:
                return outcome.with_content(summary, truncated_from=len(content), offloaded_to=path,
                                            summarized=True)
        note = f"; the full output is saved in {path}: read parts of it with read_file or bash " \
               f"(grep, sed -n)" if path else ""
        cut = truncate(content, self.limit, self.keep_tail, note=note)
        extra = {"offloaded_to": path} if path else {}
        return outcome.with_content(cut, truncated_from=len(content), **extra)

    async def _offload(self, run: RunState, call: ToolCall, content: str) -> str | None:
        digest = hashlib.sha256(content.encode("utf-8", "replace")).hexdigest()
        if digest in self._offloaded:
            return self._offloaded[digest]
        label = _LABEL.sub("-", f"{call.name}-{call.id}")[:60]
        path = f"{self.cfg.offload_dir.rstrip('/')}/{label}-{int(time.time())}.txt"
        try:
            await run.workspace.write_file(path, content)
        except Exception:  # a read-only workspace still gets the cut output
            log.warning("offload to %s failed", path, exc_info=True)
            return None
        self._offloaded[digest] = path
        run.emit("tool.offloaded", tool=call.name, path=path, chars=len(content))
        return path

    async def _summarize(self, run: RunState, call: ToolCall, content: str, path: str) -> str | None:
        if run.model is None:
            return None

        def add_usage(u: Usage) -> None:  # summarising is model work: budgets must see it
            run.usage = run.usage + u

        summarizer = Summarizer(run.model, self.config.context_window, lambda m: estimate_tokens([m]),
                                on_usage=add_usage)
        timeout = compaction_timeout(self.config.compaction, len(content) // 4)
        try:
            text = await asyncio.wait_for(summarizer.summarize_text(content), timeout)
        except (TimeoutError, SummaryFailed) as e:
            run.emit("tool.summary_failed", tool=call.name, reason=str(e) or "timeout")
            return None
        finally:
            run.model_calls += summarizer.calls
        # A summariser that loses an error code or a path is worse than a cut: restore them.
        check = verify_summary(text, [content], max_identifiers=30)
        head = (f"[Output of {call.name} was {len(content):,} characters; below is a summary. "
                f"The full output is saved in {path}: read parts of it with read_file or bash.]")
        body = "\n\n".join(x for x in (head, text, check.block) if x)
        return truncate(body, self.limit, self.keep_tail)
