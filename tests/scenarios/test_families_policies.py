"""The actor policies behind generated families: shapes walked in turn until the harness
intervenes; identifiers of any shape found and used verbatim."""

from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from scenarios.actor import ActorView, act
from scenarios.actor.actions import Answer, RawCall, Read, Run

OURS = [ToolSpec(name=n, description="", parameters={}) for n in ("bash", "read_file", "write_file", "list_dir")]


def _history(calls: list[tuple[str, dict]], result: str) -> list[Message]:
    msgs = [Message.system("s"), Message.user("task")]
    for i, (name, args) in enumerate(calls):
        call = ToolCall(id=f"c{i}", name=name, arguments=args)
        msgs += [Message(role="assistant", tool_calls=[call]), Message.tool(call, result)]
    return msgs


SHAPES = {"calls": [{"run": "./q.sh --a --b"}, {"run": "./q.sh --b  --a"}, {"read": "x.txt"},
                    {"tool": "Run_Tests", "arguments": {"b": 1, "a": 2}}],
          "give_up_after": 6, "then_run": "./test.sh"}


def test_cycle_calls_walks_the_shapes_in_order():
    made: list[tuple[str, dict]] = []
    expected = [Run("./q.sh --a --b"), Run("./q.sh --b  --a"), Read("x.txt"),
                RawCall("Run_Tests", {"b": 1, "a": 2}), Run("./q.sh --a --b")]
    for want in expected:
        got = act("cycle_calls", SHAPES, ActorView(_history(made, "same"), OURS))
        assert got == want
        made.append(("bash", {"command": "x"}))
    assert list(RawCall("Run_Tests", {"b": 1, "a": 2}).arguments) == ["b", "a"]  # key order kept


def test_cycle_calls_changes_course_when_told_and_gives_up_at_its_horizon():
    plain = _history([("bash", {"command": "./q.sh"})] * 2, "same")
    told = plain + _history([("bash", {"command": "./q.sh"})],
                            "same\n[LOOP DETECTED] try a different approach")[2:]
    assert act("cycle_calls", SHAPES, ActorView(told, OURS)) == Run("./test.sh")
    done = told + _history([("bash", {"command": "./test.sh"})], "ok")[2:]
    assert isinstance(act("cycle_calls", SHAPES, ActorView(done, OURS)), Answer)
    tired = _history([("bash", {"command": "./q.sh"})] * 6, "same")
    assert act("cycle_calls", SHAPES, ActorView(tired, OURS)).text.startswith("I give up")


def test_use_identifier_shape_finishes_with_the_handle_its_context_shows():
    params = {"shape": r"\b[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}\b"}
    start = _history([("bash", {"command": "./start_job.sh"})],
                     "job id: 2001:db8::8a2e:370:7334 (keep it)")
    assert act("use_identifier_shape", params, ActorView(start, OURS)) == Run("./fetch_logs.sh")
    logs = start + _history([("bash", {"command": "./fetch_logs.sh"})], "END OF LOGS")[2:]
    assert act("use_identifier_shape", params, ActorView(logs, OURS)) == Run("./finish_job.sh '2001:db8::8a2e:370:7334'")
    fresh = [Message.system("s"), Message.user("task")]
    assert act("use_identifier_shape", params, ActorView(fresh, OURS)) == Run("./start_job.sh")
