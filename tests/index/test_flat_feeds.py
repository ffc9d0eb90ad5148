"""generator.index.feeds gives what generator.assemble.feed_ids gives in memory, byte for byte: the
same ids and announcements, and the same feeds' memory written, build after build (issue 42).

Each example is a run of builds of a few authors whose records come and go, are typed in (keyed by
their title) and later fetched from arXiv or found by DOI (a key that grows from another), and get
a venue (an announcement); a build may fail before its memory is written, and the memory file may be
put back as it was (git checkout), rewritten by hand (valid JSON of another layout) or damaged
(the same error, word for word). The index's batches are made small, so a few keys span several.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from generator.assemble import feed_ids
from generator.core.errors import SiteError
from generator.core.model import Author, Record, title_digest
from generator.incremental.values import values_of
from generator.index import feeds as index_feeds, lazy
from generator.index.db import Index

PAPERS = 6
# a paper's form in a build: absent, typed in, from arXiv, arXiv with a venue, by DOI, by DOI with a
# venue, from arXiv with its DOI and a venue
FORMS = ("none", "typed", "arxiv", "arxiv+venue", "doi", "doi+venue", "arxiv+doi+venue")


def paper(i: int, form: str) -> Record:
    title, year = f"Paper number {i}", 2020 + i % 3
    venue = f"Venue {i}" if "venue" in form else None
    published = f"{year}-0{1 + i % 9}-01T00:00:00Z" if form != "typed" else None
    if form == "typed":
        return Record(key=f"title:{title_digest(title, year)}", title=title, year=year, source="BibTeX")
    aid = f"2401.{i:05d}" if "arxiv" in form else None
    doi = f"10.1000/P{i}" if "doi" in form else None
    key = f"arxiv:{aid}" if aid else f"doi:{doi.lower()}"   # type: ignore[union-attr]
    return Record(key=key, title=title, year=year, arxiv_id=aid, doi=doi, venue=venue, published=published,
                  updated=published)


def authors_of(build: list[list[str]]) -> tuple[Author, ...]:
    return tuple(Author(slug=f"a{n}", name=f"A{n}", affiliation=None, bio_html="", links=(),
                        records=tuple(paper(i, f) for i, f in enumerate(forms) if f != "none"), subjects=(), years=())
                 for n, forms in enumerate(build))


def index_of(path: Path, authors: tuple[Author, ...]) -> Index:
    index = Index(path)
    for a in authors:
        index.put(a.slug, b"k", a.records, [b"c"] * len(a.records), map(values_of, a.records), b"part")
    index.site([a.slug for a in authors])
    return index


def both(tmp: Path, authors: tuple[Author, ...], save: bool) -> tuple[feed_ids.FeedIds, feed_ids.FeedIds, bool]:
    """A build in memory (its site at tmp/memory) and over the index (tmp/flat); the memory each
    made written, as pipeline._remember writes it, when ``save`` (else the build failed first);
    whether the memories made are the same bytes (read while the index is open, as the build does)."""
    lazy.forget()   # (a build is over: pipeline)
    mem = feed_ids.resolve(feed_ids.read(tmp / "memory"), authors)
    index = index_of(tmp / "index.sqlite", authors)
    flat = index_feeds.resolve(index, tmp / "flat")
    same = (flat.memory is None) == (mem.memory is None) and (
        mem.memory is None or feed_ids.to_bytes(flat.memory) == feed_ids.to_bytes(mem.memory))   # type: ignore[arg-type]
    if save:
        if mem.memory is not None:
            feed_ids.write(tmp / "memory", mem.memory)
        if flat.memory is not None:
            index_feeds.written(flat.memory, feed_ids.save(tmp / "flat", flat.memory)[1])
    index.close()
    return mem, flat, same


def file_bytes(root: Path) -> bytes | None:
    path = root / feed_ids.MEMORY
    return path.read_bytes() if path.is_file() else None


def put_file(tmp: Path, data: bytes) -> None:
    for side in ("memory", "flat"):
        (tmp / side / feed_ids.MEMORY).parent.mkdir(parents=True, exist_ok=True)
        (tmp / side / feed_ids.MEMORY).write_bytes(data)


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_feeds, "_BATCH", 2)
    monkeypatch.setattr(feed_ids, "_BATCH", 3)


builds = st.lists(st.lists(st.lists(st.sampled_from(FORMS), min_size=PAPERS, max_size=PAPERS), min_size=1, max_size=3),
                  min_size=2, max_size=6)
# after a build: nothing, the build failed before writing, the file put back as it was two builds
# ago, or rewritten by hand as JSON of another layout
AFTER = ("", "failed", "restored", "relaid")


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(runs=builds, after=st.lists(st.sampled_from(AFTER), min_size=6, max_size=6))
def test_over_the_index_the_same_ids_announcements_and_bytes(tmp_path_factory: pytest.TempPathFactory,
                                                              runs: list[list[list[str]]], after: list[str]) -> None:
    tmp = tmp_path_factory.mktemp("feeds")
    past: list[bytes | None] = []
    for n, build in enumerate(runs):
        mem, flat, same = both(tmp, authors_of(build), save=after[n] != "failed")
        assert flat.ids == mem.ids and flat.announced == mem.announced
        assert same
        assert file_bytes(tmp / "flat") == file_bytes(tmp / "memory")
        past.append(file_bytes(tmp / "memory"))
        if after[n] == "restored" and len(past) > 1 and past[-2] is not None:
            put_file(tmp, past[-2])
        elif after[n] == "relaid" and past[-1] is not None:
            put_file(tmp, json.dumps(json.loads(past[-1]), indent=2).encode())


def test_the_bytes_are_json_dumps_of_the_memory_sorted() -> None:
    memory = feed_ids.Memory(3, {"b": True, "a": False, "é\"x": True, "c": False, "d": True},
                             {"b": "id-b", "ü": "é"}, (feed_ids.Announcement("i#published", "b", "V", None, 3, "t"),))
    want = {"format": 1, "seq": 3, "known": dict(sorted(memory.known.items())), "ids": dict(sorted(memory.ids.items())),
            "announced": [{"id": "i#published", "key": "b", "venue": "V", "year": None, "seq": 3, "updated": "t"}]}
    assert feed_ids.to_bytes(memory) == (json.dumps(want, ensure_ascii=False, indent=0) + "\n").encode()
    empty = {"format": 1, "seq": 0, "known": {}, "ids": {}, "announced": []}
    assert feed_ids.to_bytes(feed_ids.Memory()) == (json.dumps(empty, indent=0) + "\n").encode()


@pytest.mark.parametrize("damage", [b"{not json", b'{\n"format": 1,\n"seq": 2,\n"known": {\n"a": 1\n},\n',
                                    b'{\n"format": 1,\n"seq": 2,\n"known": {\n"a": true,\n"b": "x"\n},\n"ids": {},\n'
                                    b'"announced": []\n}\n',
                                    b'{\n"format": 2,\n"seq": 2,\n"known": {},\n"ids": {},\n"announced": []\n}\n',
                                    b'{\n"format": 1,\n"seq": 2,\n"known": {},\n"ids": {},\n"announced": [{"id": 1}]\n}\n'])
def test_a_damaged_memory_is_the_same_error_over_the_index(tmp_path: Path, damage: bytes) -> None:
    put_file(tmp_path, damage)
    authors = authors_of([["arxiv"] * PAPERS])
    with pytest.raises(SiteError) as in_memory:
        feed_ids.resolve(feed_ids.read(tmp_path / "memory"), authors)
    index = index_of(tmp_path / "index.sqlite", authors)
    with pytest.raises(SiteError) as flat:
        index_feeds.resolve(index, tmp_path / "flat")
    assert str(flat.value) == str(in_memory.value)
    assert vars(flat.value) == vars(in_memory.value)
