"""The actor drives any dialect: tools found by schema shape, text actions (fenced shell blocks,
code actions, history replayed as text) read back and written in the harness's own format.
Request shapes are those of the libraries (mini-swe-agent 2.4.6 as installed; smolagents 1.26
memory and prompt formats)."""

from __future__ import annotations

from pathlib import Path

import yaml

from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from scenarios.actor import ActorView, act, to_reply
from scenarios.actor.actions import Answer, ListDir, Parallel, RawCall, Read, Run, Write
from scenarios.actor.dialects import code_functions, normalise, read_style, reply
from scenarios.actor.mapping import find_tool

MSWEA = yaml.safe_load((Path(__file__).parent / "fixtures" / "mini_swe_agent_textbased.yaml").read_text())
# mini-swe-agent 2.4.6 tool mode: models/utils/actions_toolcall.py BASH_TOOL
BASH_TOOL = {"type": "function", "function": {
    "name": "bash", "description": "Execute a bash command",
    "parameters": {"type": "object", "properties": {"command": {
        "type": "string", "description": "The bash command to execute"}}, "required": ["command"]}}}
TASK = "The tests fail. Fix them."
FAILING = {"command": "./run_tests.sh", "give_up_after": 3, "final_answer": "Stopping: tests keep failing."}


def _tool(name: str, description: str, **props: str) -> ToolSpec:
    return ToolSpec(name=name, description=description, parameters={
        "type": "object", "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
        "required": list(props)})


# -------------------------------------------------------------------- tools found by shape

OTHER_NAMES = [
    _tool("run_shell", "Execute a shell command in the sandbox.", cmd="the command line"),
    _tool("open_file", "Show the contents of a file.", filename="file to open"),
    _tool("save_file", "Create or overwrite a file.", filename="where", text="what to write"),
    _tool("delegate", "Hand a sub-task to a worker agent.", task="the sub-task"),
]


def test_tools_are_found_by_shape_whatever_their_names() -> None:
    assert to_reply(Run("make"), OTHER_NAMES).tool_calls[0].model_dump(include={"name", "arguments"}) == {
        "name": "run_shell", "arguments": {"cmd": "make"}}
    assert to_reply(Read("a.txt"), OTHER_NAMES).tool_calls[0].arguments == {"filename": "a.txt"}
    write = to_reply(Write("b.txt", "hi"), OTHER_NAMES).tool_calls[0]
    assert (write.name, write.arguments) == ("save_file", {"filename": "b.txt", "text": "hi"})
    spawn = to_reply(RawCall("agent", {"task": "sub-task 1"}), OTHER_NAMES).tool_calls[0]
    assert (spawn.name, spawn.arguments) == ("delegate", {"task": "sub-task 1"})
    listing = to_reply(ListDir("src"), OTHER_NAMES).tool_calls[0]
    assert (listing.name, listing.arguments["cmd"]) == ("run_shell", "ls -la src")


def test_a_message_to_an_agent_is_no_file_write() -> None:
    # Codex CLI 0.169's send_input (its parameters as it declares them, less `items`)
    send_input = _tool("send_input", "Send a message to an existing agent. Use interrupt=true to redirect work "
                       "immediately.", message="Legacy plain-text message to send to the agent.",
                       target="Agent id to message (from spawn_agent).")
    exec_command = _tool("exec_command", "Runs a command in a PTY, returning output or a session ID for "
                         "ongoing interaction.", cmd="Shell command to execute.")
    assert find_tool("write", [send_input, exec_command]) is None
    write = to_reply(Write("app.py", "x = 1\n"), [send_input, exec_command]).tool_calls[0]
    assert write.name == "exec_command" and "app.py" in write.arguments["cmd"]


def test_an_unknown_tool_is_called_by_its_name_and_roles_are_visible_to_policies() -> None:
    call = to_reply(RawCall("web_search", {"q": "x"}), OTHER_NAMES).tool_calls[0]
    assert call.name == "web_search"
    names = ActorView([], OTHER_NAMES).tool_names
    assert "bash" in names and "agent" in names
    assert "agent" not in ActorView([], OTHER_NAMES[:3]).tool_names


def test_our_harness_tools_map_as_before() -> None:
    ours = [_tool("bash", "Run a bash command in the workspace and return its output and exit code.",
                  command="c"),
            _tool("read_file", "Read a text file from the workspace.", path="p"),
            _tool("write_file", "Write (create or replace) a text file in the workspace.", path="p", content="c"),
            _tool("list_dir", "List a directory in the workspace.", path="p"),
            _tool("agent", "Spawn a sub-agent ... returns its final answer and exit status.", task="t")]
    assert [c.name for c in to_reply(Parallel((Run("ls"), Read("a"), Write("b", "x"), ListDir("."))),
                                     ours).tool_calls] == ["bash", "read_file", "write_file", "list_dir"]
    done = to_reply(Answer("Done."), ours)  # the sub-agent tool is no finishing tool
    assert done.content == "Done." and not done.tool_calls


# -------------------------------------------------------------------- mini-swe-agent text mode

def _mswea_messages(*turns: tuple[str, str]) -> list[Message]:
    out = [Message(role="system", content=MSWEA["agent"]["system_template"]),
           Message(role="user", content=MSWEA["agent"]["instance_template"].replace("{{task}}", TASK))]
    for assistant, observation in turns:
        out += [Message(role="assistant", content=assistant), Message(role="user", content=observation)]
    return out


def _observation(code: int, output: str) -> str:
    return f"<returncode>{code}</returncode>\n<output>\n{output}\n</output>"


