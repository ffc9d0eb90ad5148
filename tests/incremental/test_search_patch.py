"""The rebuild's search index patched from the last one (generator.incremental.search_patch): after any
edit it is the index a clean build writes, byte for byte, and a last index that is not the
one kept, or whose files changed, is never patched from."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from pathlib import Path

import pytest
from test_jobs import synthetic_site, tree

from generator.core import routes
from generator.render import search_index
from generator.build import build
from generator.store.cache import cache_file, read_entry, write_entry
from generator.config import load_site
from generator.render.search_index import term_sets, write_terms
from generator.incremental.search_patch import Last, New, Stale, meta_digest, patch

WORDS = [f"w{n}" for n in range(60)] + ["graph", "graphs", "learning", "lemma", "zeta", "ζήτα", "straße",
                                       "SparkDiffusion", "FlashPrefill", "GPT-4", "LLMs", "ResNet50", "ΣοφίαΛόγος"]


def _doc(rng: random.Random, key: str) -> tuple[tuple, tuple]:
    title = " ".join(rng.sample(WORDS, rng.randint(1, 5)))
    other = " ".join(rng.sample(WORDS, rng.randint(0, 4)) + [key.replace(":", " ")])
    return term_sets(title, other), (f"u/{key}", title, "", "", "", "")


def _write(folder: Path, docs: dict[str, tuple], keys: list[str]) -> None:
    write_terms(folder, [docs[k][0] for k in keys], [docs[k][1] for k in keys])


def _edit(rng: random.Random, docs: dict[str, tuple], keys: list[str], serial: list[int]) -> set[str]:
    """One random edit, as builds see them; returns the keys whose document may have changed."""
    kind = rng.choice(["retitle", "retitle", "append", "insert", "remove", "row", "move", "many"])
    touched: set[str] = set()
    for _ in range(rng.randint(4, 30) if kind == "many" else 1):
        if kind in ("retitle", "many") and keys:
            k = rng.choice(keys)
            docs[k] = _doc(rng, k)
        elif kind == "row" and keys:
            k = rng.choice(keys)
            docs[k] = (docs[k][0], (*docs[k][1][:3], "2031", "", ""))
        elif kind == "remove" and keys:
            k = keys.pop(rng.randrange(len(keys)))
        elif kind == "move" and keys:
            k = keys.pop(rng.randrange(len(keys)))
            keys.insert(rng.randrange(len(keys) + 1), k)
        else:
            serial[0] += 1
            k = f"k:{serial[0]}"
            docs[k] = _doc(rng, k)
            keys.insert(len(keys) if kind == "append" else rng.randrange(len(keys) + 1), k)
        touched.add(k)
    return touched


@pytest.mark.parametrize("seed", range(12))
def test_a_patched_index_is_a_clean_ones_after_random_edits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             seed: int) -> None:
    monkeypatch.setattr(search_index, "SHARD_BYTES", 160)   # many shards, so cuts move
    rng = random.Random(seed)
    serial = [0]
    docs: dict[str, tuple] = {}
    keys: list[str] = []
    for _ in range(rng.randint(0, 60)):
        _edit(rng, docs, keys, serial) if keys else keys.append(_first(rng, docs, serial))
    old = tmp_path / "0"
    _write(old, docs, keys)
    last = Last(meta_digest(old), tuple(keys), {})
    patched = 0
    for step in range(1, 25):
        before = dict(docs)
        touched = _edit(rng, docs, keys, serial)
        changed = {k: before[k] for k in touched if k in before}
        new, clean = tmp_path / f"{step}", tmp_path / f"clean{step}"
        _write(clean, docs, keys)
        try:
            patch(new, old, last, New.of(keys, [docs[k][0] for k in keys], [docs[k][1] for k in keys]), changed)
            patched += 1
        except Stale:
            _write(new, docs, keys)   # as generator.write.search does
        assert tree(new) == tree(clean), f"step {step}"
        old, last = new, Last(meta_digest(new), tuple(keys), {})
    assert patched >= 20


def _first(rng: random.Random, docs: dict[str, tuple], serial: list[int]) -> str:
    serial[0] += 1
    key = f"k:{serial[0]}"
    docs[key] = _doc(rng, key)
    return key


def _small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Last, New, dict]:
    monkeypatch.setattr(search_index, "SHARD_BYTES", 200)
    rng = random.Random(7)
    docs = {f"k:{n}": _doc(rng, f"k:{n}") for n in range(300)}
    keys = list(docs)
    old = tmp_path / "old"
    _write(old, docs, keys)
    changed = {"k:3": docs["k:3"]}
    docs["k:3"] = _doc(rng, "k:3")
    return old, Last(meta_digest(old), tuple(keys), {}), New.of(keys, [docs[k][0] for k in keys],
                                                               [docs[k][1] for k in keys]), changed


def test_only_the_files_that_change_are_written_the_rest_are_linked(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    old, last, new, changed = _small(tmp_path, monkeypatch)
    written = patch(tmp_path / "new", old, last, new, changed)
    files = [p for p in (tmp_path / "new").rglob("*.json") if p.name != "meta.json"]
    last_files = {p.stat().st_ino for p in old.rglob("*.json")}
    linked = [p for p in files if p.stat().st_ino in last_files]
    assert len(files) > 40 and len(linked) >= len(files) * 2 // 3, "most files are the last index's, linked"
    fresh = [p for p in files if p not in linked] + [tmp_path / "new" / "meta.json"]
    assert written == sum(p.stat().st_size for p in fresh), "the bytes written are those of the files made anew"


def test_a_last_index_that_is_not_the_one_kept_is_not_patched_from(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    old, last, new, changed = _small(tmp_path, monkeypatch)
    meta = json.loads((old / "meta.json").read_bytes())
    other = dataclasses.replace(last, meta=hashlib.sha256(b"another").hexdigest())
    with pytest.raises(Stale):
        patch(tmp_path / "a", old, other, new, changed)
    with pytest.raises(Stale):   # the documents' keys are not the index's
        patch(tmp_path / "b", old, dataclasses.replace(last, keys=last.keys[:-1]), new, changed)
    # a shard the patch reads, changed in the output (its name carries the digest of other bytes)
    shard = old / "t" / f"{meta['t'][0]}.json"
    kept = shard.read_bytes()
    shard.write_bytes(kept.replace(b"]", b",1]", 1))
    with pytest.raises(Stale):
        patch(tmp_path / "c", old, last, _first_retitled(new), {**changed, "k:0": new.doc(0)})
    shard.unlink()
    with pytest.raises(Stale):
        patch(tmp_path / "d", old, last, _first_retitled(new), {**changed, "k:0": new.doc(0)})
    shard.write_bytes(kept)
    # a meta.json naming files outside the index, even one the kept digest vouches for
    meta["t"][0] = "../../escape"
    (old / "meta.json").write_bytes(json.dumps(meta).encode())
    with pytest.raises(Stale):
        patch(tmp_path / "e", old, dataclasses.replace(last, meta=meta_digest(old)), new, changed)
    (old / "meta.json").unlink()
    with pytest.raises(Stale):
        patch(tmp_path / "f", old, last, new, changed)


def _first_retitled(new: New) -> New:
    """``new`` with document 0's terms changed (so the patch reads the first shard)."""
    return New(new.keys, lambda i: ((("aaa",), ()), new.doc(0)[1]) if i == 0 else new.doc(i))


