"""Issue 31, acceptance 5: an ``ar`` site renders right to left, in Debian's Chromium.

The demo built with ``language: ar`` and a site catalogue of a few Arabic strings (which also
gives the scripts their words, in Arabic's six plural forms) is opened at 390 and 1280 px: the
page is ``dir="rtl"``, nothing scrolls sideways, and the layout mirrors (the site's name and the
headings start on the right, the author's photo stands on the left, the search panel opens
inside the page). Screenshots go to test-artifacts/screenshots/rtl-*.jpg. axe-core finds no
WCAG A/AA violation on the home and author pages, light and dark.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import copy_demo
from quality_util import ARTIFACTS, build_site_dir, format_axe, open_page, require_node_tools, run_axe, static_server

WIDTHS = (390, 1280)
PAGES = {"home": "", "author": "authors/jane-doe/", "subject": "subjects/cs.CL/"}
SHOTS = ARTIFACTS / "screenshots"
ARABIC = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);\\n"

msgid "Search records"
msgstr "البحث في السجلات"

msgid "Search"
msgstr "بحث"

msgid "Selected publications"
msgstr "منشورات مختارة"

msgid "%(num)s result"
msgid_plural "%(num)s results"
msgstr[0] "لا نتائج"
msgstr[1] "نتيجة واحدة"
msgstr[2] "نتيجتان"
msgstr[3] "%(num)s نتائج"
msgstr[4] "%(num)s نتيجة"
msgstr[5] "%(num)s نتيجة"
'''


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> str:
    work = tmp_path_factory.mktemp("rtl")
    root = copy_demo(work / "site")
    text = (root / "site.yaml").read_text("utf-8")
    (root / "site.yaml").write_text(re.sub(r"(?m)^language: .*$", "language: ar", text), encoding="utf-8")
    (root / "locale" / "ar").mkdir(parents=True)
    (root / "locale" / "ar" / "messages.po").write_text(ARABIC, encoding="utf-8")
    out = build_site_dir(root, work / "out")
    with static_server(out) as url:
        yield url


def _text_box(page, selector: str) -> dict:  # noqa: ANN001
    """Where the text of the first ``selector`` stands (its contents, not its block's full width)."""
    return page.evaluate("""sel => { const r = document.createRange();
        r.selectNodeContents(document.querySelector(sel)); const b = r.getBoundingClientRect();
        return {x: b.x, width: b.width}; }""", selector)


def test_right_to_left_at_390_and_1280_without_sideways_scroll(base: str, browser) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for width in WIDTHS:
        for name, path in PAGES.items():
            page, watch = open_page(browser, base, path, width)
            try:
                assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
                assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
                sw = page.evaluate("document.scrollingElement.scrollWidth")
                if sw > width:
                    problems.append(f"{name} at {width} px: scrollWidth {sw}")
                # Mirrored: the site's name and the page's heading start at the right of the page.
                main = page.locator("main").bounding_box()
                for selector in (".site-nav .brand", "main h1"):
                    text = _text_box(page, selector)
                    if not text["x"] + text["width"] / 2 > main["x"] + main["width"] / 2:
                        problems.append(f"{name} at {width} px: {selector}'s text is on the left: {text}")
                if name == "author" and width == 1280:
                    photo = page.locator(".profile-header img.photo").bounding_box()
                    name_box = _text_box(page, "main h1")
                    if not (photo and photo["x"] + photo["width"] <= name_box["x"]):
                        problems.append(f"author at 1280 px: the photo is not on the left of the name: {photo} {name_box}")
                    assert page.locator(".pinned h2").inner_text() == "منشورات مختارة"
                problems += [f"{name} {width}: {p}" for p in watch.problems()]
                page.screenshot(path=str(SHOTS / f"rtl-{name}-{width}.jpg"), type="jpeg", quality=70)
            finally:
                page.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_search_panel_opens_inside_a_right_to_left_page(base: str, browser, width: int) -> None:  # noqa: ANN001
    page, watch = open_page(browser, base, "", width)
    try:
        assert page.locator("#site-search-q").get_attribute("placeholder") == "البحث في السجلات"
        page.locator("#site-search-q").fill("language")
        page.locator(".site-header .hit-title").first.wait_for(state="visible", timeout=10000)
        box = page.locator("#site-search-panel").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, box
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        count = page.locator(".site-header .search-count").inner_text()
        n = int(re.sub(r"\D", "", count).translate(str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")) or "0")
        # Arabic, in the plural form of the count (the catalogue's six, as Intl.PluralRules picks them)
        word = "نتائج" if 3 <= n % 100 <= 10 else "نتيجة"
        assert count == {1: "نتيجة واحدة", 2: "نتيجتان"}.get(n, f"{n:d} {word}"), count
        page.screenshot(path=str(SHOTS / f"rtl-search-{width}.jpg"), type="jpeg", quality=70)
        assert not watch.problems()
    finally:
        page.close()


@pytest.mark.parametrize("scheme", ("light", "dark"))
def test_axe_finds_nothing_on_right_to_left_pages(base: str, browser, scheme: str) -> None:  # noqa: ANN001
    require_node_tools()
    findings: list[str] = []
    for name in ("home", "author"):
        page, _ = open_page(browser, base, PAGES[name], 1280, scheme)
        try:
            findings += [format_axe(v, f"{name} ({scheme})") for v in run_axe(page)]
        finally:
            page.close()
    assert not findings, "\n".join(findings)
