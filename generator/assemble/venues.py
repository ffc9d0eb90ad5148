"""The per-venue index (``venues: true`` in site.yaml): records grouped by published venue. Pure.

A record's ``venue`` is the name its source gave (DBLP's journal or "booktitle year",
OpenAlex's or ORCID's journal title), kept as written on the record itself. Grouping is
deliberately conservative: two venues are one only when their names are equal after
 - Unicode NFKC, runs of white space made one space, ends trimmed;
 - case ignored (``casefold``);
 - a trailing year dropped: "VLDB 2025", "VLDB, 2025" and "VLDB (2025)" are venue "VLDB",
   edition 2025 (a four-digit year from 1900 to 2099 at the very end, after a space, a comma
   or in brackets; "VLDB2025", "Notes 12024" and "ICML 2024 Workshop" keep their names, and a
   name that is only a year stays as it is).
No abbreviation is expanded and no alias table is kept: "Proc. VLDB Endow." and "PVLDB" stay
two venues, as a site cannot tell a wrong merge of two journals from a right one, and a wrong
merge would put one journal's papers on another's page.

Each venue's shown name is the spelling (year dropped) most of its records use, ties broken by
the first in sorted order, so a build does not depend on the order of authors. Its address is
a slug of that name ("SIGMOD Conference" -> sigmod-conference); a name with no ASCII letter or
digit, and the rare names two venues would share ("C++" and "C"), get a short digest of the
grouping key instead ("v-" and ten hex digits), which no plain slug can be.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable

from generator.assemble.site import sort_newest_first
from generator.core.model import Author, Record

# A year at the very end, after a space or comma ("VLDB 2025", "VLDB, 2025") or in brackets ("VLDB (2025)").
_YEAR_AT_END = re.compile(r"^(?P<name>.*?\S)(?:[\s,;:]+(?P<year>(?:19|20)\d\d)|\s*\((?P<py>(?:19|20)\d\d)\))$")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Venue:
    """One venue: its shown name, its address, its records (newest first, each once) and who
    published there (author slug, record count), most first."""

    slug: str
    name: str
    records: tuple[Record, ...]
    authors: tuple[tuple[str, int], ...]
    years: tuple[int, ...]          # the editions seen (trailing years of the names), newest first


def split_venue(venue: str) -> tuple[str, int | None]:
    """A venue as given -> (its name, normalised for display, and the trailing year, if any)."""
    text = " ".join(unicodedata.normalize("NFKC", venue).split())
    m = _YEAR_AT_END.match(text)
    if m is None:
        return text, None
    return m.group("name"), int(m.group("py") or m.group("year"))


def venue_key(name: str) -> str:
    """What two venue names must share to be one venue (after ``split_venue``)."""
    return name.casefold()


def _slug(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _NOT_SLUG.sub("-", ascii_name.lower()).strip("-")[:60].strip("-")


def _digest_slug(key: str) -> str:
    return "v-" + hashlib.sha1(key.encode()).hexdigest()[:10]


def venue_index(authors: Iterable[Author]) -> tuple[Venue, ...]:
    """Every venue of the authors' records (records with no venue are on no venue page), sorted
    by name; a record listed by two authors is on its venue's page once."""
    recs: dict[str, dict[str, Record]] = defaultdict(dict)
    names: dict[str, Counter[str]] = defaultdict(Counter)
    years: dict[str, set[int]] = defaultdict(set)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for a in authors:
        for r in a.records:
            if not r.venue or not r.venue.strip():
                continue
            name, year = split_venue(r.venue)
            key = venue_key(name)
            recs[key].setdefault(r.key, r)
            names[key][name] += 1
            counts[key][a.slug] += 1
            if year is not None:
                years[key].add(year)
    slugs = _slugs({k: _shown(names[k]) for k in recs})
    venues = [Venue(slug=slugs[k], name=_shown(names[k]), records=tuple(sort_newest_first(recs[k].values())),
                    authors=tuple(sorted(counts[k].items(), key=lambda kv: (-kv[1], kv[0]))),
                    years=tuple(sorted(years[k], reverse=True))) for k in recs]
    return tuple(sorted(venues, key=lambda v: (venue_key(v.name), v.slug)))


def _shown(spellings: Counter[str]) -> str:
    return min(spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _slugs(shown: dict[str, str]) -> dict[str, str]:
    """key -> address; a slug that would be empty or shared by two keys is a digest of the key."""
    plain = {k: _slug(name) for k, name in shown.items()}
    taken = Counter(plain.values())
    return {k: s if s and taken[s] == 1 and not s.startswith("v-") else _digest_slug(k) for k, s in plain.items()}

