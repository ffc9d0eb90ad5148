"""One record per work: the same paper from arXiv, DBLP, ORCID, OpenAlex, a feed or typed in.

Pure. Two records are the same work when they share an arXiv id, a DOI, or a source id (a DBLP
key, an OpenAlex work, an ORCID put-code), or, failing those, their normalised titles are equal
and their years too (or the one is an arXiv preprint and the other its published version a year
later). Matches are made in a fixed order (ids before titles) over a fixed order of the records
(``_rank``, from their content only), joining groups with a union-find; so the result is the same
whatever order the sources come in. Two groups are never joined when that would put two arXiv
ids or two DOIs in one record, when an author's ``separate`` pair names one record of each, or
(on a title match) when both name a venue and the venues differ: these are the near misses
("Part I"/"Part II" and errata never match, as their normalised titles differ).

Every decision carries its reason ("same DOI 10.1/x", "title+year"), for ``authorsite review``.
A record that matches nothing is passed through as the very same object (the partial cache and
the demo output depend on it).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable, Sequence

from generator.core import ids
from generator.assemble.matching import merged_match
from generator.core.model import Record

_TAG = re.compile(r"<[^<>]{0,40}>")          # <i>, <sub>, <sup> in DBLP and OpenAlex titles
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+")    # \emph, \times: the argument stays, the name goes
_WORD = re.compile(r"\w+")
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)", re.I)  # the DOI arXiv gives every preprint
SCHEME_NAMES = {"dblp": "DBLP key", "openalex": "OpenAlex id", "orcid": "ORCID put-code"}


@dataclass(frozen=True, slots=True)
class Decision:
    """Why two records were merged (``merged``) or kept apart."""

    a: Record
    b: Record
    reason: str
    merged: bool


@dataclass(frozen=True, slots=True)
class Group:
    """One work: the merged record, the records it was made of (in rank order), and why."""

    record: Record
    parts: tuple[Record, ...]
    decisions: tuple[Decision, ...]


@dataclass(frozen=True, slots=True)
class Merged:
    groups: tuple[Group, ...]        # in output order: lowest source position first
    apart: tuple[Decision, ...]      # matches refused, with the reason

    @property
    def records(self) -> list[Record]:
        return [g.record for g in self.groups]


def normalize_title(title: str) -> str:
    """Case, accents, punctuation, spacing, HTML tags and TeX command names ignored."""
    text = _TEX_COMMAND.sub(" ", _TAG.sub(" ", title))
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(_WORD.findall(text.casefold())).replace("_", " ")


def handle(text: str) -> str:
    """A record's name as a ``separate`` pair gives it: 'arxiv:ID', 'doi:DOI', 'dblp:KEY', a key."""
    s = text.strip()
    parsed = ids.parse_arxiv_id(s)
    if parsed:
        return f"arxiv:{parsed[0]}"
    doi = ids.normalize_doi(s)
    if doi:
        return _doi_handle(doi)
    scheme, sep, rest = s.partition(":")
    return f"{scheme.lower()}:{rest}" if sep else s


def handles(r: Record) -> frozenset[str]:
    """Every name a ``separate`` pair may use for ``r``."""
    out = {r.key, *(f"{scheme.lower()}:{value}" for scheme, value in r.source_ids)}
    out.update(f"arxiv:{a}" for a in _arxiv_ids(r))
    out.update(f"doi:{d}" for d in _dois(r))
    return frozenset(out)


def merge_records(records: Iterable[Record], separate: Sequence[tuple[str, str]] = ()) -> list[Record]:
    """The records, one per work (see the module docstring)."""
    return merge(records, separate).records


def merge(records: Iterable[Record], separate: Sequence[tuple[str, str]] = ()) -> Merged:
    """Group the records into works, each with the reasons of its merges and refusals."""
    ranked = sorted(records, key=_rank)
    pairs = frozenset((handle(x), handle(y)) for x, y in separate)
    uf = _Groups(ranked, pairs)
    apart: list[Decision] = []
    for i, j, reason, title_edge in _edges(ranked):
        refusal = uf.refusal(i, j, title_edge)
        if refusal is None:
            uf.join(i, j, reason)
        elif refusal:
            apart.append(Decision(ranked[i], ranked[j], refusal, False))
    groups = [_group(ranked, members, uf.decisions.get(root, [])) for root, members in uf.members().items()]
    groups.sort(key=lambda g: (g.record.order, _rank(g.record)))
    return Merged(tuple(groups), tuple(apart))


