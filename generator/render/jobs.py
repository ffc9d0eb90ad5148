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

import hashlib
import json
import operator
import os
from array import array
from dataclasses import dataclass
from itertools import compress, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection, Iterable, Iterator, Mapping, Sequence

import orjson

from generator.core.files import atomic_write
from generator.core.files import link_file, link_tree
from generator.incremental.inputs import code_digest, hash_files, theme_tops
from generator.render.digest import Digester
from generator.render.reads import overridden, site_values
from generator.render.tasks import FolderTask, Task

if TYPE_CHECKING:
    from generator.core.model import SiteModel

FORMAT = 4   # 4: a record's digest is made of its content digest and who lists it


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


def plan_jobs(tasks: Iterable[Task | FolderTask], site: SiteModel, common: bytes,
              digester: Digester | None = None, known: Mapping[str, str] | None = None,
              thin: bool = False) -> list[Job]:
    """Each task with the digest of ``common`` and of exactly what it reads (``digester``: one
    kept from earlier plans of this site, renewed for ``site``); ``known``: the digests of some
    outputs, found already (generator.incremental.subject_jobs). ``thin``: the file tasks kept
    thin, for a plan made apart (generator.render.apart)."""
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
        if thin and isinstance(t, Task):
            t = t.thin()
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
        try:   # (orjson: a third of json's time, 170,000 outputs at 20,000 authors)
            data = orjson.loads(path.read_bytes())
            if data.get("format") != FORMAT:
                return None
            outputs = data["outputs"]
            # (JSON's keys are text; a value that is not is no manifest of ours: checked in C)
            if not isinstance(outputs, dict) or not isinstance(data["inputs"], str) or \
                    not set(map(type, outputs.values())) <= {str}:
                return None
            return cls(data["inputs"], outputs)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, path: Path) -> None:
        doc = {"format": FORMAT, "inputs": self.inputs, "outputs": dict(self.outputs)}
        atomic_write(path, json.dumps(doc, sort_keys=True, indent=0).encode("utf-8"))


def unchanged(manifest: Manifest | None, inputs: str, out_dir: Path) -> bool:
    """True when the last build came from exactly these inputs and all it made is still there."""
    if manifest is None or manifest.inputs != inputs or not (out_dir / ".nojekyll").is_file():
        return False
    return not missing(manifest, out_dir)


def missing(manifest: Manifest, out_dir: Path) -> list[str]:
    """The manifest's outputs that are not in ``out_dir``: one access(2) each, the loop in C
    (os.access with F_OK is os.path.exists without its Python frame; a Path per output cost three
    times as much: 170,000 of them at 20,000 authors)."""
    top = os.path.join(out_dir, "")
    there = map(os.access, map(top.__add__, manifest.outputs), repeat(os.F_OK))
    return list(compress(manifest.outputs, map(operator.not_, there)))


def outline(jobs: Sequence[Job]) -> Iterator[tuple[str, str, bool]]:
    """(path, digest, whether a folder) of each job, in order: from a plan kept packed
    (generator.render.apart), or a view of one, without making its jobs."""
    fast = getattr(jobs, "outline", None)
    return fast() if fast is not None else ((j.rel_path, j.digest, j.folder) for j in jobs)


def split(jobs: Sequence[Job], manifest: Manifest | None, old_out: Path,
          missing: Collection[str] | None = None) -> tuple[Picked, Picked]:
    """(reuse, run): a job is reused when the manifest holds its digest and its old output exists.
    ``missing``: the manifest's outputs that are not files in ``old_out``, when known (the
    helper that linked the others says which: generator.incremental.prelink), so that no file is
    stat'ed. Both are views of ``jobs`` (``Picked``), so a plan kept packed stays so."""
    places = (array("I"), array("I"))   # (reuse, run)
    outputs = manifest.outputs if manifest is not None else {}
    top = os.fspath(old_out)   # (strings: a Path a job cost more than the stat, 9,000 jobs a build)
    for n, (rel, digest, folder) in enumerate(outline(jobs)):
        same = outputs.get(rel) == digest and (
            rel not in missing if missing is not None and not folder else os.path.exists(os.path.join(top, rel)))
        places[not same].append(n)
    return Picked(jobs, places[0]), Picked(jobs, places[1])


class Picked(Sequence[Job]):
    """Some of a plan's jobs, by their places in it, in its order: a view, not a copy (a plan
    kept packed, generator.render.apart, makes a job each time one is asked for)."""

    __slots__ = ("jobs", "places")

    def __init__(self, jobs: Sequence[Job], places: Sequence[int]) -> None:
        self.jobs, self.places = jobs, places

    def __len__(self) -> int:
        return len(self.places)

    def __getitem__(self, i: Any) -> Any:  # noqa: ANN401   (a job, or a list of them for a slice)
        if isinstance(i, slice):
            return [self.jobs[n] for n in self.places[i]]
        return self.jobs[self.places[i]]

    def __iter__(self) -> Iterator[Job]:
        return map(self.jobs.__getitem__, self.places)

    def tasks(self) -> Sequence[Task | FolderTask]:
        """Their tasks, as a view too."""
        return _Tasks(self)

    def outline(self) -> Iterator[tuple[str, str, bool]]:
        inner = getattr(self.jobs, "outline", None)
        return inner(self.places) if inner is not None else ((j.rel_path, j.digest, j.folder) for j in self)


class _Tasks(Sequence["Task | FolderTask"]):
    __slots__ = ("jobs",)

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.jobs = jobs

    def __len__(self) -> int:
        return len(self.jobs)

    def __getitem__(self, i: Any) -> Any:  # noqa: ANN401
        if isinstance(i, slice):
            return [j.task for j in self.jobs[i]]
        return self.jobs[i].task

    def __iter__(self) -> Iterator[Task | FolderTask]:
        return (j.task for j in self.jobs)


def link_job(job: Job, old_out: Path, staging: Path, made: set[str] | None = None) -> None:
    """Hard-link a reused job's output (file or folder) from the last build into staging.
    ``made``: the folders known to exist in staging (one set for all the jobs of a build: a
    ``mkdir`` per file was most of what linking 9,000 files cost)."""
    made = set() if made is None else made
    if job.folder:
        link_tree(old_out / job.rel_path, staging / job.rel_path, made)
    else:
        link_file(os.path.join(old_out, job.rel_path), os.path.join(staging, job.rel_path), made)
