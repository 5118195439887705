"""Which commands destroy data: the shell-aware command guard's engine.

The rules are data (``shell_rules`` of ``harness/rules/destructive_commands.yaml``): each names
what a program does with its flags and arguments, not how a line is spelled, so ``rm`` with
recursive and force flags in any spelling (``-rf``, ``-r -f``, ``--recursive --force``) is one
rule and a grep for ``'rm -rf'`` is not an rm. This small engine parses the line
(``harness.shell``), reads every command it runs through wrappers, nested shells, ``xargs``,
``find -exec`` and loops, and tries the rules in order on each command; ``rule_plugins`` holds
the checks a table of flags cannot say. An interpreter one-liner's string literals are judged as
command lines of their own when its code starts a process (``os.system``, ``execSync``).

Each command is judged with what the line around it fixes (``Line``): the words a ``for`` loop
gives its variable (``for f in data/*; do rm "$f"; done`` deletes ``data/*``), variables set to a
temporary place (``d=$(mktemp -d); mv data "$d"``), files the line created empty before (``touch
e && mv e data.csv`` empties data.csv, like ``cp /dev/null data.csv``).

``: > notes.txt`` empties a file, or creates an empty one when it does not exist, as ``touch``
does; only the workspace can tell. ``emptied_files`` returns the files a line's emptying commands
empty (rules marked ``new_files_allowed``), or None when the block must stand: the line does
anything else the guard blocks, names a target it cannot fix (``$VAR``, a glob, an unknown
``cd``), or an earlier command moves something onto it (``mv data.csv kept.csv && : > kept.csv``).

Source: seed 004, "before_tool_call hook with regex blocklist for rm -rf, git push --force, DROP TABLE", read as shell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cache, lru_cache
from typing import Any

from harness.security.patterns import PatternFileError, read_rule_file
from harness.security.rule_plugins import (
    OUTPUT,
    PLUGINS,
    Context,
    redirect_targets,
    refers,
    writes_nothing,
)
from harness.shell import SimpleCommand, expand, parse, program, split_flags
from harness.shell.code import code as interpreter_code
from harness.shell.code import dynamic_calls, is_interpreter, mask, strings
from harness.shell.meaning import cd_target, join
from harness.shell.wrappers import skip_options, word_set

_KEYS = {"programs", "sub", "flags", "not_flags", "value_options", "operands", "kv", "args_any", "redirect", "via",
         "code", "plugin"}
_OPERAND_KEYS = {"min", "max", "first", "last", "any", "rest_any", "first_not"}
_MAX_DEPTH = 2


@dataclass(frozen=True)
class Entry:
    """One way to break a rule (an item of its ``match`` list), compiled."""

    spec: dict[str, Any]
    code: re.Pattern[str] | None
    args_any: re.Pattern[str] | None

    def holds(self, cmd: SimpleCommand, ctx: Context, patterns: dict[str, re.Pattern[str]]) -> bool:
        e, prog = self.spec, program(cmd.argv)
        if "programs" in e and not any(fnmatchcase(prog, p) for p in e["programs"]):
            return False
        if e.get("via") and not cmd.via:
            return False
        rest = _after_sub(prog, cmd.argv[1:], e["sub"], e.get("value_options", ())) if "sub" in e else cmd.argv[1:]
        if rest is None:
            return False
        if "redirect" in e and not any(op in OUTPUT and patterns[e["redirect"]].search(t) for op, t in cmd.redirects):
            return False
        if "kv" in e:
            kv = dict(a.split("=", 1) for a in rest if "=" in a)
            if not all(patterns[cls].search(kv.get(k, "")) for k, cls in e["kv"].items()):
                return False
        if self.args_any is not None and not any(self.args_any.search(a) for a in rest):
            return False
        if self.code is not None and not (ctx.said and self.code.search(ctx.said)):
            return False
        if {"flags", "not_flags", "operands"} & e.keys() and not _options_hold(e, rest, patterns):
            return False
        ctx.rest = rest
        return PLUGINS[e["plugin"]](cmd, ctx, e) if "plugin" in e else True


@dataclass(frozen=True)
class ShellRule:
    id: str
    source: str
    guidance: str
    entries: tuple[Entry, ...]
    new_files_allowed: bool = False
    """A line whose every emptied file does not exist yet destroys nothing (the guard asks)."""


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[ShellRule, ...]
    patterns: dict[str, re.Pattern[str]]
    sets: dict[str, frozenset[str]]
    shapes: tuple[tuple[str, re.Pattern[str], str], ...]
    """Regexes of the seeds' list still applied to whole lines (``shell_aware: true``)."""


