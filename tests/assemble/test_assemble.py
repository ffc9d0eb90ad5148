"""generator.assemble.site: merging, ordering and the subject index. Pure functions, real model values."""

from __future__ import annotations

from pathlib import Path

from generator.assemble.site import assemble, kept_records, merge_records, sort_newest_first
from generator.store.cache import CacheEntry
from generator.store.reader import Store
from generator.config import ArxivSource, AuthorConfig, Filters, RecordsSource, SiteConfig, title_digest
from generator.core.model import Record
from generator.core.taxonomy import load_taxonomy


def rec(title: str, year: int | None = 2024, *, key: str | None = None, order: int = 0, **fields: object) -> Record:
    arxiv_id = fields.get("arxiv_id")
    doi = fields.get("doi")
    if key is None:
        key = f"arxiv:{arxiv_id}" if arxiv_id else f"doi:{doi}" if doi else f"title:{title_digest(title, year)}"
    return Record(key=key, title=title, year=year, order=order, **fields)  # type: ignore[arg-type]


def author(slug: str, *records: Record, name: str | None = None, **kw: object) -> AuthorConfig:
    return AuthorConfig(slug=slug, name=name or slug.title(), path=f"content/authors/{slug}.yaml",
                        sources=(RecordsSource(records=tuple(records)),), **kw)  # type: ignore[arg-type]


def site(*authors: AuthorConfig) -> SiteConfig:
    return SiteConfig(root=Path("/nonexistent"), title="T", base_url="/", authors=tuple(authors))


# ----------------------------------------------------------------------------- merging

def test_merge_by_arxiv_id_fills_gaps_from_both() -> None:
    a = rec("Deep Things", arxiv_id="2401.01234", abstract="", subjects=("cs.LG",), order=0)
    b = rec("Deep things (extended)", arxiv_id="2401.01234", abstract="An abstract.", doi="10.1000/x", order=1)
    [m] = merge_records([a, b])
    assert m.key == "arxiv:2401.01234"
    assert m.title == "Deep Things"              # first seen wins
    assert m.abstract == "An abstract." and m.doi == "10.1000/x" and m.subjects == ("cs.LG",)


def test_merge_keeps_the_latest_version() -> None:
    v1 = rec("Old title", arxiv_id="2401.01234", version=1, abstract="v1")
    v2 = rec("New title", arxiv_id="2401.01234", version=2, abstract="v2")
    [m] = merge_records([v1, v2])
    assert (m.version, m.title, m.abstract) == (2, "New title", "v2")


def test_merge_by_doi() -> None:
    a = rec("Published version", doi="10.1145/3299869.3319893", journal_ref="SIGMOD 2019")
    b = rec("Preprint title differs", doi="10.1145/3299869.3319893", arxiv_id="1811.00001", year=2024)
    [m] = merge_records([a, b])
    assert m.arxiv_id == "1811.00001" and m.journal_ref == "SIGMOD 2019"
    assert m.key == "arxiv:1811.00001"


def test_merge_typed_in_record_with_fetched_one_by_title_and_year() -> None:
    typed = rec("SparkDiffusion: Mitigating the High-Sparsity Trap", 2026, abstract="Typed abstract.",
                subjects=("cs.CV",), order=3)
    fetched = rec("SparkDiffusion -- mitigating the high-sparsity trap", 2026, arxiv_id="2601.00001",
                  published="2026-01-05T00:00:00Z", subjects=("cs.CV", "cs.LG"), order=0)
    [m] = merge_records([typed, fetched])
    assert m.arxiv_id == "2601.00001" and m.key == "arxiv:2601.00001"
    assert m.published == "2026-01-05T00:00:00Z"
    assert m.subjects == ("cs.CV", "cs.LG")      # the arXiv record's fields are preferred
    assert m.abstract == "Typed abstract."       # gaps filled from the typed-in one
    assert m.order == 0


def test_no_merge_for_same_title_in_another_year() -> None:
    a, b = rec("A survey", 2023), rec("A survey", 2024)
    assert sorted(merge_records([b, a]), key=lambda r: r.year or 0) == [a, b]   # order: see test_merge.py


def test_no_merge_for_different_works() -> None:
    records = [rec("One", arxiv_id="2401.00001"), rec("Two", arxiv_id="2401.00002"), rec("Three", doi="10.1000/3")]
    assert merge_records(records) == records


def test_merge_is_transitive_across_keys() -> None:
    """A typed-in record (title+year) meets a DOI record, then an arXiv record with that DOI: one work."""
    typed = rec("Graph Things", 2022)
    by_doi = rec("Graph Things", 2022, doi="10.1000/g")
    by_id = rec("Graph things, the preprint", 2021, arxiv_id="2105.00001", doi="10.1000/g")
    merged = merge_records([typed, by_doi, by_id])
    assert len(merged) == 1
    assert merged[0].arxiv_id == "2105.00001"


# ----------------------------------------------------------------------------- ordering

def test_newest_first_keeps_typed_in_order_within_a_year() -> None:
    records = [rec(t, y, order=i) for i, (t, y) in enumerate(
        [("a", 2024), ("b", 2026), ("c", 2024), ("d", 2026), ("e", 2025), ("f", 2026)])]
    assert [r.title for r in sort_newest_first(records)] == ["b", "d", "f", "e", "a", "c"]


