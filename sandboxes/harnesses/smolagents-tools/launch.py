"""smolagents ToolCallingAgent, unmodified, with one shell tool, on an OpenAI-compatible server.

Reads the task from argv[1]. Exit code 0 when the agent calls final_answer (or stops), 3 when
it ran out of steps; an uncaught error exits 1.
"""

import os
import subprocess
import sys

from smolagents import OpenAIServerModel, ToolCallingAgent, tool


@tool
def bash(command: str) -> str:
    """Run a shell command in the working directory and return its exit code and output.

    Args:
        command: the shell command to run
    """
    p = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit code {p.returncode}\n{p.stdout}{p.stderr}"


def main() -> int:
    model = OpenAIServerModel(model_id="inspect", api_base=os.environ["OPENAI_BASE_URL"],
                              api_key=os.environ["OPENAI_API_KEY"])
    agent = ToolCallingAgent(tools=[bash], model=model, max_steps=50)
    result = agent.run(sys.argv[1])
    steps = [s for s in agent.memory.steps if type(s).__name__ == "ActionStep"]
    print(result)
    return 3 if len(steps) >= agent.max_steps else 0


if __name__ == "__main__":
    sys.exit(main())
