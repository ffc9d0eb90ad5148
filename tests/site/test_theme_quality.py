"""The built demo site's pages, checked by real validators and a real browser (themes/default
templates and static files, as rendered by generator.render.pages and indexed by generator.write.search):

* every built HTML page passes the W3C Nu HTML checker with zero errors (and the theme's CSS
  passes its CSS checker); feeds and the sitemap are well-formed XML;
* axe-core in headless Chromium finds zero WCAG 2.0/2.1 A and AA violations on the home,
  an author, a subject, the subjects index, a venue, the venue index, the About, the 404 and the search page, in light
  and dark mode; no console errors; no request leaves 127.0.0.1; nothing overflows a phone;
* typing a word of a record title into the header search box finds that record;
* screenshots of an author page (390 and 1280 px, light and dark) land in test-artifacts/.

Needs ``npm ci --ignore-scripts`` (vnu-jar and axe-core, pinned in package-lock.json), java,
and Debian's chromium (never ``playwright install``); a missing tool fails the test with the
command that installs it, and the suite builds the site it checks (conftest.py's quality_site,
search page included), so nothing here skips. Set AUTHORSITE_UPDATE_SCREENSHOT=1 to refresh
docs/screenshot-author.png, the README's picture.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from quality_util import (ARTIFACTS, REPO, PageWatch, build_site_dir, format_axe, format_vnu, is_png,
                          require_node_tools, run_axe, run_vnu, static_server)

from generator.core import routes

SHOTS = ARTIFACTS / "screenshots"
DOCS_SHOT = REPO / "docs" / "screenshot-author.png"
SCHEMES = ("light", "dark")


# --- fixtures: one build and one browser for the session (conftest), one server for the module ----

@pytest.fixture(scope="module")
def site(quality_site: Path) -> Path:
    return quality_site


@pytest.fixture(scope="module")
def base(site: Path) -> str:
    with static_server(site) as url:
        yield url


@pytest.fixture(scope="module")
def stress_base(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A second small build: the demo site's settings with one author made of overlong content."""
    work = tmp_path_factory.mktemp("stress")
    src = work / "site"
    (src / "content" / "authors").mkdir(parents=True)
    shutil.copy2(REPO / "site.yaml", src / "site.yaml")
    (src / "content" / "authors" / "overflow-test.yaml").write_text(STRESS_AUTHOR, encoding="utf-8")
    out = build_site_dir(src, work / "out")
    with static_server(out) as url:
        yield url


# Content that tries to break a phone layout: unbreakable words, long URLs, long inline math.
STRESS_AUTHOR = r"""
name: Maximilianus-Bartholomaeus Wolfeschlegelsteinhausenbergerdorff
affiliation: Institute for https://example.org/a/really/long/path/without/natural/break/points/index.html
bio: |
  A bio with a bare URL https://example.org/this/is/a/very/long/url/without/any/natural/break/points/abcdefghijklmnopqrstuvwxyz0123456789
  and `inline_code_that_is_extremely_long_without_spaces_abcdefghijklmnopqrstuvwxyz`.
links:
  homepage: https://example.org/~someone/with/a/long/home/page/path/that/keeps/going/and/going/and/going/
sources:
  - records:
      - title: 'Pneumonoultramicroscopicsilicovolcanoconiosis-Hippopotomonstrosesquippedaliophobia: $\sum_{i=1}^{n} \alpha_i \beta_i \gamma_i \delta_i + \int_0^\infty e^{-x^2} \, dx = \frac{a+b+c+d+e+f+g+h}{i+j+k+l+m+n+o+p}$ at scale'
        year: 2025
        subjects: [cs.LG, cs.AI, cs.CL, cs.CV, cs.DC, cs.DB]
        authors: [Wolfeschlegelsteinhausenbergerdorff-Maximilianus-Bartholomaeus, B. Example, C. Example]
        doi: 10.1145/1234567.89012345678901234567890123456789
        journal_ref: Proceedings_of_the_International_Conference_on_Extraordinarily_Long_Identifiers_2025, pp. 1-999
        comment: Code at https://github.com/example-organisation/an-extremely-long-repository-name-for-testing-overflow/tree/main/src
        abstract: 'We bound $\mathcal{O}(n^2 \log n \cdot \sum_{k=1}^{m} \binom{n}{k} x_k^{2k+1} y_k^{3k-1} z_k^{5k+7} w_k^{11k-13})$ and
          release everything at https://example.org/supplementary/material/for/this/paper/with/a/long/url/that/goes/on/forever.tar.gz
          with identifiers like ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ.'
"""


def _first(site: Path, pattern: str) -> str:
    found = sorted(p.parent.relative_to(site).as_posix() + "/" for p in site.glob(pattern))
    assert found, f"the build has no {pattern}"
    return found[0]


