"""Two helpers of job digests (generator.render.jobs): plain sequences encoded in C, and reads that are
the same values for sure (the preview's plans compare a job's reads with its last ones)."""

from __future__ import annotations

import marshal
import operator
from typing import Any, Sequence

from generator.core.model import SubjectHeading


def plain_seq(v: Sequence[object]) -> bytes | None:
    """A sequence of (name, count) pairs (a name a str or an int, a count an int, not a bool) or of
    strings, encoded in C by marshal (version 2: equal values, equal bytes); else None. The way
    depends on the value only (Markup is its text; empty is pairs); types are checked a set at once."""
    types = set(map(type, v))
    if all(issubclass(t, tuple) for t in types):   # (a subject's authors, an author's years)
        if types and (set(map(len, v)) != {2} or set(map(type, map(_SECOND, v))) != {int}):
            return None
        firsts = set(map(type, map(_FIRST, v)))
        if not all(t is int or issubclass(t, str) for t in firsts):
            return None
        plain = types <= {tuple} and firsts <= {str, int}
        return b"P" + marshal.dumps(tuple(v) if plain else tuple([(str.__str__(a) if isinstance(a, str) else a, n)
                                                                 for a, n in v]), 2)   # type: ignore[misc]
    if all(issubclass(t, str) for t in types):   # URLs (the sitemap), names, codes
        return b"S" + marshal.dumps(tuple(v) if types == {str} else tuple([str.__str__(x) for x in v]), 2)
    return None


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


_PLAIN = (str, int, float, bool, type(None))
# Small frozen values made anew by each plan, compared by value (cheap: a few strings and pairs).
_SMALL = (SubjectHeading,)


def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether two reads are the same values for sure: each the same object or an equal plain value
    of the same type (a feed's date), or a tuple of the same objects, or a dict of the same keys and
    objects or equal plain values of the same type (a pager), or an equal small value (a subject's
    heading)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y or (type(x) in _PLAIN + _SMALL and type(x) is type(y) and x == y):
            continue
        if type(x) is tuple and type(y) is tuple:
            if len(x) != len(y) or not all(map(operator.is_, x, y)):
                return False
        elif type(x) is dict and type(y) is dict:
            if x.keys() != y.keys() or not all(v is y[k] or (type(v) in _PLAIN and type(v) is type(y[k]) and v == y[k])
                                               for k, v in x.items()):
                return False
        else:
            return False
    return True
