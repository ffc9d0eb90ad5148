"""Records as the index holds them: sequences that load their records when read, never before.

In a build over the index (generator.index.flat) an author's ``records``, a subject's and each
page's slice of them are these sequences, not tuples: the plan, the jobs' digests and the render
processes forked after it hold a few numbers per sequence, and a job that shows records loads
them (an author's at once, a subject page's one by one) through a small cache of this process
(``_LOADED``), let go as the next ones come. Their digests (generator.render.digest) are read
from the index, never from loaded records: ``joined``.

Equal values, equal bytes: a sequence reads as the tuple of its records (iteration, ``len``,
indexing, slices, truth), so templates and exports make from it what they make from a tuple.
"""

from __future__ import annotations

import hashlib
import marshal
import pickle
from array import array
from collections import OrderedDict
from itertools import repeat
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, overload

from generator.assemble import matching
from generator.core.model import Record, entry_updated
from generator.incremental.values import record
from generator.index.db import Index, Row

_KEEP = 8          # authors' records kept loaded in a process
_KEEP_ONE = 4096   # records loaded one by one (a subject's pages) kept in a process
_LOADED: OrderedDict[tuple[str, str], tuple[Record, ...]] = OrderedDict()
_ONE: OrderedDict[tuple[str, str, int], Record] = OrderedDict()
_LISTING: dict[tuple[str, str], bytes] = {}   # the last subject's joined digests (its pages come in a row)
_KEEP_WHO = 16384   # records' listers kept in a process
_WHO: dict[tuple[str, str], tuple[str, ...]] = {}


def author_records(index: Index, slug: str) -> tuple[Record, ...]:
    """Every record of the author, made from the index (the last few authors' kept loaded)."""
    key = (index.name, slug)
    found = _LOADED.get(key)
    if found is None:
        found = _LOADED[key] = tuple(record(pickle.loads(b)) for b in index.records(slug))
        for k, who in index.listed_of(slug):
            _remember(index, k, tuple(who.split("\n")))
        if len(_LOADED) > _KEEP:
            _LOADED.popitem(last=False)
    else:
        _LOADED.move_to_end(key)
    return found


def one_record(index: Index, slug: str, pos: int, blob: bytes | None = None) -> Record:
    """One record of the author: from its loaded records when they are, else alone (``blob``:
    its pickled ``values_of``, when read already)."""
    whole = _LOADED.get((index.name, slug))
    if whole is not None:
        return whole[pos]
    key = (index.name, slug, pos)
    found = _ONE.get(key)
    if found is None:
        found = _ONE[key] = record(pickle.loads(blob if blob is not None else index.record(slug, pos)))
        if len(_ONE) > _KEEP_ONE:
            _ONE.popitem(last=False)
    else:
        _ONE.move_to_end(key)
    return found


def forget() -> None:
    """Let every loaded record go (a build is over)."""
    _LISTING.clear()
    _LOADED.clear()
    _COUNTS.clear()
    _ONE.clear()
    _WHO.clear()


class Lazy(Sequence[Record]):
    """A sequence of the index's records, loaded when read. ``rows``: (slug, pos) of each."""

    __slots__ = ("index",)
    index: Index

    def rows(self) -> Sequence[Row]:
        raise NotImplementedError

    def _load(self) -> tuple[Record, ...]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Record]:
        return iter(self._load())

    @overload
    def __getitem__(self, i: int) -> Record: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Record]: ...

    def __getitem__(self, i: int | slice) -> Record | Sequence[Record]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return self._load()[i]
            return self._slice(start, max(start, stop))
        return self._load()[i]

    def _slice(self, start: int, stop: int) -> Sequence[Record]:
        raise NotImplementedError

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lazy):
            return self.index is other.index and tuple(self.rows()) == tuple(other.rows())
        return isinstance(other, tuple) and self._load() == other

    def __hash__(self) -> int:
        return hash(tuple(self.rows()))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self)} records>"

    def column(self, what: str) -> list[Any]:
        """A column of the index's records (``key``, ``u``: db's schema), one value a record, none loaded."""
        return [getattr(r, what) if what == "key" else entry_updated(r) for r in self._load()]

    def newest_update(self, default: str) -> str:
        """The latest ``model.entry_updated`` of the records (a feed's date)."""
        return max(self.column("u"), default=default)

    def joined(self, digests: Callable[[Index, str], bytes]) -> bytes:
        """The digest of each record, joined (``digests``: an author's, joined, by index and slug,
        asked once for each run of rows of one author: those indexed under an author are all its
        own, 792,000 rows at 5,000 x 100)."""
        index, last, whole, out = self.index, None, b"", []
        for slug, pos in self.rows():
            if slug != last:
                whole, last = digests(index, slug), slug
            out.append(whole[16 * pos:16 * pos + 16])
        return b"".join(out)


