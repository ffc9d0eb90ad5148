"""Incremental builds: skip what did not change, and keep every build complete and atomic.

Two levels, both keyed on the inputs' (size, mtime_ns) and the build options:

1. Nothing changed (same inputs and options, every recorded output file present): the
   build stops before loading anything.
2. Something changed: everything is loaded and assembled as usual, but a group of files
   (an author's page, feed and exports; a subject's pages and feed) whose inputs did not
   change is hard-linked from the previous build into the staging folder instead of
   being rendered again, and so is each search shard none of whose pages changed. The
   staging folder is then swapped in as usual and the previous build deleted, so no
   file of the final tree keeps a second link, and a kill at any point leaves the
   previous build whole.

What a group depends on: every group depends on the code, the theme and templates,
site.yaml, the free pages, the options and the set of profiled names (co-author
links); an author's group also on that author's YAML and cache files; a subject's
group on the content its pages show (its records' fields and who lists them); the
site-wide files (home, indexes, site feed, data.json, sitemap) on everything. The manifest lives outside
the output (``.authorsite/`` at the site root), so the output is byte-identical
whether a build was incremental or clean.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import generator
from generator.paths import PACKAGE, builtin_theme_dir

if TYPE_CHECKING:  # kept out of the import path of the 'nothing changed' check, which must be quick
    from generator.config import SiteConfig
    from generator.model import SiteModel
    from generator.render import Task
    from generator.search import Shard

FORMAT = 2
_PACKAGE = PACKAGE


def _digest(*parts: Any) -> str:  # noqa: ANN401
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


Snapshot = Mapping[str, tuple[int, int]]   # path -> (size, mtime_ns)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file a build reads, taken once, before anything is read:
    a file changed during the build then differs from the recorded snapshot next time."""
    out: dict[str, tuple[int, int]] = {}
    for top in (_PACKAGE, builtin_theme_dir(), root / "site.yaml", root / "content", root / "themes",
                root / "templates", root / "static"):
        if top.is_file():
            st = top.stat()
            out[str(top)] = (st.st_size, st.st_mtime_ns)
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for name in filenames:
                if not name.startswith("."):
                    p = os.path.join(dirpath, name)
                    st = os.stat(p)
                    out[p] = (st.st_size, st.st_mtime_ns)
    return out


def _pick(snap: Snapshot, *paths: Path) -> list[tuple[str, tuple[int, int]]]:
    """The snapshot entries of the given files and of everything under the given folders."""
    keys = [str(p) for p in paths]
    prefixes = tuple(k + os.sep for k in keys)
    return sorted((k, v) for k, v in snap.items() if k in keys or k.startswith(prefixes))


def quick_digest(snap: Snapshot, options: Mapping[str, Any]) -> str:
    """Everything a build reads, by size and mtime: cheap enough to decide 'nothing changed'."""
    return _digest(FORMAT, generator.__version__, dict(options), sorted(snap.items()))


def manifest_path(root: Path, out_dir: Path) -> Path:
    key = hashlib.sha1(str(out_dir.resolve()).encode()).hexdigest()[:12]
    return root / ".authorsite" / f"manifest-{key}.json"


@dataclass(frozen=True, slots=True)
class Manifest:
    quick: str
    groups: Mapping[str, str]      # group -> digest of its inputs
    files: Mapping[str, str]       # rel path -> group
    search: Mapping[str, str]      # search shard -> digest of what it was built from

    @classmethod
    def read(cls, path: Path) -> "Manifest | None":
        try:
            data = json.loads(path.read_text("utf-8"))
            if data.get("format") != FORMAT:
                return None
            return cls(data["quick"], data["groups"], data["files"], data.get("search") or {})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def write(self, path: Path) -> None:
        from generator.cache import atomic_write

        doc = {"format": FORMAT, "quick": self.quick, "groups": dict(self.groups), "files": dict(self.files),
               "search": dict(self.search)}
        atomic_write(path, json.dumps(doc, sort_keys=True).encode("utf-8"))


def unchanged(manifest: Manifest | None, quick: str, out_dir: Path) -> bool:
    """True when the previous build came from exactly these inputs and is still all there."""
    if manifest is None or manifest.quick != quick or not (out_dir / ".nojekyll").is_file():
        return False
    return all((out_dir / rel).is_file() for rel in manifest.files)