# ----------------------------------------------------------------------------- identities

def _doi_handle(doi: str) -> str:
    m = _ARXIV_DOI.fullmatch(doi)
    parsed = ids.parse_arxiv_id(m.group(1)) if m else None
    return f"arxiv:{parsed[0]}" if parsed else f"doi:{doi.lower()}"


def _arxiv_ids(r: Record) -> set[str]:
    out = {r.arxiv_id} if r.arxiv_id else set()
    if r.doi and _doi_handle(r.doi).startswith("arxiv:"):
        out.add(_doi_handle(r.doi)[6:])
    out.update(v for s, v in r.source_ids if s.lower() == "arxiv")
    return out


def _dois(r: Record) -> set[str]:
    """The record's publication DOI (an arXiv DOI counts as its arXiv id instead)."""
    if r.doi and _doi_handle(r.doi).startswith("doi:"):
        return {r.doi.lower()}
    return set()


def _rank(r: Record) -> tuple[Any, ...]:
    """A total order from the record's content: arXiv records first, newest version, lowest source
    position; the rest breaks ties so that equal ranks mean equal records."""
    return (not r.arxiv_id, -(r.version or 0), r.order, r.source, r.key, r.title, r.year or 0, r.doi or "",
            r.published or "", r.updated or "", r.venue or "", r.source_ids, r.abstract, r.journal_ref or "",
            r.comment or "", r.url or "", r.subjects, r.primary_subject or "", r.other_terms, r.links,
            r.origins, -1 if r.citations is None else r.citations, r.citations_date or "", r.match,
            tuple((p.name, p.affiliations) for p in r.authors))


def _edges(ranked: Sequence[Record]) -> list[tuple[int, int, str, bool]]:
    """Candidate matches (i, j, reason, on title only), ids first, each kind in a fixed order."""
    by: dict[tuple[int, str], list[int]] = {}
    for i, r in enumerate(ranked):
        for a in sorted(_arxiv_ids(r)):
            by.setdefault((0, f"same arXiv id {a}"), []).append(i)
        for d in sorted(_dois(r)):
            by.setdefault((1, f"same DOI {d}"), []).append(i)
        for scheme, value in sorted(set(r.source_ids)):
            name = SCHEME_NAMES.get(scheme.lower(), f"{scheme} id")
            by.setdefault((2, f"same {name} {value}"), []).append(i)
        norm = normalize_title(r.title)
        if norm:
            by.setdefault((3, norm), []).append(i)
    out: list[tuple[int, int, str, bool]] = []
    for (tier, reason), members in sorted(item for item in by.items() if len(item[1]) > 1):
        for i, j in combinations(members, 2):
            if tier < 3:
                out.append((i, j, reason, False))
            else:
                out.append((i, j, _title_reason(ranked[i], ranked[j]), True))
    out.sort(key=lambda e: (e[3], not e[2].startswith("title+year")))
    return out


def _title_reason(a: Record, b: Record) -> str:
    """'title+year', 'title, preprint Y then published Y+1', or '' (different years: no match)."""
    if a.year == b.year:
        return "title+year"
    pre, pub = (a, b) if a.arxiv_id else (b, a)
    if (pre.arxiv_id and not pre.venue and pub.venue and not pub.arxiv_id and pre.year and pub.year
            and pub.year == pre.year + 1):
        return f"title, preprint {pre.year} then published {pub.year}"
    return ""


def _venue_conflict(a: Record, b: Record) -> str | None:
    if a.venue and b.venue and normalize_title(a.venue) != normalize_title(b.venue):
        return "same title, different venues ({} / {})".format(*sorted((a.venue, b.venue)))
    return None