@lru_cache(maxsize=1024)
def judge(command: str, depth: int = 0, disabled: tuple[str, ...] = (),
          rules_file: str = "destructive_commands.yaml") -> tuple[ShellRule | None, bool]:
    """``(rule or None, parsed)``: the first rule a command of the line breaks (rules in
    ``disabled`` skipped), and whether the line parsed (False: the tolerant tokenizer read it).
    Cached: the verdict on a line depends on the line and the rules only, so a repeated line is
    judged once."""
    ruleset = rule_set(rules_file)
    parsed = parse(command)
    line = Line(ruleset.patterns["temp_place"])
    for cmd in parsed.commands:
        line.note(cmd)
        for c in expand(cmd):
            loops = {**cmd.loop_words, **c.loop_words}  # a nested shell's loops are its commands' own
            rule = judge_command(line.prepare(c, loops), ruleset, loops, depth, disabled)
            if rule is not None:
                return rule, parsed.parsed
    return None, parsed.parsed


def judge_command(cmd: SimpleCommand, ruleset: RuleSet, loops: dict[str, list[str] | None] | None = None,
                  depth: int = 0, disabled: tuple[str, ...] = ()) -> ShellRule | None:
    """The first rule one simple command breaks, or None."""
    prog = program(cmd.argv)
    ctx = Context(ruleset.sets, ruleset.patterns, loops or {})
    if is_interpreter(prog) and (code := interpreter_code(cmd)):
        ctx.code, ctx.said = code, _said(code, prog, ruleset.patterns)
    for rule in ruleset.rules:
        if rule.id not in disabled and any(e.holds(cmd, ctx, ruleset.patterns) for e in rule.entries):
            return rule
    if ctx.code:
        return _strings_as_shell(ctx.code, ctx.said, ruleset, depth, disabled)
    if prog in ruleset.sets["awks"]:  # awk 'BEGIN { system("rm -rf x") }': its strings may run as commands
        text = next((a for a in cmd.argv[1:] if not a.startswith("-")), "")
        return _strings_as_shell(text, mask(text, prog), ruleset, depth, disabled)
    return None


def _said(code: str, prog: str, patterns: dict[str, re.Pattern[str]]) -> str:
    """What the code calls: literals blanked (``shell.code.mask``), calls made through names
    held in strings added; when it evaluates strings (``exec('...')``), the strings are code too."""
    said = mask(code, prog) + "\n" + dynamic_calls(code)
    if patterns["evaluates_strings"].search(said):
        said += "\n" + "\n".join(strings(code))
    return said


def _strings_as_shell(code: str, said: str, ruleset: RuleSet, depth: int, disabled: tuple[str, ...]) -> ShellRule | None:
    """String literals of the code run as shell commands (``os.system``, ``execSync``,
    ``subprocess.run([...])``) when the code (``said``: literals masked) starts a process: judge
    them as command lines too. A string ending in a space is a command whose operands the code
    appends (``system("rm -rf " $1)``), so it is judged with one."""
    if depth >= _MAX_DEPTH or not ruleset.patterns["starts_process"].search(said):
        return None
    candidates = strings(code) + [" ".join(re.findall(r"['\"]([^'\"\n]*)['\"]", m.group(1)))
                                  for m in ruleset.patterns["string_list"].finditer(code)]
    for text in candidates:
        if " " in text.strip():
            rule, _ = judge(text + "FILE" if text[-1:].isspace() else text, depth + 1, disabled)
            if rule:
                return rule
    return None


# --- the entries' options and operands -------------------------------------------------------------
def _after_sub(prog: str, args: list[str], subs: list[str], value_options: tuple[str, ...]) -> list[str] | None:
    """The arguments after the subcommand (``git -C x clean -f`` -> ``-f``; options before it kept
    for others: ``rclone --dry-run delete x`` -> ``--dry-run x``), None when another subcommand."""
    i = skip_options(args, 0, word_set("git_global_valued") if prog == "git" else set(value_options))
    for sub in subs:
        words = sub.split()
        if args[i:i + len(words)] == words:
            return args[i + len(words):] if prog == "git" else args[:i] + args[i + len(words):]
    return None


