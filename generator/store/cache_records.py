"""A cache file's records, checked field by field before they become ``Record`` values. Pure.

Cache files are written by ``fetch``, but they are committed, so they are also edited by hand,
merged by git and damaged: untrusted JSON like any other input. A value of the wrong type
("year": "2023", "title": ["a list"], "arxiv_id": 12345, "published": "yesterday") used to
pass the reader and crash a build much later, in a sort or a template, with a traceback. Here
each record is checked against the JSON form ``record_json.json_fields`` reads:

* a record with a field of the wrong type (or an arXiv id, a date, an author that is not
  one) is refused with its number, its key, the field and what was found;
* a subject that is no arXiv category is dropped from the record, and said so (its chip
  would link to a subject page that does not exist).

The build leaves a refused record out and warns, naming the file (``store.reader``); ``fetch``, which
writes the files back, reads them with ``whole_files`` and takes such a file as unreadable, so it
never writes back a cache with a record less.
"""

from __future__ import annotations

import functools
import re
from itertools import chain
from operator import itemgetter
from typing import Any

from generator.store.record_json import JSON_FIELDS, json_fields
from generator.core.taxonomy import load_taxonomy

_NONE = type(None)
_TEXT = (str,)   # (checked with type(), so True is no int)
# field -> the types its JSON value may have (after json_fields: lists are tuples by then),
# derived from Record's fields (record_json.JSON_FIELDS), as are the lists below
_SCALAR_TYPES = {"text": _TEXT, "number": (int,)}
_TYPES = {f.name: _SCALAR_TYPES[f.kind] + ((_NONE,) if f.optional else ())
          for f in JSON_FIELDS if f.kind in _SCALAR_TYPES}
_SCALARS = itemgetter(*_TYPES)
_LISTS = tuple(f.name for f in JSON_FIELDS if f.kind not in _SCALAR_TYPES)
_TEXTS = tuple(f.name for f in JSON_FIELDS if f.kind == "texts")
_NAME, _AFFILIATIONS = itemgetter(0), itemgetter(1)   # of json_fields' (name, affiliations) pairs
_PAIR_LENGTHS = frozenset({2})
_LIST_TYPES = frozenset({list, _NONE})
_PAIRS = tuple(f.name for f in JSON_FIELDS if f.kind == "pairs")
# The forms ids.parse_arxiv_id reads (new style YYMM.NNNN(N), old style archive(.SC)/YYMMNNN),
# without a version: a form check in one regex, as the id only ever makes links through ids.
_ARXIV_ID = re.compile(r"[0-9]{2}(?:0[1-9]|1[0-2])\.[0-9]{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/[0-9]{2}(?:0[1-9]|1[0-2])[0-9]{3}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}Z?)?")
_KIND = {str: "text", int: "a number", float: "a number", bool: "true/false", list: "a list", dict: "an object",
         _NONE: "null"}
_GOOD: set[tuple[type, ...]] = set()   # the types of fields already found right (a few dozen mixes)


def checked_fields(d: Any, i: int) -> tuple[dict[str, Any], str | None]:  # noqa: ANN401 - JSON
    """``json_fields`` of record ``i`` (0-based) and a note when some of its subjects were
    dropped; ``ValueError`` naming the record and the field when it cannot be a record.
    About 1.5 us a record over json_fields' 3 (100,000 records at 1,000 x 100, read once)."""
    if type(d) is not dict:
        raise ValueError(f"record {i + 1} is {_kind(d)}, not an object")
    problem = None
    if "key" not in d or "title" not in d:
        problem = f"no '{'key' if 'key' not in d else 'title'}'"
    elif not _LIST_TYPES.issuperset(map(type, map(d.get, _LISTS))):   # (tuple() would take a text apart)
        problem = _lists(d)
    if problem is None:
        try:
            fields = json_fields(d, i)
            _texts_only(fields)
        except (KeyError, TypeError, AttributeError):
            problem = _lists(d) or "a list holds a value of the wrong kind"
    if problem is None:
        problem = _values(fields)
    if problem is not None:
        key = d.get("key")
        raise ValueError(f"record {i + 1}" + (f" ({key!r})" if type(key) is str else "") + f": {problem}")
    return _known_subjects(fields, i)


