"""Record digests kept from the last build (generator.render.digest, ``Digester.keep``): taken
joined per author, spread into each record's only when a plan reads a record apart from its
author's records, and then only that author's; every digest equals a fresh digester's."""

from __future__ import annotations

from generator.core.model import Author, Person, Record, SiteModel
from generator.render.digest import Digester


def _site() -> SiteModel:
    def author(slug: str, keys: list[str]) -> Author:
        records = tuple(Record(key=k, title=f"{slug} {k}", year=2020 + i, authors=(Person(slug),))
                        for i, k in enumerate(keys))
        return Author(slug=slug, name=slug, affiliation=None, bio_html="", links=(), records=records,
                      subjects=(), years=())
    authors = (author("ada", ["a1", "a2", "shared"]), author("bob", ["b1", "shared", "b2"]),
               author("cy", ["c1", "c2"]))
    listed: dict[str, tuple[str, ...]] = {}
    for a in authors:
        for r in a.records:
            listed[r.key] = (*listed.get(r.key, ()), a.slug)
    return SiteModel(title="t", description="", base_url="/", language="en", authors=authors, subjects=(),
                     pages=(), record_authors=listed, paginate=50, cname=None)


def _kept(site: SiteModel) -> Digester:
    """A digester that took the digests of ada's and bob's records (as a rebuild takes the last
    build's), cy's made anew."""
    last = Digester(site)
    known = {a.slug: last.known(a, a.records) for a in site.authors if last.digest(a)}
    kept = Digester(site)
    for a in site.authors[:2]:
        kept.keep(a, a.records, known[a.slug])   # type: ignore[arg-type]
    return kept


def test_kept_digests_equal_fresh_ones_however_the_records_are_read() -> None:
    site = _site()
    ada, bob, cy = site.authors
    fresh = Digester(site).digest
    mixed = (bob.records[2], ada.records[0], cy.records[1], bob.records[1])   # a subject's page, a feed
    some = (ada.records[0], ada.records[2])                                     # those indexed under ada
    for reads in ((mixed,), (ada, bob, cy), (some,), (bob.records,), (ada.records[1],)):
        kept = _kept(site)
        kept.part(some, ada.records)
        assert kept.digest(reads) == fresh(reads)
        assert kept.joined(ada.records) == Digester(site).joined(ada.records)
        made = Digester(site)
        made.digest(bob)
        assert kept.known(bob, bob.records) == made.known(bob, bob.records) is not None


def test_a_record_read_apart_spreads_only_its_authors_digests() -> None:
    site = _site()
    ada, bob, _cy = site.authors
    kept = _kept(site)
    kept.digest((ada, bob))   # read whole: nothing spread
    assert kept._current == {}
    some = (ada.records[0],)
    kept.part(some, ada.records)
    kept.digest((some,))   # a part of ada's (the same tuple): taken from ada's joined digests
    assert kept._current == {}
    kept.digest(((bob.records[0], bob.records[2]),))   # a page that lists two of bob's
    assert set(kept._current) == {id(r) for r in bob.records}
    assert kept.record(ada.records[1]) == Digester(site).record(ada.records[1])
    assert set(kept._current) == {id(r) for r in (*ada.records, *bob.records)}
