"""A test-only harness: the toy example (sandboxes/harnesses/toy-example) with a loop detector
that steps in as looplab's does (a call repeated with the same result, an alternation of two
such calls, an unknown tool called again), but never in looplab's words. ``WORDING_MODE``:

  paraphrase      appends its own English warning to the tool result
  german          appends the warning in German
  system-message  sends the warning as a new system message after the result
  tool-error      replaces the result by an error of its own
  refused         does not run the repeated call; answers that it refused
  phrases         never steps in, but every tool error it reports carries looplab's phrases
                  ("loop detected", "different approach", "called 3 times", "does not exist")

Standard library only.
"""

import json
import os
import subprocess
import sys
import urllib.request

MAX_TURNS = 30
MODE = os.environ.get("WORDING_MODE", "paraphrase")
TOOLS = [{"type": "function", "function": {
    "name": "bash", "description": "Run a shell command and return its exit code and output.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                   "required": ["command"]}}}]
WARNING = {
    "paraphrase": "Note from the runtime: you have now tried exactly this a second time and got "
                  "the same answer. Doing it again will not help; think about what differs.",
    "german": "Hinweis der Laufzeitumgebung: Dieser Aufruf lief eben genauso wie vorher. "
              "Wiederhole ihn nicht, sondern überlege, was du anders machen kannst.",
}
PHRASES = ("Loop detected? No. This tool reports: called 3 times with identical arguments; "
           "try a different approach if the tool does not exist.")


def chat(messages):
    body = json.dumps({"model": os.environ.get("LOOPLAB_MODEL", "inspect"), "messages": messages,
                       "tools": TOOLS}).encode()
    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions",
                                 data=body, headers={"Content-Type": "application/json",
                                 "Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return json.load(resp)["choices"][0]["message"]


def run(command):
    p = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    return p.returncode, f"exit code {p.returncode}\n{p.stdout}{p.stderr}"


class Detector:
    """Flags a call whose (name, arguments) and result repeat an earlier one, and a call to a
    tool that does not exist made again."""

    def __init__(self):
        self.seen = {}  # (name, arguments) -> results seen

    def repeated(self, key, result=None):
        results = self.seen.setdefault(key, [])
        again = bool(results) and (result is None or result in results)
        results.append(result)
        return again


def answer(call, detector):
    """The tool message for one call, and whether the harness stepped in."""
    name = call["function"]["name"]
    args = call["function"]["arguments"] or "{}"
    key = (name, args)
    if name != "bash":
        text = f"exit code 127\nno tool named {name}; tools: bash"
        if MODE == "phrases":
            return f"{text}\n{PHRASES}", False
        return step_in(text, detector.repeated(key))
    command = json.loads(args).get("command", "")
    before = detector.seen.get(key, [])
    if MODE == "refused" and len(before) >= 2 and before[-1] == before[-2]:
        # It already came back the same twice: not run again.
        return "refused: this exact call already ran and answered the same; not run again", True
    code, text = run(command)
    if MODE == "phrases":
        return (f"{text}\n{PHRASES}" if code else text), False
    return step_in(text, detector.repeated(key, text))


def step_in(text, again):
    if not again or MODE == "system-message":
        return text, again
    if MODE == "refused":
        return "refused: this call was already answered the same way; not made again", True
    if MODE == "tool-error":
        return "error: the runtime stopped this call: it repeats one that gave this same result", True
    return f"{text}\n\n{WARNING.get(MODE, WARNING['paraphrase'])}", True


def main(task):
    messages = [{"role": "system", "content": "You are a coding agent. Use the bash tool."},
                {"role": "user", "content": task}]
    detector, stepped = Detector(), 0
    for turn in range(1, MAX_TURNS + 1):
        reply = chat(messages)
        messages.append({k: v for k, v in reply.items() if v is not None})
        calls = reply.get("tool_calls") or []
        print(f"[turn {turn}] {(reply.get('content') or '')[:200]} ({len(calls)} tool calls)")
        if not calls:
            return 0
        flagged = False
        for call in calls:
            content, again = answer(call, detector)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
            flagged |= again
        if flagged:
            stepped += 1
            if MODE == "system-message":
                messages.append({"role": "system", "content": WARNING["paraphrase"]})
            if stepped > 2:
                return 4
    return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
