"""Output and cache writes (generator.write.output, generator.store.cache) on a hostile filesystem: battery
section D (filesystem, build and process), except the kill tests (test_output_kill).

Tests run as root, so "not writable" is made real in other ways: output/ is a regular
file, its parent is a file, the write call is fault-injected, the file size is capped
with RLIMIT_FSIZE (a write fails with EFBIG, as on a full disk) or a write goes to
/dev/full (ENOSPC). Every time: the expected exit code (4 for output and cache write
failures), one clear message naming the path, the previous output/ and content/cache/
byte-identical, no staging folder and no temporary file left.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from atomgen import corpus, feed_xml
from batterykit import (
    assert_one_clear_report,
    leftovers,
    limits,
    make_synthetic_site,
    run_limited,
    seed_cache,
    stray_temps,
    tree_state,
    write_files,
)
from fakearxiv import Corpus
from helpers import holding_lock

from generator.core import routes
from generator.core.errors import SiteError
from generator.core.errors import EXIT_LOCKED, EXIT_OUTPUT
from generator.core.paths import lock_path

# ============================================================================ D1 output not writable


def test_d1_output_is_a_regular_file(good_site: Path) -> None:
    out = good_site / "output"
    shutil.rmtree(out)
    out.write_text("not a folder")
    cache = tree_state(good_site / "content" / "cache")
    err = assert_one_clear_report(run_limited("-C", good_site, "build"), EXIT_OUTPUT)
    assert f"{out}: output path exists and is not a folder" in err
    assert out.read_text() == "not a folder" and tree_state(good_site / "content" / "cache") == cache
    assert leftovers(out) == []


def test_d1_output_parent_is_a_regular_file(good_site: Path) -> None:
    (good_site / "afile").write_text("x")
    (good_site / "site.yaml").write_text((good_site / "site.yaml").read_text() + "output_dir: afile/out\n")
    err = assert_one_clear_report(run_limited("-C", good_site, "build"), EXIT_OUTPUT)
    assert f"{good_site / 'afile'}:" in err and "does not exist (or is a file)" in err
    assert (good_site / "afile").read_text() == "x"


def _fail_open_after(monkeypatch: pytest.MonkeyPatch, n: int, make_error) -> list[str]:  # noqa: ANN001
    """Fault-inject the output writer's ``open``: the n-th file written fails."""
    import builtins

    from generator.write import output

    calls: list[str] = []

    def fake_open(path, mode="r", *args, **kwargs):  # noqa: ANN001, ANN202
        if "w" in mode:
            calls.append(str(path))
            if len(calls) == n:
                return make_error(path, mode)
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(output, "open", fake_open, raising=False)
    return calls


def _build_fails(root: Path, code: int) -> SiteError:
    from generator.build import build

    before_out, before_cache = tree_state(root / "output"), tree_state(root / "content" / "cache")
    (root / "content" / "authors" / "ada.yaml").write_text(
        (root / "content" / "authors" / "ada.yaml").read_text().replace("Analytical", "Changed"))
    with pytest.raises(SiteError) as info:
        build(root)
    assert info.value.exit_code == code, str(info.value)
    assert tree_state(root / "output") == before_out, "output/ changed"
    assert tree_state(root / "content" / "cache") == before_cache
    assert leftovers(root / "output") == [], "staging left behind"
    return info.value


def test_d1_write_call_refused_half_way(good_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path, mode):  # noqa: ANN001, ANN202
        raise PermissionError(13, "Permission denied", str(path))

    calls = _fail_open_after(monkeypatch, 2, refuse)
    exc = _build_fails(good_site, EXIT_OUTPUT)
    assert len(calls) == 2
    assert "cannot write the site: Permission denied" in str(exc) and exc.path == calls[-1]


# ============================================================================ D2 disk full


def test_d2_file_size_limit_during_write(good_site: Path) -> None:
    """RLIMIT_FSIZE (SIGXFSZ ignored): the first page over 3,000 bytes fails with EFBIG."""
    author = good_site / "content" / "authors" / "ada.yaml"
    author.write_text(author.read_text().replace("Analytical", "Changed"))
    out, cache = tree_state(good_site / "output"), tree_state(good_site / "content" / "cache")
    run = run_limited("-C", good_site, "build", preexec=limits(file_size=3000))
    err = assert_one_clear_report(run, EXIT_OUTPUT)
    assert "cannot write the site: File too large" in err and "the previous build was left as it was" in err
    assert tree_state(good_site / "output") == out and tree_state(good_site / "content" / "cache") == cache
    assert leftovers(good_site / "output") == []
    assert run_limited("-C", good_site, "build").returncode == 0   # with room again, the build goes through


