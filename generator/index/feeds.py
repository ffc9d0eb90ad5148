"""The feeds' entry ids over the index (issue 42): ``feed_ids.resolve``'s answer, and the memory
the build writes after it, byte for byte, with neither the site's records nor the memory's keys
held in memory.

In memory, resolving reads ``content/cache/feed-ids.json`` whole (every record key the site has
listed: 2 million at 20,000 authors x 100) and looks at every record of the site (over the index,
loading each from SQLite). Here the memory lives in the index's tables ``feed_known`` and
``feed_ids`` (generator.index.db), imported from the file only when its bytes are not the ones the
tables hold (their digest in ``meta``: the file a build wrote is never read again), a few thousand
keys at a time; and the site's keys, each with whether its first record (in site order) has a
venue, are a query of the records' rows (``records.v``). Only a new key, or a known one just
published, has its record loaded (one at a time): ``feed_ids.news`` makes of them what it makes in
memory. The memory the build writes is the tables, read in key order as ``feed_ids.chunks``
writes them (SQLite orders texts by their UTF-8 bytes: Python's order of their code points).

A file that is not laid out as ``feed_ids.chunks`` writes it (edited by hand, damaged) is read as
in memory (``feed_ids.read``): the same errors, word for word, or its memory, imported whole.
"""

from __future__ import annotations

import pickle
import re
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import orjson

from generator.assemble import feed_ids
from generator.assemble.feed_ids import (FORMAT, MEMORY, Announcement, FeedIds, Memory, announcements, memory_of,
                                         news, read)
from generator.core.errors import SiteError
from generator.index.db import Index
from generator.index.lazy import one_record

_BATCH = 4096   # keys parsed at a time
_SEQ = re.compile(rb'"seq": (0|-?[1-9][0-9]*),\n')
_SITE = """
DROP TABLE IF EXISTS temp.feed_site;
CREATE TEMP TABLE feed_site(key TEXT PRIMARY KEY, v INTEGER NOT NULL, slug TEXT NOT NULL, pos INTEGER NOT NULL,
                            ord INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO temp.feed_site SELECT r.key, r.v, r.slug, r.pos, min(s.apos * 1048576 + r.pos)
    FROM records r JOIN temp.site s ON s.slug = r.slug GROUP BY r.key;
"""
# (feed_site: each key of the site, from its first record in site order: SQLite takes the bare
# columns of a min() from the row of the minimum)



