"""LangGraph's prebuilt ReAct agent (create_react_agent), unmodified, with a ChatOpenAI model on
an OpenAI-compatible server and one shell tool. Reads the task from argv[1]. Exit codes: 0
finished, 3 recursion limit reached; an uncaught error exits 1 with its traceback.
"""

import os
import subprocess
import sys

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.errors import GraphRecursionError
from langgraph.prebuilt import create_react_agent


@tool
def bash(command: str) -> str:
    """Run a shell command in the working directory and return its exit code and output."""
    p = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit code {p.returncode}\n{p.stdout}{p.stderr}"


def main() -> int:
    model = ChatOpenAI(model="inspect", base_url=os.environ["OPENAI_BASE_URL"],
                       api_key=os.environ["OPENAI_API_KEY"])
    agent = create_react_agent(model, [bash], prompt="You are a coding agent. Use the bash tool.")
    try:
        state = agent.invoke({"messages": [("user", sys.argv[1])]}, {"recursion_limit": 100})
    except GraphRecursionError as e:
        print(f"recursion limit: {e}")
        return 3
    print(state["messages"][-1].content)
    return 0


if __name__ == "__main__":
    sys.exit(main())