def test_fenced_shell_history_becomes_exchanges_and_replies_are_fenced() -> None:
    ran = "THOUGHT: run the tests.\n\n```mswea_bash_command\n./run_tests.sh\n```"
    messages = _mswea_messages((ran, _observation(1, "FAILED")), (ran, _observation(1, "FAILED")))
    style = read_style(messages, "fenced-shell")
    assert style.fence == "mswea_bash_command"
    assert style.finish_command == "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    view = ActorView(normalise(messages, style), [], prompt=TASK)
    assert view.runs_of("./run_tests.sh") == 2 and all(e.is_error for e in view.exchanges())
    again = reply(act("repeat_failing_command", FAILING, view), [], style)
    assert again.content.endswith("```mswea_bash_command\n./run_tests.sh\n```") and not again.tool_calls
    messages = _mswea_messages(*[(ran, _observation(1, "FAILED"))] * 3)
    view = ActorView(normalise(messages, style), [], prompt=TASK)
    done = reply(act("repeat_failing_command", FAILING, view), [], style)
    assert "```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```" in done.content


def test_mini_swe_agent_tool_mode_finishes_with_its_command() -> None:
    fn = BASH_TOOL["function"]
    tools = [ToolSpec(name=fn["name"], description=fn["description"], parameters=fn["parameters"])]
    messages = _mswea_messages()
    style = read_style(messages, "tools")
    done = reply(Answer("All fixed."), tools, style)
    assert [(c.name, c.arguments) for c in done.tool_calls] == [
        ("bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})]


# -------------------------------------------------------------------- smolagents

SMOL_FINAL = ToolSpec(name="final_answer", description="Provides a final answer to the given problem.",
                      parameters={"type": "object", "properties": {"answer": {
                          "type": "any", "description": "The final answer to the problem"}},
                          "required": ["answer"]})
SMOL_BASH = _tool("bash", "Run a shell command in the working directory and return its exit code "
                  "and output.", command="the shell command to run")


def test_smolagents_tool_calling_history_replayed_as_text() -> None:
    call = ("Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'bash', "
            "'arguments': {'command': './run_tests.sh'}}}]")
    messages = [Message(role="system", content="You are an expert assistant who can solve any task "
                        "using tool calls."),
                Message(role="user", content=f"New task:\n{TASK}"),
                Message(role="assistant", content=call),
                Message(role="user", content="Call id: call_1\nObservation:\nexit code 1\nFAILED"),
                Message(role="assistant", content=call.replace("call_1", "call_2")),
                Message(role="user", content="Call id: call_2\nObservation:\nexit code 1\nFAILED")]
    style = read_style(messages, "tools")
    view = ActorView(normalise(messages, style), [SMOL_BASH, SMOL_FINAL], prompt=TASK)
    assert view.runs_of("./run_tests.sh") == 2 and view.exchanges()[0].is_error
    params = {**FAILING, "give_up_after": 2}
    done = reply(act("repeat_failing_command", params, view), view.tools, style)
    assert [(c.name, c.arguments) for c in done.tool_calls] == [
        ("final_answer", {"answer": "I give up: Stopping: tests keep failing."})]


CODE_PROMPT = '''You are an expert assistant who can solve any task using code blobs.
The code sequence must be opened with '<code>', and closed with '</code>'.
In the end you have to return a final answer using the `final_answer` tool.
you only have access to these tools, behaving like regular python functions:
<code>
def bash(command: string) -> string:
    """Run a shell command in the working directory and return its exit code and output.

    Args:
        command: the shell command to run
    """

def final_answer(answer: any) -> any:
    """Provides a final answer to the given problem.

    Args:
        answer: The final answer to the problem
    """
</code>'''


def test_smolagents_code_actions() -> None:
    code = 'print(bash(command="./run_tests.sh"))'
    step = (f"Thought: run the tests.\n<code>\n{code}\n</code>\nCalling tools:\n[{{'id': 'call_1', "
            f"'type': 'function', 'function': {{'name': 'python_interpreter', 'arguments': '{code}'}}}}]")
    messages = [Message(role="system", content=CODE_PROMPT), Message(role="user", content=f"New task:\n{TASK}"),
                Message(role="assistant", content=step),
                Message(role="user", content="Observation:\nExecution logs:\nexit code 1\nFAILED\n"
                        "Last output from code snippet:\nNone")]
    style = read_style(messages, "code")
    assert [f.name for f in style.functions] == ["bash", "final_answer"]
    view = ActorView(normalise(messages, style), style.functions, prompt=TASK)
    assert view.runs_of("./run_tests.sh") == 1
    again = reply(act("repeat_failing_command", FAILING, view), view.tools, style)
    assert "<code>print(bash(command='./run_tests.sh'))</code>" in again.content
    done = reply(Answer("Fixed."), view.tools, style)
    assert done.content.endswith("<code>final_answer('Fixed.')</code>") and not done.tool_calls
    write = reply(Write("a.txt", "x"), view.tools, style).content
    assert "print(bash(command=" in write and "a.txt" in write


def test_code_functions_from_a_listing() -> None:
    [bash, final] = code_functions(CODE_PROMPT)
    assert find_tool("shell", [bash, final]) == (bash, {"command": "command"})
    assert find_tool("finish", [bash, final]) == (final, {"answer": "answer"})


def test_tool_results_carry_failures_a_bridge_drops() -> None:
    messages = [Message(role="user", content=TASK),
                Message(role="assistant", tool_calls=[ToolCall(id="c1", name="bash",
                                                               arguments={"command": "false"})]),
                Message(role="tool", tool_call_id="c1", name="bash", content="<returncode>1</returncode>")]
    [_, _, result] = normalise(messages, read_style(messages, "tools"))
    assert result.is_error
