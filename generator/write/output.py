"""Write a built site so that ``output/`` is always a complete build.

Files are written into a sibling staging folder, then swapped with the live folder
in one ``renameat2(RENAME_EXCHANGE)`` where the kernel and file system allow it
(else two renames, and the next run repairs the gap if a crash fell between them).
A failed build therefore leaves the previous ``output/`` untouched. A lock file
refuses a second build running at the same time. Modes are 0644/0755 as GitHub
Pages expects; no path is written twice (the cheapest guard against two pages
colliding, as in Pelican's writer).

Folders are what a swap costs on a large site: making and removing a folder costs a
fiftieth of a second's worth of a file's hard link on ext4 (about 0.5 ms each, against
10 us), and a site of 1,000 authors has 6,000 of them. So the previous build's tree, once
swapped out, is kept as the next build's staging folder (``spare_dir``, in the site's
``.authorsite/``), and the next build removes its files before writing into it (``empty``; or
generator.incremental.prelink keeps those that are hard links of the live build's files, which it would
link again); folders the new build leaves empty are removed before the swap (a clean build has
none). So a build seeded from the spare writes exactly what a build into a new folder writes.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import stat
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from generator.core.errors import EXIT_OUTPUT, SiteError
from generator.core.paths import legacy_spare_dir, old_dir, spare_dir, staging_dir
from generator.write.sitesize import SiteSize

MARKER = ".nojekyll"      # present in every build: how we recognise a folder we made
_RENAME_EXCHANGE = 2


def index_scratch_dir(out_dir: Path) -> Path:
    """Where earlier builds made a rebuild's search index ahead (an accelerator dropped: it
    saved nothing measurable); ``clean`` removes what an interrupted build of theirs left."""
    return out_dir.with_name(f".{out_dir.name}.authorsite-index")


def recover(out_dir: Path) -> None:
    """Repair what an interrupted earlier run left: a missing output with a kept old one,
    and stale staging/old folders."""
    old = old_dir(out_dir)
    if not out_dir.exists() and not out_dir.is_symlink() and old.is_dir() and not old.is_symlink():
        os.rename(old, out_dir)
    for stale in (staging_dir(out_dir), old):
        if stale.is_symlink() or stale.is_file():   # planted, or not ours: never follow it
            stale.unlink()
        elif stale.exists():
            shutil.rmtree(stale)
    spare = spare_dir(out_dir)
    if spare.is_symlink() or (spare.exists() and not spare.is_dir()):
        spare.unlink()
    legacy = legacy_spare_dir(out_dir)
    if legacy != spare and os.path.lexists(legacy):   # an earlier version's: no longer used
        if legacy.is_dir() and not legacy.is_symlink():
            shutil.rmtree(legacy, ignore_errors=True)
        else:
            legacy.unlink()


def check_output_dir(out_dir: Path, site_root: Path | None = None) -> None:
    """Refuse to replace something that is not a folder we generated (nor the site itself)."""
    resolved = out_dir.resolve()
    if site_root is not None:
        root = site_root.resolve()
        if resolved == root or resolved in root.parents:
            raise SiteError("the output folder cannot be the site folder or one of its parents",
                            path=str(out_dir), hint="use a new folder such as output/", exit_code=EXIT_OUTPUT)
    if (out_dir / "site.yaml").exists() or (out_dir / ".git").exists() or resolved == Path.home().resolve():
        raise SiteError("the output folder looks like a site or a repository, not a build",
                        path=str(out_dir), hint="use a new folder such as output/", exit_code=EXIT_OUTPUT)
    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        raise SiteError("output path exists and is not a folder", path=str(out_dir),
                        hint="move it away or set output_dir in site.yaml", exit_code=EXIT_OUTPUT)
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / MARKER).exists():
        raise SiteError("output folder holds files that authorsite did not build", path=str(out_dir),
                        hint="empty it, or choose another output_dir in site.yaml", exit_code=EXIT_OUTPUT)
    parent = out_dir.parent
    if not parent.is_dir():
        raise SiteError("the folder that should hold the output folder does not exist (or is a file)",
                        path=str(parent), exit_code=EXIT_OUTPUT)
    if not os.access(parent, os.W_OK):
        raise SiteError("cannot write next to the output folder", path=str(parent), exit_code=EXIT_OUTPUT)


def write_static(static_dirs: Iterable[Path], dest: Path) -> int:
    """Copy static assets into ``dest/static`` (lowest layer first, so higher layers win)."""
    total = 0
    for layer in static_dirs:
        for src in sorted(layer.rglob("*")):
            rel = src.relative_to(layer)
            if src.is_symlink() or any(part.startswith(".") for part in rel.parts) or not src.is_file():
                continue
            target = dest / "static" / rel
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            target.unlink(missing_ok=True)   # never written through a link to the last build's file
            shutil.copyfile(src, target)
            os.chmod(target, 0o644)
            total += target.stat().st_size
    return total


def write_file(dest: Path, rel_path: str, data: bytes | Iterable[bytes]) -> int:
    """Write one generated file under ``dest`` (mode 0644), given whole or in pieces; return its
    size. (A file given in pieces may be left part-written if making a piece fails: ``dest`` is
    the staging folder, which a failed build never swaps in.)"""
    target = dest / safe_rel(rel_path)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    try:
        os.unlink(target)         # a new file, never one written through a link to the last build's
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        clear_spare(target)       # a folder of the spare where this build has a file
    fh = open(target, "wb")       # noqa: SIM115 - closed below
    with fh:
        if isinstance(data, bytes):
            fh.write(data)
            size = len(data)
        else:
            size = 0
            for piece in data:
                fh.write(piece)
                size += len(piece)
    os.chmod(target, 0o644)
    return size


def clear_spare(path: Path) -> None:
    """Remove the folder the spare left at ``path`` in staging, where this build makes a file or
    a folder task's own folder. Only folders without a file: anything else is this build's, and
    what it writes next fails as it would have."""
    if path.is_dir() and not path.is_symlink() and not any(files for _, _, files in os.walk(path)):
        shutil.rmtree(path)


def safe_rel(rel_path: str) -> str:
    p = PurePosixPath(rel_path)
    if p.is_absolute() or any(part in ("..", "") for part in p.parts) or "\\" in rel_path or "\0" in rel_path:
        raise SiteError(f"refusing to write outside the output folder: {rel_path!r}")
    return p.as_posix()


def normalize_tree(root: Path) -> SiteSize:
    """Give every folder 0755 and every file 0644 whatever the umask (and whatever a task
    created), remove the folders left empty (a staging folder seeded from the spare holds the
    previous build's folders), and refuse anything that is not a plain file or folder (GitHub
    Pages rejects symlinks and unreadable files). Returns the files and bytes it holds (one
    ``lstat`` a file: what ``sitesize.measure`` would walk the tree again for)."""
    os.chmod(root, 0o755)
    files, size, _ = _normalize_dir(root, str(root))
    return SiteSize(files, size)


def normalize_added(root: Path, base: SiteSize, files: Iterable[str], folders: Iterable[str],
                    emptied: Iterable[str]) -> SiteSize:
    """``normalize_tree`` for a tree of which only some paths are not normalized: ``base`` (the
    files and bytes of what is), the ``files`` and ``folders`` (relative paths; the folders'
    whole trees) added to it since, and the folders ``emptied`` of some files (absolute paths:
    each is removed if left empty, and so are its parents). The folders above what was added are
    given 0755. Returns the files and bytes the whole tree holds."""
    os.chmod(root, 0o755)
    top, count, size, seen = str(root), base.files, base.bytes, {str(root)}
    for rel in files:
        path = os.path.join(top, rel)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        _check_file(root, path, st)
        count, size = count + 1, size + st.st_size
        _open_parents(path, seen)
    for rel in folders:
        path = os.path.join(top, rel)
        if not os.path.isdir(path) or os.path.islink(path):
            continue
        _open_parents(path, seen)
        os.chmod(path, 0o755)
        f, b, empty = _normalize_dir(root, path)
        if empty:
            os.rmdir(path)
        count, size = count + f, size + b
    for path in sorted(emptied, key=len, reverse=True):   # the deepest first
        while path != top and path.startswith(top + os.sep) and _empty_dir(path):
            os.rmdir(path)
            path = os.path.dirname(path)
    return SiteSize(count, size)


def _check_file(root: Path, path: str, st: os.stat_result) -> None:
    """A plain file of mode 0644, else a SiteError (GitHub Pages refuses links)."""
    if not stat.S_ISREG(st.st_mode):
        rel = os.path.relpath(path, root)
        raise SiteError(f"the build produced '{rel}', which is not a plain file or folder "
                        "(a symbolic link?); GitHub Pages refuses those", exit_code=EXIT_OUTPUT)
    if stat.S_IMODE(st.st_mode) != 0o644:
        os.chmod(path, 0o644)


def _open_parents(path: str, seen: set[str]) -> None:
    """Give 0755 to each folder above ``path`` up to one in ``seen`` (made with the umask)."""
    parent = os.path.dirname(path)
    while parent not in seen:
        seen.add(parent)
        if stat.S_IMODE(os.lstat(parent).st_mode) != 0o755:
            os.chmod(parent, 0o755)
        parent = os.path.dirname(parent)


def _empty_dir(path: str) -> bool:
    try:
        with os.scandir(path) as it:
            return next(it, None) is None and not os.path.islink(path)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _normalize_dir(root: Path, path: str) -> tuple[int, int, bool]:
    """(files, bytes, whether it is left empty) of the folder at ``path``, normalized."""
    files = size = kept = 0
    with os.scandir(path) as it:
        found = list(it)
    for entry in found:
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            if stat.S_IMODE(st.st_mode) != 0o755:
                os.chmod(entry.path, 0o755)   # before listing it: a task may have made it unreadable
            f, b, empty = _normalize_dir(root, entry.path)
            if empty:
                os.rmdir(entry.path)
                continue
            files, size = files + f, size + b
        else:   # (hard links to the previous build's files are fine)
            _check_file(root, entry.path, st)
            files, size = files + 1, size + st.st_size
        kept += 1
    return files, size, kept == 0


def _keep_folders(tree: Path, spare: Path) -> None:
    """Keep ``tree`` (the previous build, swapped out) as the spare: the next build's staging
    folder. Its files are removed by the next build (``empty``, or generator.incremental.prelink, which
    keeps those that are the live build's own files), off this build's path: removing 9,000
    files took 0.4-0.7 s at 1,000 authors. The new build is in place already: a failure here
    only costs the next build its folders."""
    try:
        shutil.rmtree(spare, ignore_errors=True)
        spare.parent.mkdir(exist_ok=True)
        os.rename(tree, spare)
    except OSError:
        shutil.rmtree(tree, ignore_errors=True)


def empty(tree: str, keep: set[str] | None = None) -> None:
    """Remove every file of ``tree`` (but those in ``keep``), and every link, keeping its folders."""
    for dirpath, dirnames, filenames in os.walk(tree):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if keep is None or path not in keep:
                os.unlink(path)
        for name in dirnames:
            if os.path.islink(os.path.join(dirpath, name)):
                os.unlink(os.path.join(dirpath, name))


def _new_staging(staging: Path, spare: Path) -> None:
    """The staging folder: the spare's folders when there is a spare, else a new folder."""
    if spare.is_dir() and not spare.is_symlink():
        try:
            os.rename(spare, staging)
        except FileNotFoundError:   # taken meanwhile by another build's helper (generator.incremental.prelink)
            pass
        else:
            empty(str(staging))     # the files of the build before the last
            return
    staging.mkdir(mode=0o755)


def swap_in(staging: Path, out_dir: Path) -> None:
    """Make ``staging`` the live output in one step where possible; remove the previous build."""
    if out_dir.exists():
        if _exchange(staging, out_dir):
            _keep_folders(staging, spare_dir(out_dir))  # staging now holds the previous build
            return
        old = old_dir(out_dir)
        os.rename(out_dir, old)
        os.rename(staging, out_dir)
        _keep_folders(old, spare_dir(out_dir))
    else:
        os.rename(staging, out_dir)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths with renameat2(2); False where it is not supported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    res = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if res == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def write_site(produce: Callable[[Path], int], static_dirs: Iterable[Path], out_dir: Path,
               site_root: Path | None = None, seed: Callable[[Path], bool] | None = None,
               normalize: Callable[[Path], SiteSize] = normalize_tree) -> tuple[int, SiteSize]:
    """Write a whole build into staging (``produce`` writes the generated files and the search
    index there), then swap it in; the previous build stays until then. Returns the bytes written
    and the size of the whole output. ``seed`` may make the staging folder (generator.incremental.prelink)
    and says whether it did; else it is the spare, or a new folder. ``normalize``: as
    ``normalize_tree`` (a seeded build knows which files it added: ``normalize_added``)."""
    check_output_dir(out_dir, site_root)
    recover(out_dir)
    staging = staging_dir(out_dir)
    try:
        if seed is None or not seed(staging):
            _new_staging(staging, spare_dir(out_dir))
        total = write_static(static_dirs, staging) + produce(staging)
        size = normalize(staging)
        swap_in(staging, out_dir)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SiteError(f"cannot write the site: {exc.strerror or exc}", path=exc.filename or str(out_dir),
                        hint="the previous build was left as it was", exit_code=EXIT_OUTPUT) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return total, size
