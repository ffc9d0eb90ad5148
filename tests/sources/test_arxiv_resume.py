"""Paging that stays bad after the retries keeps the complete pages, marks the cache incomplete,
fails the run, and resumes on the next fetch; raising max_results backfills (issue 15, items 1-3).

Real HTTP against the fake arXiv on loopback; each scenario runs fetch twice (the outage,
then the recovery) and checks the request log, the cache file and the records: no
duplicate, no loss.
"""

from __future__ import annotations

import json

from atomgen import corpus, entry_xml, feed_xml
from fakearxiv import Corpus, Glitch, Reply
from fetchkit import JANE, cache_path, run_cli, seed_cache, write_site

from generator.store import cache
from generator.config import load_site
from generator.core.errors import EXIT_UPSTREAM
from generator.fetch.run import fetch_site, summary_table
from generator.sources import arxiv

EMPTY_TOTAL_0 = Reply(feed_xml([], total=0, start=10))


def _ids(config) -> list[str]:
    return [r.arxiv_id for r in cache.read_entry(cache_path(config)).records]


def test_an_empty_total_zero_page_on_a_first_fetch_keeps_ten_then_resumes_at_ten(arxiv_server, site) -> None:
    """12 results, pages of 10, start=10 answers 'totalResults 0' through every retry."""
    glitch = Glitch(Corpus(corpus(12)), start=10, reply=EMPTY_TOTAL_0, times=2)
    s = arxiv_server(glitch)
    config = site(s.url, retries=1, delay=0.05, page_size=10)
    report = fetch_site(config)
    (result,) = report.results
    assert report.exit_status == EXIT_UPSTREAM and result.records == 10 and result.written
    assert result.incomplete == cache.Incomplete(10, 12)
    assert "INCOMPLETE at 10 of 12" in summary_table(report)[1]
    assert "1 failed (1 in part: incomplete, resumed next time)" in summary_table(report)[-1]
    data = json.loads(cache_path(config).read_text("utf-8"))
    assert data["incomplete"] == {"next_start": 10, "total": 12} and len(data["records"]) == 10

    s.hits.clear()                                         # arXiv is well again
    (again,) = fetch_site(config).results
    assert [h.params["start"] for h in s.hits] == ["0", "10"]     # the known first page, then the jump
    assert again.error is None and (again.new, again.records) == (2, 12)
    assert sorted(_ids(config)) == sorted(f"2401.{10000 + i}" for i in range(12))
    assert "incomplete" not in json.loads(cache_path(config).read_text("utf-8"))


def test_a_later_short_page_keeps_the_pages_before_and_the_next_run_finishes(arxiv_server, tmp_path) -> None:
    """Through the real CLI: exit 3 and the summary say so; the build warns; the next fetch completes."""
    entries = corpus(10)
    short = Reply(feed_xml(entries[4:5], total=10, start=4, per_page=4))
    s = arxiv_server(Glitch(Corpus(entries), start=4, reply=short, times=2))
    root = write_site(tmp_path / "site", {"jane-doe": JANE}, api=s.url, delay=0.05, retries=1, page_size=4)
    first = run_cli(root, "fetch")
    assert first.returncode == 3, first.stderr
    assert "INCOMPLETE at 4 of 10" in first.stderr and "marked incomplete" in first.stderr
    assert "short page at start=4" in first.stderr
    config = load_site(root)
    assert len(_ids(config)) == 4
    strict = run_cli(root, "build", "--strict")
    assert strict.returncode == 1 and "the cache holds only part of this source" in strict.stderr
    assert "content/authors/jane-doe.yaml:3" in strict.stderr
    assert run_cli(root, "check", "--strict").returncode == 1

    s.hits.clear()
    second = run_cli(root, "fetch")
    assert second.returncode == 0, second.stderr
    assert [h.params["start"] for h in s.hits] == ["0", "4", "8"]
    ids = _ids(config)
    assert len(ids) == len(set(ids)) == 10                      # no duplicate, no loss
    assert run_cli(root, "build", "--strict").returncode == 0


