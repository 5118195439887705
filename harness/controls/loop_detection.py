"""Tool-loop detection (seed 004 ``ToolLoopDetector``, seeds 000 and 001), with escalation.

Warn, then intervene, then stop: the model gets a chance to self-correct before the circuit
breaker ends the run. The detectors themselves are pure functions in ``loop_detectors``; this
control records each call, asks them, and rewrites the tool result the model will see.

Source: seed 004, "Models get stuck ... ToolLoopDetector" (rules: harness/rules/loops.yaml).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from harness.config import LoopDetectionConfig
from harness.controls.base import Control
from harness.controls.loop_detectors import (
    CallRecord,
    Finding,
    PollMatcher,
    detect,
    stable_hash,
    texts,
)
from harness.controls.loop_names import name_keys
from harness.controls.loop_normalise import (
    call_equals_flags,
    call_key,
    mask_volatile,
    without_echo,
    wrapped_keys,
)
from harness.events import subsystem_logger
from harness.messages import ToolCall
from harness.shell.meaning import without_time_report
from harness.state import RunState
from harness.tools.base import ToolOutcome

log = subsystem_logger("tool-loop-detection")

_UNKNOWN = re.compile(r"^\s*unknown tool", re.IGNORECASE)
_SOURCE = re.compile(r"^(\[BEGIN EXTERNAL CONTENT FROM )[^\s:\]]+")
"""The untrusted-output header's tool name (``harness.security.untrusted``)."""

__all__ = ["LoopDetection", "stable_hash"]


class LoopDetection(Control):
    name = "loop_detection"

    def __init__(self, config: LoopDetectionConfig) -> None:
        self.config = config
        self.is_poll = PollMatcher(config)
        self._reset()

    def _reset(self) -> None:
        self.history: list[CallRecord] = []
        self.total_calls = 0
        self.criticals = 0
        self._pending_stop: tuple[str, str] | None = None  # (limit, why): ends the run after the turn
        self._root: str | None = None
        self._results: dict[bytes, str] = {}  # output digest -> hash as compared (_OutputHash)
        self._bound: dict[tuple[int, frozenset[str]], tuple[CallRecord, dict[str, Any]]] = {}

    async def on_run_start(self, run: RunState) -> None:
        self._reset()  # one control serves every run of an Agent: a new run starts clean
        self._root = getattr(run.workspace, "root", None)  # absolute paths under it = relative ones

    def record(self, call: ToolCall, outcome: ToolOutcome) -> CallRecord:
        unknown = bool(outcome.metadata.get("unknown_tool")) or (
            outcome.is_error and bool(_UNKNOWN.match(outcome.content))
        )
        cfg = self.config
        # Beyond byte equality (switches): calls by meaning, outputs without volatile tokens.
        wrapped: frozenset[str] = frozenset()
        if cfg.normalise_calls:
            key = call_key(call.name, call.arguments, root=self._root)
            wrapped = frozenset(stable_hash(k) for k in wrapped_keys(call.name, call.arguments, root=self._root))
            args_hash = self._pairwise(call, stable_hash(key), wrapped)
        else:
            key = {"name": call.name, "args": call.arguments}
            args_hash = stable_hash(key)
        output: Callable[[], str] = _OutputHash(self._results, outcome.content, dict(call.arguments),
                                                cfg.normalise_calls, cfg.mask_volatile_output)
        failed = outcome.is_error
        if cfg.normalise_calls and outcome.metadata.get("replay_skipped"):
            # The executor did not run a repeat of an earlier call and said so instead: the result
            # is that earlier call's result, not a new one (else a cycle would look like progress).
            # Behind the switch, so the seeds' byte comparison stays as it was.
            prior = next((r for r in reversed(self.history) if r.args_hash == args_hash), None)
            if prior is not None:
                output, failed = prior.result, prior.failed
        return CallRecord(
            tool=call.name,
            args_hash=args_hash,
            failed=failed,
            unknown=unknown,
            poll=self.is_poll(call.name, call.arguments),
            tool_key=str(key["name"]) if cfg.normalise_calls else "",
            tool_keys=name_keys(call.name) if cfg.normalise_calls else (),
            eq_flags=call_equals_flags(call.arguments) if cfg.normalise_calls else frozenset(),
            wrapped=wrapped,
            source=(call.name, call.arguments),
            output=output,
        )

    def _pairwise(self, call: ToolCall, args_hash: str, wrapped: frozenset[str] = frozenset()) -> str:
        """``--k v`` in one call and ``--k=v`` in another are one call. Judged pairwise, not in
        one call's key: on its own, ``--k v`` may be a switch followed by an operand. But the
        other call's ``--k=v`` shows that ``--k`` takes a value in this program, so both calls
        are keyed again with ``--k`` binding the word after it; if the keys meet, the call takes
        the earlier call's hash (and every detector sees one call). Likewise when one call is the
        other with words in front of it that start another command (``wrapped``: a wrapper
        ``harness.shell.wrappers`` does not know)."""
        mine = call_equals_flags(call.arguments)
        seen: set[str] = set()
        keyed: dict[frozenset[str], dict[str, Any]] = {}  # this call's key, per binding
        for prior in reversed(self.history):
            if prior.args_hash == args_hash:
                return args_hash
            if prior.args_hash in wrapped or args_hash in prior.wrapped:
                return prior.args_hash
            bind = mine | prior.eq_flags
            if not bind or prior.source is None or prior.args_hash in seen:
                continue
            seen.add(prior.args_hash)
            if bind not in keyed:
                keyed[bind] = call_key(call.name, call.arguments, root=self._root, bind=bind)
            if keyed[bind] == self._bound_key(prior, bind):
                return prior.args_hash
        return args_hash

    def _bound_key(self, prior: CallRecord, bind: frozenset[str]) -> dict[str, Any]:
        """``prior``'s key with ``bind``, remembered: every later call that spells a flag
        ``--k=v`` keys the same earlier calls again, and a key costs a parse."""
        hit = self._bound.get((id(prior), bind))
        if hit is None or hit[0] is not prior:  # (the record is held, so its id is not reused)
            if len(self._bound) >= _RESULTS_KEPT:
                self._bound.clear()
            assert prior.source is not None
            hit = self._bound[(id(prior), bind)] = (prior, call_key(*prior.source, root=self._root, bind=bind))
        return hit[1]

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        cfg = self.config
        self.history.append(self.record(call, outcome))
        del self.history[:-cfg.history_size]
        self.total_calls += 1

        if run.reached("circuit_breaker", self.total_calls):  # the limits table (harness.state)
            self._pending_stop = ("circuit_breaker", texts()["circuit_breaker"].format(count=self.total_calls))
            return outcome
        finding = detect(self.history, cfg, run.tool_names())
        if finding is None:
            return outcome
        if finding.level == "warning":
            run.emit("loop.warning", tool=call.name, detector=finding.detector,
                     count=finding.count)
            return self._wrap("warning_wrapper", finding, outcome)
        return self._critical(run, call, finding, outcome)

    def _critical(
        self, run: RunState, call: ToolCall, finding: Finding, outcome: ToolOutcome
    ) -> ToolOutcome:
        self.criticals += 1
        log.info("critical %s on %s (%d)", finding.detector, call.name, finding.count)
        run.emit("loop.critical", tool=call.name, detector=finding.detector,
                 count=finding.count, criticals=self.criticals)
        if run.reached("ignored_criticals", self.criticals):
            limit = run.limits["ignored_criticals"].cap
            self._pending_stop = ("ignored_criticals", texts()["ignored_criticals"].format(
                limit=int(limit or 0), message=finding.message))
        return self._wrap("critical_wrapper", finding, outcome)

    @staticmethod
    def _wrap(template: str, finding: Finding, outcome: ToolOutcome) -> ToolOutcome:
        content = texts()[template].format(message=finding.message, output=outcome.content)
        return outcome.with_content(content, loop=finding.level, loop_detector=finding.detector)

    async def after_tools(self, run: RunState) -> None:
        # Stop only after every call of the turn is answered (each call gets exactly one result).
        if self._pending_stop:
            (limit, reason), self._pending_stop = self._pending_stop, None
            run.emit("loop.circuit_breaker", reason=reason)
            run.end(limit, reason)


