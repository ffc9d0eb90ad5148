"""Issue 32, acceptance 5, in Chromium: the "Not mine?" link of a record matched by name only
opens the site's GitHub issue form with its fields filled (a plain link: no JavaScript runs
to make it), and axe finds no WCAG violation on the author page with its marks shown, in the
light and the dark scheme. The page is the demo's Jane Doe (one name-only record), served on
127.0.0.1; the request to github.com is answered here, never sent."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from quality_util import BASE_URL, PageWatch, format_axe, require_node_tools, run_axe, static_server

PATH = "authors/jane-doe/"
RECORD = "2405.99998"


@pytest.fixture(scope="module")
def base(quality_site: Path):  # noqa: ANN201 - the served site's URL
    with static_server(quality_site) as url:
        yield url


def _open(browser, base: str, scheme: str, javascript: bool = True):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    watch = PageWatch(page, "{0.scheme}://{0.netloc}".format(urlsplit(base)))
    asked: list[str] = []

    def github(route) -> None:  # noqa: ANN001 - playwright Route
        asked.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>issue form</title>")

    page.route("https://github.com/**", github)    # registered last: runs before the watch's abort
    assert page.goto(base + PATH, wait_until="load") is not None
    return page, watch, asked


def _fields(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@pytest.mark.parametrize("javascript", [True, False], ids=["with-js", "without-js"])
def test_not_mine_opens_the_issue_form_filled(browser, base: str, javascript: bool) -> None:  # noqa: ANN001
    page, watch, asked = _open(browser, base, "light", javascript)
    entry = page.locator("li.record", has=page.locator("h3#r-2405-99998"))
    link = entry.locator("a.not-mine")
    assert link.count() == 1 and link.inner_text() == "Not mine?" and link.is_visible()
    href = link.get_attribute("href") or ""
    parts = urlsplit(href)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "github.com", "/example/authorsite/issues/new")
    expected = {"template": "not-mine.yml", "author": "jane-doe", "record": RECORD, "page": f"{BASE_URL}{PATH}#r-2405-99998"}
    assert {k: v for k, v in _fields(href).items() if k != "title"} == expected
    # the page named is this page, at this record
    assert urlsplit(expected["page"]).fragment == entry.locator("h3.record-title").get_attribute("id")
    assert watch.problems() == []
    link.click()
    page.wait_for_url("https://github.com/**")
    assert len(asked) == 1 and {k: v for k, v in _fields(asked[0]).items() if k != "title"} == expected
    assert RECORD in _fields(asked[0])["title"]
    # only name-only records have the link; the confirmed and identifier ones do not
    page.go_back(wait_until="load")
    assert page.locator("a.not-mine").count() == 1
    assert page.locator("li.record", has=page.locator("h3#r-2401-99999")).locator(".record-match").count() == 0
    assert watch.foreign_requests() == asked     # the issue form's request, answered here


def test_axe_finds_no_violation_with_the_marks_shown(browser, base: str) -> None:  # noqa: ANN001
    require_node_tools()
    findings: list[str] = []
    for scheme in ("light", "dark"):
        page, watch, _ = _open(browser, base, scheme)
        mark = page.locator(".record-match .match-mark")
        assert mark.count() == 1 and mark.is_visible() and mark.inner_text() == "Name match"   # words, not colour
        assert "not confirmed by an identifier" in page.locator(".record-match").inner_text()
        findings += [format_axe(v, f"{PATH} ({scheme})") for v in run_axe(page)]
        findings += watch.problems()
        page.context.close()
    assert not findings, "\n".join(findings)
