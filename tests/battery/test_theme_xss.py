"""The default theme against XSS (battery B9): in headless Chromium, pages built from records
full of XSS payloads run no script.

The hostile site (batterykit.make_hostile_site: payloads in every field of the site,
two author files, a typed-in record, three cached "fetched" records and a free page)
is built with its search index and served over HTTP on 127.0.0.1. Each page is opened
with listeners on ``dialog`` (alert/confirm/prompt), ``console`` and ``pageerror``;
none may fire. The DOM must hold no event-handler attribute and no script but ours, and
the payloads must be visible as text. The search page runs a query that matches the
payloads (static/search.js draws the results from the index's JSON), the author page's subject filter
is used, and a payload is typed into the header search box.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest
from batterykit import XSS, make_hostile_site
from browser_util import borrowed

from generator.core import routes

PAGES = ["authors/eve/", "authors/mallory/", "", "subjects/cs.CR/", "subjects/", "pages/evil/", "404.html",
         "search/?q=alert"]

DOM_AUDIT = """() => {
  const handlers = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) { if (a.name.startsWith('on')) handlers.push(el.tagName + ' ' + a.name); }
  }
  const scripts = [...document.scripts].map(s => s.src ? new URL(s.src).pathname : 'inline:' + (s.type || 'js'));
  const links = [...document.querySelectorAll('[href],[src],[action],[formaction]')]
    .map(e => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action') || e.getAttribute('formaction'))
    .filter(u => /^\\s*(javascript|data|vbscript):/i.test(u));
  return {handlers, scripts, links, xss: window.__xss === undefined ? null : String(window.__xss)};
}"""

OUR_SCRIPTS = {"/static/filter.js", "/static/lab-filter.js", "/static/records.js", "/static/search.js", "/static/theme.js", "/static/theme-init.js", "inline:application/ld+json"}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from generator.build import build

    base = tmp_path_factory.mktemp("xss-browser")
    root = make_hostile_site(base / "site", "/")
    out = build(root).out_dir
    assert (out / routes.search_index().path / "meta.json").is_file()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def test_xss_payloads_run_no_script_in_chromium(hostile_url: str, chromium) -> None:  # noqa: ANN001
    events: list[str] = []
    with borrowed(chromium) as browser:
        context = browser.new_context()
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(hostile_url)
                      else (events.append(f"request off the site: {route.request.url}"), route.abort()))
        page = context.new_page()
        page.on("dialog", lambda d: (events.append(f"dialog {d.type}: {d.message}"), d.dismiss()))
        page.on("console", lambda m: events.append(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: events.append(f"page error: {e}"))
        audits = {}
        for rel in PAGES:
            page.goto(hostile_url + rel, wait_until="load")
            if rel.startswith("search"):
                page.wait_for_selector(".search-results li.hit", timeout=15000)
            page.wait_for_timeout(150)
            audits[rel] = page.evaluate(DOM_AUDIT)
        page.goto(hostile_url + "authors/eve/")
        page_text = page.locator("main").inner_text()
        heading = page.locator("h1").inner_text()
        page.locator("[data-filter-bar] [data-subject]").first.click()     # filter.js runs
        page.wait_for_timeout(150)
        audits["filtered"] = page.evaluate(DOM_AUDIT)
        page.fill("#site-search-q", XSS[1] + " " + XSS[0])                 # the header box -> search page
        page.press("#site-search-q", "Enter")
        page.wait_for_url("**/search/**")
        page.wait_for_timeout(1500)
        audits["searched"] = page.evaluate(DOM_AUDIT)
        context.close()
    assert events == [], "\n".join(events)
    for rel, audit in audits.items():
        assert audit["handlers"] == [], (rel, audit["handlers"][:5])
        assert set(audit["scripts"]) <= OUR_SCRIPTS, (rel, audit["scripts"])
        assert audit["links"] == [], (rel, audit["links"][:5])
        assert audit["xss"] is None, rel
    assert heading == "Eve " + XSS[1]
    for payload in (XSS[0], XSS[1], XSS[2], "{{ 7*7 }}"):
        assert payload in page_text, f"{payload!r} is not shown as text"


def test_the_listeners_would_catch_a_script(tmp_path: Path, chromium) -> None:  # noqa: ANN001
    """Control: the same harness on a page that does run a payload sees the dialog and the handler."""
    (tmp_path / "control.html").write_text('<!DOCTYPE html><html><head><title>c</title></head><body>'
                                           '<img src="x" onerror="alert(\'control\')"></body></html>')
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    events: list[str] = []
    try:
        with borrowed(chromium) as browser:
            page = browser.new_page()
            page.on("dialog", lambda d: (events.append(f"dialog: {d.message}"), d.dismiss()))
            page.goto(f"http://127.0.0.1:{server.server_port}/control.html")
            page.wait_for_timeout(300)
            audit = page.evaluate(DOM_AUDIT)
    finally:
        server.shutdown()
        server.server_close()
    assert "dialog: control" in events and audit["handlers"] == ["IMG onerror"]
