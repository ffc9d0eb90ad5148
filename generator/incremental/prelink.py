"""The staging folder of a rebuild, made by a forked process while the build loads.

A rebuild reuses most of the last build's files, each hard-linked from ``output/`` into the
staging folder. What to link depends only on the last build's manifest, known before anything
is loaded. So at the start of a rebuild a forked helper makes a folder beside the output holding
every plain file the manifest lists, hard-linked from the live output, seeded from the spare
(the build before the last), while the build loads, assembles and plans; the build takes it as
its staging folder under the build lock (``take``), if the manifest there is still the one the
helper linked, and removes from it what this build makes anew or no longer makes (``prune``).

Only an accelerator: a build whose helper failed, was killed or linked another manifest
removes the folder and links its reused files itself, as without it. The folder holds hard
links only, so removing it never touches the live output; every writer of a build makes a new
file rather than writing into an existing one (``output.write_file``), so a link that was not
removed can never be written through. The folder is named by the build's pid, so two builds of
one site never share it; a build removes those left by builds killed outright (``clear_stale``).
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, Sequence

from generator.core.errors import SiteError
from generator.core.files import folders_of, link_file
from generator.render.jobs import Job, Manifest, link_job, manifest_path, outline
from generator.write.output import MARKER, check_output_dir, normalize_added, normalize_tree, safe_rel, spare_dir
from generator.core.processes import fork_helper, stop_helper
from generator.write.sitesize import SiteSize

log = logging.getLogger(__name__)

REPORT = ".authorsite-prelinked.json"   # in the helper's folder; taken out by ``Prelink.take``


def prelink_dir(out_dir: Path, pid: int) -> Path:
    """The folder the helper of the build ``pid`` makes, on the output's file system."""
    return out_dir.with_name(f".{out_dir.name}.authorsite-prelink-{pid}")


def clear_stale(out_dir: Path) -> None:
    """Remove the folders of builds no longer running (killed outright: their helper died with them)."""
    prefix = prelink_dir(out_dir, 0).name[:-1]
    try:
        found = [p for p in out_dir.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return
    for p in found:
        pid = p.name[len(prefix):]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        if p.is_symlink() or not p.is_dir():
            p.unlink(missing_ok=True)
        else:
            shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # another user's: alive
        pass
    return True


def link_outputs(outputs: list[str], out_dir: Path, folder: Path) -> None:
    """The helper's work: ``folder`` holding a hard link to each plain file of ``outputs`` in
    ``out_dir`` and no other file (folder outputs are left to the build). Seeded from the spare
    when there is one, whose files are mostly links of the live ones already: kept, the others
    removed (``_sweep``). Its ``REPORT`` says the files and bytes it holds and the outputs not
    linked, so that the build normalizes only what it adds (``Prelink.take``)."""
    try:
        os.rename(spare_dir(out_dir), folder)   # atomic: a build that holds the lock makes its own
        seeded = True
    except OSError:
        seeded = False
    if seeded and (folder.is_symlink() or not folder.is_dir()):   # planted: removed, never followed
        folder.unlink()
        seeded = False
    if not seeded:
        os.mkdir(folder, 0o755)
    rels = list(map(safe_rel, outputs))
    kept: dict[str, int] = {}   # the outputs the spare holds already: rel -> size
    if seeded:
        os.chmod(folder, 0o755)
        _sweep(str(folder), "", (os.path.join(out_dir, ""), os.lstat(folder).st_dev), set(rels), kept, folders_of(rels))
    made: set[str] = set()
    skipped: list[str] = []
    files, size = len(kept), sum(kept.values())
    for rel in rels:
        if rel in kept:
            continue
        src = os.path.join(out_dir, rel)
        try:
            st = os.lstat(src)
        except FileNotFoundError:
            skipped.append(rel)
            continue
        if not stat.S_ISREG(st.st_mode):
            skipped.append(rel)
            continue
        if stat.S_IMODE(st.st_mode) != 0o644:
            os.chmod(src, 0o644)   # (as normalize_tree would through the link)
        files, size = files + 1, size + st.st_size
        link_file(src, os.path.join(folder, rel), made)
    if _umask() != 0o022:   # else the folders made are 0755 (the spare's were given it in the walk)
        found = normalize_tree(folder)
        files, size = found.files, found.bytes
    report = {"files": files, "bytes": size, "skipped": skipped}
    (folder / REPORT).write_text(json.dumps(report), encoding="utf-8")


def _sweep(path: str, prefix: str, src: tuple[str, int], wanted: set[str], kept: dict[str, int],
           needed: set[str]) -> bool:
    """Walk the spare's folder ``path`` (``prefix``: its place in the output): keep each file of
    ``wanted`` that is a hard link of the live output's plain file there (``src``: the output's
    path and device; by inode, which the walk gives: one ``lstat`` a file, the live one's), giving
    it 0644; remove every other file or link; give each folder 0755 before listing it; remove those
    left empty that no file of ``wanted`` lies in (``needed``: a cold build's ``Skeleton`` of folders
    was removed and made again, 3.9 s of 4.7 at 1,000 x 100). Returns whether ``path`` is left empty.
    (One walk, not three: at 5,000 x 100, 48,000 files in 29,000 folders, 1.0-1.1 s, not 2.0-2.3.)"""
    left = 0
    with os.scandir(path) as it:
        found = list(it)
    for entry in found:
        rel = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            if stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode) != 0o755:
                os.chmod(entry.path, 0o755)   # (before listing it: it may have been made unreadable)
            if _sweep(entry.path, rel + "/", src, wanted, kept, needed) and rel + "/" not in needed:
                os.rmdir(entry.path)
                continue
        elif not (rel in wanted and entry.is_file(follow_symlinks=False) and _same(entry, src, rel, kept)):
            os.unlink(entry.path)
            continue
        left += 1
    return left == 0


