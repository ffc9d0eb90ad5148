"""The build's index of records, on disk: SQLite from the standard library, no server.

A build of 20,000 authors x 100 records cannot hold its records as Python objects (about 4 KB
each, in each of its processes: docs/scale.md). So each author, once assembled (or kept from the
last build), is written here a row per record (its fields pickled, its content digest, the few
fields the site-wide orders sort by) and let go; what site-wide pages need is asked of it
(generator.index.orders makes it): who lists each record, each subject's records in order, the
newest records. Each process opens its own connection (``Index.db``: a forked render process
reads through its own).

The file is the next build's too (``.authorsite/index.sqlite``, safe to delete): an author whose
part key (generator.incremental.snapshot.part_key) is unchanged keeps its rows, so a rebuild
writes the rows of the authors it assembled, and orders again only what their keys touch.
"""

from __future__ import annotations

import marshal
import os
import pickle
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from generator.core.model import Record, entry_updated

VERSION = 13   # the schema's, in SQLite's user_version: an index of another is made anew (13: joined.code, .author, .search)

_SCHEMA = """
CREATE TABLE authors(slug TEXT PRIMARY KEY, key BLOB NOT NULL, n INTEGER NOT NULL, part BLOB NOT NULL,
                     counts BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE records(slug TEXT NOT NULL, pos INTEGER NOT NULL, key TEXT NOT NULL, y INTEGER NOT NULL,
                     p TEXT NOT NULL, u TEXT NOT NULL, v INTEGER NOT NULL, content BLOB NOT NULL, blob BLOB NOT NULL,
                     PRIMARY KEY(slug, pos));
CREATE TABLE subjects(code TEXT NOT NULL, slug TEXT NOT NULL, pos INTEGER NOT NULL, key TEXT NOT NULL,
                      y INTEGER NOT NULL, p TEXT NOT NULL);
CREATE INDEX subjects_slug ON subjects(slug);
CREATE TABLE listed(key TEXT PRIMARY KEY, who TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE listing(code TEXT NOT NULL, rank INTEGER NOT NULL, slug TEXT NOT NULL, pos INTEGER NOT NULL,
                     PRIMARY KEY(code, rank)) WITHOUT ROWID;
CREATE TABLE subject_authors(code TEXT PRIMARY KEY, authors TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE joined(slug TEXT PRIMARY KEY, code TEXT, author BLOB, search BLOB, digests BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE not_first(slug TEXT NOT NULL, pos INTEGER NOT NULL, PRIMARY KEY(slug, pos)) WITHOUT ROWID;
CREATE TABLE listing_joined(code TEXT PRIMARY KEY, digests BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE changed(key TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE changed_codes(code TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE meta(name TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE feed_known(key TEXT PRIMARY KEY, had INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE feed_ids(key TEXT PRIMARY KEY, id TEXT NOT NULL) WITHOUT ROWID;
"""
# The indexes only the orders and pages read (never ``put``): made once the authors are in
# (``Index.site``), so that a new index is filled without them and sorts each once. At 5,000 x
# 100 filling them row by row took 3.7 ms an author of 22 (and more as they outgrow the
# page cache); made after, the same rows are sorted in one pass each.
_LATE = """
-- (read alone, never the table: v by feeds.py for the site's keys; slug, pos by the orders for who
-- lists a key, as the table WITHOUT ROWID's indexes held them; p, y by ``papers``)
CREATE INDEX IF NOT EXISTS records_key ON records(key, v, slug, pos, p, y);
CREATE INDEX IF NOT EXISTS records_newest ON records(y DESC, p DESC);
CREATE INDEX IF NOT EXISTS records_dates ON records(slug, pos, u, key);   -- (newest, span: not the whole rows, 200 KB an author)
CREATE INDEX IF NOT EXISTS subjects_code ON subjects(code);
"""
# records has rowids: its rows (1.5 KB each at 5,000 x 100) are past what a WITHOUT ROWID table keeps
# in its page (about 1 KB of a 4 KB page), so each spilled to a page of its own: the table took 2.3
# GB at 5,000 x 100 against 1.0 GB now (the index 2.6 -> 1.3 GB), and a record read one by one 3-5x
# as long (30,000 of that site's rows in a random order: 1.6-2.6 s against 0.45-0.53 s).
# authors.counts: the author's subjects and years, (code, count) and (year, count) pairs, and how
# its records were matched, (how many records, assemble.matching.summary), marshalled
# (lazy.PartCounts, lazy.matched: unpickling its part took 127 us, this 12 us). records.y and .p: the record's
# year (0 when none) and first date ('' when none), as assemble.site.sort_newest_first sorts them;
# .u: its date in a feed (model.entry_updated); .v: 1 when it has a venue. feed_known and
# feed_ids: the feeds' memory (generator.index.feeds).
# joined.author, .search: the author's encoding and its search documents' key by the code
# joined.code (Index.authors_encoded), which live and go with the row's digests.

