"""A record's entry (issue 30, points 1 and 5), on the demo build and on small inline sites:

* no "Manual" badge, no lone "↗", no "At least 0", no numbered duplicate source ("DBLP 2");
* one meta line with separators (italic venue, one year, the arXiv id), the year not repeated
  under its year's heading, the same order of parts on author, subject and venue pages;
* the page's own author bold and no link to the page itself, the site's other authors linked;
* the pinned copy in "Selected publications" has the same links as the record and no "Abstract
  on <her> page"; every link of a record is one kind of button (PDF like Code, not underlined), and
  its "BibTeX" link copies that record's entry in Chromium (a link to the file without JS);
* an author with no records says so and offers no BibTeX, CSL-JSON or Atom link.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from quality_util import BASE_URL, PageWatch, static_server

from generator.core import routes
from helpers import build, make_project, page_records, parse_html

JANE = routes.author("jane-doe").path


def _li(html: str, anchor: str) -> str:
    """The <li> of the record whose title has id ``anchor``."""
    start = html.index(f'id="{anchor}"')
    return html[html.rindex("<li", 0, start):html.index("</li>", start)]


def _pinned(html: str) -> str:
    return html.split('id="pinned-heading">Selected publications</h2>')[1].split("</section>")[0]


def _hrefs(fragment: str, cls: str) -> list[tuple[str, str]]:
    """(href, text) of every link inside the first element of class ``cls`` in ``fragment``."""
    part = fragment.split(f'class="{cls}"', 1)[1].split("</p>", 1)[0]
    return re.findall(r'<a [^>]*href="([^"]+)"[^>]*>([^<]+)</a>', part)


def test_demo_has_no_manual_badge_lone_arrow_zero_count_or_numbered_source(demo) -> None:  # noqa: ANN001
    pages = sorted(demo.out.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        html = page.read_text("utf-8")
        text = " ".join(parse_html(html).text().split())
        assert '<span class="badge">Manual</span>' not in html, page
        assert "↗" not in html, page
        assert "At least 0" not in text, page
        assert not re.search(r">(DBLP|OpenAlex|ORCID|DOI|arXiv) \d+<", html), page


def test_demo_merged_record_has_one_meta_line_with_one_year(demo) -> None:  # noqa: ANN001
    html = demo.read(JANE)
    entry = _li(html, "r-2401-99999")
    meta = entry.split('<p class="record-meta">')[1].split("</p>")[0]
    # its badge, the venue's short name and year, before the title (issue 45), then the venue in full
    assert meta == ('<span class="badge">PVLDB 2025</span> <i class="venue" dir="auto">Proc. VLDB Endow.</i>'
                    '<span class="sep" aria-hidden="true"> · </span><span class="id" dir="ltr">arXiv:2401.99999v2</span>')
    assert entry.index('<span class="badge">PVLDB 2025</span>') < entry.index('class="record-title"')
    section = html[html.rindex('<section class="year"', 0, html.index('id="r-2401-99999"')):]
    assert section.startswith('<section class="year" aria-labelledby="year-2025">')   # the published year
    assert "DBLP 2" not in entry and "journals/corr/" not in entry


def test_demo_pinned_copy_has_the_records_links_and_no_abstract_link_to_its_own_page(demo) -> None:  # noqa: ANN001
    html = demo.read(JANE)
    pinned, listed = _pinned(html), _li(html, "r-2401-99999")
    links = _hrefs(listed, "buttons")
    assert [text for _, text in links] == ["PDF", "Code", "Slides", "Details", "BibTeX", "Source"]
    assert _hrefs(pinned, "buttons") == links
    assert "Abstract on" not in pinned and "↗" not in pinned
    pinned_meta = pinned.split('<p class="record-meta">')[1].split("</p>")[0]
    assert '<span class="badge">PVLDB 2025</span>' in pinned_meta   # outside the year lists, its badge says its year
    assert 'id="r-2401-99999"' not in pinned                        # one anchor per record on the page


def test_demo_page_author_is_bold_and_no_self_link(demo) -> None:  # noqa: ANN001
    html = demo.read(JANE)
    doc = parse_html(html)
    for p in doc.find_all("p", "record-authors"):
        assert p.find("strong", "own").text() == "Jane Doe"
        assert not [a for a in p.find_all("a") if a.attrs.get("href", "").endswith("/authors/jane-doe/")]


def test_demo_parts_come_in_one_order_on_every_page_type(demo) -> None:  # noqa: ANN001
    order = ("record-meta", "record-title", "record-authors")
    for rel in (JANE, routes.subject("cs.DS").path, routes.venue("proc-vldb-endow").path):
        html = demo.read(rel)
        for li in re.findall(r'<li class="record[^"]*".*?</li>', html, re.S):
            classes = [c for c in re.findall(r'<(?:p|h3) class="([\w-]+)"', li) if c in order]
            assert tuple(classes) == order[:len(classes)] and classes[:2] == list(order[:2]), (rel, classes)


def test_demo_records_list_year_once_by_heading(demo) -> None:  # noqa: ANN001
    for rel in (JANE, routes.author("bin-cui").path, routes.subject("cs.DS").path):
        doc = parse_html(demo.read(rel))
        for section in doc.find_all("section", "year"):
            assert section.find_all("span", "year") == [], rel
        assert page_records(demo.read(rel))


COAUTHORED = """\
name: {name}
sources:
  - records:
      - {{title: Joint Work, year: 2024, authors: [Ada Lovelace, Charles Babbage, Someone Else], arxiv_id: '2401.00002'}}
