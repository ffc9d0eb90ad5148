"""Records loaded hollow (generator.incremental.hollow): the fields a rebuild reads are there without loading;
the first read of any other field of a record loads its author's records once and fills that
one, in the very object; then they are records like any other (equal, hashable, frozen, pickled, digested
alike). Values that are not theirs fill nothing."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from generator.core import model

from generator.incremental import hollow
from generator.render.digest import Digester
from generator.incremental.values import values_of as pickled_values
from generator.core.model import Person, Record


@pytest.fixture(autouse=True)
def _own_registry() -> object:
    """Each test sees only its own hollow records (the registry is the process's)."""
    saved = dict(hollow._HOLLOW)
    hollow._HOLLOW.clear()
    yield
    hollow._HOLLOW.clear()
    hollow._HOLLOW.update(saved)


def _records(n: int = 3) -> tuple[Record, ...]:
    return tuple(Record(
        key=f"arxiv:2401.0000{i}", title=f"Title {i}", year=2024 - i, arxiv_id=f"2401.0000{i}", version=i + 1,
        authors=(Person("Ada Lovelace", ("Engines",)), Person(f"Person {i}")) if i % 2 else (Person(f"Person {i}"),),
        abstract=f"Abstract {i}.", published=f"202{4 - i}-01-0{i + 1}T00:00:00Z",
        updated=None if i else "2024-03-01T00:00:00Z", primary_subject="cs.LG", subjects=("cs.LG", "stat.ML")[: i + 1],
        doi=f"10.1/{i}" if i else None, comment="c", order=i, links=(("code", "https://example.org/c"),))
        for i in range(n))


def _hollow(records: tuple[Record, ...], loads: list[int],
            values: tuple[tuple[object, ...], ...] | None = None) -> tuple[Record, ...]:
    given = tuple(map(pickled_values, records)) if values is None else values

    def load() -> tuple[tuple[object, ...], ...]:
        loads.append(1)
        return given   # type: ignore[return-value]
    return hollow.hollow(tuple(map(hollow.row, records)), load)


def test_the_fields_a_rebuild_reads_need_no_load() -> None:
    records, loads = _records(), []
    before = len(hollow._HOLLOW)
    h = _hollow(records, loads)
    assert len(hollow._HOLLOW) == before + len(records)
    for r, want in zip(h, records):
        assert (r.key, r.year, r.published, r.updated, r.subjects, r.venue) == hollow.row(want)
    assert loads == [] and all(type(r) is hollow.Hollow and isinstance(r, Record) for r in h)


def test_the_first_read_of_another_field_fills_that_record_and_loads_the_authors_once() -> None:
    records, loads = _records(), []
    h = _hollow(records, loads)
    before = len(hollow._HOLLOW)
    assert h[1].abstract == "Abstract 1."
    assert loads == [1] and len(hollow._HOLLOW) == before - 1 and hollow.unread([h]) == len(records) - 1
    assert type(h[1]) is Record and type(h[0]) is hollow.Hollow   # filled: a plain record, the same object
    assert h == records and [hash(r) for r in h] == [hash(r) for r in records]
    assert [r.authors for r in h] == [r.authors for r in records] and h[2].link == records[2].link
    assert loads == [1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        h[0].title = "changed"   # type: ignore[misc]


def test_a_name_that_is_no_field_is_missing_without_a_load() -> None:
    loads: list[int] = []
    h = _hollow(_records(), loads)
    assert getattr(h[0], "__html__", None) is None
    with pytest.raises(AttributeError, match="no attribute 'titel'"):
        h[0].titel   # noqa: B018
    assert loads == []


def test_a_propertys_own_attribute_error_is_not_hidden() -> None:
    """``Hollow.__getattr__`` is called for a property that raises AttributeError too: the error
    raised is the property's own, as without it."""
    bad = Record(key=None, title="t", year=None)   # type: ignore[arg-type]
    h = _hollow((bad,), [])
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'split'"):
        h[0].anchor   # noqa: B018


def test_values_that_are_not_theirs_fill_nothing() -> None:
    records, loads = _records(), []
    wrong = tuple(map(pickled_values, _records(2)))   # one record short
    h = _hollow(records, loads, wrong)
    with pytest.raises(ValueError, match="not theirs"):
        h[0].title   # noqa: B018
    with pytest.raises(ValueError):   # still hollow: each read tries again
        h[2].comment   # noqa: B018


def test_a_hollow_record_pickles_and_digests_as_the_full_one() -> None:
    records, loads = _records(), []
    h = _hollow(records, loads)
    assert pickle.loads(pickle.dumps(h[0], protocol=pickle.HIGHEST_PROTOCOL)) == records[0]
    h2 = _hollow(records, [])
    assert [Digester().content(r) for r in h2] == [Digester().content(r) for r in records]


def test_fill_fills_the_authors_given_and_forget_lets_the_others_go() -> None:
    loads: list[int] = []
    first, second, third = _hollow(_records(2), loads), _hollow(_records(3), loads), _hollow(_records(1), loads)
    full = _records(2)
    assert hollow.unread([first, second, full]) == 5
    assert hollow.fill([first, second, full]) == 5 and hollow.unread([first, second, third]) == 1
    assert len(loads) == 2 and first[1].title == "Title 1" and second[2].title == "Title 2" and len(loads) == 2
    assert hollow.fill([first, second]) == 0 and len(loads) == 2
    hollow.forget([third])
    assert len(hollow._HOLLOW) == 0 and loads == [1, 1]


def test_records_kept_pickled_one_by_one_fill_alone() -> None:
    records, loads = _records(), []
    blobs = tuple(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL) for v in map(pickled_values, records))
    h = _hollow(records, loads, blobs)   # type: ignore[arg-type]
    assert h[2].title == "Title 2" and hollow.unread([h]) == 2 and loads == [1]
    assert h[0].authors == records[0].authors and hollow.unread([h]) == 1 and loads == [1]
    assert hollow.fill([h]) == 1 and h == records and loads == [1]


def test_a_record_pickled_for_another_fills_nothing() -> None:
    records, loads = _records(), []
    blobs = [pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL) for v in map(pickled_values, records)]
    blobs[0], blobs[1] = blobs[1], blobs[0]
    h = _hollow(records, loads, tuple(blobs))   # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not theirs"):
        h[0].title   # noqa: B018
    assert h[2].title == "Title 2" and hollow.unread([h]) == 2
