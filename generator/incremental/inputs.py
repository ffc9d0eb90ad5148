"""The input files of a build, each digested once (SHA-256 of its bytes), and the code.

``read_inputs`` reads every file a build reads (``site.yaml``, ``content/``, the theme layers)
once, in a stable order, and gives the digest of each and of them all with the options: the
'nothing changed' key (``Inputs.digest``), and the content keys of the per-author snapshots
(generator.incremental.snapshot), so a cache file's bytes are never read a second time to know whether
its author changed. The keys are contents only, never file dates: a fresh clone has new dates
and the same keys. Only the reading is saved where a file's stat is what it was when a build
read it (``_StatCache``, as git's index). Kept import-light: the 'nothing changed' check runs
before anything else loads.
"""

from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from generator.core.paths import FEED_MEMORY, PACKAGE, builtin_theme_dir

FORMAT = 5   # 4: the inputs digest is made of each file's own digest; 5: the feeds' memory's added last
_SKIP_DIRS = ("__pycache__",)
_STAT_MAGIC = b"authorsite-inputs-stat 2\0"   # 2: the folders' listings too
# The libraries whose versions can change the bytes of an output.
_LIBRARIES = ("authorsite", "jinja2", "markupsafe", "markdown", "nh3", "latex2mathml", "pyyaml", "orjson",
              "babel")   # babel: CLDR's dates, numbers and plural rules in pages of other languages


def files_under(top: Path, known: _StatCache | None = None) -> list[str]:
    """Every file under ``top`` (or ``top`` itself), in a stable order, as strings (Path objects
    cost half the time of digesting 2,000 files). Hidden files too: the loader refuses some of
    them (``content/authors/.git.yaml``), so they are inputs. ``known``: the build's stat cache,
    which keeps each folder's listing while the folder's stat is what it was (``_StatCache.listing``)."""
    if top.is_file():
        return [str(top)]
    out: list[str] = []
    _walk(str(top), out, known.listing if known is not None else _listing)
    return out


Listing = tuple[tuple[str, ...], tuple[str, ...]]   # a folder's files and the folders walked into, by name


def _walk(folder: str, out: list[str], listing: Callable[[str], Listing | None]) -> None:
    """``os.walk``'s files of ``folder`` in its order (the files of a folder by name, then each
    folder by name; a link to a folder is not followed): the cache has a folder per author,
    20,000 of them at 20,000 authors."""
    found = listing(folder)
    if found is None:
        return   # (as os.walk: a folder that cannot be listed is left out)
    files, folders = found
    head = folder + os.sep
    out += [head + name for name in files]
    for name in folders:
        _walk(head + name, out, listing)


def _listing(folder: str, links: list[bool] | None = None) -> Listing | None:
    """A folder's ``Listing``, one ``scandir`` (None if it cannot be listed); ``links`` told
    whether the folder holds a symbolic link."""
    try:
        with os.scandir(folder) as it:
            entries = sorted([(e.name, e.is_dir(), e.is_symlink()) for e in it])
    except OSError:
        return None
    if links is not None:
        links.append(any(link for _, _, link in entries))
    return (tuple([name for name, is_dir, _ in entries if not is_dir]),
            tuple([name for name, is_dir, link in entries if is_dir and not link and name not in _SKIP_DIRS]))


