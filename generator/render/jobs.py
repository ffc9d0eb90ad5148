"""Jobs keyed by content: each output is rebuilt only when what it reads has changed.

Planning turns every task (generator.render.tasks) into a ``Job``: the output path, the digest of
exactly what it reads, and the task that makes it. The digest of a job is
``H(common, H(task.reads))``, where ``common`` is what every job reads: the code (the
contents of the package's files and the versions of the libraries it renders with), every
template and static file of every theme layer, the build options and the site-wide settings.
As in Bazel or Nix, and unlike Jekyll's mtime-keyed regeneration (wrong after a checkout),
nothing here looks at file dates: a fresh clone with the last output and manifest restored
(a CI cache) reuses every job whose inputs are the same.

Reuse is one comparison per job: the manifest of the last build maps each output path to
its digest; when it equals the job's digest and the old file is there, the file is
hard-linked into the staging folder instead of being made again. The manifest lives
outside the output (``.authorsite/`` at the site root), is deleted while a build is in
flight (a kill costs a full rebuild, never a stale page) and is ignored when its
``FORMAT`` differs. Deleting it is always safe.

A whole-build shortcut stays: the digest of every input file's contents and the options
(``inputs.read_inputs``); when it equals the manifest's and every recorded output exists, the
build stops before loading anything.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import marshal
import os
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection, Iterable, Mapping, Sequence

from generator.core.files import atomic_write
from generator.core.files import link_file, link_tree
from generator.incremental.canonical import plain_seq as _plain_seq, same as _same
from generator.incremental.inputs import code_digest, hash_files, theme_tops
from generator.core.model import Record, SubjectHeading
from generator.render.reads import overridden, site_values
from generator.render.tasks import FolderTask, Task

if TYPE_CHECKING:
    from generator.core.model import SiteModel

FORMAT = 4   # 4: a record's digest is made of its content digest and who lists it
_KEY = attrgetter("key")


def common_digest(root: Path, site: SiteModel, options: Mapping[str, Any], theme: str,
                  digester: Digester | None = None) -> bytes:
    """What every job reads: code, templates and static files of every layer, which theme is the
    site's (every theme's files are hashed: switching between two installed ones changes no
    file), options, and the site's values (``site_values``). When the site overrides templates
    (``overridden``), the whole model too: every author with its records, every subject, and who
    lists each record. ``digester``: the plan's, whose record digests are made once. SHA-256
    throughout: with the CPU's SHA instructions it digests twice as fast as BLAKE2 here."""
    digester = digester or Digester(site)
    h = hashlib.sha256()
    h.update(f"{FORMAT}\0{code_digest()}\0{theme}\0".encode())
    hash_files(h, theme_tops(root), root)
    h.update(digester.digest((dict(options), site_values(site))))
    if overridden(root, theme):
        digester.renew(site)
        listed = digester.listed() or digester.digest(site.record_authors)   # (marshal's, in C, when plain)
        h.update(b"whole model\0" + digester.digest((site.authors, site.subjects)) + listed)
    return h.digest()


