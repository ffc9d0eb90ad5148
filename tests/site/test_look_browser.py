"""Issue 30's look, in Debian's Chromium, on a lab site (tests/fixtures/lab: six fictional people,
three with photos, a group of one and a group of five, an accent colour in site.yaml):

* at 320, 390, 600 and 1280 px, light and dark, the home, an author and a subject page: nothing
  scrolls sideways; every card of the home page has the same width (the group of one too), and
  every card starts its name at the same offset, with a photo or with the initials in its place;
  "Analytical Engine Laboratory, London" takes at most two lines and a card's first two subject
  chips share a line; the header's search box has the same width on every page (the current
  page's link is not bold); the author page's chart keeps legible labels (13 px or more) and its
  profile links are icons named for screen readers;
* vnu finds 0 errors in the lab's pages and axe 0 WCAG A/AA violations, light and dark.

Full-page JPEG screenshots go to test-artifacts/screenshots/lab/ on every run; with
AUTHORSITE_UPDATE_SCREENSHOT=1, the ones the README shows are copied to docs/screenshots/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from quality_util import (ARTIFACTS, REPO, PageWatch, build_site_dir, format_axe, format_vnu, require_node_tools,
                          run_axe, run_vnu, static_server)

LAB = REPO / "tests" / "fixtures" / "lab"
WIDTHS = (320, 390, 600, 1280)
SCHEMES = ("light", "dark")
PAGES = {"home": "", "author": "authors/ada-lovelace/", "subject": "subjects/cs.DS/", "subjects": "subjects/"}
SHOTS = ARTIFACTS / "screenshots" / "lab"
DOCS = REPO / "docs" / "screenshots"
README_SHOTS = ("lab-home-1280-light.jpg", "lab-home-390-dark.jpg", "lab-author-390-light.jpg")

_MEASURE = """() => {
  const box = el => el.getBoundingClientRect();
  const cards = [...document.querySelectorAll('.card')].map(c => {
    const b = box(c), h = box(c.querySelector('h3')), chips = [...c.querySelectorAll('.chip')].map(box);
    const aff = c.querySelector('.affiliation');
    const lines = aff ? Math.round(box(aff).height / parseFloat(getComputedStyle(aff).lineHeight)) : 0;
    return {name: c.querySelector('h3').textContent.trim(), width: b.width, photo: !!c.querySelector('img.photo'),
            dx: h.left - b.left, dy: h.top - b.top, affiliation: aff ? aff.textContent : '', lines,
            chips: chips.length >= 2 ? [chips[0].top, chips[1].top] : null};
  });
  const links = [...document.querySelectorAll('.links a')].map(a => ({name: a.textContent.trim(),
    icon: !!a.querySelector('svg[aria-hidden="true"]'), w: box(a).width}));
  const labels = [...document.querySelectorAll('.chart text')].map(t => box(t).height);
  return {scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth,
          search: box(document.querySelector('#site-search-q')).width, cards, links, labels};
}"""


@pytest.fixture(scope="module")
def lab_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("lab")
    shutil.copytree(LAB, work / "site")
    return build_site_dir(work / "site", work / "out")


@pytest.fixture(scope="module")
def lab_base(lab_site: Path) -> str:
    with static_server(lab_site) as url:
        yield url


def _card_problems(got: dict, where: str) -> list[str]:
    cards = got["cards"]
    problems = []
    if len({round(c["width"], 1) for c in cards}) != 1:
        problems.append(f"{where}: cards of different widths {[(c['name'], c['width']) for c in cards]}")
    if len({(round(c["dx"], 1), round(c["dy"], 1)) for c in cards}) != 1:
        problems.append(f"{where}: names start at different places {[(c['name'], c['dx'], c['dy']) for c in cards]}")
    if not any(c["photo"] for c in cards) or all(c["photo"] for c in cards):
        problems.append(f"{where}: the fixture must have cards with and without a photo")
    problems += [f"{where}: {c['name']}'s affiliation takes {c['lines']} lines" for c in cards if c["lines"] > 2]
    problems += [f"{where}: {c['name']}'s chips stack" for c in cards if c["chips"] and c["chips"][0] != c["chips"][1]]
    return problems


def _author_problems(got: dict, where: str) -> list[str]:
    problems = [f"{where}: chart label {h:.1f} px high" for h in got["labels"] if h < 13]
    if not got["labels"]:
        problems.append(f"{where}: no chart")
    kinds = [link["name"] for link in got["links"]]
    if kinds != ["Homepage", "ORCID", "arXiv", "DBLP", "Google Scholar", "GitHub", "Email"]:
        problems.append(f"{where}: profile links named {kinds}")
    problems += [f"{where}: {link['name']} has no hidden icon or a target under 24 px"
                 for link in got["links"] if not link["icon"] or link["w"] < 24]
    return problems


def test_lab_pages_at_every_width_light_and_dark(lab_base: str, browser) -> None:  # noqa: ANN001
    SHOTS.mkdir(parents=True, exist_ok=True)
    update = bool(os.environ.get("AUTHORSITE_UPDATE_SCREENSHOT"))
    problems: list[str] = []
    for width in WIDTHS:
        for scheme in SCHEMES:
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.emulate_media(color_scheme=scheme)
            watch = PageWatch(page, "{0.scheme}://{0.netloc}".format(urlsplit(lab_base)))
            search = {}
            for name, path in PAGES.items():
                where = f"{name} at {width} px ({scheme})"
                assert page.goto(lab_base + path, wait_until="load").status == 200, where
                page.evaluate("Promise.all([...document.images].map(i => i.decode().catch(() => null)))")
                got = page.evaluate(_MEASURE)
                search[name] = round(got["search"], 1)
                if got["scroll"] > got["inner"]:
                    problems.append(f"{where}: scrolls sideways ({got['scroll']} > {got['inner']} px)")
                if name == "home":
                    problems += _card_problems(got, where)
                if name == "author":
                    problems += _author_problems(got, where)
                if name != "subjects":
                    _save_shot(page, f"lab-{name}-{width}-{scheme}.jpg", update)
            if len(set(search.values())) != 1:
                problems.append(f"{width} px ({scheme}): the search box's width changes between pages: {search}")
            problems += [f"{width} {scheme}: {p}" for p in watch.problems()]
            page.close()
    assert not problems, "\n".join(problems)


def test_lab_pages_pass_vnu_and_axe_with_an_accent(lab_site: Path, lab_base: str, browser) -> None:  # noqa: ANN001
    require_node_tools()
    assert "accent:" in (LAB / "site.yaml").read_text(encoding="utf-8")
    html = sorted(lab_site.rglob("*.html"))
    errors = [format_vnu(m, lab_site) for m in run_vnu(html) if m.get("type") == "error"]
    for scheme in SCHEMES:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.emulate_media(color_scheme=scheme)
        for name, path in PAGES.items():
            page.goto(lab_base + path, wait_until="load")
            errors += [format_axe(v, f"{name} ({scheme})") for v in run_axe(page)]
        page.close()
    assert not errors, "\n".join(errors)


def test_readme_shows_the_lab_screenshots() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in README_SHOTS:
        assert (DOCS / name).is_file(), f"missing docs/screenshots/{name}: AUTHORSITE_UPDATE_SCREENSHOT=1 pytest {__file__}"
        assert f"docs/screenshots/{name}" in readme, f"the README does not show docs/screenshots/{name}"


def _save_shot(page: object, name: str, update: bool) -> None:
    """A full-page JPEG under test-artifacts (under 400 KB), copied to docs/screenshots/ when updating
    if the README shows it."""
    shot = SHOTS / name
    page.screenshot(path=str(shot), type="jpeg", quality=70, full_page=True)   # type: ignore[attr-defined]
    assert shot.stat().st_size < 400_000, f"{shot.name} is {shot.stat().st_size} bytes"
    if update and name in README_SHOTS:
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS / name)
