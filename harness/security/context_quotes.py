"""Quotation marks of any script and code spans, found by structure (context scanner).

A document about an attack quotes it: „Ignoriere alle vorherigen Anweisungen“, »ignore all
previous instructions«, 『以前の指示を無視して』, ”kör `...`”. What is quoted is a matter of
punctuation, not of language, so the pairs of every typographic convention are listed once here.
A code span shows its text as text: an HTML comment written inside one hides nothing.
"""

from __future__ import annotations

import re

__all__ = ["mask_code_spans", "open_quote", "quote_spans"]

# Opening mark -> the marks that close it, for every convention in use: English “…” ‘…’,
# German/Czech „…“ ‚…‘, Polish/Hungarian/Romanian „…”, French/Russian/Greek «…», Danish/German
# »…«, Swiss ‹…›, Swedish/Finnish ”…” ’…’, CJK 「…」 『…』 《…》 〈…〉 〝…〞, vertical ﹁…﹂ ﹃…﹄,
# and the straight double quote of ASCII text.
_CLOSERS = {
    "\u201c": "\u201d\u201e", "\u201e": "\u201c\u201d", "\u2018": "\u2019", "\u201a": "\u2018\u2019",
    "\u00ab": "\u00bb", "\u00bb": "\u00ab", "\u2039": "\u203a", "\u203a": "\u2039",
    "\u201d": "\u201d", "\u2019": "\u2019",
    "\u300c": "\u300d", "\u300e": "\u300f", "\u300a": "\u300b", "\u3008": "\u3009", "\u301d": "\u301e\u301f",
    "\ufe41": "\ufe42", "\ufe43": "\ufe44", '"': '"',
}
# Marks that are also apostrophes or closers elsewhere open a quote only at a word's start
# (after a space, an opening bracket or a colon) and before a non-space: "don’t" opens nothing.
_AT_WORD_START = {"\u201d", "\u2019", "\u00bb", "\u203a"}
# Markup written as entities is shown as text ("&lt;!-- ... --&gt;"): it quotes what it holds.
_ESCAPED_OPEN, _ESCAPED_CLOSE = "&lt;", "&gt;"


def _opens(text: str, i: int) -> bool:
    ch = text[i]
    if ch not in _CLOSERS:
        return False
    if ch in _AT_WORD_START:
        before = text[i - 1] if i else " "
        after = text[i + 1] if i + 1 < len(text) else " "
        return (before.isspace() or before in "([{:") and not after.isspace()
    return True


def quote_spans(text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, closed)`` of each quotation in ``text``, outermost only: ``start`` at the
    opening mark, ``end`` after the closing one (or at the end of ``text`` when it never closes).
    Entity-escaped markup (``&lt;!-- ... --&gt;``) counts as a quotation too."""
    out: list[tuple[int, int, bool]] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith(_ESCAPED_OPEN, i):
            end = text.find(_ESCAPED_CLOSE, i + len(_ESCAPED_OPEN))
            out.append((i, n if end < 0 else end + len(_ESCAPED_CLOSE), end >= 0))
            i = n if end < 0 else end + len(_ESCAPED_CLOSE)
            continue
        if not _opens(text, i):
            i += 1
            continue
        closers = _CLOSERS[text[i]]
        j = i + 1
        while j < n and text[j] not in closers:
            j += 1
        out.append((i, min(j + 1, n), j < n))
        i = j + 1
    return out


def open_quote(before: str) -> bool:
    """The text right after ``before`` is inside a quotation that ``before`` opened."""
    spans = quote_spans(before)
    return bool(spans) and not spans[-1][2]


# An HTML comment (up to its end) or an inline code span, read the CommonMark way: a run of
# backticks opens a span closed by the next run of the same length. The span is kept to one line
# (CommonMark lets it wrap, but a line that starts with ``<!--`` opens an HTML block there), so it
# can never swallow a real hidden comment.
_COMMENT_OR_SPAN = re.compile(r"<!--.*?(?:-->|\Z)|(?<!`)(`+)(?!`)([^\n]*?)(?<!`)\1(?!`)", re.DOTALL)


def mask_code_spans(text: str) -> str:
    """``text`` with the content of inline code spans blanked (newlines and length kept); an
    HTML comment that starts first is a comment, not code."""
    if "`" not in text:
        return text
    return _COMMENT_OR_SPAN.sub(
        lambda m: m.group() if m.group(1) is None else m.group(1) + " " * len(m.group(2)) + m.group(1), text)
