"""Feed entry ids that never change once published, and new versions announced (issue 31 point 4).

An Atom reader knows an entry by its id. A record's id is its arXiv abstract URL, else a tag made
of its key (``tag:authorsite,2024:doi/...``); but a key changes when a merge joins the record with
another (a record typed in, keyed by its title, is later fetched from arXiv: the work is keyed by
its arXiv id from then on), and readers would see the same paper as new again. And when a
preprint's published version arrives (a merge adds a venue), no entry says so.

So the build keeps a memory of what its feeds published, ``content/cache/feed-ids.json``, next
to the fetched records and committed with them (``.authorsite/`` is safe to delete; this is not:
deleting it loses no page, but an id that changed since would change back). It holds every
record key the site has listed, whether it had a venue, the entry id of each whose id is not the
one its key gives, and the announcements made. ``resolve`` (pure) reads it with the site's
records: a known key keeps its id; a new key takes the id of the known key it grew from (its
arXiv id, its DOI, its title and year as a typed-in record's key spells them) when no record of
the site holds that key any more; a known record without a venue that has one now is announced
once, "Published in VENUE (YEAR)", with an id of its own (its entry id + ``#published``). The
feeds show the announcements of their records, newest first (author feeds and the site feed).

A build over the index (20,000 authors x 100 records: 2 million keys) resolves the same answer
without holding the memory or the site's records (generator.index.feeds: the memory in the
index's tables, ``news`` for the few new keys, the file written streamed by ``chunks``).

The memory is written only after a build's output is swapped in (``build``), atomically and only
when it changed: a failed build never loses it nor records an id it did not publish. The output
is a function of the inputs, this file included: a build with the same files writes the same
bytes (the first build of a site, with no memory yet, announces nothing).
"""

from __future__ import annotations

import hashlib
import json
import os
from itertools import chain, compress, islice
from operator import attrgetter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Container, Iterable, Iterator, Mapping

import orjson

from generator.core import ids
from generator.core.errors import SiteError
from generator.core.model import Author, Record, title_digest
from generator.core.paths import FEED_MEMORY

MEMORY = FEED_MEMORY
FORMAT = 1
KEPT_ANNOUNCEMENTS = 1000   # the newest announcements kept (a feed shows at most feed_size of them)


@dataclass(frozen=True, slots=True)
class Announcement:
    """ "Published in VENUE (YEAR)": one feed entry, with an id of its own, for the record ``key``."""

    id: str
    key: str
    venue: str
    year: int | None
    seq: int          # the memory's count when it was made: a higher one is newer
    updated: str      # the entry's date: the record's last, but not before 1 January of the venue's year


@dataclass(frozen=True, slots=True)
class Memory:
    seq: int = 0
    known: Mapping[str, bool] = field(default_factory=dict)   # record key -> it had a venue
    ids: Mapping[str, str] = field(default_factory=dict)      # record key -> its entry id, when not default_id
    announced: tuple[Announcement, ...] = ()                  # newest first


@dataclass(frozen=True, slots=True)
class FeedIds:
    """What the feeds read: each record's entry id where it is not its default, the
    announcements (newest first), and the memory the next build starts from when it is not the
    one this build read (so it is written). None when it is: the one read is then let go, not
    held through the build (9 MB at 1,000 x 100, in each render process too)."""

    ids: Mapping[str, str]
    announced: tuple[Announcement, ...]
    memory: Memory | None = None

    @property
    def changed(self) -> bool:
        return self.memory is not None

    def announcements(self, keys: Iterable[str], limit: int) -> tuple[Announcement, ...]:
        """The newest ``limit`` announcements of the records ``keys``."""
        wanted = set(keys)
        return tuple([a for a in self.announced if a.key in wanted][:limit])


def default_id(key: str) -> str:
    """The entry id a record keyed ``key`` has unless the memory says otherwise (the theme's
    partials/feed_entry.xml spells the same)."""
    if key.startswith("arxiv:"):
        return ids.abs_url(key[6:])
    return "tag:authorsite,2024:" + key.replace(":", "/")


def resolve(memory: Memory, authors: Iterable[Author]) -> FeedIds:
    """The entry ids and announcements of the site's records, given the last build's memory."""
    authors = tuple(authors)
    return _unchanged(memory, authors) or _resolve(memory, authors)


