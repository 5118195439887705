"""Tool-loop detection (seed 004 ``ToolLoopDetector``, seeds 000 and 001), with escalation.

Warn, then intervene, then stop: the model gets a chance to self-correct before the circuit
breaker ends the run. The detectors themselves are pure functions in ``loop_detectors``; this
control records each call, asks them, and rewrites the tool result the model will see.

Source: seed 004, "Models get stuck ... ToolLoopDetector" (rules: harness/rules/loops.yaml).
"""

from __future__ import annotations

import re

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
from harness.shell.keywords import without_time_report
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
        self._pending_stop: str | None = None
        self._root: str | None = None

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
        output = outcome.content
        if cfg.normalise_calls:  # a result that echoes its call (a wrapper's header) is the same result
            output = without_echo(output, call.arguments)
            # the header names the tool too: the read tool and `cat` give one file's text
            output = _SOURCE.sub(r"\1<tool>", output)
            output = without_time_report(output)  # `time make` and `make`: one result
        if cfg.mask_volatile_output:
            output = mask_volatile(output)
        result_hash, failed = stable_hash(output), outcome.is_error
        if cfg.normalise_calls and outcome.metadata.get("replay_skipped"):
            # The executor did not run a repeat of an earlier call and said so instead: the result
            # is that earlier call's result, not a new one (else a cycle would look like progress).
            # Behind the switch, so the seeds' byte comparison stays as it was.
            prior = next((r for r in reversed(self.history) if r.args_hash == args_hash), None)
            if prior is not None:
                result_hash, failed = prior.result_hash, prior.failed
        return CallRecord(
            tool=call.name,
            args_hash=args_hash,
            result_hash=result_hash,
            failed=failed,
            unknown=unknown,
            poll=self.is_poll(call.name, call.arguments),
            tool_key=str(key["name"]) if cfg.normalise_calls else "",
            tool_keys=name_keys(call.name) if cfg.normalise_calls else (),
            eq_flags=call_equals_flags(call.arguments) if cfg.normalise_calls else frozenset(),
            wrapped=wrapped,
            source=(call.name, call.arguments),
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
        for prior in reversed(self.history):
            if prior.args_hash == args_hash:
                return args_hash
            if prior.args_hash in wrapped or args_hash in prior.wrapped:
                return prior.args_hash
            bind = mine | prior.eq_flags
            if not bind or prior.source is None or prior.args_hash in seen:
                continue
            seen.add(prior.args_hash)
            a = call_key(call.name, call.arguments, root=self._root, bind=bind)
            b = call_key(*prior.source, root=self._root, bind=bind)
            if a == b:
                return prior.args_hash
        return args_hash

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        cfg = self.config
        self.history.append(self.record(call, outcome))
        del self.history[:-cfg.history_size]
        self.total_calls += 1

        if cfg.circuit_breaker and self.total_calls >= cfg.circuit_breaker_threshold:
            self._pending_stop = texts()["circuit_breaker"].format(count=self.total_calls)
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
        limit = self.config.critical_limit
        if limit is not None and self.criticals > limit:
            self._pending_stop = texts()["ignored_criticals"].format(
                limit=limit, message=finding.message
            )
        return self._wrap("critical_wrapper", finding, outcome)

    @staticmethod
    def _wrap(template: str, finding: Finding, outcome: ToolOutcome) -> ToolOutcome:
        content = texts()[template].format(message=finding.message, output=outcome.content)
        return outcome.with_content(content, loop=finding.level, loop_detector=finding.detector)

    async def after_tools(self, run: RunState) -> None:
        # Stop only after every call of the turn is answered (each call gets exactly one result).
        if self._pending_stop:
            reason, self._pending_stop = self._pending_stop, None
            run.emit("loop.circuit_breaker", reason=reason)
            run.end("circuit_breaker", reason)  # the limits table (harness.state)
