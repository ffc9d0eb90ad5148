"""The site-wide orders, made in the index (generator.index.db) from its rows, as assemble.site
makes them from the authors in memory (tests/index/ checks each equal to its counterpart):

- ``listed``: who lists each record key, in site order (``assemble.site.record_authors``);
- ``listing``: each subject's records, newest first, each key once, the first author's copy,
  ties in site order (``assemble.site.subjects_of``), and ``subject_authors``: how many of each
  author's records list the subject, most first;
- the newest records (``assemble.site.newest``), kept in ``meta``.

A rebuild orders again only what changed: the keys and subjects whose rows moved, came or went
(``db._moved``), and everything when the site's authors or their order changed. The authors'
joined digests (``Index.joined``) that a changed key's listing touches go with them, and the
listings' digests of the subjects holding a copy of a changed key (``Index.listing_joined``).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import sqlite3
from array import array
from typing import Any, Iterable, Iterator, Sequence

from generator.index.db import Index, Row, derive_not_first
from generator.index.lazy import Pairs

# Who lists each changed key (group_concat takes the rows in the order of its subquery, which
# SQLite keeps: an aggregate's subquery with ORDER BY is not flattened).
_LISTED = """
INSERT INTO listed SELECT key, group_concat(slug, char(10)) FROM (
  SELECT r.key, r.slug FROM records r JOIN temp.site s ON s.slug = r.slug
  WHERE r.key IN (SELECT key FROM changed) ORDER BY r.key, s.apos, r.pos)
