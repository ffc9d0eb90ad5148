"""The digests of a build's inputs (generator.incremental.inputs): by content always; a file whose stat is
what it was when an earlier build read it is not read again, unless it was modified too close to
that read to tell (racy), and a damaged or foreign stat cache is only a cost."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from generator.incremental.inputs import _STAT_MAGIC, _StatCache, hash_files, read_inputs


def _site(root: Path) -> Path:
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: T\n")
    for i in range(3):
        path = root / f"content/authors/a{i}.yaml"
        path.write_text(f"name: A{i}\n")
        old = time.time_ns() - 10_000_000_000
        os.utime(path, ns=(old, old))
    return root


def _reads(root: Path) -> int:
    """How many files a pass of the stat cache reads (and keeps what it read, as a build does)."""
    from generator.incremental.inputs import files_under, theme_tops

    known = _StatCache(root)
    for top in [root / "site.yaml", root / "content", *theme_tops(root)]:
        for path in files_under(top):
            assert known.digest(path) == hashlib.sha256(Path(path).read_bytes()).digest()
    known.save()
    return known.read


def test_unchanged_files_are_not_read_again_and_racy_ones_are(tmp_path: Path) -> None:
    root = _site(tmp_path)
    total = _reads(root)
    assert total > 4
    time.sleep(2.1)   # site.yaml and the theme files were modified less than 2 s before: racy then
    assert _reads(root) == 1   # site.yaml, written just before the first pass
    assert _reads(root) == 0
    author = root / "content/authors/a1.yaml"
    st = author.stat()
    author.write_text("name: B1\n")   # same size and mtime: the ctime tells
    os.utime(author, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _reads(root) == 1


def test_digests_are_of_the_contents_whatever_the_stat_cache_holds(tmp_path: Path) -> None:
    root = _site(tmp_path)
    want = read_inputs(root, {})
    cache = root / ".authorsite/inputs-stat.bin"
    assert cache.is_file()
    total = len(want.files)
    good = cache.read_bytes()
    for damaged in (good[:-5] + b"xxxxx", b"", good.replace(_STAT_MAGIC, _STAT_MAGIC.replace(b"stat", b"stAt")), good[:60]):
        cache.write_bytes(damaged)
        assert _reads(root) == total   # every file read again
        cache.write_bytes(damaged)
        assert read_inputs(root, {}) == want
    cache.unlink()
    assert read_inputs(root, {}) == want
    author = root / "content/authors/a2.yaml"
    author.write_text("name: C2\n")
    assert read_inputs(root, {}).files[str(author)] == hashlib.sha256(b"name: C2\n").digest()


def test_library_versions_are_read_from_the_installed_folders_as_importlib_metadata_reads_them(tmp_path: Path) -> None:
    import importlib.metadata
    import sys

    from generator.incremental import inputs

    first, second = tmp_path / "first", tmp_path / "second"
    for folder, names in ((first, ["PyYAML-6.0.4.dist-info", "odd-name-1.0.dist-info", "jinja2.egg-info"]),
                          (second, ["pyyaml-5.1.dist-info", "Markup_Safe-3.0.dist-info"])):
        for name in names:
            (folder / name).mkdir(parents=True)
    found = inputs._installed([str(tmp_path / "none"), str(first), str(second)])
    assert found == {"pyyaml": "6.0.4", "markup-safe": "3.0"}   # the first found wins; odd names are left to importlib
    installed = inputs._installed(sys.path)
    for name in inputs._LIBRARIES:   # what this environment has, both ways
        assert installed.get(inputs._canonical(name)) == importlib.metadata.version(name), name
    assert inputs._version("no-such-distribution-here") == "-" and inputs._version("pyyaml") == installed["pyyaml"]


def _os_walk_files(top: Path) -> list[str]:
    """The files under ``top`` as ``os.walk`` lists them (the order ``files_under`` keeps)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        out += [os.path.join(dirpath, n) for n in sorted(filenames)]
    return out


def test_the_input_files_are_those_os_walk_finds_in_its_order(tmp_path: Path) -> None:
    """``files_under`` walks with one scandir a folder; what it finds, and in what order, is
    ``os.walk``'s: links to folders listed nowhere and not followed, links to files (even broken)
    listed, ``__pycache__`` left out, upper case before lower case, a folder's files before its folders."""
    from generator.incremental.inputs import files_under

    top = tmp_path / "content"
    (top / "a/B").mkdir(parents=True)
    (top / "a/x.yaml").write_text("1")
    (top / "a/B/y.json").write_text("2")
    (top / "A.yaml").write_text("3")
    (top / "b").symlink_to(top / "a")
    (top / "c.txt").symlink_to(top / "missing")
    (top / "__pycache__").mkdir()
    (top / "__pycache__/z.pyc").write_text("")
    (top / "z").mkdir()
    found = files_under(top)
    assert found == _os_walk_files(top)
    assert [Path(p).relative_to(top).as_posix() for p in found] == ["A.yaml", "c.txt", "a/x.yaml", "a/B/y.json"]
    repo = Path(__file__).resolve().parents[2]
    for real in (repo / "generator", repo / "tests/fixtures"):
        assert files_under(real) == _os_walk_files(real)


def test_a_folder_listing_is_kept_while_the_folder_is_as_it_was(tmp_path: Path) -> None:
    """A folder's listing is taken from the stat cache while its stat is the same: a file added,
    removed or renamed is found; a folder holding a link is listed every time (the kind of what
    a link names may change without the folder changing)."""
    root = _site(tmp_path)
    authors = root / "content/authors"
    old = time.time_ns() - 10_000_000_000
    os.utime(authors, ns=(old, old))
    first = read_inputs(root, {})
    again = read_inputs(root, {})
    assert again.files == first.files
    (authors / "a9.yaml").write_text("name: A9\n")
    assert str(authors / "a9.yaml") in read_inputs(root, {}).files, "a new file is found"
    (authors / "a9.yaml").rename(authors / "b9.yaml")
    renamed = read_inputs(root, {})
    assert str(authors / "b9.yaml") in renamed.files and str(authors / "a9.yaml") not in renamed.files
    (authors / "b9.yaml").unlink()
    assert read_inputs(root, {}).files == first.files
    target = tmp_path / "elsewhere"
    target.write_text("x")
    (authors / "link.yaml").symlink_to(target)
    assert str(authors / "link.yaml") in read_inputs(root, {}).files
    target.unlink()
    target.mkdir()   # the link now names a folder: no input any more, though the folder is unchanged
    assert str(authors / "link.yaml") not in read_inputs(root, {}).files


def test_where_the_theme_is_installed_changes_no_digest(tmp_path: Path) -> None:
    """The built-in theme lives beside the package, outside the site: its files are named from the
    folder that holds it, so two checkouts of one commit (or two CI workspaces) digest alike, and
    reuse each other's jobs; a change of a file's bytes or name still tells."""
    def digest(top: Path) -> str:
        h = hashlib.sha256()
        hash_files(h, [top], tmp_path / "site")
        return h.hexdigest()

    for where in ("a/x", "b"):
        (tmp_path / where / "default" / "templates").mkdir(parents=True)
        (tmp_path / where / "default" / "templates" / "base.html").write_text("<html>", "utf-8")
    a, b = tmp_path / "a" / "x" / "default", tmp_path / "b" / "default"
    assert digest(a) == digest(b)
    (b / "templates" / "base.html").write_text("<html >", "utf-8")
    assert digest(a) != digest(b)
    (b / "templates" / "base.html").rename(b / "templates" / "page.html")
    (b / "templates" / "page.html").write_text("<html>", "utf-8")
    assert digest(a) != digest(b)