def _unchanged(memory: Memory, authors: tuple[Author, ...]) -> FeedIds | None:
    """The usual rebuild's answer, when every record's key is known with the venue it had (no new
    key, none just published, none unpublished) and the memory is already as ``_resolve`` would
    leave it: then ``_resolve`` gives the memory back unchanged. Every pass here runs in C
    (20 ms at 1,000 x 100, against 0.15 s for ``_resolve``); None otherwise."""
    # The first record of a key decides its venue, as in _resolve: reversed, so the first is the last written.
    records = chain.from_iterable(map(reversed, map(attrgetter("records"), reversed(authors))))
    venues = dict(map(attrgetter("key", "venue"), records))    # key -> its venue, "" or None when none
    if not venues.keys() <= memory.known.keys() or len(memory.announced) > KEPT_ANNOUNCEMENTS:
        return None
    had = set(compress(memory.known, memory.known.values()))   # the known keys that had a venue
    if set(compress(venues, venues.values())) != had.intersection(venues):
        return None     # a record published, or unpublished, since
    if not memory.ids.keys() <= memory.known.keys():
        return None     # (an id of a key never known: _resolve drops it)
    return FeedIds({k: v for k, v in memory.ids.items() if k in venues}, memory.announced)


def _resolve(memory: Memory, authors: tuple[Author, ...]) -> FeedIds:
    records: dict[str, Record] = {}
    for a in authors:
        for r in a.records:
            records.setdefault(r.key, r)
    known = {key: bool(r.venue) for key, r in records.items()}
    was, own = memory.known, memory.ids
    kept_ids = {key: ids for key, ids in own.items() if key in known and key in was}   # a known key keeps its id
    # Only a new key, or a known one just published, has more to do: in site order, so which new
    # record takes a known key is deterministic (the usual rebuild has none of them).
    todo = [(key, records[key], was.get(key)) for key, venue in known.items()
            if key not in was or (venue and not was[key])] if was else []   # (no memory: nothing grew)
    moved, added, fresh = news(todo, memory, records)
    kept_ids.update(added)
    for key, had in memory.known.items():     # records gone (for now) stay known, with their ids
        if key not in known and key not in moved:
            known[key] = had
            if key in memory.ids:
                kept_ids[key] = memory.ids[key]
    announced = announcements(memory, moved, fresh)
    new = Memory(memory.seq + 1 if fresh else memory.seq, known, kept_ids, announced)
    return FeedIds({k: v for k, v in kept_ids.items() if k in records}, announced, new if new != memory else None)


def news(todo: Iterable[tuple[str, Record, bool | None]], memory: Memory,
         records: Container[str]) -> tuple[dict[str, str], dict[str, str], list[Announcement]]:
    """What the new keys and those just published make, given each (key, its first record, whether
    it had a venue when known: None when new) in site order and the site's keys (``records``):
    (a known key -> the new key of its record, a new key -> the id it keeps when not its default,
    the announcements made). Both ways of resolving run it (generator.index.feeds: over the index)."""
    own, seq = memory.ids, memory.seq + 1
    moved: dict[str, str] = {}
    added: dict[str, str] = {}
    fresh: list[Announcement] = []
    done = {a.id for a in memory.announced}
    for key, r, had in todo:
        if had is not None:           # published since the last build: announced once
            if (entry := own.get(key) or default_id(key)) + "#published" not in done:
                fresh.append(Announcement(entry + "#published", key, r.venue, r.year, seq, _updated(r)))
            continue
        old = _grew_from(r, memory.known, records, moved)
        if old is None:
            continue                  # a new record: its own id, nothing to announce
        moved[old] = key
        entry = own.get(old) or default_id(old)
        if entry != default_id(key):
            added[key] = entry
        if r.venue and not memory.known[old] and entry + "#published" not in done:
            fresh.append(Announcement(entry + "#published", key, r.venue, r.year, seq, _updated(r)))
    return moved, added, fresh


def announcements(memory: Memory, moved: Mapping[str, str], fresh: list[Announcement]) -> tuple[Announcement, ...]:
    """The announcements kept: the new ones (by id), then the memory's, their keys moved, newest first."""
    old_ones = tuple(Announcement(a.id, moved.get(a.key, a.key), a.venue, a.year, a.seq, a.updated)
                     for a in memory.announced)
    return (*sorted(fresh, key=lambda a: a.id), *old_ones)[:KEPT_ANNOUNCEMENTS]


def _updated(r: Record) -> str:
    """An announcement's date, from the record alone (never the clock: the output is a function of
    the inputs): its last update, but not before 1 January of the year it was published."""
    last = r.updated or r.published or f"{r.year or 1970}-01-01T00:00:00Z"
    return max(last, f"{r.year}-01-01T00:00:00Z") if r.year else last


def _grew_from(r: Record, known: Container[str], records: Container[str], moved: Mapping[str, str]) -> str | None:
    """The known key this new record was known by before a merge joined it with another: its arXiv
    id, its DOI, or its title and year (a typed-in record's key), when no record holds it now
    (``known``: the memory's keys; ``records``: the site's; generator.index.feeds asks its tables)."""
    names = []
    if r.arxiv_id:
        names.append(f"arxiv:{r.arxiv_id}")
    if r.doi:
        names.append(f"doi:{r.doi.lower()}")
    years = dict.fromkeys([r.year, int(r.published[:4]) if r.published and r.published[:4].isdigit() else None])
    names += [f"title:{title_digest(r.title, y)}" for y in years]
    return next((n for n in names if n in known and n not in records and n not in moved), None)