def has(flags: set[str], name: str) -> bool:
    """``name`` among ``flags``; a long option also when abbreviated to a prefix of five
    characters or more (GNU getopt and git take any unambiguous prefix: ``--recur``, ``--har``)."""
    if name in flags:
        return True
    return name.startswith("--") and any(len(f) >= 5 and f.startswith("--") and name.startswith(f) for f in flags)


def _options_hold(e: dict[str, Any], rest: list[str], patterns: dict[str, re.Pattern[str]]) -> bool:
    flags, operands = split_flags(rest, set(e.get("value_options", ())))
    if not all(any(has(flags, f) for f in group) for group in e.get("flags", ())):
        return False
    if any(has(flags, f) for f in e.get("not_flags", ())):
        return False
    spec = e.get("operands", {})
    if len(operands) < spec.get("min", 0) or len(operands) > spec.get("max", len(operands)):
        return False
    at = {"first": operands[:1], "last": operands[-1:], "any": operands, "rest_any": operands[1:]}
    if any(not any(patterns[spec[k]].search(o) for o in words) for k, words in at.items() if k in spec):
        return False
    return not ("first_not" in spec and operands and patterns[spec["first_not"]].search(operands[0]))


# --- loading ---------------------------------------------------------------------------------------
@cache
def rule_set(name_or_path: str = "destructive_commands.yaml") -> RuleSet:
    """The shell rules of a rules file, checked: a bad entry names the file, the rule and the key."""
    path, data = read_rule_file(name_or_path)
    patterns = {}
    for name, rx in (data.get("patterns") or {}).items():
        try:
            patterns[name] = re.compile(str(rx))
        except re.error as e:
            raise PatternFileError(f"{path}: patterns.{name}: bad regex: {e}") from e
    sets = {name: frozenset(map(str, items)) for name, items in (data.get("sets") or {}).items()}
    entries = data.get("shell_rules")
    if not isinstance(entries, list):
        raise PatternFileError(f"{path}: expected a list under 'shell_rules'")
    rules = tuple(_rule(path, i, entry, patterns) for i, entry in enumerate(entries))
    shapes = tuple((str(b["id"]), re.compile(str(b["pattern"]), re.I), str(b.get("guidance", "")))
                   for b in data.get("blocked") or [] if isinstance(b, dict) and b.get("shell_aware"))
    return RuleSet(rules, patterns, sets, shapes)


def _rule(path: object, i: int, entry: Any, patterns: dict[str, re.Pattern[str]]) -> ShellRule:
    where = f"{path}: shell_rules[{i}]"
    if not isinstance(entry, dict) or "id" not in entry or "guidance" not in entry:
        raise PatternFileError(f"{where}: each entry needs 'id' and 'guidance'")
    where += f" ({entry['id']})"
    out = []
    for j, spec in enumerate(entry.get("match") or []):
        at = f"{where}: match[{j}]"
        if not isinstance(spec, dict):
            raise PatternFileError(f"{at}: expected a mapping")
        unknown = set(spec) - _KEYS - ({"kind", "statement"} if "plugin" in spec else set())
        if unknown:
            raise PatternFileError(f"{at}: unknown keys {sorted(unknown)}")
        if "plugin" in spec and spec["plugin"] not in PLUGINS:
            raise PatternFileError(f"{at}: no plugin {spec['plugin']!r} (known: {sorted(PLUGINS)})")
        named = [spec.get("redirect"), *(spec.get("kv") or {}).values(), *[v for k, v in (spec.get("operands") or {}).items()
                                                                         if k in _OPERAND_KEYS - {"min", "max"}]]
        if missing := [n for n in named if n is not None and n not in patterns]:
            raise PatternFileError(f"{at}: no pattern named {missing} under 'patterns'")
        if set(spec.get("operands") or {}) - _OPERAND_KEYS:
            raise PatternFileError(f"{at}: operands takes {sorted(_OPERAND_KEYS)}")
        if isinstance(spec.get("sub"), str):
            spec = {**spec, "sub": [spec["sub"]]}
        try:
            code = re.compile(spec["code"], re.I) if "code" in spec else None
            args_any = re.compile(spec["args_any"]) if "args_any" in spec else None
        except re.error as e:
            raise PatternFileError(f"{at}: bad regex: {e}") from e
        out.append(Entry(spec, code, args_any))
    return ShellRule(str(entry["id"]), str(entry.get("source", "")), str(entry["guidance"]), tuple(out),
                     bool(entry.get("new_files_allowed", False)))


