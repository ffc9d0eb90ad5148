"""``openalex:`` sources over real HTTP on 127.0.0.1: the recorded works page, cursor paging to the
end, 403 (slow down) and 5xx retried, 429 (the day's allowance) stopping the source at once, the API
key kept out of every log line and message, and every bad answer leaving the cache byte-identical."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

import pytest
from fakearxiv import Reply, Script
from fetchkit import cache_path
from scholarkit import OTHER, assert_bad_answers_keep_cache, base, fetch_one, one_source_site

from generator.store import cache
from generator.fetch.run import fetch_site, summary_table
from generator.sources.http import ClientPolicy, Clock, HttpClient
from generator.sources.openalex import NO_KEY, rebuild_abstract

SAMPLE = (OTHER / "openalex-works-filter-list.json").read_bytes()
AUTHOR = "A5031600582"      # Michael Färber: an author of one of the two recorded works
CURSOR = json.loads(SAMPLE)["meta"]["next_cursor"]
KEY = "sekrit-Key-4d1f"
JSON = "application/json"


def ok(body: bytes) -> Reply:
    return Reply(body, content_type=JSON)


def last_page(count: int = 2) -> bytes:
    return json.dumps({"meta": {"count": count, "per_page": 200, "next_cursor": None}, "results": []}).encode()


def by_cursor(pages: dict[str, bytes]):
    """A responder answering each cursor with its page (OpenAlex's cursor paging)."""
    return lambda path, params: ok(pages[params["cursor"]])


def env(s, key: str | None = KEY) -> dict[str, str]:
    return {"OPENALEX_API_URL": base(s), **({"OPENALEX_API_KEY": key} if key else {})}


def test_the_recorded_page_is_paged_to_the_end_with_the_key(arxiv_server, site) -> None:
    s = arxiv_server(by_cursor({"*": SAMPLE, CURSOR: last_page()}))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    result = fetch_one(config, env(s))
    assert (result.error, result.requests, result.new, result.records) == (None, 2, 2, 2)
    assert [(h.path, h.params["cursor"]) for h in s.hits] == [("/works", "*"), ("/works", CURSOR)]
    assert {h.params["filter"] for h in s.hits} == {f"author.id:{AUTHOR}"}
    assert {h.params["per-page"] for h in s.hits} == {"200"} and {h.params["api_key"] for h in s.hits} == {KEY}
    entry = cache.read_entry(cache_path(config))
    assert entry.source == {"type": "openalex", "author": AUTHOR}
    assert KEY not in cache_path(config).read_text("utf-8")
    paper, preprint = sorted(entry.records, key=lambda r: r.key, reverse=True)
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert (paper.key, paper.venue, paper.citations, paper.citations_date, paper.source_ids) == (
        "doi:10.1145/3383583.3398584", "Proceedings of the ACM/IEEE Joint Conference on Digital Libraries in 2020",
        5, today, (("openalex", "W3046863325"),))
    assert paper.abstract.startswith("This paper analyzes trends of citation and altmetrics")
    assert (paper.authors[1].name, paper.authors[1].affiliations) == ("Michael Färber",
                                                                      ("Karlsruhe Institute of Technology",))
    # the arXiv preprint: its DataCite DOI is the arXiv id, so it merges with the arXiv source's record
    assert (preprint.key, preprint.doi, preprint.venue, preprint.citations, preprint.published) == (
        "arxiv:2007.14454", None, None, 0, "2020-07-28T00:00:00Z")
    assert preprint.abstract.startswith("The impact made by a scientific paper on the work of other academics")


def test_several_pages_are_followed_by_their_cursors(arxiv_server, site) -> None:
    doc = json.loads(SAMPLE)
    work = doc["results"][0]

    def page(ids: range, cursor: str | None) -> bytes:
        works = [dict(work, id=f"https://openalex.org/W{i}", doi=f"https://doi.org/10.1234/{i}") for i in ids]
        return json.dumps({"meta": {"count": 5, "next_cursor": cursor}, "results": works}).encode()

    s = arxiv_server(by_cursor({"*": page(range(1, 3), "c2"), "c2": page(range(3, 5), "c3"),
                                "c3": page(range(5, 6), None)}))
    config = one_source_site(site, s, f"openalex: {AUTHOR}")   # the shorthand: a lone id
    result = fetch_one(config, env(s))
    assert (result.error, result.requests, result.records) == (None, 3, 5)
    assert [h.params["cursor"] for h in s.hits] == ["*", "c2", "c3"]


def test_a_server_handing_out_cursors_for_ever_is_stopped(arxiv_server, site, caplog) -> None:
    loop = SAMPLE.replace(CURSOR.encode(), b"same")
    s = arxiv_server(Script(ok(loop)))
    config = one_source_site(site, s, f"openalex: {AUTHOR}")
    with caplog.at_level(logging.WARNING, logger="generator"):
        result = fetch_one(config, env(s))
    assert (result.error, result.requests, result.records) == (None, 2, 2)
    assert any("keeps handing out cursors" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("first", [Reply(b'{"error": "rate limit"}', 403, {"Retry-After": "1"}, content_type=JSON),
                                   Reply(b"", 500), Reply(b"", 503)])
def test_403_slows_down_and_5xx_is_retried(arxiv_server, site, first: Reply) -> None:
    s = arxiv_server(Script(first, ok(SAMPLE), ok(last_page())))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    result = fetch_one(config, env(s))
    assert (result.error, result.requests, result.records) == (None, 3, 2)
    if first.status == 403:
        assert s.gaps()[0] >= 0.95


def test_429_stops_the_source_at_once_and_keeps_the_cache(arxiv_server, site) -> None:
    s = arxiv_server(by_cursor({"*": SAMPLE, CURSOR: last_page()}))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}", retries=3)
    fetch_one(config, env(s))
    before = cache_path(config).read_bytes()
    s.responder = Script(Reply(b'{"error": "quota"}', 429, {"Retry-After": "3600"}, content_type=JSON))
    hits = len(s.hits)
    result = fetch_one(config, env(s))
    assert len(s.hits) == hits + 1                     # no retry: the allowance is spent until tomorrow
    assert "daily allowance for this key is spent (Retry-After: 3600 s)" in result.error
    assert cache_path(config).read_bytes() == before


def test_the_key_is_never_logged_nor_in_a_message(arxiv_server, site, caplog) -> None:
    s = arxiv_server(Script(Reply(b"", 500)))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    with caplog.at_level(logging.DEBUG):                # every logger, httpx's own included
        report = fetch_site(config, environ=env(s))
    (result,) = report.results
    assert result.error and all(h.params.get("api_key") == KEY for h in s.hits)
    text = "\n".join([r.getMessage() for r in caplog.records] + summary_table(report) + [result.error])
    assert "HTTP Request: GET" in text and "cursor=" in text      # the URLs are logged, without the key
    assert KEY not in text and "api_key" not in text
    assert NO_KEY not in text


def test_a_redirect_echoing_the_key_does_not_bring_it_into_a_log(arxiv_server, site, caplog) -> None:
    """OpenAlex answers a merged entity with 301; a Location that repeats api_key= is cleaned."""
    def merged(path, params):
        if path == "/works":
            return Reply(b"", 301, {"Location": f"/v2/works?cursor={params['cursor']}&api_key={KEY}"})
        return ok(SAMPLE) if params["cursor"] == "*" else ok(last_page())

    s = arxiv_server(merged)
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    with caplog.at_level(logging.DEBUG):
        result = fetch_one(config, env(s))
    assert (result.error, result.records) == (None, 2)
    assert [h.params.get("api_key") for h in s.hits if h.path == "/v2/works"] == [KEY, KEY]
    # httpcore's own DEBUG trace prints the raw response headers as the server sent them (the echo
    # included); everything that handles the URL, ours and httpx's request line, is clean
    ours = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("httpcore"))
    assert "redirected to" in ours and "HTTP Request: GET" in ours and KEY not in ours


