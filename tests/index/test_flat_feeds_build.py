"""Builds over the index (pipeline.FLAT) write the feeds' memory (content/cache/feed-ids.json) and the
feeds a build in memory writes, byte for byte (issue 42; generator.index.feeds): a cold build with no
memory yet, then after a record gets a venue (an announcement), a record's DOI key becomes its arXiv
id's (the id it had is kept) and a new record comes; and a damaged memory stops both with the same
error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator import pipeline
from generator.assemble import feed_ids
from generator.build import build
from generator.core.errors import SiteError
from tests.helpers import generated_corpus
from tests.incremental.test_incremental_equals_clean import _tree


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generated_corpus(tmp_path_factory.mktemp("corpus"), 40, 10)


def _both(sites: dict[bool, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each site built over the index (True) or in memory (False); the same memory and output."""
    for flat, root in sites.items():
        with monkeypatch.context() as m:
            m.setattr(pipeline, "FLAT", flat)
            build(root, workers=2)
    assert (sites[True] / ".authorsite" / "index.sqlite").is_file()
    assert (sites[True] / feed_ids.MEMORY).read_bytes() == (sites[False] / feed_ids.MEMORY).read_bytes()
    assert _tree(sites[True] / "output") == _tree(sites[False] / "output")


def _edit(root: Path) -> None:
    caches = sorted((root / "content" / "cache").rglob("*.json"))
    caches = [p for p in caches if p.name != "feed-ids.json"]
    doc = json.loads(caches[0].read_text("utf-8"))
    doc["records"][0]["venue"] = "VLDB 2031"                     # published: announced
    moved = doc["records"][1]
    moved.update(key="arxiv:2412.99001", arxiv_id="2412.99001")   # was keyed by its DOI (below)
    new = dict(doc["records"][2], key="arxiv:2412.99002", arxiv_id="2412.99002", title="A brand new paper")
    doc["records"].append(new)
    caches[0].write_text(json.dumps(doc, indent=1), "utf-8")


def _doi_keyed(root: Path) -> None:
    """The second record of the first cache known by a DOI only, as a typed-in one would be."""
    path = sorted(p for p in (root / "content" / "cache").rglob("*.json") if p.name != "feed-ids.json")[0]
    doc = json.loads(path.read_text("utf-8"))
    doc["records"][1].update(key="doi:10.1000/moved", doi="10.1000/moved", arxiv_id=None)
    path.write_text(json.dumps(doc, indent=1), "utf-8")


def test_the_feeds_memory_over_the_index_is_the_bytes_in_memory(corpus: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    sites = {flat: shutil.copytree(corpus, tmp_path / str(flat)) for flat in (True, False)}
    for root in sites.values():
        with open(root / "site.yaml", "a", encoding="utf-8") as f:   # (no page lists every record at once)
            f.write("papers: false\npublications: false\nvenues: false\n")
        _doi_keyed(root)
        assert not (root / feed_ids.MEMORY).exists()
    _both(sites, monkeypatch)   # cold: no memory yet
    for root in sites.values():
        _edit(root)
    _both(sites, monkeypatch)
    memory = feed_ids.read(sites[True])
    assert memory.announced and memory.ids, "no announcement, or no id kept: the edits did not do their work"
    for root in sites.values():
        (root / feed_ids.MEMORY).write_bytes(b'{"format": 1, "seq": 1, "known": {"a": 1}}')
    errors = []
    for flat, root in sites.items():
        with monkeypatch.context() as m, pytest.raises(SiteError) as raised:
            m.setattr(pipeline, "FLAT", flat)
            build(root, workers=2)
        errors.append(str(raised.value))
    assert errors[0] == errors[1] and "feeds' memory is damaged" in errors[0]
