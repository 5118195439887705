"""A toy agent harness: the smallest loop that can be put under test (standard library only).

It sends the task to an OpenAI-compatible Chat Completions server with one `bash` tool, runs
every tool call it gets back, and stops when the model answers without a tool call or after
MAX_TURNS turns. It has no loop detection, no truncation, no retries: looplab shows what that
costs.

    python3 toy.py "the task"     (OPENAI_BASE_URL and OPENAI_API_KEY from the environment)
"""

import json
import os
import subprocess
import sys
import urllib.request

MAX_TURNS = 30
TOOLS = [{"type": "function", "function": {
    "name": "bash", "description": "Run a shell command and return its exit code and output.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                   "required": ["command"]}}}]


def chat(messages):
    body = json.dumps({"model": os.environ.get("LOOPLAB_MODEL", "inspect"), "messages": messages,
                       "tools": TOOLS}).encode()
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions",
                                 data=body, headers={"Content-Type": "application/json",
                                 "Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return json.load(resp)["choices"][0]["message"]


def run_tool(call):
    command = json.loads(call["function"]["arguments"] or "{}").get("command", "")
    p = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit code {p.returncode}\n{p.stdout}{p.stderr}"


def main(task):
    messages = [{"role": "system", "content": "You are a coding agent. Use the bash tool."},
                {"role": "user", "content": task}]
    for turn in range(1, MAX_TURNS + 1):
        reply = chat(messages)
        messages.append({k: v for k, v in reply.items() if v is not None})
        calls = reply.get("tool_calls") or []
        print(f"[turn {turn}] {(reply.get('content') or '')[:200]} ({len(calls)} tool calls)")
        if not calls:
            return 0
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": run_tool(call)})
    print("turn limit reached")
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
