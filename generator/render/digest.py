"""The canonical digest of what a job reads (``Digester``), memoized per object.

A job's digest (generator.render.jobs) is made of the bytes ``Digester`` encodes of its reads:
equal values give equal bytes, different values different ones, whatever object holds them.
Records, the bulk of what jobs read, are digested once each, by their fields and who lists
them; a rebuild takes the last build's digests of the authors that did not change
(generator.incremental.snapshot, ``keep``), and the preview keeps one digester from one plan to
the next (``renew``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import marshal
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from generator.core.model import Record
from generator.index.db import KEPT
from generator.index.lazy import AuthorRecords, Lazy, Pairs, author_digests
from generator.incremental.canonical import plain_seq as _plain_seq, same as _same
from generator.incremental.inputs import code_digest

if TYPE_CHECKING:
    from generator.core.model import SiteModel
    from generator.index.db import Index

_KEY = attrgetter("key")
ENCODING, SEARCHED = range(len(KEPT))   # what ``Digester.kept`` keeps of an author


class Digester:
    """The canonical digest of plain values. Records (the bulk of what jobs read, each read by
    several jobs) get a dedicated encoder, memoized per object: every field, and which profiled
    authors list it (``site.record_authors``). One per planning pass in a build; the preview
    keeps one across its plans (``renew``), so an edit digests only the values it made anew."""

    # Every field of a Record but title, abstract and authors, which are digested apart (see
    # record). Taken from the class, so a field added to Record is digested without a word here.
    _SMALL_FIELDS = tuple(f.name for f in dataclasses.fields(Record) if f.name not in ("title", "abstract", "authors"))

    def __init__(self, site: SiteModel | None = None) -> None:
        self._listed: Mapping[str, tuple[str, ...]] = site.record_authors if site is not None else {}
        self._generation = 0
        # Keyed by id(): values hashed by content would cost what the memo saves. Each entry
        # holds its object, so no id is reused while the entry lasts.
        self._records: dict[int, tuple[Record, int, bytes, tuple[str, ...]]] = {}  # (r, generation, digest, listed)
        self._contents: dict[int, tuple[Record, bytes]] = {}   # r -> the digest of its fields
        self._current: dict[int, bytes] = {}   # id(r) -> its digest in this generation (r in _records or _joined)
        self._memo: dict[int, tuple[object, bytes]] = {}    # other dataclasses (which may hold records)
        self._people: dict[int, tuple[object, str]] = {}    # Person -> its canonical text
        self._seqs: dict[tuple[int, ...], bytes] = {}       # ids of a sequence of records -> its encoding
        self._joined: dict[int, tuple[Sequence[Record], bytes]] = {}   # an author's records -> their digests (keep)
        self._unspread: dict[int, Sequence[Record]] = {}   # records kept (``keep``), their digests not in _current yet
        self._authors: tuple[Any, ...] = site.authors if site is not None else ()
        self._owners: tuple[object, Mapping[str, Sequence[Record]]] = (None, {})   # (authors, slug -> records)
        self._reads: dict[str, tuple[int, tuple[Any, ...], bytes]] = {}   # path -> (generation, reads, digest)
        self._small = attrgetter(*self._SMALL_FIELDS)
        self._listed_digest: tuple[object, bytes] = (None, b"")   # (the map digested, its digest): listed
        self._index_joined: dict[tuple[int, str], bytes] = {}   # (generation, slug) -> _indexed
        # (the site's authors, {id: (slug, index)} of those over an index, {slug: [digests]} it keeps): kept
        self._over: tuple[object, dict[int, tuple[str, Index]], dict[str, list[bytes | None]]] = (None, {}, {})

    def renew(self, site: SiteModel) -> None:
        """Ready for planning ``site``, keeping what still holds: a record's digest while the
        authors listing it are the same; other values' only while no listing changed (an
        author's digest holds its records'). Memos far larger than the site are dropped."""
        live = sum(len(a.records) for a in site.authors)
        if len(self._records) > 2 * live + 1000:
            self._reads.clear()
            self._records.clear()
            self._current.clear()
            self._contents.clear()
            self._people.clear()
            self._seqs.clear()
            self._joined.clear()
            self._unspread.clear()
        self._authors = site.authors
        if site.record_authors is not self._listed:
            self._listed = site.record_authors
            self._generation += 1
            self._current.clear()
            self._memo.clear()
            self._seqs.clear()
            self._joined.clear()
            self._unspread.clear()

    def digest(self, value: object) -> bytes:
        return hashlib.sha256(self._encode(value)).digest()[:16]

    def reads(self, path: str, reads: tuple[Any, ...]) -> bytes:
        """The digest of what the job making ``path`` reads. The preview plans every job after each
        edit: while no listing changed, a job whose reads are the very objects of its last plan
        (or equal plain values: a pager) has the digest it had, found without encoding them."""
        last = self._reads.get(path)
        if last is not None and last[0] == self._generation and _same(last[1], reads):
            return last[2]
        d = self.digest(reads)
        self._reads[path] = (self._generation, reads, d)
        return d

    def record(self, r: Record) -> bytes:
        """A record's digest: its content digest (``content``) and which profiled authors list it."""
        d = self._current.get(id(r))   # made or kept (``keep``) in this generation
        if d is not None:
            return d
        e = self._records.get(id(r))
        if e is not None:
            if e[1] == self._generation:
                return e[2]
            listed = self._listed.get(r.key, ())
            if listed == e[3]:
                self._records[id(r)] = (r, self._generation, e[2], listed)
                self._current[id(r)] = e[2]
                return e[2]
        if self._unspread and id(r) not in self._contents:   # (a record ``keep`` took, maybe)
            d = self._kept(r)
            if d is not None:
                return d
        listed = self._listed.get(r.key, ())
        d = hashlib.sha256(self.content(r) + marshal.dumps(listed, 2)).digest()[:16]
        self._records[id(r)] = (r, self._generation, d, listed)
        self._current[id(r)] = d
        return d

    def content(self, r: Record) -> bytes:
        """The digest of every field of a record. The bytes digested are marshal's (version 2: no
        back-references, so equal values give equal bytes), made in C in one call: 81,000 records
        are digested on a full build of a large site. People are shared between records, so their
        text is made once. Kept with each assembled author (generator.incremental.snapshot, ``seed``): a
        rebuild digests only the records of the authors whose inputs changed."""
        e = self._contents.get(id(r))
        if e is not None:
            return e[1]
        people = self._people
        try:
            text = "".join([people[id(p)][1] for p in r.authors])
        except KeyError:
            for p in r.authors:
                if id(p) not in people:
                    people[id(p)] = (p, repr((p.name, p.affiliations)))
            text = "".join([people[id(p)][1] for p in r.authors])
        d = hashlib.sha256(marshal.dumps((self._small(r), text, r.title, r.abstract), 2)).digest()[:16]
        self._contents[id(r)] = (r, d)
        return d

    def seed(self, records: Sequence[Record], contents: Sequence[bytes]) -> None:
        """Take the content digests of ``records`` made before (``content``, by an earlier build)."""
        for r, d in zip(records, contents, strict=True):
            self._contents[id(r)] = (r, d)

    def joined(self, records: Sequence[Record]) -> bytes:
        """The digest of each of ``records`` (``record``), joined: as ``keep`` took them for that
        very sequence, else found record by record."""
        if isinstance(records, Lazy):   # records in the index: their digests kept there, none loaded
            return records.joined(self._indexed)
        e = self._joined.get(id(records))
        if e is not None and e[0] is records:
            return e[1]
        parts = list(map(self._current.get, map(id, records)))
        if not all(parts):
            parts = [p or self.record(r) for p, r in zip(parts, records)]   # (record spreads what was kept)
        return b"".join(parts)   # type: ignore[arg-type]

    def listing(self, records: Sequence[Record]) -> bytes:
        """The digest of which profiled authors list each of ``records``: with the records' contents,
        all that their digests are made of (``record``)."""
        listed = tuple(map(self._listed.get, map(_KEY, records), repeat(())))   # in C: 100,000 a rebuild
        return hashlib.sha256(marshal.dumps(listed, 2)).digest()

    def listed(self) -> bytes:
        """The digest of who lists every record of the site (``site.record_authors``, in its
        order): while it is the last build's, so is each author's ``listing`` (11 ms at 1,000 x
        100, against 60 ms for every author's)."""
        if self._listed_digest[0] is not self._listed:
            try:
                d = hashlib.sha256(marshal.dumps(self._listed, 2)).digest()
            except ValueError:   # (not plain data: never equal to a digest kept)
                d = b""
            self._listed_digest = (self._listed, d)
        return self._listed_digest[1]

    def known(self, value: object, records: Sequence[Record]) -> tuple[bytes, bytes] | None:
        """(the digests of ``records`` joined, the encoding of the dataclass ``value``) as made by
        this generation, or None: what ``keep`` takes back in the next build."""
        e = self._memo.get(id(value))
        if e is None:
            return None
        kept = self._joined.get(id(records))
        if kept is not None and kept[0] is records:
            return kept[1], e[1]
        parts = list(map(self._current.get, map(id, records)))
        if None in parts:
            return None
        return b"".join(parts), e[1]   # type: ignore[arg-type]

    def keep(self, value: object, records: Sequence[Record], known: tuple[bytes, bytes]) -> None:
        """Take ``known`` (``known`` of a value equal to ``value`` in an earlier build, made when
        its records had the same contents and listings): ``value``'s and its records' digests."""
        joined, encoding = known
        if len(joined) != 16 * len(records):
            return
        # ``_joined`` holds the records, so no id of theirs is reused while their digests are
        # here; they hold for this generation only (cleared when a listing changes).
        self._memo[id(value)] = (value, encoding)
        self._joined[id(records)] = (records, joined)
        self._unspread[id(records)] = records

    def part(self, records: Sequence[Record], whole: Sequence[Record]) -> None:
        """Take the digests of ``records``, some of ``whole`` (the same objects, in its order), from
        ``whole``'s as ``keep`` took them: a plan that reads a part of an author's records (the
        search index, those indexed under the author) spreads none of them (``_kept``)."""
        e = self._joined.get(id(whole))
        if e is None or e[0] is not whole:
            return
        taken, i = [], 0
        for j, r in enumerate(whole):
            if i < len(records) and records[i] is r:
                taken.append(e[1][16 * j:16 * j + 16])
                i += 1
        if i == len(records):
            self._joined[id(records)] = (records, b"".join(taken))

    def _kept(self, r: Record) -> bytes | None:
        """The digest ``keep`` took for ``r``, if it took one. A rebuild keeps 100,000 records'
        digests at 1,000 x 100, joined per author; they are spread into ``_current``, an author's
        at a time (in C: no Python call per record), when a plan first reads one of its records
        apart from its author's (a subject's page, the site's feed): an author who lists ``r``
        (``site.record_authors``). Spreading all of them would hold 14 MB for a feed of 50."""
        if self._owners[0] is not self._authors:
            self._owners = (self._authors, {a.slug: a.records for a in self._authors})
        for slug in self._listed.get(r.key, ()):
            records = self._owners[1].get(slug)
            if records is not None and self._unspread.pop(id(records), None) is not None:
                joined = self._joined[id(records)][1]
                n = len(joined)
                slices = map(slice, range(0, n, 16), range(16, n + 16, 16))
                self._current.update(zip(map(id, records), map(joined.__getitem__, slices)))
        return self._current.get(id(r))

    def _encode(self, v: object) -> bytes:
        """Tagged bytes; equal values give equal bytes, different values different ones."""
        if v is None or isinstance(v, (bool, int, float)):
            return repr(v).encode()
        if isinstance(v, str):   # Markup too: a str subclass, digested as its text
            b = str.encode(v)
            return b"s%d:" % len(b) + b
        if isinstance(v, bytes):
            return b"b%d:" % len(v) + v
        if isinstance(v, (tuple, list)):
            return self._seq(v)
        if isinstance(v, Pairs):   # pairs from the index: as the tuple of them they stand for
            return self._seq(tuple(v))
        if isinstance(v, Lazy):   # records in the index (generator.index): their digests, none loaded
            return b"[R%d:" % len(v) + v.joined(self._indexed) + b"]" if v else self._seq(())
        if isinstance(v, Mapping):
            items = sorted((self._encode(k), self._encode(x)) for k, x in v.items())
            return b"{%d:" % len(items) + b"".join(k + b"=" + x + b";" for k, x in items) + b"}"
        if isinstance(v, Record):   # a hollow one too (generator.incremental.hollow)
            return b"R" + self.record(v)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return self._dataclass(v)
        raise TypeError(f"a job reads a {type(v).__name__}, which has no canonical digest: pass plain values")

    def _seq(self, v: Sequence[object]) -> bytes:
        if v:
            # The common case: a list of records. Memoized by the ids of its records (held by
            # self._records, so no id is reused): a plan slices the same records into new tuples
            # (a feed, a subject page, a shard), and the preview plans again after each edit.
            # Made in C: no Python call per record. Every item found in _current is a record held
            # by _records or _joined (a live object's id is no other live object's), so the type of each is
            # checked only when one is not found (a plan digests ~600,000 listed records).
            e = self._joined.get(id(v))   # an author's records, as kept
            if e is not None and e[0] is v:
                return b"[R%d:" % len(v) + e[1] + b"]"
            key = tuple(map(id, v))
            d = self._seqs.get(key)
            if d is not None:
                return d
            parts = list(map(self._current.get, key))   # each record's digest, when made already
            if None in parts and all(issubclass(t, Record) for t in set(map(type, v))):
                parts = [p or self.record(x) for p, x in zip(parts, v)]  # type: ignore[arg-type]   # (spreads kept ones)
            if None not in parts:
                d = self._seqs[key] = b"[R%d:" % len(v) + b"".join(parts) + b"]"   # type: ignore[arg-type]
                return d
        plain = _plain_seq(v)
        if plain is not None:
            return plain
        return b"[%d:" % len(v) + b"".join(self._encode(x) + b"," for x in v) + b"]"

    def _indexed(self, index: Index, slug: str) -> bytes:
        """The digests of the author ``slug``'s records in ``index``, joined (made once a generation)."""
        key = (self._generation, slug)
        d = self._index_joined.get(key)
        if d is None:
            d = self._index_joined[key] = author_digests(index, slug)
        return d

    def _dataclass(self, v: object) -> bytes:
        e = self._memo.get(id(v))
        if e is not None:
            return e[1]
        # (only an author of the site over the index may be kept: no call or partial for any other)
        kept = id(v) in self._indexed_authors()
        d = self.kept(v, ENCODING, functools.partial(self._fields, v)) if kept else self._fields(v)
        self._memo[id(v)] = (v, d)
        return d

    def _fields(self, v: object) -> bytes:
        names = [f.name for f in dataclasses.fields(v)]  # type: ignore[arg-type]
        body = b"".join(self._encode(getattr(v, n)) + b"," for n in names)
        return b"D" + type(v).__name__.encode() + b":" + hashlib.sha256(body).digest()[:16]

    def kept(self, author: object, what: int, make: Callable[[], bytes]) -> bytes:
        """``make()``, a digest that follows from ``author``'s rows in the index alone (``what``:
        ENCODING, its own; SEARCHED, its search documents' key, generator.write.search), as the
        index keeps it for one of the site's authors over it (``Index.authors_encoded``): such an
        author is made of its rows there alone (generator.index.site.Indexer), so the digest
        stands while they do, and a plan digests only the authors an edit touched (every
        author's took a one-author rebuild's plan 0.5 of 2.2 s at 5,000 x 100). Only the site's
        own objects: a value made of one (``dataclasses.replace``) is digested as any other."""
        found = self._indexed_authors().get(id(author))
        if found is None:
            return make()
        slug, index = found
        kept = self._over[2].setdefault(slug, [None, None])
        if kept[what] is None:
            kept[what] = make()
            index.keep_encoded(slug, code_digest(), what, kept[what])
        return kept[what]  # type: ignore[return-value]

    def _indexed_authors(self) -> dict[int, tuple[str, Index]]:
        """The site's authors over an index, by id (slug, index), with the digests it keeps of
        them (``Index.authors_encoded``) read once for these authors."""
        if self._over[0] is not self._authors:
            over = {id(a): (a.slug, a.records.index) for a in self._authors if type(a.records) is AuthorRecords}
            index = next(iter(over.values()))[1] if over else None
            self._over = (self._authors, over, index.authors_encoded(code_digest()) if index is not None else {})
        return self._over[1]
