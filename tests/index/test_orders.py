"""The index's site-wide orders equal assemble.site's, made in memory (generator.index.orders).

Hypothesis draws sites whose records share keys across authors (with other years and dates in
each copy), lack years or dates, tie on both, list a subject twice or one outside arXiv's
taxonomy; then a sequence of changes (an author's records replaced, one record's title, year, date
or subjects changed, an author removed, added, the authors reordered, the feed's size changed),
ordered again incrementally after each: every order, and each author's and subject's joined digests
kept in the index, must be what ``subjects_of``, ``record_authors``, ``newest`` and ``indexed_records`` make
of the same authors, record for record.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from pathlib import Path
from typing import Iterator

from hypothesis import HealthCheck, example, given, settings, strategies as st

from generator.assemble.site import newest, record_authors, subjects_of
from generator.core.model import Author, Record
from generator.core.taxonomy import load_taxonomy
from generator.incremental.values import values_of
from generator.index.db import Index
from generator.index.lazy import AuthorRecords, RowRecords, forget, listing_digests, subject_places
from generator.index.site import indexed_rows, site_orders
from generator.render.search_docs import date_of
from generator.render.template_globals import newest_update
from generator.render.search_runs import in_order

TAX = load_taxonomy()
CODES = ("cs.DB", "cs.LG", "stat.ML", "math.PR", "not.a-code")
# (and keys a byte order would sort otherwise than Python's strings: the search index's papers)
KEYS = tuple(f"arxiv:2401.{i:05d}" for i in range(12)) + ("doi:10.1/e", "doi:10.1/\u00e9", "doi:10.1/\U0001d400",
                                                          "doi:10.1/\uff21")


def _record(rnd: random.Random) -> Record:
    year = rnd.choice([None, 2023, 2024, 2024])
    published = rnd.choice([None, "2024-01-05T00:00:00Z", "2024-01-05T00:00:00Z", "2023-06-01T00:00:00Z"])
    codes = tuple(rnd.choice(CODES) for _ in range(rnd.randint(0, 3)))
    return Record(key=rnd.choice(KEYS), title=f"T{rnd.randrange(99)}", year=year, published=published,
                  subjects=codes, updated=rnd.choice([None, "2025-02-02T00:00:00Z"]))


def _author(slug: str, rnd: random.Random) -> Author:
    by_key = {r.key: r for r in (_record(rnd) for _ in range(rnd.randint(0, 6)))}   # (one record a key, as merged)
    return Author(slug=slug, name=slug, affiliation=None, bio_html="", links=(), records=tuple(by_key.values()),
                  subjects=(), years=())


def _put(index: Index, a: Author, generation: int) -> None:
    contents = [hashlib.sha256(repr(r).encode()).digest()[:16] for r in a.records]
    index.put(a.slug, b"%d" % generation, a.records, contents, map(values_of, a.records), b"")


def _touch(a: Author, rnd: random.Random) -> Author:
    """The author with one record's title, year, date or subjects changed (or none, when it has none)."""
    if not a.records:
        return a
    i = rnd.randrange(len(a.records))
    r = a.records[i]
    field = rnd.choice(["title", "year", "published", "subjects"])
    new = {"title": r.title + "!", "year": rnd.choice([None, 2022, 2024]),
           "published": rnd.choice([None, "2024-01-05T00:00:00Z", "2022-03-01T00:00:00Z"]),
           "subjects": tuple(rnd.choice(CODES) for _ in range(rnd.randint(0, 3)))}[field]
    return dataclasses.replace(a, records=(*a.records[:i], dataclasses.replace(r, **{field: new}), *a.records[i + 1:]))


def _joined(it: Iterator[tuple[bytes, str]]) -> bytes:
    return b"".join(hashlib.sha256(c + who.encode()).digest()[:16] for c, who in it)


def _digests(index: Index, slug: str) -> bytes:
    return index.joined(slug, _joined)


def _by_code(places: list[tuple[str, int]]) -> dict[str, list[int]]:
    """Each code's places, in the order given (what subject_jobs._per_subject groups)."""
    out: dict[str, list[int]] = {}
    for code, j in places:
        out.setdefault(code, []).append(j)
    return out