def read(root: Path) -> Memory:
    """The memory of the site at ``root``; an empty one when there is none yet."""
    path = root / MEMORY
    try:
        data = orjson.loads(path.read_bytes())   # (json's takes 55 ms for 81,000 keys, orjson's 23)
    except FileNotFoundError:
        return Memory()
    except (OSError, ValueError) as exc:
        raise SiteError(f"cannot read the feeds' memory: {exc}", path=str(MEMORY),
                        hint="restore it from git (git checkout -- content/cache/feed-ids.json); "
                             "deleting it makes the next build start a new one") from exc
    return memory_of(data)


def from_bytes(data: bytes) -> Memory:
    """The memory ``to_bytes`` wrote (a shard carries it to the merge: generator.write.shard)."""
    return memory_of(orjson.loads(data))


def memory_of(data: Any) -> Memory:  # noqa: ANN401
    """The memory the file's parsed JSON ``data`` holds; SiteError when it is damaged."""
    try:
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
        announced = tuple(Announcement(str(a["id"]), str(a["key"]), str(a["venue"]),
                                       None if a["year"] is None else int(a["year"]), int(a["seq"]), str(a["updated"]))
                          for a in data["announced"])
        known, own = data["known"], data["ids"]   # (JSON's keys are texts; the values are checked in C)
        if not (isinstance(known, dict) and set(map(type, known.values())) <= {bool}):
            raise ValueError("'known' must map record keys to true or false")
        if not (isinstance(own, dict) and set(map(type, own.values())) <= {str}):
            raise ValueError("'ids' must map record keys to entry ids")
        return Memory(int(data["seq"]), known, own, announced)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise SiteError(f"the feeds' memory is damaged ({exc})", path=str(MEMORY),
                        hint="restore it from git (git checkout -- content/cache/feed-ids.json)") from exc


def to_bytes(memory: Memory) -> bytes:
    """The file's bytes: sorted, one record a line, so a new paper is a readable diff."""
    return b"".join(chunks(memory))


def chunks(memory: Memory) -> Iterator[bytes]:
    """``to_bytes``, a few thousand keys at a time: what ``json.dumps(..., indent=0)`` makes of the
    memory with its keys sorted. A memory whose ``known`` and ``ids`` have ``sorted_items`` (the
    index's tables: generator.index.feeds) gives them in order, and is never held whole."""
    yield f'{{\n"format": {FORMAT},\n"seq": {json.dumps(memory.seq)},\n"known": '.encode()
    yield from _object(memory.known)
    yield b',\n"ids": '
    yield from _object(memory.ids)
    announced = [{"id": a.id, "key": a.key, "venue": a.venue, "year": a.year, "seq": a.seq, "updated": a.updated}
                 for a in memory.announced]
    yield b',\n"announced": ' + json.dumps(announced, ensure_ascii=False, indent=0).encode("utf-8") + b"\n}\n"


_BATCH = 4096


def _object(values: Mapping[str, Any]) -> Iterator[bytes]:
    """A JSON object of ``values``, keys sorted, as ``json.dumps(indent=0)`` spells it: each batch of
    keys dumped by json's C encoder, without its braces."""
    given = getattr(values, "sorted_items", None)
    items = iter(given() if given is not None else sorted(values.items()))
    first = True
    while batch := list(islice(items, _BATCH)):
        text = json.dumps(dict(batch), ensure_ascii=False, indent=0)[2:-2]   # (its "{\n" and "\n}" off)
        yield (b"{\n" if first else b",\n") + text.encode("utf-8")
        first = False
    yield b"{}" if first else b"\n}"


def write(root: Path, memory: Memory) -> bool:
    """Write the memory when it changed (atomically: a temporary file renamed over it); whether it did."""
    return save(root, memory)[0]


def save(root: Path, memory: Memory) -> tuple[bool, bytes | None]:
    """``write``, and the digest (sha256) of the memory's bytes, which the file holds from then on
    (None when there is no file: a site with no record yet). Streamed: the bytes are never held whole."""
    path = root / MEMORY
    try:
        was = file_digest(path)
    except FileNotFoundError:
        was = None
        if not memory.known:
            return False, None     # a site with no record yet: no file
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    h = hashlib.sha256()
    with open(tmp, "wb") as f:
        for chunk in chunks(memory):
            h.update(chunk)
            f.write(chunk)
    if h.digest() == was:
        tmp.unlink()
        return False, was
    os.replace(tmp, path)
    return True, h.digest()


def file_digest(path: Path) -> bytes:
    """The SHA-256 of the file at ``path``, read a block at a time (the memory's file is tens of MB
    at 20,000 authors)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").digest()
