"""What a page shows of a record's authors and details: pure values for the record partials.

A record keeps every author (up to ``sources.text.MAX_AUTHORS``, above the largest real lists),
but a page shows a bounded byline: the first ``authors_shown`` names, plus every profiled author
of the site wherever they stand ("Jane Doe (1,204th of 2,501)"), and a count of the rest. A
2,501-author paper would otherwise add 55 KB to every page that lists it (issue 15, item 12);
the exports and the JSON keep the full list. The search documents use the same bound.

Also here, for the same partials: what a record's meta line shows (its badge, venue, one year, arXiv
id), the affiliations of the shown authors numbered once each,
the non-arXiv class terms grouped by scheme (MSC, ACM), and a comment split into text and safe
links. Everything is a plain value; the markup stays in the templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from generator.core import ids
from generator.assemble.filters import normalize_name
from generator.core.model import Person, Record


@dataclass(frozen=True, slots=True)
class Shown:
    """One name of a bounded byline: its 0-based place in the record's list, the numbers of its
    affiliations ("1,2"), its place spelled out when it stands past the first names, and whether
    names were left out just before it."""

    index: int
    person: Person
    marks: str = ""
    position: str = ""
    gap: bool = False


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 11th, 22nd, 1,204th."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def shown_indexes(authors: Sequence[Person], limit: int, people: Mapping[str, str]) -> tuple[int, ...]:
    """The places of the names a page shows: the first ``limit``, then every profiled author."""
    if len(authors) <= limit:
        return tuple(range(len(authors)))
    later = (i for i in range(limit, len(authors)) if normalize_name(authors[i].name) in people)
    return (*range(limit), *later)


def shown_names(authors: Sequence[Person], limit: int, people: Mapping[str, str]) -> list[str]:
    """The names a page shows (for the search documents)."""
    return [authors[i].name for i in shown_indexes(authors, limit, people)]


def shown_authors(authors: Sequence[Person], limit: int, people: Mapping[str, str],
                  affiliations: bool = True) -> tuple[tuple[Shown, ...], tuple[str, ...]]:
    """The names a page shows, and the affiliations they cite (numbered from 1 in order of
    first appearance; an affiliation shared by several names gets one number)."""
    numbers: dict[str, int] = {}
    out: list[Shown] = []
    total, prev = len(authors), -1
    for i in shown_indexes(authors, limit, people):
        p = authors[i]
        marks = ""
        if affiliations and p.affiliations:
            marks = ",".join(str(numbers.setdefault(a, len(numbers) + 1)) for a in p.affiliations)
        position = f"{ordinal(i + 1)} of {total:,}" if i >= limit else ""
        out.append(Shown(i, p, marks, position, gap=i != prev + 1))
        prev = i
    return tuple(out), tuple(numbers)


# MSC 2010/2020 codes (81P45, 68Q99, 03B70, 68-XX, 05Cxx) and the ACM CCS 1998 codes (F.2.2, K.2, D.3.m).
_MSC = re.compile(r"\d\d[A-Z-](?:\d\d|xx|XX)")
_ACM = re.compile(r"[A-K]\.(?:\d|m)(?:\.(?:\d{1,2}|m))?")
_SEP = re.compile(r"\s*[,;]\s*|\s+")


def class_terms(terms: Sequence[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Non-arXiv class terms grouped by scheme, in the order the schemes first appear:
    ``("03B70, 68Q99", "F.4.1; K.2")`` -> ``(("MSC", ("03B70", "68Q99")), ("ACM", ("F.4.1", "K.2")))``.
    A term that is neither an MSC nor an ACM code is kept whole under "Other"."""
    groups: dict[str, dict[str, None]] = {}
    for term in terms:
        codes = [c for c in _SEP.split(term.strip()) if c]
        if codes and all(_MSC.fullmatch(c) for c in codes):
            scheme = "MSC"
        elif codes and all(_ACM.fullmatch(c) for c in codes):
            scheme = "ACM"
        else:
            scheme, codes = "Other", [term.strip()] if term.strip() else []
        for c in codes:
            groups.setdefault(scheme, {}).setdefault(c)
    return tuple((scheme, tuple(codes)) for scheme, codes in groups.items())


# A URL in free text ends before whitespace, quotes or angle brackets; trailing punctuation
# ("see http://x.org/a." or "(http://x.org/)") belongs to the sentence, a closing bracket to the
# URL only when the URL opened it.
_URL = re.compile(r"""https?://[^\s<>"'`\\]+""", re.IGNORECASE)
_TRAILING = ".,;:!?"


def _trim(url: str) -> str:
    while url:
        last = url[-1]
        if last in _TRAILING:
            url = url[:-1]
        elif last in ")]}" and url.count(last) > url.count({")": "(", "]": "[", "}": "{"}[last]):
            url = url[:-1]
        else:
            break
    return url


def comment_parts(text: str) -> tuple[tuple[str, str | None], ...]:
    """A comment as (text, href) parts: href is set for the http(s) URLs in it that pass
    ``ids.safe_url``, else None (the template escapes every text and links only the hrefs)."""
    parts: list[tuple[str, str | None]] = []
    pos = 0
    for m in _URL.finditer(text):
        url = _trim(m.group(0))
        href = ids.safe_url(url) if len(url) > len("https://") else None
        if href is None:
            continue
        if m.start() > pos:
            parts.append((text[pos:m.start()], None))
        parts.append((url, href))
        pos = m.start() + len(url)
    if pos < len(text):
        parts.append((text[pos:], None))
    return tuple(parts)


def meta_parts(r: Record, dated: bool) -> tuple[tuple[str, str], ...]:
    """The parts of a record's meta line, in order, as (kind, text): its venue, its one year (only
    when ``dated``: under its year's heading a record does not repeat it, nor when the venue and
    so the badge name it, generator.assemble.venue_badge) and its arXiv id with the version shown."""
    out: list[tuple[str, str]] = []
    if r.venue:
        out.append(("venue", r.venue))
    if dated and r.year and not r.venue:
        out.append(("year", str(r.year)))
    if r.arxiv_id:
        out.append(("id", f"arXiv:{r.arxiv_id}v{r.version}" if r.version else f"arXiv:{r.arxiv_id}"))
    return tuple(out)
