"""The actor drives any harness: abstract actions map onto whatever tools are offered."""

from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from scenarios.actor import ActorView, act, to_reply
from scenarios.actor.actions import Read, Run, Write

OURS = [ToolSpec(name=n, description="", parameters={}) for n in ("bash", "read_file", "write_file", "list_dir")]
REACT = [ToolSpec(name=n, description="", parameters={}) for n in ("bash", "text_editor")]
NO_SHELL = [ToolSpec(name="read_file", description="", parameters={})]


def test_run_maps_to_bash():
    reply = to_reply(Run("ls"), OURS)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("bash", {"command": "ls"})]


EDITOR_ONLY = [ToolSpec(name="text_editor", description="", parameters={})]


def test_read_maps_per_harness():
    assert to_reply(Read("a.txt"), OURS).tool_calls[0].name == "read_file"
    c = to_reply(Read("a.txt"), REACT).tool_calls[0]
    assert (c.name, c.arguments) == ("bash", {"command": "cat a.txt"})
    c = to_reply(Read("a.txt"), EDITOR_ONLY).tool_calls[0]
    assert (c.name, c.arguments) == ("text_editor", {"command": "view", "path": "a.txt"})


def test_write_maps_per_harness():
    assert to_reply(Write("a", "x"), OURS).tool_calls[0].arguments == {"path": "a", "content": "x"}
    c = to_reply(Write("d/a", "x y"), REACT).tool_calls[0]
    assert c.name == "bash" and "printf %s 'x y' > d/a" in c.arguments["command"]
    c = to_reply(Write("a", "x"), EDITOR_ONLY).tool_calls[0]
    assert c.arguments == {"command": "create", "path": "a", "file_text": "x"}


def test_run_without_a_shell_says_so():
    reply = to_reply(Run("ls"), NO_SHELL)
    assert not reply.tool_calls and "cannot" in reply.content


def _history(n_runs: int, result: str) -> list[Message]:
    msgs = [Message.system("s"), Message.user("task")]
    for i in range(n_runs):
        call = ToolCall(id=f"c{i}", name="bash", arguments={"command": "./t.sh"})
        msgs += [Message(role="assistant", tool_calls=[call]), Message.tool(call, result, True)]
    return msgs


def test_repeat_policy_repeats_until_intervention_then_changes_course():
    params = {"command": "./t.sh", "inspect_path": "t.sh", "give_up_after": 10}
    plain = ActorView(_history(4, "ERROR"), OURS)
    assert act("repeat_failing_command", params, plain) == Run("./t.sh")
    warned = ActorView(_history(4, "[LOOP DETECTED] try a different approach"), OURS)
    assert act("repeat_failing_command", params, warned) == Read("t.sh")
    exhausted = ActorView(_history(10, "ERROR"), OURS)
    assert act("repeat_failing_command", params, exhausted).__class__.__name__ == "Answer"


def test_step_plan_resumes_from_the_transcript():
    steps = {"steps": [{"write": "a.txt", "content": "1"}, {"write": "b.txt", "content": "2"}]}
    call = ToolCall(id="w1", name="write_file", arguments={"path": "a.txt", "content": "1"})
    msgs = [Message.system("s"), Message.user("t"), Message(role="assistant", tool_calls=[call]),
            Message.tool(call, "Wrote 1 characters to a.txt")]
    assert act("step_plan", steps, ActorView(msgs, OURS)) == Write("b.txt", "2")