def _kind(value: Any) -> str:  # noqa: ANN401 - JSON
    return _KIND.get(type(value), type(value).__name__)


def _texts_only(f: dict[str, Any]) -> None:
    """``TypeError`` unless every list of ``f`` holds texts (pairs of them for source_ids and
    links): str.join refuses anything else, in C."""
    "".join(chain(f["subjects"], f["other_terms"], f["origins"], map(_NAME, f["authors"]),
                  chain.from_iterable(map(_AFFILIATIONS, f["authors"])),
                  chain.from_iterable(f["source_ids"]), chain.from_iterable(f["links"])))
    if not (_PAIR_LENGTHS.issuperset(map(len, f["source_ids"])) and _PAIR_LENGTHS.issuperset(map(len, f["links"]))):
        raise TypeError("not pairs")


def _lists(d: dict[str, Any]) -> str | None:
    """What keeps ``d``'s lists from being read (``_texts_only``), said as a user can fix it."""
    for name in _LISTS:
        v = d.get(name)
        if v is not None and type(v) is not list:
            return f"'{name}' must be a list, found {_kind(v)}"
    for name in _TEXTS:
        if any(type(c) is not str for c in d.get(name) or ()):
            return f"'{name}' must be a list of texts"
    for a in d.get("authors") or ():
        if type(a) is not dict or type(a.get("name")) is not str:
            return f"'authors' must hold objects with a 'name' text, found {_kind(a)}"
        affs = a.get("affiliations")
        if affs is not None and (type(affs) is not list or any(type(x) is not str for x in affs)):
            return "'affiliations' of an author must be a list of texts"
    for name in _PAIRS:
        for p in d.get(name) or ():
            if type(p) is not list or len(p) != 2 or type(p[0]) is not str or type(p[1]) is not str:
                return f"'{name}' must hold pairs of texts, found {p!r:.60}"
    return None


def _values(f: dict[str, Any]) -> str | None:
    """The first field of the wrong type or form, said as a user can fix it."""
    types = tuple(map(type, _SCALARS(f)))
    if types not in _GOOD:
        for (name, allowed), t in zip(_TYPES.items(), types):
            if t not in allowed:
                v = f[name]
                return f"'{name}' must be {'text' if str in allowed else 'a whole number'}, found {_kind(v)} {v!r:.60}"
        _GOOD.add(types)
    if not f["key"] or not f["title"].strip():
        return "'key' and 'title' must not be empty"
    if f["arxiv_id"] is not None and not _ARXIV_ID.fullmatch(f["arxiv_id"]):
        return f"'arxiv_id' {f['arxiv_id']!r:.60} is not an arXiv id (such as 2401.01234, without a version)"
    for name in ("published", "updated"):
        if f[name] is not None and not _DATE.fullmatch(f[name]):
            return f"'{name}' {f[name]!r:.60} is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"
    return None


@functools.cache
def _categories() -> frozenset[str]:
    return frozenset(load_taxonomy().categories)


def _known_subjects(f: dict[str, Any], i: int) -> tuple[dict[str, Any], str | None]:
    """Only arXiv's categories stay subjects (each has a page); the primary one only if it is one."""
    known, primary = _categories(), f["primary_subject"]
    if known.issuperset(f["subjects"]) and (primary is None or primary in known):
        return f, None
    dropped = [c for c in (*f["subjects"], primary) if c is not None and c not in known]
    f["subjects"] = tuple(c for c in f["subjects"] if c in known)
    f["primary_subject"] = primary if primary in known else None
    key = f"record {i + 1} ({f['key']!r})"
    codes = ", ".join(repr(c)[:40] for c in dict.fromkeys(dropped))
    return f, f"{key}: unknown subject {codes} (no arXiv category); left out of the record's subjects"
