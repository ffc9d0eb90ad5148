"""generator.assemble.feed_ids.resolve, pure: which entry id each record keeps, what is announced, and
the memory the next build starts from (issue 31 point 4; the builds are in tests/assemble/test_feed_ids.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from generator.assemble import feed_ids
from generator.assemble.feed_ids import Memory, default_id, resolve
from generator.core.errors import SiteError
from generator.core.model import Author, Record, record_key


def author(*records: Record) -> Author:
    return Author(slug="ada", name="Ada", affiliation=None, bio_html="", links=(), records=records,
                  subjects=(), years=())


def typed(title: str, year: int, venue: str | None = None) -> Record:
    return Record(key=record_key(None, None, title, year), title=title, year=year, source="Manual", venue=venue)


def arxiv(aid: str, title: str, year: int, venue: str | None = None) -> Record:
    return Record(key=f"arxiv:{aid}", title=title, year=year, arxiv_id=aid, venue=venue,
                  published=f"{year}-01-01T00:00:00Z")


def test_a_first_build_announces_nothing_and_remembers_every_key() -> None:
    got = resolve(Memory(), [author(arxiv("2401.00001", "A", 2024, venue="VLDB"), typed("B", 2023))])
    assert got.announced == () and got.ids == {}
    assert dict(got.memory.known) == {"arxiv:2401.00001": True, typed("B", 2023).key: False}


def test_a_key_that_grew_from_a_known_one_keeps_its_id_and_moves_its_announcements() -> None:
    old = typed("Learned Things", 2024)
    first = resolve(Memory(), [author(old)]).memory
    merged = arxiv("2401.00001", "Learned Things", 2024)
    got = resolve(first, [author(merged)])
    assert got.ids == {merged.key: default_id(old.key)}
    assert old.key not in got.memory.known and got.memory.ids == {merged.key: default_id(old.key)}
    again = resolve(got.memory, [author(merged)])          # and keeps it from then on
    assert again.ids == got.ids and again.memory is None                # (unchanged: nothing to write)


def test_a_known_key_held_by_a_record_is_not_taken_by_another() -> None:
    old = typed("Same Title", 2024)
    first = resolve(Memory(), [author(old)]).memory
    other = arxiv("2401.00009", "Same Title", 2024)     # a namesake paper: the typed one is still listed
    got = resolve(first, [author(old, other)])
    assert got.ids == {} and set(got.memory.known) == {old.key, other.key}


def test_a_venue_that_arrives_is_announced_once() -> None:
    pre = arxiv("2401.00002", "Drift", 2024)
    first = resolve(Memory(), [author(pre)]).memory
    pub = arxiv("2401.00002", "Drift", 2025, venue="Proc. VLDB Endow.")
    got = resolve(first, [author(pub)])
    assert [(a.id, a.venue, a.year) for a in got.announced] == [
        ("https://arxiv.org/abs/2401.00002#published", "Proc. VLDB Endow.", 2025)]
    assert resolve(got.memory, [author(pub)]).announced == got.announced      # not again
    assert got.announcements(["arxiv:2401.00002"], 5) == got.announced and got.announcements(["x"], 5) == ()


def test_the_memory_reads_back_what_it_wrote(tmp_path) -> None:  # noqa: ANN001
    pre = arxiv("2401.00002", "Drift", 2024)
    memory = resolve(resolve(Memory(), [author(pre)]).memory,
                     [author(arxiv("2401.00002", "Drift", 2025, venue="V"), typed("T", 2020))]).memory
    assert feed_ids.write(tmp_path, memory) and not feed_ids.write(tmp_path, memory)   # written once
    assert feed_ids.read(tmp_path) == memory


KEYS = [f"arxiv:2401.0000{i}" for i in range(6)] + [typed(t, 2024).key for t in "ABC"]
records_st = st.lists(st.tuples(st.sampled_from(KEYS), st.booleans()), max_size=8)


def _records(pairs: list[tuple[str, bool]]) -> tuple[Record, ...]:
    return tuple(Record(key=k, title=k, year=2024, arxiv_id=k[6:] if k.startswith("arxiv:") else None,
                        venue="V" if v else None, published="2024-01-01T00:00:00Z") for k, v in pairs)


@settings(max_examples=300, deadline=None)
@given(earlier=st.lists(records_st, max_size=3), now=st.lists(records_st, max_size=3),
       stray=st.dictionaries(st.sampled_from(KEYS), st.sampled_from(["tag:x", "tag:y"]), max_size=2))
def test_the_usual_rebuilds_shortcut_answers_as_the_whole_resolution(earlier, now, stray) -> None:  # noqa: ANN001
    """``_unchanged`` (no new key, none published) gives what ``_resolve`` gives, whenever it answers:
    from memories made by earlier builds, and with ids of keys the memory may not know (a hand edit)."""
    memory = Memory()
    for pairs in earlier:
        memory = resolve(memory, [author(*_records(pairs))]).memory or memory
    memory = Memory(memory.seq, memory.known, {**memory.ids, **stray}, memory.announced)
    authors = tuple(author(*_records(pairs)) for pairs in now)
    slow = feed_ids._resolve(memory, authors)
    fast = feed_ids._unchanged(memory, authors)
    if fast is not None:
        assert (fast.ids, fast.announced, fast.memory) == (slow.ids, slow.announced, slow.memory)
    assert resolve(memory, authors) == (fast or slow)


def test_the_shortcut_takes_the_usual_rebuild() -> None:
    pre = arxiv("2401.00002", "Drift", 2024)
    memory = resolve(Memory(), [author(pre, typed("T", 2020))]).memory
    assert feed_ids._unchanged(memory, (author(pre),)) is not None      # a record gone stays known
    assert feed_ids._unchanged(memory, (author(arxiv("2401.00002", "Drift", 2025, venue="V")),)) is None


@pytest.mark.parametrize("text", [b"{", b"\xff\xfe", b"[]", b'{"format": 1, "seq": 1, "known": {"k": 1}, "ids": {}, "announced": []}',
                                  b'{"format": 2}', b'{"format": 1, "seq": "x", "known": {}, "ids": {}, "announced": []}'])
def test_a_damaged_memory_names_its_file_and_how_to_restore_it(tmp_path, text: bytes) -> None:  # noqa: ANN001
    path = tmp_path / feed_ids.MEMORY
    path.parent.mkdir(parents=True)
    path.write_bytes(text)
    with pytest.raises(SiteError) as err:
        feed_ids.read(tmp_path)
    assert err.value.path == str(feed_ids.MEMORY) and "git checkout" in (err.value.hint or "")
