"""Rendered content of the demo build: math as MathML, macros, and the exports (BibTeX, CSL-JSON)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import bibtexparser


class _Titles(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.titles: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h3" and ("class", "record-title") in attrs:
            self.depth = 1
            self.titles.append("")
        elif self.depth:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.titles[-1] += data


def test_math_and_macros_on_the_demo_pages(demo) -> None:  # noqa: ANN001 - conftest fixture
    out = demo.out
    page = (out / "authors/bin-cui/index.html").read_text()
    assert re.search(r"SparkDiffusion[^<]*<math[^>]*>.*?<mn>265</mn>.*?</math>", page, re.S)
    assert "<em>high-sparsity trap</em>" in page
    assert r"\method" in page and r"\name" in page
    for html_file in out.rglob("*.html"):
        parser = _Titles()
        parser.feed(html_file.read_text())
        for title in parser.titles:
            assert "$" not in title, f"raw $ math in a title of {html_file}: {title}"


def test_bibtex_and_csl_json_exports(demo) -> None:  # noqa: ANN001
    out = demo.out
    for slug in ("bin-cui", "bingning-wang"):
        page = (out / f"authors/{slug}/index.html").read_text()
        n = page.count('class="record"')
        assert f"/authors/{slug}/publications.bib" in page and f"/authors/{slug}/publications.json" in page
        lib = bibtexparser.parse_string((out / f"authors/{slug}/publications.bib").read_text())
        assert lib.failed_blocks == []
        assert len(lib.entries) == n and len({e.key for e in lib.entries}) == n
        assert all("title" in e.fields_dict and "year" in e.fields_dict for e in lib.entries)
        items = json.loads((out / f"authors/{slug}/publications.json").read_text())
        assert isinstance(items, list) and len(items) == n
        for item in items:
            assert item["id"] and item["type"] in ("article", "article-journal") and item["title"]
            assert "$" not in item["title"] or "\\" in item["title"]


def test_data_json_is_a_small_index_of_the_authors(demo) -> None:  # noqa: ANN001
    """data.json: per author the name, slug, record count and the URLs of the page, the
    CSL-JSON export and the feed, each of which exists, and how its records were matched
    (generator.assemble.matching: counts by kind and the name-only ids); no records."""
    from generator.config import load_site

    base = load_site(demo.root).base_url
    data = json.loads((demo.out / "data.json").read_text())
    assert set(data) == {"title", "authors"}
    assert [a["slug"] for a in data["authors"]] == ["bin-cui", "bingning-wang", "jane-doe"]
    for a in data["authors"]:
        assert set(a) == {"name", "slug", "records", "url", "publications", "feed", "matched"}
        page = (demo.out / f"authors/{a['slug']}/index.html").read_text()
        assert f"At least {a['records']} record" in page
        assert a["url"] == f"{base}authors/{a['slug']}/"
        assert a["publications"] == a["url"] + "publications.json" and a["feed"] == a["url"] + "feed.xml"
        for key in ("publications", "feed"):
            assert (demo.out / a[key][len(base):]).is_file()
        assert len(json.loads((demo.out / a["publications"][len(base):]).read_text())) == a["records"]


def test_every_feed_is_discoverable_and_the_404_page_names_no_address(demo) -> None:  # noqa: ANN001
    """Feed readers find a page's feed by its <link rel="alternate">: the site feed on the home
    page, a subject's on its pages (only author pages had one), each also a visible link. The 404
    page is served at every missing address, so it has no canonical URL or og:url of its own."""
    alternate = '<link rel="alternate" type="application/atom+xml"'
    home, subject = demo.read("index.html"), demo.read("subjects/cs.CL/index.html")
    assert f'{alternate} title="Author profiles: new records" href="/authorsite/feed.xml">' in home
    assert '<a class="feed" href="/authorsite/feed.xml">' in home
    assert f'{alternate} title="Computation and Language (cs.CL): new records" href="/authorsite/subjects/cs.CL/feed.xml">' in subject
    assert '<a class="feed" href="/authorsite/subjects/cs.CL/feed.xml">Atom feed</a>' in subject
    missing = demo.read("404.html")
    assert 'rel="canonical"' not in missing and 'og:url' not in missing and 'og:title' in missing