def test_d2_dev_full_during_write(good_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second file is written to /dev/full: ENOSPC when it is flushed. (The second: an
    affiliation edit re-renders only the jobs that read it, the author's page and the home page.)"""
    _fail_open_after(monkeypatch, 2, lambda path, mode: open("/dev/full", mode))  # noqa: SIM115
    exc = _build_fails(good_site, EXIT_OUTPUT)
    assert "cannot write the site: No space left on device" in str(exc)


def test_d2_disk_full_in_a_render_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With several render processes, a full disk seen by a child is still exit 4, not a traceback."""
    from generator.write import output
    from generator.build import build

    root = make_synthetic_site(tmp_path / "site", n_authors=100, per_author=5)
    build(root)
    parent = os.getpid()
    real_open = open

    def child_full(path, mode="r", *args, **kwargs):  # noqa: ANN001, ANN202
        if "w" in mode and os.getpid() != parent:
            return real_open("/dev/full", mode)
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(output, "open", child_full, raising=False)
    monkeypatch.setenv("AUTHORSITE_WORKERS", "2")
    before = tree_state(root / "output")
    # A new site title changes every page: nothing is reused, so the work is big enough to fork.
    (root / "site.yaml").write_text((root / "site.yaml").read_text().replace("Synthetic site", "Changed site"))
    try:
        with pytest.raises(SiteError) as info:
            build(root)
        assert info.value.exit_code == EXIT_OUTPUT
    finally:
        assert tree_state(root / "output") == before and leftovers(root / "output") == []


JANE = "name: Jane Doe\nsources:\n  - arxiv: 'au:\"Jane Doe\"'\n"


def _fetch_site(root: Path, api: str) -> Path:
    from fetchkit import write_site

    return write_site(root, {"jane-doe": JANE}, api=api, delay=0.05, retries=0)


def _seed_jane(root: Path) -> Path:
    from generator.sources import arxiv

    records = list(arxiv.parse_page(feed_xml(corpus(3), total=3)).records)
    return seed_cache(root, "jane-doe", records, 'au:"Jane Doe"')


def test_d2_file_size_limit_during_a_cache_write(arxiv_server, tmp_path: Path) -> None:
    s = arxiv_server(Corpus(corpus(6)))
    root = _fetch_site(tmp_path / "site", s.url)
    path = _seed_jane(root)
    before = path.read_bytes()
    run = run_limited("-C", root, "fetch", preexec=limits(file_size=len(before)))
    err = assert_one_clear_report(run, EXIT_OUTPUT)
    assert "cannot write the cache file: File too large" in err and "content/cache/jane-doe/" in err
    assert "the previous cache file was left as it was" in err
    assert path.read_bytes() == before and stray_temps(root / "content" / "cache") == []
    assert len(s.hits) == 1


def test_d2_dev_full_during_a_cache_write(arxiv_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from generator.core import files
    from generator.config import load_site
    from generator.fetch.run import fetch_site

    s = arxiv_server(Corpus(corpus(6)))
    root = _fetch_site(tmp_path / "site", s.url)
    path = _seed_jane(root)
    before = path.read_bytes()
    real_mkstemp = tempfile.mkstemp

    def mkstemp_on_dev_full(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        fd, name = real_mkstemp(*args, **kwargs)
        full = os.open("/dev/full", os.O_WRONLY)
        os.dup2(full, fd)        # the temporary file exists, but its writes go to /dev/full
        os.close(full)
        return fd, name

    monkeypatch.setattr(files.tempfile, "mkstemp", mkstemp_on_dev_full)   # (the cache writes through files.atomic_write)
    with pytest.raises(SiteError) as info:
        fetch_site(load_site(root))
    assert info.value.exit_code == EXIT_OUTPUT
    assert "cannot write the cache file: No space left on device" in str(info.value)
    assert path.read_bytes() == before and stray_temps(root / "content" / "cache") == []


# ============================================================================ D5 two at once


def test_d5_build_while_another_holds_the_lock_exits_5(good_site: Path) -> None:
    author = good_site / "content" / "authors" / "ada.yaml"
    author.write_text(author.read_text().replace("Analytical", "Changed"))
    before = tree_state(good_site / "output")
    with holding_lock(lock_path(good_site)):
        err = assert_one_clear_report(run_limited("-C", good_site, "build"), EXIT_LOCKED)
    assert "another build is running for this site" in err
    assert tree_state(good_site / "output") == before and leftovers(good_site / "output") == []
    assert run_limited("-C", good_site, "build").returncode == 0


def test_d5_fetch_while_another_fetch_runs_exits_5(arxiv_server, tmp_path: Path) -> None:
    s = arxiv_server(Corpus(corpus(3)))
    root = _fetch_site(tmp_path / "site", s.url)
    with holding_lock(lock_path(root, "fetch")):
        err = assert_one_clear_report(run_limited("-C", root, "fetch"), EXIT_LOCKED)
    assert "another fetch is running for this site" in err and s.hits == []


def test_d5_three_builds_started_together(tmp_path: Path) -> None:
    """Each finishes or says another build is running; output/ is one complete build, nothing left over."""
    root = make_synthetic_site(tmp_path / "site", n_authors=60, per_author=5)
    reference = run_limited("-C", root, "build", "--output", tmp_path / "reference", timeout=60)
    assert reference.returncode == 0, reference.stderr
    procs = [subprocess.Popen([str(Path(os.sys.executable).parent / "authorsite"), "-C", str(root), "build"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    for code, err in results:
        assert code in (0, EXIT_LOCKED), err
        assert "Traceback" not in err
        if code == EXIT_LOCKED:
            assert "another build is running" in err
    assert any(code == 0 for code, _ in results)
    assert tree_state(root / "output") == tree_state(tmp_path / "reference")
    assert leftovers(root / "output") == []


# ============================================================================ D7 dangerous output paths


@pytest.mark.parametrize("where", ["site-root", "site-parent", "home", "filesystem-root", "dot", "foreign"])
def test_d7_output_path_that_must_never_be_replaced(good_site: Path, tmp_path: Path, where: str) -> None:
    home = tmp_path / "home"
    write_files(home, {".bashrc": "# mine\n", "notes/todo.txt": "keep\n"})
    foreign = tmp_path / "foreign"
    write_files(foreign, {"precious.txt": "mine\n", ".nojekyll": ""})   # even with our marker
    write_files(foreign, {".git/HEAD": "ref: refs/heads/main\n"})
    target = {"site-root": good_site, "site-parent": good_site.parent, "home": home, "filesystem-root": Path("/"),
              "dot": Path("."), "foreign": foreign}[where]
    watched = {p: tree_state(p) for p in (good_site / "content", good_site / "output", home, foreign)}
    site_yaml = (good_site / "site.yaml").read_bytes()
    run = run_limited("-C", good_site, "build", "--output", target, cwd=good_site, env={"HOME": str(home)})
    err = assert_one_clear_report(run, EXIT_OUTPUT)
    assert "output folder" in err
    assert (good_site / "site.yaml").read_bytes() == site_yaml
    for p, state in watched.items():
        assert tree_state(p) == state, f"{p} changed"
    assert not [p for p in tmp_path.rglob("*.authorsite-staging")] + [p for p in tmp_path.rglob("*.authorsite-old")]
    assert Path("/bin").is_dir()


# ============================================================================ D8 modes


@pytest.mark.parametrize("umask", [0o077, 0o000])
def test_d8_files_0644_and_folders_0755_whatever_the_umask(good_site: Path, umask: int) -> None:
    shutil.rmtree(good_site / "output")
    run = run_limited("-C", good_site, "build", preexec=limits(umask=umask))
    assert run.returncode == 0, run.stderr
    out = good_site / "output"
    assert oct(out.stat().st_mode & 0o777) == "0o755"
    wrong = [(p.relative_to(out).as_posix(), oct(p.lstat().st_mode & 0o777)) for p in out.rglob("*")
             if (p.lstat().st_mode & 0o777) != (0o755 if p.is_dir() else 0o644)]
    assert not wrong, wrong[:10]
    assert (out / routes.search_index().path / "meta.json").is_file()


# ============================================================================ D9 planted symlinks


def test_d9_symlinks_planted_in_output_are_not_followed(good_site: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_files(outside, {"secret.txt": "secret\n", "dir/file.txt": "keep\n"})
    before = tree_state(outside)
    out = good_site / "output"
    (out / "evil-dir").symlink_to(outside / "dir")
    (out / "evil.txt").symlink_to(outside / "secret.txt")
    page = out / "authors" / "ada" / "index.html"
    page.unlink()
    page.symlink_to(outside / "secret.txt")     # a build that wrote in place would overwrite the secret
    author = good_site / "content" / "authors" / "ada.yaml"
    author.write_text(author.read_text().replace("Analytical", "Changed"))
    run = run_limited("-C", good_site, "build")
    assert run.returncode == 0, run.stderr
    assert tree_state(outside) == before
    assert [p for p in out.rglob("*") if p.is_symlink()] == []
    assert "Changed" in page.read_text()


def test_d9_symlinks_in_static_folders_are_not_copied(good_site: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_files(outside, {"secret.txt": "SECRET-STATIC\n", "dir/inner.txt": "SECRET-DIR\n"})
    write_files(good_site, {"static/own.css": "body{}\n"})
    (good_site / "static" / "leak.txt").symlink_to(outside / "secret.txt")
    (good_site / "static" / "leakdir").symlink_to(outside / "dir")
    shutil.rmtree(good_site / "output")
    run = run_limited("-C", good_site, "build")
    assert run.returncode == 0, run.stderr
    out = good_site / "output"
    assert (out / "static" / "own.css").is_file()
    assert not (out / "static" / "leak.txt").exists() and not (out / "static" / "leakdir").exists()
    assert [p for p in out.rglob("*") if p.is_symlink()] == []
    assert not [p for p in out.rglob("*") if p.is_file() and b"SECRET" in p.read_bytes()]


def test_d9_symlinked_template_outside_the_site_is_not_read(good_site: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.html"
    outside.write_text('{% extends "default/author.html" %}{% block main %}SECRET-TEMPLATE{% endblock %}')
    (good_site / "templates").mkdir()
    (good_site / "templates" / "author.html").symlink_to(outside)
    run = run_limited("-C", good_site, "build")
    assert "Traceback" not in run.stderr
    pages = [p for p in (good_site / "output").rglob("*.html") if "SECRET-TEMPLATE" in p.read_text("utf-8")]
    assert not pages, pages


def test_d9_planted_staging_and_old_links_are_removed_not_followed(good_site: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_files(outside, {"a/keep.txt": "keep\n", "b/keep.txt": "keep\n"})
    before = tree_state(outside)
    out = good_site / "output"
    out.with_name("output.authorsite-staging").symlink_to(outside / "a")
    out.with_name("output.authorsite-old").symlink_to(outside / "b")
    author = good_site / "content" / "authors" / "ada.yaml"
    author.write_text(author.read_text().replace("Analytical", "Changed"))
    run = run_limited("-C", good_site, "build")
    assert run.returncode == 0, run.stderr
    assert tree_state(outside) == before and leftovers(out) == []
    assert not out.is_symlink() and "Changed" in (out / "authors/ada/index.html").read_text()
    out.with_name("output.authorsite-staging").symlink_to(outside / "a")
    run = run_limited("-C", good_site, "clean")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert tree_state(outside) == before and not out.exists() and leftovers(out) == []


def test_d9_output_that_is_a_symlink_is_refused(good_site: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_files(outside, {"keep.txt": "keep\n"})
    out = good_site / "output"
    shutil.rmtree(out)
    out.symlink_to(outside)
    run = run_limited("-C", good_site, "build")
    err = assert_one_clear_report(run, run.returncode if run.returncode in (1, EXIT_OUTPUT) else EXIT_OUTPUT)
    assert "'output_dir' must be a new folder inside the site" in err or "output path exists and is not a folder" in err
    assert sorted(tree_state(outside)) == ["keep.txt"] and out.is_symlink()
    out.unlink()
    link = tmp_path / "published"
    link.symlink_to(outside)
    err = assert_one_clear_report(run_limited("-C", good_site, "build", "--output", link), EXIT_OUTPUT)
    assert "output path exists and is not a folder" in err or "holds files that authorsite did not build" in err
    assert sorted(tree_state(outside)) == ["keep.txt"] and link.is_symlink()


# ============================================================================ D10 determinism


def test_d10_rebuild_is_byte_identical_across_processes(tmp_path: Path) -> None:
    """Other process, hash seed, time zone, locale, worker count and folder: the same bytes."""
    root = make_synthetic_site(tmp_path / "site", n_authors=40, per_author=6)
    a = run_limited("-C", root, "build", "--output", tmp_path / "a", timeout=60,
                    env={"PYTHONHASHSEED": "1", "TZ": "UTC", "AUTHORSITE_WORKERS": "1"})
    time.sleep(1.1)
    b = run_limited("-C", root, "build", "--output", tmp_path / "b", timeout=60,
                    env={"PYTHONHASHSEED": "4242", "TZ": "Pacific/Kiritimati", "LC_ALL": "C", "AUTHORSITE_WORKERS": "2"})
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    sa, sb = tree_state(tmp_path / "a"), tree_state(tmp_path / "b")
    assert sorted(sa) == sorted(sb), set(sa) ^ set(sb)
    assert [rel for rel in sa if sa[rel] != sb[rel]] == []
    for p in (tmp_path / "b").rglob("*"):
        if p.is_file() and p.suffix in (".html", ".xml", ".json", ".txt", ".bib"):
            assert str(tmp_path) not in p.read_text("utf-8"), p
