"""The ``sources:`` list of an author file, and the registry of the source kinds it may hold.

What is common to every kind: each entry has exactly one kind's key; its value is checked
against that kind's table (``check.read_table``; a lone text for a table with a shorthand, a
list for a ``many`` table), then the kind's ``rule`` and ``build`` make the entry's value.
Everything particular to a kind is in its module under ``config/kinds/`` (``config.kind``).

The kinds are those ``config.kinds.REGISTERED`` names, imported by name here: a new kind is its
module plus one line in that list, and nothing here changes. ``register`` exists for tests and is
not a plugin system. Kinds are looked up by ``type(source)``, not ``isinstance``: every config
value has exactly one kind.
"""

from __future__ import annotations

import importlib
from typing import Any

from generator.config.check import Checker, checked_text, describe, read_table
from generator.config.kind import Source, SourceKind
from generator.config.kinds import REGISTERED
from generator.config.schema import Key, Table
from generator.core.yamlfile import YList, YMap

_BY_TYPE: dict[type, SourceKind] = {}
_BY_KEY: dict[str, SourceKind] = {}


def register(kind: SourceKind) -> None:
    """Add a kind; its YAML key and config type must be new."""
    if kind.key in _BY_KEY or kind.config_type in _BY_TYPE:
        raise ValueError(f"a source kind for {kind.key!r} / {kind.config_type.__name__} is already registered")
    _BY_KEY[kind.key] = kind
    _BY_TYPE[kind.config_type] = kind


def unregister(kind: SourceKind) -> None:
    """Remove a kind added with ``register`` (a test's clean-up)."""
    if _BY_KEY.get(kind.key) is kind:
        del _BY_KEY[kind.key]
        del _BY_TYPE[kind.config_type]


def kind_of(source: object) -> SourceKind:
    """The kind that handles this config value."""
    try:
        return _BY_TYPE[type(source)]
    except KeyError:
        raise TypeError(f"no source kind handles {type(source).__name__}") from None


def kind_for_key(key: str) -> SourceKind:
    """The kind of a YAML key under ``sources:`` (KeyError if there is none)."""
    return _BY_KEY[key]


def kinds() -> tuple[SourceKind, ...]:
    """Every registered kind, in the order of ``config.kinds.REGISTERED``, then those of tests."""
    return tuple(_BY_KEY.values())


def read_sources(ck: Checker, m: YMap, key: Key, where: str) -> tuple[Source, ...]:
    """The author's ``sources`` list (a ``check.read_table`` reader for the type ``sources``)."""
    if key.name not in m or m[key.name] is None:
        return ()
    seq = m[key.name]
    if not isinstance(seq, YList):
        ck.err(m.lines[key.name], f"'{key.name}' must be a list (lines starting with '- '), found {describe(seq)}")
        return ()
    out = []
    for i, item in enumerate(seq):
        src = _read_entry(ck, item, f"{key.name}[{i}]", seq.lines[i])
        if src is not None:
            out.append(src)
    return tuple(out)


def _read_entry(ck: Checker, item: Any, where: str, line: int) -> Source | None:  # noqa: ANN401
    sm = ck.mapping(item, where, line)
    if sm is None:
        return None
    names = tuple(_BY_KEY)
    found = [k for k in sm if k in _BY_KEY]
    ck.keys(sm, names, where)
    if len(found) != 1:
        one_of = ", ".join(names)
        if len(sm) and not [k for k in sm if k not in _BY_KEY]:
            ck.err(sm.line, f"'{where}' must have exactly one of {one_of}; found {', '.join(map(str, found))}")
        elif not sm:
            ck.err(sm.line, f"'{where}' is empty: give one of {one_of}")
        return None
    name = found[0]
    return _read_kind(ck, _BY_KEY[name], sm[name], f"{where}.{name}", sm.lines[name])


def _read_kind(ck: Checker, kind: SourceKind, value: Any, where: str, line: int) -> Source | None:  # noqa: ANN401
    table = kind.schema
    if table.many:
        if not isinstance(value, YList):
            ck.err(line, f"'{where}' must be a list of {kind.key}, found {describe(value)}")
            return None
        return kind.build([_read_one(ck, item, table, f"{where}[{i}]", value.lines[i])
                           for i, item in enumerate(value)], line)
    seen = len(ck.problems)
    values = _read_one(ck, value, table, where, line)
    if values is None:
        return None
    broken = kind.rule(values)
    if broken and len(ck.problems) == seen:     # not again when its keys were refused already
        ck.err(line, f"'{where}' {broken}")
    return None if broken else kind.build(values, line)


def _read_one(ck: Checker, value: Any, table: Table, where: str, line: int) -> dict[str, Any] | None:  # noqa: ANN401
    if table.shorthand and isinstance(value, str) and value.strip():
        given = checked_text(ck, table[table.shorthand], value.strip(), where, line)   # the same check as in full
        return None if given is None else {key.name: key.default for key in table.keys} | {table.shorthand: given}
    m = ck.mapping(value, where, line)
    return None if m is None else read_table(ck, m, table, where)


# Import-time, by name: each kind's module is named in config.kinds.REGISTERED, so that a new kind
# is its module plus one line there (a static import per kind would be a second edit here).
for _name in REGISTERED:
    register(importlib.import_module(f"generator.config.kinds.{_name}").KIND)
