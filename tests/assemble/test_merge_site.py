"""A merged record on a built site: one entry with the venue, the arXiv abstract and a link to each
original source; citation counts only with ``citations: openalex`` (with their date, in CSL-JSON
as a note, never in BibTeX); the author page passes the Nu HTML checker and axe.

The DBLP and OpenAlex copies sit in the author's arXiv cache file next to the preprint (the cache
holds any records; their source kinds are tested with their fetchers), so the build reads them
through the store like any fetched record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.core import routes
from generator.store.cache import CacheEntry, cache_file, write_entry
from generator.config import load_site
from generator.core.model import Person, Record
from helpers import build, make_project, page_records
from quality_util import (BASE_PATH, format_axe, format_vnu, require_node_tools, run_axe, run_vnu,
                          static_server)
from test_merge import PREPRINT_ABSTRACT, arxiv, dblp, openalex

AUTHOR = """\
name: Ada Lovelace
sources:
  - arxiv: 'au:"Ada Lovelace"'
"""
PAGE = routes.author("ada").path
SITE = "title: Merge test\nbase_url: {base}\n{extra}"


def _site(tmp_path: Path, citations: bool, base: str = "/") -> Path:
    root = make_project(tmp_path, {
        "site.yaml": SITE.format(base=base, extra="citations: openalex\n" if citations else ""),
        "content/authors/ada.yaml": AUTHOR})
    config = load_site(root)
    [ada] = config.authors
    other = Record(key="arxiv:2402.00002", title="Another paper", year=2024, arxiv_id="2402.00002",
                   authors=(Person("Ada Lovelace"),), subjects=("cs.DB",), primary_subject="cs.DB")
    records = (arxiv(), dblp(source_ids=(("dblp", "conf/vldb/Lovelace24"), ("orcid", "0000-0002-1825-0097/1234"))),
               openalex(), other)
    write_entry(cache_file(config.cache_path, "ada", ada.sources[0]),  # type: ignore[arg-type]
                CacheEntry({"type": "arxiv", "query": 'au:"Ada Lovelace"'}, "2026-11-30T00:00:00Z", records))
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    return {on: build(_site(tmp_path_factory.mktemp(f"cit{on}"), on), search=False) for on in (False, True)}


def test_the_preprint_and_its_published_records_are_one_entry(built: dict[bool, Path]) -> None:
    html = (built[False] / PAGE).read_text("utf-8")
    records = page_records(html)
    assert len(records) == 2
    assert html.count("Fast Joins on Graphs") == 1 + html.count('"name":"Fast Joins on Graphs"')
    assert '<i class="venue" dir="auto">VLDB 2024</i>' in html
    assert PREPRINT_ABSTRACT in html
    for label, url in [("arXiv", "https://arxiv.org/abs/2401.01234"),
                       ("DOI", "https://doi.org/10.14778/3654621.3654622"),
                       ("DBLP", "https://dblp.org/rec/conf/vldb/Lovelace24.html"),
                       ("ORCID", "https://orcid.org/0000-0002-1825-0097"),
                       ("OpenAlex", "https://openalex.org/works/W4390000001")]:
        assert f'<a href="{url}">{label}</a>' in html, label
    assert "Linked to original sources" in html


def test_citations_only_when_the_site_turns_them_on(built: dict[bool, Path]) -> None:
    off = (built[False] / PAGE).read_text("utf-8")
    on = (built[True] / PAGE).read_text("utf-8")
    assert "Citations" not in off and "42" not in off
    assert ('<dt>Citations</dt><dd>42 <span class="n">(OpenAlex, <bdi><time datetime="2026-11-30">2026-11-30</time>'
            '</bdi>)</span></dd>') in on
    csl_off = json.loads((built[False] / routes.author_csl("ada").path).read_text("utf-8"))
    csl_on = json.loads((built[True] / routes.author_csl("ada").path).read_text("utf-8"))
    assert all("Cited" not in item.get("note", "") for item in csl_off)
    [merged] = [item for item in csl_on if item["id"] == "2401.01234"]
    assert merged["note"] == "Cited by 42 (OpenAlex, 2026-11-30)"
    bib = (built[True] / routes.author_bibtex("ada").path).read_text("utf-8")
    assert "42" not in bib and "Cited" not in bib and "OpenAlex" not in bib


def test_merged_author_page_passes_vnu_and_axe(tmp_path: Path, chromium) -> None:  # noqa: ANN001
    from browser_util import borrowed

    require_node_tools()
    out = build(_site(tmp_path, True, base="https://example.github.io" + BASE_PATH), search=False)
    page_file = out / PAGE
    errors = [format_vnu(m, out) for m in run_vnu([page_file])]
    assert errors == [], "\n".join(errors)
    with static_server(out) as base, borrowed(chromium) as browser:
        page = browser.new_page()  # type: ignore[attr-defined]
        page.goto(base + routes.author("ada").url, wait_until="load")
        violations = [format_axe(v, "merged author page") for v in run_axe(page)]
    assert violations == [], "\n".join(violations)
