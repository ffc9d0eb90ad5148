"""``arxiv: {ids: [...]}``: papers named by id, fetched with id_list in batches of 100 (issue 15, item 11).

Validated in the author file (file, line, key), cached like a query (its own file), and merged
with a query's records under the same key ``arxiv:<id>``.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from atomgen import corpus, entry_xml, feed_xml
from fakearxiv import Corpus, Reply
from fetchkit import cache_path, run_cli, write_site

from generator.store import cache
from generator.config import load_site
from generator.core.errors import SiteError
from generator.fetch.run import fetch_site


class IdList:
    """Answers ``id_list`` like arXiv: one entry per known id, in the order asked; ``fail_from``
    makes every request whose first id is at or after that index of ``known`` fail with 503."""

    def __init__(self, known: list[str], fail_from: int | None = None) -> None:
        self.known = known
        self.fail_from = fail_from
        self.lock = threading.Lock()

    def __call__(self, path: str, params: dict[str, str]) -> Reply:
        asked = params["id_list"].split(",")
        if self.fail_from is not None and self.known.index(asked[0]) >= self.fail_from:
            return Reply(status=503)
        found = [entry_xml(i, title=f"Named paper {i}") for i in asked if i in self.known]
        return Reply(feed_xml(found, total=len(found), per_page=len(asked)))


def _ids(n: int) -> list[str]:
    return [f"2401.{20000 + i}" for i in range(n)]


def _author(ids: list[str]) -> str:
    listed = ", ".join(f"'{i}'" for i in ids)
    return f"name: Jane Doe\nsources:\n  - arxiv: {{ids: [{listed}]}}\n"


def test_ids_are_fetched_in_batches_of_100_at_the_polite_pace(arxiv_server, site) -> None:
    ids = _ids(150)
    s = arxiv_server(IdList(ids))
    config = site(s.url, {"jane-doe": _author(list(reversed(ids)))}, delay=0.2)
    (result,) = fetch_site(config).results
    assert result.error is None and (result.requests, result.records) == (2, 150)
    batches = [h.params["id_list"].split(",") for h in s.hits]
    assert [len(b) for b in batches] == [100, 50] and sum(batches, []) == ids     # sorted, each once
    assert min(s.start_gaps()) >= 0.2
    path = cache_path(config)
    assert path.name.startswith("arxiv-ids-")
    data = json.loads(path.read_text("utf-8"))
    assert data["source"] == {"type": "arxiv", "ids": ids}
    assert {r["key"] for r in data["records"]} == {f"arxiv:{i}" for i in ids}


def test_an_unknown_id_is_a_warning_and_the_rest_is_cached(arxiv_server, site, caplog) -> None:
    s = arxiv_server(IdList(_ids(2)))
    config = site(s.url, {"jane-doe": _author([*_ids(2), "2401.29999"])}, delay=0.05)
    (result,) = fetch_site(config).results
    assert result.error is None and result.records == 2
    assert any("arXiv has no paper 2401.29999" in r.getMessage() for r in caplog.records)


def test_entries_for_ids_not_asked_for_are_not_cached(arxiv_server, site) -> None:
    """A hostile or confused answer slips in other papers: only the ids asked for are kept."""
    stray = entry_xml("2401.99999", title="Not asked for")
    s = arxiv_server(lambda path, params: Reply(feed_xml([stray, entry_xml("2401.20000")], total=2)))
    config = site(s.url, {"jane-doe": _author(["2401.20000"])}, delay=0.05)
    (result,) = fetch_site(config).results
    assert result.error is None and [r.arxiv_id for r in cache.read_entry(cache_path(config)).records] == \
        ["2401.20000"]


def test_a_failing_second_batch_keeps_the_first_and_is_marked_incomplete(arxiv_server, site) -> None:
    ids = _ids(120)
    s = arxiv_server(IdList(ids, fail_from=100))
    config = site(s.url, {"jane-doe": _author(ids)}, delay=0.05, retries=1)
    report = fetch_site(config)
    (result,) = report.results
    assert report.exit_status == 3 and result.records == 100
    assert result.incomplete == cache.Incomplete(100, 120)
    s.responder = IdList(ids)
    (done,) = fetch_site(config).results
    assert done.error is None and done.records == 120
    assert cache.read_entry(cache_path(config)).incomplete is None


def test_a_paper_found_by_the_query_and_named_by_id_is_one_record_on_the_page(arxiv_server, tmp_path) -> None:
    both = corpus(3)   # 2401.10000 .. 2401.10002, by the query
    named = "2401.10001"

    def answer(path: str, params: dict[str, str]) -> Reply:
        if "id_list" in params:
            return Reply(feed_xml([entry_xml(named, title="Paper number 1")], total=1))
        return Corpus(both)(path, params)

    s = arxiv_server(answer)
    author = (f"name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n"
              f"  - arxiv: {{ids: ['{named}', '2401.10001v2']}}\n")
    root = write_site(tmp_path / "site", {"jane-doe": author}, api=s.url, delay=0.05)
    assert run_cli(root, "fetch").returncode == 0
    assert run_cli(root, "build").returncode == 0
    page = (root / "output/authors/jane-doe/index.html").read_text("utf-8")
    assert page.count("Paper number 1<") == 1 and "Paper number 2" in page


@pytest.mark.parametrize(("ids", "message"), [
    ("['2401.0123']", "'sources[0].arxiv.ids[0]' must be an arXiv id"),
    ("[2401.01234]", "was read by YAML as the number"),
    ("['<script>']", "must be an arXiv id"),
    ("[]", "'sources[0].arxiv' needs 'query' (an arXiv search) or 'ids'"),
])
def test_a_bad_id_is_refused_with_file_line_and_key(tmp_path: Path, ids: str, message: str) -> None:
    root = write_site(tmp_path / "site", {"jane-doe": f"name: Jane Doe\nsources:\n  - arxiv: {{ids: {ids}}}\n"})
    with pytest.raises(SiteError) as info:
        load_site(root)
    (problem,) = info.value.problems
    assert (problem.path, problem.line) == ("content/authors/jane-doe.yaml", 3)
    assert message in problem.message


def test_query_and_ids_in_one_entry_are_refused(tmp_path: Path) -> None:
    root = write_site(tmp_path / "site", {"jane-doe": "name: J\nsources:\n  - arxiv: {query: 'au:J', ids: ['2401.01234']}\n"})
    with pytest.raises(SiteError, match="has both 'query' and 'ids'"):
        load_site(root)
