"""generator.assemble.merge: one record per work across arXiv, DBLP, ORCID, OpenAlex, feeds and typed-in records.

Exact id and DOI matches, the title + year rule and its near misses (which must stay apart),
the author's ``separate`` pairs, the merged record's fields, and properties over generated
source mixes: no record lost or duplicated, and the same result whatever the order of the sources.
"""

from __future__ import annotations

import dataclasses

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.assemble.merge import handle, merge, merge_records, normalize_title
from generator.core.model import Person, Record, record_key

PREPRINT_ABSTRACT = "We make joins fast."


def arxiv(title: str = "Fast Joins on Graphs", year: int = 2024, arxiv_id: str = "2401.01234", **kw: object) -> Record:
    return Record(key=f"arxiv:{arxiv_id}", title=title, year=year, arxiv_id=arxiv_id, version=2,
                  abstract=PREPRINT_ABSTRACT, subjects=("cs.DB", "cs.DS"), primary_subject="cs.DB",
                  published=f"{year}-01-05T00:00:00Z", authors=(Person("Ada Lovelace"),), **kw)  # type: ignore[arg-type]


def dblp(title: str = "Fast Joins on Graphs.", year: int = 2024, key: str = "conf/vldb/Lovelace24",
         doi: str | None = "10.14778/3654621.3654622", venue: str = "VLDB 2024", **kw: object) -> Record:
    return Record(key=record_key(None, doi, title, year), title=title, year=year, source="DBLP", doi=doi,
                  venue=venue, source_ids=kw.pop("source_ids", (("dblp", key),)), origins=("DBLP",),  # type: ignore[arg-type]
                  **kw)  # type: ignore[arg-type]


def openalex(title: str = "Fast joins on graphs", year: int = 2024, work: str = "W4390000001",
             doi: str | None = "10.14778/3654621.3654622", **kw: object) -> Record:
    return Record(key=record_key(None, doi, title, year), title=title, year=year, source="OpenAlex", doi=doi,
                  venue=kw.pop("venue", "Proceedings of the VLDB Endowment"),  # type: ignore[arg-type]
                  source_ids=(("openalex", work),), origins=("OpenAlex",), citations=42,
                  citations_date="2026-11-30", **kw)  # type: ignore[arg-type]


def orcid(title: str = "Fast Joins on Graphs", year: int = 2024, put_code: str = "123456", **kw: object) -> Record:
    return Record(key=record_key(None, kw.get("doi"), title, year), title=title, year=year,  # type: ignore[arg-type]
                  source="ORCID", source_ids=(("orcid", put_code),), origins=("ORCID",), **kw)  # type: ignore[arg-type]


def typed(title: str, year: int | None = 2024, order: int = 0, **kw: object) -> Record:
    return Record(key=record_key(None, None, title, year), title=title, year=year, order=order, **kw)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- exact matches

def test_arxiv_preprint_and_published_records_become_one_with_every_link() -> None:
    pre, pub, oa = arxiv(), dblp(), openalex()
    result = merge([pub, oa, pre])
    [group] = result.groups
    m = group.record
    assert m.key == "arxiv:2401.01234" and m.arxiv_id == "2401.01234"
    assert m.venue == "VLDB 2024"                         # the published venue (DBLP ranks before OpenAlex)
    assert m.doi == "10.14778/3654621.3654622"
    assert m.abstract == PREPRINT_ABSTRACT                # the preprint's abstract, the others have none
    assert m.subjects == ("cs.DB", "cs.DS")               # the arXiv subjects are kept
    assert m.origins == ("arXiv", "DBLP", "OpenAlex")
    assert m.source_ids == (("dblp", "conf/vldb/Lovelace24"), ("openalex", "W4390000001"))
    assert (m.citations, m.citations_date) == (42, "2026-11-30")
    reasons = sorted(d.reason for d in group.decisions)
    assert reasons == ["same DOI 10.14778/3654621.3654622", "title+year"]


def test_same_arxiv_id_matches_whatever_the_titles() -> None:
    copy = dblp(title="Fast joins (CoRR copy)", doi=None, venue="CoRR abs/2401.01234", key="journals/corr/abs-2401-01234",
                arxiv_id="2401.01234")
    [group] = merge([arxiv(), copy]).groups
    assert [d.reason for d in group.decisions] == ["same arXiv id 2401.01234"]