# The site's authors in order, for this build only (a temporary table, filled in each process
# that reads the orders: ``Index.site``).
_SITE = "CREATE TEMP TABLE IF NOT EXISTS site(slug TEXT PRIMARY KEY, apos INTEGER NOT NULL) WITHOUT ROWID"

# Whether the record r (records) is listed first by its own author (l: listed, who in site order).
_FIRST = "(l.who = r.slug OR substr(l.who, 1, length(r.slug) + 1) = r.slug || char(10))"

Row = tuple[str, int]   # (author slug, the record's position among the author's records)
KEPT = ("author", "search")   # the digests kept with an author's joined ones (``authors_encoded``)


class Index:
    """The index file at ``path``; ``slugs``: the site's authors, in order, once ``site`` is given."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = str(path)
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self.slugs: tuple[str, ...] = ()
        self.names: dict[str, str] = {}   # each slug of the site, to itself: the one string a slug read is made

    @property
    def db(self) -> sqlite3.Connection:
        """This process's connection (a forked process opens its own: SQLite's may not cross a fork)."""
        if self._conn is None or self._pid != os.getpid():
            self._conn = _open(self.path)
            self._pid = os.getpid()
            if self.slugs:
                _fill_site(self._conn, self.slugs)
        return self._conn

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    # -- writing (the build's process, before the plan) --

    def kept(self, slug: str, key: bytes) -> tuple[int, bytes] | None:
        """(how many records, the author's part as ``put`` was given it) for the author ``slug``
        made of ``key``, or None."""
        return self.db.execute("SELECT n, part FROM authors WHERE slug = ? AND key = ?", (slug, key)).fetchone()

    def put(self, slug: str, key: bytes, records: Sequence[Record], contents: Sequence[bytes],
            values: Iterable[tuple[Any, ...]], part: bytes, counts: Any = ((), ())) -> None:  # noqa: ANN401
        """The author ``slug``'s records (``values``: each one's ``values_of``), in place of what it
        held, with the rest of its part (``part``: bytes, handed back by ``kept``) and its
        (subjects, years) counts (``counts``, given back by ``counts``)."""
        db = self.db
        was = _drop(db, slug)
        rows = [(slug, i, r.key, r.year or 0, r.published or "", entry_updated(r), int(bool(r.venue)), c,
                 pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL))
                for i, (r, c, v) in enumerate(zip(records, contents, values, strict=True))]
        db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT INTO subjects VALUES (?, ?, ?, ?, ?, ?)",
                       ((code, slug, i, r.key, y, p) for (_, i, _, y, p, *_), r in zip(rows, records)
                        for code in dict.fromkeys(r.subjects)))   # (a code a record lists twice: one row)
        # (its rows past its records go; the others are made again by derive_not_first)
        db.execute("DELETE FROM not_first WHERE slug = ? AND pos >= ?", (slug, len(records)))
        db.execute("INSERT OR REPLACE INTO authors VALUES (?, ?, ?, ?, ?)",
                   (slug, key, len(records), part, marshal.dumps(counts, 2)))
        _moved(db, slug, was, _placed(db, slug))
        db.commit()   # (an author at a time: a helper process writes its share meanwhile)

    def site(self, slugs: Sequence[str]) -> None:
        """The site's authors are ``slugs``, in order: the rows of any other author go."""
        self.slugs = tuple(slugs)
        self.names = {s: s for s in self.slugs}
        db = self.db
        db.executescript(_LATE)   # (every author's rows are in: the indexes the orders read, if not made yet)
        _fill_site(db, self.slugs)
        gone = [s for (s,) in db.execute("SELECT slug FROM authors WHERE slug NOT IN (SELECT slug FROM temp.site)")]
        for slug in gone:   # (nothing to mark: another set of authors orders everything again, orders.derive)
            _drop(db, slug)
            db.execute("DELETE FROM authors WHERE slug = ?", (slug,))
            db.execute("DELETE FROM not_first WHERE slug = ?", (slug,))
        db.commit()

    def joined(self, slug: str, make: Callable[[Iterator[tuple[bytes, str]]], bytes]) -> bytes:
        """The author's records' digests joined, as ``make`` makes them of each one's (content
        digest, who lists it): kept in the index until a key of theirs changes (orders.derive)."""
        db = self.db
        row = db.execute("SELECT digests FROM joined WHERE slug = ?", (slug,)).fetchone()
        if row is not None:
            return row[0]
        made = make(iter(db.execute("SELECT r.content, l.who FROM records r JOIN listed l ON l.key = r.key "
                                    "WHERE r.slug = ? ORDER BY r.pos", (slug,))))
        db.execute("INSERT OR REPLACE INTO joined VALUES (?, NULL, NULL, NULL, ?)", (slug, made))
        return made

    def authors_encoded(self, code: str) -> dict[str, list[bytes | None]]:
        """Each author's digests that follow from its rows alone (``KEPT``: its encoding, and its
        search documents' key) as a plan of the code ``code`` kept them (``keep_encoded``), while
        its row in ``joined`` stands: the author is made of its rows and of those digests
        (generator.index.site.Indexer), and the row goes whenever they change."""
        return {slug: [author, search] for slug, author, search in
                self.db.execute("SELECT slug, author, search FROM joined WHERE code = ?", (code,))}

    def keep_encoded(self, slug: str, code: str, what: int, digest: bytes) -> None:
        """Keep ``digest`` as the author's ``KEPT[what]`` by ``code`` (the other one goes when it was another code's)."""
        column, other = KEPT[what], KEPT[1 - what]
        self.db.execute(f"UPDATE joined SET {other} = CASE WHEN code = ? THEN {other} END, {column} = ?, code = ? "
                        "WHERE slug = ?", (code, digest, code, slug))

    def listing_joined(self, code: str, make: Callable[[Iterator[Row]], bytes]) -> bytes:
        """The digests of the records listed in ``code``, joined, as ``make`` makes them of the
        listing's rows in order: kept in the index until the listing changes or the joined digests
        of an author with records in the subject go (``_moved``, orders.derive)."""
        db = self.db
        row = db.execute("SELECT digests FROM listing_joined WHERE code = ?", (code,)).fetchone()
        if row is not None:
            return row[0]
        made = make(iter(db.execute("SELECT slug, pos FROM listing WHERE code = ? ORDER BY rank", (code,))))
        db.execute("INSERT OR REPLACE INTO listing_joined VALUES (?, ?)", (code, made))
        return made

    # -- reading (every process) --

    def counts(self, slug: str) -> tuple[Any, ...]:
        """The author's (subjects, years, matched) as ``put`` was given them (none for an author not there)."""
        row = self.db.execute("SELECT counts FROM authors WHERE slug = ?", (slug,)).fetchone()
        return marshal.loads(row[0]) if row is not None else ((), ())

    def records(self, slug: str) -> tuple[bytes, ...]:
        """The author's records, each one's ``values_of`` pickled, in order."""
        return tuple(b for (b,) in self.db.execute("SELECT blob FROM records WHERE slug = ? ORDER BY pos", (slug,)))

    def record(self, slug: str, pos: int) -> bytes:
        row = self.db.execute("SELECT blob FROM records WHERE slug = ? AND pos = ?", (slug, pos)).fetchone()
        if row is None:
            raise LookupError(f"the index holds no record {pos} of author '{slug}'")
        return row[0]

    def listed(self, key: str) -> tuple[str, ...]:
        """The profiled authors who list the record ``key``, in site order."""
        row = self.db.execute("SELECT who FROM listed WHERE key = ?", (key,)).fetchone()
        return () if row is None else tuple(row[0].split("\n"))

    def listed_of(self, slug: str) -> list[tuple[str, str]]:
        """(key, who lists it) of each of the author's records."""
        return list(self.db.execute("SELECT r.key, l.who FROM records r JOIN listed l ON l.key = r.key "
                                    "WHERE r.slug = ?", (slug,)))

    def listings(self) -> Iterator[tuple[str, str]]:
        """(key, author slug) of every record, in site order (author, then record)."""
        return iter(self.db.execute(
            "SELECT r.key, r.slug FROM records r JOIN temp.site s ON s.slug = r.slug ORDER BY s.apos, r.pos"))

    def subject_rows(self, code: str, start: int, stop: int) -> list[Row]:
        """The records ``start`` to ``stop`` of those listed in ``code`` (orders.derive)."""
        return list(self.db.execute("SELECT slug, pos FROM listing WHERE code = ? AND rank >= ? AND rank < ? "
                                    "ORDER BY rank", (code, start, stop)))

    def subject_blobs(self, code: str, start: int, stop: int) -> list[tuple[str, int, bytes]]:
        """``subject_rows``, each with its record's pickled ``values_of``."""
        return list(self.db.execute(
            "SELECT l.slug, l.pos, r.blob FROM listing l JOIN records r ON r.slug = l.slug AND r.pos = l.pos "
            "WHERE l.code = ? AND l.rank >= ? AND l.rank < ? ORDER BY l.rank", (code, start, stop)))

    def span(self, what: str, slug: str, start: int, stop: int) -> list[Any]:
        """``what`` (SQL over the records' columns) of the author's records ``start`` to ``stop``, in order."""
        return [v for (v,) in self.db.execute(f"SELECT {what} FROM records WHERE slug = ? AND pos >= ? AND pos < ? "
                                               "ORDER BY pos", (slug, start, stop))]

    def newest(self, slug: str, start: int, stop: int) -> str | None:
        """The greatest ``u`` of the author's records ``start`` to ``stop`` (None for none): SQLite
        compares text by its UTF-8 bytes, which orders as Python compares the code points."""
        return self.db.execute("SELECT max(u) FROM records WHERE slug = ? AND pos >= ? AND pos < ?",
                               (slug, start, stop)).fetchone()[0]

    def subject_places(self, slug: str, start: int, stop: int) -> list[tuple[str, int]]:
        """(code, position) of each subject of the author's records ``start`` to ``stop``, by position."""
        return list(self.db.execute("SELECT code, pos FROM subjects WHERE slug = ? AND pos >= ? AND pos < ? "
                                    "ORDER BY pos", (slug, start, stop)))

    def listed_span(self, what: str, code: str, start: int, stop: int) -> list[Any]:
        """``what`` (SQL over the records' columns, as r.) of the records ``start`` to ``stop`` listed in ``code``."""
        return [v for (v,) in self.db.execute(
            f"SELECT {what} FROM listing l JOIN records r ON r.slug = l.slug AND r.pos = l.pos "
            "WHERE l.code = ? AND l.rank >= ? AND l.rank < ? ORDER BY l.rank", (code, start, stop))]

    def papers(self) -> Iterator[tuple[str, str, str]]:
        """(date, key, author slug) of each record under the first author who lists it (the search
        index's papers: render.search_docs.indexed_records), oldest first, then by key from the
        last (search_runs.in_order; SQLite orders text as Python does, by code point). The date is
        search_docs.date_of's: the record's first date, else its year."""
        # (the records' columns read in one pass first: left to itself, SQLite walked the key index
        # and fetched each row from where it lies, 14 s at 5,000 x 100 against 2.5 s over the table;
        # records_key holds them all, so the pass reads it, not the table: 0.93 s against 1.92 s)
        return iter(self.db.execute(
            "WITH r AS MATERIALIZED (SELECT key, slug, p, y FROM records) "
            "SELECT CASE WHEN r.p != '' THEN r.p WHEN r.y != 0 THEN printf('%04d', r.y) ELSE '' END AS d, "
            "r.key, r.slug FROM r CROSS JOIN listed l ON l.key = r.key CROSS JOIN temp.site s ON s.slug = r.slug "
            f"WHERE {_FIRST} ORDER BY d, r.key DESC"))

    def not_first(self) -> Iterator[Row]:
        """(slug, pos) of each record listed by another author before its own, in site order (kept
        by ``derive_not_first``: found in every record each build, 4.5 s at 20,000 x 100)."""
        return iter(self.db.execute("SELECT n.slug, n.pos FROM not_first n JOIN temp.site s ON s.slug = n.slug "
                                    "ORDER BY s.apos, n.pos"))


