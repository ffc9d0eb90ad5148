"""generator.incremental.feed_kept: the feeds' entry ids are taken from the last build only while
the memory's bytes and every record's key and venue are what they were; the answer taken is the
one ``feed_ids.resolve`` gives (the builds over several edits: tests/assemble/test_feed_ids.py and
tests/incremental/test_incremental_equals_clean.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from generator.assemble import feed_ids
from generator.assemble.feed_ids import Memory, resolve
from generator.core.model import Author, Record
from generator.incremental.feed_kept import KIND, feed_ids as kept_ids
from generator.incremental.inputs import read_inputs
from generator.incremental.parsed import ParsedInputs
from generator.incremental.subject_order import order_digest, site_key

OPTIONS: dict[str, object] = {"base_url": None, "search": True}


def author(slug: str, *records: Record) -> Author:
    return Author(slug=slug, name=slug.title(), affiliation=None, bio_html="", links=(), records=records,
                  subjects=(), years=())


def arxiv(aid: str, venue: str | None = None) -> Record:
    return Record(key=f"arxiv:{aid}", title=f"Paper {aid}", year=2024, arxiv_id=aid, venue=venue,
                  published="2024-01-01T00:00:00Z")


AUTHORS = (author("ada", arxiv("2401.00001"), arxiv("2401.00002", venue="VLDB")), author("bob", arxiv("2401.00003")))


def site(tmp_path: Path, authors: tuple[Author, ...] = AUTHORS) -> Path:
    """A site whose feeds' memory is what a build of ``authors`` wrote."""
    root = tmp_path / "site"
    (root / "content" / "authors").mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text("title: Lab\n", "utf-8")
    made = resolve(feed_ids.read(root), authors)
    if made.memory is not None:
        feed_ids.write(root, made.memory)
    return root


def answer(root: Path, authors: tuple[Author, ...], parsed: ParsedInputs) -> feed_ids.FeedIds:
    return kept_ids(root, authors, [order_digest(a.records) for a in authors], read_inputs(root, OPTIONS), parsed)


def test_the_next_build_takes_the_answer_resolve_gives(tmp_path: Path) -> None:
    root = site(tmp_path)
    first = answer(root, AUTHORS, ParsedInputs(root))
    parsed = ParsedInputs(root)
    second = answer(root, AUTHORS, parsed)
    assert parsed.hits == 1 and parsed.misses == 0
    assert second == first == resolve(feed_ids.read(root), AUTHORS)
    assert not second.changed


def test_a_record_just_published_is_resolved_anew_and_announced(tmp_path: Path) -> None:
    root = site(tmp_path)
    answer(root, AUTHORS, ParsedInputs(root))
    published = (author("ada", arxiv("2401.00001", venue="ICML"), AUTHORS[0].records[1]), AUTHORS[1])
    got = answer(root, published, ParsedInputs(root))
    assert got == resolve(feed_ids.read(root), published)
    assert [a.key for a in got.announced] == ["arxiv:2401.00001"] and got.changed


def test_a_new_record_or_an_author_moved_is_resolved_anew(tmp_path: Path) -> None:
    root = site(tmp_path)
    answer(root, AUTHORS, ParsedInputs(root))
    for authors in [(AUTHORS[0], author("bob", arxiv("2401.00003"), arxiv("2401.00004"))), AUTHORS[::-1]]:
        parsed = ParsedInputs(root)
        assert answer(root, authors, parsed) == resolve(feed_ids.read(root), authors)
        assert parsed.hits == 0


def test_a_memory_edited_by_hand_is_read_again(tmp_path: Path) -> None:
    """(git checkout of an older memory, or an id changed by hand: the memory's bytes are the key.)"""
    root = site(tmp_path)
    answer(root, AUTHORS, ParsedInputs(root))
    memory = feed_ids.read(root)
    feed_ids.write(root, dataclasses.replace(memory, ids={"arxiv:2401.00003": "tag:example.org,2020:kept"}))
    got = answer(root, AUTHORS, ParsedInputs(root))
    assert got.ids == {"arxiv:2401.00003": "tag:example.org,2020:kept"}
    assert got == resolve(feed_ids.read(root), AUTHORS)


def test_a_changed_answer_is_never_kept(tmp_path: Path) -> None:
    """No memory yet (a first build): the answer changes it, so nothing is kept for the next build."""
    root = tmp_path / "site"
    (root / "content" / "authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Lab\n", "utf-8")
    assert answer(root, AUTHORS, ParsedInputs(root)).changed
    parsed = ParsedInputs(root)
    assert answer(root, AUTHORS, parsed).changed and parsed.hits == 0


def test_a_damaged_entry_is_ignored(tmp_path: Path) -> None:
    root = site(tmp_path)
    key = site_key(AUTHORS, [order_digest(a.records) for a in AUTHORS])
    assert key is not None
    inputs = read_inputs(root, OPTIONS)
    memory = inputs.file_digest(root / feed_ids.MEMORY)
    assert memory is not None
    for bad in [("not", "ids"), ({"arxiv:2401.00001": 3}, ()), ({}, ("not an announcement",)), None]:
        parsed = ParsedInputs(root)
        parsed.put(KIND, "site", key + memory, bad)
        assert answer(root, AUTHORS, ParsedInputs(root)) == resolve(feed_ids.read(root), AUTHORS)
    assert Memory() != feed_ids.read(root)
