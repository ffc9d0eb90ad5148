"""Records as plain tuples, and made back from them fast: the form the accelerators keep records in.

A rebuild of a large site loads every kept author's records (generator.incremental.snapshot,
``hollow``) and the parsed-input cache (``parsed``) holds assembled values. Unpickling 100,000
records is most of what that load costs: the call ``Record(*fields)`` took 6.7 us a record and
its people 3.6 us more (a call each). Made here, the slots are set through their descriptors
and the people found in one pass in C (made only when new): 5.9 us in all.

People are shared across one build (``PEOPLE``): without it, 1,000 authors x 100 records gave
433,000 ``Person`` objects for 11,451 people. The table is let go when the build ends
(``PEOPLE.clear``, called by ``hollow.forget``), so a long preview does not keep every name it
ever saw, and it starts again past ``People.LIMIT`` people: over the index (generator.index) a
process loads records a few at a time, and the table of every name a render process met would
grow with the site (a record made from it keeps its people; only the sharing is lost). ``model`` knows nothing of this: its values are plain frozen dataclasses.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import fields
from operator import attrgetter
from typing import Any

from generator.core.model import Person, Record

FIELDS = tuple(f.name for f in fields(Record))
_fields_of = attrgetter(*FIELDS)
_AUTHORS = FIELDS.index("authors")
# Each field's slot, set as the generated __init__ sets it (object.__setattr__), without the call.
SLOTS = tuple(Record.__dict__[name].__set__ for name in FIELDS)
COUNT = len(FIELDS)   # how many values a record has


class People:
    """The people made in one build, by (name, affiliations), and those with none by name."""

    def __init__(self) -> None:
        self.by_pair: dict[tuple[str, tuple[str, ...]], Person] = {}
        self.by_name: dict[str, Person] = {}

    LIMIT = 100_000   # people held at most (about 40 MB); 11,451 at 1,000 x 100

    def get(self, name: str, affiliations: tuple[str, ...]) -> Person:
        key = (name, affiliations)
        found = self.by_pair.get(key)
        if found is None:
            if len(self.by_pair) >= self.LIMIT:
                self.clear()
            found = self.by_pair[key] = Person(name, affiliations)
            if not affiliations:
                self.by_name[name] = found
        return found

    def find(self, people: tuple[Any, ...]) -> tuple[Person, ...]:
        """The people of ``values_of``'s authors (names, or (name, affiliations) pairs)."""
        by_name = type(people[0]) is str if people else True
        found = tuple(map(self.by_name.get if by_name else self.by_pair.get, people))
        if not all(found):   # (not 'None in found': that calls Person.__eq__ on each)
            found = tuple(self.get(p, ()) if type(p) is str else self.get(*p) for p in people)
        return found

    def clear(self) -> None:
        self.by_pair.clear()
        self.by_name.clear()


PEOPLE = People()


def values_of(r: Record) -> tuple[Any, ...]:
    """Every field of ``r`` in order, its authors as names when none has an affiliation (the
    usual case), else (name, affiliations) pairs: what ``record`` and ``set_fields`` take back."""
    values = _fields_of(r)
    people = r.authors
    if any(p.affiliations for p in people):
        names: tuple[Any, ...] = tuple([(p.name, p.affiliations) for p in people])
    else:
        names = tuple([p.name for p in people])
    return values[:_AUTHORS] + (names,) + values[_AUTHORS + 1:]


def set_fields(r: Record, values: tuple[Any, ...]) -> None:
    """Set every field of ``r`` from its ``values_of`` (its people found or made once)."""
    for put, value in zip(SLOTS, values):
        put(r, value)
    SLOTS[_AUTHORS](r, PEOPLE.find(values[_AUTHORS]))   # the people, over the names the loop set


def record(values: tuple[Any, ...]) -> Record:
    """A record from its ``values_of``."""
    r = object.__new__(Record)
    set_fields(r, values)
    return r


def person(name: str, affiliations: tuple[str, ...]) -> Person:
    return PEOPLE.get(name, affiliations)


def _reduce(obj: object) -> Any:  # noqa: ANN401
    """How ``dumps`` pickles a record or a person: as the call that makes it back here."""
    if type(obj) is Record:
        return record, (values_of(obj),)
    if type(obj) is Person:
        return person, (obj.name, obj.affiliations)
    return NotImplemented


class _Pickler(pickle.Pickler):
    reducer_override = staticmethod(_reduce)


def dumps(value: object) -> bytes:
    """``pickle.dumps``, with records and people in the form ``record`` and ``person`` load fast."""
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buf.getvalue()
