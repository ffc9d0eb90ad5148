"""What the bucket holds, as two small objects of ours beside the site (pure: bytes in, bytes out).

* The deploy manifest (``MANIFEST``): every key of the site and the SHA-256 of its bytes, with the
  headers' rules it was sent under (generator.deploy.headers.RULES). Written when every file it
  lists has landed, so it never names bytes the bucket does not have.
* The journal (``JOURNAL``): the keys a deploy is about to send or delete, written before the
  first of them and removed after the last. A deploy stopped half way leaves it; the next one
  takes those keys as ours with their content unknown (each is asked for by a HEAD, or sent
  again) and finishes what it left, deletions included.

Both are gzipped JSON in a fixed order (a site of 100,000 files has a manifest of 6 MB).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from typing import Iterable, Mapping

FORMAT = 1
FOLDER = ".authorsite/"
MANIFEST = FOLDER + "deploy-manifest.json.gz"
JOURNAL = FOLDER + "deploy-journal.json.gz"
OURS = frozenset({MANIFEST, JOURNAL})


@dataclass(frozen=True, slots=True)
class Remote:
    """The bucket as the last deploys left it: key -> digest (``plan.UNKNOWN``: ours, content not known)."""

    files: Mapping[str, str]
    rules: str | None          # the headers' rules of the manifest; None without one
    journal: bool              # a journal was there (a deploy stopped before its end)


def _pack(doc: dict) -> bytes:
    return gzip.compress(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8"), mtime=0)


def _unpack(data: bytes | None) -> dict | None:
    if data is None:
        return None
    try:
        doc = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == FORMAT else None


def manifest_bytes(files: Mapping[str, str], rules: str) -> bytes:
    return _pack({"format": FORMAT, "rules": rules, "files": dict(sorted(files.items()))})


def journal_bytes(keys: Iterable[str]) -> bytes:
    return _pack({"format": FORMAT, "keys": sorted(set(keys))})


def read_manifest(data: bytes | None) -> tuple[dict[str, str], str] | None:
    """(key -> digest, rules) of a manifest's bytes; None when absent or not one of ours."""
    doc = _unpack(data)
    files = doc.get("files") if doc else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None
    return files, str(doc.get("rules"))   # type: ignore[union-attr]


def read_journal(data: bytes | None) -> list[str]:
    doc = _unpack(data)
    keys = doc.get("keys") if doc else None
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []


def remote_state(manifest: bytes | None, journal: bytes | None, unknown: str) -> Remote | None:
    """The bucket's state from its manifest and journal; None without a manifest (the bucket is
    then listed and compared by content: generator.deploy.run)."""
    read = read_manifest(manifest)
    if read is None:
        return None
    files, rules = read
    pending = read_journal(journal)
    for key in pending:
        files[key] = unknown
    return Remote(files, rules, journal is not None)