"""


def test_each_page_bolds_its_own_author_and_links_the_other(tmp_path: Path) -> None:
    out = build(make_project(tmp_path, {
        "content/authors/ada.yaml": COAUTHORED.format(name="Ada Lovelace"),
        "content/authors/charles.yaml": COAUTHORED.format(name="Charles Babbage"),
    }))
    for own, other, other_slug in (("Ada Lovelace", "Charles Babbage", "charles"),
                                   ("Charles Babbage", "Ada Lovelace", "ada")):
        slug = "ada" if own.startswith("Ada") else "charles"
        byline = parse_html((out / f"authors/{slug}/index.html").read_text("utf-8")).find("p", "record-authors")
        assert byline.find("strong", "own").text() == own
        assert {a.text(): a.attrs["href"] for a in byline.find_all("a")} == {other: f"/authors/{other_slug}/"}
        assert byline.find("a", "person").text() == other                  # the site's own: emphasised


def test_an_author_with_no_records_says_so_and_offers_no_exports(tmp_path: Path) -> None:
    out = build(make_project(tmp_path, {
        "content/authors/ada.yaml": "name: Ada Lovelace\nsources:\n  - arxiv: {query: 'au:\"Ada Lovelace\"'}\n",
    }))
    html = (out / "authors/ada/index.html").read_text("utf-8")
    text = " ".join(parse_html(html).text().split())
    assert "No records yet." in text and "At least" not in text
    for name in ("publications.bib", "publications.json", "feed.xml"):
        assert name not in html, name
    assert "BibTeX" not in text and "CSL-JSON" not in text and "Atom feed" not in text
    assert not (out / "authors/ada/publications.bib").exists() and not (out / "authors/ada/publications.json").exists()
    [entry] = json.loads((out / "data.json").read_text("utf-8"))["authors"]
    assert entry["records"] == 0 and entry["publications"] is None
    home = " ".join(parse_html((out / "index.html").read_text("utf-8")).text().split())
    assert "No records yet" in home and "At least 0" not in home     # its card on the home page too


_BUTTONS = """() => [...document.querySelectorAll('.record .buttons a')].map(a => {
  const s = getComputedStyle(a);
  return {text: a.textContent, line: s.textDecorationLine, border: s.borderTopWidth + ' ' + s.borderTopStyle,
          pad: s.paddingLeft, size: s.fontSize, radius: s.borderTopLeftRadius};
})"""


def test_buttons_look_alike_and_bibtex_copies_one_entry(quality_site: Path, browser) -> None:  # noqa: ANN001
    with static_server(quality_site) as url:
        context = browser.new_context(viewport={"width": 390, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.split("/authorsite")[0])
        page = context.new_page()
        watch = PageWatch(page, url)
        page.goto(url + "authors/jane-doe/")
        buttons = page.evaluate(_BUTTONS)
        assert {b["text"] for b in buttons} >= {"PDF", "Code", "Slides", "BibTeX", "Source"}
        looks = {json.dumps({k: v for k, v in b.items() if k != "text"}, sort_keys=True) for b in buttons}
        assert len(looks) == 1, looks                           # PDF styled like Code
        assert "underline" not in buttons[0]["line"]            # a bordered button is not underlined (issue 45)
        page.locator("section.year a.bibtex").first.click()
        page.wait_for_function("document.getElementById('copy-status').textContent !== ''")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.startswith("@article{doe2025learned,\n") and copied.endswith("\n}\n"), copied
        assert copied.count("@") == 1 and "year = {2025}" in copied
        assert page.url == url + "authors/jane-doe/"             # copied, not followed
        assert watch.problems() == []
        context.close()


def test_bibtex_link_without_javascript_is_the_authors_file(quality_site: Path) -> None:
    """Each record's "BibTeX" link is the author's publications.bib, and says which entry is the
    record's (its place in the file, 1 for the first): the one with the record's title and year."""
    html = (quality_site / "authors/jane-doe/index.html").read_text("utf-8")
    links = re.findall(r'<a class="bibtex" href="([^"]+)" data-bibtex-entry="(\d+)" download>BibTeX</a>', html)
    base = BASE_URL.split("example.github.io", 1)[1]
    assert links and {h for h, _ in links} == {f"{base}authors/jane-doe/publications.bib"}
    bib = (quality_site / "authors/jane-doe/publications.bib").read_text("utf-8")
    entries = re.split(r"(?m)^(?=@\w+\{)", bib)[1:]
    records = [li for li in parse_html(html).find_all("li", "record") if li.find_all("a", "bibtex")]
    assert len(records) == len(links) and len(entries) >= len({n for _, n in links})
    for li, (_, n) in zip(records, links):
        entry = entries[int(n) - 1]
        title = li.find("h3", "record-title").text().split()
        assert all(w.strip(".,:$\\{}") in entry for w in title[:3]), (n, title, entry)