class _Span(Lazy):
    """The records ``start`` to ``stop`` of a run the index keeps in order under ``name``."""

    __slots__ = ("name", "start", "stop")

    def __init__(self, index: Index, name: str, start: int, stop: int) -> None:
        self.index, self.name, self.start, self.stop = index, name, start, stop

    def __len__(self) -> int:
        return self.stop - self.start

    def _slice(self, start: int, stop: int) -> Sequence[Record]:
        return type(self)(self.index, self.name, self.start + start, self.start + stop)


class AuthorRecords(_Span):
    """The records ``start`` to ``stop`` of the author ``name`` (an author's ``records``, its feed's)."""

    __slots__ = ()

    def rows(self) -> Sequence[Row]:
        return [(self.name, pos) for pos in range(self.start, self.stop)]

    def _load(self) -> tuple[Record, ...]:
        whole = author_records(self.index, self.name)
        return whole if (self.start, self.stop) == (0, len(whole)) else whole[self.start:self.stop]

    def joined(self, digests: Callable[[Index, str], bytes]) -> bytes:
        return digests(self.index, self.name)[16 * self.start:16 * self.stop]

    def column(self, what: str) -> list[Any]:
        return self.index.span(what, self.name, self.start, self.stop)

    def newest_update(self, default: str) -> str:
        newest = self.index.newest(self.name, self.start, self.stop)   # (in SQL: a value, not a column)
        return default if newest is None else newest


class RowRecords(Lazy):
    """Records named by their rows (a subject's listing, a slice of it, those indexed under an author)."""

    __slots__ = ("_rows",)

    def __init__(self, index: Index, rows: Sequence[Row]) -> None:
        self.index, self._rows = index, rows

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self) -> Sequence[Row]:
        return self._rows

    def _load(self) -> tuple[Record, ...]:
        return tuple(one_record(self.index, slug, pos) for slug, pos in self._rows)

    def _slice(self, start: int, stop: int) -> Sequence[Record]:
        return RowRecords(self.index, self._rows[start:stop])


