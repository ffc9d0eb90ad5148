"""The previous build's folders kept as the next staging folder (output.spare_dir): it never
holds a file, a build seeded from it gives a clean build's bytes, and what is not ours is
never followed."""

from __future__ import annotations

import os
from pathlib import Path

from test_jobs import assert_same_as_clean, synthetic_site

from generator.build import build
from generator.output import spare_dir
from generator.sitesize import measure


def _files(top: Path) -> list[str]:
    return [os.path.join(d, n) for d, _, names in os.walk(top) for n in names]


def test_a_build_seeded_from_the_spare_gives_a_clean_build(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    build(root, workers=1)
    spare = spare_dir(root / "output")
    assert not spare.exists(), "a first build has no previous build to keep"
    author = root / "content/authors/a002.yaml"
    author.write_text(author.read_text() + "affiliation: Elsewhere\n")
    build(root, workers=1)
    assert spare.is_dir() and any(spare.iterdir()) and _files(spare) == []
    # folders of the spare where this build has a file, or that it leaves empty
    (spare / "index.html" / "deep").mkdir(parents=True)
    (spare / "authors" / "gone" / "deeper").mkdir(parents=True)
    author.write_text(author.read_text().replace("Elsewhere", "Somewhere"))
    res = build(root, workers=1)
    assert (root / "output/index.html").is_file() and not (root / "output/authors/gone").exists()
    assert res.size == measure(root / "output"), "the size the build saw is the output's"
    assert_same_as_clean(root, tmp_path, "spare")


def test_a_spare_that_is_a_link_is_removed_not_followed(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=3, records=2)
    build(root, search=False, workers=1)
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    spare_dir(root / "output").symlink_to(outside, target_is_directory=True)
    author = root / "content/authors/a001.yaml"
    author.write_text(author.read_text() + "affiliation: Elsewhere\n")
    build(root, search=False, workers=1)
    assert (outside / "keep").is_dir() and not spare_dir(root / "output").is_symlink()
