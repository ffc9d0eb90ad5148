"""site.yaml's host: with s3 (no wall) a site past a lab's size has its paper pages unless it says no."""

from __future__ import annotations

from pathlib import Path

from helpers import build

from generator.config.schema import LAB_AUTHORS


def test_paper_pages_are_on_past_a_labs_size_where_the_host_has_room(tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "content/authors").mkdir(parents=True)
    for i in range(LAB_AUTHORS + 1):
        (root / f"content/authors/a{i:03d}.yaml").write_text(
            f"name: Author {i}\nsources:\n  - records:\n      - {{title: 'Work {i}', year: 2024}}\n", "utf-8")
    (root / "site.yaml").write_text("title: Many\n", "utf-8")
    assert not (build(root) / "papers").exists()          # github-pages, the default: off past a lab
    (root / "site.yaml").write_text("title: Many\nhost: s3\n", "utf-8")
    assert len(list((build(root) / "papers").glob("*/index.html"))) == LAB_AUTHORS + 1
    (root / "site.yaml").write_text("title: Many\nhost: s3\npapers: false\n", "utf-8")
    assert not (build(root) / "papers").exists()
