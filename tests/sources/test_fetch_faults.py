"""generator.fetch.run never loses data: every fault ends with the cache updated correctly, or
byte-identical and a clear message.

Each test runs ``fetch.fetch_site`` over real HTTP against the fake arXiv with a
cache written as a previous good fetch would have left it.
"""

from __future__ import annotations

import dataclasses
import logging
import re

import pytest
from atomgen import corpus, entry_xml, feed_xml
from fakearxiv import Corpus, Glitch, Reply, Script
from fetchkit import JANE, cache_path, hazard, hazard_names, run_cli, seed_cache

from generator.store import cache
from generator.core.errors import EXIT_OUTPUT, SiteError
from generator.fetch.run import fetch_site, merge_fetched
from generator.sources import accept, arxiv

PREVIOUS = corpus(3)


def previous_records() -> list:
    return list(arxiv.parse_page(feed_xml(PREVIOUS, total=3)).records)


@pytest.mark.parametrize("name", hazard_names())
def test_hazard_leaves_the_cache_byte_identical(arxiv_server, site, caplog, name: str) -> None:
    payload, meta = hazard(name)
    s = arxiv_server(Script(Reply(payload, status=meta["status"], content_type=meta["content_type"])))
    config = site(s.url, retries=1, delay=0.05)
    before = seed_cache(config, previous_records())
    with caplog.at_level(logging.WARNING):
        report = fetch_site(config)
    assert cache_path(config).read_bytes() == before
    (result,) = report.results
    assert result.error and meta["message"] in result.error
    assert len(s.hits) == (2 if meta["retried"] else 1)
    assert any("could not be fetched" in r.getMessage() and "kept" in r.getMessage() for r in caplog.records)


def _hostile_page(kind: str, trap: str) -> bytes:
    """An arXiv page whose DTD is a billion laughs, or points at ``trap`` (a second fake server)."""
    good = feed_xml([entry_xml("2401.01234", title="&x;" if kind != "external-dtd" else "T")], total=1).decode()
    head, rest = good.split("\n", 1)
    dtd = {"billion-laughs": '<!DOCTYPE feed [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                             '<!ENTITY x "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
           "external-entity": f'<!DOCTYPE feed [<!ENTITY x SYSTEM "{trap}/entity">]>',
           "external-dtd": f'<!DOCTYPE feed SYSTEM "{trap}/evil.dtd">'}[kind]
    return f"{head}\n{dtd}\n{rest}".encode()


@pytest.mark.parametrize("gate", ["text-check", "parser-only"])
@pytest.mark.parametrize("kind", ["billion-laughs", "external-entity", "external-dtd"])
def test_hostile_arxiv_page_is_refused_and_nothing_is_fetched_from_it(arxiv_server, site, monkeypatch,
                                                                       kind: str, gate: str) -> None:
    """Refused once (never retried), the cache unchanged, no request to the URLs in its DTD; also
    with the text check switched off, so the defused parser alone must refuse it."""
    if gate == "parser-only":
        monkeypatch.setattr(accept, "_DTD", re.compile(r"(?!)"))
    trap = arxiv_server(Script(Reply(b'<!ENTITY x "pwned">', content_type="application/xml-dtd")))
    s = arxiv_server(Script(Reply(_hostile_page(kind, trap.url.rsplit("/api/", 1)[0]))))
    config = site(s.url, retries=2, delay=0.05)
    before = seed_cache(config, previous_records())
    (result,) = fetch_site(config).results
    assert "DOCTYPE or ENTITY" in (result.error or "")
    assert ("refused by the parser" in result.error) == (gate == "parser-only")
    assert len(s.hits) == 1 and trap.hits == [] and cache_path(config).read_bytes() == before


def test_transient_fault_then_success_updates_the_cache(arxiv_server, site) -> None:
    payload, _ = hazard("rate-exceeded.txt")
    s = arxiv_server(Script(Reply(payload, content_type="text/plain"), then=Corpus(corpus(5))))
    config = site(s.url, retries=2, delay=0.05)
    before = seed_cache(config, previous_records())
    (result,) = fetch_site(config).results
    assert result.error is None and (result.new, result.updated, result.records) == (2, 0, 5)
    assert cache_path(config).read_bytes() != before
    assert len(cache.read_entry(cache_path(config)).records) == 5
    assert len(s.hits) == 2


def test_empty_page_then_full_page_is_retried(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(feed_xml([], total=5)), then=Corpus(corpus(5))))
    config = site(s.url, retries=1, delay=0.05)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 5 and len(s.hits) == 2


def test_short_page_is_retried_and_a_persistent_one_keeps_the_cache(arxiv_server, site) -> None:
    entries = corpus(8)
    short = Reply(feed_xml(entries[:2], total=8, per_page=10))
    s = arxiv_server(Script(short, then=Corpus(entries)))
    config = site(s.url, retries=1, delay=0.05)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 8

    s2 = arxiv_server(Script(short))
    config2 = site(s2.url, retries=1, delay=0.05)
    before = seed_cache(config2, previous_records())
    (result2,) = fetch_site(config2).results
    assert "short page" in (result2.error or "") and cache_path(config2).read_bytes() == before