@pytest.fixture(scope="module")
def search_term(site: Path, base: str, chromium) -> tuple[str, str]:  # noqa: ANN001
    """(record title, a word found only in it) from the first author page."""
    page, _, _ = _open(chromium, base, _first(site, "authors/*/index.html"))
    try:
        return _unique_title_word(page)
    finally:
        page.close()


def pages_under_test(site: Path, term: tuple[str, str]) -> list[tuple[str, str]]:
    """(name, path below the site URL) of the pages axe checks; the search results static/search.js
    draws are part of the search page too."""
    assert (site / "search" / "index.html").is_file(), "the build wrote no search/index.html"
    assert (site / routes.search_index().path / "meta.json").is_file(), "the build wrote no search index"
    return [("home", ""), ("author", _first(site, "authors/*/index.html")),
            ("subject", _first(site, "subjects/*/index.html")), ("subjects index", "subjects/"),
            ("venues index", "venues/"), ("venue", _first(site, "venues/*/index.html")),
            ("about", "pages/about/"), ("404", "no/such/page/"), ("search", "search/"),
            ("search results", "search/?q=" + term[1])]


def _open(browser, base: str, path: str, scheme: str = "light", width: int = 1280,  # noqa: ANN001
          height: int = 900):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(base))
    watch = PageWatch(page, origin)
    url = base + path
    watch.ignore_console.add(url)  # the 404 page answers with status 404 on purpose
    resp = page.goto(url, wait_until="load")
    assert resp is not None
    if "/search/" in url:
        _settle_search_ui(page, url)
    return page, watch, resp


# --- 2. the Nu HTML checker --------------------------------------------------------------------

def test_every_page_passes_the_nu_html_checker(site: Path) -> None:
    require_node_tools()
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 8, f"suspiciously few pages: {pages}"
    css = sorted(site.rglob("*.css"))
    t0 = time.monotonic()
    messages = run_vnu(pages + css, css=True)
    print(f"\nvnu checked {len(pages)} pages and {len(css)} stylesheet(s) in {time.monotonic() - t0:.1f} s")
    errors = [format_vnu(m, site) for m in messages]
    for e in errors:
        print(e)
    assert not errors, f"{len(errors)} Nu checker error(s):\n" + "\n".join(errors)


def test_feeds_and_sitemap_are_well_formed_xml(site: Path) -> None:
    xml_files = sorted(site.rglob("*.xml"))
    assert (site / "sitemap.xml") in xml_files
    assert any(p.name == "feed.xml" for p in xml_files), "no Atom feed in the build"
    bad = []
    for p in xml_files:
        try:
            ET.parse(p)
        except ET.ParseError as exc:
            bad.append(f"{p.relative_to(site)}: {exc}")
    assert not bad, "\n".join(bad)


# --- 3. axe-core, console, requests, phone widths -----------------------------------------------

def test_axe_finds_no_wcag_violations(site: Path, base: str, browser, search_term, stress_base: str) -> None:  # noqa: ANN001
    """Each page opened once, checked in the light scheme and then in the dark one."""
    require_node_tools()
    findings: list[str] = []
    cases = [(base, name, path, 1280) for name, path in pages_under_test(site, search_term)]
    # Overlong content on a phone: whatever has to scroll must stay keyboard-reachable.
    cases.append((stress_base, "overlong content", "authors/overflow-test/", 360))
    for root, name, path, width in cases:
        page, watch, resp = _open(browser, root, path, SCHEMES[0], width=width)
        try:
            if name == "404":
                assert resp.status == 404
                assert page.locator("h1").inner_text().strip(), "the 404 page has no heading"
            # The stylesheet really applied (a broken link would make every check meaningless).
            assert page.evaluate("getComputedStyle(document.body).margin") == "0px", f"{name}: style.css not applied"
            for scheme in SCHEMES:
                findings.extend(_axe_in_scheme(page, name, path, scheme))
            findings.extend(f"{name}: {p}" for p in watch.problems())
        finally:
            page.close()
    for f in findings:
        print(f)
    assert not findings, f"{len(findings)} finding(s):\n" + "\n".join(findings)


def _axe_in_scheme(page, name: str, path: str, scheme: str) -> list[str]:  # noqa: ANN001
    page.emulate_media(color_scheme=scheme)
    if scheme == "dark":
        bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert _luminance(bg) < 0.05, f"{name}: dark mode background is {bg}"
    findings = [format_axe(v, f"{name} ({path or '/'}, {scheme})") for v in run_axe(page)]
    toggle = page.locator("[data-filter-bar] [data-subject]")
    if name == "author" and toggle.count():  # the JavaScript-enhanced filter, pressed (and released)
        toggle.first.click()
        assert toggle.first.get_attribute("aria-pressed") == "true"
        findings += [format_axe(v, f"{name} with a subject filter on ({scheme})") for v in run_axe(page)]
        toggle.first.click()
    return findings


