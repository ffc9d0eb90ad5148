"""JSON Schema (draft 07) for author files and site.yaml, made from the schema tables.

Editors with the YAML language server read it through the first line of each file
(``# yaml-language-server: $schema=...``) to complete keys and flag mistakes while typing.
It is a helper for editors, not the judge: ``check`` still validates every file with the
exact messages; rules a pattern cannot say (an arXiv id's month) stay with ``check``.
Draft 07 because it is the draft editors support best.
"""

from __future__ import annotations

import json
from typing import Any

from generator.config.schema import AUTHOR, RECORD_LINKS, SCHEMA_DIR, SITE, Key, Table
from generator.config.sources import kinds
from generator.core.taxonomy import load_taxonomy

DRAFT = "http://json-schema.org/draft-07/schema#"
ARXIV_ID_PATTERN = (r"^\s*(?:[Hh][Tt][Tt][Pp][Ss]?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/|[Aa][Rr][Xx][Ii][Vv]:)?"
                    r"(?:[0-9]{4}\.[0-9]{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/[0-9]{7})(?:v[1-9][0-9]{0,3})?\s*$")
NOT_BLANK = r"\S"

# Each file kind: the schema file's name and the table of its top-level keys.
SCHEMA_FILES: dict[str, tuple[str, Table]] = {
    "author": ("author.schema.json", AUTHOR),
    "site": ("site.schema.json", SITE),
}


def modeline(kind: str, depth: int) -> str:
    """The first line of a site file of ``kind`` that lies ``depth`` folders below the site root."""
    return f"# yaml-language-server: $schema={'../' * depth}{SCHEMA_DIR}/{SCHEMA_FILES[kind][0]}\n"


AUTHOR_MODELINE = modeline("author", 2)   # content/authors/NAME.yaml
SITE_MODELINE = modeline("site", 0)       # site.yaml


def file_schema(kind: str) -> dict[str, Any]:
    """The whole JSON Schema of one file kind ('author' or 'site')."""
    table = SCHEMA_FILES[kind][1]
    out: dict[str, Any] = {"$schema": DRAFT, "title": f"authorsite {table.title}"}
    out.update(table_schema(table))
    out["definitions"] = _definitions()
    return out


def schema_texts() -> dict[str, str]:
    """File name -> text of every schema file, as committed under docs/schema/."""
    return {name: json.dumps(file_schema(kind), indent=2, ensure_ascii=False) + "\n"
            for kind, (name, _) in SCHEMA_FILES.items()}


def table_schema(table: Table) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"}
    if table.help:
        out["description"] = table.help
    out["properties"] = {key.name: key_schema(key) for key in table.keys}
    out["additionalProperties"] = False
    required = [key.name for key in table.keys if key.required]
    if required:
        out["required"] = required
    return out


def key_schema(key: Key) -> dict[str, Any]:
    out = _type_schema(key)
    out["description"] = key.help
    if key.default not in (None, (), {}):
        out["default"] = key.default
    return out


def _type_schema(key: Key) -> dict[str, Any]:  # noqa: PLR0911 - one return per type
    t = key.type
    if t == "text":
        return {"type": "string", "pattern": f"^(?:{key.pattern})$" if key.pattern else NOT_BLANK}
    if t in ("int", "number"):
        return {"type": "integer" if t == "int" else "number", "minimum": key.lo, "maximum": key.hi}
    if t == "bool":
        return {"type": "boolean"}
    if t in ("texts", "categories", "arxiv_ids"):
        one = {"texts": {"type": "string", "pattern": NOT_BLANK}, "categories": {"$ref": "#/definitions/category"},
               "arxiv_ids": {"$ref": "#/definitions/arxiv_id"}}[t]
        return {"anyOf": [one, {"type": "array", "items": one}]}
    if t == "arxiv_id":
        return {"$ref": "#/definitions/arxiv_id"}
    if t == "date":
        return {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"}
    if t == "mapping":
        return {"type": "object"}
    if t == "pairs":
        text = {"type": "string", "pattern": NOT_BLANK}
        return {"type": "array", "items": {"type": "array", "items": text, "minItems": 2, "maxItems": 2}}
    if t == "record_links":
        return {"type": "object", "additionalProperties": table_schema(RECORD_LINKS)}
    if t == "section":
        return table_schema(key.table)  # type: ignore[arg-type]
    if t == "sources":
        return {"type": "array", "items": {"oneOf": [_source_schema(kind.key, kind.schema) for kind in kinds()]}}
    raise ValueError(f"no JSON Schema for the type {t!r}")


def _source_schema(kind: str, table: Table) -> dict[str, Any]:
    if table.many:
        value: dict[str, Any] = {"type": "array", "description": table.help, "items": table_schema(table)}
    elif table.shorthand:
        value = {"anyOf": [{"type": "string", "pattern": NOT_BLANK}, table_schema(table)], "description": table.help}
    else:
        value = table_schema(table)
    return {"type": "object", "properties": {kind: value}, "required": [kind], "additionalProperties": False}


def _definitions() -> dict[str, Any]:
    return {
        "category": {"type": "string", "description": "an arXiv subject code such as cs.LG",
                     "enum": sorted(load_taxonomy().categories)},
        "arxiv_id": {"type": "string", "description": "an arXiv id such as '2401.01234' (quoted)",
                     "pattern": ARXIV_ID_PATTERN},
    }