# --- what the rest of the line tells ------------------------------------------------------------
_COPIES = {"cp", "mv", "install", "ln", "rsync"}
_EMPTY = "/dev/null"
_TEMP_VAR = "$TMPDIR"
"""How a variable the line assigned a temporary place is spelled once rewritten (``d=$(mktemp -d)``)."""


@dataclass
class Line:
    temp_place: re.Pattern[str]
    """A word naming a temporary place (``$(mktemp -d)``, ``$TMPDIR/x``, ``/tmp/x``)."""
    temps: dict[str, str] = field(default_factory=dict)
    """Variables the line sets: a temporary place as ``$TMPDIR``, any other value as written."""
    made_empty: set[str] = field(default_factory=set)
    """Files (``e``) and folders (``e/``) the line created empty so far."""

    def note(self, cmd: SimpleCommand) -> None:
        """Record the variables a command of the line assigns (``d=...``, ``export d=...``)."""
        words = cmd.assignments + (cmd.argv[1:] if program(cmd.argv) in word_set("declares") else [])
        for a in words:
            name, eq, value = a.partition("=")
            if eq and re.fullmatch(r"[A-Za-z_]\w*", name):
                value = self._with_temps([value])[0]
                self.temps[name] = _TEMP_VAR if self.temp_place.search(value) else value

    def prepare(self, cmd: SimpleCommand, loops: dict[str, list[str] | None]) -> SimpleCommand:
        """``cmd`` with loop variables, temporary variables and empty sources spelled out."""
        cmd = loop_expanded(cmd, loops)
        return self._empty_sources(replace(cmd, argv=self._with_temps(cmd.argv)))

    def _with_temps(self, argv: list[str]) -> list[str]:
        """``argv`` with words that start with a variable the line assigned spelled with its value."""
        if not self.temps:
            return argv
        names = "|".join(re.escape(n) for n in sorted(self.temps))
        rx = re.compile(r"\$(?:\{(" + names + r")\}|(" + names + r")\b)")
        return [self.temps[m.group(1) or m.group(2)] + w[m.end():] if (m := rx.match(w)) else w for w in argv]

    def _empty_sources(self, cmd: SimpleCommand) -> SimpleCommand:
        """Files and folders this line creates empty (``touch e``, ``mkdir e``) are empty sources
        later on the line, like ``/dev/null``: ``touch e && mv e data.csv`` empties data.csv and
        ``mkdir e && rsync -a --delete e/ data/`` empties data/. The command comes back with such
        a source spelled ``/dev/null``, so one set of rules judges both."""
        prog, args = program(cmd.argv), cmd.argv[1:]
        operands = [a.rstrip("/") or a for a in args if not a.startswith("-")]
        if prog in ("touch", "mkdir"):  # a folder is "d/" (copying or moving one replaces nothing)
            self.made_empty.update(o + ("/" if prog == "mkdir" else "") for o in operands)
            return cmd
        if prog not in _COPIES or not self.made_empty:
            return cmd
        kind = "/" if prog == "rsync" else ""
        argv = [cmd.argv[0]] + [_EMPTY if not a.startswith("-") and (a.rstrip("/") or a) + kind in self.made_empty else a
                                for a in args]
        return replace(cmd, argv=argv)


def loop_expanded(cmd: SimpleCommand, loop_words: dict[str, list[str] | None]) -> SimpleCommand:
    """``cmd`` with each ``for`` variable of ``loop_words`` replaced by the words the loop gives
    it (every iteration at once: for a deletion the union is what is lost)."""
    if not any(v for v in loop_words.values()):
        return cmd
    argv: list[str] = []
    for word in cmd.argv:
        ref = next(((r, items) for name, items in loop_words.items() if items
                    for r in (f"${{{name}}}", f"${name}") if refers(word, r)), None)
        argv += [word.replace(ref[0], item) for item in ref[1]] if ref else [word]
    return replace(cmd, argv=argv, loop_words=loop_words)


