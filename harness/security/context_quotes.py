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
_AT_WORD_START = {"\u201d", "\u2019", "\u00bb", "\u203a"}


def _quote_alternative(opener: str) -> str:
    closers = re.escape(_CLOSERS[opener])
    # Marks that are also apostrophes or closers elsewhere open a quote only at a word's start
    # (after a space, an opening bracket or a colon) and before a non-space: "don’t" opens nothing.
    start = rf"(?:(?<=[\s(\[{{:])|^){re.escape(opener)}(?=\S)" if opener in _AT_WORD_START else re.escape(opener)
    return rf"{start}[^{closers}]*(?P<q{ord(opener)}>[{closers}])?"


# Markup written as entities is shown as text ("&lt;!-- ... --&gt;"): it quotes what it holds.
_QUOTATION = re.compile("|".join([r"&lt;.*?(?P<entity>&gt;)|&lt;.*\Z", *map(_quote_alternative, _CLOSERS)]), re.DOTALL)


def quote_spans(text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, closed)`` of each quotation in ``text``, outermost only: ``start`` at the
    opening mark, ``end`` after the closing one (or at the end of ``text`` when it never closes).
    Entity-escaped markup (``&lt;!-- ... --&gt;``) counts as a quotation too."""
    return [(m.start(), m.end(), m.lastgroup is not None) for m in _QUOTATION.finditer(text)]


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
