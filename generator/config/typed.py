"""The configuration's typed objects, made from the schema tables: each key declared once.

``config_class`` turns a ``schema.Table`` into a frozen dataclass with one attribute per key,
in the table's order, typed by the key's type and defaulted by its default, so a new key of
site.yaml or of an author file is one row of the table (its validation, its JSON Schema, its
documentation and its attribute come from that row). A key whose typed value is not the checked
value itself (a section such as ``fetch``, the author's sources) names its type and default in
``own``. Attributes that no file sets (the site's root, an author's slug) are given apart.
"""

from __future__ import annotations

from dataclasses import Field, field, make_dataclass
from typing import Any

from generator.config.schema import Key, Table

_TYPES = {"text": "str", "int": "int", "number": "float", "bool": "bool", "texts": "tuple[str, ...]",
          "categories": "tuple[str, ...]", "arxiv_ids": "tuple[str, ...]", "arxiv_id": "str", "date": "str",
          "mapping": "Mapping[str, Any]", "pairs": "tuple[tuple[str, str], ...]"}


def _type(key: Key) -> str:
    return _TYPES[key.type] + (" | None" if key.default is None and not key.required else "")


def _field(default: Any, required: bool = False) -> Field:  # noqa: ANN401
    if required:
        return field()
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default))
    return field(default=default)


def config_class(name: str, table: Table, module: str, *, head: tuple[tuple[str, str], ...] = (),
                 own: dict[str, tuple[str, Any]] | None = None, tail: tuple[tuple[str, str, Any], ...] = (),
                 base: type | None = None, doc: str = "") -> type:
    """A frozen dataclass (keyword arguments only) of ``head`` (required), one attribute per key
    of ``table`` and ``tail`` ((name, type, default)), named ``name`` in ``module``."""
    own = own or {}
    fields: list[tuple[str, str, Field]] = [(n, t, field()) for n, t in head]
    for key in table.keys:
        typ, default = own[key.name] if key.name in own else (_type(key), key.default)
        fields.append((key.name, typ, _field(default, key.required and key.name not in own)))
    fields += [(n, t, _field(d)) for n, t, d in tail]
    cls = make_dataclass(name, fields, bases=(base,) if base else (), frozen=True, slots=True, kw_only=True)
    cls.__module__, cls.__qualname__ = module, name
    cls.__doc__ = doc or f"The keys of {table.title}, checked (generator.config.schema)."
    return cls