def _same(entry: os.DirEntry[str], src: tuple[str, int], rel: str, kept: dict[str, int]) -> bool:
    """Whether the spare's ``entry`` is the live plain file at ``rel`` (``src``: output, device): kept, 0644."""
    try:
        st = os.lstat(src[0] + rel)
    except FileNotFoundError:
        return False
    if st.st_ino != entry.inode() or st.st_dev != src[1] or not stat.S_ISREG(st.st_mode):
        return False
    if stat.S_IMODE(st.st_mode) != 0o644:
        os.chmod(src[0] + rel, 0o644)   # (the spare's file is the same: as normalize_tree would through the link)
    kept[rel] = st.st_size
    return True


def _umask() -> int:
    """The process's umask (read by setting it: the helper is a process of one thread)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class Prelink:
    """The helper of one build (``start``) and the folder it makes, taken as staging (``take``)."""

    def __init__(self, manifest: Manifest, out_dir: Path, pid: int, folder: Path) -> None:
        self.manifest, self.out_dir, self.pid, self.folder = manifest, out_dir, pid, folder
        self.size: SiteSize | None = None        # what the folder taken holds (its REPORT), if known
        self.skipped: frozenset[str] = frozenset()   # the manifest's outputs it does not hold

    @classmethod
    def start(cls, root: Path, out_dir: Path, workers: int) -> Prelink | None:
        """Fork the helper when there is a previous build to link from and a core to spare."""
        if workers < 2:
            return None
        try:
            check_output_dir(out_dir, root)   # as write_site will: nothing is made beside a refused folder
        except SiteError:
            return None
        clear_stale(out_dir)
        manifest = Manifest.read(manifest_path(root, out_dir))
        if manifest is None or out_dir.is_symlink() or not (out_dir / MARKER).is_file():
            return None
        folder = prelink_dir(out_dir, os.getpid())
        pid = fork_helper(functools.partial(link_outputs, sorted(manifest.outputs), out_dir, folder))
        return None if pid < 0 else cls(manifest, out_dir, pid, folder)

    def take(self, manifest: Manifest | None, out_dir: Path, staging: Path) -> bool:
        """Wait for the helper; if it linked ``manifest`` (the one read under the lock) from
        ``out_dir``, rename its folder to ``staging`` (which must not exist) and return True."""
        if manifest != self.manifest or out_dir != self.out_dir or not self._wait() \
                or self.folder.is_symlink() or not self.folder.is_dir():
            return False
        os.rename(self.folder, staging)
        self.size, self.skipped = _report(staging / REPORT)
        log.debug("staging: the last build's files linked meanwhile by a helper process")
        return True

    def stop(self) -> None:
        """Kill the helper if it still runs, and remove its folder (links only) if not taken."""
        stop_helper(self.pid)
        self.pid = -1
        _remove(self.folder)

    def _wait(self) -> bool:
        """Whether the helper finished (exit status 0); it is reaped."""
        if self.pid > 0:
            started = time.perf_counter()
            _, status = os.waitpid(self.pid, 0)
            log.debug("waited %.2f s for the staging folder's helper", time.perf_counter() - started)
            self.pid = 0 if os.waitstatus_to_exitcode(status) == 0 else -1
        return self.pid == 0


def _report(path: Path) -> tuple[SiteSize | None, frozenset[str]]:
    """The helper's REPORT, removed: (the files and bytes it left, the outputs it did not link);
    (None, empty) when it is missing or not one (then the build walks the whole folder)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None, frozenset()
    path.unlink()   # (never left in the output)
    try:
        data = json.loads(raw)
    except ValueError:
        return None, frozenset()
    files, size, skipped = (data.get(k) for k in ("files", "bytes", "skipped")) if isinstance(data, dict) \
        else (None, None, None)
    if type(files) is not int or type(size) is not int or not isinstance(skipped, list) \
            or not all(isinstance(rel, str) for rel in skipped):
        return None, frozenset()
    return SiteSize(files, size), frozenset(skipped)


