"""Issue 29, point 4: a Record field has one home, the dataclass. Its JSON form (cache files),
the reader's defaults and the cache reader's type checks are all derived from
``dataclasses.fields(Record)``; these tests compare each with it, so a field added to the
dataclass alone is written, read back and checked, and one left out anywhere fails here."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import fields
from pathlib import Path

from generator.store import cache, cache_records
from generator.core.model import Person, Record
from generator.store.record_json import JSON_FIELDS, JSON_KINDS, from_json, json_fields, to_json

FULL = Record(
    key="arxiv:2401.00001", title="A title", year=2024, source="DBLP", arxiv_id="2401.00001", version=2,
    authors=(Person("Ada Lovelace", ("Analytical Engine Laboratory",)), Person("Bin Cui")),
    abstract="An abstract.", published="2024-01-01T00:00:00Z", updated="2024-02-01T00:00:00Z",
    primary_subject="cs.DB", subjects=("cs.DB", "cs.LG"), other_terms=("H.2.4",), doi="10.1/x",
    journal_ref="Proc. VLDB Endow. 17", comment="12 pages", url="https://example.org/p", order=3,
    venue="VLDB 2025", source_ids=(("dblp", "journals/pvldb/X25"),), origins=("arXiv", "DBLP"),
    links=(("code", "https://example.org/code"),), citations=7, citations_date="2026-12-01",
    match="name:arxiv-query")

# Neither the position in its source nor what assemble derives (model.DERIVED: the match) is written.
NOT_WRITTEN = ("order", "match")
IN_JSON = [f.name for f in fields(Record) if f.name not in NOT_WRITTEN]
READ_BACK = dataclasses.replace(FULL, match="")   # a derived field comes back as its default


def test_every_field_is_set_in_the_probe_record() -> None:
    empty = Record(key="k", title="t", year=None)
    unset = [f.name for f in fields(Record) if getattr(FULL, f.name) == getattr(empty, f.name)]
    assert unset == [], f"set these in FULL, so the tests below see them: {unset}"


def test_the_json_form_holds_every_field_in_field_order() -> None:
    assert list(to_json(FULL)) == IN_JSON
    assert [f.name for f in JSON_FIELDS] == IN_JSON
    assert all(str(f.type) in JSON_KINDS for f in fields(Record) if f.name not in NOT_WRITTEN)


def test_a_record_comes_back_from_its_json_equal_through_text() -> None:
    text = json.dumps(to_json(FULL))
    assert from_json(json.loads(text), order=3) == READ_BACK
    assert list(json_fields(json.loads(text), 3)) == [f.name for f in fields(Record)]


def test_fields_written_only_when_set_are_left_out_when_empty() -> None:
    bare = Record(key="k", title="t", year=None)
    written = list(to_json(bare))
    assert written == [f.name for f in JSON_FIELDS if not f.when_set]
    assert from_json(to_json(bare)) == bare


def test_the_cache_readers_checks_cover_every_json_field() -> None:
    checked = set(cache_records._TYPES) | set(cache_records._LISTS)
    assert sorted(checked) == sorted(IN_JSON)
    assert set(cache_records._TEXTS) | set(cache_records._PAIRS) < set(cache_records._LISTS)
    fields_, note = cache_records.checked_fields(to_json(FULL), 3)
    assert note is None and from_json(to_json(FULL), 3) == Record(**{**fields_, "authors": FULL.authors}) == READ_BACK


def test_each_scalar_field_of_the_wrong_type_is_refused_by_name() -> None:
    for f in JSON_FIELDS:
        if f.kind in ("text", "number"):
            bad = {**to_json(FULL), f.name: [f.name]}
            try:
                cache_records.checked_fields(bad, 0)
            except ValueError as exc:
                assert f.name in str(exc), (f.name, str(exc))
            else:
                raise AssertionError(f"{f.name}: a list was taken for a {f.kind}")


def test_a_cache_file_keeps_every_field(tmp_path: Path) -> None:
    path = tmp_path / "entry.json"
    cache.write_entry(path, cache.CacheEntry(source={"kind": "records"}, fetched_at="2026-12-01T00:00:00Z",
                                             records=(FULL,)))
    back = cache.read_entry(path).records
    assert back == (dataclasses.replace(READ_BACK, order=0),)
