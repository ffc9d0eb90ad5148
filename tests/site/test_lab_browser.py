"""The lab's list (/publications/) in Debian's Chromium, on the lab fixture and the demo: its
filters work in place with JavaScript (and combine), and as plain links without it (each keeps
exactly the works its count says); the page passes vnu (0 errors) and axe (0 violations, light
and dark), the co-authorship SVG with its table included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from quality_util import (PageWatch, build_site_dir, format_axe, format_vnu, require_node_tools, run_axe,
                          run_vnu, static_server)
from test_lab import LAB, WORKS

SCHEMES = ("light", "dark")
PAGE = "publications/"

_SHOWN = """() => [...document.querySelectorAll('#lab-list li.record')]
  .filter(li => li.offsetParent !== null).map(li => li.querySelector('h3').textContent.trim())"""
_EMPTY_YEARS = """() => [...document.querySelectorAll('#lab-list section.year')]
  .filter(s => s.offsetParent !== null && ![...s.querySelectorAll('li.record')].some(li => li.offsetParent !== null))
  .map(s => s.dataset.year)"""
_LINKS = """() => [...document.querySelectorAll('a[data-facet]')].map(a => ({facet: a.dataset.facet,
  value: a.dataset.value, href: a.getAttribute('href'), n: parseInt(a.querySelector('.n').textContent.replace(/[()]/g, ''))}))"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory, quality_site: Path) -> dict[str, Path]:
    """The lab fixture built for quality_util.BASE_URL, and the demo: the session's quality_site,
    the same build (the demo's inputs, built by the CLI for that URL), which the tests only read."""
    work = tmp_path_factory.mktemp("lab-browser")
    shutil.copytree(LAB, work / "lab")
    return {"lab": build_site_dir(work / "lab", work / "lab-out"), "demo": quality_site}


@pytest.fixture(scope="module")
def bases(sites: dict[str, Path]) -> dict[str, str]:
    with static_server(sites["lab"]) as lab, static_server(sites["demo"]) as demo:
        yield {"lab": lab, "demo": demo}


def _kept(works: dict[str, tuple[str, set[str]]], facet: str, value: str) -> set[str]:
    return {t for t, (kind, members) in works.items() if (facet == "kind" and kind == value)
            or (facet == "member" and value in members)}


@pytest.mark.parametrize("name", ["lab", "demo"])
def test_each_filter_as_a_plain_link_without_javascript(bases: dict[str, str], browser, name: str) -> None:  # noqa: ANN001
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(bases[name] + PAGE, wait_until="load")
    every = page.evaluate(_SHOWN)
    links = page.evaluate(_LINKS)
    assert links and len(every) == sum(link["n"] for link in links if link["facet"] == "year")
    problems = []
    for link in links:
        page.click(f'a[href="{link["href"]}"]')
        shown = page.evaluate(_SHOWN)
        if len(shown) != link["n"]:
            problems.append(f"{link['facet']} {link['value']}: {len(shown)} shown, its link says {link['n']}")
        if page.evaluate(_EMPTY_YEARS):
            problems.append(f"{link['facet']} {link['value']}: empty years shown {page.evaluate(_EMPTY_YEARS)}")
        if name == "lab" and link["facet"] in ("kind", "member") and set(shown) != _kept(WORKS, link["facet"], link["value"]):
            problems.append(f"{link['facet']} {link['value']}: shows {sorted(shown)}")
    page.click("a[data-filter-all]")
    assert len(page.evaluate(_SHOWN)) == len(every)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["lab", "demo"])
def test_filters_work_in_place_and_combine_with_javascript(bases: dict[str, str], browser, name: str) -> None:  # noqa: ANN001
    page = browser.new_page()
    watch = PageWatch(page, bases[name])
    page.goto(bases[name] + PAGE, wait_until="load")
    every = page.evaluate(_SHOWN)
    url = page.url
    for link in page.evaluate(_LINKS):
        button = page.locator(f'a[href="{link["href"]}"]')
        button.click()
        assert button.get_attribute("aria-pressed") == "true"
        assert len(page.evaluate(_SHOWN)) == link["n"], link
        assert not page.evaluate(_EMPTY_YEARS), link
        assert page.locator("#lab-filter-status").text_content() == f"{link['n']} of {len(every)} publications shown"
        button.click()   # again: off
        assert len(page.evaluate(_SHOWN)) == len(every)
    assert page.url == url, "no reload, no address change"
    if name == "lab":   # a member and a kind at once
        page.click('a[data-facet="member"][data-value="emmy-noether"]')
        page.click('a[data-facet="kind"][data-value="journal"]')
        assert page.evaluate(_SHOWN) == ["Invariants of Engines"]
        assert page.locator("#lab-filter-status").text_content() == f"1 of {len(every)} publications shown"
        page.click("a[data-filter-all]")
        assert len(page.evaluate(_SHOWN)) == len(every)
    # followed from elsewhere, a filter's anchor is the first choice and leaves the address
    first = page.evaluate(_LINKS)[-1]
    page.goto(bases[name], wait_until="load")
    page.goto(bases[name] + PAGE + first["href"], wait_until="load")
    assert len(page.evaluate(_SHOWN)) == first["n"]
    assert "#" not in page.url
    assert not watch.problems()


def test_the_list_passes_vnu_and_axe_light_and_dark(sites: dict[str, Path], bases: dict[str, str], browser) -> None:  # noqa: ANN001
    require_node_tools()
    files = [sites[n] / "publications" / "index.html" for n in ("lab", "demo")] + [sites["lab"] / "index.html"]
    errors = [format_vnu(m, sites["lab"].parent) for m in run_vnu(files) if m.get("type") == "error"]
    for scheme in SCHEMES:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.emulate_media(color_scheme=scheme)
        for name in ("lab", "demo"):
            for path in (PAGE, ""):
                page.goto(bases[name] + path, wait_until="load")
                errors += [format_axe(v, f"{name} /{path} ({scheme})") for v in run_axe(page)]
        # a filter chosen (pressed buttons, hidden entries) is checked too
        page.goto(bases["lab"] + PAGE, wait_until="load")
        page.click('a[data-facet="member"][data-value="emmy-noether"]')
        errors += [format_axe(v, f"lab /{PAGE} filtered ({scheme})") for v in run_axe(page)]
        page.close()
    assert not errors, "\n".join(errors)
