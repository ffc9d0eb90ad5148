"""Records loaded hollow: the few fields a rebuild reads of every record, the rest on first use.

A rebuild of a large site keeps most authors as the last build assembled them
(generator.incremental.snapshot), and before it renders it reads only a few fields of their records: who
lists them (``key``), the subjects' and feeds' order (``year``, ``published``), the feeds' dates
(``updated``), the subjects (``subjects``), the venue pages (``venue``); their digests are kept.
Unpickling every field of 100,000 records at 1,000 x 100 was a third of a one-author rebuild,
for records that no job which runs shows. So a kept author's records are made with those fields
alone, as ``Hollow`` records (a subclass of ``Record`` with no slot of its own), and the first read
of any other field of one of them (a page that shows it, an equality, a pickle) loads that
author's records, kept pickled one by one, and sets every field of that record
(``Hollow.__getattr__``, called only for a slot not set). Then it is a plain ``Record``: its class
is set to ``Record``, with the same values and as the same object (so every digest, partial and
index keyed by the object still holds). ``model.Record`` has no hook, so a cold build, which
makes no hollow record, reads its slots by Python's fast path.

A build that runs many jobs on forked processes fills its hollow records first (``fill``), in
its own process, before it forks the processes that would each fill them again; once it is
over, it lets go of those never read (``forget``).
"""

from __future__ import annotations

import pickle
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any, Callable, Iterable, Sequence

from generator.incremental.values import COUNT, FIELDS as ALL_FIELDS, PEOPLE, set_fields
from generator.core.model import Record

FIELDS = ("key", "year", "published", "updated", "subjects", "venue")
row = attrgetter(*FIELDS)   # what ``hollow`` takes of each record
row_of = itemgetter(*(ALL_FIELDS.index(name) for name in FIELDS))   # the same of its values_of
VALUES = COUNT   # how many values_of a record has
_KEY, _YEAR, _PUBLISHED, _UPDATED, _SUBJECTS, _VENUE = (Record.__dict__[name].__set__ for name in FIELDS)
_NAMES = frozenset(ALL_FIELDS)

# id of each hollow record -> what fills it, given the record (which holds the author's records,
# so no id is reused while it is here).
_HOLLOW: dict[int, Callable[[Any], None]] = {}


class Hollow(Record):
    """A record of which only ``FIELDS`` are set. The first read of another field fills every
    field (``__getattr__`` is called only for a slot not set) and makes it a plain ``Record``
    (``__class__`` set: the same slots, so the same object, digests and indexes keyed by it
    still hold). ``model.Record`` itself has no hook: the cost of one (a class with
    ``__getattr__`` reads its slots by the generic path) is paid by hollow records alone."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:  # noqa: ANN401
        fill = _HOLLOW.get(id(self)) if name in _NAMES else None
        if fill is not None:
            fill(self)
        return object.__getattribute__(self, name)   # else the very AttributeError

    def __eq__(self, other: object) -> bool:
        """Equal as the record it is once filled (a plain ``Record`` is never equal to another class)."""
        fill = _HOLLOW.get(id(self))
        if fill is None:
            return NotImplemented
        fill(self)
        return self == other

    __hash__ = Record.__hash__

    def __reduce_ex__(self, protocol: Any) -> Any:  # noqa: ANN401
        fill = _HOLLOW.get(id(self))
        if fill is not None:
            fill(self)
        return object.__reduce_ex__(self, protocol)


def hollow(rows: Sequence[tuple[Any, ...]], load: Callable[[], Sequence[tuple[Any, ...] | bytes]]) -> tuple[Record, ...]:
    """Records with only ``FIELDS`` set (``rows``: ``row`` of each). The first read of another
    field of one of them calls ``load()`` for the ``values.values_of`` of them all, in order,
    each pickled (bytes) or not, and sets every field of that record alone (a subject's page
    shows one record of each of 50 authors: their other records stay hollow). ``load`` raises
    what it must (a ``SiteError``); values that are not these records' (another count, another
    record's) are a ``ValueError``."""
    records = tuple(map(_hollow_record, rows))
    _HOLLOW.update(zip(map(id, records), repeat(_Author(records, rows, load))))
    return records


class _Author:
    """The hollow records of one author, filled one by one (``Hollow.__getattr__`` calls
    it with the record) or all at once (``every``)."""

    __slots__ = ("records", "rows", "load", "values", "where")

    def __init__(self, records: tuple[Record, ...], rows: Sequence[tuple[Any, ...]],
                 load: Callable[[], Sequence[tuple[Any, ...] | bytes]]) -> None:
        self.records, self.rows, self.load = records, rows, load
        self.values: Sequence[tuple[Any, ...] | bytes] | None = None
        self.where: dict[int, int] = {}

    def __call__(self, r: Record) -> None:
        if not self.where:
            self.where = {id(x): i for i, x in enumerate(self.records)}
        self._fill(self.where[id(r)])

    def every(self) -> None:
        for i, r in enumerate(self.records):
            if id(r) in _HOLLOW:
                self._fill(i)

    def _fill(self, i: int) -> None:
        if self.values is None:
            values = self.load()
            if len(values) != len(self.records):
                raise ValueError(f"the records loaded for {len(self.records)} hollow ones are not theirs")
            self.values = values
        v = self.values[i]
        if type(v) is bytes:
            v = pickle.loads(v)
        if not (type(v) is tuple and len(v) == VALUES and row_of(v) == self.rows[i]):
            raise ValueError(f"the values loaded for hollow record {self.rows[i][0]} are not theirs")
        r = self.records[i]
        set_fields(r, v)
        object.__setattr__(r, "__class__", Record)
        del _HOLLOW[id(r)]


def _hollow_record(values: tuple[Any, ...], new: Callable[[type], Record] = object.__new__) -> Record:
    """A record with only ``FIELDS`` set, as the generated ``__init__`` sets them (through the
    slots; unrolled: 100,000 of them a rebuild at 1,000 x 100)."""
    r = new(Hollow)
    key, year, published, updated, subjects, venue = values
    _KEY(r, key)
    _YEAR(r, year)
    _PUBLISHED(r, published)
    _UPDATED(r, updated)
    _SUBJECTS(r, subjects)
    _VENUE(r, venue)
    return r


def fill(groups: Iterable[Sequence[Record]]) -> int:
    """Fill the hollow records of ``groups`` (each author's records, as ``hollow`` made them).
    Returns how many there were."""
    filled = 0
    for records in groups:
        authors = {id(f): f for f in map(_HOLLOW.get, map(id, records)) if f is not None}
        filled += unread([records])
        for author in authors.values():
            author.every()
    return filled


def unread(groups: Iterable[Sequence[Record]]) -> int:
    """How many records of ``groups`` are hollow still (for the build's log and the tests)."""
    return sum(sum(map(_HOLLOW.__contains__, map(id, records))) for records in groups)


def forget(groups: Iterable[Sequence[Record]]) -> None:
    """Let the hollow records of ``groups`` go, never filled (the build that loaded them is over:
    the process's registry of hollow records would keep them alive), and the build's people
    (``values.PEOPLE``) once no hollow record is left to fill."""
    for records in groups:
        if type(records) is tuple:   # (an index's records, generator.index.lazy, were never hollow)
            for r in records:
                _HOLLOW.pop(id(r), None)
    if not _HOLLOW:
        PEOPLE.clear()