def _overflow(page, width: int) -> str | None:  # noqa: ANN001
    sw = page.evaluate("document.scrollingElement.scrollWidth")
    if sw <= width:
        return None
    culprits = page.evaluate(
        """(w) => [...document.querySelectorAll('body *')]
             .filter(e => e.getBoundingClientRect().right > w + 0.5)
             .slice(0, 6).map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
                                                             ? '.' + e.className : '')
                              + ' right=' + Math.round(e.getBoundingClientRect().right))""", width)
    return f"scrollWidth {sw} > {width}: {culprits}"


def test_no_horizontal_overflow_on_phones(site: Path, base: str, browser, search_term, stress_base: str) -> None:  # noqa: ANN001
    """At 360 and 390 px: each page opened once at the first width, then resized (the layout is
    CSS only, so a resize lays it out as a fresh load at that width would)."""
    wide = []
    cases = [(base, name, path) for name, path in pages_under_test(site, search_term)]
    cases.append((stress_base, "overlong content", "authors/overflow-test/"))
    for root, name, path in cases:
        page, watch, _ = _open(browser, root, path, width=PHONES[0], height=800)
        try:
            for width in PHONES:
                page.set_viewport_size({"width": width, "height": 800})
                problem = _overflow(page, width)
                if problem:
                    wide.append(f"{name} ({path or '/'}) at {width} px: {problem}")
            if name == "overlong content":
                assert page.locator("math").count() >= 2, "the overflow probe has no MathML to test"
                wide.extend(f"{name}: {p}" for p in watch.problems())
        finally:
            page.close()
    assert not wide, "\n".join(wide)


PHONES = (360, 390)


def test_keyboard_focus_is_visible(site: Path, base: str, browser) -> None:  # noqa: ANN001
    for scheme in SCHEMES:
        page, _, _ = _open(browser, base, _first(site, "authors/*/index.html"), scheme)
        try:
            page.keyboard.press("Tab")
            skip = page.evaluate("""() => { const e = document.activeElement, r = e.getBoundingClientRect();
                                     return {text: e.textContent.trim(), href: e.getAttribute('href'),
                                             left: r.left, width: r.width}; }""")
            assert skip["href"] == "#main", f"first Tab stop is not the skip link: {skip}"
            assert skip["left"] >= 0 and skip["width"] > 0, f"focused skip link is off screen: {skip}"
            for _ in range(3):
                page.keyboard.press("Tab")
                style = page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
                                          return {tag: document.activeElement.tagName, style: s.outlineStyle,
                                                  width: parseFloat(s.outlineWidth), color: s.outlineColor}; }""")
                assert style["style"] != "none" and style["width"] >= 2, f"{scheme}: no visible focus on {style}"
        finally:
            page.close()


def test_print_stylesheet(site: Path, base: str, browser) -> None:  # noqa: ANN001
    page, _, _ = _open(browser, base, _first(site, "authors/*/index.html"), "dark")
    try:
        screen_hidden = page.evaluate("[...document.querySelectorAll('main details > :not(summary)')]"
                                      ".filter(e => !e.checkVisibility()).length")
        page.emulate_media(media="print", color_scheme="dark")
        got = page.evaluate("""() => ({
            header: getComputedStyle(document.querySelector('.site-header')).display,
            search: [...document.querySelectorAll('form[role=search]')].filter(f => f.getClientRects().length).length,
            bg: getComputedStyle(document.body).backgroundColor,
            fg: getComputedStyle(document.body).color,
            closed: [...document.querySelectorAll('main details')].filter(d => !d.open).length,
            hidden: [...document.querySelectorAll('main details > :not(summary)')].filter(e => !e.checkVisibility()).length,  // the header (its menu) does not print
        })""")
        assert got["header"] == "none", got
        assert got["search"] == 0, f"a search form would print: {got}"
        assert got["bg"] in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), f"print background: {got}"
        assert got["fg"] == "rgb(0, 0, 0)", f"print text colour: {got}"
        # Paper cannot click: collapsed abstracts must print in full.
        assert got["hidden"] == 0, f"{got['hidden']} collapsed abstract part(s) would not print: {got}"
        print(f"\nprint: {got['closed']} collapsed abstracts ({screen_hidden} hidden on screen) all print")
        pdf = page.pdf(format="A4")
        assert pdf[:5] == b"%PDF-" and len(pdf) > 10_000
    finally:
        page.close()


# --- 4. the header search box finds a record ----------------------------------------------------

def _settle_search_ui(page, url: str) -> None:  # noqa: ANN001
    """Let the search page render: its input, and for ?q= its results (or its "no results")."""
    try:
        page.locator("main input").first.wait_for(timeout=5000)
        if "q=" in url:
            page.locator("main [role=status]").first.wait_for(timeout=8000)
    except Exception:  # noqa: BLE001 - a search that never renders is the search test's failure
        pass
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(200)


def _unique_title_word(page) -> tuple[str, str]:  # noqa: ANN001
    """A record title (without math) on the open author page and a word that occurs in the
    page's text only inside that title, so the record must be what the search shows."""
    titles = page.evaluate("""() => [...document.querySelectorAll('main h3')]
        .filter(h => !h.querySelector('math'))
        .map(h => h.textContent.replace(/\\s+/g, ' ').trim())""")
    text = page.evaluate("document.querySelector('main').textContent").lower()
    best = None
    for title in titles:
        for word in re.findall(r"[A-Za-z]{5,}", title):
            n = len(re.findall(rf"(?<![a-z]){re.escape(word.lower())}(?![a-z])", text))
            if n == 1 and (best is None or len(word) > len(best[1])):
                best = (title, word)
    assert best, f"no title word unique on the page among {titles[:5]}"
    return best


