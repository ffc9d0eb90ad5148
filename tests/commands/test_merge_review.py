"""``authorsite review``: which sources gave each merged record, why records were merged or kept apart.

The records are handed in as one typed-in source (a real ``RecordsSource``, read like any other);
what the review prints is the build's own merge, so the two cannot disagree.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from generator.assemble.site import assemble
from generator.config import AuthorConfig, RecordsSource, SiteConfig
from generator.review import format_review, review_author
from generator.store.reader import Store
from generator.core.taxonomy import load_taxonomy

from test_merge import arxiv, dblp, openalex, orcid, typed


def _site(tmp_path: Path, *records: object, separate: tuple[tuple[str, str], ...] = ()) -> SiteConfig:
    ada = AuthorConfig(slug="ada", name="Ada Lovelace", path="content/authors/ada.yaml",
                       sources=(RecordsSource(records=tuple(records)),), separate=separate)  # type: ignore[arg-type]
    return SiteConfig(root=tmp_path, title="T", base_url="/", authors=(ada,))


def test_review_shows_the_sources_and_reasons_of_each_merge(tmp_path: Path) -> None:
    config = _site(tmp_path, arxiv(), dblp(), openalex(), typed("Graph Joins, Part I", 2023),
                   typed("Graph Joins, Part II", 2023), typed("A Survey of Joins", 2022),
                   typed("A survey of joins", 2021))
    lines = format_review(review_author(config, "ada"))
    text = "\n".join(lines)
    assert "\n1 record(s) merged from several sources ('separate' undoes a wrong one):" in lines
    assert "  2401.01234v2        2024  Fast Joins on Graphs" in lines
    assert "    from arXiv, DBLP, OpenAlex" in lines
    assert "    arXiv arxiv:2401.01234 + DBLP doi:10.14778/3654621.3654622: title+year" in lines
    assert ("    DBLP doi:10.14778/3654621.3654622 + OpenAlex doi:10.14778/3654621.3654622: "
            "same DOI 10.14778/3654621.3654622") in lines
    assert "2 pair(s) kept apart:" in text
    assert "same title, different years (2021, 2022)" in text
    assert "similar titles, not the same work (titles differ)" in text
    assert lines[-1].endswith("7 typed in (kept)")


def test_review_names_the_separate_pair_that_kept_two_records_apart(tmp_path: Path) -> None:
    config = _site(tmp_path, arxiv(), dblp(), separate=(("2401.01234", "dblp:conf/vldb/Lovelace24"),))
    text = "\n".join(format_review(review_author(config, "ada")))
    assert "merged from several sources" not in text
    assert ("arXiv arxiv:2401.01234 / DBLP doi:10.14778/3654621.3654622: kept apart by the author's "
            "separate: [arxiv:2401.01234, dblp:conf/vldb/Lovelace24]") in text
    [ada] = assemble(config, Store(), load_taxonomy()).authors   # the build agrees
    assert len(ada.records) == 2


def test_review_escapes_terminal_controls_in_merged_titles(tmp_path: Path) -> None:
    config = _site(tmp_path, arxiv(title="Evil\x1b[2J title"), dblp(title="Evil\x1b[2J title", doi=None))
    text = "\n".join(format_review(review_author(config, "ada")))
    assert "\x1b" not in text and "Evil\\x1b[2J title" in text


def test_lint_judges_merged_records(tmp_path: Path) -> None:
    """A preprint with DBLP's CoRR copy and the published article is one work, not a duplicate; DBLP
    records have no abstracts (nothing to fix); a typed-in record listed twice still is one."""
    from generator.lint import lint

    corr = dblp(title="Fast Joins on Graphs.", doi=None, venue=None, key="journals/corr/abs-2401-01234",
                arxiv_id="2401.01234")
    config = _site(tmp_path, arxiv(), corr, dblp(year=2025, doi=None), dblp(title="Another one", key="k", doi=None))
    assert lint(config, Store(), load_taxonomy()) == []
    twice = _site(tmp_path, arxiv(), arxiv(), typed("No abstract"))
    assert lint(twice, Store(), load_taxonomy()) == [
        "content/authors/ada.yaml: record 'Fast Joins on Graphs' is listed twice; remove one copy",
        "content/authors/ada.yaml: arXiv 2401.01234 appears 2 times in the sources",
        "content/authors/ada.yaml: record 'No abstract' has no abstract"]


def test_review_names_a_separate_pair_that_matches_no_record(tmp_path: Path) -> None:
    config = _site(tmp_path, arxiv(), dblp(), separate=(("arxiv:2401.01234", "dblp:conf/vldb/Lovelace42"),))
    text = "\n".join(format_review(review_author(config, "ada")))
    assert ("separate: [arxiv:2401.01234, dblp:conf/vldb/Lovelace42] in content/authors/ada.yaml names no record "
            "of this author; check the ids") in text
    assert "merged from several sources" in text       # the pair did not match: the merge stands


def test_no_abstract_is_reported_only_where_a_source_normally_gives_one(tmp_path: Path) -> None:
    """DBLP, ORCID (with or without a put-code) and OpenAlex records seldom have abstracts: silent.
    A merged record with an arXiv or typed-in part and still no abstract is reported, once."""
    from generator.lint import lint

    quiet = _site(tmp_path, dblp(title="Only in DBLP", doi=None, key="conf/x/A24"),
                  orcid(title="Only in ORCID"), dataclasses.replace(orcid(title="ORCID without put-code"), source_ids=()),
                  openalex(title="Only in OpenAlex", doi=None, work="W1"))
    assert lint(quiet, Store(), load_taxonomy()) == []
    merged = _site(tmp_path, dataclasses.replace(arxiv(), abstract=""), dblp(), openalex())    # the preprint had none either
    assert lint(merged, Store(), load_taxonomy()) == [
        "content/authors/ada.yaml: record 'Fast Joins on Graphs' has no abstract"]
    kept = _site(tmp_path, arxiv(), dblp())                  # the preprint's abstract is kept: silent
    assert lint(kept, Store(), load_taxonomy()) == []
    typed_with_dblp = _site(tmp_path, typed("Fast Joins on Graphs", doi="10.14778/3654621.3654622"), dblp())
    assert lint(typed_with_dblp, Store(), load_taxonomy()) == [
        "content/authors/ada.yaml: record 'Fast Joins on Graphs.' has no abstract"]
