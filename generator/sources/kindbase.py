"""What every source kind shares: its schema, read from the config package's tables.

A kind's keys are declared once, in ``generator.config.sources`` (``SOURCE_SCHEMAS``, by YAML
key), where validation, the JSON Schema and docs/configuration.md are derived from them; a
kind points at its table instead of declaring it again.
"""

from __future__ import annotations

from generator.config.schema import Table
from generator.config.sources import SOURCE_SCHEMAS


class KindBase:
    key: str = ""

    @property
    def schema(self) -> Table:
        """The config table declaring the keys under this kind's YAML key."""
        return SOURCE_SCHEMAS[self.key]
