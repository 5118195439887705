"""OpenAI Agents SDK, unmodified, with one shell tool: the agent a user writes from its README.

Reads the task from argv[1]; the SDK finds the bridge through OPENAI_BASE_URL/OPENAI_API_KEY.
Exit codes: 0 finished, 3 max turns exceeded; an uncaught error exits 1 with its traceback.
"""

import subprocess
import sys

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.exceptions import MaxTurnsExceeded


@function_tool
def bash(command: str) -> str:
    """Run a shell command in the working directory and return its exit code and output."""
    p = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit code {p.returncode}\n{p.stdout}{p.stderr}"


def main() -> int:
    set_tracing_disabled(True)  # traces would be uploaded to OpenAI: the container is offline
    agent = Agent(name="assistant", instructions="You are a coding agent. Use the bash tool.",
                  model="inspect", tools=[bash])
    try:
        result = Runner.run_sync(agent, sys.argv[1], max_turns=50)
    except MaxTurnsExceeded as e:
        print(f"max turns exceeded: {e}")
        return 3
    print(result.final_output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