def test_too_many_moved_documents_are_indexed_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.incremental import search_patch

    old, last, new, changed = _small(tmp_path, monkeypatch)
    monkeypatch.setattr(search_patch, "FLOOR", 10)
    n = len(new.keys)
    moved = New(list(reversed(new.keys)), lambda i: new.doc(n - 1 - i))
    with pytest.raises(Stale, match="new, moved or changed"):
        patch(tmp_path / "new", old, last, moved, changed)


# --- the build's own index, patched: a clean build's after each edit a scheduled run sees


def _records(root: Path, author: int, change) -> None:   # noqa: ANN001 - a test helper
    config = load_site(root)
    a = config.authors[author]
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    write_entry(path, dataclasses.replace(entry, records=change(entry.records)))


def _inodes(out: Path) -> dict[str, int]:
    folder = out / routes.search_index().path
    return {p.name.partition("-")[2]: p.stat().st_ino for p in folder.rglob("*.json") if p.name != "meta.json"}


def test_a_rebuilds_patched_index_is_a_clean_builds(tmp_path: Path) -> None:
    from test_jobs import assert_same_as_clean

    root = synthetic_site(tmp_path / "site", authors=30, records=20)
    build(root, workers=2)
    edits = [
        ("retitle", lambda rs: (dataclasses.replace(rs[3], title="Quokka dynamics"), *rs[:3], *rs[4:])),
        ("new paper", lambda rs: (dataclasses.replace(rs[0], key="arxiv:2612.99999", arxiv_id="2612.99999",
                                                      title="Brand new quokkas", published="2026-12-01T00:00:00Z",
                                                      year=2026), *rs)),
        ("removed", lambda rs: rs[1:]),
    ]
    for n, (name, change) in enumerate(edits):
        before = _inodes(root / "output")
        _records(root, 4 + n, change)
        build(root, workers=2)
        after = _inodes(root / "output")
        same = [d for d in after if before.get(d) == after[d]]
        assert_same_as_clean(root, tmp_path, f"clean-{n}")
        if name != "removed":   # (a removed paper moves every later one: many files change)
            assert len(same) >= len(after) // 2, f"{name}: the index was written anew, not patched"
    assert b"quokkas" in b"".join(tree(root / "output" / routes.search_index().path).values())


