"""The search index made in runs (generator.render.search_runs, issue 42): the documents sorted
in runs and merged, the postings spilled in runs and merged, the chunks and shards written as
they come, give the very files of the index made in memory at once (``postings_of``,
``shards``, ``chunk``, ``write_files``), for any run size: one a run, a few, or none written.
Whole builds with small runs are compared with builds in memory in tests/index/test_flat_build.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from generator.render import search_index as si, search_runs
from generator.render.search_runs import Postings, in_order, ordered

# Few words, so terms repeat across runs; letters JavaScript orders otherwise than code points.
WORDS = st.sampled_from(["graph", "graphs", "w1", "w10", "w2", "ζήτα", "straße", "a", "\U0001d400x", "\uff21y", "z"])
TEXT = st.lists(WORDS, max_size=6).map(" ".join)
SIZES = st.sampled_from([1, 3, 40, 1_000_000])


def _in_memory(folder: Path, terms: list, rows: list) -> int:
    shard_files = si.shards(si.postings_of(terms))
    chunks = [si.chunk(rows, n) for n in range(0, len(rows), si.CHUNK)]
    return si.write_files(folder, len(rows), [f for f, _ in shard_files], [d for _, d in shard_files], chunks)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.tuples(TEXT, TEXT), max_size=300), run=SIZES)
def test_the_index_written_in_runs_is_the_index_made_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             texts: list, run: int) -> None:
    monkeypatch.setattr(search_runs, "RUN", run)
    terms = [si.term_sets(title, other) for title, other in texts]
    rows = [(f"/u/{i}", title, "", "", "", "") for i, (title, _) in enumerate(texts)]
    case = tmp_path / f"case-{len(os.listdir(tmp_path))}"
    expected = _in_memory(case / "memory", terms, rows)
    written = si.write_docs(case / "runs", zip(iter(terms), iter(rows)), tmp=case)
    assert (written, _files(case / "runs")) == (expected, _files(case / "memory"))


# Dates as the documents carry them (a full date, a year, none) and keys that are prefixes of
# one another, so both the date and the key from the last decide.
DATES = st.sampled_from(["", "2019", "2020", "2020-01-01T00:00:00Z", "2020-01-02T00:00:00Z"])
KEYS = st.lists(st.text(st.sampled_from("ab:\u00e9\U0001d400"), max_size=4), unique=True, max_size=200)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=KEYS, dates=st.lists(DATES, min_size=200, max_size=200), run=SIZES)
def test_documents_sorted_in_runs_come_in_the_order_sorted_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    keys: list, dates: list, run: int) -> None:
    monkeypatch.setattr(search_runs, "DOCS", run)
    docs = [(date, key, i) for i, (date, key) in enumerate(zip(dates, keys))]
    assert list(ordered(iter(docs), tmp_path)) == in_order(list(docs))


def test_a_large_index_is_merged_from_runs_that_leave_no_file_behind(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of 1,000 postings over 3,000 documents: several runs, each a temporary file that is
    gone from the file system from the start (nothing is left in the folder given for them)."""
    monkeypatch.setattr(search_runs, "RUN", 1000)
    postings = Postings(si.order, tmp_path)
    for doc in range(3000):
        postings.add(doc, ((f"t{doc % 97}", "common"), (f"o{doc % 13}",)))
    assert len(postings.runs) >= 8
    assert os.listdir(tmp_path) == []
    merged = {term: (title, other) for term, title, other in postings.sorted()}
    assert merged["common"] == (list(range(3000)), [])
    assert merged["o5"] == ([], list(range(5, 3000, 13)))
    assert list(merged) == sorted(merged, key=si.order)
    assert postings.runs == [], "the runs are closed once merged"
