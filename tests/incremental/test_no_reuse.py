"""``build --no-reuse`` equals the normal build, byte for byte (issue 29, acceptance 2).

A normal rebuild after an edit takes every shortcut it can (the manifest's reused files, the
parsed-input cache, the kept subject orders and search documents, the patched search index,
the helpers that link and index ahead); ``--no-reuse`` takes none and runs every job. Both
are run in place on the same site, the demo and a generated bench corpus, and their output
trees must be the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.build import build
from tests.helpers import copy_demo, generated_corpus, run_cli


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _parsed_entries(root: Path) -> dict[str, bytes]:
    return _tree(root / ".authorsite" / "parsed")


def assert_no_reuse_same(root: Path) -> None:
    """The normal rebuild's output of ``root`` equals what ``build --no-reuse`` makes there; the
    latter runs every job and leaves the parsed-input cache as it was."""
    res = build(root)
    assert res.reused > 0, "the normal rebuild reuses the unchanged jobs"
    normal, parsed = _tree(root / "output"), _parsed_entries(root)
    done = run_cli("-C", root, "build", "--no-reuse", "-v", timeout=300)
    assert done.returncode == 0, done.stderr
    assert " 0 reused" in done.stderr, "--no-reuse reuses no job"
    assert "nothing changed" not in done.stderr
    fresh = _tree(root / "output")
    assert sorted(fresh) == sorted(normal)
    assert [k for k in normal if fresh[k] != normal[k]] == [], "--no-reuse made other bytes"
    assert _parsed_entries(root) == parsed, "--no-reuse neither reads nor writes the parsed inputs"


def test_no_reuse_equals_the_normal_build_on_the_demo(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "demo")
    build(root)
    author = root / "content" / "authors" / "bin-cui.yaml"
    author.write_text(author.read_text("utf-8").replace("affiliation: Peking University",
                                                        "affiliation: Peking University, Beijing"), "utf-8")
    cached = root / "content" / "cache" / "jane-doe" / "arxiv-b928bdfbd3.json"
    cached.write_text(cached.read_text("utf-8").replace("Learned Indexes for Skewed Workloads",
                                                        "Learned Indexes for Skewed Workloads, Revised"), "utf-8")
    assert_no_reuse_same(root)


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small site made by the benchmark's corpus generator and converter (bench/)."""
    return generated_corpus(tmp_path_factory.mktemp("corpus"), 24, 12)


def test_no_reuse_equals_the_normal_build_on_a_generated_corpus(corpus_site: Path) -> None:
    root = corpus_site
    build(root)
    caches = sorted((root / "content" / "cache").rglob("*.json"))
    for path in caches[2:5]:   # a record's title changed in three authors' caches
        doc = json.loads(path.read_text("utf-8"))
        doc["records"][0]["title"] = "A changed title " + path.parent.name
        path.write_text(json.dumps(doc, indent=1), "utf-8")
    assert_no_reuse_same(root)