def prune(staging: Path, manifest: Manifest, reused: set[str]) -> tuple[SiteSize, set[str]]:
    """Remove from a taken folder the last build's files that this build does not reuse (it
    makes them anew, or no longer makes them). Returns the files and bytes removed, and their
    folders (which may be left empty)."""
    files = size = 0
    folders: set[str] = set()
    for rel in manifest.outputs:
        if rel in reused:
            continue
        path = os.path.join(staging, safe_rel(rel))
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(path)
                regular = stat.S_ISREG(st.st_mode)
                files, size = files + regular, size + st.st_size * regular
                folders.add(os.path.dirname(path))
        except FileNotFoundError:
            pass
    return SiteSize(files, size), folders


class Staging:
    """The staging folder of one build: the helper's folder when it can be taken (``seed``),
    pruned of what this build does not reuse and given what it does but the helper did not link
    (``place``); then only what the build added is normalized (``normalize``), not the 9,000
    files of the last build linked there."""

    def __init__(self, prelink: Prelink | None) -> None:
        self.prelink = prelink
        self.seeded = False
        self.base: SiteSize | None = None      # what the helper's folder holds (its report), if known
        self.files: list[str] = []             # the outputs (files, or folders) linked by the build
        self.made: Sequence[Job] = ()          # the jobs it runs (a view of the plan: generator.render.jobs.split)
        self.emptied: set[str] = set()         # the folders a file was removed from

    def seed(self, manifest: Manifest | None, out_dir: Path, staging: Path) -> bool:
        """Take the helper's folder as ``staging`` if it linked ``manifest`` (``Prelink.take``)."""
        self.seeded = manifest is not None and self.prelink is not None and self.prelink.take(manifest, out_dir, staging)
        self.base = self.prelink.size if self.seeded and self.prelink is not None else None
        return self.seeded

    @property
    def missing(self) -> frozenset[str] | None:
        """The last build's outputs that the helper found no file of, when its report is known."""
        return self.prelink.skipped if self.base is not None and self.prelink is not None else None

    def place(self, staging: Path, out_dir: Path, manifest: Manifest | None, reuse: Sequence[Job],
              run: Sequence[Job]) -> None:
        """Link the ``reuse`` jobs' outputs into ``staging`` from ``out_dir`` (those the helper has
        not); remove the helper's files of other jobs (``prune``). ``run`` are the jobs to make."""
        if self.seeded and manifest is not None:   # the last build's files are in staging already
            removed, self.emptied = prune(staging, manifest, {rel for rel, _, _ in outline(reuse)})
            if self.base is not None:
                self.base = SiteSize(self.base.files - removed.files, self.base.bytes - removed.bytes)
        skipped = self.missing
        made: set[str] = set()
        for n, (rel, _, folder) in enumerate(outline(reuse)):   # (no job made for the others)
            if folder or not self.seeded or (rel in skipped if skipped is not None
                                             else not os.path.lexists(os.path.join(staging, rel))):
                link_job(reuse[n], out_dir, staging, made)
                self.files.append(rel)
        self.made = run

    @contextlib.contextmanager
    def skeleton(self, out_dir: Path, planned: Sequence[Job], workers: int) -> Iterator[None]:
        """Around a first build (no ``out_dir`` yet): its folders made meanwhile (``Skeleton``),
        kept as the spare when the body (the whole build) succeeds, else removed."""
        made = Skeleton.start(out_dir, [j.rel_path for j in planned if not j.folder], workers) \
            if self.prelink is None else None
        try:
            yield
        except BaseException:
            if made is not None:
                made.stop()
            raise
        if made is not None:
            made.finish(out_dir)

    def normalize(self, planned: Sequence[Job], staging: Path) -> SiteSize:
        """``output.normalize_tree`` of ``staging`` once every job has run, walking only what the
        build added to the helper's folder when its report is known."""
        listed = [(rel, folder) for rel, _, folder in outline(planned) if folder or rel.startswith("static/")]
        folders = {rel for rel, folder in listed if folder}
        if self.base is None or any(rel.startswith("static/") for rel, _ in listed):
            return normalize_tree(staging)   # (write_static's files are walked as a folder below)
        added = itertools.chain(self.files, (j.rel_path for j in self.made))
        return normalize_added(staging, self.base, [f for f in added if f not in folders],
                               ["static", *sorted(folders)], self.emptied)


