"""A content-keyed cache of parsed inputs, so a rebuild parses only the files that changed.

Parsing is most of what reading a large site costs (2,000 files at 1,000 authors: the
author YAML through a line-tracking loader and the schema checks, the cache JSON into
record fields). Each parsed value is kept in ``.authorsite/parsed/<version>/``, one file
per input, named by the SHA-256 of what was parsed (the input's kind, its name, its bytes).

Keyed by content, not by (path, size, mtime): the build knows every input's digest anyway
(``inputs.read_inputs``), hashing is a tenth of parsing, and a checkout or a
CI cache restore gives every file a new mtime with the same content, which a stat key
would miss (and a stat key alone could be fooled by an edit within the clock's tick).

Never trusted: the version folder is named by this FORMAT and the digest of the code
(``jobs.code_digest``), so a value parsed by other code is never read; a folder of
another version is deleted. Each entry holds its key and the SHA-256 of its payload; an
entry that is truncated, corrupt or of another key is ignored and made again, never an
error. Entries are written atomically (a temporary file, then ``os.replace``). The whole folder is safe
to delete. Values are pickled plain data (tuples, strings, the config's frozen values):
the folder is local state (like the manifest), restored in CI only from the same
repository's own cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import shutil
import threading
import time
from pathlib import Path
from typing import Callable, TypeVar

from generator.incremental import values
from generator.incremental.inputs import code_digest

log = logging.getLogger(__name__)

FORMAT = 2   # 2: a cache file keeps its fetch marks (incomplete, max_results)
_MAGIC = b"authorsite-parsed\0"
_SUM = 32   # bytes of a SHA-256 digest

T = TypeVar("T")


def parsed_dir(root: Path) -> Path:
    """The folder holding every version's parsed inputs."""
    return root / ".authorsite" / "parsed"


