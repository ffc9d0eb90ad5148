"""A page per paper (issue 31, point 2): /papers/KEY/ for every work of every profiled author.

On the demo site: the paper pages pass the Nu HTML checker and axe (light and dark); their
``citation_*`` tags and JSON-LD agree with the record (title, authors, date, DOI, arXiv id);
author, subject and venue entries and the search index link to pages that exist; a changed
record re-renders its own page and no other; ``papers: false`` writes none and links none.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
from pathlib import Path

import pytest
import yaml
from quality_util import BASE_URL, PageWatch, format_axe, format_vnu, require_node_tools, run_axe, run_vnu, static_server

from generator.core import routes
from generator.assemble.site import assemble
from generator.config import load_site
from generator.core.latex import tex_to_text
from generator.core.model import Record, SiteModel
from generator.assemble.papers import collisions, key_of, paper_key
from generator.render.search_docs import documents, indexed_records
from generator.write.sitesize import measure, parts
from generator.store.reader import read_all
from generator.core.taxonomy import load_taxonomy
from helpers import build, copy_demo

SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def model(quality_site: Path) -> SiteModel:
    """The demo's site model, as the quality build assembled it (its inputs are in the folder beside its output)."""
    config = load_site(quality_site.parent / "site", base_url=BASE_URL)
    return assemble(config, read_all(config), load_taxonomy())


def _works(site: SiteModel) -> list[Record]:
    return [r for records in indexed_records(site).values() for r in records]


class _Head(html.parser.HTMLParser):
    """The meta tags (name, content) and the JSON-LD of a page, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: list[tuple[str, str]] = []
        self.jsonld: list[str] = []
        self._in_ld = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and a.get("name"):
            self.meta.append((a["name"] or "", a.get("content") or ""))
        self._in_ld = tag == "script" and a.get("type") == "application/ld+json"

    def handle_data(self, data: str) -> None:
        if self._in_ld:
            self.jsonld.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in_ld = False


def _head(path: Path) -> _Head:
    h = _Head()
    h.feed(path.read_text("utf-8"))
    return h


def _page(out: Path, site: SiteModel, r: Record) -> Path:
    return out / routes.paper(key_of(site.paper_keys, r.key)).path


# --- keys ------------------------------------------------------------------------------------

def test_keys_are_short_url_safe_and_one_to_one() -> None:
    keys = {"arxiv:2401.01234": "2401.01234", "arxiv:hep-th/9901001": "hep-th_9901001",
            "doi:10.1145/3318464.3380590": "10.1145_3318464.3380590", "title:0123456789ab": "t-0123456789ab"}
    assert {k: paper_key(k) for k in keys} == keys
    odd = paper_key("doi:10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0")
    assert re.fullmatch(r"h-[0-9a-f]{16}", odd)
    assert re.fullmatch(r"h-[0-9a-f]{16}", paper_key("doi:10.1/" + "x" * 200))
    # Two works whose digests were the same would be told apart by their keys' order, every build.
    assert collisions(["doi:10.1/a b", "doi:10.1/a c", "arxiv:2401.01234"]) == {}


# --- the Nu HTML checker and axe ---------------------------------------------------------------

def test_paper_pages_pass_the_nu_html_checker(quality_site: Path, model: SiteModel) -> None:
    require_node_tools()
    pages = sorted((quality_site / "papers").rglob("index.html"))
    assert len(pages) == len(_works(model)) >= 10
    errors = [format_vnu(m, quality_site) for m in run_vnu(pages)]
    assert not errors, f"{len(errors)} Nu checker error(s):\n" + "\n".join(errors)


def _under_test(site: SiteModel) -> list[Record]:
    """The demo's papers that show each part of the page: a DOI and a venue, an arXiv id, a
    typed-in record without either, and the longest byline."""
    works = _works(site)
    picks = [next(r for r in works if r.doi and r.venue), next(r for r in works if r.arxiv_id),
             next(r for r in works if not r.arxiv_id and not r.doi), max(works, key=lambda r: len(r.authors))]
    return list({r.key: r for r in picks}.values())


def test_paper_pages_have_no_axe_violations_light_and_dark(quality_site: Path, model: SiteModel, browser) -> None:  # noqa: ANN001
    require_node_tools()
    findings: list[str] = []
    with static_server(quality_site) as base:
        for r in _under_test(model):
            path = routes.paper(key_of(model.paper_keys, r.key)).url
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            watch = PageWatch(page, base.split("/authorsite")[0])
            page.goto(base + path, wait_until="load")
            assert page.evaluate("getComputedStyle(document.body).margin") == "0px", "style.css not applied"
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                findings += [format_axe(v, f"{path} ({scheme})") for v in run_axe(page)]
            findings += [f"{path}: {p}" for p in watch.problems()]
            page.close()
    assert not findings, "\n".join(findings)


def test_copy_button_copies_the_entry_shown(quality_site: Path, model: SiteModel, browser) -> None:  # noqa: ANN001
    r = _under_test(model)[0]
    with static_server(quality_site) as base:
        context = browser.new_context()
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base.split("/authorsite")[0])
        page = context.new_page()
        page.goto(base + routes.paper(key_of(model.paper_keys, r.key)).url)
        page.get_by_role("button", name="Copy BibTeX").click()
        page.wait_for_function("document.getElementById('copy-status').textContent !== ''")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.locator("#bibtex").inner_text() and copied.startswith("@") and copied.count("\n@") == 0
        page.get_by_role("button", name="Copy citation").click()   # the APA text, plain (issue 45)
        page.wait_for_function("document.getElementById('copy-status').textContent === 'Citation copied.'")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.locator("#apa").inner_text() and "<i>" not in copied and f"({r.year})" in copied
        context.close()


# --- what Google Scholar reads ---------------------------------------------------------------------

def _date(r: Record) -> str:
    """The date the record gives: its first version's day within its year, else the year."""
    if r.published and r.published.startswith(str(r.year)):
        return r.published[:10]
    return str(r.year)


