"""A simple command as every reader of the shell model sees it (parser and tokenizer alike)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SimpleCommand:
    argv: list[str]
    """The words after quote removal (expansions such as ``$DIR`` stay as written)."""
    redirects: list[tuple[str, str]] = field(default_factory=list)
    """``(operator, target)``: ``(">", "out.txt")``, ``("<", "in.txt")``; fd duplications left out."""
    stdin_text: str = ""
    """What the command reads on stdin when the line shows it: a here-document's body, or the
    words an ``echo``/``printf`` piped into it."""
    via: str = ""
    """The program that runs this one for many inputs (``find`` -exec, ``xargs``), if any."""
    piped_from: list[str] = field(default_factory=list)
    """The words of the command whose output this one reads through a pipe, if any."""
    assignments: list[str] = field(default_factory=list)
    """``NAME=value`` words before the program, as written (a line of only assignments has
    an empty ``argv``)."""
    loop_words: dict[str, list[str] | None] = field(default_factory=dict)
    """Variables of the loops around this command: a ``for`` variable -> the words it takes in
    turn (``for f in data/*``), a variable ``read`` sets in a ``while``/``until`` condition ->
    None (one value per line of a stream, like ``xargs``)."""
