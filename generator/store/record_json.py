"""A Record's JSON form (cache files, ``fetch``'s comparisons), derived from ``fields(Record)``.

Adding a field to ``Record`` needs no edit here: its JSON kind comes from its type
(``JSON_KINDS``, which a field of a new type extends once), and a field marked
``model.WHEN_SET`` is written only when it has a value, so older caches stay byte-identical.
``cache_records`` checks the types of the same fields from ``JSON_FIELDS``.

The two functions that cross the JSON boundary are written out from ``JSON_FIELDS`` once, at
import, as ``dataclasses`` writes ``__init__``: a generic loop over the fields took 6x as long
(21 us a record against 3.7 for the literal dict, and a cold build of 1,000 authors x 100
records reads 100,000 of them).
"""

from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, fields
from typing import Any, Callable, Mapping

from generator.core.model import Person, Record

# The JSON kind of each type a Record field has.
JSON_KINDS = {"str": "text", "str | None": "text", "int | None": "number",
              "tuple[str, ...]": "texts", "tuple[tuple[str, str], ...]": "pairs", "tuple[Person, ...]": "people"}


@dataclass(frozen=True, slots=True)
class JsonField:
    """A Record field as its JSON form keeps it."""

    name: str
    kind: str            # a value of JSON_KINDS
    optional: bool       # its type allows None (the JSON may give null)
    required: bool       # the JSON must give it: no default and not optional (key, title)
    when_set: bool       # written only when it has a value (model.WHEN_SET)
    default: Any         # a text's default, which a missing or empty value becomes


def _json_field(f: Field) -> JsonField:
    has_default = f.default is not MISSING
    return JsonField(f.name, JSON_KINDS[str(f.type)], "None" in str(f.type),
                     not has_default and "None" not in str(f.type), f.metadata.get("json") == "when set",
                     f.default if has_default else None)


JSON_FIELDS = tuple(_json_field(f) for f in fields(Record) if f.metadata.get("json") not in ("never", "derived"))
# Fields the JSON does not hold, given by the reader instead: only the position in the source.
_GIVEN = tuple(f.name for f in fields(Record) if f.metadata.get("json") == "never")
assert _GIVEN == ("order",), _GIVEN
# Fields made when the site is assembled (model.DERIVED): read back as their default.
_DERIVED = {f.name: f.default for f in fields(Record) if f.metadata.get("json") == "derived"}


# Each JSON kind's two expressions, over a value ``{v}``: (the field's value from the JSON's, in
# ``json_fields``; the JSON's from the field's, in ``to_json``).
_CODE = {
    "text": ("{v}", "{v}"),
    "number": ("{v}", "{v}"),
    "texts": ("tuple({v} or ())", "list({v})"),
    "pairs": ("tuple(tuple(p) for p in {v} or ())", "[list(p) for p in {v}]"),
    "people": ("[(a['name'], tuple(a.get('affiliations') or ())) for a in {v} or ()]",
               "[{{'name': p.name, 'affiliations': list(p.affiliations)}} for p in {v}]"),
}


def _read(f: JsonField) -> str:
    """The expression ``json_fields`` makes the field's value with, from the JSON object ``d``."""
    got = _CODE[f.kind][0].format(v=f"d[{f.name!r}]" if f.required else f"d.get({f.name!r})")
    # a text with a default (source 'arXiv', abstract ''): the default when missing or empty
    return f"{got} or {f.default!r}" if f.kind == "text" and isinstance(f.default, str) else got


def _write(f: JsonField) -> str:
    """The expression ``to_json`` writes the field with, from the record ``r``."""
    return _CODE[f.kind][1].format(v=f"r.{f.name}")


def _compile(name: str, lines: list[str]) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), {}, namespace)   # noqa: S102 - source made above from the dataclass's fields
    return namespace[name]


_by_name = {f.name: f for f in JSON_FIELDS}
json_fields: Callable[[Mapping[str, Any], int], dict[str, Any]] = _compile("json_fields", [
    "def json_fields(d, order=0):",
    "    return {" + ", ".join(f"{n!r}: " + (n if n in _GIVEN else repr(_DERIVED[n]) if n in _DERIVED
                                          else _read(_by_name[n]))
                           for n in (f.name for f in fields(Record))) + "}",
])
to_json: Callable[[Record], dict[str, Any]] = _compile("to_json", [
    "def to_json(r):",
    "    out = {" + ", ".join(f"{f.name!r}: {_write(f)}" for f in JSON_FIELDS if not f.when_set) + "}",
    *(line for f in JSON_FIELDS if f.when_set for line in (
        f"    if r.{f.name} is not None and r.{f.name} != ():",
        f"        out[{f.name!r}] = {_write(f)}")),
    "    return out",
])


json_fields.__doc__ = """The fields of a Record from its JSON form (cache files), in field order,
defaults filled in; the authors as (name, affiliations) pairs, for the caller to make people of
(the store shares them). A required field missing is a ``KeyError``; the types are checked by
``cache_records``, not here."""
to_json.__doc__ = """The cache/JSON form: plain types, in field order, each field present unless it
is written only when set and is not."""


def from_json(d: Mapping[str, Any], order: int = 0) -> Record:
    """The inverse of ``to_json``; ``order`` is the record's position in its source."""
    values = json_fields(d, order)
    values["authors"] = tuple(Person(*n) for n in values["authors"])
    return Record(**values)
