"""Issue 13, acceptance 2 and 5 for the people features, in Debian's Chromium over the built demo:

* screenshots of the home page (groups, photo), an author page with a photo and selected
  publications (Jane Doe) and a subject page, at 320, 390, 600 and 1280 px, light and dark:
  the viewport only, as small JPEG files; at each width nothing scrolls sideways and the photo
  has loaded at the size the page reserved for it. They go to test-artifacts/screenshots/ on
  every run and, with AUTHORSITE_UPDATE_SCREENSHOT=1, to docs/screenshots/ (committed, shown
  in the README);
* the list controls: abstracts start closed, "Show all abstracts" opens every one and is
  remembered across a reload, the compact view shows titles only; axe-core finds 0 WCAG A/AA
  violations with the controls in each state, light and dark, and no console error happens.

vnu and axe on every page kind run in tests/site/test_theme_quality.py over the same demo build.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from quality_util import ARTIFACTS, REPO, format_axe, open_page, require_node_tools, run_axe, static_server

WIDTHS = (320, 390, 600, 1280)
SCHEMES = ("light", "dark")
PAGES = {"home": "", "author": "authors/jane-doe/", "subject": "subjects/cs.CL/"}
DOCS = REPO / "docs" / "screenshots"
SHOTS = ARTIFACTS / "screenshots"
README_SHOTS = ("home-390-light.jpg", "author-390-dark.jpg", "home-1280-dark.jpg", "author-1280-light.jpg",
                "search-390-light.jpg", "search-1280-dark.jpg")


@pytest.fixture(scope="module")
def base(quality_site: Path) -> str:
    with static_server(quality_site) as url:
        yield url


def test_screenshots_at_every_width_light_and_dark(base: str, browser) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    update = bool(os.environ.get("AUTHORSITE_UPDATE_SCREENSHOT"))
    problems: list[str] = []
    for width in WIDTHS:
        for scheme in SCHEMES:
            for name, path in PAGES.items():
                page, watch = open_page(browser, base, path, width, scheme)
                try:
                    sw = page.evaluate("document.scrollingElement.scrollWidth")
                    if sw > width:
                        problems.append(f"{name} at {width} px ({scheme}): scrollWidth {sw}")
                    if name in ("home", "author"):
                        photo = page.locator("img.photo").first
                        photo.scroll_into_view_if_needed()
                        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=photo.element_handle())
                        box = photo.bounding_box()
                        assert box and box["width"] == box["height"] and box["width"] >= 60, (name, width, box)
                        page.evaluate("window.scrollTo(0, 0)")
                    problems.extend(f"{name} {width} {scheme}: {p}" for p in watch.problems())
                    _save_shot(page, f"{name}-{width}-{scheme}.jpg", update)
                finally:
                    page.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_list_controls_remembered_and_accessible(base: str, browser, scheme: str) -> None:  # noqa: ANN001
    require_node_tools()
    page, watch = open_page(browser, base, PAGES["author"], 1280, scheme)
    findings: list[str] = []
    try:
        closed = "[...document.querySelectorAll('details.abstract')].filter(d => !d.open).length"
        total = page.locator("details.abstract").count()
        assert total >= 1 and page.evaluate(closed) == total, "abstracts must start closed"
        assert page.locator(".pinned h2").inner_text() == "Selected publications"
        findings += [format_axe(v, f"author, controls off ({scheme})") for v in run_axe(page)]
        show = page.get_by_role("button", name="Show all abstracts")
        show.click()
        assert show.get_attribute("aria-pressed") == "true" and page.evaluate(closed) == 0
        findings += [format_axe(v, f"author, all abstracts open ({scheme})") for v in run_axe(page)]
        page.reload(wait_until="load")
        assert page.evaluate(closed) == 0, "the open abstracts were not remembered"
        compact = page.get_by_role("button", name="Compact view")
        compact.click()
        assert compact.get_attribute("aria-pressed") == "true"
        shown = page.evaluate("""[...document.querySelectorAll('.year .record')].filter(li =>
            [...li.querySelectorAll('details, .record-authors, .record-links')].some(e => e.checkVisibility())).length""")
        assert shown == 0, f"{shown} records still show more than their title in the compact view"
        findings += [format_axe(v, f"author, compact ({scheme})") for v in run_axe(page)]
        page.get_by_role("button", name="Show all abstracts").click()
        compact.click()
        findings += watch.problems()
    finally:
        page.evaluate("localStorage.clear()")
        page.close()
    assert not findings, "\n".join(findings)


def test_committed_screenshots_are_small_and_shown_in_the_readme() -> None:
    names = [f"{n}-{w}-{s}.jpg" for n in PAGES for w in WIDTHS for s in SCHEMES]
    missing = [n for n in names if not (DOCS / n).is_file()]
    assert not missing, f"missing {missing}: AUTHORSITE_UPDATE_SCREENSHOT=1 pytest tests/site/test_screenshots.py"
    for n in names:
        data = (DOCS / n).read_bytes()
        assert data[:3] == b"\xff\xd8\xff" and len(data) < 200_000, n
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for n in README_SHOTS:
        assert f"docs/screenshots/{n}" in readme, f"the README does not show docs/screenshots/{n}"


def test_search_as_you_type_screenshots_at_every_width(base: str, browser) -> None:  # noqa: ANN001
    """The header's search open on results, at each width, light and dark (issue 13, acceptance 2):
    nothing scrolls sideways, the results are visible; saved beside the page screenshots."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    update = bool(os.environ.get("AUTHORSITE_UPDATE_SCREENSHOT"))
    problems: list[str] = []
    for width in WIDTHS:
        for scheme in SCHEMES:
            page, watch = open_page(browser, base, PAGES["home"], width, scheme)
            try:
                page.locator("#site-search-q").fill("language")
                page.locator(".site-header .hit-title").first.wait_for(state="visible", timeout=10000)
                sw = page.evaluate("document.scrollingElement.scrollWidth")
                if sw > width:
                    problems.append(f"search at {width} px ({scheme}): scrollWidth {sw}")
                box = page.locator("#site-search-panel").bounding_box()
                if not box or box["x"] < 0 or box["x"] + box["width"] > width:
                    problems.append(f"search at {width} px ({scheme}): the panel is cut off: {box}")
                problems.extend(f"search {width} {scheme}: {p}" for p in watch.problems())
                _save_shot(page, f"search-{width}-{scheme}.jpg", update)
            finally:
                page.close()
    assert not problems, "\n".join(problems)


def _save_shot(page: object, name: str, update: bool) -> None:
    """A viewport JPEG under test-artifacts (under 200 KB), copied to docs/screenshots/ when updating."""
    shot = SHOTS / name
    page.screenshot(path=str(shot), type="jpeg", quality=70)   # type: ignore[attr-defined]
    assert shot.stat().st_size < 200_000, f"{shot.name} is {shot.stat().st_size} bytes"
    if update:
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS / shot.name)