_RESULTS_KEPT = 1024
"""Output hashes remembered per run (``_OutputHash``); a run's window holds far fewer calls."""


class _OutputHash:
    """One call's output hash as the detectors compare it, computed when a detector first asks
    (``CallRecord.output``): the output with the call's echo, the tool name of the untrusted
    header and a ``time`` report taken out (``normalise_calls``), volatile tokens masked
    (``mask_volatile_output``), hashed. Masking is the costly part and its result depends on
    the output and the call's own words only, so it is remembered by their digest: a poll that
    returns the same bytes again is masked once."""

    __slots__ = ("cache", "content", "args", "normalise", "mask")

    def __init__(self, cache: dict[bytes, str], content: str, args: dict[str, Any],
                 normalise: bool, mask: bool) -> None:
        self.cache, self.content, self.args = cache, content, args
        self.normalise, self.mask = normalise, mask

    def __call__(self) -> str:
        if not (self.normalise or self.mask):
            return stable_hash(self.content)
        echo = sorted(v for v in self.args.values() if isinstance(v, str)) if self.normalise else []
        digest = hashlib.blake2b(self.content.encode("utf-8", "surrogatepass"), digest_size=16)
        digest.update(json.dumps([echo, self.normalise, self.mask]).encode("utf-8", "surrogatepass"))
        key = digest.digest()
        hit = self.cache.get(key)
        if hit is None:
            if len(self.cache) >= _RESULTS_KEPT:
                self.cache.clear()
            hit = self.cache[key] = stable_hash(self._compared())
        return hit

    def _compared(self) -> str:
        output = self.content
        if self.normalise:  # a result that echoes its call (a wrapper's header) is the same result
            output = without_echo(output, self.args)
            # the header names the tool too: the read tool and `cat` give one file's text
            output = _SOURCE.sub(r"\1<tool>", output)
            output = without_time_report(output)  # `time make` and `make`: one result
        if self.mask:
            output = mask_volatile(output)
        return output