class Digester:
    """The canonical digest of plain values. Records (the bulk of what jobs read, each read by
    several jobs) get a dedicated encoder, memoized per object: every field, and which profiled
    authors list it (``site.record_authors``). One per planning pass in a build; the preview
    keeps one across its plans (``renew``), so an edit digests only the values it made anew."""

    # Every field of a Record but title, abstract and authors, which are digested apart (see
    # record). Taken from the class, so a field added to Record is digested without a word here.
    _SMALL_FIELDS = tuple(f.name for f in dataclasses.fields(Record) if f.name not in ("title", "abstract", "authors"))

    def __init__(self, site: SiteModel | None = None) -> None:
        self._listed: Mapping[str, tuple[str, ...]] = site.record_authors if site is not None else {}
        self._generation = 0
        # Keyed by id(): values hashed by content would cost what the memo saves. Each entry
        # holds its object, so no id is reused while the entry lasts.
        self._records: dict[int, tuple[Record, int, bytes, tuple[str, ...]]] = {}  # (r, generation, digest, listed)
        self._contents: dict[int, tuple[Record, bytes]] = {}   # r -> the digest of its fields
        self._current: dict[int, bytes] = {}   # id(r) -> its digest in this generation (r is in _records)
        self._memo: dict[int, tuple[object, bytes]] = {}    # other dataclasses (which may hold records)
        self._people: dict[int, tuple[object, str]] = {}    # Person -> its canonical text
        self._seqs: dict[tuple[int, ...], bytes] = {}       # ids of a sequence of records -> its encoding
        self._joined: dict[int, tuple[Sequence[Record], bytes]] = {}   # an author's records -> their digests (keep)
        self._reads: dict[str, tuple[int, tuple[Any, ...], bytes]] = {}   # path -> (generation, reads, digest)
        self._small = attrgetter(*self._SMALL_FIELDS)
        self._listed_digest: tuple[object, bytes] = (None, b"")   # (the map digested, its digest): listed

    def renew(self, site: SiteModel) -> None:
        """Ready for planning ``site``, keeping what still holds: a record's digest while the
        authors listing it are the same; other values' only while no listing changed (an
        author's digest holds its records'). Memos far larger than the site are dropped."""
        live = sum(len(a.records) for a in site.authors)
        if len(self._records) > 2 * live + 1000:
            self._reads.clear()
            self._records.clear()
            self._current.clear()
            self._contents.clear()
            self._people.clear()
            self._seqs.clear()
            self._joined.clear()
        if site.record_authors is not self._listed:
            self._listed = site.record_authors
            self._generation += 1
            self._current.clear()
            self._memo.clear()
            self._seqs.clear()
            self._joined.clear()

    def digest(self, value: object) -> bytes:
        return hashlib.sha256(self._encode(value)).digest()[:16]

    def reads(self, path: str, reads: tuple[Any, ...]) -> bytes:
        """The digest of what the job making ``path`` reads. The preview plans every job after each
        edit: while no listing changed, a job whose reads are the very objects of its last plan
        (or equal plain values: a pager) has the digest it had, found without encoding them."""
        last = self._reads.get(path)
        if last is not None and last[0] == self._generation and _same(last[1], reads):
            return last[2]
        d = self.digest(reads)
        self._reads[path] = (self._generation, reads, d)
        return d

    def record(self, r: Record) -> bytes:
        """A record's digest: its content digest (``content``) and which profiled authors list it."""
        d = self._current.get(id(r))   # made or kept (``keep``) in this generation
        if d is not None:
            return d
        e = self._records.get(id(r))
        if e is not None:
            if e[1] == self._generation:
                return e[2]
            listed = self._listed.get(r.key, ())
            if listed == e[3]:
                self._records[id(r)] = (r, self._generation, e[2], listed)
                self._current[id(r)] = e[2]
                return e[2]
        listed = self._listed.get(r.key, ())
        d = hashlib.sha256(self.content(r) + marshal.dumps(listed, 2)).digest()[:16]
        self._records[id(r)] = (r, self._generation, d, listed)
        self._current[id(r)] = d
        return d

    def content(self, r: Record) -> bytes:
        """The digest of every field of a record. The bytes digested are marshal's (version 2: no
        back-references, so equal values give equal bytes), made in C in one call: 81,000 records
        are digested on a full build of a large site. People are shared between records, so their
        text is made once. Kept with each assembled author (generator.incremental.snapshot, ``seed``): a
        rebuild digests only the records of the authors whose inputs changed."""
        e = self._contents.get(id(r))
        if e is not None:
            return e[1]
        people = self._people
        try:
            text = "".join([people[id(p)][1] for p in r.authors])
        except KeyError:
            for p in r.authors:
                if id(p) not in people:
                    people[id(p)] = (p, repr((p.name, p.affiliations)))
            text = "".join([people[id(p)][1] for p in r.authors])
        d = hashlib.sha256(marshal.dumps((self._small(r), text, r.title, r.abstract), 2)).digest()[:16]
        self._contents[id(r)] = (r, d)
        return d

    def seed(self, records: Sequence[Record], contents: Sequence[bytes]) -> None:
        """Take the content digests of ``records`` made before (``content``, by an earlier build)."""
        for r, d in zip(records, contents, strict=True):
            self._contents[id(r)] = (r, d)

    def joined(self, records: Sequence[Record]) -> bytes:
        """The digest of each of ``records`` (``record``), joined: as ``keep`` took them for that
        very sequence, else found record by record."""
        e = self._joined.get(id(records))
        if e is not None and e[0] is records:
            return e[1]
        parts = list(map(self._current.get, map(id, records)))
        if not all(parts):
            parts = [p or self.record(r) for p, r in zip(parts, records)]
        return b"".join(parts)   # type: ignore[arg-type]

    def listing(self, records: Sequence[Record]) -> bytes:
        """The digest of which profiled authors list each of ``records``: with the records' contents,
        all that their digests are made of (``record``)."""
        listed = tuple(map(self._listed.get, map(_KEY, records), repeat(())))   # in C: 100,000 a rebuild
        return hashlib.sha256(marshal.dumps(listed, 2)).digest()

    def listed(self) -> bytes:
        """The digest of who lists every record of the site (``site.record_authors``, in its
        order): while it is the last build's, so is each author's ``listing`` (11 ms at 1,000 x
        100, against 60 ms for every author's)."""
        if self._listed_digest[0] is not self._listed:
            try:
                d = hashlib.sha256(marshal.dumps(self._listed, 2)).digest()
            except ValueError:   # (not plain data: never equal to a digest kept)
                d = b""
            self._listed_digest = (self._listed, d)
        return self._listed_digest[1]

    def known(self, value: object, records: Sequence[Record]) -> tuple[bytes, bytes] | None:
        """(the digests of ``records`` joined, the encoding of the dataclass ``value``) as made by
        this generation, or None: what ``keep`` takes back in the next build."""
        e = self._memo.get(id(value))
        parts = list(map(self._current.get, map(id, records)))
        if e is None or None in parts:
            return None
        return b"".join(parts), e[1]   # type: ignore[arg-type]

    def keep(self, value: object, records: Sequence[Record], known: tuple[bytes, bytes]) -> None:
        """Take ``known`` (``known`` of a value equal to ``value`` in an earlier build, made when
        its records had the same contents and listings): ``value``'s and its records' digests."""
        joined, encoding = known
        n = len(joined)
        if n != 16 * len(records):
            return
        # In C: a rebuild keeps 100,000 records' digests at 1,000 x 100. They hold for this
        # generation only (``_current``, cleared when a listing changes); ``_joined`` holds the
        # records, so no id of theirs is reused while their digests are here.
        slices = map(slice, range(0, n, 16), range(16, n + 16, 16))
        self._current.update(zip(map(id, records), map(joined.__getitem__, slices)))
        self._memo[id(value)] = (value, encoding)
        self._joined[id(records)] = (records, joined)

    def _encode(self, v: object) -> bytes:
        """Tagged bytes; equal values give equal bytes, different values different ones."""
        if v is None or isinstance(v, (bool, int, float)):
            return repr(v).encode()
        if isinstance(v, str):   # Markup too: a str subclass, digested as its text
            b = str.encode(v)
            return b"s%d:" % len(b) + b
        if isinstance(v, bytes):
            return b"b%d:" % len(v) + v
        if isinstance(v, (tuple, list)):
            return self._seq(v)
        if isinstance(v, Mapping):
            items = sorted((self._encode(k), self._encode(x)) for k, x in v.items())
            return b"{%d:" % len(items) + b"".join(k + b"=" + x + b";" for k, x in items) + b"}"
        if isinstance(v, Record):   # a hollow one too (generator.incremental.hollow)
            return b"R" + self.record(v)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return self._dataclass(v)
        raise TypeError(f"a job reads a {type(v).__name__}, which has no canonical digest: pass plain values")

    def _seq(self, v: Sequence[object]) -> bytes:
        if v:
            # The common case: a list of records. Memoized by the ids of its records (held by
            # self._records, so no id is reused): a plan slices the same records into new tuples
            # (a feed, a subject page, a shard), and the preview plans again after each edit.
            # Made in C: no Python call per record. Every item found in _current is a record of
            # _records (a live object's id is no other live object's), so the type of each is
            # checked only when one is not found (a plan digests ~600,000 listed records).
            e = self._joined.get(id(v))   # an author's records, as kept
            if e is not None and e[0] is v:
                return b"[R%d:" % len(v) + e[1] + b"]"
            key = tuple(map(id, v))
            d = self._seqs.get(key)
            if d is not None:
                return d
            parts = list(map(self._current.get, key))   # each record's digest, when made already
            if None in parts and all(issubclass(t, Record) for t in set(map(type, v))):
                parts = [p or self.record(x) for p, x in zip(parts, v)]  # type: ignore[arg-type]
            if None not in parts:
                d = self._seqs[key] = b"[R%d:" % len(v) + b"".join(parts) + b"]"   # type: ignore[arg-type]
                return d
        plain = _plain_seq(v)
        if plain is not None:
            return plain
        return b"[%d:" % len(v) + b"".join(self._encode(x) + b"," for x in v) + b"]"

    def _dataclass(self, v: object) -> bytes:
        e = self._memo.get(id(v))
        if e is not None:
            return e[1]
        names = [f.name for f in dataclasses.fields(v)]  # type: ignore[arg-type]
        body = b"".join(self._encode(getattr(v, n)) + b"," for n in names)
        d = b"D" + type(v).__name__.encode() + b":" + hashlib.sha256(body).digest()[:16]
        self._memo[id(v)] = (v, d)
        return d


