"""The output's size against GitHub Pages' 1 GB limit: measured over real files, warned past it."""

from __future__ import annotations

import os
from pathlib import Path

from generator.write.sitesize import PAGES_LIMIT_BYTES, SiteSize, limit_lines, limit_warning, measure


def test_measure_counts_regular_files_and_not_links(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.html").write_bytes(b"x" * 1000)
    (tmp_path / "y.xml").write_bytes(b"y" * 24)
    os.symlink(tmp_path / "y.xml", tmp_path / "link.xml")
    assert measure(tmp_path) == SiteSize(2, 1024)


def test_a_site_over_one_gb_is_warned_naming_github_pages() -> None:
    assert limit_warning(SiteSize(10, PAGES_LIMIT_BYTES), "output") is None
    warning = limit_warning(SiteSize(11_056, 1_162_633_009), "output")
    assert warning is not None
    assert "output/ is 1.16 GB" in warning and "GitHub Pages" in warning and "feed_size" in warning


def test_describe_is_readable() -> None:
    assert SiteSize(11_056, 1_162_633_009).describe() == "1,162.6 MB in 11,056 files"


def test_a_build_says_its_size_against_the_limit_only_when_it_matters(tmp_path: Path) -> None:
    """Under half of the limit the build's one line (its size) is all; from half on a note with
    what the paper pages add; past it the warning alone."""
    out = tmp_path / "output"
    (out / "papers" / "p").mkdir(parents=True)
    (out / "papers" / "p" / "index.html").write_bytes(b"x" * 100)
    assert limit_lines(out, SiteSize(10, PAGES_LIMIT_BYTES // 2)) == (None, None)
    note, warning = limit_lines(out, SiteSize(10, 620_000_000))
    assert warning is None and note is not None
    assert note.startswith("output/ is 0.62 GB, 62% of GitHub Pages' 1 GB limit; paper pages (site.yaml papers): ")
    note, warning = limit_lines(out, SiteSize(10, PAGES_LIMIT_BYTES + 1))
    assert note is None and warning is not None and "over GitHub Pages' 1 GB limit" in warning
