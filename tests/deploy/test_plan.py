"""The deploy's pure parts: the difference, the order of the waves, the headers, the target, the state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from generator.core.errors import SiteError
from generator.deploy.headers import LONG, SHORT, headers
from generator.deploy.local import page_links
from generator.deploy.plan import UNKNOWN, _rank, delete_waves, diff, send_waves
from generator.deploy.state import journal_bytes, manifest_bytes, remote_state
from generator.deploy.target import parse_to, resolve


def test_diff_is_by_digest_alone() -> None:
    d = diff({"a.html": "1", "b.css": "2", "c.js": "3", "d.png": "4"},
             {"a.html": "1", "b.css": "x", "d.png": UNKNOWN, "old.html": "9", "older.css": UNKNOWN})
    assert d.send == ("b.css", "c.js", "d.png")
    assert d.unchanged == ("a.html",)
    assert d.delete == ("old.html", "older.css")


def _position(waves: list[tuple[str, ...]]) -> dict[str, int]:
    return {k: n for n, wave in enumerate(waves) for k in wave}


def test_a_page_goes_after_what_it_links_to_and_the_home_page_last() -> None:
    keys = ["index.html", "authors/x/index.html", "authors/x/feed.xml", "papers/p/index.html",
            "subjects/cs.DB/index.html", "subjects/cs.DB/page/2/index.html", "static/style.css",
            "search/index/meta.json", "search/index/t/0-0123456789ab.json", "sitemap.xml", "robots.txt", "404.html"]
    links = {
        "index.html": {"authors/x/index.html", "static/style.css"},
        "authors/x/index.html": {"papers/p/index.html", "subjects/cs.DB/index.html", "authors/x/feed.xml",
                                 "index.html"},
        "subjects/cs.DB/index.html": {"subjects/cs.DB/page/2/index.html", "authors/x/index.html"},
        "subjects/cs.DB/page/2/index.html": {"subjects/cs.DB/index.html"},
        "papers/p/index.html": {"authors/x/index.html"},
        "404.html": {"index.html", "static/style.css"},
    }
    waves = send_waves(keys, links)
    at = _position(waves)
    assert sorted(at) == sorted(keys)
    assert waves[0] == ("search/index/t/0-0123456789ab.json",)        # digest-named, before meta.json
    assert at["search/index/meta.json"] == at["static/style.css"] == at["authors/x/feed.xml"] == 1
    assert waves[-1] == ("index.html",) and waves[-2] == ("robots.txt", "sitemap.xml")
    # a knot (author <-> paper <-> subject pages): paper pages first, then the deepest paths
    assert at["papers/p/index.html"] < at["subjects/cs.DB/page/2/index.html"] < at["subjects/cs.DB/index.html"]
    assert at["subjects/cs.DB/index.html"] != at["authors/x/index.html"]   # a knot of two: one, then the other
    assert max(at["subjects/cs.DB/index.html"], at["authors/x/index.html"]) < at["index.html"]
    # no wave holds a page and something it links to
    for page, targets in links.items():
        assert all(at[t] != at[page] for t in targets if t in at), page


def _layered_plainly(pages: list[str], links: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The pages' waves as send_waves' docstring says, the plain way (each wave looks at every page
    left): the oracle of its incremental layering, which a first deploy of the bench site needs
    (this took 164 s for its 87,208 pages, the incremental one 3.3 s)."""
    left = set(pages)
    waiting = {p: {t for t in links.get(p, ()) if t in left and t != p} for p in pages}
    waves: list[tuple[str, ...]] = []
    while left:
        ready = sorted((p for p in left if not waiting[p]), key=_rank)
        if not ready:
            first = min(left, key=_rank)
            level = {p for p in left if _rank(p)[:2] == _rank(first)[:2]}
            ready = sorted((p for p in level if not waiting[p] & level), key=_rank) or [first]
        waves.append(tuple(ready))
        left.difference_update(ready)
        for p in left:
            waiting[p].difference_update(ready)
    return waves


_KINDS = ["authors/{}/index.html", "papers/{}/index.html", "subjects/{}/index.html", "subjects/{}/page/2/index.html",
          "{}/index.html", "publications/page/{}/index.html"]
_PAGES = st.lists(st.builds(str.format, st.sampled_from(_KINDS), st.integers(0, 5)), min_size=1, max_size=30,
                  unique=True)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_the_page_waves_are_the_plain_layerings(data: st.DataObject) -> None:
    pages = data.draw(_PAGES)
    targets = st.sets(st.sampled_from([*pages, "papers/unchanged/index.html"]), max_size=6)
    links = data.draw(st.dictionaries(st.sampled_from(pages), targets))
    waves = send_waves(pages, links)
    assert waves == _layered_plainly(sorted(pages, key=_rank), links)
    at = _position(waves)
    for page, linked in links.items():   # no page in the wave of what it links to, nor before it outside a knot
        assert all(at[t] != at[page] for t in linked if t in at and t != page), page


