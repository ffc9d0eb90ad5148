"""The people shared within a build (generator.incremental.values.People) are a bounded table: past
``LIMIT`` it starts again, so a render process over the index, which meets every co-author of the
records it loads, holds at most that many (issue 42); a person made before keeps its value."""

from __future__ import annotations

import pytest

from generator.incremental.values import People


def test_the_people_table_starts_again_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(People, "LIMIT", 50)
    people = People()
    made = [people.get(f"Person {i}", ()) for i in range(120)]
    assert len(people.by_pair) <= 50 and len(people.by_name) <= 50
    assert [p.name for p in made] == [f"Person {i}" for i in range(120)]
    assert people.get("Person 119", ()) is made[119], "the newest are still shared"
    assert people.find(("Person 3", "Person 4"))[0].name == "Person 3"
