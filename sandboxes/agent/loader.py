"""The command agent's loader: the program ``docker_agent._BOOT`` reads from the first line of
the agent's stdin and runs (that command shows in ``ps`` in the sandbox, so it stays short).

The second line is a JSON object {module name: source} of this package's other modules
(``__init__`` for the package itself), sent by the host: they are installed as the package
``looplab_agent``, imported from those sources as from files (relative imports work), and its
``main`` is run. The rest of stdin is the agent's requests. Standard library only.
"""

import importlib
import json
import sys
from importlib.machinery import ModuleSpec

PACKAGE = "looplab_agent"


class SourceLoader:
    """A finder on ``sys.meta_path`` and loader for the package's modules, from the sources
    sent."""

    def __init__(self, sources):
        self.sources = sources

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.partition(".")
        if package != PACKAGE or (name or "__init__") not in self.sources:
            return None
        return ModuleSpec(fullname, self, origin=f"{PACKAGE}/{name or '__init__'}.py",
                          is_package=not name)

    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module):
        name = module.__name__.partition(".")[2] or "__init__"
        exec(compile(self.sources[name], f"{PACKAGE}/{name}.py", "exec"), module.__dict__)


def run():
    sources = json.loads(sys.stdin.buffer.readline())
    sys.meta_path.insert(0, SourceLoader(sources))
    importlib.import_module(f"{PACKAGE}.main").main()


if __name__ == "__main__":
    run()