class ParsedInputs:
    """The parsed-input cache of one site, for one process. ``parse`` is called only on a miss.
    The configuration and the store know it as a ``core.parse_cache.ParseCache`` only."""

    def __init__(self, root: Path, *, write: bool = True, keep: tuple[str, ...] = ()) -> None:
        """``keep``: the kinds whose values are also held in memory (the preview keeps the author
        files', so an unchanged one gives the very same object, without unpickling). ``root``:
        the site, or an empty folder of its own for a build that reuses nothing (``empty``)."""
        self.dir = parsed_dir(root) / f"v{FORMAT}-{code_digest()[:16]}"
        self.write = write
        self.keep = keep
        self._held: dict[bytes, object] = {}
        self.used: set[str] = set()          # the keys read or written by this process
        self.hits = self.misses = 0          # values found made before, and made now (here or by a helper)
        self._since = time.time()

    @classmethod
    def empty(cls, scratch: Path) -> ParsedInputs:
        """A cache that holds nothing made before (``build --no-reuse``): in ``scratch``, a new
        folder the build deletes at its end. Its helper processes share it, as they would the site's."""
        return cls(scratch)

    def get(self, kind: str, name: str, data: bytes, parse: Callable[[bytes], T]) -> T:
        """The value ``parse(data)`` gives, from the cache when it holds it. Exceptions of ``parse``
        propagate and nothing is stored (a file that does not parse is reported every time)."""
        found = self.lookup(kind, name, data)
        if found is not None:
            return found[0]   # type: ignore[return-value]
        value = parse(data)
        self.put(kind, name, data, value)
        return value

    def lookup(self, kind: str, name: str, data: bytes, count: bool = True) -> tuple[object] | None:
        """(value,) kept for ``(kind, name, data)``, or None (a miss, counted unless ``count`` is
        false: a value another process was to keep, looked up again)."""
        key = self._key(kind, name, data)
        if key in self._held:
            self.hits += count
            return (self._held[key],)
        hexkey = key.hex()
        self.used.add(hexkey)
        found = _read(self._entry(hexkey), key, self._since)
        if found is None:
            self.misses += count
            return None
        if found[1]:   # written since this process began: by a helper process of this build
            self.misses += count
        else:
            self.hits += count
        found = found[:1]
        if kind in self.keep:
            self._held[key] = found[0]
        return found

    def holds(self, kind: str, name: str, data: bytes) -> bool:
        """Whether an entry for ``(kind, name, data)`` is there (not read: it may still be damaged)."""
        key = self._key(kind, name, data)
        hexkey = key.hex()
        return key in self._held or os.path.isfile(self._entry(hexkey))

    def put(self, kind: str, name: str, data: bytes, value: object) -> None:
        """Keep ``value`` as what ``(kind, name, data)`` gives."""
        key = self._key(kind, name, data)
        hexkey = key.hex()
        self.used.add(hexkey)
        if self.write:
            _write(Path(self._entry(hexkey)), key, value)
        if kind in self.keep:
            self._held[key] = value

    def mark(self, kind: str, name: str, data: bytes) -> None:
        """Count the entry of ``(kind, name, data)`` as used by this build, so ``prune`` keeps it:
        one that another process reads or writes (the search index's, generator.write.search)."""
        self.used.add(self._key(kind, name, data).hex())

    def _entry(self, hexkey: str) -> str:
        return os.path.join(self.dir, hexkey[:2], hexkey)   # (strings: 4,000 Path joins cost a rebuild 15 ms)

    @staticmethod
    def _key(kind: str, name: str, data: bytes) -> bytes:
        return hashlib.sha256(f"{kind}\0{name}\0".encode() + data).digest()

    def prune(self) -> int:
        """Delete the entries this process did not use and every other version's folder (after a
        whole build, when ``used`` is every input of the site). Returns the entries deleted."""
        top = self.dir.parent
        removed = 0
        try:
            for other in top.iterdir():
                if other != self.dir:
                    shutil.rmtree(other, ignore_errors=True)
            for sub in self.dir.iterdir():
                for entry in sub.iterdir():
                    if entry.name not in self.used:
                        entry.unlink(missing_ok=True)
                        removed += 1
        except OSError as exc:   # a cache: never a reason to fail a build
            log.debug("pruning %s: %s", top, exc)
        return removed


def _read(path: str, key: bytes, since: float) -> tuple[object, bool] | None:
    """(value, whether the entry was written at or after ``since``) from an entry, or None when
    it is absent, truncated, corrupt or of another key."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
            new = os.fstat(f.fileno()).st_mtime >= since
    except OSError:
        return None
    head = len(_MAGIC) + 2 * _SUM
    if len(blob) < head or not blob.startswith(_MAGIC) or blob[len(_MAGIC):len(_MAGIC) + _SUM] != key:
        return None
    payload = memoryview(blob)[head:]
    if hashlib.sha256(payload).digest() != blob[len(_MAGIC) + _SUM:head]:
        log.debug("%s: corrupt entry ignored", path)
        return None
    try:
        return pickle.loads(payload), new
    except Exception as exc:   # noqa: BLE001 - whatever a damaged pickle raises, the entry is ignored
        log.debug("%s: unreadable entry ignored (%r)", path, exc)
        return None


def _write(path: Path, key: bytes, value: object) -> None:
    """Through a temporary file and ``os.replace``: a reader sees the old entry or the new one.
    No fsync (2,000 of them would cost seconds): a torn entry after a crash fails its checksum."""
    try:
        payload = values.dumps(value)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with open(tmp, "wb") as f:
            f.write(_MAGIC + key + hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
        log.debug("%s: not cached (%r)", path, exc)


def entries(root: Path) -> list[Path]:
    """Every entry file of every version (for tests and ``du``-like reports)."""
    top = parsed_dir(root)
    return sorted(Path(d) / n for d, _, names in os.walk(top) for n in names) if top.is_dir() else []
