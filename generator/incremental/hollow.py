"""Records loaded hollow: the few fields a rebuild reads of every record, the rest on first use.

A rebuild of a large site keeps most authors as the last build assembled them
(generator.incremental.snapshot), and before it renders it reads only a few fields of their records: who
lists them (``key``), the subjects' and feeds' order (``year``, ``published``), the feeds' dates
(``updated``), the subjects (``subjects``), the venue pages (``venue``); their digests are kept.
Unpickling every field of 100,000 records at 1,000 x 100 was a third of a one-author rebuild,
for records that no job which runs shows. So a kept author's records are made with those fields
alone (``hollow``), and the first read of any other field of one of them (a page that shows it,
an equality, a pickle) loads that author's records, kept pickled one by one, and sets every field
of that record (``Record.__getattr__``, called only for a slot not set). Then each is a ``Record`` like any
other: the same type, the same values, the same object (so every digest, partial and index keyed
by the object still holds).

The cost, paid on every build: a class with ``__getattr__`` reads its slots through the generic
path (Python 3.11 does not specialise them): about +6 ns a ``getattr`` (Jinja's way) and +12 ns
a ``r.title`` in Python, some 0.1 s of CPU over the 17 million field reads of a cold build at
1,000 x 100.

A build that runs many jobs on forked processes fills its hollow records first (``fill``), in
its own process, before it forks the processes that would each fill them again; once it is
over, it lets go of those never read (``forget``).
"""

from __future__ import annotations

import pickle
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any, Callable, Iterable, Sequence

from generator.model import _FIELDS, _HOLLOW, Record, _set_fields

FIELDS = ("key", "year", "published", "updated", "subjects", "venue")
row = attrgetter(*FIELDS)   # what ``hollow`` takes of each record
row_of = itemgetter(*(_FIELDS.index(name) for name in FIELDS))   # the same of its pickled_values
VALUES = len(_FIELDS)   # how many pickled_values a record has
_KEY, _YEAR, _PUBLISHED, _UPDATED, _SUBJECTS, _VENUE = (Record.__dict__[name].__set__ for name in FIELDS)


def hollow(rows: Sequence[tuple[Any, ...]], load: Callable[[], Sequence[tuple[Any, ...] | bytes]]) -> tuple[Record, ...]:
    """Records with only ``FIELDS`` set (``rows``: ``row`` of each). The first read of another
    field of one of them calls ``load()`` for the ``model.pickled_values`` of them all, in order,
    each pickled (bytes) or not, and sets every field of that record alone (a subject's page
    shows one record of each of 50 authors: their other records stay hollow). ``load`` raises
    what it must (a ``SiteError``); values that are not these records' (another count, another
    record's) are a ``ValueError``."""
    records = tuple(map(_hollow_record, rows))
    _HOLLOW.update(zip(map(id, records), repeat(_Author(records, rows, load))))
    return records


class _Author:
    """The hollow records of one author, filled one by one (``model.Record.__getattr__`` calls
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
        _set_fields(self.records[i], v)
        del _HOLLOW[id(self.records[i])]


def _hollow_record(values: tuple[Any, ...], new: Callable[[type], Record] = object.__new__) -> Record:
    """A record with only ``FIELDS`` set, as the generated ``__init__`` sets them (through the
    slots; unrolled: 100,000 of them a rebuild at 1,000 x 100)."""
    r = new(Record)
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
    the process's registry of hollow records would keep them alive)."""
    for records in groups:
        for r in records:
            _HOLLOW.pop(id(r), None)
