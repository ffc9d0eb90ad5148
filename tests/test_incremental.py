"""Issue 6 correctness: incremental and parallel builds give the same bytes as a clean build.

Checked on the demo site and on a small synthetic site (60 authors x 25 records, enough
for the build to use two processes), through the CLI as a user runs it.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from generator.cache import CacheEntry, cache_file, read_entry, write_entry
from generator.config import load_site
from generator.model import Person, Record

REPO = Path(__file__).resolve().parent.parent
SUBJECTS = ["cs.CL", "cs.LG", "cs.CV", "cs.DB", "cs.DC", "stat.ML", "math.OC", "eess.SP"]


def cli(root: Path, *args: str, workers: int | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if workers is not None:
        env["AUTHORSITE_WORKERS"] = str(workers)
    res = subprocess.run([sys.executable, "-m", "generator", "-v", "-C", str(root), *args], capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_same_as_clean(root: Path, tmp: Path, name: str) -> None:
    clean = tmp / f"clean-{name}"
    cli(root, "build", "--output", str(clean))
    got, want = tree(root / "output"), tree(clean)
    assert sorted(got) == sorted(want), set(got) ^ set(want)
    differing = [k for k in want if got[k] != want[k]]
    assert not differing, f"incremental build differs from a clean build in {differing[:10]}"
    multi = [p for p in (root / "output").rglob("*") if p.is_file() and p.stat().st_nlink > 1]
    assert multi == [], "a reused file kept a second hard link"


def synthetic_site(root: Path, authors: int = 60, records: int = 25) -> Path:
    rng = random.Random(7)
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Synthetic\nbase_url: https://example.org/lab/\npaginate: 20\n")
    names = [f"Author{i:03d} Person" for i in range(authors)]
    for i, name in enumerate(names):
        (root / f"content/authors/a{i:03d}.yaml").write_text(
            f"name: {name}\nsources:\n  - arxiv: {{query: 'au:\"{name}\"'}}\n")
    config = load_site(root)
    serial = 0
    for i, a in enumerate(config.authors):
        recs = []
        for _ in range(records):
            serial += 1
            subjects = tuple(rng.sample(SUBJECTS, rng.randint(1, 3)))
            coauthors = [names[(i + rng.randint(1, authors - 1)) % authors]] if rng.random() < 0.3 else []
            rid = f"2{rng.randint(1, 5)}0{rng.randint(1, 9)}.{serial:05d}"
            recs.append(Record(
                key=f"arxiv:{rid}", title=f"On {rng.choice(['sparse', 'dense', 'latent'])} models ${serial}$",
                year=int("20" + rid[:2]), arxiv_id=rid, version=1,
                authors=tuple(Person(n) for n in [a.name, *coauthors]), abstract=f"Abstract {serial} \\emph{{x}}.",
                published=f"20{rid[:2]}-{rid[2:4]}-01T00:00:00Z", updated=f"20{rid[:2]}-{rid[2:4]}-01T00:00:00Z",
                primary_subject=subjects[0], subjects=subjects))
        path = cache_file(config.cache_path, a.slug, a.sources[0])
        assert path is not None
        write_entry(path, CacheEntry({"type": "arxiv", "query": a.sources[0].query}, "2026-01-01T00:00:00Z",
                                     tuple(recs)))
    return root


def test_incremental_equals_clean_on_the_demo(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    root.mkdir()
    shutil.copy(REPO / "site.yaml", root / "site.yaml")
    shutil.copytree(REPO / "content", root / "content")
    cli(root, "build")
    before = {p: p.stat().st_mtime_ns for p in (root / "output").rglob("*") if p.is_file()}
    res = cli(root, "build")
    assert "nothing changed" in res.stderr
    assert {p: p.stat().st_mtime_ns for p in (root / "output").rglob("*") if p.is_file()} == before

    author = root / "content/authors/bingning-wang.yaml"
    author.write_text(author.read_text().replace("name: Bingning Wang", "name: Bingning Wang\naffiliation: Lab"))
    res = cli(root, "build")
    assert "files reused" in res.stderr and " 0 files reused" not in res.stderr
    assert_same_as_clean(root, tmp_path, "author")

    (root / "templates/partials").mkdir(parents=True)
    record = (REPO / "themes/default/templates/partials/record.html").read_text()
    (root / "templates/partials/record.html").write_text(record.replace('class="badge"', 'class="badge b"'))
    cli(root, "build")
    assert 'class="badge b"' in (root / "output/authors/bin-cui/index.html").read_text()
    assert_same_as_clean(root, tmp_path, "template")

    page = root / "content/pages/about.md"
    page.write_text(page.read_text().replace("title: About", "title: About us"))
    cli(root, "build")
    assert_same_as_clean(root, tmp_path, "page")


def test_parallel_and_incremental_equal_clean_on_a_synthetic_site(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn")
    res = cli(root, "build", workers=2)
    assert "(2 processes" in res.stderr
    serial = tmp_path / "serial"
    cli(root, "build", "--output", str(serial), workers=1)
    assert tree(root / "output") == tree(serial), "two processes and one give different bytes"

    # one record changed in one cache file
    config = load_site(root)
    a = config.authors[5]
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    changed = (dataclasses.replace(entry.records[0], title="A changed title"),) + entry.records[1:]
    write_entry(path, dataclasses.replace(entry, records=changed))
    res = cli(root, "build", workers=2)
    assert "files reused" in res.stderr and " 0 files reused" not in res.stderr
    assert "indexing 1 of 2 search shards" in res.stderr, "only the changed author's search shard is rebuilt"
    assert "A changed title" in (root / f"output/authors/{a.slug}/index.html").read_text()
    assert_same_as_clean(root, tmp_path, "record")

    # an author removed, another added
    (root / "content/authors/a010.yaml").unlink()
    (root / "content/authors/zz-new.yaml").write_text(
        "name: New Person\nsources:\n  - records:\n      - {title: Typed, year: 2024, subjects: [cs.CL]}\n")
    cli(root, "build", workers=2)
    assert not (root / "output/authors/a010").exists()
    assert_same_as_clean(root, tmp_path, "authors")