# The first page's totalResults governs the whole query.
GLITCHES = {
    "empty, total 0": Reply(feed_xml([], total=0, start=10)),
    "short, same total": Reply(feed_xml(corpus(12)[10:11], total=12, start=10)),
    "full for another total": Reply(feed_xml(corpus(12)[10:11], total=11, start=10)),
}


@pytest.mark.parametrize("glitch", GLITCHES)
def test_a_later_page_is_judged_by_the_first_pages_total(arxiv_server, site, glitch: str) -> None:
    """12 results, pages of 10: a bad answer at start=10 is retried, and the fetch gets all 12."""
    s = arxiv_server(Glitch(Corpus(corpus(12)), start=10, reply=GLITCHES[glitch]))
    config = site(s.url, retries=1, delay=0.05, page_size=10)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 12
    assert len(cache.read_entry(cache_path(config)).records) == 12
    assert [h.params["start"] for h in s.hits] == ["0", "10", "10"]


def test_a_persistent_total_zero_page_fails_the_source_instead_of_truncating(arxiv_server, site) -> None:
    """Before: 10 of 12 cached, no warning, and later fetches stopped at the known first page for ever.
    Now the 10 are kept but the source fails and its cache says where to resume (test_arxiv_resume)."""
    s = arxiv_server(Glitch(Corpus(corpus(12)), start=10, reply=GLITCHES["empty, total 0"], times=99))
    config = site(s.url, retries=1, delay=0.05, page_size=10)
    (result,) = fetch_site(config).results
    assert "start=10 reports totalResults 0 where the first page reported 12" in (result.error or "")
    assert result.incomplete == cache.Incomplete(10, 12) and len(s.hits) == 3
    assert cache.read_entry(cache_path(config)).incomplete == cache.Incomplete(10, 12)


def test_a_refused_query_names_the_author_file_not_an_outage(arxiv_server, site) -> None:
    """HTTP 400 with arXiv's Error entry is a mistake in the author file."""
    payload, meta = hazard("error-entry-400.xml")
    s = arxiv_server(Script(Reply(payload, status=400)))
    author = "name: Jane Doe\nsources:\n  - arxiv: 'id:abc'\n"
    config = site(s.url, {"jane-doe": author}, retries=2, delay=0.05)
    before = seed_cache(config, previous_records())
    (result,) = fetch_site(config).results
    assert result.refused and len(s.hits) == 1 and cache_path(config).read_bytes() == before
    assert result.error == ("content/authors/jane-doe.yaml:3: arXiv 'id:abc' could not be fetched: the query was "
                            "refused: arXiv reported an error (HTTP 400): incorrect id format for abc; "
                            "fix the query there")

    strict = run_cli(config.root, "fetch", "--strict", env={"ARXIV_API_URL": s.url})
    assert strict.returncode == 4 and cache_path(config).read_bytes() == before   # 4: fix the author file
    assert "content/authors/jane-doe.yaml:3: arXiv 'id:abc' could not be fetched: the query was refused" \
        in strict.stderr
    assert "incorrect id format for abc" in strict.stderr and "fix the refused queries" in strict.stderr
    assert "upstream unavailable" not in strict.stderr and "again later" not in strict.stderr


def test_an_outage_is_still_not_called_a_refusal(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(b"Bad Request", status=400, content_type="text/plain")))
    config = site(s.url, retries=1, delay=0.05)
    (result,) = fetch_site(config).results
    assert result.error == "HTTP 400" and not result.refused


def test_shrink_is_refused(arxiv_server, site) -> None:
    """arXiv says 1 result for a query whose cache holds 3: suspicious, the 3 are kept."""
    s = arxiv_server(Script(Reply(feed_xml(PREVIOUS[:1], total=1))))
    config = site(s.url, retries=1, delay=0.05)
    before = seed_cache(config, previous_records())
    (result,) = fetch_site(config).results
    assert "cache holds 3" in (result.error or "") and cache_path(config).read_bytes() == before
    assert len(s.hits) == 2


def test_zero_results_for_a_new_author_is_an_empty_cache(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(feed_xml([], total=0))))
    config = site(s.url)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 0 and len(s.hits) == 1
    assert cache.read_entry(cache_path(config)).records == ()


def test_503_with_retry_after_then_success(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(status=503, headers={"Retry-After": "1"}), then=Corpus(corpus(3))))
    config = site(s.url, retries=1, delay=0.05)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 3 and s.start_gaps()[0] >= 1.0