def test_arxiv_doi_counts_as_the_arxiv_id() -> None:
    copy = openalex(title="Something else entirely", doi="10.48550/arXiv.2401.01234", venue="arXiv (Cornell University)")
    [group] = merge([arxiv(), copy]).groups
    assert [d.reason for d in group.decisions] == ["same arXiv id 2401.01234"]
    assert group.record.doi == "10.48550/arXiv.2401.01234"   # no published DOI: the arXiv one is kept


def test_published_doi_wins_over_the_arxiv_doi() -> None:
    oa_copy = openalex(title="X", doi="10.48550/arxiv.2401.01234", work="W1")
    [m] = merge_records([arxiv(), oa_copy, dblp()])
    assert m.doi == "10.14778/3654621.3654622"
    assert m.source_ids == (("dblp", "conf/vldb/Lovelace24"), ("openalex", "W1"))


def test_same_dblp_key_openalex_id_or_orcid_put_code_match() -> None:
    a = dblp(title="One title", doi=None)
    b = dblp(title="Another title", doi=None, year=2020)
    [group] = merge([a, b]).groups
    assert [d.reason for d in group.decisions] == ["same DBLP key conf/vldb/Lovelace24"]
    [g2] = merge([orcid(title="A"), orcid(title="B", year=2001)]).groups
    assert [d.reason for d in g2.decisions] == ["same ORCID put-code 123456"]
    [g3] = merge([openalex(title="A", doi=None), openalex(title="B", doi=None, year=1999)]).groups
    assert [d.reason for d in g3.decisions] == ["same OpenAlex id W4390000001"]


def test_doi_match_is_case_insensitive() -> None:
    [m] = merge_records([dblp(doi="10.1145/ABC.1"), orcid(title="Other", doi="10.1145/abc.1")])
    assert set(m.origins) == {"DBLP", "ORCID"}


def test_typed_in_record_gains_the_fetched_ids_and_keeps_its_place() -> None:
    mine = typed("Fast joins on graphs", 2024, order=3, comment="Best paper")
    [m] = merge_records([mine, arxiv(order=7)])   # type: ignore[call-arg]
    assert m.arxiv_id == "2401.01234" and m.comment == "Best paper" and m.order == 3


def test_preprint_then_published_the_next_year_is_one_work() -> None:
    pre, pub = arxiv(year=2024), dblp(year=2025, venue="VLDB 2025", doi=None)
    [group] = merge([pre, pub]).groups
    assert [d.reason for d in group.decisions] == ["title, preprint 2024 then published 2025"]
    assert group.record.venue == "VLDB 2025" and group.record.year == 2025


# ----------------------------------------------------------------------------- near misses stay apart

def _apart(*records: Record) -> list[str]:
    result = merge(records)
    assert len(result.groups) == len(records), [g.record.title for g in result.groups]
    return [d.reason for d in result.apart]


def test_part_one_and_part_two_stay_apart() -> None:
    _apart(typed("Graph Joins, Part I"), typed("Graph Joins, Part II"), typed("Graph joins part III."))
    _apart(dblp(title="Graph Joins: Part 1", doi=None, key="k1"), dblp(title="Graph Joins: Part 2", doi=None, key="k2"))


def test_errata_and_corrigenda_stay_apart_from_the_paper() -> None:
    paper = dblp(title="Fast Joins on Graphs.", doi="10.1/a", key="k1")
    _apart(paper, dblp(title="Erratum: Fast Joins on Graphs.", doi="10.1/b", key="k2"),
           dblp(title="Corrigendum to Fast Joins on Graphs", doi=None, key="k3"),
           typed("Fast Joins on Graphs (Erratum)"), typed("Correction to: Fast joins on graphs"))


def test_extended_version_stays_apart() -> None:
    _apart(typed("Fast Joins"), typed("Fast Joins: Extended Version"), typed("Fast Joins (extended abstract)"))


def test_same_title_in_another_year_stays_apart_with_a_reason() -> None:
    assert _apart(typed("A Survey of Joins", 2023), typed("A survey of joins", 2024)) == [
        "same title, different years (2023, 2024)"]
    # the preprint rule is narrow: published two years later, before, or two preprints
    _apart(arxiv(year=2024), dblp(year=2026, doi=None))
    _apart(arxiv(year=2024), dblp(year=2023, doi=None))
    _apart(arxiv(year=2024), arxiv(year=2025, arxiv_id="2501.00001"))