GROUP BY key
"""


def derive(index: Index, feed_size: int) -> dict[str, int]:
    """Make what changed of the orders; returns how many records each subject lists."""
    db = index.db
    site = hashlib.sha256("\n".join(index.slugs).encode()).digest()
    mark = site + str(feed_size).encode()
    if db.execute("SELECT value FROM meta WHERE name = 'derived'").fetchone() != (mark,):
        if db.execute("SELECT value FROM meta WHERE name = 'site'").fetchone() != (site,):
            _all_changed(db)   # (another set or order of authors, or a new index: every listing may differ)
        else:
            _some_changed(db)
        db.execute(_LISTED)
        derive_not_first(db)
        for (code,) in db.execute("SELECT code FROM changed_codes").fetchall():
            _list(db, code)
        newest = json.dumps(_newest(db, feed_size))
        db.execute("DELETE FROM changed")
        db.execute("DELETE FROM changed_codes")
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [("derived", mark), ("site", site),
                                                                      ("newest", newest)])
        db.commit()
    # (each listing's length from its last rank, one seek of the primary key a subject: counting
    # every row of the listings was 0.1 s a build at 5,000 x 100)
    return {code: db.execute("SELECT rank + 1 FROM listing WHERE code = ? ORDER BY rank DESC LIMIT 1",
                             (code,)).fetchone()[0] for (code,) in db.execute("SELECT code FROM subject_authors")}


class Counts(Pairs):
    """A subject's authors, (slug, how many of its records list the subject), most first
    (``Subject.authors``) held as their slugs, each the site's own string, and an array of the
    counts: 12 bytes a pair, not the 120 of a tuple with its own copy of the slug (every author
    appears in about five subjects: 95 MB at 20,000 authors, in the build's process and counted
    again in each process it forks). Iterated and indexed as the tuple of pairs, compared as it (``Pairs``). (An
    author's subjects and years over the index are not held at all: lazy.PartCounts.)"""

    __slots__ = ("slugs", "counts")

    def __init__(self, pairs: Iterable[Sequence[Any]], names: dict[Any, Any]) -> None:
        slugs, counts = [], array("I")
        for slug, n in pairs:
            slugs.append(names.setdefault(slug, slug))   # (the first of each made the one)
            counts.append(n)
        self.slugs, self.counts = tuple(slugs), counts

    def __len__(self) -> int:
        return len(self.slugs)

    def __getitem__(self, i: Any) -> Any:  # noqa: ANN401   (a pair, or a tuple of them for a slice)
        if isinstance(i, slice):
            return tuple(zip(self.slugs[i], self.counts[i]))
        return self.slugs[i], self.counts[i]

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return zip(self.slugs, self.counts)


def subject_authors(index: Index, code: str) -> Counts:
    row = index.db.execute("SELECT authors FROM subject_authors WHERE code = ?", (code,)).fetchone()
    return Counts(json.loads(row[0]) if row is not None else (), index.names)


def newest(index: Index) -> list[Row]:
    """The newest records (``derive``'s ``feed_size``), each key once: the last author's copy, in
    the place of the first (``assemble.site.newest``'s choice)."""
    row = index.db.execute("SELECT value FROM meta WHERE name = 'newest'").fetchone()
    return [(slug, pos) for slug, pos in json.loads(row[0])]


def _some_changed(db: sqlite3.Connection) -> None:
    """The digests and listers of the changed keys go (``_all_changed`` empties them all: these
    statements then walked every record for nothing, 27 s of a new index's 43 at 5,000 x 100)."""
    # (whose listers changed: the digest of each copy of those keys, so the subjects they are in;
    # CROSS JOIN keeps SQLite's order, from the few changed keys: left to choose, it scanned
    # every subject row, 14 s at 5,000 x 100)
    db.execute("DELETE FROM listing_joined WHERE code IN (SELECT DISTINCT j.code FROM changed c "
               "CROSS JOIN records r ON r.key = c.key CROSS JOIN subjects j ON j.slug = r.slug AND j.pos = r.pos)")
    db.execute("DELETE FROM joined WHERE slug IN "
               "(SELECT r.slug FROM changed c CROSS JOIN records r ON r.key = c.key)")
    db.execute("DELETE FROM listed WHERE key IN (SELECT key FROM changed)")


def _all_changed(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM joined")
    db.execute("DELETE FROM not_first")
    db.execute("DELETE FROM listing_joined")
    db.execute("DELETE FROM listed")
    db.execute("DELETE FROM listing")
    db.execute("DELETE FROM subject_authors")
    db.execute("INSERT OR IGNORE INTO changed SELECT key FROM records")
    db.execute("INSERT OR IGNORE INTO changed_codes SELECT DISTINCT code FROM subjects")


# A subject's listing (``subjects_of``): the first copy of each key in site order, sorted by its
# year and date, newest first, ties in site order (Python's stable sort of the first copies),
# ranked in SQL: at 1,000 x 100 a one-record rebuild lists about 40 subjects again, 4.4 s of
# Python reading, sorting and writing their rows one by one, 0.6 s so.
_LIST = """
INSERT INTO listing SELECT ?1, row_number() OVER (ORDER BY y DESC, p DESC, apos, pos) - 1, slug, pos FROM (
  SELECT j.y, j.p, j.slug, j.pos, s.apos, row_number() OVER (PARTITION BY j.key ORDER BY s.apos, j.pos) AS nth
  FROM subjects j JOIN temp.site s ON s.slug = j.slug WHERE j.code = ?1)
WHERE nth = 1
"""


def _list(db: sqlite3.Connection, code: str) -> None:
    """The subject's listing (``_LIST``) and its authors' counts, most first, made again."""
    db.execute("DELETE FROM listing WHERE code = ?", (code,))
    db.execute("DELETE FROM listing_joined WHERE code = ?", (code,))
    db.execute("DELETE FROM subject_authors WHERE code = ?", (code,))
    db.execute(_LIST, (code,))
    authors = db.execute("SELECT j.slug, count(*) AS n FROM subjects j JOIN temp.site s ON s.slug = j.slug "
                         "WHERE j.code = ? GROUP BY j.slug ORDER BY n DESC, j.slug", (code,)).fetchall()
    if authors:
        db.execute("INSERT INTO subject_authors VALUES (?, ?)", (code, json.dumps(authors)))


def _newest(db: sqlite3.Connection, count: int) -> list[Row]:
    """``assemble.site.newest``: scanning the records newest first, each new key's copies are
    looked up (its first place, its last copy's year and date); no key not seen yet can pass the
    ``count``-th best once the scan is below it."""
    found: dict[str, tuple[tuple[int, str], tuple[int, int], Row]] = {}   # key -> (value, place, last copy)
    cut: tuple[int, str] | None = None
    for key, y, p in db.execute("SELECT key, y, p FROM records INDEXED BY records_newest ORDER BY y DESC, p DESC"):
        if cut is not None and (y, p) < cut:
            break
        if key in found:
            continue
        copies = db.execute("SELECT r.slug, r.pos, r.y, r.p, s.apos FROM records r JOIN temp.site s ON s.slug = r.slug "
                            "WHERE r.key = ? ORDER BY s.apos, r.pos", (key,)).fetchall()
        last = copies[-1]
        found[key] = ((last[2], last[3]), (copies[0][4], copies[0][1]), (last[0], last[1]))
        if len(found) >= count:
            cut = heapq.nlargest(count, (v for v, _, _ in found.values()))[-1]
    best = sorted(found.values(), key=lambda e: e[1])   # in the place of the first copy, then
    best.sort(key=lambda e: e[0], reverse=True)           # newest first (a stable sort)
    return [row for _, _, row in best[:count]]
