"""The previous build kept as the next staging folder (output.spare_dir) and the staging folder
a helper links while a rebuild loads (generator.incremental.prelink): a build seeded from either gives a
clean build's bytes, never writes through a link into the live output, and what is not ours is
never followed."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from test_jobs import assert_same_as_clean, synthetic_site

from generator.render import jobs
from generator.build import build
from generator.core.errors import SiteError
from generator.write.output import spare_dir
from generator.incremental.prelink import Prelink, clear_stale, prelink_dir
from generator.write.sitesize import measure


def _files(top: Path) -> list[str]:
    return [os.path.join(d, n) for d, _, names in os.walk(top) for n in names]


def _edit(root: Path, old: str, new: str) -> None:
    author = root / "content/authors/a002.yaml"
    text = author.read_text()
    author.write_text(text.replace(old, new) if old else text + new)


@pytest.mark.parametrize("workers", [1, 2], ids=["inline", "prelinked"])
def test_a_build_seeded_from_the_spare_gives_a_clean_build(tmp_path: Path, workers: int) -> None:
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    build(root, workers=workers)
    spare = spare_dir(root / "output")
    assert not (spare.exists() and _files(spare)), "a first build has no previous build to keep"
    assert workers == 2 or not spare.exists(), "its folders are kept for the next only by a second process"
    _edit(root, "", "affiliation: Elsewhere\n")
    build(root, workers=workers)
    assert spare.is_dir() and _files(spare), "the build before the last is kept as it was swapped out"
    # what the spare may hold by the next build: folders where this build has a file, or that it
    # leaves empty; files that are not the live build's (another's bytes at a reused path, strays)
    (spare / "index.html").unlink()
    (spare / "index.html" / "deep").mkdir(parents=True)
    (spare / "authors" / "gone" / "deeper").mkdir(parents=True)
    (spare / "authors" / "gone" / "stray.html").write_text("not ours")
    reused = spare / "subjects" / "cs.CL" / "index.html"
    reused.unlink()
    reused.write_text("stale bytes at the path of a reused page")
    os.symlink(root / "output" / "index.html", spare / "authors" / "planted.html")
    os.chmod(spare / "authors", 0o700)                         # (a folder the walk must open up)
    os.chmod(root / "output" / "subjects" / "index.html", 0o600)   # (a live file kept through its link)
    _edit(root, "Elsewhere", "Somewhere")
    res = build(root, workers=workers)
    assert (root / "output/index.html").is_file() and not (root / "output/authors/gone").exists()
    assert res.size == measure(root / "output"), "the size the build saw is the output's"
    assert _walk_modes(root / "output") == ({"0o755"}, {"0o644"}, [])
    assert_same_as_clean(root, tmp_path, f"spare-{workers}")


@pytest.mark.parametrize("workers", [1, 2], ids=["inline", "prelinked"])
def test_a_rebuild_never_writes_through_a_link_into_the_last_build(tmp_path: Path, workers: int) -> None:
    """Every file of the live output keeps its bytes while a rebuild that changes most pages
    runs: each file it makes is a new file, whatever the staging folder held."""
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    build(root, workers=workers)
    _edit(root, "", "affiliation: Elsewhere\n")
    build(root, workers=workers)          # now the spare holds links of the live files
    snap = tmp_path / "snap"
    before = {}
    for path in _files(root / "output"):
        rel = os.path.relpath(path, root / "output")
        (snap / rel).parent.mkdir(parents=True, exist_ok=True)
        os.link(path, snap / rel)         # the live file itself, by another name
        before[rel] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    (root / "site.yaml").write_text((root / "site.yaml").read_text().replace("title: Synthetic", "title: Other"))
    res = build(root, workers=workers)
    assert res.rendered > len(before) // 2
    changed = [rel for rel, digest in before.items()
               if hashlib.sha256((snap / rel).read_bytes()).hexdigest() != digest]
    assert changed == [], f"the rebuild wrote into the last build's files: {changed[:5]}"
    shutil.rmtree(snap)   # this test's own links (what a rebuild reuses, the search index's files, is linked)
    assert_same_as_clean(root, tmp_path, f"links-{workers}")


def test_the_helper_links_the_last_build_and_is_taken_only_for_its_manifest(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=4, records=3)
    build(root, workers=1)
    out = (root / "output").resolve()
    manifest = jobs.Manifest.read(jobs.manifest_path(root, out))
    assert manifest is not None
    pre = Prelink.start(root, out, workers=2)
    assert pre is not None
    staging = tmp_path / "staging"
    try:
        other = jobs.Manifest(manifest.inputs, {**manifest.outputs, "index.html": "0" * 32})
        assert not pre.take(other, out, staging), "linked for another manifest"
        assert not staging.exists()
    finally:
        pre.stop()
    assert not pre.folder.exists(), "a folder not taken is removed"
    pre = Prelink.start(root, out, workers=2)
    assert pre is not None
    try:
        assert pre.take(manifest, out, staging)
        linked = sorted(os.path.relpath(p, staging) for p in _files(staging))
        files = sorted(rel for rel in manifest.outputs if (out / rel).is_file())
        assert linked == files, "every file of the manifest, and no other"
        assert all(os.path.samefile(staging / rel, out / rel) for rel in files)
    finally:
        pre.stop()
    assert staging.is_dir(), "a folder taken is the build's, not the helper's"


def test_a_helper_is_only_started_on_a_rebuild_with_a_core_to_spare(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=3, records=2)
    out = (root / "output").resolve()
    assert Prelink.start(root, out, workers=2) is None, "no previous build"
    build(root, workers=1)
    assert Prelink.start(root, out, workers=1) is None, "one process: the build links its files itself"


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_folders_of_builds_killed_outright_are_removed_and_others_are_not(tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.mkdir()
    dead, gone = _dead_pid(), _dead_pid()
    stale, running = prelink_dir(out, dead), prelink_dir(out, os.getpid())
    for folder in (stale, running):
        (folder / "authors").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = prelink_dir(out, gone)
    planted.symlink_to(outside, target_is_directory=True)
    clear_stale(out)
    assert not stale.exists() and running.is_dir()
    assert outside.is_dir() and not planted.is_symlink(), "a planted link is removed, never followed"


def test_a_spare_that_is_a_link_is_removed_not_followed(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=3, records=2)
    build(root, search=False, workers=1)
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    spare_dir(root / "output").symlink_to(outside, target_is_directory=True)
    _edit(root, "", "affiliation: Elsewhere\n")
    build(root, search=False, workers=2)
    assert (outside / "keep").is_dir() and not spare_dir(root / "output").is_symlink()


def _walk_modes(top: Path) -> tuple[set[str], set[str], list[str]]:
    """(modes of the folders, modes of the files, the empty folders) under ``top``."""
    dirs, files, empty = set(), set(), []
    for d, subdirs, names in os.walk(top):
        dirs.add(oct(os.lstat(d).st_mode & 0o777))
        files |= {oct(os.lstat(os.path.join(d, n)).st_mode & 0o777) for n in names}
        if not subdirs and not names:
            empty.append(d)
    return dirs, files, empty


def test_a_prelinked_rebuild_normalizes_what_it_adds_and_reports_the_whole_output(tmp_path: Path) -> None:
    """The helper normalizes the folder it links and reports its size; the build walks only what
    it adds. Whatever the umask, an author removed, a live file whose mode was changed: the
    output is a clean build's, its folders 0755, its files 0644, no folder left empty, and the
    size the build reports is the output's."""
    root = synthetic_site(tmp_path / "syn", authors=6, records=4)
    build(root, workers=2)
    _edit(root, "", "affiliation: Elsewhere\n")
    build(root, workers=2)   # the spare now seeds the helper's folder
    gone = sorted((root / "content/authors").iterdir())[-1]
    gone.unlink()
    res = build(root, workers=2)
    assert not (root / "output/authors" / gone.stem).exists()
    assert _walk_modes(root / "output")[2] == [] and res.size == measure(root / "output")
    os.chmod(root / "output/subjects/index.html", 0o600)   # the live file, which the rebuild links
    old = os.umask(0o077)
    try:
        _edit(root, "Elsewhere", "Somewhere")
        res = build(root, workers=2)
    finally:
        os.umask(old)
    assert res.reused > 0 and res.rendered > 0
    assert _walk_modes(root / "output") == ({"0o755"}, {"0o644"}, [])
    assert res.size == measure(root / "output")
    assert not list((root / "output").rglob(".authorsite-prelinked*")), "the helper's report is not published"
    assert_same_as_clean(root, tmp_path, "normalized")