@dataclass(frozen=True, slots=True)
class Job:
    """One output (a file, or a folder for a FolderTask): where, the digest of what it reads,
    and the task that makes it."""

    task: Task | FolderTask
    digest: str

    @property
    def rel_path(self) -> str:
        return self.task.rel_path

    @property
    def folder(self) -> bool:
        return isinstance(self.task, FolderTask)


def plan_jobs(tasks: Sequence[Task | FolderTask], site: SiteModel, common: bytes,
              digester: Digester | None = None, known: Mapping[str, str] | None = None) -> list[Job]:
    """Each task with the digest of ``common`` and of exactly what it reads (``digester``: one
    kept from earlier plans of this site, renewed for ``site``); ``known``: the digests of some
    outputs, found already (generator.incremental.subject_jobs)."""
    if digester is None:
        digester = Digester(site)
    else:
        digester.renew(site)
    known = known or {}
    out = []
    for t in tasks:
        digest = known.get(t.rel_path)
        if digest is None:
            h = hashlib.sha256(common)
            h.update(digester.reads(t.rel_path, t.reads))
            digest = h.hexdigest()[:32]
        out.append(Job(t, digest))
    return out


def manifest_path(root: Path, out_dir: Path) -> Path:
    """Where the manifest of the build of ``root`` into ``out_dir`` lives. Keyed by the output
    folder relative to the site when it is inside it, so a clone elsewhere finds it."""
    root, out_dir = root.resolve(), out_dir.resolve()
    name = out_dir.relative_to(root).as_posix() if root in out_dir.parents else str(out_dir)
    return root / ".authorsite" / f"manifest-{hashlib.sha1(name.encode()).hexdigest()[:12]}.json"


