"""generator.config.sources: every source kind found by config type or YAML key.

A new kind is its own module plus registration: the test below registers one (a "shelf" of
records) without touching anything else, and fetch, the store, assemble, review and lint all
handle it (tests/sources/test_new_kind.py adds one to a copy of the package, as a kind author
would, and builds a site with it over HTTP).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from generator.assemble.site import assemble
from generator.store.cache import CacheEntry, cache_file
from generator.config import ArxivSource, AuthorConfig, FeedSource, RecordsSource, SiteConfig
from generator.config.kind import SourceKind, source_class
from generator.config.schema import Key, Table
from generator.config.sources import kind_for_key, kind_of, kinds, register, unregister
from generator.fetch.run import fetch_site
from generator.lint import lint
from generator.core.model import Record
from generator.review import format_review, review_author
from generator.sources.registry import FetchContext
from generator.store.reader import read_all
from generator.core.taxonomy import load_taxonomy

REPO = Path(__file__).resolve().parents[2]


def test_cache_keys_are_the_file_stems_of_today() -> None:
    q, url = 'au:"Bin Cui"', "https://example.org/feed.xml"
    arxiv, feed, typed = ArxivSource(query=q), FeedSource(url=url), RecordsSource(records=())
    assert kind_of(arxiv).cache_key(arxiv) == "arxiv-" + hashlib.sha1(q.encode()).hexdigest()[:10]
    assert kind_of(feed).cache_key(feed) == "feed-" + hashlib.sha1(url.encode()).hexdigest()[:10]
    assert kind_of(typed).cache_key(typed) is None
    assert [kind_for_key(k).config_type for k in ("arxiv", "feed", "records")] == [ArxivSource, FeedSource,
                                                                                 RecordsSource]


def test_labels() -> None:
    arxiv, feed = ArxivSource(query='au:"A"'), FeedSource(url="https://example.org/f.xml", label="Blog")
    assert (kind_of(arxiv).label(arxiv), kind_of(arxiv).review_text(arxiv)) == ("arXiv 'au:\"A\"'",
                                                                                "arXiv query 'au:\"A\"'")
    assert kind_of(feed).label(feed) == kind_of(feed).review_text(feed) == "feed https://example.org/f.xml"
    assert kind_of(feed).description(feed) == {"type": "feed", "url": "https://example.org/f.xml", "label": "Blog"}


def test_an_unknown_config_type_has_no_kind() -> None:
    with pytest.raises(TypeError, match="no source kind handles str"):
        kind_of("arxiv")


def test_no_isinstance_over_source_kinds_outside_the_registry() -> None:
    pattern = re.compile(r"isinstance\([^)]*\b(ArxivSource|FeedSource|RecordsSource)\b")
    allowed = {"generator/config/sources.py"}
    hits = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "generator").rglob("*.py"))
            if p.relative_to(REPO).as_posix() not in allowed
            for n, line in enumerate(p.read_text("utf-8").splitlines(), 1) if pattern.search(line)]
    assert hits == []


# ----------------------------------------------------------------------------- a new kind

SHELF_KEYS = Table("shelf", (
    Key("shelf", "text", "the shelf's name", required=True),
    Key("categories", "categories", "keep only records in these arXiv subjects", default=()),
), shorthand="shelf")
ShelfSource = source_class("ShelfSource", SHELF_KEYS, __name__)


SHELF = (
    Record(key="arxiv:2401.00001", title="A database paper", year=2024, source="Shelf", arxiv_id="2401.00001",
           abstract="x", subjects=("cs.DB",), primary_subject="cs.DB"),
    Record(key="arxiv:2401.00002", title="An optics paper", year=2024, source="Shelf", arxiv_id="2401.00002",
           abstract="x", subjects=("physics.optics",), primary_subject="physics.optics"),
)


def fetch_shelf(source: ShelfSource, context: FetchContext, cached: Sequence[Record]) -> Sequence[Record]:
    return SHELF


class ShelfKind(SourceKind):
    """Records from a named shelf: 'fetched' without the network."""

    schema = SHELF_KEYS
    config_type = ShelfSource
    name = "shelf"
    heading = "a shelf of records"
    example = "lab"
    fetcher = f"{__name__}:fetch_shelf"

    def review_text(self, source: ShelfSource) -> str:
        return f"shelf {source.shelf!r}"

    def categories(self, source: ShelfSource) -> tuple[str, ...]:
        return source.categories

    def cache_key(self, source: ShelfSource) -> str:
        return f"shelf-{source.shelf}"


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
    source = ShelfSource(shelf="lab", categories=("cs.DB",))
    author = AuthorConfig(slug="ada", name="Ada", path="content/authors/ada.yaml",
                          sources=(source, RecordsSource(records=(typed,))))
    config = SiteConfig(root=tmp_path, title="T", base_url="/", authors=(author,))

    (result,) = fetch_site(config).results
    assert (result.label, result.new, result.written, result.error) == ("shelf lab", 2, True, None)
    assert cache_file(config.cache_path, "ada", source) == tmp_path / "content/cache/ada/shelf-lab.json"

    store = read_all(config)
    assert store.entry("ada", source).source == {"type": "shelf", "shelf": "lab", "categories": ["cs.DB"]}
    model = assemble(config, store, load_taxonomy())
    assert [r.title for r in model.authors[0].records] == ["A database paper", "Typed in"]

    review = review_author(config, "ada")
    assert [(s.label, s.cache_path, s.kept, len(s.verdicts)) for s in review.sources] == [
        ("shelf 'lab'", "content/cache/ada/shelf-lab.json", 1, 2), ("typed in", None, 1, 1)]
    assert "2 fetched record(s): 1 KEPT, 1 DROPPED; 1 typed in (kept)" in format_review(review)[-1]
    assert lint(config, store, load_taxonomy()) == []

    with pytest.raises(ValueError, match="already registered"):
        register(ShelfKind())


def test_each_kind_is_found_by_its_key_and_its_config_type() -> None:
    """A kind's keys are declared once, in its module's table, from which validation, the JSON
    Schema, the docs and its config type come."""
    for kind in kinds():
        assert kind_for_key(kind.key) is kind and kind.key == kind.schema.title
        if not kind.schema.many:
            assert [f.name for f in dataclasses.fields(kind.config_type)] == [*kind.schema.names, "line"]
