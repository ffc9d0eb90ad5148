"""generator.incremental.subject_order: each subject's records taken from the last build's positions are the
very subjects ``assemble.subjects_of`` makes, whatever changed; a real parsed-input cache."""

from __future__ import annotations

import dataclasses
import random
from array import array
from pathlib import Path

from generator.incremental import subject_order
from generator.assemble.site import newest, record_authors, sort_newest_first, subjects_of
from generator.core.model import Author, Person, Record
from generator.incremental.parsed import ParsedInputs
from generator.incremental.subject_order import KIND, listings, order_digest, subjects
from generator.core.taxonomy import load_taxonomy

TAX = load_taxonomy()
CODES = ("cs.LG", "cs.CL", "stat.ML", "math.PR", "q-bio.NC", "not.acode")


def _record(rng: random.Random, n: int) -> Record:
    year = rng.choice([None, 2020, 2021, 2022])
    return Record(key=f"arxiv:2201.{n:05d}", title=f"Paper {n}", year=year,
                  published=None if year is None or rng.random() < 0.2 else f"{year}-0{rng.randint(1, 9)}-01T00:00:00Z",
                  subjects=tuple(rng.sample(CODES, rng.randint(0, 3))), authors=(Person("A. Person"),))


def _authors(seed: int, count: int = 12) -> tuple[Author, ...]:
    """Authors sharing some records (the same key, sometimes other subjects or dates), newest first."""
    rng = random.Random(seed)
    pool = [_record(rng, n) for n in range(60)]
    out = []
    for i in range(count):
        mine = rng.sample(pool, rng.randint(0, 15))
        mine = [dataclasses.replace(r, subjects=tuple(reversed(r.subjects))) if rng.random() < 0.1 else r
                for r in mine]
        out.append(Author(slug=f"author-{i}", name=f"Author {i}", affiliation="", bio_html="", links=(),
                          records=tuple(sort_newest_first(mine)), subjects=(), years=()))
    return tuple(out)


def _orders(authors: tuple[Author, ...]) -> list[bytes]:
    return [order_digest(a.records) for a in authors]


def _same(made: tuple, authors: tuple[Author, ...]) -> None:
    fresh = subjects_of(authors, TAX)
    assert made == fresh
    for s, f in zip(made, fresh):   # the very record objects of these authors
        assert all(x is y for x, y in zip(s.records, f.records))


def test_kept_order_gives_the_subjects_made_anew(tmp_path: Path) -> None:
    for seed in range(30):
        authors = _authors(seed)
        parsed = ParsedInputs(tmp_path / str(seed))
        _same(subjects(authors, _orders(authors), TAX, parsed), authors)          # made, and kept
        again = ParsedInputs(tmp_path / str(seed))
        _same(subjects(authors, _orders(authors), TAX, again), authors)           # taken
        assert again.hits == 1 and again.misses == 0


def test_a_retitled_record_is_taken_in_its_place_with_its_new_title(tmp_path: Path) -> None:
    authors = _authors(1)
    subjects(authors, _orders(authors), TAX, ParsedInputs(tmp_path))
    target = authors[0]   # the first author's copy of a record is the one its subjects list
    old = next(r for r in target.records if set(r.subjects) - {"not.acode"})
    new = dataclasses.replace(old, title="A new title", abstract="changed")
    edited = tuple(dataclasses.replace(a, records=tuple(new if r is old else r for r in a.records))
                   if a is target else a for a in authors)
    parsed = ParsedInputs(tmp_path)
    made = subjects(edited, _orders(edited), TAX, parsed)
    assert parsed.hits == 1   # nothing that orders them changed
    _same(made, edited)
    assert any(r is new for s in made for r in s.records)


