"""The ``records:`` source kind: publications typed into the author's YAML file.

Nothing is fetched or cached: the records come from the configuration (``config.records``
declares the keys of one record and turns them into a ``model.Record``) and are always kept
(the user wrote them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from generator.config.kind import SourceKind
from generator.config.records import RECORD, to_record
from generator.core.model import Record

TYPED_IN = "typed in"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordsSource:
    """The records of one '- records:' entry, in the order written."""

    records: tuple[Record, ...]
    line: int = 1


class RecordsKind(SourceKind):
    schema = RECORD
    config_type = RecordsSource
    name = TYPED_IN
    heading = "typed-in record fields"
    example = "[{title: A record typed in by hand, year: 2024}]"

    def build(self, values: Sequence[dict[str, Any] | None], line: int) -> RecordsSource:
        found = (to_record(v, i) if v is not None else None for i, v in enumerate(values))
        return RecordsSource(records=tuple(r for r in found if r is not None), line=line)

    def label(self, source: RecordsSource) -> str:
        return TYPED_IN

    def description(self, source: RecordsSource) -> dict[str, Any]:
        return {"type": "records"}

    def match(self, source: RecordsSource) -> str:
        return "identifier:typed-in"

    def records(self, source: RecordsSource, cached: Sequence[Record]) -> tuple[Record, ...]:
        return source.records


KIND = RecordsKind()
