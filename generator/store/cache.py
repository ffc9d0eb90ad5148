"""The committed record store: ``content/cache/<slug>/<source-key>.json``.

One JSON file per author and source, records sorted by key, fields in a fixed
order, so a scheduled fetch shows new papers as a readable diff. Each file holds
its format version, the source it came from (query or URL) and when it was
fetched. Writes go through a temporary file in the same folder and ``os.replace``,
so a crash leaves either the old file or the new one, never half of one.
This module is the write side and the format; ``reader`` is the one reader that the
build, fetch, review and check use, with one policy for a file that cannot be read.

Two optional fields say how much of a paged query the file holds, and are written only
when they apply, so every older cache file keeps its exact bytes:

- ``"incomplete": {"next_start": N, "total": T}``: the fetch stopped at offset N of T
  (a page that stayed empty or short after the retries); the records before it are
  kept, the next fetch resumes there, ``build``/``check --strict`` warn.
- ``"max_results": L``: the query matched more than L and only the newest L were asked
  for; raising ``fetch.max_results`` above L makes the next fetch backfill from L.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import orjson

from generator.config import Source
from generator.config.sources import kind_of
from generator.core.files import atomic_write
from generator.core.model import Incomplete, Record
from generator.store.record_json import from_json, to_json

FORMAT = 1


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """What one cache file holds."""

    source: dict[str, Any]
    fetched_at: str
    records: tuple[Record, ...]
    incomplete: Incomplete | None = None
    max_results: int | None = None     # set only when the query matched more than were asked for
    skipped: tuple[str, ...] = ()      # why records of the file were left out (store's reader only)
    dropped: tuple[str, ...] = ()      # subjects left out of records, as no arXiv category (store's reader)


def source_key(source: Source) -> str | None:
    """The file stem for a fetched source (None for typed-in records, which need no cache)."""
    return kind_of(source).cache_key(source)


def source_description(source: Source) -> dict[str, Any]:
    """What the cache file of ``source`` stores as its ``source``."""
    return kind_of(source).description(source)


def cache_file(cache_dir: Path, slug: str, source: Source) -> Path | None:
    rel = cache_rel(slug, source)
    return cache_dir / rel if rel else None


def cache_rel(slug: str, source: Source) -> str | None:
    """The path of ``source``'s cache file in the cache folder; None for typed-in records."""
    key = source_key(source)
    return f"{slug}/{key}.json" if key else None


def read_entry(path: Path,
               make_record: Callable[[Mapping[str, Any], int], Record] = from_json) -> CacheEntry:
    """Read one cache file; raise ``ValueError`` with a reason if it is not usable.
    ``make_record(json, order)`` turns each record's JSON into a ``Record``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"unreadable cache file ({exc})") from exc
    data = decode(raw)
    try:
        records = tuple(make_record(r, i) for i, r in enumerate(data["records"]))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed record in cache file ({exc!r})") from exc
    return CacheEntry(source=data.get("source") or {}, fetched_at=str(data.get("fetched_at") or ""),
                      records=records, **marks(data))


def marks(data: Mapping[str, Any]) -> dict[str, Any]:
    """The envelope's fetch marks of a decoded cache file: ``incomplete`` and ``max_results``."""
    return {"incomplete": _incomplete(data.get("incomplete")), "max_results": _count(data.get("max_results"))}


def _count(value: Any) -> int | None:  # noqa: ANN401 - JSON
    """A non-negative integer from JSON, else None (a hand-edited field must not break a fetch)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _incomplete(value: Any) -> Incomplete | None:  # noqa: ANN401 - JSON
    if not isinstance(value, dict):
        return None
    start, total = _count(value.get("next_start")), _count(value.get("total"))
    return Incomplete(start, total) if start is not None and total is not None else None


def decode(raw: bytes) -> dict[str, Any]:
    """The JSON document of a cache file's bytes, checked for its format; ``ValueError`` if unusable.
    Parsed by orjson (a third faster than json on 210 MB of cache at 1,000 x 100); a file it
    refuses is read by json as before, with json's message, and json's tolerance of what
    orjson rejects (a lone surrogate escape, NaN, an integer past 64 bits)."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"unreadable cache file ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = f"format {data.get('format')!r}" if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        raise ValueError(f"this is not a cache file of format {FORMAT} (found {found}): fetch the source again")
    return data


def encode_entry(entry: CacheEntry) -> bytes:
    """Deterministic bytes: records sorted by key, stable field order, one trailing newline."""
    doc: dict[str, Any] = {"format": FORMAT, "source": entry.source, "fetched_at": entry.fetched_at}
    if entry.incomplete is not None:
        doc["incomplete"] = {"next_start": entry.incomplete.next_start, "total": entry.incomplete.total}
    if entry.max_results is not None:
        doc["max_results"] = entry.max_results
    doc["records"] = [to_json(r) for r in sorted(entry.records, key=lambda r: r.key)]
    return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def write_entry(path: Path, entry: CacheEntry) -> bool:
    """Atomically replace ``path`` with ``entry``; return False if the bytes were already there."""
    data = encode_entry(entry)
    if path.is_file() and path.read_bytes() == data:
        return False
    atomic_write(path, data)
    return True


def remove_stale_temps(cache_dir: Path) -> list[Path]:
    """Delete the temporary files of ``atomic_write`` that a killed run left (``.NAME.json.*.tmp``),
    so they are never committed with the cache. Only call it while holding the fetch lock."""
    removed = []
    if cache_dir.is_dir():
        for tmp in sorted(cache_dir.glob("*/.*.json.*.tmp")):
            if tmp.is_file() and not tmp.is_symlink():
                tmp.unlink()
                removed.append(tmp)
    return removed