def test_a_missing_key_is_a_clear_warning(arxiv_server, site, caplog) -> None:
    s = arxiv_server(by_cursor({"*": SAMPLE, CURSOR: last_page()}))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    with caplog.at_level(logging.WARNING, logger="generator"):
        assert fetch_one(config, env(s, key=None)).error is None
    assert "api_key" not in s.hits[0].params
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [NO_KEY]


def test_bad_answers_leave_the_cache_byte_identical(arxiv_server, site) -> None:
    s = arxiv_server(by_cursor({"*": SAMPLE, CURSOR: last_page()}))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    assert fetch_one(config, env(s)).records == 2
    doc = json.loads(SAMPLE)
    assert_bad_answers_keep_cache(s, config, env(s), [
        (ok(SAMPLE[:5000]), "malformed JSON"),
        (ok(b'{"meta": {"count": Infinity}, "results": []}'), "malformed JSON"),
        (ok(b'{"results": []}'), "no 'meta' and 'results'"),
        (ok(json.dumps(dict(doc, meta={"count": "2"})).encode()), "meta.count is not a count"),
        (ok(SAMPLE.replace(AUTHOR.encode(), b"A5000000001")), "another author's works"),
        (ok(last_page(0)), "no works but 2 records are cached"),
        (ok(json.dumps(dict(doc, results=[])).encode()), "empty page after 0 of 2 works"),
        (Reply(b'{"error": "Invalid query parameters"}', 400, content_type=JSON), "HTTP 400"),
    ])