class Skeleton:
    """A first build's folders (no ``output/`` yet), made by a small process (not a fork: it
    would count the build's memory again) while the build renders, kept as the spare once the
    build is in place, so that the next build's helper links into folders that exist (else it
    made 6,000 at 1,000 x 100: 0.6 s). Only an accelerator: a failed build keeps nothing of it."""

    def __init__(self, proc: subprocess.Popen[bytes], folder: Path) -> None:
        self.proc, self.folder = proc, folder

    @classmethod
    def start(cls, out_dir: Path, files: list[str], workers: int) -> Skeleton | None:
        """Start the process for a first build with a core to spare (``files``: its files' paths)."""
        if workers < 2 or os.path.lexists(out_dir) or os.path.lexists(spare_dir(out_dir)):
            return None
        folder = prelink_dir(out_dir, os.getpid())   # (a build with no output has no Prelink)
        folders = sorted({os.path.dirname(safe_rel(rel)) for rel in files} - {""})
        try:
            with tempfile.TemporaryFile() as listing:
                listing.write("\0".join([str(folder), *folders]).encode())
                listing.seek(0)
                proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _MAKE_FOLDERS], stdin=listing,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, umask=0o022)
        except OSError:
            return None
        return cls(proc, folder)

    def finish(self, out_dir: Path) -> None:
        """Once the build is in place: the folders made so far become the spare (the process is
        stopped if it is not done; the next build's helper makes the others)."""
        self._halt()
        spare = spare_dir(out_dir)
        if not os.path.lexists(spare) and self.folder.is_dir() and not self.folder.is_symlink():
            try:
                spare.parent.mkdir(exist_ok=True)
                os.rename(self.folder, spare)
            except OSError:   # only the next build's folders are lost
                pass
        _remove(self.folder)

    def stop(self) -> None:
        """Stop the process if it still runs, and remove its folder."""
        self._halt()
        _remove(self.folder)

    def _halt(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def _remove(folder: Path) -> None:
    """Remove a helper's folder (never through a link planted there)."""
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder, ignore_errors=True)


# The process's work: the folder named first on its input, then each named after it, in it. (At the lowest
# priority a cold build's render processes starved it, and the next helper made the rest: 0.6 s more CPU.)
_MAKE_FOLDERS = """import os, sys
top, *rels = sys.stdin.buffer.read().split(b"\\0")
os.mkdir(top, 0o755)
for rel in rels:
    os.makedirs(os.path.join(top, rel), 0o755, exist_ok=True)
"""