def test_resuming_after_new_papers_arrived_sees_overlap_but_loses_nothing(arxiv_server, site) -> None:
    """Between the runs 3 new papers come on top: offsets shift down, the resume overlaps, merges."""
    entries = corpus(12)
    s = arxiv_server(Glitch(Corpus(entries), start=10, reply=EMPTY_TOTAL_0, times=2))
    config = site(s.url, retries=1, delay=0.05, page_size=10)
    fetch_site(config)
    new = [entry_xml(f"2402.{20000 + i}", title=f"New {i}") for i in range(3)]
    s.responder = Corpus(new + entries)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 15 and result.new == 5
    assert len(set(_ids(config))) == 15


def test_a_partial_on_an_existing_cache_merges_and_never_shrinks(arxiv_server, site) -> None:
    old = corpus(20)[15:]                                  # 5 old papers cached by an earlier fetch
    s = arxiv_server(Glitch(Corpus(corpus(20)), start=10, reply=EMPTY_TOTAL_0, times=2))
    config = site(s.url, retries=1, delay=0.05, page_size=10)
    seed_cache(config, list(arxiv.parse_page(feed_xml(old, total=5)).records))
    (result,) = fetch_site(config).results
    assert result.incomplete == cache.Incomplete(10, 20) and result.records == 15   # 10 fetched + 5 kept
    (done,) = fetch_site(config).results
    assert done.error is None and done.records == 20


def test_raising_max_results_backfills_from_where_the_limit_stopped(arxiv_server, site) -> None:
    s = arxiv_server(Corpus(corpus(12)))
    config = site(s.url, delay=0.05, page_size=5, max_results=5)
    fetch_site(config)
    assert json.loads(cache_path(config).read_text("utf-8"))["max_results"] == 5
    assert len(_ids(config)) == 5

    s.hits.clear()
    raised = site(s.url, delay=0.05, page_size=5, max_results=12)
    (result,) = fetch_site(raised).results
    assert [h.params["start"] for h in s.hits] == ["0", "5", "10"]
    assert result.error is None and (result.new, result.records) == (7, 12)
    assert "max_results" not in json.loads(cache_path(raised).read_text("utf-8"))   # all 12 are there now

    s.hits.clear()
    assert fetch_site(raised).results[0].requests == 1    # and then an update costs one request again


def test_an_older_cache_without_the_field_is_backfilled_too(arxiv_server, site) -> None:
    """A cache written before max_results was recorded (5 of 12): it holds fewer than it should."""
    s = arxiv_server(Corpus(corpus(12)))
    config = site(s.url, delay=0.05, page_size=5, max_results=12)
    before = seed_cache(config, list(arxiv.parse_page(feed_xml(corpus(12)[:5], total=12)).records))
    assert b"max_results" not in before and b"incomplete" not in before
    (result,) = fetch_site(config).results
    assert (result.new, result.records) == (7, 12)


def test_an_older_complete_cache_stays_byte_identical(arxiv_server, site) -> None:
    """Nothing new: no new field is written into a cache file from before this change."""
    s = arxiv_server(Corpus(corpus(3)))
    config = site(s.url, delay=0.05)
    before = seed_cache(config, list(arxiv.parse_page(feed_xml(corpus(3), total=3)).records))
    (result,) = fetch_site(config).results
    assert not result.written and cache_path(config).read_bytes() == before


def test_a_hand_edited_mark_is_ignored_not_fatal(arxiv_server, site) -> None:
    """A mangled ``incomplete`` or ``max_results`` is read as absent; the fetch then judges by counts."""
    s = arxiv_server(Corpus(corpus(12)))
    config = site(s.url, delay=0.05, page_size=5)
    seed_cache(config, list(arxiv.parse_page(feed_xml(corpus(12)[:5], total=12)).records))
    path = cache_path(config)
    data = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps({**data, "incomplete": {"next_start": -3, "total": "x"}, "max_results": True}))
    entry = cache.read_entry(path)
    assert entry.incomplete is None and entry.max_results is None
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 12
