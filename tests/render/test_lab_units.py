"""generator.render.lab's kinds and members' years, and generator.render.coauthors' layout, as pure functions."""

from __future__ import annotations

from generator.render.coauthors import MAX_WIDTH, coauthor_graph
from generator.render.lab import filter_id, kind_of, lab_of
from generator.core.model import Author, Person, Record


def _r(key: str, year: int | None = 2020, **kw: object) -> Record:
    return Record(key=key, title=f"Title {key}", year=year, **kw)  # type: ignore[arg-type]


def _author(slug: str, records: tuple[Record, ...], member: tuple[int | None, int | None] | None = None,
            group: str | None = None) -> Author:
    return Author(slug=slug, name=slug.title(), affiliation=None, bio_html="", links=(), records=records,
                  subjects=(), years=(), group=group, member=member)


def test_kinds_come_from_the_venue_the_dblp_key_and_the_arxiv_id() -> None:
    assert kind_of(_r("arxiv:1", arxiv_id="2401.00001")) == "preprint"
    assert kind_of(_r("title:a", source="arXiv")) == "preprint"          # typed in as arXiv, no id
    assert kind_of(_r("title:b", source="Talk")) == "other"
    assert kind_of(_r("title:c", journal_ref="J. Engines 3 (2020) 1-9")) == "journal"
    assert kind_of(_r("title:d", venue="Proceedings of the Symposium on X 2020")) == "conference"
    assert kind_of(_r("title:e", venue="PVLDB", source_ids=(("dblp", "conf/vldb/X20"),))) == "conference"
    assert kind_of(_r("title:f", venue="Proc. VLDB Endow.", source_ids=(("dblp", "journals/pvldb/X20"),))) == "journal"
    assert kind_of(_r("title:g", venue="PhD thesis, University of Examples")) == "thesis"
    assert kind_of(_r("title:h", venue="Some University", source_ids=(("dblp", "phd/X20"),))) == "thesis"


def test_a_members_years_bound_what_the_list_counts_and_undated_records_count() -> None:
    early, inside, late, undated = _r("k:1", 2015), _r("k:2", 2018), _r("k:3", 2022), _r("k:4", None)
    a = _author("ann", (late, inside, early, undated), member=(2016, 2020))
    lab = lab_of([a])
    assert [e.record.key for e in lab.entries] == ["k:2", "k:4"]
    assert lab.years == ((2018, 1), (None, 1))
    assert a.member_in(2016) and a.member_in(2020) and not a.member_in(2021) and a.member_in(None)
    assert _author("bob", ()).member_in(1900)


def test_one_work_listed_by_two_authors_is_one_entry_and_one_pair() -> None:
    shared = _r("arxiv:2401.00001", arxiv_id="2401.00001", authors=(Person("Ann"), Person("Bob")))
    lab = lab_of([_author("ann", (shared,), group="g"), _author("bob", (_r("arxiv:2401.00001", arxiv_id="2401.00001"),),
                                                                group="g")], groups=("g",))
    assert len(lab.entries) == 1 and lab.entries[0].members == ("ann", "bob")
    assert lab.pairs == (("ann", "bob", 1),)
    assert lab.groups == (("g", 1),)
    assert [(m.slug, m.count) for m in lab.members] == [("ann", 1), ("bob", 1)]


def test_the_graph_is_a_circle_in_site_order_with_edges_as_wide_as_their_works() -> None:
    people = [(f"p{i}", f"P {i}") for i in range(8)]
    pairs = [("p0", "p1", 1), ("p0", "p4", 30), ("p2", "p9", 3)]   # p9 is no node: no edge
    g = coauthor_graph(people, pairs)
    assert g == coauthor_graph(people, pairs)
    assert [n.slug for n in g.nodes] == [p[0] for p in people]
    assert (g.nodes[0].x, g.nodes[0].y) == (0.0, -90.0)                # the first at the top
    assert g.nodes[2].anchor == "start" and g.nodes[6].anchor == "end" and g.nodes[0].anchor == "middle"
    assert [(e.a, e.b, e.count, e.width) for e in g.edges] == [("p0", "p1", 1, 1), ("p0", "p4", 30, MAX_WIDTH)]


def test_filter_ids_are_safe_in_html_and_css() -> None:
    assert filter_id("subject", "cs.LG") == "only-subject-cs-LG"
    assert filter_id("year", None) == "only-year-undated"
    assert filter_id("member", "jane-doe") == "only-member-jane-doe"