def test_pages_wait_only_for_what_is_sent_with_them() -> None:
    waves = send_waves(["authors/x/index.html", "authors/y/index.html"],
                       {"authors/x/index.html": {"authors/y/index.html", "papers/unchanged/index.html"}})
    assert waves == [("authors/y/index.html",), ("authors/x/index.html",)]


def test_deletions_go_pages_first_shallowest_first() -> None:
    waves = delete_waves(["authors/x/feed.xml", "authors/x/index.html", "papers/p/index.html",
                          "search/index/t/0-0123456789ab.json", "subjects/a/page/2/index.html"])
    assert waves == [("authors/x/index.html",), ("subjects/a/page/2/index.html",), ("papers/p/index.html",),
                     ("authors/x/feed.xml",), ("search/index/t/0-0123456789ab.json",)]


@pytest.mark.parametrize("key, ctype, cache", [
    ("index.html", "text/html; charset=utf-8", SHORT),
    ("authors/x/feed.xml", "application/atom+xml; charset=utf-8", SHORT),
    ("sitemap.xml", "application/xml; charset=utf-8", SHORT),
    ("data.json", "application/json; charset=utf-8", SHORT),
    ("search/index/meta.json", "application/json; charset=utf-8", SHORT),
    ("search/index/t/3-0123456789ab.json", "application/json; charset=utf-8", LONG),
    ("search/index/d/0-fedcba987654.json", "application/json; charset=utf-8", LONG),
    ("authors/x/publications.json", "application/vnd.citationstyles.csl+json; charset=utf-8", SHORT),
    ("authors/x/publications.bib", "application/x-bibtex; charset=utf-8", SHORT),
    ("static/style.css", "text/css; charset=utf-8", SHORT),
    ("static/search.js", "text/javascript; charset=utf-8", SHORT),
    ("static/favicon.svg", "image/svg+xml; charset=utf-8", SHORT),
    ("authors/x/photo.png", "image/png", SHORT),
    ("authors/x/photo.jpg", "image/jpeg", SHORT),
    ("authors/x/photo.webp", "image/webp", SHORT),
    ("static/font.woff2", "font/woff2", SHORT),
    ("robots.txt", "text/plain; charset=utf-8", SHORT),
    ("static/unknown.zzz", "application/octet-stream", SHORT),
])
def test_headers_of_every_kind(key: str, ctype: str, cache: str) -> None:
    assert headers(key) == (ctype, cache)


def test_page_links_are_keys_of_the_site_whatever_its_base_path() -> None:
    keys = {"index.html": 1, "authors/x/index.html": 1, "static/style.css": 1, "authors/x/feed.xml": 1}
    html = (b'<link rel="canonical" href="https://h.example/repo/authors/y/"><link rel=stylesheet '
            b'href="/repo/static/style.css"><a href="../../">home</a><a href="feed.xml">feed</a>'
            b'<a href="https://arxiv.org/abs/1">x</a><a href="https://h.example/repo/authors/x/">me</a>')
    assert page_links("authors/x/index.html", html, keys, frozenset({"h.example"})) == {
        "static/style.css", "index.html", "authors/x/feed.xml"}


def test_targets() -> None:
    assert parse_to("s3://my-site") == ("my-site", "")
    assert parse_to("s3://my-site/lab//2026/") == ("my-site", "lab/2026/")
    for wrong in ("my-site", "s3://My_Site", "s3://b/../x", "gs://bucket"):
        with pytest.raises(SiteError):
            parse_to(wrong)
    with pytest.raises(SiteError, match="no deploy target"):
        resolve(None, None, None, None)
    t = resolve(None, "s3://bkt/p", "http://127.0.0.1:9000/", "auto")
    assert (t.bucket, t.prefix, t.endpoint_url, t.region) == ("bkt", "p/", "http://127.0.0.1:9000", "auto")


def test_a_journal_makes_its_keys_unknown() -> None:
    state = remote_state(manifest_bytes({"a.html": "1", "b.css": "2"}, "rules"), journal_bytes(["b.css", "c.js"]),
                         UNKNOWN)
    assert state is not None and state.journal and state.rules == "rules"
    assert dict(state.files) == {"a.html": "1", "b.css": UNKNOWN, "c.js": UNKNOWN}
    assert remote_state(None, journal_bytes(["x"]), UNKNOWN) is None
    assert remote_state(b"not gzip", None, UNKNOWN) is None
    assert manifest_bytes({"a": "1"}, "r") == manifest_bytes({"a": "1"}, "r")   # no date inside