def test_header_search_finds_a_record_by_a_title_word(site: Path, base: str, browser, search_term) -> None:  # noqa: ANN001
    assert (site / "search" / "index.html").is_file(), "the build wrote no search/index.html"
    title, word = search_term
    page, watch, _ = _open(browser, base, "")  # start from the home page, as a visitor would
    try:
        print(f"\nsearching for {word!r} to find {title!r}")
        box = page.locator('header form[role="search"] input[type="search"][name="q"]')
        assert box.count() == 1, "the header has no <form role=search> with <input type=search name=q>"
        action = page.locator('header form[role="search"]').get_attribute("action") or ""
        assert action.rstrip("/").endswith("search"), f"the search form goes to {action!r}"
        box.click()
        box.press_sequentially(word, delay=20)
        t0 = time.monotonic()
        with page.expect_navigation():
            box.press("Enter")
        assert re.search(r"/search/(index\.html)?\?(.*&)?q=" + re.escape(word), page.url), page.url
        hit = page.locator("main a").filter(has_text=title).first
        hit.wait_for(state="visible", timeout=15000)
        print(f"result shown {time.monotonic() - t0:.2f} s after Enter: {hit.get_attribute('href')}")
        href = hit.get_attribute("href") or ""
        assert href.startswith(urlsplit(base).path) or href.startswith(base), f"result leads off the site: {href}"
        problems = watch.problems()
        assert not problems, "\n".join(problems)
    finally:
        page.close()


# --- 6. screenshots ----------------------------------------------------------------------------

def test_author_page_screenshots(site: Path, base: str, browser) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    author = _first(site, "authors/*/index.html")
    written = []
    for width in (390, 1280):
        for scheme in SCHEMES:
            page, _, _ = _open(browser, base, author, scheme, width=width, height=844 if width < 500 else 900)
            try:
                page.wait_for_timeout(100)
                if width == 390:
                    sw = page.evaluate("document.scrollingElement.scrollWidth")
                    assert sw <= 390, f"horizontal overflow at 390 px ({scheme}): scrollWidth {sw}"
                shot = SHOTS / f"author-{width}-{scheme}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert is_png(shot), shot
                written.append(shot)
                if width == 1280 and scheme == "light":
                    top = SHOTS / "author-1280-light-top.png"
                    page.screenshot(path=str(top), full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": 1400})
                    assert is_png(top)
                    if os.environ.get("AUTHORSITE_UPDATE_SCREENSHOT"):
                        DOCS_SHOT.parent.mkdir(exist_ok=True)
                        shutil.copyfile(top, DOCS_SHOT)
            finally:
                page.close()
    print("\n" + "\n".join(f"{p.relative_to(REPO)}: {p.stat().st_size // 1024} kB" for p in written))


def test_readme_screenshot_is_committed() -> None:
    assert is_png(DOCS_SHOT), f"{DOCS_SHOT.relative_to(REPO)} missing: AUTHORSITE_UPDATE_SCREENSHOT=1 pytest tests/site/test_theme_quality.py"
    assert DOCS_SHOT.stat().st_size < 400_000, "keep the README screenshot small"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/screenshot-author.png" in readme, "the README does not show docs/screenshot-author.png"


def _luminance(css_color: str) -> float:
    nums = [float(x) for x in re.findall(r"[\d.]+", css_color)[:3]]
    assert len(nums) == 3, css_color

    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in nums)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