def derive_not_first(db: sqlite3.Connection) -> None:
    """The ``not_first`` rows of every author who has a record of a changed key (orders.derive,
    once ``listed`` is made again for them): whether a record is listed first by its own author
    depends on its key and who lists that key, and a record put at another place, or gone, or
    come, marks its key (``_moved``). Rows past an author's records go when it is put again, an
    author's when it leaves the site (``put``, ``site``)."""
    affected = "SELECT DISTINCT r.slug FROM changed c CROSS JOIN records r ON r.key = c.key"
    db.execute(f"DELETE FROM not_first WHERE slug IN ({affected})")
    db.execute("INSERT INTO not_first SELECT r.slug, r.pos FROM records r JOIN listed l ON l.key = r.key "
               f"WHERE r.slug IN ({affected}) AND NOT {_FIRST}")


def _open(path: Path) -> sqlite3.Connection:
    """The index at ``path``, made (or made again, when of another schema or damaged) as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level="DEFERRED", timeout=600)   # (waits while another process writes)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError:   # (not an index: made anew, as the next build of any other would)
        version = None
    if version != VERSION:
        db.close()
        path.unlink(missing_ok=True)
        db = sqlite3.connect(path, isolation_level="DEFERRED")
        db.executescript(_SCHEMA + f"PRAGMA user_version = {VERSION};")
    db.execute("PRAGMA synchronous = OFF")   # (a power cut may damage it: then it is made anew, see above)
    # (a write-ahead log: each author's rows are committed alone, so that the helper processes
    # writing their shares take turns, and a commit with a rollback journal made and removed a
    # file each time: 4 ms an author of 22 at 5,000 x 100)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(_SITE)
    return db


# Where an author's records stand in the orders (orders.derive): each one's key, place and content
# digest, and each subject row (code, place, key, year, date).
Placed = tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]


def _placed(db: sqlite3.Connection, slug: str) -> Placed:
    return (set(db.execute("SELECT key, pos, content FROM records WHERE slug = ?", (slug,))),
            set(db.execute("SELECT code, pos, key, y, p FROM subjects WHERE slug = ?", (slug,))))


def _drop(db: sqlite3.Connection, slug: str) -> Placed:
    """The author's rows gone; where they stood (``_placed``), for ``_moved``."""
    was = _placed(db, slug)
    db.execute("DELETE FROM records WHERE slug = ?", (slug,))
    db.execute("DELETE FROM subjects WHERE slug = ?", (slug,))
    return was