def group_digests(config: SiteConfig, site: SiteModel, options: Mapping[str, Any], snap: Snapshot,
                  tasks: Iterable[Task]) -> dict[str, str]:
    """The digest of each task group's inputs (see the module docstring)."""
    from generator.cache import cache_file
    from generator.config import ArxivSource, FeedSource

    root = config.root
    shared = _digest(generator.__version__, dict(options), sorted(site.people.items()), _pick(
        snap, _PACKAGE, builtin_theme_dir(), root / "site.yaml", root / "content" / "pages", root / "themes",
        root / "templates", root / "static"))
    per_author: dict[str, str] = {}
    for a in config.authors:
        files = [root / a.path]
        files += [p for s in a.sources if isinstance(s, (ArxivSource, FeedSource))
                  if (p := cache_file(config.cache_path, a.slug, s)) is not None]
        per_author[a.slug] = _digest([(str(f), snap.get(str(f))) for f in files])
    everything = _digest(shared, sorted(per_author.items()))
    record_digests = _record_digests(site)
    names = {a.slug: a.name for a in site.authors}
    subjects = {s.code: _subject_digest(shared, s, names, record_digests) for s in site.subjects}
    out: dict[str, str] = {}
    for t in tasks:
        if t.group in out:
            continue
        kind, _, name = t.group.partition(":")
        if kind == "author" and name in per_author:
            out[t.group] = _digest(shared, per_author[name])
        elif kind == "subject" and name in subjects:
            out[t.group] = subjects[name]
        else:
            out[t.group] = everything
    return out


def _record_digests(site: SiteModel) -> dict[int, bytes]:
    """Per record object: a digest of every field a brief entry or a feed entry shows, and of
    which profiled authors (slug and name) list it. One pass; records are shared by subjects."""
    names = {a.slug: a.name for a in site.authors}
    out: dict[int, bytes] = {}
    for subject in site.subjects:
        for r in subject.records:
            if id(r) in out:
                continue
            listed = site.record_authors.get(r.key, ())
            text = "\x00".join((
                r.key, str(r.version), r.title, str(r.year), r.source, r.arxiv_id or "", r.published or "",
                r.updated or "", r.abstract, r.doi or "", r.url or "", r.journal_ref or "", r.comment or "",
                " ".join(r.subjects), "\x1f".join(p.name for p in r.authors),
                "\x1f".join(f"{slug}\x1e{names.get(slug)}" for slug in listed)))
            out[id(r)] = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return out


def _subject_digest(shared: str, subject: Any, names: Mapping[str, str],  # noqa: ANN401 - model.Subject
                    records: Mapping[int, bytes]) -> str:
    """What a subject's pages and feed show: its records (every field a brief entry or a feed
    entry uses, and who lists them) and the authors working there. Content, not file dates: an
    author's affiliation or a record elsewhere changing leaves the subject's pages alone."""
    h = hashlib.sha256(shared.encode())
    h.update(repr((subject.code, subject.name, subject.group_name,
                   [(slug, names.get(slug), n) for slug, n in subject.authors])).encode())
    h.update(b"".join(records[id(r)] for r in subject.records))
    return h.hexdigest()[:32]


def search_digests(groups: Mapping[str, str], config: SiteConfig, snap: Snapshot, shards: Sequence[Shard],
                   indexed: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Per search shard: the digests of the author pages it indexes and which records each of
    their documents holds (``indexed``, author slug -> record keys: a shared record moves to
    another author's document when its first author goes), the free pages for the shard
    holding them, the language and the shard layout."""
    pages = _pick(snap, config.root / "content" / "pages")
    layout = [s.authors for s in shards]
    return {s.name: _digest(layout, [(groups.get(f"author:{a}", ""), list(indexed.get(a, ()))) for a in s.authors],
                            pages if s.pages else [], config.language) for s in shards}


def reusable(manifest: Manifest | None, groups: Mapping[str, str], tasks: Iterable[Task],
             old_out: Path) -> set[str]:
    """The files whose group's inputs are unchanged and whose previous version exists."""
    if manifest is None:
        return set()
    same = {g for g, d in groups.items() if manifest.groups.get(g) == d}
    return {t.rel_path for t in tasks
            if t.group in same and manifest.files.get(t.rel_path) == t.group and (old_out / t.rel_path).is_file()}


def link_file(src: Path, dest: Path) -> None:
    """Hard-link ``src`` to ``dest`` (a copy where the file system has no hard links)."""
    dest.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)
        os.chmod(dest, 0o644)


def link_tree(src: Path, dest: Path) -> None:
    """Hard-link every file under ``src`` to the same place under ``dest``."""
    for dirpath, _dirnames, filenames in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        for name in filenames:
            link_file(Path(dirpath) / name, dest / rel / name)