def hash_files(h: Any, tops: Iterable[Path], root: Path | None = None) -> None:  # noqa: ANN401 - a hashlib object
    """Each file's name, length and bytes. The name is relative to ``root`` when under it, else
    to the folder that holds its top (the built-in theme's: ``default/templates/...``), so where
    the package is installed or checked out changes no digest (two checkouts of one commit, or a
    CI runner's workspace, reuse each other's jobs)."""
    prefix = str(root) + os.sep if root is not None else None
    for top in tops:
        outside = len(str(top.parent)) + 1
        for path in files_under(top):
            name = path[len(prefix):] if prefix and path.startswith(prefix) else "\0" + path[outside:]
            with open(path, "rb") as f:
                data = f.read()
            h.update(f"{name}\0{len(data)}\0".encode())
            h.update(data)


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The package's own files (contents) and the versions of Python and of the libraries that
    shape the output. Once per process: a process runs the code it loaded, whatever the disk says now."""
    h = hashlib.sha256(sys.version.encode())
    hash_files(h, [PACKAGE], PACKAGE)
    found = _installed(sys.path)
    for name in _LIBRARIES:
        h.update(f"{name}={found.get(_canonical(name)) or _version(name)}\0".encode())
    return h.hexdigest()[:32]


def _canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares them (``PyYAML``, ``pyyaml``; ``a_b``, ``a-b``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed(paths: Iterable[str]) -> dict[str, str]:
    """name -> version of the distributions whose ``NAME-VERSION.dist-info`` folder is on ``paths``,
    the first found winning (as with importlib.metadata, whose import alone took 16-35 ms of
    every build)."""
    out: dict[str, str] = {}
    for path in paths:
        try:
            names = os.listdir(path or ".")
        except OSError:
            continue
        for entry in names:
            if entry.endswith(".dist-info") and entry.count("-") == 2:   # NAME-VERSION.dist-info
                name, version = entry[:-len(".dist-info")].split("-")
                out.setdefault(_canonical(name), version)
    return out


def _version(name: str) -> str:
    """The version importlib.metadata finds (an egg-info, an odd folder name), or "-" for none."""
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def theme_tops(root: Path) -> list[Path]:
    """The theme's files of every layer, and the site's own message catalogues (``locale/``,
    generator.render.i18n): what every job reads of the files."""
    return [builtin_theme_dir(), root / "themes", root / "templates", root / "static", root / "locale"]


@dataclass(frozen=True, slots=True)
class Inputs:
    """What ``read_inputs`` found: the digest of every input and the options, and each file's own."""

    digest: str
    files: Mapping[str, bytes]   # the file's path (as os.walk gives it) -> SHA-256 of its bytes
    base: str = ""               # the digest of every input but the feeds' memory, which ``digest`` adds

    def with_memory(self, data: bytes) -> str:
        """``digest`` had the feeds' memory (generator.assemble.feed_ids) been ``data``: what a build that
        wrote it records, so the next build finds nothing changed (the other inputs are taken as
        they were read at the start, never again: an edit made meanwhile is seen by the next build)."""
        return self.with_memory_digest(hashlib.sha256(data).digest())

    def with_memory_digest(self, digest: bytes) -> str:
        """``with_memory`` given the sha256 of the memory's bytes (written streamed: feed_ids.save)."""
        return _with_memory(self.base, digest)

    def file_digest(self, path: Path | str) -> bytes | None:
        """The digest of ``path``'s bytes: the one read at the start of the build when it was an
        input then, else read now; None when it is not a file."""
        found = self.files.get(str(path))
        if found is not None:
            return found
        try:
            with open(path, "rb") as f:
                return hashlib.sha256(f.read()).digest()
        except OSError:
            return None


def read_inputs(root: Path, options: Mapping[str, Any], reuse: bool = True) -> Inputs:
    """Every file a build reads, by content, and the options: the 'nothing changed' key, and
    each file's digest (of the bytes read now, or of a file whose stat is what it was when a
    build read it: ``_StatCache``; ``reuse=False``: every file is read)."""
    h = hashlib.sha256()
    h.update(f"{FORMAT}\0{code_digest()}\0{json.dumps(dict(options), sort_keys=True)}\0".encode())
    prefix = str(root) + os.sep
    files: dict[str, bytes] = {}
    known = _StatCache(root, trust=reuse)
    memory, memory_digest = str(root / FEED_MEMORY), b""
    for top in [root / "site.yaml", root / "content", *theme_tops(root)]:
        for path in files_under(top, known):
            d = known.digest(path)
            files[path] = d
            if path == memory:
                memory_digest = d    # added last (Inputs.with_memory)
                continue
            name = path[len(prefix):] if path.startswith(prefix) else path
            h.update(f"{name}\0".encode() + d)
    known.save()
    base = h.hexdigest()
    return Inputs(_with_memory(base, memory_digest), files, base)