def test_newest_first_uses_dates_within_a_year_and_puts_undated_last() -> None:
    records = [
        rec("undated-1", 2025, order=0),
        rec("jan", 2025, published="2025-01-10T00:00:00Z"),
        rec("undated-2", 2025, order=1),
        rec("dec", 2025, published="2025-12-01T00:00:00Z"),
        rec("older", 2024, published="2024-12-31T23:59:59Z"),
        rec("no year", None),
    ]
    assert [r.title for r in sort_newest_first(records)] == ["dec", "jan", "undated-1", "undated-2", "older",
                                                              "no year"]


def test_author_records_are_merged_and_sorted() -> None:
    a = author("ada", rec("Old", 2020, order=0), rec("New", 2024, order=1), rec("new", 2024, order=2))
    [ada] = assemble(site(a), Store(), load_taxonomy()).authors
    assert [r.title for r in ada.records] == ["New", "Old"]
    assert ada.years == ((2024, 1), (2020, 1))


# ----------------------------------------------------------------------------- filters

def test_fetched_records_go_through_include_exclude_and_categories() -> None:
    fetched = CacheEntry(source={}, fetched_at="2026-01-01T00:00:00Z", records=(
        rec("Keep", arxiv_id="2401.00001", subjects=("cs.DB",)),
        rec("Namesake", arxiv_id="2401.00002", subjects=("q-bio.GN",)),
        rec("Excluded", arxiv_id="2401.00003", subjects=("cs.DB",)),
        rec("Included anyway", arxiv_id="2401.00004", subjects=("physics.optics",)),
    ))
    source = ArxivSource(query="au:Bin", categories=("cs.DB",))
    cfg = AuthorConfig(slug="bin", name="Bin", path="x", sources=(source,),
                       include=("2401.00004",), exclude=("2401.00003",), filters=Filters())
    assert [r.title for r in kept_records(cfg, Store().with_entry("bin", source, fetched))] == ["Keep",
                                                                                             "Included anyway"]
    assert kept_records(cfg, Store()) == []


# ----------------------------------------------------------------------------- subjects

def test_subject_index_across_authors() -> None:
    shared = dict(abstract="Shared.", subjects=("cs.DB", "cs.LG"))
    ada = author("ada", rec("Joint work", 2023, **shared), rec("Solo DB", 2025, subjects=("cs.DB",)),
                 rec("Physics", 2024, subjects=("hep-th",)))
    bob = author("bob", rec("Joint work", 2023, **shared), rec("Bob's ML", 2024, subjects=("cs.LG",)))
    model = assemble(site(ada, bob), Store(), load_taxonomy())
    codes = [s.code for s in model.subjects]
    # Grouped in arXiv's order (Physics before Computer Science), then by code.
    assert codes == ["hep-th", "cs.DB", "cs.LG"]
    by_code = {s.code: s for s in model.subjects}
    db = by_code["cs.DB"]
    assert (db.name, db.group_name) == ("Databases", "Computer Science")
    assert [r.title for r in db.records] == ["Solo DB", "Joint work"]   # once each, newest first
    assert db.authors == (("ada", 2), ("bob", 1))
    lg = by_code["cs.LG"]
    assert [r.title for r in lg.records] == ["Bob's ML", "Joint work"]
    assert dict(lg.authors) == {"ada": 1, "bob": 2}
    assert by_code["hep-th"].group_name == "Physics"
    joint = db.records[1]
    assert model.record_authors[joint.key] == ("ada", "bob")


def test_subject_index_skips_codes_that_are_not_arxiv_categories() -> None:
    fetched = CacheEntry(source={}, fetched_at="", records=(
        rec("With MSC", arxiv_id="2401.00001", subjects=("math.AP", "35J20")),))
    source = ArxivSource(query="au:M")
    cfg = AuthorConfig(slug="m", name="M", path="x", sources=(source,))
    model = assemble(site(cfg), Store().with_entry("m", source, fetched), load_taxonomy())
    assert [s.code for s in model.subjects] == ["math.AP"]


def test_author_subjects_count_cross_lists_as_the_filter_does() -> None:
    # issue 15 item 9: a chip counts every record the page's filter shows for it, cross-lists
    # included, and a subject only cross-listed has a chip too.
    a = author("ada", rec("x", subjects=("cs.DB", "cs.LG")), rec("y", subjects=("cs.DB",)),
               rec("z", subjects=("cs.LG",)), rec("w", subjects=("cs.DB", "math.ST")))
    [ada] = assemble(site(a), Store(), load_taxonomy()).authors
    assert ada.subjects == (("cs.DB", 3), ("cs.LG", 2), ("math.ST", 1))


def test_people_index_links_names_and_aliases() -> None:
    a = author("bin-cui", rec("x"), name="Bin Cui", aliases=("B. Cui",))
    model = assemble(site(a), Store(), load_taxonomy())
    assert model.people == {"bin cui": "bin-cui", "b cui": "bin-cui"}
