"""Helpers of the sources tests: small sites, seeded caches, hazard fixtures, the CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Callable

from generator.store import cache
from generator.config import SiteConfig
from generator.core.model import Record

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"  # tests/fixtures: arxiv-samples, feeds, hazards
SAMPLES = FIXTURES / "arxiv-samples"
HAZARDS = FIXTURES / "hazards"
SAMPLE_2019 = SAMPLES / "arxiv-api-2019-search-all-science-start0-max10.xml"
SAMPLE_2026 = SAMPLES / "arxiv-api-2026-search-all-testing-start0-max15.xml"
BIN = Path(sys.executable).parent


def write_site(root: Path, authors: dict[str, str], *, api: str = "http://127.0.0.1:9/api/query",
               delay: float = 0.1, timeout: float = 2, retries: int = 1, cap: float = 2,
               page_size: int = 10, max_results: int = 2000) -> Path:
    """A small site: site.yaml with a fast fetch policy for loopback, and the given author files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(textwrap.dedent(f"""\
        title: Fetch test site
        base_url: /
        contact: tests@example.org
        fetch:
          arxiv_api: {api}
          delay_seconds: {delay}
          timeout_seconds: {timeout}
          retries: {retries}
          retry_after_cap: {cap}
          page_size: {page_size}
          max_results: {max_results}
        """), "utf-8")
    folder = root / "content" / "authors"
    folder.mkdir(parents=True, exist_ok=True)
    for slug, text in authors.items():
        (folder / f"{slug}.yaml").write_text(textwrap.dedent(text), "utf-8")
    return root


JANE = """\
    name: Jane Doe
    sources:
      - arxiv: {query: 'au:"Jane Doe"'}
    """


def cache_path(config: SiteConfig, slug: str = "jane-doe", index: int = 0) -> Path:
    author = next(a for a in config.authors if a.slug == slug)
    fetched = [s for s in author.sources if cache.source_key(s)]
    path = cache.cache_file(config.cache_path, slug, fetched[index])
    assert path is not None
    return path


def seed_cache(config: SiteConfig, records: list[Record], slug: str = "jane-doe") -> bytes:
    """Write a cache file as a previous good fetch would have, and return its bytes."""
    author = next(a for a in config.authors if a.slug == slug)
    source = next(s for s in author.sources if cache.source_key(s))
    path = cache_path(config, slug)
    cache.write_entry(path, cache.CacheEntry(cache.source_description(source), "2026-01-01T00:00:00Z",
                                             tuple(records)))
    return path.read_bytes()


def hazard(name: str) -> tuple[bytes, dict]:
    """A hazard payload and the expectation stored next to it (``NAME.json``)."""
    meta = json.loads((HAZARDS / f"{Path(name).stem}.json").read_text("utf-8"))
    return (HAZARDS / name).read_bytes(), meta


def hazard_names() -> list[str]:
    return sorted(p.name for p in HAZARDS.iterdir() if p.suffix != ".json")


def run_cli(root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60,
            preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """The real ``authorsite`` executable in a subprocess, in ``root``."""
    full_env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    full_env.update(env or {})
    return subprocess.run([str(BIN / "authorsite"), *args], cwd=root, env=full_env, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=preexec)