class Table(Mapping[str, Any]):
    """One of the memory's tables read as a mapping (``feed_known``: key -> it had a venue;
    ``feed_ids``: key -> its entry id), its items in key order (``sorted_items``: feed_ids.chunks)."""

    def __init__(self, index: Index, table: str, column: str, cast: Callable[[Any], Any]) -> None:
        self.index, self.table, self.column, self.cast = index, table, column, cast

    def __getitem__(self, key: str) -> Any:  # noqa: ANN401
        row = self.index.db.execute(f"SELECT {self.column} FROM {self.table} WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return self.cast(row[0])

    def __contains__(self, key: object) -> bool:
        return self.index.db.execute(f"SELECT 1 FROM {self.table} WHERE key = ?", (key,)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        return (k for (k,) in self.index.db.execute(f"SELECT key FROM {self.table} ORDER BY key"))

    def __len__(self) -> int:
        return self.index.db.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0]

    def sorted_items(self) -> Iterator[tuple[str, Any]]:
        cast = self.cast
        return ((k, cast(v)) for k, v in self.index.db.execute(
            f"SELECT key, {self.column} FROM {self.table} ORDER BY key"))


class _SiteKeys:
    """The site's record keys (``temp.feed_site``), asked one at a time."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __contains__(self, key: object) -> bool:
        return self.db.execute("SELECT 1 FROM temp.feed_site WHERE key = ?", (key,)).fetchone() is not None


def resolve(index: Index, root: Path) -> FeedIds:
    """``feed_ids.resolve(feed_ids.read(root), authors)`` for the site's authors as ``index.site``
    has them (their records' rows written): the same ids, announcements and memory."""
    seq, announced = load(index, root)
    db = index.db
    db.executescript(_SITE)
    memory = Memory(seq, Table(index, "feed_known", "had", bool), Table(index, "feed_ids", "id", str), announced)
    moved, added, fresh = news(_todo(index), memory, _SiteKeys(db))
    now = announcements(memory, moved, fresh)
    if now == announced and not _differs(db):   # (the usual rebuild: the memory as it was)
        return FeedIds(_site_ids(db), announced)
    _apply(db, moved, added)
    return FeedIds(_site_ids(db), now, Memory(seq + 1 if fresh else seq, memory.known, memory.ids, now))


def _todo(index: Index) -> Iterator[tuple[str, Any, bool | None]]:
    """``feed_ids.news``'s records: each new key and each known one just published, in site order,
    with its first record (loaded now) and whether it had a venue (None: new). None without a memory."""
    db = index.db
    if db.execute("SELECT 1 FROM feed_known LIMIT 1").fetchone() is None:
        return
    rows = db.execute("SELECT f.key, f.slug, f.pos, k.had FROM temp.feed_site f LEFT JOIN feed_known k ON k.key = f.key "
                      "WHERE k.key IS NULL OR (f.v AND NOT k.had) ORDER BY f.ord")
    for key, slug, pos, had in rows:
        yield key, one_record(index, slug, pos), None if had is None else bool(had)


def _differs(db: sqlite3.Connection) -> bool:
    """Whether the memory changes besides its announcements: a new key, one whose venue came or
    went, or an id of a key never known (``feed_ids._resolve`` drops it)."""
    return bool(db.execute(
        "SELECT EXISTS(SELECT 1 FROM temp.feed_site f LEFT JOIN feed_known k ON k.key = f.key "
        "WHERE k.key IS NULL OR k.had != f.v) "
        "OR EXISTS(SELECT 1 FROM feed_ids i WHERE NOT EXISTS (SELECT 1 FROM feed_known k WHERE k.key = i.key))"
    ).fetchone()[0])


def _apply(db: sqlite3.Connection, moved: Mapping[str, str], added: Mapping[str, str]) -> None:
    """The tables made the memory ``feed_ids._resolve`` makes: the site's keys with their venues,
    the keys gone kept unless their record moved to a new key, whose id it took (``added``)."""
    db.execute("DELETE FROM meta WHERE name = 'feeds'")   # (no longer the file's: until it is written)
    db.execute("DELETE FROM feed_ids WHERE key NOT IN (SELECT key FROM feed_known)")
    db.executemany("DELETE FROM feed_known WHERE key = ?", ((k,) for k in moved))
    db.executemany("DELETE FROM feed_ids WHERE key = ?", ((k,) for k in moved))
    db.execute("INSERT OR REPLACE INTO feed_known SELECT key, v FROM temp.feed_site")
    db.executemany("INSERT OR REPLACE INTO feed_ids VALUES (?, ?)", added.items())
    db.commit()


def _site_ids(db: sqlite3.Connection) -> dict[str, str]:
    """The ids of the site's records that are not their default (few: those whose key changed)."""
    return dict(db.execute("SELECT i.key, i.id FROM feed_ids i JOIN temp.feed_site f ON f.key = i.key ORDER BY i.key"))


def written(memory: Memory, digest: bytes | None) -> None:
    """The file holds ``memory`` now, its bytes' digest ``digest`` (feed_ids.save): when the memory
    is the index's tables, the next build takes them without reading the file."""
    known = memory.known
    if isinstance(known, Table) and digest is not None:
        _hold(known.index.db, digest, memory.seq, memory.announced)
        known.index.db.commit()


def load(index: Index, root: Path) -> tuple[int, tuple[Announcement, ...]]:
    """The memory of the site at ``root`` in the index's tables, imported when the file's bytes are
    not the ones they hold: (its count, its announcements)."""
    path = root / MEMORY
    try:
        digest: bytes | None = feed_ids.file_digest(path)
    except FileNotFoundError:
        digest = None
    except OSError:
        read(root)   # (its error, as in memory)
        raise
    db = index.db
    held = _held(db)
    if held is not None and digest is not None and held[0] == digest:
        return held[1], held[2]
    db.execute("DELETE FROM meta WHERE name = 'feeds'")
    _clear(db)
    seq, announced = (0, ()) if digest is None else _import(db, path, root)
    if digest is not None:
        _hold(db, digest, seq, announced)
    db.commit()
    return seq, announced


def _hold(db: sqlite3.Connection, digest: bytes, seq: int, announced: tuple[Announcement, ...]) -> None:
    """The tables hold the memory of the file whose bytes' digest is ``digest`` (read by ``_held``)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES ('feeds', ?)",
               (pickle.dumps((digest, seq, announced), protocol=pickle.HIGHEST_PROTOCOL),))


def _clear(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM feed_known")
    db.execute("DELETE FROM feed_ids")


def _held(db: sqlite3.Connection) -> tuple[bytes, int, tuple[Announcement, ...]] | None:
    row = db.execute("SELECT value FROM meta WHERE name = 'feeds'").fetchone()
    try:
        held = pickle.loads(row[0]) if row is not None else None
    except Exception:   # noqa: BLE001   (damaged: imported anew)
        return None
    return held if isinstance(held, tuple) and len(held) == 3 else None


def _import(db: sqlite3.Connection, path: Path, root: Path) -> tuple[int, tuple[Announcement, ...]]:
    """The file's memory into the tables, a batch of keys at a time; as ``feed_ids.read`` reads it
    (whole) when it is not laid out as ``feed_ids.chunks`` writes it. The tables are empty."""
    try:
        got = _stream(db, path)
    except (ValueError, SiteError, StopIteration):
        got = None
    if got is not None:
        return got
    _clear(db)
    memory = read(root)    # (its errors, word for word)
    db.executemany("INSERT INTO feed_known VALUES (?, ?)", ((k, int(v)) for k, v in memory.known.items()))
    db.executemany("INSERT INTO feed_ids VALUES (?, ?)", memory.ids.items())
    return memory.seq, memory.announced


def _stream(db: sqlite3.Connection, path: Path) -> tuple[int, tuple[Announcement, ...]] | None:
    """The file laid out as ``feed_ids.chunks`` writes it, into the tables; None when it is not."""
    with open(path, "rb") as f:
        lines = iter(f)
        if next(lines, b"") != b"{\n" or next(lines, b"") != b'"format": %d,\n' % FORMAT:
            return None
        seq = _SEQ.fullmatch(next(lines, b""))
        if seq is None or not _section(db, lines, b'"known"', "feed_known", bool) \
                or not _section(db, lines, b'"ids"', "feed_ids", str):
            return None
        tail = orjson.loads(b"{" + b"".join(lines))
    if not isinstance(tail, dict) or list(tail) != ["announced"]:
        return None
    memory = memory_of({"format": FORMAT, "seq": int(seq[1]), "known": {}, "ids": {}, "announced": tail["announced"]})
    return memory.seq, memory.announced


def _section(db: sqlite3.Connection, lines: Iterator[bytes], name: bytes, table: str, kind: type) -> bool:
    """One of the file's objects (``name``: its key), a line an entry, into ``table``; whether it was one."""
    head = next(lines, b"")
    if head == name + b": {},\n":
        return True
    if head != name + b": {\n":
        return False
    batch: list[bytes] = []
    for line in lines:
        if line == b"},\n":
            return _put(db, table, batch, kind, last=True)
        batch.append(line)
        if len(batch) > _BATCH:   # (the last line kept back: it may be the object's last)
            if not _put(db, table, batch[:-1], kind, last=False):
                return False
            batch = batch[-1:]
    return False


def _put(db: sqlite3.Connection, table: str, lines: Iterable[bytes], kind: type, last: bool) -> bool:
    body = b"".join(lines).rstrip(b"\n")
    if body.endswith(b",") == last:   # (a comma after each entry but the object's last)
        return False
    data = orjson.loads(b"{" + (body if last else body[:-1]) + b"}")
    if not isinstance(data, dict) or not all(type(v) is kind for v in data.values()):
        return False
    db.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?, ?)", data.items())
    return True
