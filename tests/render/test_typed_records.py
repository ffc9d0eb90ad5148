"""Typed-in records (issue 13): their own label, a link only when they give one, their authors in
BibTeX and CSL-JSON, their own links (code, slides ...). Real builds of small inline sites; the
BibTeX is parsed back with bibtexparser, the pages with the standard library's parser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser

from generator.core.errors import SiteError
from generator.config import load_site
from helpers import build, make_project

AUTHOR = """\
name: Ada Lovelace
sources:
  - records:
      - title: A Note Without Any Link
        year: 2021
      - title: A Manual Entry
        year: 2022
        source: Journal
        authors: [Ada Lovelace, Charles Babbage]
        venue: Journal of Engines 3
        links: {code: 'https://example.org/code', slides: 'https://example.org/slides.pdf'}
      - title: A Paper With A URL
        year: 2023
        url: https://example.org/paper
      - title: A Paper With A DOI
        year: 2024
        doi: 10.5555/typed.1
      - title: An arXiv Paper
        year: 2020
        arxiv_id: '2001.00001'
"""


def _site(tmp_path: Path) -> Path:
    return build(make_project(tmp_path, {"content/authors/ada.yaml": AUTHOR}))


def _record(html: str, title: str) -> str:
    """The <li> of the record with ``title``."""
    for li in re.findall(r'<li class="record".*?</li>', html, re.S):
        if title in li:
            return li
    raise AssertionError(f"no record {title!r}")


def test_labels_and_links_of_typed_in_records(tmp_path: Path) -> None:
    html = (_site(tmp_path) / "authors" / "ada" / "index.html").read_text(encoding="utf-8")
    assert "arxiv.org/search" not in html            # never a guessed arXiv title search
    plain = _record(html, "A Note Without Any Link")
    assert 'class="badge"' not in plain and "Manual" not in plain    # no label given: none shown (issue 30)
    assert "<a " not in plain.split('<p class="record-links">')[0] and 'class="source"' not in plain
    manual = _record(html, "A Manual Entry")
    # a published record's badge is its venue's short form and year (issue 45), beside the venue in full
    assert '<span class="badge">Journal of Engines 3 2022</span>' in manual and '<i class="venue" dir="auto">Journal of Engines 3</i>' in manual
    assert re.findall(r'class="extra-link" href="([^"]+)"[^>]*>(\w+)<', manual) == [
        ("https://example.org/code", "Code"), ("https://example.org/slides.pdf", "Slides")]
    assert 'href="https://example.org/paper"' in _record(html, "A Paper With A URL")
    assert 'href="https://doi.org/10.5555/typed.1"' in _record(html, "A Paper With A DOI")
    arxiv = _record(html, "An arXiv Paper")
    assert '<span class="badge">arXiv</span>' in arxiv and '<span class="id" dir="ltr">arXiv:2001.00001</span>' in arxiv    # a preprint (issue 45)
    assert "https://arxiv.org/abs/2001.00001" in arxiv


def test_typed_in_records_keep_authors_in_bibtex_and_csl(tmp_path: Path) -> None:
    out = _site(tmp_path) / "authors" / "ada"
    lib = bibtexparser.parse_string((out / "publications.bib").read_text(encoding="utf-8"))
    by_title = {e.fields_dict["title"].value.strip("{}"): e for e in lib.entries}
    assert len(by_title) == 5
    for title, entry in by_title.items():
        assert "author" in entry.fields_dict, title
    assert by_title["A Manual Entry"].fields_dict["author"].value == "Lovelace, Ada and Babbage, Charles"
    assert by_title["A Note Without Any Link"].fields_dict["author"].value == "Lovelace, Ada and others"
    assert "url" not in by_title["A Note Without Any Link"].fields_dict
    csl = {item["title"]: item for item in json.loads((out / "publications.json").read_text(encoding="utf-8"))}
    assert all(item.get("author") for item in csl.values())
    assert csl["A Note Without Any Link"]["author"] == [{"family": "Lovelace", "given": "Ada", "suffix": "et al."}]
    assert "URL" not in csl["A Note Without Any Link"]
    assert csl["A Paper With A URL"]["URL"] == "https://example.org/paper"


def test_feed_entry_without_link_points_at_the_author_page(tmp_path: Path) -> None:
    feed = (_site(tmp_path) / "authors" / "ada" / "feed.xml").read_text(encoding="utf-8")
    entry = feed.split("A Note Without Any Link")[1].split("</entry>")[0]
    assert re.search(r'<link rel="alternate" type="text/html" href="/authors/ada/#r-[0-9a-f]+"/>', entry)


def test_hostile_record_links_are_refused_with_file_line_and_key(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"content/authors/ada.yaml": """\
        name: Ada
        sources:
          - records:
              - title: T
                year: 2020
                links: {code: 'javascript:alert(1)', demo: 'https://example.org/'}
        """})
    try:
        load_site(root)
    except SiteError as exc:
        lines = [str(p) for p in exc.problems]
    else:
        raise AssertionError("accepted a javascript: link")
    assert any("content/authors/ada.yaml:6:" in line and "code" in line and "http(s) URL" in line for line in lines)
    assert any("unknown key" in line and "demo" in line for line in lines), lines
