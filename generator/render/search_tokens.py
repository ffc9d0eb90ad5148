"""The search's tokenizer: one rule, written here and in ``themes/default/static/search.js`` alike
(tests/write/test_search.py runs both over the same strings), which the index (generator.render.search_index)
and the search box both apply.

NFKD, combining marks (Unicode category M) dropped; then the runs of letters and digits (categories L
and N), a run continuing over a hyphen between two of them ("self-supervised", "GPT-4"). Each run is
cut into its parts: where a lower-case letter meets an upper-case one ("SparkDiffusion": "Spark",
"Diffusion"), before the last capital of a capital run followed by a lower-case letter ("HTMLParser":
"HTML", "Parser"; a capital run followed by "s" alone is one part, a plural: "LLMs"), where letters
meet digits ("ResNet50": "Res", "Net", "50"), where cased letters meet uncased ones (CJK, Arabic) and at
hyphens. Each part is lowercased, NFKD again, marks dropped, final sigma as sigma and sharp s as ss.
A run of one part is one word; a run of several is the whole (its parts joined: "sparkdiffusion",
"gpt4", "selfsupervised") followed by its parts, so "diffusion" finds SparkDiffusion, "sparkdiffusion"
still does, and "GPT4" finds "GPT-4". "Schrödinger" is "schrodinger", "Straße" is "strasse".

``VERSION`` names this rule: what is kept of the documents from one build to the next is keyed on it
(generator.incremental.search_kept), so a build with another rule never reuses terms made by this one.
"""

from __future__ import annotations

import functools
import re
import unicodedata

VERSION = 2   # 2: compound words cut into their parts (CamelCase, digits, hyphens), the whole kept

_FOLD = {"\u03c2": "\u03c3", "\u00df": "ss"}   # final sigma as sigma, sharp s as ss
_HYPHENS = "-\u2010"   # hyphen-minus and hyphen (NFKD makes the non-breaking hyphen U+2011 a U+2010)

# ASCII text, on its own characters: the runs, and the parts of a run.
_ASCII_RUN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_ASCII_PART = re.compile(r"[A-Z]+s(?![a-z])|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Any text, on its characters' classes (``_class``): U upper or title case, l lower case (s: the
# ASCII letter s, lower case too), o other letters, d digits, - a hyphen, space anything else.
_RUN = re.compile(r"[Ulsod]+(?:-[Ulsod]+)*")
_PART = re.compile(r"U+s(?![ls])|U+(?![ls])|U?[ls]+|o+|d+")
_CLASS = {"Lu": "U", "Lt": "U", "Ll": "l", "Lm": "o", "Lo": "o"}


@functools.lru_cache(maxsize=65536)
def _class(c: str) -> str:
    if c == "s":
        return "s"
    if c in _HYPHENS:
        return "-"
    cat = unicodedata.category(c)
    if cat[0] == "M":
        return ""
    return _CLASS.get(cat) or ("d" if cat[0] == "N" else " ")


@functools.lru_cache(maxsize=65536)
def _fold(c: str) -> str:
    cat = unicodedata.category(c)[0]
    if cat == "M":
        return ""
    return _FOLD.get(c, c) if cat in "LN" else ""


def _lower(part: str) -> str:
    """A part as a word: lowercased, NFKD, no marks, folded."""
    low = part.lower()
    if low.isascii():
        return low
    return "".join([_fold(c) for c in unicodedata.normalize("NFKD", low)])


def _run(parts: list[str]) -> tuple[str, ...]:
    """A run's words: its one part, or the whole and then its parts."""
    parts = [p for p in parts if p]
    return (parts[0],) if len(parts) == 1 else ("".join(parts), *parts) if parts else ()


def words(text: str) -> list[tuple[str, ...]]:
    """The runs of ``text``, each as its words (``(word,)``, or ``(whole, *parts)`` of a compound)."""
    if text.isascii():
        return ascii_words(text)
    t = unicodedata.normalize("NFKD", text)
    classes = [_class(c) for c in t]
    kept = "".join([c for c, k in zip(t, classes) if k])
    cls = "".join(classes)
    out = []
    for run in _RUN.finditer(cls):
        parts = [_lower(kept[m.start():m.end()]) for m in _PART.finditer(cls, run.start(), run.end())]
        if found := _run(parts):
            out.append(found)
    return out


def ascii_words(text: str) -> list[tuple[str, ...]]:
    """``words`` of ASCII text: the same rule on the characters themselves, without a class looked up for each."""
    out = []
    for run in _ASCII_RUN.findall(text):
        if run.islower() and run.isalpha() or run.isdigit() or run[1:].islower() and run.isalpha():
            out.append((run.lower(),))
        else:
            out.append(_run([p.lower() for p in _ASCII_PART.findall(run)]))
    return out


def tokens(text: str) -> list[str]:
    """The words of ``text``, as the index and the search box both see them: each run's words in turn."""
    return [w for run in words(text) for w in run]