def test_citation_tags_and_jsonld_agree_with_the_record(quality_site: Path, model: SiteModel) -> None:
    works = _works(model)
    assert any(r.doi for r in works) and any(r.arxiv_id for r in works)
    for r in works:
        path = _page(quality_site, model, r)
        head = _head(path)
        tags: dict[str, list[str]] = {}
        for name, content in head.meta:
            tags.setdefault(name, []).append(content)
        where = path.relative_to(quality_site).as_posix()
        assert tags["citation_title"] == [tex_to_text(r.title)], where
        names = [p.name for p in r.authors] or [a.name for a in model.authors if r.key in {x.key for x in a.records}]
        assert tags.get("citation_author", []) == names, where   # typed in without authors: who lists it (issue 45)
        assert tags["citation_publication_date"] == [_date(r).replace("-", "/")], where
        assert tags.get("citation_doi") == ([r.doi] if r.doi else None), where
        assert tags.get("citation_arxiv_id") == ([r.arxiv_id] if r.arxiv_id else None), where
        assert "citation_pdf_url" not in tags, where    # arXiv's PDF is not under the page's folder (issue 45)
        url = BASE_URL + routes.paper(key_of(model.paper_keys, r.key)).url
        assert tags["citation_abstract_html_url"] == [url], where
        [ld] = [json.loads(text) for text in head.jsonld]
        assert ld["@type"] == "ScholarlyArticle" and ld["url"] == url, where
        assert ld["name"] == tex_to_text(r.title) and ld["datePublished"] == _date(r), where
        assert [a["name"] for a in ld["author"]] == names, where
        assert ld.get("identifier", []) == [f"{k}:{v}" for k, v in (("arXiv", r.arxiv_id), ("doi", r.doi)) if v], where
    published = next(r for r in works if r.doi and r.venue)
    tags = dict(_head(_page(quality_site, model, published)).meta)
    assert tags.get("citation_journal_title") or tags.get("citation_conference_title")


# --- links to the pages ------------------------------------------------------------------------------

_PAPER_LINK = re.compile(r'<a class="paper" href="([^"]+)"')


def _target(out: Path, href: str) -> Path:
    prefix = BASE_URL.split("example.github.io", 1)[1]
    assert href.startswith(prefix + "papers/"), href
    return out / routes.file_of_url(href[len(prefix):])


def test_entries_and_search_results_link_to_existing_paper_pages(quality_site: Path, model: SiteModel) -> None:
    pages = {p for p in (quality_site / "papers").rglob("index.html")}
    linked: dict[str, set[Path]] = {}
    for kind in ("authors", "subjects", "venues"):
        for page in (quality_site / kind).rglob("index.html"):
            for href in _PAPER_LINK.findall(page.read_text("utf-8")):
                linked.setdefault(kind, set()).add(_target(quality_site, href))
    assert set(linked) == {"authors", "subjects", "venues"}
    assert linked["authors"] == pages                     # every paper from its authors' pages
    assert linked["subjects"] <= pages and linked["venues"] <= pages
    _, rows = documents(model)
    results = {quality_site / routes.file_of_url(row[0]) for row in rows if not row[0].startswith("pages/")}
    assert results == pages
    written = "".join(p.read_text("utf-8") for p in (quality_site / "search" / "index").rglob("*.json"))
    assert all(f'"{routes.paper(key_of(model.paper_keys, r.key)).url}"' in written for r in _works(model))


def test_the_size_report_says_what_the_paper_pages_add(quality_site: Path, model: SiteModel) -> None:
    pages = sorted((quality_site / "papers").rglob("index.html"))
    size = sum(p.stat().st_size for p in pages)
    [line] = parts(quality_site, measure(quality_site))
    assert line.startswith(f"paper pages (site.yaml papers): {size / 1e6:,.1f} MB in {len(pages):,} files, ")
    assert len(pages) == len(_works(model))


# --- a changed record, and the setting off ---------------------------------------------------------------

def _inodes(out: Path) -> dict[str, int]:
    return {p.relative_to(out).as_posix(): os.stat(p).st_ino for p in (out / "papers").rglob("index.html")}


def test_a_changed_record_re_renders_its_own_page_only(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "site")
    before = _inodes(build(root))
    path = root / "content" / "authors" / "jane-doe.yaml"
    data = yaml.safe_load(path.read_text("utf-8"))
    typed = next(s["records"] for s in data["sources"] if "records" in s)
    typed[0]["abstract"] += " Edited."
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    out = build(root)
    after = _inodes(out)
    assert set(after) == set(before)
    changed = [rel for rel in after if after[rel] != before[rel]]
    assert len(changed) == 1 and "Edited." in (out / changed[0]).read_text("utf-8")


def test_papers_false_writes_none_and_links_none(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "site")
    site_yaml = root / "site.yaml"
    site_yaml.write_text(site_yaml.read_text("utf-8") + "papers: false\n", "utf-8")
    out = build(root)
    assert not (out / "papers").exists() and parts(out, measure(out)) == []
    for page in out.rglob("*.html"):
        assert 'class="paper"' not in page.read_text("utf-8"), page
    assert "papers/" not in (out / "sitemap.xml").read_text("utf-8")
    written = "".join(p.read_text("utf-8") for p in (out / "search" / "index").rglob("*.json"))
    assert "papers/" not in written and "authors/jane-doe/#r-" in written