def test_two_arxiv_ids_or_two_dois_never_become_one_record() -> None:
    reasons = _apart(arxiv(arxiv_id="2401.00001"), arxiv(arxiv_id="2401.00002"))
    assert reasons == ["different arXiv ids (2401.00001, 2401.00002)"]
    reasons = _apart(dblp(doi="10.1/conf", key="k1"), openalex(doi="10.1/journal"))
    assert reasons == ["different DOIs (10.1/conf, 10.1/journal)"]


def test_a_title_match_does_not_join_two_ids_through_a_third_record() -> None:
    """A typed-in record matching two arXiv records by title joins one of them, never both."""
    a1, a2 = arxiv(arxiv_id="2401.00001"), arxiv(arxiv_id="2401.00002")
    result = merge([typed("Fast Joins on Graphs"), a1, a2])
    assert len(result.groups) == 2
    assert sorted(len(g.parts) for g in result.groups) == [1, 2]


def test_same_title_and_year_in_different_venues_stay_apart() -> None:
    reasons = _apart(dblp(title="Editorial.", doi=None, key="k1", venue="SIGMOD Rec. 2024"),
                     dblp(title="Editorial", doi=None, key="k2", venue="VLDB J. 2024"))
    assert reasons == ["same title, different venues (SIGMOD Rec. 2024 / VLDB J. 2024)"]


def test_titles_in_other_scripts_do_not_collapse_to_nothing() -> None:
    assert normalize_title("图数据库中的快速连接") != ""
    _apart(typed("图数据库中的快速连接"), typed("图数据库中的索引"))
    assert normalize_title("<i>Fast</i> Joins on  Gráphs.") == normalize_title("\\emph{fast} joins on graphs")
    assert normalize_title("...") == ""
    _apart(typed("..."), typed("?!"))   # nothing left to compare: never a match


# ----------------------------------------------------------------------------- separate

def test_separate_keeps_a_wrong_merge_apart_by_any_id() -> None:
    pre, pub = arxiv(), dblp()
    assert len(merge([pre, pub]).groups) == 1
    for pair in [("arxiv:2401.01234", "dblp:conf/vldb/Lovelace24"), ("2401.01234v2", "doi:10.14778/3654621.3654622"),
                 ("https://doi.org/10.14778/3654621.3654622", "https://arxiv.org/abs/2401.01234"),
                 (pub.key, pre.key)]:
        result = merge([pre, pub], separate=[pair])
        assert len(result.groups) == 2, pair
        assert [d.reason for d in result.apart] == [f"kept apart by the author's separate: "
                                                    f"[{handle(pair[0])}, {handle(pair[1])}]"]


def test_separate_holds_against_a_chain_through_a_third_record() -> None:
    pre, pub, oa = arxiv(), dblp(), openalex(doi=None, title="Fast Joins on Graphs", venue=None)
    result = merge([pre, pub, oa], separate=[("arxiv:2401.01234", "dblp:conf/vldb/Lovelace24")])
    assert sorted(len(g.parts) for g in result.groups) == [1, 2]
    again = merge([oa, pub, pre], separate=[("dblp:conf/vldb/Lovelace24", "arxiv:2401.01234")])
    assert again.records == result.records


def test_separate_naming_nothing_changes_nothing() -> None:
    records = [arxiv(), dblp()]
    assert merge_records(records, separate=[("arxiv:9999.99999", "doi:10.1/none")]) == merge_records(records)


# ----------------------------------------------------------------------------- pass-through and order

def test_a_record_that_matches_nothing_is_the_same_object() -> None:
    r = typed("Alone")
    assert merge_records([r])[0] is r


def test_output_follows_the_source_position_then_the_content() -> None:
    records = [typed(f"T{i}", order=i) for i in range(5)]
    assert merge_records(list(reversed(records))) == records


# ----------------------------------------------------------------------------- generated source mixes

WORKS = [("Fast Joins on Graphs", 2024, "2401.01234", "10.1/a"), ("Graph Joins, Part I", 2023, "2301.00001", None),
         ("Graph Joins, Part II", 2023, None, "10.1/b"), ("A Survey of Joins", 2022, None, None),
         ("A Survey of Joins", 2021, "2104.00004", None), ("Erratum: Fast Joins on Graphs", 2024, None, "10.1/c")]


