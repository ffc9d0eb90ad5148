"""Record display in a real browser and the real validators (issue 15, acceptance 5 and the
quality bar of the changed pages).

* On every author page of the demo site and of a site built from the two recorded arXiv samples
  (plus a 2,501-author record), each subject chip of the filter bar is clicked in Chromium and
  the records left visible are counted: the count equals the chip's number, and every subject
  of a record on the page has a chip.
* The changed pages (the samples' author pages, a subject page with the long record) pass the
  Nu HTML checker with zero errors and axe-core with zero WCAG A/AA violations.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import test_record_display as rd
from quality_util import (BASE_PATH, PageWatch, format_axe, format_vnu, require_node_tools, run_axe, run_vnu,
                          static_server)

from generator.core import routes

DEMO_AUTHORS = sorted(p.stem for p in (rd.Path(__file__).resolve().parents[2] / "content" / "authors").glob("*.yaml"))
SAMPLE_AUTHORS = ["jane-doe", "john-roe"]


@pytest.fixture(scope="module")
def sites(quality_site: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    samples = rd.build_sample(tmp_path_factory.mktemp("samples"), big=True)
    return {"demo": quality_site, "samples": samples}


def _chips_match_filter(browser, root: Path, slugs: list[str]) -> list[str]:  # noqa: ANN001
    """Problems found clicking every chip of each author page (empty when all agree)."""
    problems: list[str] = []
    with static_server(root, BASE_PATH) as url:
        page = browser.new_page()
        watch = PageWatch(page, url)
        for slug in slugs:
            page.goto(url + routes.author(slug).url)
            page.wait_for_load_state("load")
            chips = page.eval_on_selector_all(
                "[data-filter-bar] a[data-subject]",
                "els => els.map(a => [a.dataset.subject, Number(a.querySelector('.n').textContent)])")
            on_records = set(page.eval_on_selector_all(
                "li.record", "els => els.flatMap(li => (li.dataset.subjects || '').split(' ').filter(Boolean))"))
            missing = on_records - {code for code, _ in chips}
            if missing:
                problems.append(f"{slug}: no chip for {sorted(missing)}")
            for code, n in chips:
                page.click(f'[data-filter-bar] a[data-subject="{code}"]')
                shown = page.locator("section.year li.record:visible").count()   # the list, not the pinned
                if shown != n:
                    problems.append(f"{slug}: chip {code} says {n}, the filter shows {shown}")
                page.click(f'[data-filter-bar] a[data-subject="{code}"]')   # off again
                if page.locator("li.record:visible").count() != page.locator("li.record").count():
                    problems.append(f"{slug}: clicking {code} twice does not show every record again")
            assert chips, f"{slug}: no subject chips at all"
        problems += watch.problems()
        page.close()
    return problems


@pytest.mark.parametrize("name", ["demo", "samples"])
def test_chip_counts_equal_filter_results_on_every_author_page(sites: dict[str, Path], browser,  # noqa: ANN001
                                                               name: str) -> None:
    slugs = DEMO_AUTHORS if name == "demo" else SAMPLE_AUTHORS
    assert slugs
    problems = _chips_match_filter(browser, sites[name], slugs)
    assert not problems, "\n".join(problems)


CHANGED = [routes.author("jane-doe").path, routes.author("john-roe").path, routes.subject("cs.SE").path,
           routes.subject("stat.ME").path]


def test_changed_pages_pass_vnu(sites: dict[str, Path]) -> None:
    require_node_tools()
    root = sites["samples"]
    errors = run_vnu([root / rel for rel in CHANGED] + [root / routes.static("style.css").path], css=True)
    assert not errors, "\n".join(format_vnu(m, root) for m in errors)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_changed_pages_pass_axe(sites: dict[str, Path], browser, scheme: str) -> None:  # noqa: ANN001
    require_node_tools()
    found: list[str] = []
    with static_server(sites["samples"], BASE_PATH) as url:
        page = browser.new_page(color_scheme=scheme)
        for rel in CHANGED:
            page.goto(url + routes.url_of_file(rel))
            page.wait_for_load_state("load")
            found += [format_axe(v, f"{rel} ({scheme})") for v in run_axe(page)]
        page.close()
    assert not found, "\n".join(found)


def test_filter_keyboard_pinned_and_no_script(sites: dict[str, Path], browser) -> None:  # noqa: ANN001
    """What an audit of the theme found, in Chromium on the demo's Jane Doe (a pinned cs.DS record):
    a chip announced as a button answers Space; "Selected publications" stays while the list is
    filtered, and no year link points to a hidden year; one record reads "1 record"; without
    JavaScript the list controls stay hidden (a display rule had shown them, doing nothing)."""
    with static_server(sites["demo"], BASE_PATH) as url:
        page = browser.new_page()
        watch = PageWatch(page, url)
        page.goto(url + routes.author("jane-doe").url)
        chip = page.locator('[data-filter-bar] a[data-subject="cs.DS"]')
        chip.focus()
        page.keyboard.press("Space")
        assert chip.get_attribute("aria-pressed") == "true"
        assert page.evaluate("window.scrollY") == 0
        shown = page.locator("section.year li.record:visible").count()
        assert page.locator("#filter-status").text_content() == f"{shown} record{'' if shown == 1 else 's'} in cs.DS"
        assert page.locator(".pinned li.record:visible").count() == page.locator(".pinned li.record").count() > 0
        for link in page.locator('[data-filter-bar] a[href^="#year-"]').all():
            target = page.locator(link.get_attribute("href"))
            assert link.is_visible() == target.is_visible(), link.get_attribute("href")
        page.keyboard.press("Space")
        assert chip.get_attribute("aria-pressed") == "false"
        assert page.locator("li.record:visible").count() == page.locator("li.record").count()
        page.emulate_media(media="print")
        after = page.eval_on_selector(".record-title a[href^='http']",
                                      "a => getComputedStyle(a, '::after').content")
        assert "http" in after or "attr(href)" in after, after
        problems = watch.problems()
        page.close()
        context = browser.new_context(java_script_enabled=False)
        try:
            bare = context.new_page()
            bare.goto(url + routes.author("jane-doe").url)
            assert bare.locator("[data-list-controls]").count() == 1
            assert not bare.locator("[data-list-controls]").is_visible()
        finally:
            context.close()
    assert not problems, problems