@dataclass(frozen=True, slots=True)
class Manifest:
    inputs: str                  # the inputs digest of the build (inputs.read_inputs)
    outputs: Mapping[str, str]   # output path (file or folder) -> digest of the job that made it

    @classmethod
    def read(cls, path: Path) -> Manifest | None:
        """The manifest at ``path``; None when absent, unreadable or of another FORMAT."""
        try:
            data = json.loads(path.read_text("utf-8"))
            if data.get("format") != FORMAT:
                return None
            outputs = data["outputs"]
            if not isinstance(outputs, dict) or not isinstance(data["inputs"], str):
                return None
            return cls(data["inputs"], {str(k): str(v) for k, v in outputs.items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, path: Path) -> None:
        doc = {"format": FORMAT, "inputs": self.inputs, "outputs": dict(self.outputs)}
        atomic_write(path, json.dumps(doc, sort_keys=True, indent=0).encode("utf-8"))


def unchanged(manifest: Manifest | None, inputs: str, out_dir: Path) -> bool:
    """True when the last build came from exactly these inputs and all it made is still there."""
    if manifest is None or manifest.inputs != inputs or not (out_dir / ".nojekyll").is_file():
        return False
    return all((out_dir / rel).exists() for rel in manifest.outputs)


def split(jobs: Iterable[Job], manifest: Manifest | None, old_out: Path,
          missing: Collection[str] | None = None) -> tuple[list[Job], list[Job]]:
    """(reuse, run): a job is reused when the manifest holds its digest and its old output exists.
    ``missing``: the manifest's outputs that are not files in ``old_out``, when known (the
    helper that linked the others says which: generator.incremental.prelink), so that no file is stat'ed."""
    reuse: list[Job] = []
    run: list[Job] = []
    outputs = manifest.outputs if manifest is not None else {}
    top = os.fspath(old_out)   # (strings: a Path a job cost more than the stat, 9,000 jobs a build)
    for job in jobs:
        rel = job.rel_path
        same = outputs.get(rel) == job.digest and (
            rel not in missing if missing is not None and not job.folder else os.path.exists(os.path.join(top, rel)))
        (reuse if same else run).append(job)
    return reuse, run


def link_job(job: Job, old_out: Path, staging: Path, made: set[str] | None = None) -> None:
    """Hard-link a reused job's output (file or folder) from the last build into staging.
    ``made``: the folders known to exist in staging (one set for all the jobs of a build: a
    ``mkdir`` per file was most of what linking 9,000 files cost)."""
    made = set() if made is None else made
    if job.folder:
        link_tree(old_out / job.rel_path, staging / job.rel_path, made)
    else:
        link_file(os.path.join(old_out, job.rel_path), os.path.join(staging, job.rel_path), made)
