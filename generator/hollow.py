"""Records loaded hollow: the few fields a rebuild reads of every record, the rest on first use.

A rebuild of a large site keeps most authors as the last build assembled them
(generator.snapshot), and before it renders it reads only a few fields of their records: who
lists them (``key``), the subjects' and feeds' order (``year``, ``published``), the feeds' dates
(``updated``), the subjects (``subjects``), the venue pages (``venue``); their digests are kept.
Unpickling every field of 100,000 records at 1,000 x 100 was a third of a one-author rebuild,
for records that no job which runs shows. So a kept author's records are made with those fields
alone (``hollow``), and the first read of any other field of any of them (a page that shows one,
an equality, a pickle) loads all of that author's records and sets every field
(``Record.__getattr__``, called only for a slot not set). Then each is a ``Record`` like any
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

from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any, Callable, Iterable, Sequence

from generator.model import _FIELDS, _HOLLOW, Record, _set_fields

FIELDS = ("key", "year", "published", "updated", "subjects", "venue")
row = attrgetter(*FIELDS)   # what ``hollow`` takes of each record
row_of = itemgetter(*(_FIELDS.index(name) for name in FIELDS))   # the same of its pickled_values
VALUES = len(_FIELDS)   # how many pickled_values a record has
_KEY, _YEAR, _PUBLISHED, _UPDATED, _SUBJECTS, _VENUE = (Record.__dict__[name].__set__ for name in FIELDS)


def hollow(rows: Sequence[tuple[Any, ...]], load: Callable[[], Sequence[tuple[Any, ...]]]) -> tuple[Record, ...]:
    """Records with only ``FIELDS`` set (``rows``: ``row`` of each). The first read of another
    field of any of them calls ``load()`` for the ``model.pickled_values`` of them all, in order,
    and sets every field of every one. ``load`` raises what it must (a ``SiteError``); values
    that are not these records' (other keys, another count) are a ``ValueError``."""
    records = tuple(map(_hollow_record, rows))

    def fill() -> None:
        values = load()
        if len(values) != len(records) or any(v[0] != r.key for v, r in zip(values, records)):
            raise ValueError(f"the records loaded for {len(records)} hollow ones are not theirs")
        for r, v in zip(records, values):
            _set_fields(r, v)
        for r in records:
            _HOLLOW.pop(id(r), None)

    _HOLLOW.update(zip(map(id, records), repeat(fill)))
    return records


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
    """Fill the hollow records of ``groups`` (each author's records, as ``hollow`` made them: an
    author's are all hollow or none). Returns how many there were."""
    filled = 0
    for records in groups:
        fill_them = _HOLLOW.get(id(records[0])) if records else None
        if fill_them is not None:
            fill_them()
            filled += len(records)
    return filled


def unread(groups: Iterable[Sequence[Record]]) -> int:
    """How many records of ``groups`` are hollow still (for the build's log and the tests)."""
    return sum(len(records) for records in groups if records and id(records[0]) in _HOLLOW)


def forget(groups: Iterable[Sequence[Record]]) -> None:
    """Let the hollow records of ``groups`` go, never filled (the build that loaded them is over:
    the process's registry of hollow records would keep them alive)."""
    for records in groups:
        if records and id(records[0]) in _HOLLOW:
            for r in records:
                _HOLLOW.pop(id(r), None)