def _check(index: Index, authors: list[Author], feed_size: int) -> None:
    subjects, (listed, new) = site_orders(index, [a.slug for a in authors], TAX, feed_size)
    rows = {id(r): (a.slug, i) for a in authors for i, r in enumerate(a.records)}
    expected = subjects_of(tuple(authors), TAX)
    assert [s.code for s in subjects] == [s.code for s in expected]
    for got, want in zip(subjects, expected):
        assert got.authors == want.authors
        assert list(got.records.rows()) == [rows[id(r)] for r in want.records]   # type: ignore[attr-defined]
    assert dict(listed.items()) == record_authors(authors)
    assert [(r.key, r.year, r.published) for r in new] == \
        [(r.key, r.year, r.published) for r in newest(authors, feed_size)]
    first = {k: v[0] for k, v in record_authors(authors).items()}
    got_own = indexed_rows(index, authors)
    for a in authors:
        assert [r.key for r in got_own[a.slug]] == [r.key for r in a.records if first[r.key] == a.slug]
        own = got_own[a.slug]
        if isinstance(own, RowRecords):   # (its digests joined as a Lazy joins any rows)
            assert own.joined(_digests) == b"".join(_digests(index, slug)[16 * pos:16 * pos + 16]
                                                    for slug, pos in own.rows())
    for a in authors:   # (what the plan asks of an author's records there, whole or a slice, none loaded)
        lazy = AuthorRecords(index, a.slug, 0, len(a.records))
        for got, want in ((lazy, a.records), (lazy[1:], a.records[1:])):
            assert newest_update(got) == newest_update(want)
            assert _by_code(subject_places(got)) == _by_code(subject_places(want))   # (a record's codes in any order)
    for a in authors:   # (an author's joined digests kept in the index are what they would be made anew)
        fresh = _joined(iter(index.db.execute("SELECT r.content, l.who FROM records r JOIN listed l ON l.key = r.key "
                                              "WHERE r.slug = ? ORDER BY r.pos", (a.slug,))))
        assert index.joined(a.slug, _joined) == fresh
    for s in subjects:   # (and each subject's, kept in the index too)
        fresh = b"".join(_digests(index, slug)[16 * pos:16 * pos + 16]
                         for slug, pos in index.subject_rows(s.code, 0, len(s.records)))
        assert listing_digests(index, s.code, _digests) == fresh
    papers = in_order([(date_of(r), r.key, a.slug) for a in authors for r in a.records if first[r.key] == a.slug])
    assert list(index.papers()) == papers
    forget()


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@example(seed=7, steps=["touch", "touch", "replace"])   # (600 random examples found these: a record
@example(seed=113, steps=["replace", "touch", "replace", "touch"])   # listing a code twice)
@given(seed=st.integers(0, 2**20), steps=st.lists(st.sampled_from(["replace", "touch", "remove", "add", "reorder",
                                                                    "feed"]), max_size=6))
def test_the_orders_equal_assemble_site(tmp_path: Path, seed: int, steps: list[str]) -> None:
    rnd = random.Random(seed)
    path = tmp_path / f"index-{seed}-{len(steps)}.sqlite"
    path.unlink(missing_ok=True)   # (an example hypothesis draws again starts from nothing too)
    index = Index(path)
    try:   # (closed however it ends: a failed example's open writer would block the next for 600 s)
        _steps(index, rnd, steps)
    finally:
        index.close()


def _steps(index: Index, rnd: random.Random, steps: list[str]) -> None:
    authors = [_author(f"a{i}", rnd) for i in range(rnd.randint(1, 5))]
    generation, feed_size = 0, rnd.choice([1, 3, 50])
    for a in authors:
        _put(index, a, generation)
    _check(index, authors, feed_size)
    for step in steps:
        generation += 1
        if step == "replace" or (step == "remove" and len(authors) == 1):
            i = rnd.randrange(len(authors))
            authors[i] = _author(authors[i].slug, rnd)
            _put(index, authors[i], generation)
        elif step == "touch":
            i = rnd.randrange(len(authors))
            authors[i] = _touch(authors[i], rnd)
            _put(index, authors[i], generation)
        elif step == "remove":
            authors.pop(rnd.randrange(len(authors)))
        elif step == "add":
            authors.insert(rnd.randrange(len(authors) + 1), _author(f"n{generation}", rnd))
            _put(index, authors[[a.slug for a in authors].index(f"n{generation}")], generation)
        elif step == "reorder":
            rnd.shuffle(authors)
        else:
            feed_size = rnd.choice([1, 2, 50])
        _check(index, authors, feed_size)


def test_an_authors_counts_are_read_back_as_put_and_digested_as_the_pairs(tmp_path: Path) -> None:
    """lazy.PartCounts (an author's subjects and years over the index): the pairs ``put`` was given,
    indexed, sliced, compared and digested as the tuple of them; none for an author not there."""
    from generator.index.lazy import PartCounts
    from generator.render.digest import Digester
    index = Index(tmp_path / "index.sqlite")
    subjects, years = (("cs.DB", 3), ("math.PR", 1)), ((2024, 2), (2023, 2))
    index.put("a", b"k", (), [], [], b"", (subjects, years))
    got = PartCounts(index, "a", "subjects")
    assert got == subjects and tuple(got) == subjects and len(got) == 2 and got[0] == ("cs.DB", 3)
    assert got[:1] == subjects[:1] and hash(got) == hash(subjects) and repr(got) == repr(subjects)
    assert PartCounts(index, "a", "years") == years
    assert Digester().digest((got, PartCounts(index, "a", "years"))) == Digester().digest((subjects, years))
    assert not PartCounts(index, "nobody", "subjects") and PartCounts(index, "nobody", "years") == ()
    forget()


def test_a_code_a_record_lists_twice_counts_once_in_memory_and_in_the_index(tmp_path: Path) -> None:
    """A record that lists a subject twice (a hand-edited cache): its author has one record there,
    on the subject's page as on the author's (assemble_author counts each code once a record)."""
    r = Record(key="arxiv:2401.00001", title="T", year=2024, subjects=("cs.DB", "cs.DB", "cs.LG"))
    a = Author(slug="a", name="a", affiliation=None, bio_html="", links=(), records=(r,), subjects=(), years=())
    assert {s.code: s.authors for s in subjects_of((a,), TAX)} == {"cs.DB": (("a", 1),), "cs.LG": (("a", 1),)}
    index = Index(tmp_path / "index.sqlite")
    _put(index, a, 0)
    subjects, _ = site_orders(index, ["a"], TAX, 3)
    assert {s.code: tuple(s.authors) for s in subjects} == {"cs.DB": (("a", 1),), "cs.LG": (("a", 1),)}
    index.close()
    forget()