class _Groups:
    """Union-find over ranked records; each root knows its arXiv ids, DOIs and handles."""

    def __init__(self, ranked: Sequence[Record], separate: frozenset[tuple[str, str]]) -> None:
        self.ranked, self.separate = ranked, separate
        self.parent = list(range(len(ranked)))
        self.arxiv = [_arxiv_ids(r) for r in ranked]
        self.doi = [_dois(r) for r in ranked]
        self.names = [set(handles(r)) if separate else set() for r in ranked]
        self.decisions: dict[int, list[Decision]] = {}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def refusal(self, i: int, j: int, title_edge: bool) -> str | None:
        """None to join; '' when there is nothing to say (already one group, different years);
        else why the two stay apart."""
        a, b = self.find(i), self.find(j)
        ri, rj = self.ranked[i], self.ranked[j]
        if a == b:
            return ""
        if title_edge and not _title_reason(ri, rj):
            return "same title, different years ({}, {})".format(*sorted((ri.year or 0, rj.year or 0)))
        for x, y in self.separate:
            if (x in self.names[a] and y in self.names[b]) or (y in self.names[a] and x in self.names[b]):
                return f"kept apart by the author's separate: [{x}, {y}]"
        if self.arxiv[a] and self.arxiv[b] and not self.arxiv[a] & self.arxiv[b]:
            return f"different arXiv ids ({', '.join(sorted(self.arxiv[a] | self.arxiv[b]))})"
        if self.doi[a] and self.doi[b] and not self.doi[a] & self.doi[b]:
            return f"different DOIs ({', '.join(sorted(self.doi[a] | self.doi[b]))})"
        return _venue_conflict(ri, rj) if title_edge else None

    def join(self, i: int, j: int, reason: str) -> None:
        a, b = sorted((self.find(i), self.find(j)))
        self.parent[b] = a
        self.arxiv[a] |= self.arxiv[b]
        self.doi[a] |= self.doi[b]
        self.names[a] |= self.names[b]
        self.decisions.setdefault(a, []).extend(self.decisions.pop(b, []))
        self.decisions[a].append(Decision(self.ranked[i], self.ranked[j], reason, True))

    def members(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(self.ranked)):
            out.setdefault(self.find(i), []).append(i)
        return out


# ----------------------------------------------------------------------------- the merged record

_OWN_RULES = frozenset({"key", "order", "doi", "origins", "source_ids", "links", "citations", "citations_date",
                        "match"})
_FIELDS = tuple(f.name for f in dataclasses.fields(Record) if f.name not in _OWN_RULES)


def _group(ranked: Sequence[Record], members: list[int], decisions: list[Decision]) -> Group:
    parts = tuple(ranked[i] for i in members)     # members are in rank order
    record = parts[0] if len(parts) == 1 else combine(parts)
    return Group(record, parts, tuple(decisions))


def combine(parts: Sequence[Record]) -> Record:
    """One record from several of one work, in rank order: the first (the arXiv record, newest
    version) gives each field, the others fill its gaps; a name match joined with an identifier's is
    confirmed by it (generator.assemble.matching); the year is the published version's
    (the part that gives the venue) when it differs from the preprint's; the published DOI wins over an arXiv DOI; origins, source ids and links of every part are kept; the highest citation count."""
    first = parts[0]
    changes: dict[str, Any] = {}
    for name in _FIELDS:
        if getattr(first, name) in (None, "", ()):
            other = next((v for p in parts[1:] if (v := getattr(p, name)) not in (None, "", ())), None)
            if other is not None:
                changes[name] = other
    dois = [p.doi for p in parts if p.doi]
    published = [d for d in dois if _doi_handle(d).startswith("doi:")]
    shown = changes.get("venue", first.venue)
    venue = next((p for p in parts if shown and p.venue == shown), None)
    if venue and venue.year and venue.year != first.year:
        changes["year"] = venue.year   # one year, the published version's (the preprint's is in its dates)
    counted = [p for p in parts if p.citations is not None]
    best = max(counted, key=lambda p: (p.citations, p.citations_date or ""), default=None)
    return dataclasses.replace(
        first, **changes,
        key=f"arxiv:{first.arxiv_id}" if first.arxiv_id else first.key,
        order=min(p.order for p in parts),
        doi=(published or dois or [None])[0],
        origins=_unique(label for p in parts for label in (p.origins or (p.source,))),
        source_ids=tuple(sorted({tuple(s) for p in parts for s in p.source_ids})),  # type: ignore[misc]
        links=_unique(link for p in parts for link in p.links),
        citations=best.citations if best else None,
        citations_date=best.citations_date if best else None,
        match=merged_match(parts),
    )


def _unique(values: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(values))
