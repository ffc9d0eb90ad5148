"""Authors' names split into given and family parts for the exports (CSL-JSON, BibTeX).

arXiv gives each name as one string ("Peter H. N. de With"). Taking the last word as the
family name broke every name with a particle ("A. Del Maestro" became "Maestro"), so the
split is nameparser's, which keeps particles with the family name ("Del Maestro", "de With",
"van den Heuvel") and knows suffixes ("Jr.").

Where a split is doubtful the name is kept whole (``literal``): one word, a collaboration or
other group ("ATLAS Collaboration", any all-capitals word of two letters or more), a script
other than Latin (Chinese, Cyrillic, ... names have their own order), characters that are
not part of a personal name (digits, commas, brackets), or a split that would lose a word.
CSL then gets ``{"literal": name}``; BibTeX gets the name in braces, which BibTeX treats as
one unsplittable last name. Pure and cached: co-authors repeat across thousands of records.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_GROUP_WORDS = frozenset(
    "collaboration collaborations consortium team group project collective network "
    "initiative committee society association alliance working".split()
)
_NOT_PERSONAL = re.compile(r"[^\w .'’\-]|[\d_]")  # personal names: letters, space, dot, apostrophes, hyphen
_CAPS_WORD = re.compile(r"[A-Z]{2,}")
_ROMAN = re.compile(r"[IVX]+")


@lru_cache(maxsize=1)
def _special() -> frozenset[str]:
    """Words after which nameparser's answer may differ from "all but the last word are given":
    its particles, titles, suffixes and conjunctions (lower case, without a final dot).
    nameparser is imported here, by the first name split (25 ms: a build that writes no export
    needs none)."""
    from nameparser.config import CONSTANTS

    return frozenset(w.lower().rstrip(".") for s in (CONSTANTS.prefixes, CONSTANTS.titles, CONSTANTS.suffix_acronyms,
                                                    CONSTANTS.suffix_not_acronyms, CONSTANTS.conjunctions) for w in s)


@dataclass(frozen=True, slots=True)
class NameParts:
    """A name as given + family (+ suffix), or as ``literal`` when the split is doubtful."""

    given: str = ""
    family: str = ""
    suffix: str = ""
    literal: str = ""


@lru_cache(maxsize=1 << 16)
def split_name(name: str) -> NameParts:
    """``name`` split into its parts; ``literal`` set (and nothing else) when doubtful."""
    name = " ".join(name.split())
    if _doubtful(name):
        return NameParts(literal=name)
    words = name.split()
    if all(_plain_word(w) for w in words):  # nameparser's answer, without its 0.4 ms a name
        return NameParts(given=" ".join(words[:-1]), family=words[-1])
    from nameparser import HumanName

    h = HumanName(name)
    given = " ".join(p for p in (h.title, h.first, h.middle) if p)
    family, suffix = h.last, h.suffix
    if not given or not family or " ".join(p for p in (given, family, suffix) if p).split() != name.split():
        return NameParts(literal=name)  # nameparser moved or dropped a word: keep the name whole
    return NameParts(given=given, family=family, suffix=suffix)


def _plain_word(word: str) -> bool:
    """A capitalised word that is no particle, title, suffix or conjunction (nor starts with one)."""
    if not word[0].isupper() or "'" in word or "’" in word:
        return False
    special = _special()
    return all(p.lower().rstrip(".") not in special and p.lower() + "-" not in special
               for p in word.split("-") if p)


def _doubtful(name: str) -> bool:
    words = name.split()
    if len(words) < 2 or words[0][0].islower():
        return True
    if any(w.lower() == "and" for w in words):  # BibTeX would split the name there
        return True
    if any(w.lower().strip(".") in _GROUP_WORDS for w in words):
        return True
    if any(_CAPS_WORD.fullmatch(w.strip(".,-")) and not _ROMAN.fullmatch(w) for w in words):
        return True
    if _NOT_PERSONAL.search(name):
        return True
    return not name.isascii() and any(
        c.isalpha() and not unicodedata.name(c, "").startswith("LATIN") for c in name)


def csl_name(name: str) -> dict[str, str]:
    """A CSL-JSON name object: family/given (+ suffix), or literal."""
    parts = split_name(name)
    if parts.literal:
        return {"literal": parts.literal}
    out = {"family": parts.family, "given": parts.given}
    if parts.suffix:
        out["suffix"] = parts.suffix
    return out


def bibtex_name(name: str) -> str:
    """A BibTeX name: "von Last, First" ("von Last, Jr, First"), or "{literal}"."""
    parts = split_name(name)
    if parts.literal:
        return "{" + parts.literal + "}"
    if parts.suffix:
        return f"{parts.family}, {parts.suffix}, {parts.given}"
    return f"{parts.family}, {parts.given}"