def _moved(db: sqlite3.Connection, slug: str, was: Placed, now: Placed) -> None:
    """Marked changed (orders.derive): only the keys and subjects whose rows moved, came or went
    between ``was`` and ``now``; an edit of a record's text or of the author's page orders nothing
    again (at 5,000 x 100 a one-author rebuild listed 39 subjects again, 9.2 s of 16 s). The
    author's own joined digests go (its records' contents may differ), and the listings' digests
    of the subjects of a record whose content or place changed (not every subject of the
    author's: 40 of 43 at 1,000 x 100 for one record); the newest are made again."""
    keyed = {(k, p) for k, p, _ in was[0]} ^ {(k, p) for k, p, _ in now[0]}
    db.executemany("INSERT OR IGNORE INTO changed VALUES (?)", {(k,) for k, _ in keyed})
    moved = {(c,) for c, *_ in was[1] ^ now[1]}
    db.executemany("INSERT OR IGNORE INTO changed_codes VALUES (?)", moved)
    db.execute("DELETE FROM joined WHERE slug = ?", (slug,))
    places = {p for _, p, _ in was[0] ^ now[0]}   # (a record whose key, place or content differs)
    db.executemany("DELETE FROM listing_joined WHERE code = ?",
                   moved | {(c,) for c, p, *_ in was[1] | now[1] if p in places})
    db.execute("DELETE FROM meta WHERE name = 'derived'")


def _fill_site(db: sqlite3.Connection, slugs: Sequence[str]) -> None:
    db.execute("DELETE FROM temp.site")
    db.executemany("INSERT INTO temp.site VALUES (?, ?)", ((s, i) for i, s in enumerate(slugs)))