def _with_memory(base: str, memory: bytes) -> str:
    return hashlib.sha256(base.encode() + b"\0" + memory).hexdigest()[:32]


class _StatCache:
    """Each input's digest by its stat, as git's index keeps them: a file whose size, mtime,
    ctime and inode are those it had when an earlier build read it has the digest read then, so
    a rebuild reads only the files that changed (not 210 MB of cache JSON); likewise a folder's
    listing while its mtime, ctime and inode are those it had (a name added, removed or renamed
    in it changes them; a folder holding a link is listed every time, as the kind of what the
    link names may change). The digests stay the key of everything: only the reading is saved,
    and a fresh clone (new stats) reads every file once. Never trusted: an entry of a file or
    folder modified less than ``_RACY_NS`` before the build that read it started (an edit in the
    same tick of the file system's clock would leave its stat as it was) is read again; the
    cache is versioned by the code, checksummed, written atomically, safe to delete."""

    _RACY_NS = 2_000_000_000

    def __init__(self, root: Path, trust: bool = True) -> None:
        self.path = root / ".authorsite" / "inputs-stat.bin"
        self.started = time.time_ns()   # before any file is read
        # when the build that wrote the entries started, its files' entries and its folders'
        self.stamp, self.old, self.old_folders = self._load() if trust else (0, {}, {})
        self.new: dict[str, tuple[int, int, int, int, bytes]] = {}
        self.folders: dict[str, tuple[int, int, int, Listing]] = {}
        self.read = 0   # files read now (changed, new, or racy)

    def digest(self, path: str) -> bytes:
        st = os.stat(path)
        key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        e = self.old.get(path)
        if e is not None and e[:4] == key and e[1] < self.stamp - self._RACY_NS:
            self.new[path] = e
            return e[4]
        with open(path, "rb") as f:
            d = hashlib.sha256(f.read()).digest()
        self.read += 1
        self.new[path] = (*key, d)
        return d

    def listing(self, folder: str) -> Listing | None:
        """``_listing`` of ``folder``, kept from the last build while its stat is the same."""
        try:
            st = os.stat(folder)
        except OSError:
            return None
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        e = self.old_folders.get(folder)
        if e is not None and e[:3] == key and e[0] < self.stamp - self._RACY_NS:
            self.folders[folder] = e
            return e[3]
        links: list[bool] = []
        found = _listing(folder, links)
        if found is not None and not links[0]:
            self.folders[folder] = (*key, found)
        return found

    def _load(self) -> tuple[int, dict[str, tuple[int, int, int, int, bytes]], dict[str, tuple[int, int, int, Listing]]]:
        try:
            with open(self.path, "rb") as f:
                blob = f.read()
            head = _STAT_MAGIC + code_digest().encode()
            if blob[:len(head)] == head and hashlib.sha256(blob[len(head) + 32:]).digest() == blob[len(head):len(head) + 32]:
                stamp, found, folders = marshal.loads(blob[len(head) + 32:])
                if isinstance(stamp, int) and isinstance(found, dict) and isinstance(folders, dict):
                    return stamp, found, folders
        except (OSError, ValueError, EOFError, TypeError):
            pass   # absent or damaged: every file is read
        return 0, {}, {}

    def save(self) -> None:
        """Written when a file was read or a folder listed (or one is gone); a failure costs the
        next build its reading only."""
        if not self.read and self.new.keys() == self.old.keys() and self.folders == self.old_folders:
            return
        payload = marshal.dumps((self.started, self.new, self.folders), 4)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(_STAT_MAGIC + code_digest().encode() + hashlib.sha256(payload).digest() + payload)
            os.replace(tmp, self.path)
        except OSError:
            pass
