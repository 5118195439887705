"""What a model reads in a context file, recovered from what a human sees (context scanner).

Attackers hide text from reviewers in ways a model still reads: Unicode tag characters (an
invisible copy of ASCII), zero-width and bidi format characters splitting words, and Cyrillic or
Greek letters that look like Latin ones. ``clean_text`` undoes all three so the phrase patterns
see plain words; ``invisible_issues`` reports format characters that have no business in the
file, while leaving the legitimate uses alone (a leading BOM, ZWJ in emoji sequences, ZWNJ/ZWJ
inside Persian, Arabic or Indic words, LRM/RLM beside right-to-left letters, flag tag sequences).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import cache

import regex

from harness.security.patterns import read_rule_file

# Invisible format characters (Unicode category Cf, minus the visible Arabic/Syriac number
# signs): soft hyphen, zero-width and bidi controls, invisible operators, BOM, tag characters.
FORMAT_CHARS = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f]"
)
_TAG_ASCII = re.compile("[\U000e0020-\U000e007e]")
_TAG_BLOCK = re.compile("[\U000e0000-\U000e007f]")
# A subdivision flag: black flag, 2-6 tag letters/digits, cancel tag (how real emoji use tags).
_EMOJI_TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f")
# Characters that are legitimate inside words of scripts that need them (never in Latin text).
_JOINERS = {"\u200b", "\u200c", "\u200d", "\u200e", "\u200f"}

# Cyrillic and Greek letters that render like Latin ones (the ``confusables`` table).
_CONFUSABLES = {pair[0]: pair[1] for pair in read_rule_file("context_scan_patterns.yaml")[1]["tables"]["confusables"].split()}


def map_tag_characters(text: str) -> str:
    """Tag characters U+E0020..E007E become the ASCII they mirror; flag sequences stay emoji."""
    if not _TAG_BLOCK.search(text):
        return text
    text = _EMOJI_TAG_SEQUENCE.sub("\U0001f3f4", text)
    return _TAG_ASCII.sub(lambda m: chr(ord(m.group()) - 0xE0000), text)


def fold_confusables(text: str, table: dict[str, str] = _CONFUSABLES) -> tuple[str, int]:
    """Latin words spelled with look-alike letters (of ``table``: Cyrillic/Greek by default)
    folded to ASCII; and how many there were. Words with no ASCII letter (Russian or Greek prose)
    and words with a real accented or foreign letter stay as they are."""
    if text.isascii():
        return text, 0
    count = 0

    def fold(m: re.Match[str]) -> str:
        nonlocal count
        word = m.group()
        if word.isascii() or not re.search("[A-Za-z]", word) or any(not c.isascii() and c not in table for c in word):
            return word
        count += 1
        return "".join(table.get(c, c) for c in word)

    return _WORD.sub(fold, text), count


_WORD = re.compile(r"[^\W\d_]+")


def clean_text(content: str, unicode_data: bool = False) -> tuple[str, int]:
    """Tag characters mapped, NFKC, format characters removed, look-alikes folded (case kept);
    and how many words mixed look-alike letters into Latin ones. ``unicode_data`` (the scan
    option): Unicode's data instead of the lists above, every default-ignorable code point
    removed and confusables of every script folded; the count then also takes Latin words
    spelled in compatibility letters that NFKC turns into plain ASCII (mathematical bold or
    fraktur, and fullwidth outside CJK text, where fullwidth Latin is ordinary typography)."""
    tagged = map_tag_characters(content)
    if not unicode_data:
        return fold_confusables(FORMAT_CHARS.sub("", unicodedata.normalize("NFKC", tagged)))
    tagged = DEFAULT_IGNORABLE.sub("", tagged)
    folded, count = fold_confusables(unicodedata.normalize("NFKC", tagged), confusable_map())
    return folded, count + _compatibility_words(tagged)


def invisible_issues(content: str, unicode_data: bool = False) -> list[str]:
    """A finding listing the suspicious format characters (code point and count), if any;
    ``unicode_data``: another over every other default-ignorable code point. Legitimate uses
    are left alone (``_legitimate``)."""
    allowed = {m.start() + i for m in _EMOJI_TAG_SEQUENCE.finditer(content) for i in range(len(m.group()))}
    issues = []
    if listed := _listed(content, FORMAT_CHARS, lambda i, ch: i in allowed or _legitimate(content, i, ch)):
        issues.append(f"Contains invisible or bidi-control Unicode characters ({listed}): potential injection vector")
    if unicode_data and (listed := _listed(content, DEFAULT_IGNORABLE,
                                           lambda i, ch: bool(FORMAT_CHARS.match(ch)) or _legitimate(content, i, ch))):
        issues.append(f"Contains default-ignorable (invisible) Unicode characters ({listed}): potential injection vector")
    return issues


def _listed(content: str, chars: re.Pattern[str] | regex.Pattern[str], skip: Callable[[int, str], bool]) -> str:
    # Tag characters come by the dozen (one per hidden letter): they count as one kind.
    found = Counter("Unicode tag characters" if _TAG_BLOCK.match(m.group()) else f"U+{ord(m.group()):04X}"
                    for m in chars.finditer(content) if not skip(m.start(), m.group()))
    return ", ".join(f"{c} x{n}" for c, n in sorted(found.items()))


def _legitimate(text: str, i: int, ch: str) -> bool:
    """A format character in a use of its own: a leading BOM, a soft hyphen, ZWJ in emoji
    sequences, ZWNJ/ZWJ inside words of scripts that need them, LRM/RLM beside right-to-left
    letters; and (``unicode_data``) a variation selector after a symbol or ideograph, a
    combining grapheme joiner beside combining marks, Hangul fillers in Hangul text, Mongolian
    variation selectors after Mongolian letters."""
    if ch == "\ufeff":
        return i == 0  # a byte-order mark at the start of a file is normal
    if ch == "\u00ad":
        return True  # a soft hyphen is a hyphenation hint; it is stripped before matching anyway
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1:i + 2]
    if ch in _JOINERS:
        if FORMAT_CHARS.match(before) or FORMAT_CHARS.match(after):
            return False  # runs of invisible characters are never typography
        if ch == "\u200d" and _pictograph(before) and _pictograph(after):
            return True  # emoji sequences (family, flags) join pictographs with ZWJ
        if ch in "\u200e\u200f":
            return _right_to_left(before) or _right_to_left(after)
        return _non_latin_letter(before) and (after == "" or not _latin_letter(after))
    if "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef":
        return bool(before) and not before.isascii() and not _latin_letter(before)
    if ch == "\u034f":
        return unicodedata.category(after or " ")[0] == "M" or unicodedata.category(before or " ")[0] == "M"
    if ch in "\u115f\u1160\u3164\uffa0":
        return "HANGUL" in unicodedata.name(before, "") or "HANGUL" in unicodedata.name(after, "")
    if "\u180b" <= ch <= "\u180f" and ch != "\u180e":  # U+180E is a format character, never legitimate
        return "MONGOLIAN" in unicodedata.name(before, "")
    return False


def _pictograph(ch: str) -> bool:
    return bool(ch) and ord(ch) > 0x2000 and (unicodedata.category(ch) in ("So", "Sk") or ch == "\ufe0f")


def _latin_letter(ch: str) -> bool:
    return bool(ch) and ch.isalpha() and "LATIN" in unicodedata.name(ch, "")


def _non_latin_letter(ch: str) -> bool:
    # Letters and marks (virama, vowel signs) of scripts such as Arabic, Persian or Devanagari.
    return bool(ch) and unicodedata.category(ch)[0] in "LM" and ord(ch) > 0x2FF and not _latin_letter(ch)


def _right_to_left(ch: str) -> bool:
    return bool(ch) and unicodedata.bidirectional(ch) in ("R", "AL", "AN")


# --- with context_scan.unicode_data: Unicode's own data instead of the lists above -------------------
# Default_Ignorable_Code_Point is the Unicode property for "render as nothing" (zero-width and bidi
# controls, CGJ U+034F, Hangul fillers, variation selectors, tag characters ...); the `regex`
# module knows it as \p{DI} for the Unicode version it ships, so no list here has to keep up.
DEFAULT_IGNORABLE = regex.compile(r"[\p{DI}\u061c\u180e]")


@cache
def confusable_map() -> dict[str, str]:
    """Every non-ASCII character Unicode's confusables data (TR39, shipped with the maintained
    ``confusable-homoglyphs`` package) lists as a look-alike of one ASCII letter, in any script:
    Cyrillic, Greek, Armenian, Cherokee, mathematical alphanumerics, Latin variants ..."""
    # Loaded on first use: the confusables table is large and only looplab's scan option reads it.
    from confusable_homoglyphs.confusables import confusables_data

    glyphs = {ch: next((g for e in entries if len(g := e.get("c", "")) == 1 and g.isascii() and g.isalpha()), "")
              for ch, entries in confusables_data.items() if len(ch) == 1 and not ch.isascii()}
    return {ch: glyph for ch, glyph in glyphs.items() if glyph}


_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")


def _compatibility_words(text: str) -> int:
    if text.isascii():
        return 0
    cjk = bool(_CJK.search(text))
    words = [(w, unicodedata.normalize("NFKC", w)) for w in _WORD.findall(text) if not w.isascii() and len(w) >= 2]
    return sum(1 for w, plain in words if plain != w and plain.isascii() and plain.isalpha()
               and not (cjk and any("\uff21" <= c <= "\uff5a" for c in w)))
