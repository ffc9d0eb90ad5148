"""A feed's date: the latest ``entry_updated`` of its records (generator.render.template_globals)."""

from __future__ import annotations

import dataclasses
import itertools

from generator.core.model import Record
from generator.render.template_globals import entry_updated, newest_update


def _record(i: int, **fields: object) -> Record:
    return dataclasses.replace(Record(key=f"manual:{i}", title=f"T{i}", year=None), **fields)


def test_the_newest_update_is_the_latest_entry_date_whichever_dates_records_have() -> None:
    dates = [{"updated": "2025-03-01T00:00:00Z"}, {"updated": "2024-12-31T00:00:00Z", "published": "2026-01-01T00:00:00Z"},
             {"published": "2025-06-01T00:00:00Z"}, {"year": 2027}, {}]
    for n in range(0, 4):
        for combo in itertools.permutations(dates, n):
            records = [_record(i, **d) for i, d in enumerate(combo)]
            want = max((entry_updated(r) for r in records), default="1970-01-01T00:00:00Z")
            assert newest_update(records) == want, combo
