"""pydantic-ai, unmodified: an Agent on an OpenAI-compatible Chat Completions server with one
shell tool. Reads the task from argv[1]. Exit codes: 0 finished, 3 request limit reached; an
uncaught error exits 1 with its traceback.
"""

import os
import subprocess
import sys

from pydantic_ai import Agent, UsageLimits
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def bash(command: str) -> str:
    """Run a shell command in the working directory and return its exit code and output."""
    p = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit code {p.returncode}\n{p.stdout}{p.stderr}"


def main() -> int:
    provider = OpenAIProvider(base_url=os.environ["OPENAI_BASE_URL"],
                              api_key=os.environ["OPENAI_API_KEY"])
    agent = Agent(OpenAIChatModel("inspect", provider=provider), tools=[bash],
                  instructions="You are a coding agent. Use the bash tool.")
    try:
        result = agent.run_sync(sys.argv[1], usage_limits=UsageLimits(request_limit=50))
    except UsageLimitExceeded as e:
        print(f"usage limit: {e}")
        return 3
    print(result.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
