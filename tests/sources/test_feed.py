"""``feed:`` sources (generator.sources.feed) over HTTP: same client, same acceptance, same never-lose-data rule."""

from __future__ import annotations

from fakearxiv import Reply, Script
from fetchkit import FIXTURES, cache_path, hazard

from generator.store import cache
from generator.fetch.run import fetch_site

RSS = (FIXTURES / "feeds" / "arxiv-listing.rss").read_bytes()
ATOM = (FIXTURES / "feeds" / "publications.atom").read_bytes()


def feed_author(url: str) -> dict[str, str]:
    return {"jane-doe": f"name: Jane Doe\nsources:\n  - feed: {{url: '{url}', label: DBLP}}\n"}


def test_feed_is_fetched_labelled_and_merged(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(ATOM, content_type="application/atom+xml")))
    feed_url = s.url.replace("/api/query", "/feed.atom")
    config = site(s.url, feed_author(feed_url))
    (result,) = fetch_site(config).results
    assert result.error is None and (result.requests, result.new, result.records) == (1, 3, 3)
    entry = cache.read_entry(cache_path(config))
    assert entry.source == {"type": "feed", "url": feed_url, "label": "DBLP"}
    assert {r.source for r in entry.records} == {"DBLP"}
    assert s.hits[0].path == "/feed.atom"

    # the next version of the feed only has the newest entry: the older ones stay cached
    s.responder = Script(Reply(RSS, content_type="application/rss+xml"))
    (again,) = fetch_site(config).results
    assert (again.new, again.records) == (1, 4)


def test_feed_hazards_and_empty_feed_keep_the_cache(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(ATOM)))
    feed_url = s.url.replace("/api/query", "/feed.atom")
    config = site(s.url, feed_author(feed_url), delay=0.05)
    fetch_site(config)
    before = cache_path(config).read_bytes()
    empty = b'<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>\n'
    for body, message in ((hazard("quadratic-blowup.xml")[0], "DOCTYPE or ENTITY"),
                          (hazard("invalid-utf8.xml")[0], "not valid UTF-8"),
                          (empty, "no entries but 3 records are cached")):
        s.responder = Script(Reply(body))
        (result,) = fetch_site(config).results
        assert message in (result.error or ""), result.error
        assert cache_path(config).read_bytes() == before
