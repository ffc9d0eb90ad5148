"""generator.sources.registry: one protocol for every source kind, found by config type.

A new kind is its own module plus registration: the test below adds one (a "shelf" of
records) without touching anything else, and fetch, the store, assemble, review and
lint all handle it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import pytest

from generator.assemble import assemble
from generator.cache import CacheEntry, cache_file
from generator.config import (ArxivSource, AuthorConfig, FeedSource, FetchPolicy, RecordsSource,
                              SiteConfig)
from generator.fetch import fetch_site
from generator.lint import lint
from generator.model import Record
from generator.review import format_review, review_author
from generator.sources.registry import FetchContext, kind_for_key, kind_of, register, unregister
from generator.store import read_all
from generator.taxonomy import load_taxonomy

REPO = Path(__file__).resolve().parents[2]


def test_cache_keys_are_the_file_stems_of_today() -> None:
    q, url = 'au:"Bin Cui"', "https://example.org/feed.xml"
    assert kind_of(ArxivSource(q)).cache_key(ArxivSource(q)) == "arxiv-" + hashlib.sha1(q.encode()).hexdigest()[:10]
    assert kind_of(FeedSource(url)).cache_key(FeedSource(url)) == "feed-" + hashlib.sha1(url.encode()).hexdigest()[:10]
    assert kind_of(RecordsSource(())).cache_key(RecordsSource(())) is None
    assert [kind_for_key(k).config_type for k in ("arxiv", "feed", "records")] == [ArxivSource, FeedSource,
                                                                                 RecordsSource]


def test_labels() -> None:
    arxiv, feed = ArxivSource('au:"A"'), FeedSource("https://example.org/f.xml", "Blog")
    assert (kind_of(arxiv).label(arxiv), kind_of(arxiv).review_text(arxiv)) == ("arXiv 'au:\"A\"'",
                                                                                "arXiv query 'au:\"A\"'")
    assert kind_of(feed).label(feed) == kind_of(feed).review_text(feed) == "feed https://example.org/f.xml"
    assert kind_of(feed).description(feed) == {"type": "feed", "url": "https://example.org/f.xml", "label": "Blog"}


def test_an_unknown_config_type_has_no_kind() -> None:
    with pytest.raises(TypeError, match="no source kind handles str"):
        kind_of("arxiv")


def test_no_isinstance_over_source_kinds_outside_the_registry() -> None:
    pattern = re.compile(r"isinstance\([^)]*\b(ArxivSource|FeedSource|RecordsSource)\b")
    allowed = {"generator/sources/registry.py"}
    hits = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "generator").rglob("*.py"))
            if p.relative_to(REPO).as_posix() not in allowed
            for n, line in enumerate(p.read_text("utf-8").splitlines(), 1) if pattern.search(line)]
    assert hits == []


# ----------------------------------------------------------------------------- a new kind

@dataclass(frozen=True, slots=True)
class ShelfSource:
    shelf: str
    categories: tuple[str, ...] = ()
    line: int = 1


SHELF = (
    Record(key="arxiv:2401.00001", title="A database paper", year=2024, source="Shelf", arxiv_id="2401.00001",
           abstract="x", subjects=("cs.DB",), primary_subject="cs.DB"),
    Record(key="arxiv:2401.00002", title="An optics paper", year=2024, source="Shelf", arxiv_id="2401.00002",
           abstract="x", subjects=("physics.optics",), primary_subject="physics.optics"),
)


class ShelfKind:
    """Records from a named shelf: 'fetched' without the network."""

    key: str = "shelf"
    config_type: type = ShelfSource

    @property
    def schema(self) -> Mapping[str, Any]:
        return {"type": "string"}

    def cache_key(self, source: ShelfSource) -> str:
        return f"shelf-{source.shelf}"

    def label(self, source: ShelfSource) -> str:
        return f"shelf {source.shelf}"

    def description(self, source: ShelfSource) -> dict[str, Any]:
        return {"type": "shelf", "shelf": source.shelf}

    def review_text(self, source: ShelfSource) -> str:
        return f"shelf {source.shelf!r}"

    def match(self, source: ShelfSource) -> str:
        return "identifier:shelf"

    def categories(self, source: ShelfSource) -> tuple[str, ...]:
        return source.categories

    def check(self, source: ShelfSource, policy: FetchPolicy, environ: Mapping[str, str], where: str) -> None:
        return None

    def fetch(self, source: ShelfSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
        return SHELF

    def records(self, source: ShelfSource, entry: CacheEntry | None) -> tuple[Record, ...]:
        return entry.records if entry else ()


@pytest.fixture
def shelf_kind() -> Iterator[ShelfKind]:
    kind = ShelfKind()
    register(kind)
    try:
        yield kind
    finally:
        unregister(kind)


def test_a_new_kind_needs_no_edit_outside_its_module(shelf_kind: ShelfKind, tmp_path: Path) -> None:
    typed = Record(key="title:x", title="Typed in", year=2020, abstract="x", subjects=("cs.DB",))
    source = ShelfSource("lab", categories=("cs.DB",))
    author = AuthorConfig(slug="ada", name="Ada", path="content/authors/ada.yaml",
                          sources=(source, RecordsSource((typed,))))
    config = SiteConfig(root=tmp_path, title="T", base_url="/", authors=(author,))

    (result,) = fetch_site(config).results
    assert (result.label, result.new, result.written, result.error) == ("shelf lab", 2, True, None)
    assert cache_file(config.cache_path, "ada", source) == tmp_path / "content/cache/ada/shelf-lab.json"

    store = read_all(config)
    assert store.entry("ada", source).source == {"type": "shelf", "shelf": "lab"}   # type: ignore[union-attr]
    model = assemble(config, store, load_taxonomy())
    assert [r.title for r in model.authors[0].records] == ["A database paper", "Typed in"]

    review = review_author(config, "ada")
    assert [(s.label, s.cache_path, s.kept, len(s.verdicts)) for s in review.sources] == [
        ("shelf 'lab'", "content/cache/ada/shelf-lab.json", 1, 2), ("typed in", None, 1, 1)]
    assert "2 fetched record(s): 1 KEPT, 1 DROPPED; 1 typed in (kept)" in format_review(review)[-1]
    assert lint(config, store, load_taxonomy()) == []

    with pytest.raises(ValueError, match="already registered"):
        register(ShelfKind())


def test_each_kind_points_at_its_table_in_the_config_schema() -> None:
    """A kind's keys are declared once, in the config package's tables, from which validation,
    the JSON Schema and the docs come; the kind hands out that very table."""
    from generator.config import SOURCE_SCHEMAS
    from generator.sources.registry import kinds

    assert {k.key: k.schema for k in kinds()} == SOURCE_SCHEMAS