def test_a_change_in_order_sorts_anew(tmp_path: Path) -> None:
    authors = _authors(2)
    subjects(authors, _orders(authors), TAX, ParsedInputs(tmp_path))
    rng = random.Random(7)
    for change in ("add", "date", "subjects", "reorder"):
        a = authors[3]
        records = list(a.records)
        if change == "add":
            records.insert(0, _record(rng, 999))
        elif change == "date":
            records[0] = dataclasses.replace(records[0], year=2030)
        elif change == "subjects":
            records[0] = dataclasses.replace(records[0], subjects=("math.PR",))
        edited = (*authors[:3], dataclasses.replace(a, records=tuple(records)), *authors[4:])
        if change == "reorder":
            edited = tuple(reversed(authors))
        parsed = ParsedInputs(tmp_path)
        made = subjects(edited, _orders(edited), TAX, parsed)
        assert parsed.misses == 1, change
        _same(made, edited)


def test_positions_that_do_not_fit_are_never_taken(tmp_path: Path) -> None:
    """An entry under the right key whose positions point past these authors' records (it cannot
    be made by this code, but a cache is never trusted) is ignored: the subjects are made anew."""
    authors = _authors(3)
    parsed = ParsedInputs(tmp_path)
    subjects(authors, _orders(authors), TAX, parsed)
    from generator.incremental.subject_order import site_key

    key = site_key(authors, _orders(authors))
    assert key is not None
    bad = tuple((code, bytes(8 * 3) + b"\xff\xff\x00\x00\x01\x00\x00\x00", counts)
                for code, _, counts in parsed.lookup(KIND, "site", key)[0])   # type: ignore[index]
    parsed.put(KIND, "site", key, bad)
    _same(subjects(authors, _orders(authors), TAX, ParsedInputs(tmp_path)), authors)


def test_without_a_cache_or_an_order_it_sorts() -> None:
    authors = _authors(4)
    _same(subjects(authors, _orders(authors), TAX, None), authors)
    _same(subjects(authors, [b""] * len(authors), TAX, None), authors)


def _same_listings(got: tuple, authors: tuple[Author, ...], count: int) -> None:
    want_listed, want_newest = record_authors(authors), newest(authors, count)
    assert got[0] == want_listed and list(got[0]) == list(want_listed)   # the same order of keys too
    assert len(got[1]) == len(want_newest) and all(x is y for x, y in zip(got[1], want_newest))


def test_kept_listings_give_who_lists_each_record_and_the_newest_made_anew(tmp_path: Path) -> None:
    """Who lists each record and the site feed's records are kept with the subjects' order key
    (and the feed's size): taken, they are what assemble makes, down to the very record objects
    (for a key several authors list, the copy assemble.newest picks)."""
    for seed in range(30):
        authors = _authors(seed)
        count = 1 + seed % 7
        parsed = ParsedInputs(tmp_path / str(seed))
        _same_listings(listings(authors, _orders(authors), count, parsed), authors, count)   # made, and kept
        again = ParsedInputs(tmp_path / str(seed))
        _same_listings(listings(authors, _orders(authors), count, again), authors, count)    # taken
        assert again.hits == 1 and again.misses == 0
        other = ParsedInputs(tmp_path / str(seed))   # another feed size: made anew
        _same_listings(listings(authors, _orders(authors), count + 1, other), authors, count + 1)
        assert other.misses == 1


def test_kept_listings_that_do_not_fit_are_made_anew(tmp_path: Path) -> None:
    authors = _authors(3)
    parsed = ParsedInputs(tmp_path)
    listings(authors, _orders(authors), 5, parsed)
    for bad in [("x", b""), ({"k": ("a",)}, array("i", [0, 999]).tobytes()), ({"k": ["a"]}, b""), ({}, b"\x01")]:
        key = [k for k in [subject_order.site_key(authors, _orders(authors))] if k is not None][0] + b"5"
        parsed.put(subject_order.LISTINGS, "site", key, bad)
        _same_listings(listings(authors, _orders(authors), 5, ParsedInputs(tmp_path)), authors, 5)
