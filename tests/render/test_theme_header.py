"""The default theme's site header at every width from 320 px.

It guards a regression seen before: the header's "Search" button wrapped to "Searc / h"
at 320, 390, 414 and 600 px, because the body's ``overflow-wrap: anywhere`` let the flex row
squeeze the button below its word. Here, in Debian's Chromium on the built demo site, every link and button of the
header must be one line box (its text has a single client rect; the site's title, on a phone, may take
two lines, broken between words only; hidden ones, the closed menu's links, are not measured) and the page must not
scroll sideways, at 320, 390, 414, 600 and 1280 px, in light and dark mode.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_util import borrowed
from quality_util import static_server

WIDTHS = (320, 390, 414, 600, 1280)
PAGES = ("", "authors/bin-cui/", "subjects/", "search/")

_MEASURE = """() => {
  const boxes = [];
  for (const el of document.querySelectorAll('.site-header a, .site-header button')) {
    if (!el.checkVisibility()) { continue; }   // the phone's hidden Search button, the closed menu's links
    const range = document.createRange();
    range.selectNodeContents(el);
    const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
    // a break inside a word: two letters side by side in the text on two lines
    let split = false;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      let prev = null;
      for (let i = 0; i < node.data.length; i++) {
        range.setStart(node, i); range.setEnd(node, i + 1);
        const top = Math.round(range.getBoundingClientRect().top);
        if (prev !== null && /\\S/.test(node.data[i]) && /\\S/.test(node.data[i - 1]) && top !== prev) { split = true; }
        prev = top;
      }
    }
    boxes.push({text: el.textContent.trim(), lines: lines.size, split, brand: el.classList.contains('brand')});
  }
  return {boxes, scroll: document.documentElement.scrollWidth, inner: window.innerWidth};
}"""


@pytest.fixture(scope="module")
def base(quality_site: Path) -> str:
    with static_server(quality_site) as url:
        yield url


@pytest.mark.parametrize("scheme", ("light", "dark"))
def test_header_items_never_wrap_and_nothing_scrolls_sideways(base: str, chromium, scheme: str) -> None:  # noqa: ANN001
    problems = []
    with borrowed(chromium) as browser:
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.emulate_media(color_scheme=scheme)
            for path in PAGES:
                page.goto(base + path, wait_until="load")
                got = page.evaluate(_MEASURE)
                assert got["boxes"], f"{path}: no header links or buttons found"
                # the site's title may take two lines on a phone (issue 45), between its words only
                problems += [f"{width}px /{path}: {b['text']!r} is on {b['lines']} lines{' split in a word' if b['split'] else ''}"
                             for b in got["boxes"] if b["split"] or (b["lines"] != 1 and not b["brand"])]
                if got["scroll"] > got["inner"]:
                    problems.append(f"{width}px /{path}: scrolls sideways ({got['scroll']} > {got['inner']} px)")
            page.close()
    assert not problems, "\n".join(problems)


def test_search_box_has_one_width_on_every_page(base: str, chromium) -> None:  # noqa: ANN001
    """The current page's link is marked without bold (issue 30: bold made the box 218-233 px wide
    from page to page); the subjects index and search page have a current link, the others none."""
    problems = []
    with borrowed(chromium) as browser:
        for width in WIDTHS:
            page = browser.new_page(viewport={"width": width, "height": 800})
            widths = {}
            for path in PAGES:
                page.goto(base + path, wait_until="load")
                widths[path] = round(page.locator("#site-search-q").bounding_box()["width"], 1)
            if len(set(widths.values())) != 1:
                problems.append(f"{width}px: {widths}")
            page.close()
    assert not problems, "the search box's width changes between pages:\n" + "\n".join(problems)
