"""A page per paper (site.yaml ``papers``): which works get one, and the short key of each.

One page per work of every profiled author, merged across authors as the search index merges
them: the record object of the first profiled author who lists it (``search_docs.indexed_records``;
each author's record is already merged across that author's sources, generator.assemble.merge).

The key is URL-safe, short and stable, a function of the record's key alone, and one-to-one by
construction for every form but the last:

- an arXiv id: itself (``2401.01234``); an old-style id with its slash as ``_`` (``hep-th_9901001``);
- a DOI of plain characters (lower case letters, digits, ``.``, ``-``, ``/``) up to ``_LONG``
  characters: itself with each ``/`` as ``_`` (``10.1145_3318464.3380590``); a DOI never has ``_``
  in that form, and starts with ``10.``, where an old-style arXiv id starts with a letter;
- a record keyed by title and year: ``t-`` and the title's digest (already the record's identity);
- any other DOI (or an arXiv id of other characters than an id has): ``h-`` and 16 hex digits of
  the SHA-256 of its record key. Two such works with the same digest (never seen) are told apart in the order of their keys, ``-2``, ``-3`` ... after the first
  (``collisions``); that map is a site value (``SiteModel.paper_keys``), so every job's digest
  holds it (generator.render.reads) and a page linking to a renamed paper is made again.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from typing import Iterable, Mapping

_PLAIN_DOI = re.compile(r"10\.[a-z0-9.\-/]+")
_PLAIN_ARXIV = re.compile(r"[A-Za-z0-9.\-/]+")
_LONG = 80   # longer DOIs take the digest form: a key is a folder name in every published site


def paper_key(record_key: str) -> str:
    """The page key of the work ``record_key`` (``model.record_key``), before collisions."""
    if _may_collide(record_key):
        return "h-" + hashlib.sha256(record_key.encode("utf-8")).hexdigest()[:16]
    scheme, _, rest = record_key.partition(":")
    return "t-" + rest if scheme == "title" else rest.replace("/", "_")


def _may_collide(record_key: str) -> bool:
    """True for the works whose key is a digest (see the module's list): only those can share
    their key with another work's."""
    scheme, _, rest = record_key.partition(":")
    if scheme == "arxiv":
        return not _PLAIN_ARXIV.fullmatch(rest)
    if scheme == "doi":
        return len(rest) > _LONG or not _PLAIN_DOI.fullmatch(rest)
    return scheme != "title" or not rest.isalnum()


def collisions(record_keys: Iterable[str]) -> dict[str, str]:
    """The works whose key another work already has, each with the key it takes instead: the
    first in the order of the record keys keeps the key, the next take ``-2``, ``-3`` ... Empty
    on every site seen (one pass over the keys, a digest for the rare DOI that needs one)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for k in record_keys:
        if _may_collide(k):
            groups[paper_key(k)].append(k)
    out: dict[str, str] = {}
    for key, members in groups.items():
        for n, k in enumerate(sorted(members)[1:], start=2):
            out[k] = f"{key}-{n}"
    return out


def key_of(overrides: Mapping[str, str], record_key: str) -> str:
    """The page key of a work on a site whose collisions are ``overrides``."""
    return overrides.get(record_key) or paper_key(record_key)