@pytest.mark.parametrize("report", [b"{not json", b'{"files": "9", "bytes": 1, "skipped": []}', None],
                         ids=["torn", "wrong-type", "missing"])
def test_a_helper_report_that_cannot_be_read_costs_a_walk_of_the_whole_folder(
        tmp_path: Path, report: bytes | None, monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.incremental import prelink

    real = prelink.link_outputs

    def damaged(outputs: list[str], out_dir: Path, folder: Path) -> None:
        real(outputs, out_dir, folder)
        if report is None:
            (folder / prelink.REPORT).unlink()
        else:
            (folder / prelink.REPORT).write_bytes(report)

    root = synthetic_site(tmp_path / "syn", authors=5, records=3)
    build(root, workers=2)
    monkeypatch.setattr(prelink, "link_outputs", damaged)
    _edit(root, "", "affiliation: Elsewhere\n")
    res = build(root, workers=2)
    assert res.reused > 0 and res.size == measure(root / "output")
    assert not list((root / "output").rglob(".authorsite-prelinked*"))
    assert_same_as_clean(root, tmp_path, "report")


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_the_first_rebuild_links_a_new_folder_normalized_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    """No spare yet: the helper makes every folder itself, and walks them only when the umask
    may have made them other than 0755."""
    root = synthetic_site(tmp_path / "syn", authors=5, records=3)
    build(root, workers=2)
    shutil.rmtree(spare_dir(root / "output"), ignore_errors=True)   # (the first build's folders: prelink.Skeleton)
    os.chmod(root / "output/subjects/index.html", 0o600)
    old = os.umask(umask)
    try:
        _edit(root, "", "affiliation: Elsewhere\n")
        res = build(root, workers=2)
    finally:
        os.umask(old)
    assert res.reused > 0 and res.size == measure(root / "output")
    assert _walk_modes(root / "output") == ({"0o755"}, {"0o644"}, [])
    assert_same_as_clean(root, tmp_path, f"umask-{umask:o}")


def test_a_first_build_keeps_its_folders_as_the_spare_of_the_next(tmp_path: Path) -> None:
    """A first build (no output yet) has a small process make its folders while it renders (at
    the lowest priority: on a busy machine it may not be done, and what it made is kept); they
    are the next build's spare, which that build's helper fills."""
    from generator.incremental.prelink import Skeleton

    out = tmp_path / "site" / "output"
    out.parent.mkdir()
    files = ["index.html", "authors/a/index.html", "authors/a/feed.xml", "subjects/cs.CL/page/2/index.html"]
    made = Skeleton.start(out, files, workers=2)
    assert made is not None and Skeleton.start(out, files, workers=1) is None, "only with a core to spare"
    made.proc.wait()
    out.mkdir()   # the build, in place
    made.finish(out)
    spare = spare_dir(out)
    assert sorted(os.path.relpath(d, spare) for d, _, _ in os.walk(spare)) == [
        ".", "authors", "authors/a", "subjects", "subjects/cs.CL", "subjects/cs.CL/page", "subjects/cs.CL/page/2"]
    assert _files(spare) == [] and _walk_modes(spare)[0] == {"0o755"}
    assert not made.folder.exists() and Skeleton.start(out, files, workers=2) is None, "not beside an output"

    root = synthetic_site(tmp_path / "syn", authors=5, records=3)
    build(root, workers=2)
    spare = spare_dir(root / "output")
    assert _files(spare) == [] and not list(tmp_path.glob("syn/.output.authorsite-prelink-*")), "nothing else"
    _edit(root, "", "affiliation: Elsewhere\n")
    res = build(root, workers=2)
    assert res.reused > 0 and res.size == measure(root / "output")
    assert_same_as_clean(root, tmp_path, "skeleton")


def test_a_failed_first_build_leaves_no_folders_behind(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "syn", authors=5, records=3)
    (root / "templates").mkdir()
    (root / "templates/404.html").write_text("{{ undefined_function() }}")
    with pytest.raises(SiteError):
        build(root, workers=2)
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".output")) == []


@pytest.mark.parametrize("workers", [1, 2], ids=["inline", "prelinked"])
def test_an_output_removed_by_hand_is_made_again_by_the_next_build(tmp_path: Path, workers: int) -> None:
    """A job whose digest is unchanged is reused only if its output is there: the helper's
    report says which it did not find (``jobs.split``), and a folder output is looked for."""
    root = synthetic_site(tmp_path / "syn", authors=5, records=3)
    build(root, workers=workers)
    _edit(root, "", "affiliation: Elsewhere\n")
    build(root, workers=workers)
    page = root / "output/subjects/index.html"
    page.unlink()
    shutil.rmtree(root / "output/search")
    _edit(root, "Elsewhere", "Somewhere")
    res = build(root, workers=workers)
    assert page.is_file() and (root / "output/search").is_dir() and res.reused > 0
    assert_same_as_clean(root, tmp_path, f"removed-{workers}")
