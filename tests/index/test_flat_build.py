"""A build over the index (generator.index) writes the bytes of a build that holds its records in
memory, and its rebuilds in place equal clean builds after every kind of edit.

A site of more than ``pipeline.INDEX_FROM`` authors without a page that lists every record at
once (``papers``, ``publications`` and ``venues`` off: assemble.site.lists_every_record) is built
over the index; here every site is (``pipeline.FLAT``), and its tasks are made again to run a
chunk at a time (generator.render.remake), in chunks far smaller than a real build's. Checked here: the
incremental test's edits (tests/incremental/test_incremental_equals_clean.py) on its site so
set, each rebuilt in place against a clean build (and the toggles of those three keys move the
site from one path to the other and back); and a generated corpus of 130 authors (papers and
the lab's list off by default) built with two processes, over the index and in memory
(``pipeline.FLAT``), before and after edits of cached records and an author removed.
"""

from __future__ import annotations

import json
import marshal
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from generator import pipeline
from generator.build import build
from generator.render import remake, search_runs
from tests.helpers import generated_corpus
from tests.incremental.test_incremental_equals_clean import EDITS, SITE, _tree, run_edits

@pytest.fixture(autouse=True)
def _over_the_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every site here is built over the index (by size, only those over pipeline.INDEX_FROM authors
    are), its plan's tasks made again to run a few at a time (generator.render.remake: 20,000)."""
    monkeypatch.setattr(pipeline, "FLAT", True)
    monkeypatch.setattr(remake, "CHUNK", 5)


# (the incremental test's keys that switch the site to a build in memory, drawn last)
TOGGLES = ("site venues", "site papers", "site publications")


def _flat_site(dest: Path, own_templates: bool = True) -> Path:
    """A copy of the incremental test's site with the pages that list every record off; without
    its override of ``base.html`` unless ``own_templates`` (with one, every job is keyed on the
    whole model, jobs.common_digest, so a job that misses one of its reads would not show)."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(SITE, dest)
    if not own_templates:
        shutil.rmtree(dest / "templates")
    path = dest / "site.yaml"
    data = yaml.safe_load(path.read_text("utf-8"))
    data.update(venues=False, papers=False, publications=False)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    return dest


def _run(tmp: Path, names: list[str], seed: int, own_templates: bool = True) -> list[tuple[str, list[str]]]:
    stale = run_edits(tmp / "edits", names, seed, site=_flat_site(tmp / "template", own_templates))
    assert (tmp / "edits" / "site" / ".authorsite" / "index.sqlite").is_file(), "not built over the index"
    return stale


def test_every_kind_of_edit_over_the_index(tmp_path: Path) -> None:
    """Every kind once, on the site without templates of its own (the random sequences below keep them)."""
    names = [n for n in EDITS if n not in TOGGLES and n != "override template"] + list(TOGGLES)
    assert _run(tmp_path / "once", names, seed=42, own_templates=False) == []


@settings(max_examples=1, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.sampled_from(sorted(set(EDITS) - set(TOGGLES))), min_size=20, max_size=22),
       seed=st.integers(0, 2**16))
def test_random_edit_sequences_over_the_index(tmp_path: Path, names: list[str], seed: int) -> None:
    assert _run(tmp_path / "seq", names, seed) == []


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """130 authors x 12 records made by the benchmark's generator and converter (bench/)."""
    return generated_corpus(tmp_path_factory.mktemp("corpus"), 130, 12)


def _in_memory(root: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    with monkeypatch.context() as m:
        m.setattr(pipeline, "FLAT", False)
        m.setattr(search_runs, "DOCS", 10**9)
        m.setattr(search_runs, "RUN", 10**9)
        build(root, out_dir=out, workers=2, reuse=False)
    return _tree(out)


def test_the_index_writes_the_bytes_of_a_build_in_memory(corpus: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The build over the index makes its search index in runs of a few hundred documents and
    postings (generator.render.search_runs): the bytes of the index made at once, in memory."""
    monkeypatch.setattr(search_runs, "DOCS", 150)
    monkeypatch.setattr(search_runs, "RUN", 2000)
    monkeypatch.setattr(remake, "CHUNK", 300)   # (each chunk heavy enough to fork: parallel.MIN_PARALLEL_WEIGHT)
    build(corpus, workers=2)
    assert (corpus / ".authorsite" / "index.sqlite").is_file()
    with sqlite3.connect(corpus / ".authorsite" / "index.sqlite") as db:   # (data.json's summaries kept: lazy.matched)
        assert {len(marshal.loads(c)) for (c,) in db.execute("SELECT counts FROM authors")} == {3}
    assert _tree(corpus / "output") == _in_memory(corpus, tmp_path / "memory", monkeypatch)
    caches = sorted((corpus / "content" / "cache").rglob("*.json"))
    for path in caches[3:7]:   # a record's title, year and date changed in four authors' caches
        doc = json.loads(path.read_text("utf-8"))
        doc["records"][0].update(title="A changed title " + path.parent.name, year=2031,
                                 published="2031-03-01T00:00:00Z")
        path.write_text(json.dumps(doc, indent=1), "utf-8")
    sorted((corpus / "content" / "authors").glob("*.yaml"))[5].unlink()   # an author removed
    build(corpus, workers=2)
    expected = _in_memory(corpus, tmp_path / "memory2", monkeypatch)
    assert _tree(corpus / "output") == expected
    build(corpus, workers=2, reuse=False)   # (the search index written anew, in runs)
    assert _tree(corpus / "output") == expected
