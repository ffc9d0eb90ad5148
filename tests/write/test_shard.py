"""A build in shards (generator.write.shard, generator.write.merge; issue 43, acceptance 1).

The merge of the N shards of a plan is, byte for byte, what ``authorsite build`` writes from the
same inputs: on the demo site, on a generated corpus (test_jobs.synthetic_site) and after every
kind of edit the incremental test makes (test_incremental_equals_clean.EDITS), for N in 1, 2, 3, 7
and N above the number of jobs (empty shards); each shard reuses its last folder as a build
reuses its output. A merge of folders that are not the N complete shards of one plan (one
missing, one given twice, one of another plan, one half-written) fails with one message and
leaves the output, its manifest and the feeds' memory as they were.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from test_incremental_equals_clean import EDITS, INPUTS, SITE, copy_inputs, files_digest
from test_incremental_equals_clean import clean_build as clean_inputs_build
from test_jobs import synthetic_site

from generator import pipeline
from generator.build import build
from generator.core.errors import SiteError
from generator.core.paths import FEED_MEMORY
from generator.render import jobs, remake
from generator.sharded import build_shard, matrix, merge
from generator.write.shard import MANIFEST, Spec, shard_of
from helpers import copy_demo

NS = (1, 2, 3, 7)


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def state(root: Path) -> tuple[dict[str, tuple[bytes, int]], bytes, bytes | None]:
    """The output (each file's bytes and inode), its manifest and the feeds' memory."""
    out = root / "output"
    files = {p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_ino) for p in sorted(out.rglob("*"))
             if p.is_file()}
    memory = root / FEED_MEMORY
    return files, jobs.manifest_path(root, out).read_bytes(), memory.read_bytes() if memory.is_file() else None


def shards(root: Path, n: int, **options: object) -> list[Path]:
    """The folders of shards 1..n of the site at ``root`` (each built in its default folder)."""
    return [build_shard(root, Spec(k, n), workers=1, **options).folder for k in range(1, n + 1)]  # type: ignore[arg-type]


_CLEAN: dict[str, tuple[dict[str, bytes], bytes | None]] = {}
_COMPILED: dict[str, dict[str, bytes]] = {}   # test_incremental_equals_clean.clean_build's compiled templates


@pytest.fixture(autouse=True)
def _clean_builds_of_one_test() -> Iterator[None]:
    """``clean_build``'s memory lasts one test (whose monkeypatched settings are the same throughout)."""
    _CLEAN.clear()
    _COMPILED.clear()
    yield
    _CLEAN.clear()
    _COMPILED.clear()


def clean_build(root: Path, tmp: Path, **options: object) -> tuple[dict[str, bytes], bytes | None]:
    """The output and the feeds' memory of a clean build of a copy of ``root``'s inputs. Made once
    per test for the same inputs and options: the tests below merge the shards of one state of a
    site for several N, and a clean build of the same inputs is the same bytes each time."""
    key = files_digest(root, INPUTS) + repr(sorted(options.items()))   # (what copy_inputs copies)
    if key not in _CLEAN:
        clean = clean_inputs_build(root, tmp, _COMPILED, **options)
        memory = clean / FEED_MEMORY
        _CLEAN[key] = tree(clean / "output"), memory.read_bytes() if memory.is_file() else None
    return _CLEAN[key]


def merged_equals_clean(root: Path, tmp: Path, n: int, **options: object) -> list[str]:
    """Shards 1..n of ``root``, merged into its output; the files where it differs from a clean
    build of a copy of its inputs (the feeds' memory the merge wrote among them)."""
    merge(root, shards(root, n, **options))
    want, theirs = clean_build(root, tmp, **options)
    got = tree(root / "output")
    differ = sorted(k for k in got.keys() | want.keys() if got.get(k) != want.get(k))
    mine = root / FEED_MEMORY
    if (mine.read_bytes() if mine.is_file() else None) != theirs:
        differ.append(str(FEED_MEMORY))
    return differ


def test_shards_over_the_index_with_a_thin_plan_merge_to_the_build(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A site built over the index (generator.index) plans its jobs thin and makes their tasks
    again a chunk at a time (generator.render.remake): each shard's share too, and the merge is
    still the build."""
    monkeypatch.setattr(pipeline, "FLAT", True)
    monkeypatch.setattr(remake, "CHUNK", 5)
    root = synthetic_site(tmp_path / "syn", authors=12, records=5)
    with (root / "site.yaml").open("a", encoding="utf-8") as f:   # (no page that lists every record)
        f.write("\npapers: false\npublications: false\nvenues: false\n")
    for n in (1, 3):
        assert merged_equals_clean(root, tmp_path, n) == [], f"N = {n}"
    assert (root / ".authorsite" / "index.sqlite").is_file(), "not built over the index"


def test_the_demo_merged_from_any_number_of_shards_is_the_build(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "demo")
    for n in NS:
        assert merged_equals_clean(root, tmp_path, n) == [], f"N = {n}"
    res = build(root, workers=1)
    assert res.unchanged, "the next plain build reuses the merge's output and manifest"


def test_a_generated_corpus_merged_is_the_build_and_shards_reuse_their_last_folder(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=24, records=6)
    for n in NS:
        assert merged_equals_clean(root, tmp_path, n) == [], f"N = {n}"
    again = build_shard(root, Spec(2, 3), workers=1)
    assert again.unchanged and again.jobs > 0
    cache = next((root / "content/cache").glob("a003/*.json"))
    doc = json.loads(cache.read_text("utf-8"))
    doc["records"][0]["title"] = "A retitled paper"
    cache.write_text(json.dumps(doc, indent=1), "utf-8")
    made = [build_shard(root, Spec(k, 3), workers=1) for k in (1, 2, 3)]
    assert sum(r.jobs for r in made) > 5 * sum(r.rendered for r in made) > 0, "each shard reused its last folder"
    merge(root, [r.folder for r in made])
    whole = build_shard(root, Spec(2, 3), workers=1, reuse=False)
    assert whole.rendered == whole.jobs == made[1].jobs, "--no-reuse: the shard's whole share is made anew"
    clean = copy_inputs(root, tmp_path / "clean")
    build(clean, workers=1, reuse=False)
    assert tree(root / "output") == tree(clean / "output")


def test_more_shards_than_jobs_leaves_some_empty(tmp_path: Path) -> None:
    root = shutil.copytree(SITE, tmp_path / "site")
    planned = build(root, workers=1, search=False)
    n = planned.rendered + 7
    assert merged_equals_clean(root, tmp_path, n, search=False) == []
    manifests = [json.loads((root / f".authorsite/shards/{k}-of-{n}" / MANIFEST).read_text()) for k in range(1, n + 1)]
    assert sum(1 for m in manifests if not m["outputs"]) >= 7 and all(m["complete"] for m in manifests)


@settings(max_examples=2, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(sorted(EDITS)), st.sampled_from(NS)), min_size=6, max_size=8),
       seed=st.integers(0, 2**16))
def test_after_any_sequence_of_edits_the_merge_is_the_build(tmp_path: Path, steps: list[tuple[str, int]],
                                                            seed: int) -> None:
    """Edits of every kind, each followed by N shards (reusing their folders of the last run with
    that N, as a CI cache restores them) and a merge: each time the output a clean build writes."""
    tmp = tmp_path / "seq"
    shutil.rmtree(tmp, ignore_errors=True)
    root = shutil.copytree(SITE, tmp / "site")
    rnd = random.Random(seed)
    stale = []
    for name, n in steps:
        EDITS[name](root, rnd)
        differ = merged_equals_clean(root, tmp, n)
        if differ:
            stale.append((name, n, differ))
    assert stale == []


@pytest.fixture()
def merged(tmp_path: Path) -> Path:
    """The demo site merged from its 3 shards into output/."""
    root = copy_demo(tmp_path / "demo")
    merge(root, shards(root, 3))
    return root


def _refused(root: Path, folders: list[Path], *named: str) -> str:
    before = state(root)
    with pytest.raises(SiteError) as caught:
        merge(root, folders)
    assert state(root) == before, "the output, its manifest and the feeds' memory are as they were"
    message = str(caught.value)
    for what in named:
        assert what in message, message
    return message


def test_a_merge_of_anything_but_the_shards_of_one_plan_leaves_the_output(merged: Path, tmp_path: Path) -> None:
    folders = [merged / f".authorsite/shards/{k}-of-3" for k in (1, 2, 3)]
    _refused(merged, folders[:2], "shard 3/3 is missing")
    twin = shutil.copytree(folders[0], tmp_path / "twin")
    _refused(merged, [*folders, twin], "shard 1/3 is given twice", str(twin))
    page = merged / "content/pages/about.md"
    page.write_text(page.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    other = build_shard(merged, Spec(2, 3), out_dir=tmp_path / "other", workers=1).folder
    _refused(merged, [folders[0], other, folders[2]], f"{other} holds shard 2/3 of another plan")
    half = shutil.copytree(folders[2], tmp_path / "half")
    doc = json.loads((half / MANIFEST).read_text())
    (half / MANIFEST).write_text(json.dumps({**doc, "complete": False}))
    assert "shard 3/3 is missing" not in _refused(merged, [*folders[:2], half], f"{half} holds shard 3/3 half-written")
    cut = shutil.copytree(folders[2], tmp_path / "cut")
    gone = sorted(json.loads((cut / MANIFEST).read_text())["outputs"])[0]
    (cut / gone).unlink() if (cut / gone).is_file() else shutil.rmtree(cut / gone)
    _refused(merged, [*folders[:2], cut], f"{cut} holds shard 3/3 half-written", gone)
    (half / MANIFEST).unlink()
    _refused(merged, [*folders[:2], half], f"{half} is not a shard")


def test_the_command_line_says_one_error(merged: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "generator", "-C", str(merged), "merge",
                          ".authorsite/shards/1-of-3", ".authorsite/shards/3-of-3"], capture_output=True, text=True,
                         timeout=120, cwd=merged)
    assert res.returncode == 1
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: cannot merge these 2 folders: shard 2/3 is missing"], res.stderr


def test_the_shares_are_balanced_by_weight_and_stable() -> None:
    rnd = random.Random(43)
    weights = {f"author:a{i:04d}": rnd.randint(1, 400) for i in range(2000)}
    weights["search"] = 30_000
    for n in (2, 4, 7):
        where = shard_of(weights, n)
        loads = [sum(w for g, w in weights.items() if where[g] == k) for k in range(n)]
        assert max(loads) <= sum(weights.values()) / n + max(weights.values()), (n, loads)
        edited = {**weights, "author:a0100": weights["author:a0100"] + 300}
        moved = [g for g, k in shard_of(edited, n).items() if k != where[g]]
        assert len(moved) <= 2 * n, f"an edit moved {len(moved)} groups"
    assert len(set(shard_of({"site": 1, "other": 1}, 9).values())) == 2, "two groups of equal weight, two shards"


def test_the_matrix_is_read_from_site_yaml(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "demo")
    assert matrix(root) == {"count": 1, "shard": [1]}
    site = root / "site.yaml"
    site.write_text(site.read_text("utf-8") + "shards: 4\n", "utf-8")
    assert matrix(root) == {"count": 4, "shard": [1, 2, 3, 4]}
    site.write_text(site.read_text("utf-8").replace("shards: 4", "shards: 0"), "utf-8")
    with pytest.raises(SiteError) as caught:
        matrix(root)
    assert "site.yaml" in str(caught.value) and "shards" in str(caught.value)
