"""Records as the parsed-input cache pickles them (generator.incremental.values ``dumps``), and as
plain pickle does: the very values back, still frozen, their people shared within a build, with
every field and every shape of byline."""

import dataclasses
import pickle

import pytest

from generator.incremental import values
from generator.core.model import Person, Record


def _full() -> Record:
    return Record(
        key="arxiv:2401.00001", title="A title", year=2024, source="arXiv", arxiv_id="2401.00001", version=3,
        authors=(Person("Ada Lovelace", ("Analytical Engines Ltd",)), Person("Alan Turing")),
        abstract="An abstract.", published="2024-01-01T00:00:00Z", updated="2024-02-01T00:00:00Z",
        primary_subject="cs.LG", subjects=("cs.LG", "stat.ML"), other_terms=("68T05",), doi="10.1/x",
        journal_ref="J. 1 (2024)", comment="10 pages", url="https://example.org/x", order=7, venue="ICML 2024",
        source_ids=(("dblp", "conf/icml/x"),), origins=("arXiv", "DBLP"), links=(("code", "https://example.org/c"),),
        citations=12, citations_date="2026-01-01")


DUMPS = [pickle.dumps, values.dumps]


@pytest.mark.parametrize("dumps", DUMPS, ids=["pickle", "values"])
@pytest.mark.parametrize("authors", [
    (),
    (Person("Ada Lovelace"),),
    (Person("Ada Lovelace"), Person("Alan Turing")),
    (Person("Ada Lovelace", ("A",)), Person("Alan Turing")),
    (Person("Ada Lovelace", ("A", "B")),),
])
def test_a_record_comes_back_equal_and_frozen(authors: tuple[Person, ...], dumps) -> None:  # noqa: ANN001
    r = dataclasses.replace(_full(), authors=authors)
    back = pickle.loads(dumps(r))
    assert back == r and hash(back) == hash(r) and type(back) is Record
    assert [dataclasses.astuple(p) for p in back.authors] == [dataclasses.astuple(p) for p in authors]
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.title = "changed"   # type: ignore[misc]


@pytest.mark.parametrize("dumps", DUMPS, ids=["pickle", "values"])
def test_defaults_come_back(dumps) -> None:  # noqa: ANN001
    r = Record(key="title:abc", title="Typed in", year=None)
    assert pickle.loads(dumps(r)) == r


def test_people_are_shared_across_records_and_loads() -> None:
    """One Person object per (name, affiliations), whichever record or pickle names it: a rebuild
    loads a thousand authors' snapshots, whose records name the same co-authors."""
    a = Record(key="k1", title="One", year=2020, authors=(Person("Grace Hopper"), Person("Edsger Dijkstra", ("TU/e",))))
    b = Record(key="k2", title="Two", year=2021, authors=(Person("Edsger Dijkstra", ("TU/e",)), Person("Grace Hopper")))
    first = pickle.loads(values.dumps((a, b)))
    second = pickle.loads(values.dumps(b))
    assert first[0].authors[0] is first[1].authors[1] is second.authors[1]
    assert first[0].authors[1] is first[1].authors[0] is second.authors[0]
    # the same name with and without an affiliation stays two people
    c = pickle.loads(values.dumps(Record(key="k3", title="Three", year=2022, authors=(Person("Edsger Dijkstra"),))))
    assert c.authors[0] is not second.authors[0] and c.authors[0].affiliations == ()


def test_the_people_of_a_build_are_let_go_when_it_ends() -> None:
    """``hollow.forget`` at the end of a build empties the table once no hollow record is left:
    a preview running for days keeps no name it saw only once."""
    from generator.incremental import hollow

    saved = dict(hollow._HOLLOW)   # (the registry is the process's: other tests' records set aside)
    hollow._HOLLOW.clear()
    try:
        pickle.loads(values.dumps(Record(key="k4", title="Four", year=2023, authors=(Person("Barbara Liskov"),))))
        assert "Barbara Liskov" in values.PEOPLE.by_name
        hollow.forget([])
        assert values.PEOPLE.by_name == {} and values.PEOPLE.by_pair == {}
    finally:
        hollow._HOLLOW.update(saved)
