"""Issue 45, acceptance 1, in Debian's Chromium over the demo built in English and in Arabic
(``language: ar`` with no catalogue: English words, the layout mirrored; and five header links):

* the home page, an author page, a paper page and /publications/ at 320, 390, 600, 900 and 1280 px,
  light and dark: nothing scrolls sideways; the header is one row at most 80 px tall from 900 px up
  (title, search, links, theme toggle), and below 600 px the title and the search share a row, the
  links are behind the menu button and the header is at most 120 px tall; the content column is
  at least 880 px wide at 1280 px; axe-core finds no WCAG A/AA violation; a JPEG of each goes to
  test-artifacts/screenshots/look/ (80 of them, each looked at when the look changes);
* the menu opens without JavaScript, and from 600 px up its links show without it;
* the Nu HTML checker finds no error in those pages, in either language.

One browser page per language, page and scheme, resized through the widths: the 80 views cost
a few seconds each, most of it axe.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import copy_demo
from quality_util import (ARTIFACTS, PageWatch, build_site_dir, format_axe, format_vnu, require_node_tools, run_axe,
                          run_vnu, static_server)

WIDTHS = (320, 390, 600, 900, 1280)
SCHEMES = ("light", "dark")
PAGES = {"home": "", "author": "authors/jane-doe/", "paper": "papers/2401.99999/", "publications": "publications/"}
SHOTS = ARTIFACTS / "screenshots" / "look"

# The header's parts, where each stands (visible ones only) and the main column's content width.
_MEASURE = """() => {
  const vis = el => el && el.checkVisibility();
  const box = el => { const b = el.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; };
  const nav = document.querySelector('.site-nav');
  const links = [...nav.querySelectorAll('.nav-links a')];
  const parts = [nav.querySelector('.brand'), nav.querySelector('.site-search'), ...links,
                 nav.querySelector('.nav-menu > summary'), nav.querySelector('.theme-toggle')].filter(vis).map(box);
  const main = document.querySelector('main'), s = getComputedStyle(main);
  return {header: document.querySelector('.site-header').getBoundingClientRect().height,
          brand: box(nav.querySelector('.brand')), search: box(nav.querySelector('.site-search')),
          parts, links: links.length, linksShown: links.filter(vis).length,
          menuShown: vis(nav.querySelector('.nav-menu > summary')),
          column: main.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight),
          scroll: document.scrollingElement.scrollWidth};
}"""


@pytest.fixture(scope="module")
def arabic_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo with ``language: ar``, no catalogue of its own, and a second page in the header: five
    links (Publications, arXiv subjects, Venues, About, Contact), the most the header holds in one row."""
    work = tmp_path_factory.mktemp("look-ar")
    root = copy_demo(work / "site")
    (root / "content" / "pages" / "contact.md").write_text("---\ntitle: Contact\n---\nWrite to us.\n", "utf-8")
    text = (root / "site.yaml").read_text("utf-8")
    (root / "site.yaml").write_text(re.sub(r"(?m)^language: .*$", "language: ar", text), encoding="utf-8")
    return build_site_dir(root, work / "out")


@pytest.fixture(scope="module")
def bases(quality_site: Path, arabic_site: Path) -> dict[str, str]:
    with static_server(quality_site) as en, static_server(arabic_site) as ar:
        yield {"en": en, "ar": ar}


def header_problems(m: dict, width: int) -> list[str]:
    """What the header and the column break at ``width`` (``m``: ``_MEASURE``'s answer)."""
    problems = []
    if m["scroll"] > width:
        problems.append(f"scrolls sideways ({m['scroll']} px)")
    outside = [p for p in m["parts"] if p["left"] < 0 or p["right"] > width]   # a right-to-left page overflows leftwards
    if outside:
        problems.append(f"{len(outside)} part(s) of the header outside the page: {outside}")
    one_row = max(p["top"] for p in m["parts"]) < min(p["bottom"] for p in m["parts"])
    if width >= 900 and not (m["header"] <= 80 and one_row and m["linksShown"] == m["links"] and not m["menuShown"]):
        problems.append(f"header {m['header']:.0f} px, one row {one_row}, {m['linksShown']} of {m['links']} links shown")
    if width < 600:
        same_row = m["search"]["top"] < m["brand"]["bottom"] and m["brand"]["top"] < m["search"]["bottom"]
        if not (m["header"] <= 120 and same_row and m["linksShown"] == 0 and m["menuShown"]):
            problems.append(f"header {m['header']:.0f} px, title and search on one row {same_row}, "
                            f"{m['linksShown']} links shown, menu button {m['menuShown']}")
    if width == 1280 and m["column"] < 880:
        problems.append(f"content column {m['column']:.0f} px")
    return problems


def test_pages_at_every_width_light_and_dark_in_en_and_ar(bases: dict[str, str], browser) -> None:  # noqa: ANN001
    require_node_tools()
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    heights: dict[int, float] = {}
    for lang, base in bases.items():
        for name, path in PAGES.items():
            for scheme in SCHEMES:
                page = browser.new_page(viewport={"width": WIDTHS[0], "height": 720})
                page.emulate_media(color_scheme=scheme)
                watch = PageWatch(page, base.split("/authorsite")[0])
                assert page.goto(base + path, wait_until="load").status == 200, path
                for width in WIDTHS:
                    page.set_viewport_size({"width": width, "height": 800 if width >= 600 else 720})
                    where = f"{lang} {name} {width} {scheme}"
                    m = page.evaluate(_MEASURE)
                    heights[width] = max(heights.get(width, 0), m["header"])
                    problems += [f"{where}: {p}" for p in header_problems(m, width)]
                    problems += [format_axe(v, where) for v in run_axe(page)]
                    page.screenshot(path=str(SHOTS / f"{lang}-{name}-{width}-{scheme}.jpg"), type="jpeg", quality=70)
                problems += [f"{lang} {name} {scheme}: {p}" for p in watch.problems()]
                page.close()
    assert heights[1280] <= 80 and heights[320] <= 120, heights
    assert not problems, "\n".join(problems)


def test_the_menu_works_without_javascript(bases: dict[str, str], browser) -> None:  # noqa: ANN001
    for lang, base in bases.items():
        context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 720})
        page = context.new_page()
        page.goto(base + PAGES["author"], wait_until="load")
        link = page.locator(".nav-links a").first
        assert not link.is_visible(), lang
        page.locator(".nav-menu > summary").click()
        assert link.is_visible() and page.locator(".nav-links a").last.is_visible(), lang
        link.click()   # the menu's links are links
        page.wait_for_load_state("load")
        assert page.url.endswith("/publications/"), page.url
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(base + PAGES["author"], wait_until="load")
        assert page.locator(".nav-links a").first.is_visible() and not page.locator(".nav-menu > summary").is_visible()
        context.close()


def test_the_pages_pass_the_nu_html_checker(quality_site: Path, arabic_site: Path) -> None:
    require_node_tools()
    files = [root / path / "index.html" for root in (quality_site, arabic_site) for path in PAGES.values()]
    errors = [format_vnu(m, quality_site.parent.parent) for m in run_vnu(files)]
    assert not errors, f"{len(errors)} Nu checker error(s):\n" + "\n".join(errors)