def test_429_beyond_the_cap_keeps_the_cache_and_says_why(arxiv_server, site, caplog) -> None:
    s = arxiv_server(Script(Reply(status=429, headers={"Retry-After": "3600"})))
    config = site(s.url, retries=3, cap=2)
    before = seed_cache(config, previous_records())
    with caplog.at_level(logging.WARNING):
        (result,) = fetch_site(config).results
    assert cache_path(config).read_bytes() == before and len(s.hits) == 1
    assert "Retry-After" in (result.error or "")
    assert any("Retry-After" in r.getMessage() and "jane-doe" in r.getMessage() for r in caplog.records)


def test_timeout_keeps_the_cache(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(hang=True)))
    config = site(s.url, retries=0, timeout=1)
    before = seed_cache(config, previous_records())
    (result,) = fetch_site(config).results
    assert "timed out" in (result.error or "") and cache_path(config).read_bytes() == before


def test_slow_drip_keeps_the_cache(arxiv_server, site) -> None:
    s = arxiv_server(Script(Reply(feed_xml(corpus(3), total=3), drip=0.02)))
    config = site(s.url, retries=0, timeout=1)
    before = seed_cache(config, previous_records())
    (result,) = fetch_site(config).results
    assert "deadline" in (result.error or "") and cache_path(config).read_bytes() == before


def test_one_failing_author_does_not_stop_the_others(arxiv_server, site) -> None:
    bad = hazard("html-error-page.html")[0]
    good = Corpus(corpus(2, author="Ann Other"))
    s = arxiv_server(lambda path, params: Reply(bad, content_type="text/html")
                     if "Jane" in params["search_query"] else good(path, params))
    config = site(s.url, {"jane-doe": JANE, "ann-other": "name: Ann Other\nsources:\n  - arxiv: 'au:\"Ann Other\"'\n"},
                  retries=0)
    before = seed_cache(config, previous_records())
    report = fetch_site(config)
    by_slug = {r.slug: r for r in report.results}
    assert by_slug["jane-doe"].error and not by_slug["ann-other"].error and by_slug["ann-other"].records == 2
    assert cache_path(config).read_bytes() == before


def test_corrupt_cache_is_a_first_fetch(arxiv_server, site, caplog) -> None:
    s = arxiv_server(Corpus(corpus(3)))
    config = site(s.url)
    path = cache_path(config)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"format": 1, "records": [')
    with caplog.at_level(logging.WARNING):
        (result,) = fetch_site(config).results
    assert result.records == 3 and result.written
    assert any("unreadable cache file" in r.getMessage() for r in caplog.records)
    assert oct(path.stat().st_mode & 0o777) == "0o644"


def test_xss_payloads_are_stored_as_text(arxiv_server, site) -> None:
    x = "<script>alert(1)</script>"
    s = arxiv_server(Script(Reply(feed_xml([entry_xml("2401.01234", title=x, summary=x, authors=((x, (x,)),),
                                                      comment=x, journal_ref=x, doi="javascript:alert(1)",
                                                      links=("javascript:alert(1)",))], total=1))))
    config = site(s.url)
    fetch_site(config)
    (r,) = cache.read_entry(cache_path(config)).records
    assert (r.title, r.abstract, r.comment, r.journal_ref, r.authors[0].name) == (x, x, x, x, x)
    assert r.doi is None and r.url is None
    assert "javascript" not in cache_path(config).read_text("utf-8")


def test_impolite_delay_for_arxiv_is_refused_before_any_request(site, monkeypatch) -> None:
    config = site("https://export.arxiv.org/api/query", delay=1, retries=0)
    with pytest.raises(SiteError, match="at most one request every 3 s"):
        fetch_site(config)
    assert not cache_path(config).exists()
    # the same delay is fine against a mirror given in ARXIV_API_URL (nothing listens there: it just fails)
    report = fetch_site(config, environ={"ARXIV_API_URL": "http://127.0.0.1:9/api/query"})
    assert report.failed and "connection failed" in (report.results[0].error or "")


def test_merge_never_drops_and_never_downgrades() -> None:
    old = previous_records()
    old[1] = dataclasses.replace(old[1], version=3)
    changed = arxiv.parse_page(feed_xml([entry_xml(old[0].arxiv_id, 1, title="Changed title")], total=1)).records
    downgraded = dataclasses.replace(old[1], version=2, title="Stale copy")
    merged, new, updated = merge_fetched(old, [*changed, downgraded])
    assert len(merged) == 3 and (new, updated) == (0, 1)
    by_key = {r.key: r for r in merged}
    assert by_key[old[0].key].title == "Changed title"
    assert by_key[old[1].key].version == 3 and by_key[old[1].key].title != "Stale copy"


def test_unwritable_cache_is_a_clear_error(arxiv_server, site) -> None:
    s = arxiv_server(Corpus(corpus(2)))
    config = site(s.url)
    blocker = cache_path(config).parent
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a folder")           # works as root too, unlike chmod
    with pytest.raises(SiteError, match="cannot write the cache file") as info:
        fetch_site(config)
    assert info.value.exit_code == EXIT_OUTPUT and blocker.read_text() == "not a folder"