@st.composite
def source_mix(draw: st.DrawFn) -> list[Record]:
    """Copies of a few works as arXiv, DBLP, OpenAlex, ORCID, typed-in records, ids kept or lost."""
    out: list[Record] = []
    for w, (title, year, aid, doi) in enumerate(WORKS):
        for kind in draw(st.lists(st.sampled_from(["arxiv", "dblp", "openalex", "orcid", "typed"]), max_size=4)):
            keep_id = draw(st.booleans())
            spelled = draw(st.sampled_from([title, title.upper(), title + ".", f"<i>{title}</i>"]))
            if kind == "arxiv" and aid:
                out.append(arxiv(spelled, year, aid, order=draw(st.integers(0, 3))))
            elif kind == "dblp":
                out.append(dblp(spelled, year, key=f"k{w}", doi=doi if keep_id else None, venue=f"V{w}"))
            elif kind == "openalex":
                out.append(openalex(spelled, year, work=f"W{w}", doi=doi if keep_id else None, venue=None))
            elif kind == "orcid":
                out.append(orcid(spelled, year, put_code=str(w), doi=doi if keep_id else None))
            else:
                out.append(typed(spelled, year, order=draw(st.integers(0, 3))))
    return out


@settings(max_examples=100, deadline=None)
@given(source_mix(), st.randoms(use_true_random=False))
def test_no_record_lost_or_duplicated_and_order_does_not_matter(records: list[Record], rnd: random.Random) -> None:
    result = merge(records)
    parts = [p for g in result.groups for p in g.parts]
    assert sorted(map(id, parts)) == sorted(map(id, records))       # each input in exactly one group
    for g in result.groups:
        assert len(g.decisions) == len(g.parts) - 1                   # every join has its reason
        assert len({a for p in g.parts if (a := p.arxiv_id)}) <= 1   # never two arXiv ids in one record
        assert len({normalize_title(p.title) for p in g.parts if p.source == "arXiv" and p.arxiv_id}) <= 1
        assert g.record.origins or len(g.parts) == 1
    shuffled = list(records)
    rnd.shuffle(shuffled)
    assert merge_records(shuffled) == result.records
    assert merge_records(result.records) == result.records            # merging again changes nothing
    works = {(normalize_title(r.title), r.year) for r in records if not r.title.lower().startswith("erratum")}
    assert len(result.groups) >= len({t for t, _ in works})           # distinct titles never collapse


# ----------------------------------------------------------------------------- links to each source

def test_source_links_are_built_from_checked_ids_only() -> None:
    from generator.core import ids

    r = dblp(source_ids=(("dblp", "conf/vldb/Lovelace24"), ("openalex", "https://openalex.org/W12"),
                         ("orcid", "0000-0002-1825-0097/99"), ("orcid", "123456"), ("dblp", "javascript:alert(1)"),
                         ("openalex", "W1\"><script>"), ("dblp", "../../etc/passwd"), ("mag", "123")))
    assert r.source_links == (("DOI", "https://doi.org/10.14778/3654621.3654622"),
                              ("DBLP", "https://dblp.org/rec/conf/vldb/Lovelace24.html"),
                              ("OpenAlex", "https://openalex.org/works/W12"),
                              ("ORCID", "https://orcid.org/0000-0002-1825-0097"))
    assert ids.dblp_url("journals/pvldb/O'Neil24") == "https://dblp.org/rec/journals/pvldb/O%27Neil24.html"
    assert ids.orcid_url("123456") is None      # a put-code alone names no person
    assert arxiv().source_links == (("arXiv", "https://arxiv.org/abs/2401.01234"),)


# ----------------------------------------------------------------------------- the setting, read from YAML

