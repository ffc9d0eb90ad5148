"""The lab's list of publications (/publications/, site.yaml ``publications``). Pure: no I/O.

Every record of every profiled author, one entry per work: the copies that several authors
list, or that one author has from several sources, are merged as one author's are
(``merge.merge``). A work is on the list when at least one of its authors was a member the
year it appeared (``Author.member``, from the author file's ``member: {from, until}``; an
author without it always counts): an alumna's paper from before she joined stays on her own
page, not on the lab's. Each entry says which members it counts for (the member filter), and
its kind (journal, conference, preprint, thesis, other) from its fields, as the exports read
them (``exports.venue_kind``). The counts of every filter, of each group of members, and who
wrote how many works with whom (over every work, years aside) come with it, as plain values
the page reads: its job's digest is made of exactly these (generator.render.pages).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from itertools import combinations
from typing import Iterable, Sequence

from generator.assemble.site import sort_newest_first
from generator.render.exports import venue_kind
from generator.assemble.merge import merge
from generator.core.model import ET_AL, Author, Person, Record

KINDS = ("journal", "conference", "preprint", "thesis", "other")
_THESIS = re.compile(r"\b(?:thesis|dissertation|habilitation)\b", re.I)
_NOT_ID = re.compile(r"[^A-Za-z0-9_-]")


_frozen = dataclasses.dataclass(frozen=True, slots=True)


@_frozen
class Entry:
    """One work of the list: its record (merged across authors), its kind and the members it
    counts for (slugs, site order)."""

    record: Record
    kind: str
    members: tuple[str, ...]


@_frozen
class Member:
    """A profiled author as the list's filters and graph show them: works counted on the list."""

    slug: str
    name: str
    group: str | None
    count: int


@_frozen
class Lab:
    entries: tuple[Entry, ...]                    # newest first
    years: tuple[tuple[int | None, int], ...]     # (year, works), newest first; None: undated, last
    members: tuple[Member, ...]                   # every author, site order
    groups: tuple[tuple[str, int], ...]           # (group, works with a member of it), site.yaml's order
    subjects: tuple[tuple[str, int], ...]         # (code, works), most first
    kinds: tuple[tuple[str, int], ...]            # (kind, works), in KINDS order, none empty
    pairs: tuple[tuple[str, str, int], ...]       # (slug, slug, works together), site order

    def exported(self) -> tuple[Record, ...]:
        """The records of the list as its BibTeX and CSL-JSON give them: one typed in without an
        author list names its first member and unknown others, as the author's own exports do."""
        names = {m.slug: m.name for m in self.members}
        return tuple(_named(e.record, names[e.members[0]]) for e in self.entries)


def kind_of(r: Record) -> str:
    """journal, conference, preprint, thesis or other: a thesis by its venue's words or DBLP's
    key, else what the exports call it; a record with no venue is a preprint when it is on
    arXiv, else other (a talk, a report, a typed-in record without venue)."""
    kind, venue = venue_kind(r)
    if kind == "thesis" or (venue and _THESIS.search(venue)):
        return "thesis"
    if kind == "proceedings":
        return "conference"
    if kind == "journal":
        return "journal"
    return "preprint" if r.arxiv_id or r.source == "arXiv" else "other"


def filter_id(facet: str, value: object) -> str:
    """The id of a filter's anchor ("only-subject-cs-LG"): safe in HTML and in a CSS selector."""
    return f"only-{facet}-" + _NOT_ID.sub("-", "undated" if value is None else str(value))


def lab_of(authors: Sequence[Author], groups: Sequence[str] = ()) -> Lab:
    """The list, its counts and who works with whom, from the assembled authors (site order)."""
    order = {a.slug: i for i, a in enumerate(authors)}
    by_slug = {a.slug: a for a in authors}
    entries: list[Entry] = []
    pairs: Counter[tuple[str, str]] = Counter()
    for record, slugs in works(authors):
        slugs = sorted(slugs, key=order.__getitem__)
        pairs.update(combinations(slugs, 2))
        members = tuple(s for s in slugs if by_slug[s].member_in(record.year))
        if members:
            entries.append(Entry(record, kind_of(record), members))
    newest = {id(r): i for i, r in enumerate(sort_newest_first(e.record for e in entries))}
    entries.sort(key=lambda e: newest[id(e.record)])
    kinds = Counter(e.kind for e in entries)
    together = sorted(pairs.items(), key=lambda kv: (order[kv[0][0]], order[kv[0][1]]))
    return Lab(tuple(entries), _years(entries), _members(authors, entries), _groups(authors, entries, groups),
               _counted(code for e in entries for code in dict.fromkeys(e.record.subjects)),
               tuple((k, kinds[k]) for k in KINDS if kinds[k]), tuple((x, y, n) for (x, y), n in together))


def works(authors: Iterable[Author]) -> list[tuple[Record, set[str]]]:
    """Each work once, merged across every author's records, with the slugs of who lists it."""
    owners: dict[int, set[str]] = {}
    copies: list[Record] = []
    for a in authors:
        for r in a.records:
            if id(r) not in owners:
                owners[id(r)] = set()
                copies.append(r)
            owners[id(r)].add(a.slug)
    return [(g.record, {s for p in g.parts for s in owners[id(p)]}) for g in merge(copies).groups]


def _named(r: Record, name: str) -> Record:
    """A record typed in without an author list names its author and unknown others (as the
    author's own exports do): the lab's exports must name someone."""
    return r if r.authors else dataclasses.replace(r, authors=(Person(name), Person(ET_AL)))


def _counted(values: Iterable[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0])))


def _years(entries: Sequence[Entry]) -> tuple[tuple[int | None, int], ...]:
    counts = Counter(e.record.year for e in entries)
    return tuple(sorted(counts.items(), key=lambda kv: -(kv[0] or 0)))


def _members(authors: Sequence[Author], entries: Sequence[Entry]) -> tuple[Member, ...]:
    counts = Counter(s for e in entries for s in e.members)
    return tuple(Member(a.slug, a.name, a.group, counts[a.slug]) for a in authors)


def _groups(authors: Sequence[Author], entries: Sequence[Entry], groups: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """Each group's works: those with at least one member of the group in their years."""
    group_of = {a.slug: a.group for a in authors}
    out = []
    for g in groups:
        n = sum(1 for e in entries if any(group_of[s] == g for s in e.members))
        if n:
            out.append((g, n))
    return tuple(out)