class Pairs(Sequence[tuple[Any, int]]):
    """Pairs from the index standing for the tuple of them: compared, hashed, shown and digested
    (generator.render.digest) as that tuple (``orders.Counts``, ``PartCounts``)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


class PartCounts(Pairs):
    """An author's subjects (code, count) or years (year, count) over the index (``field``), read
    from it when asked (``Index.counts``). Held, they were 1.4 KB an author in the
    build's process (28 MB at 20,000 x 100), counted again by each process it forks; the pages
    that read them (the author's, the home page's list) are rendered elsewhere."""

    __slots__ = ("index", "slug", "field")

    def __init__(self, index: Index, slug: str, field: str) -> None:
        self.index, self.slug, self.field = index, slug, field

    def _load(self) -> tuple[tuple[Any, int], ...]:
        return _counts(self.index, self.slug)[self.field == "years"]

    def __len__(self) -> int:
        return len(self._load())

    def __getitem__(self, i: Any) -> Any:  # noqa: ANN401   (a pair, or a tuple of them for a slice)
        return self._load()[i]

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        return iter(self._load())


_COUNTS: OrderedDict[tuple[str, str], tuple[Any, ...]] = OrderedDict()   # (index, slug) -> (subjects, years, matched)


def _counts(index: Index, slug: str) -> tuple[Any, ...]:
    """The author's (subjects, years, matched) from the index, the last 256 authors' kept."""
    key = (index.name, slug)
    found = _COUNTS.get(key)
    if found is None:
        found = _COUNTS[key] = index.counts(slug)
        if len(_COUNTS) > 256:
            _COUNTS.popitem(last=False)
    else:
        _COUNTS.move_to_end(key)
    return found


def matched(records: Sequence[Record]) -> dict[str, Any]:
    """``matching.summary`` of an author's records: over the index, as ``Indexer`` kept it with the
    author's counts, no record read (data.json read every record of the site for it: 16.7 s at
    5,000 x 100, in one task); made of the records otherwise, and for an index written before it
    kept them (its counts without it)."""
    if isinstance(records, AuthorRecords) and records.start == 0:
        n, summary = (_counts(records.index, records.name) + ((None, None),))[2]   # (an older row: none)
        if n == records.stop and isinstance(summary, dict):   # (the author's whole records, not a slice)
            return summary
    return matching.summary(records)


class AuthorRows(Sequence[Row]):
    """Rows of one author's records (``RowRecords`` of those indexed under it: index.site.indexed_rows),
    held as the positions only: 4 bytes a record, not a tuple of 64 (100 MB at 20,000 x 100)."""

    __slots__ = ("slug", "positions")

    def __init__(self, slug: str, positions: Iterable[int]) -> None:
        self.slug, self.positions = slug, array("I", positions)

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, i: Any) -> Any:   # (a row, or the rows of a slice)
        if isinstance(i, slice):
            return AuthorRows(self.slug, self.positions[i])
        return self.slug, self.positions[i]

    def __iter__(self) -> Iterator[Row]:
        return zip(repeat(self.slug), self.positions)


class SubjectRecords(_Span):
    """The records ``start`` to ``stop`` listed in the subject ``name`` (orders.derive)."""

    __slots__ = ()

    def rows(self) -> Sequence[Row]:
        return self.index.subject_rows(self.name, self.start, self.stop)

    def _load(self) -> tuple[Record, ...]:
        index = self.index
        return tuple(one_record(index, slug, pos, blob) for slug, pos, blob in
                     index.subject_blobs(self.name, self.start, self.stop))

    def column(self, what: str) -> list[Any]:
        return self.index.listed_span("r." + what, self.name, self.start, self.stop)

    def joined(self, digests: Callable[[Index, str], bytes]) -> bytes:
        return listing_digests(self.index, self.name, digests)[16 * self.start:16 * self.stop]


class Listed(Mapping[str, tuple[str, ...]]):
    """Who lists each record (``SiteModel.record_authors``), asked of the index key by key (an
    author's keys at once when its records are loaded: ``author_records``)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def __getitem__(self, key: str) -> tuple[str, ...]:
        found = _WHO.get((self.index.name, key))
        if found is None:
            found = self.index.listed(key)
            if not found:
                raise KeyError(key)
            _remember(self.index, key, found)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(key for key, _ in self.index.listings()))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _remember(index: Index, key: str, who: tuple[str, ...]) -> None:
    _WHO[(index.name, key)] = who
    if len(_WHO) > _KEEP_WHO:
        del _WHO[next(iter(_WHO))]


def keys_of(records: Sequence[Record]) -> list[str]:
    """The records' keys (asked of the index for its records, none loaded)."""
    return records.column("key") if isinstance(records, Lazy) else [r.key for r in records]


def subject_places(records: Sequence[Record]) -> list[tuple[str, int]]:
    """(code, place among ``records``) of each subject of each record, in the records' order
    (asked of the index for an author's records there, none loaded)."""
    if isinstance(records, AuthorRecords):
        return [(code, pos - records.start) for code, pos in
                records.index.subject_places(records.name, records.start, records.stop)]
    return [(code, j) for j, r in enumerate(records) for code in dict.fromkeys(r.subjects)]


def author_digests(index: Index, slug: str) -> bytes:
    """Each record's digest (generator.render.digest.Digester.record: its content digest and who
    lists it), joined, for the author ``slug``: from the index, no record loaded."""
    def make(rows: Iterator[tuple[bytes, str]]) -> bytes:
        return b"".join(hashlib.sha256(content + marshal.dumps(tuple(who.split("\n")), 2)).digest()[:16]
                        for content, who in rows)
    return index.joined(slug, make)


def listing_digests(index: Index, code: str, digests: Callable[[Index, str], bytes]) -> bytes:
    """Each record's digest (``digests``: an author's, joined) of the subject ``code``'s listing,
    joined: kept in the index (``Index.listing_joined``), so that a rebuild digests the pages of a
    subject no edit touched without reading its rows (at 5,000 x 100, 2,000,000 rows, 4.1 s), and
    the last subject's kept here while its pages are planned one after the other."""
    key = (index.name, code)
    found = _LISTING.get(key)
    if found is None:
        def make(rows: Iterator[Row]) -> bytes:
            return b"".join(digests(index, slug)[16 * pos:16 * pos + 16] for slug, pos in rows)
        _LISTING.clear()
        found = _LISTING[key] = index.listing_joined(code, make)
    return found