def test_an_unchanged_count_keeps_its_date_so_nothing_is_rewritten(arxiv_server, site) -> None:
    s = arxiv_server(by_cursor({"*": SAMPLE, CURSOR: last_page()}))
    config = one_source_site(site, s, f"openalex: {{author: {AUTHOR}}}")
    fetch_one(config, env(s))
    before = cache_path(config).read_bytes()
    later = Clock(wall=lambda: datetime(2031, 1, 1, tzinfo=timezone.utc))
    with HttpClient(ClientPolicy(delay_seconds=0.1, timeout_seconds=2, retries=1), clock=later) as client:
        (result,) = fetch_site(config, environ=env(s), client=client).results
    assert (result.error, result.new, result.updated, result.written) == (None, 0, 0, False)
    assert cache_path(config).read_bytes() == before
    s.responder = by_cursor({"*": SAMPLE.replace(b'"cited_by_count":5', b'"cited_by_count":7'),
                             CURSOR: last_page()})
    with HttpClient(ClientPolicy(delay_seconds=0.1, timeout_seconds=2, retries=1), clock=later) as client:
        (result,) = fetch_site(config, environ=env(s), client=client).results
    assert (result.updated, result.written) == (1, True)
    paper = next(r for r in cache.read_entry(cache_path(config)).records if r.citations)
    assert (paper.citations, paper.citations_date) == (7, "2031-01-01")


def test_hostile_works_are_read_without_a_crash() -> None:
    from generator.sources.openalex import normalize_work

    hostile = {"id": "javascript:alert(1)", "display_name": "A\u202e title", "authorships": 5, "locations": "x",
               "primary_location": "x", "cited_by_count": -1, "publication_year": True,
               "doi": "https://doi.org/10.48550/arXiv.2401.01234", "abstract_inverted_index": {"a": [10**9]}}
    rec = normalize_work(hostile, "2026-12-01")
    assert (rec.title, rec.arxiv_id, rec.doi, rec.year, rec.citations, rec.citations_date, rec.source_ids) == (
        "A title", "2401.01234", None, None, None, None, ())
    assert normalize_work({"display_name": ""}, "2026-12-01") is None
    odd = {"display_name": "T", "authorships": [{"author": {"display_name": "X"}, "institutions": 3}, "y"],
           "primary_location": {"source": "z", "raw_source_name": "Some Journal", "landing_page_url": "ftp://x"}}
    rec = normalize_work(odd, "2026-12-01")
    assert ([p.name for p in rec.authors], rec.venue, rec.url) == (["X"], "Some Journal", None)


def test_abstracts_are_rebuilt_from_hostile_indexes_cheaply() -> None:
    assert rebuild_abstract({"world": [1], "Hello": [0], "again": [10**12]}) == "Hello world again"
    assert rebuild_abstract({"a": "0", 1: [2], "b": [True, 3]}) == "b"
    assert rebuild_abstract(None) == rebuild_abstract([]) == ""


def test_429_stops_every_openalex_source_of_the_run_and_keeps_each_cache(arxiv_server, site) -> None:
    """The allowance is the key's, not one author's: after a 429 the run's other OpenAlex sources
    send no request and keep their caches; other kinds on the same server are still fetched; the
    next run asks again."""
    orcid = (OTHER / "orcid-works.json").read_bytes()
    orcid_id = "0000-0002-9341-7985"
    pages = {"*": SAMPLE, CURSOR: last_page()}
    quota = Reply(b'{"error": "quota"}', 429, {"Retry-After": "3600"}, content_type=JSON)
    spent = {"on": False}

    def responder(path: str, params: dict[str, str]) -> Reply:
        if path.startswith("/v3.0/"):
            return ok(orcid)
        return quota if spent["on"] else ok(pages[params["cursor"]])

    s = arxiv_server(responder)
    author = f"name: %s\nsources:\n  - openalex: {{author: {AUTHOR}}}\n"
    config = site(s.url, {"jane-doe": author % "Jane Doe", "john-roe": author % "John Roe",
                          "mary-major": f"name: Mary Major\nsources:\n  - orcid: {orcid_id}\n"
                                        f"  - openalex: {{author: {AUTHOR}}}\n"}, retries=3)
    environ = {**env(s), "ORCID_API_URL": base(s)}
    assert [r.error for r in fetch_site(config, environ=environ).results] == [None] * 4
    paths = [cache_path(config, slug, i) for slug, i in (("jane-doe", 0), ("john-roe", 0), ("mary-major", 1))]
    before = [p.read_bytes() for p in paths]
    spent["on"] = True
    hits = len(s.hits)
    results = fetch_site(config, environ=environ).results
    assert [h.path for h in s.hits[hits:]] == ["/works", f"/v3.0/{orcid_id}/works"]   # one 429, then ORCID only
    first, second, orcid_result, third = results
    assert "daily allowance for this key is spent (Retry-After: 3600 s)" in first.error
    for later in (second, third):
        assert "said earlier in this run; not asked again" in later.error and later.requests == 0
        assert "sekrit" not in later.error
    assert orcid_result.error is None
    assert [p.read_bytes() for p in paths] == before
    spent["on"] = False                                  # a new run (tomorrow) asks again
    assert [r.error for r in fetch_site(config, environ=environ).results] == [None] * 4