def test_the_common_prefix_of_the_kept_keys_and_this_builds() -> None:
    from generator.incremental.search_patch import prefix

    assert prefix(("a", "b", "c", "d"), ["a", "b", "x", "d"]) == 2   # a tuple kept, a list made (review)
    assert prefix(("a", "b"), ["a", "b", "c"]) == 2 and prefix((), ["a"]) == 0 and prefix(("z",), ["a"]) == 0
    keys = [f"k{i}" for i in range(1000)]
    assert prefix(tuple(keys), keys[:617] + ["new"] + keys[617:]) == 617


def test_a_file_changed_in_the_output_is_not_carried_into_the_next_index(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "site", authors=30, records=20)
    build(root, workers=1)
    out = root / "output" / routes.search_index().path
    meta = json.loads((out / "meta.json").read_bytes())
    for name in meta["d"]:   # the chunks a retitle does not touch are taken as they are
        f = out / "d" / f"{name}.json"
        f.write_bytes(f.read_bytes().replace(b"authors/", b"https://evil.example/", 1))
    _records(root, 4, lambda rs: (dataclasses.replace(rs[3], title="Quokka dynamics"), *rs[:3], *rs[4:]))
    build(root, workers=1)
    index = b"".join(tree(out).values())
    assert b"evil.example" not in index and b"quokka" in index


def test_free_pages_of_equal_score_rank_in_site_order() -> None:
    from test_search import _site

    from generator.core.model import Page
    from generator.write.search import documents

    pages = tuple(Page(name=n, title=f"Graph {n}", body_html="<p>graph</p>") for n in ("first", "second", "third"))
    _, rows = documents(_site((), {}, pages))
    ranked = sorted(range(len(rows)), key=lambda i: -i)   # search.js: among equal scores the higher id first
    assert [rows[i][0] for i in ranked] == ["pages/first/", "pages/second/", "pages/third/"]


def test_a_link_planted_in_the_outputs_index_is_not_followed(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "site", authors=30, records=20)
    build(root, workers=1)
    out = root / "output" / routes.search_index().path
    meta = json.loads((out / "meta.json").read_bytes())
    secret = tmp_path / "secret.json"
    secret.write_text("[]")
    for name in meta["d"]:   # same names, now symbolic links: meta.json (and its digest) unchanged
        (out / "d" / f"{name}.json").unlink()
        (out / "d" / f"{name}.json").symlink_to(secret)
    _records(root, 4, lambda rs: (dataclasses.replace(rs[3], title="Quokka dynamics"), *rs[:3], *rs[4:]))
    build(root, workers=1)   # the index is written whole: no error, no link
    assert not [p for p in out.rglob("*") if p.is_symlink()]
    assert b"quokka" in b"".join(tree(out).values())