# --- files an emptying command empties ----------------------------------------------------------
_UNFIXED = re.compile(r"[$`*?\[\]{}~]")
_FILLS = {"mv", "rename", "ln"}
"""Programs that put existing content at their last operand (a target filled earlier is not new)."""


def emptied_files(command: str, rules_file: str = "destructive_commands.yaml") -> list[str] | None:
    """The files the line's emptying commands empty (relative to the root, ``cd`` followed);
    None when the block must stand regardless (another rule, a target the line cannot fix, or a
    target an earlier command moved content onto)."""
    ruleset = rule_set(rules_file)
    line = Line(ruleset.patterns["temp_place"])
    targets: list[str] = []
    filled: set[str] = set()
    cwd = ""
    for cmd in parse(command).commands:
        if program(cmd.argv) in ("cd", "pushd", "popd"):
            moved = cd_target(cmd.argv, cwd, None)  # the directory a cd moves to, as loop detection reads it
            if moved is None:
                return None  # cd -, cd "$X", popd: targets are then relative to an unknown place
            cwd = moved
            continue
        for c in expand(cmd):
            c = line.prepare(c, {})
            rule = judge_command(c, ruleset)
            if rule is not None:
                found = [join(cwd, t) for t in _targets(c, ruleset)] if rule.new_files_allowed else []
                if not found or any(_UNFIXED.search(t) for t in found) or set(found) & filled:
                    return None
                targets += found
            if program(c.argv) in _FILLS and (ops := split_flags(c.argv[1:])[1]):
                filled.add(join(cwd, ops[-1]))
    return targets or None


def _targets(cmd: SimpleCommand, ruleset: RuleSet) -> list[str]:
    """The files one emptying command empties ([]: not one of the known forms)."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    if is_interpreter(prog) and interpreter_code(cmd):
        return _code_targets(cmd, ruleset)
    redirected = redirect_targets(cmd)
    if redirected and writes_nothing(cmd):
        return redirected
    operands = split_flags(args)[1]
    if prog in ("cp", "mv", "install", "ln") and len(operands) >= 2:
        return [operands[-1]]
    if prog == "tee":
        return operands
    if prog == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if prog == "truncate":  # the size's value is an operand to split_flags when not glued: drop it
        return [o for o in operands if not re.fullmatch(r"[<>/%]?-?\d+[KMGTPE]?i?B?", o, re.I)]
    return []


_P = r"""(?P<q>['"`])(?P<path>[^'"`$\n{}]+)(?P=q)"""
_CODE_TARGETS = [re.compile(rx) for rx in (
    r"\bopen(?:Sync)?\s*\(\s*" + _P + r"\s*,\s*(?:mode\s*=\s*)?['\"][wW]b?\+?['\"]\s*\)(?:\.close\(\))?",
    r"\bPath\(\s*" + _P + r"\s*\)\.(?:open\(\s*(?:mode\s*=\s*)?['\"]w['\"]\s*\)|write_(?:text|bytes)\(\s*b?(?:''|\"\")\s*\))",
    r"\b(?:writeFileSync|writeFile|File\.write|IO\.write|file_put_contents)\s*\(\s*" + _P + r"\s*,\s*(?:''|\"\"|``)\s*\)",
    r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['\"]>['\"]\s*,\s*" + _P + r"\s*\)?",
)]


def _code_targets(cmd: SimpleCommand, ruleset: RuleSet) -> list[str]:
    """Literal paths a one-liner opens for writing and leaves empty; [] unless, without those
    sites, the code empties nothing else."""
    code = interpreter_code(cmd)
    found, rest = [], code
    for rx in _CODE_TARGETS:
        found += [m.group("path") for m in rx.finditer(rest)]
        rest = rx.sub("None", rest)
    if not found or not code:
        return []
    argv = [rest if a == code else a for a in cmd.argv]
    stdin = rest if cmd.stdin_text == code else cmd.stdin_text
    return found if judge_command(replace(cmd, argv=argv, stdin_text=stdin), ruleset) is None else []


__all__ = ["Line", "RuleSet", "ShellRule", "emptied_files", "has", "judge", "judge_command", "rule_set"]
