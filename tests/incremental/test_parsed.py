"""The parsed-input cache (generator.incremental.parsed): a rebuild parses only the files whose bytes are
new; a damaged, truncated, foreign or other-version entry is ignored and made again, never
trusted and never an error; the build's output does not depend on it."""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

import pytest
from test_jobs import synthetic_site, tree

from generator.incremental import parsed as parsed_mod
from generator.build import build
from generator.config import load_site
from generator.incremental.parsed import ParsedInputs, entries, parsed_dir
from generator.store.reader import read_all


def _read(root: Path) -> tuple[ParsedInputs, object]:
    p = ParsedInputs(root)
    config = load_site(root, parsed=p)
    store = read_all(config, parsed=p)
    return p, (config.authors, {k: v.records for k, v in store.entries.items()}, dict(store.unreadable))


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    return synthetic_site(tmp_path / "syn", authors=8, records=5)


def test_a_second_read_parses_only_the_changed_file_and_gives_the_same_values(site: Path) -> None:
    first, plain = _read(site)
    assert (first.hits, first.misses) == (0, 16)      # 8 author files, 8 cache files
    again, cached = _read(site)
    assert (again.hits, again.misses) == (16, 0)
    assert cached == plain
    author = site / "content/authors/a003.yaml"
    author.write_text(author.read_text() + "affiliation: Elsewhere\n")
    third, _ = _read(site)
    assert (third.hits, third.misses) == (15, 1)


def test_damaged_entries_are_ignored_and_made_again(site: Path) -> None:
    _, plain = _read(site)
    files = entries(site)
    assert len(files) == 16
    blobs = [f.read_bytes() for f in files]
    files[0].write_bytes(blobs[0][: len(blobs[0]) // 2])                   # truncated
    files[1].write_bytes(blobs[1][:-1] + bytes([blobs[1][-1] ^ 1]))        # one bit flipped in the payload
    files[2].write_bytes(blobs[3])                                         # another input's entry, valid checksum
    files[4].write_bytes(b"")                                              # empty
    files[5].write_bytes(os.urandom(200))                                  # garbage
    # a well-formed entry (right key and checksum) whose pickle is broken
    key = bytes.fromhex(files[6].name)
    payload = b"\x80\x05not a pickle"
    files[6].write_bytes(parsed_mod._MAGIC + key + hashlib.sha256(payload).digest() + payload)
    p, again = _read(site)
    assert again == plain
    assert p.misses == 6 and p.hits == 10
    assert [f.read_bytes() for f in entries(site)] == blobs, "each damaged entry was written anew"


def test_entries_of_another_version_are_never_read_and_are_pruned(site: Path) -> None:
    _, plain = _read(site)
    current = ParsedInputs(site).dir
    # the same keys under another version's folder, holding other values: must not be read
    other = parsed_dir(site) / "v0-0000000000000000"
    for f in entries(site):
        payload = pickle.dumps(("not", "this"))
        dest = other / f.parent.name / f.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(parsed_mod._MAGIC + bytes.fromhex(f.name) + hashlib.sha256(payload).digest() + payload)
    for f in entries(site):
        if f.is_relative_to(current):
            f.unlink()
    p, again = _read(site)
    assert again == plain and p.hits == 0
    p.prune()
    assert not other.exists()
    assert all(f.is_relative_to(current) for f in entries(site))


def test_the_build_output_does_not_depend_on_the_cache(site: Path, tmp_path: Path) -> None:
    build(site, out_dir=tmp_path / "a", search=False, workers=1)
    # every entry damaged: the next build parses again and gives the same bytes
    for f in entries(site):
        f.write_bytes(b"authorsite-parsed\0" + b"\0" * 80)
    build(site, out_dir=tmp_path / "b", search=False, workers=1)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    # deleted: safe
    import shutil

    shutil.rmtree(parsed_dir(site))
    build(site, out_dir=tmp_path / "c", search=False, workers=1)
    assert tree(tmp_path / "c") == tree(tmp_path / "a")
    # a stale entry (an author file that no longer has those bytes, and that author as assembled
    # from them) is pruned after a build; the build keeps no parsed cache file (generator.incremental.snapshot:
    # the assembled author is kept instead)
    author = site / "content/authors/a001.yaml"
    before = {f.name for f in entries(site)}
    author.write_text(author.read_text() + "affiliation: Pruned\n")
    build(site, out_dir=tmp_path / "d", search=False, workers=1)
    after = {f.name for f in entries(site)}
    authors = len(load_site(site).authors)
    # author file, assembled author and its records (not its cache file); the job digests; the
    # subjects' order, who lists each record and the newest; the subjects' job digests, the
    # authors' digests per subject, and the feeds' entry ids (generator.incremental.feed_kept)
    assert len(before) == 3 * authors + 6
    # its new file, self and records, for the old three (the order of records is the same: the
    # same entries; the subjects' jobs and the feeds' ids are too, no record being changed)
    assert len(before & after) == 3 * authors + 3 and len(after - before) == 3


def test_an_unwritable_cache_folder_never_fails_a_build(site: Path, tmp_path: Path) -> None:
    (site / ".authorsite").mkdir(exist_ok=True)
    parsed_dir(site).write_text("a file where the folder should be")
    res = build(site, out_dir=tmp_path / "out", search=False, workers=1)
    assert res.files > 0
