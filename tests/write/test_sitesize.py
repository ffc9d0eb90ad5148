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


def test_each_host_has_its_own_walls_and_one_message_with_the_fix() -> None:
    from generator.write.sitesize import HOSTS

    big = SiteSize(20_001, 500_000_000)
    assert limit_warning(big, "output", "github-pages") is None
    assert limit_warning(big, "output", "cloudflare-pages-paid") is None
    assert limit_warning(SiteSize(90_000, 5_000_000_000), "output", "s3") is None
    warning = limit_warning(big, "output", "cloudflare-pages")
    assert warning is not None and "20,001 files, over Cloudflare Pages (free plan)'s 20,000" in warning
    assert "papers: false" in warning and "host: s3" in warning
    assert "Netlify's 54,000" in (limit_warning(SiteSize(54_001, 1), "output", "netlify") or "")
    huge_file = limit_warning(SiteSize(10, 30 * 2**20), "output", "cloudflare-pages", (30 * 2**20, "a/b.json"))
    assert huge_file is not None and "a/b.json, 30.0 MiB" in huge_file
    assert sorted(HOSTS) == ["cloudflare-pages", "cloudflare-pages-paid", "github-pages", "netlify", "s3"]


def test_check_fails_on_a_site_over_its_hosts_limit_and_names_the_fix(tmp_path: Path) -> None:
    from helpers import build, copy_demo, run_cli

    root = copy_demo(tmp_path / "site")
    site = root / "site.yaml"
    site.write_text(site.read_text("utf-8") + "host: cloudflare-pages\n", "utf-8")
    out = build(root)
    extra = out / "extra"
    extra.mkdir()
    for n in range(20_000):   # what a larger site would have written
        (extra / f"{n}.txt").write_bytes(b"")
    res = run_cli("-C", root, "check", timeout=600)
    assert res.returncode != 0
    assert "over Cloudflare Pages (free plan)'s 20,000 (site.yaml host: cloudflare-pages)" in res.stderr
    assert "papers: false" in res.stderr


def test_build_and_check_say_the_same_words_past_each_hosts_wall(tmp_path: Path) -> None:
    """Issue 44, acceptance 4: past GitHub Pages' 1 GB (the default host) and past Cloudflare Pages'
    20,000 files, ``check`` exits non-zero with the one message and its fix, and ``build`` warns
    with the same words. (A sparse file stands for a gigabyte of pages: its size is what counts.)"""
    from helpers import build, copy_demo, run_cli

    root = copy_demo(tmp_path / "site")
    (root / "static").mkdir(exist_ok=True)
    with open(root / "static" / "big.bin", "wb") as f:   # copied into the output by the build
        f.truncate(1_100_000_000)
    built = run_cli("-C", root, "build", timeout=600)
    checked = run_cli("-C", root, "check", timeout=600)
    assert built.returncode == 0 and checked.returncode != 0
    line = next(ln for ln in checked.stderr.splitlines() if "over GitHub Pages' 1 GB limit" in ln)
    assert _words(line) in built.stderr
    (root / "static" / "big.bin").unlink()
    for n in range(20_001):
        (root / "static" / f"{n}.txt").write_bytes(b"")
    site = root / "site.yaml"
    site.write_text(site.read_text("utf-8") + "host: cloudflare-pages\n", "utf-8")
    built = run_cli("-C", root, "build", timeout=600)
    checked = run_cli("-C", root, "check", timeout=600)
    assert built.returncode == 0 and checked.returncode != 0
    line = next(ln for ln in checked.stderr.splitlines() if "over Cloudflare Pages (free plan)'s 20,000" in ln)
    assert "papers: false" in line or "papers: false" in checked.stderr
    assert _words(line) in built.stderr


def _words(line: str) -> str:
    """A message without its "error: " or "warning: " (check refuses what a build warns of)."""
    return line.removeprefix("error: ").removeprefix("warning: ")
