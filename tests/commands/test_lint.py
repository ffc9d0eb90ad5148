"""The linter (generator.lint): `authorsite check --strict` fails on each lint problem, passes on the demo."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.store.cache import CacheEntry, cache_file, write_entry
from generator.config import load_site
from generator.core.model import Record

CLI = [sys.executable, "-m", "generator"]
REPO = Path(__file__).resolve().parent.parent.parent
SITE = "title: Lint\nbase_url: https://example.org/\n"


def _site(tmp_path: Path, author_yaml: str) -> Path:
    root = tmp_path / "site"
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text(SITE)
    (root / "content/authors/a.yaml").write_text(author_yaml)
    return root


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    subprocess.run([*CLI, "-q", "-C", str(root), "build"], capture_output=True, text=True)
    return subprocess.run([*CLI, "-C", str(root), "check", "--strict"], capture_output=True, text=True)


RECORD = "      - {title: %s, year: 2024, subjects: [cs.CL]%s}\n"

CASES = {
    "duplicate": ("name: A\nsources:\n  - records:\n" + RECORD % ("Same title", ", abstract: x")
                  + RECORD % ("Same title", ", abstract: x"), "listed twice"),
    "no abstract": ("name: A\nsources:\n  - records:\n" + RECORD % ("No abstract here", ""), "has no abstract"),
    "unbalanced math": ("name: A\nsources:\n  - records:\n" + RECORD % ("'Costs $O(n^2) always'", ", abstract: x"),
                        "unbalanced math"),
    "no sources": ("name: A\n", "no sources and no records"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_strict_fails_on_each_lint_problem(tmp_path: Path, case: str) -> None:
    yaml_text, expected = CASES[case]
    res = _check(_site(tmp_path, yaml_text))
    assert res.returncode == 1, res.stderr
    assert expected in res.stderr
    assert "Traceback" not in res.stderr


def _site_with_cached_record(tmp_path: Path, arxiv: str, subject: str) -> Path:
    """A one-author site whose arXiv source has one cached record in ``subject``."""
    root = _site(tmp_path, f"name: A\nsources:\n  - arxiv: {arxiv}\n")
    config = load_site(root)
    rec = Record(key="arxiv:2401.00001", title="A paper", year=2024, arxiv_id="2401.00001", abstract="x",
                 subjects=(subject,), primary_subject=subject)
    path = cache_file(config.cache_path, "a", config.authors[0].sources[0])
    assert path is not None
    write_entry(path, CacheEntry({"type": "arxiv", "query": 'au:"A"'}, "2026-01-01T00:00:00Z", (rec,)))
    return root


def test_filters_that_drop_everything_are_reported(tmp_path: Path) -> None:
    root = _site_with_cached_record(tmp_path, "{query: 'au:\"A\"', categories: [math.AG]}", "cs.CL")
    res = _check(root)
    assert res.returncode == 1
    assert "filters drop all 1 fetched records" in res.stderr


def test_broken_internal_link_is_a_problem(tmp_path: Path) -> None:
    root = _site(tmp_path, "name: A\nsources:\n  - records:\n" + RECORD % ("Fine", ", abstract: x"))
    subprocess.run([*CLI, "-q", "-C", str(root), "build"], check=True, capture_output=True)
    page = root / "output/authors/a/index.html"
    page.write_text(page.read_text().replace("</main>", '<a href="/nowhere/">x</a></main>'))
    res = subprocess.run([*CLI, "-C", str(root), "check"], capture_output=True, text=True)
    assert res.returncode == 1
    assert "nowhere" in res.stderr


def test_check_strict_passes_on_the_demo_site(tmp_path: Path) -> None:
    """No lint finding on the demo. Its arXiv queries are never fetched (no committed cache), which
    --strict refuses in check as in build (issue 15): their one list is its only warning."""
    root = tmp_path / "demo"
    root.mkdir()
    shutil.copy(REPO / "site.yaml", root / "site.yaml")
    shutil.copytree(REPO / "content", root / "content")
    res = _check(root)
    found = [line for line in res.stderr.splitlines() if line.startswith(("warning:", "error:"))]
    assert found == ["warning: 2 sources not fetched yet; run 'authorsite fetch' (until then the site is built "
                     "from the other sources):"], res.stderr


def test_unknown_subject_in_a_cache_file_is_reported(tmp_path: Path) -> None:
    root = _site_with_cached_record(tmp_path, "{query: 'au:\"A\"'}", "cs.XX")
    res = _check(root)
    assert res.returncode == 1
    assert "unknown subject 'cs.XX'" in res.stderr