def test_separate_is_read_from_the_author_file_and_bad_pairs_are_named(tmp_path) -> None:  # noqa: ANN001
    import pytest

    from generator.config import load_site
    from generator.core.errors import SiteError
    from helpers import make_project

    good = make_project(tmp_path / "good", {"content/authors/ada.yaml": """\
        name: Ada
        separate:
          - ['arxiv:2401.01234', 'dblp:conf/vldb/Lovelace24']
          - [2401.01235v1, "doi:10.1/x"]
        """})
    [ada] = load_site(good).authors
    assert ada.separate == (("arxiv:2401.01234", "dblp:conf/vldb/Lovelace24"), ("2401.01235v1", "doi:10.1/x"))
    bad = make_project(tmp_path / "bad", {"content/authors/ada.yaml": """\
        name: Ada
        separate:
          - [a, b, c]
          - [a, a]
          - [a, 1]
          - a
          - ['', b]
        """})
    with pytest.raises(SiteError) as info:
        load_site(bad)
    problems = [str(p) for p in info.value.problems]
    assert [p.split(":")[1] for p in problems] == ["3", "4", "5", "6", "7"]
    assert problems[0] == ("content/authors/ada.yaml:3: 'separate[0]' must be a pair of two different record ids "
                           "such as ['arxiv:2401.01234', 'doi:10.1000/x'], found a list")
    notalist = make_project(tmp_path / "worse", {"content/authors/ada.yaml": "name: Ada\nseparate: arxiv:1\n"})
    with pytest.raises(SiteError, match=r"'separate' must be a list of pairs such as \[\[a, b\]\], found the text"):
        load_site(notalist)


def test_citations_setting_accepts_only_openalex(tmp_path) -> None:  # noqa: ANN001
    import pytest

    from generator.config import load_site
    from generator.core.errors import SiteError
    from helpers import make_project

    assert load_site(make_project(tmp_path / "a", {"site.yaml": "title: T\ncitations: openalex\n"})).citations == "openalex"
    assert load_site(make_project(tmp_path / "b", {"site.yaml": "title: T\n"})).citations is None
    with pytest.raises(SiteError, match="'citations' must be 'openalex' .the only source of citation counts., "
                                        "found 'scholar'"):
        load_site(make_project(tmp_path / "c", {"site.yaml": "title: T\ncitations: scholar\n"}))


def test_the_year_is_the_published_versions_when_the_preprint_is_older() -> None:
    [m] = merge_records([arxiv(year=2024), dblp(year=2025, venue="Proc. VLDB Endow.", doi=None)])
    assert (m.year, m.venue) == (2025, "Proc. VLDB Endow.")     # one year: never "2024 ... 2025" (issue 30)
    [m] = merge_records([arxiv(year=2024), dblp(year=2025, venue="VLDB 2025", doi=None)])
    assert m.venue == "VLDB 2025"


def test_dblps_copy_of_a_preprint_is_named_not_numbered() -> None:
    r = dblp(source_ids=(("dblp", "journals/corr/abs-2401-01234"), ("dblp", "journals/pvldb/DoeS25")), doi=None)
    assert [label for label, _ in r.source_links] == ["DBLP CoRR", "DBLP"]     # never "DBLP 2" (issue 30)
    with_arxiv = dataclasses.replace(r, arxiv_id="2401.01234")
    assert [label for label, _ in with_arxiv.source_links] == ["arXiv", "DBLP"]   # the CoRR copy is arXiv's


@settings(max_examples=50, deadline=None)
@given(source_mix(), st.data())
def test_separate_pairs_never_end_in_one_record(records: list[Record], data: st.DataObject) -> None:
    from generator.assemble.merge import handles

    names = sorted({h for r in records for h in handles(r)})
    if len(names) < 2:
        return
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)).filter(lambda p: p[0] != p[1]),
                               max_size=3))
    result = merge(records, pairs)
    assert sorted(map(id, (p for g in result.groups for p in g.parts))) == sorted(map(id, records))
    for g in result.groups:
        inside = {h for p in g.parts for h in handles(p)}
        for x, y in pairs:
            # a pair naming two ids of one record cannot be honoured; any other pair splits its records
            if not any({handle(x), handle(y)} <= handles(p) for p in g.parts):
                assert not ({handle(x), handle(y)} <= inside and len(g.parts) > 1 and _split(g.parts, x, y)), (x, y)


def _split(parts: tuple[Record, ...], x: str, y: str) -> bool:
    """True if one part is named by x and another (not the same) by y."""
    from generator.assemble.merge import handles

    xs = [p for p in parts if handle(x) in handles(p)]
    ys = [p for p in parts if handle(y) in handles(p)]
    return any(a is not b for a in xs for b in ys)
