"""The search index's documents kept from one build to the next (generator.write.search.Kept): a
rebuild tokenizes only the authors whose documents changed, and its index is a clean build's."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest
from test_jobs import synthetic_site, tree

from generator import pipeline
from generator.core import routes
from generator.build import build
from generator.store.cache import cache_file, read_entry, write_entry
from generator.config import load_site
from generator.incremental.parsed import ParsedInputs, entries
from generator.render import search_tokens
from generator.write.search import Kept

SEARCH = routes.search_index().path


def _index(out: Path) -> dict[str, bytes]:
    return tree(out / SEARCH)


def _retitle(root: Path, author: int, title: str) -> str:
    """Give the newest record of the ``author``-th author a new title; returns the author's slug."""
    config = load_site(root)
    a = config.authors[author]
    path = cache_file(config.cache_path, a.slug, a.sources[0])
    assert path is not None
    entry = read_entry(path)
    records = (dataclasses.replace(entry.records[0], title=title), *entry.records[1:])
    write_entry(path, dataclasses.replace(entry, records=records))
    return a.slug


def _kept(root: Path) -> dict[str, tuple[bytes, list]]:
    """Every author's kept documents, from all the buckets."""
    parsed, out = ParsedInputs(root, write=False), {}
    for n in range(Kept.BUCKETS):
        hit = parsed.lookup(Kept.KIND, str(n), b"")
        out.update(hit[0] if hit is not None else {})   # type: ignore[arg-type]
    assert out, "the build kept no search documents"
    return out


def _put(root: Path, slug: str, value: object) -> None:
    """Replace the kept documents of ``slug`` in its bucket by ``value``."""
    parsed, n = ParsedInputs(root), Kept.bucket(slug)
    hit = parsed.lookup(Kept.KIND, str(n), b"")
    bucket = dict(hit[0]) if hit is not None else {}   # type: ignore[call-overload]
    bucket[slug] = value
    parsed.put(Kept.KIND, str(n), b"", bucket)


@pytest.mark.parametrize("flat", [False, True], ids=["in memory", "over the index"])
def test_a_rebuild_indexes_the_changed_author_anew_and_takes_the_others_as_kept(
        tmp_path: Path, flat: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the index, each author's key is kept in the index too (``Digester.kept``): the changed
    author's goes with its rows."""
    monkeypatch.setattr(pipeline, "FLAT", flat)
    root = synthetic_site(tmp_path / "site", authors=12, records=8)
    if flat:   # (a site with a page listing every record is built in memory: assemble.site.lists_every_record)
        (root / "site.yaml").write_text((root / "site.yaml").read_text() + "papers: false\nvenues: false\npublications: false\n")
    build(root, workers=1)
    assert (root / ".authorsite" / "index.sqlite").is_file() == flat
    before = _kept(root)
    assert sorted(before) == sorted(a.slug for a in load_site(root).authors)
    # Mark an unchanged author's kept documents: if the next build takes them as kept, the mark
    # is in its index (no build would write it); the changed author's are made again.
    marked = dict(before)
    key, docs = marked["a005"]
    marked["a005"] = (key, [(*docs[0][:2], ("keptmark",), *docs[0][3:]), *docs[1:]])
    _put(root, "a005", marked["a005"])
    ParsedInputs(root).put(Kept.LAST, "", b"", None)   # the index written anew from them, not patched
    changed = _retitle(root, 2, "Zanzibar quokkas")
    build(root, workers=1)
    index = b"".join(_index(root / "output").values())
    assert b'"keptmark"' in index, "an unchanged author's documents were tokenized again"
    assert b'"zanzibar"' in index and b'"quokkas"' in index
    after = _kept(root)
    assert after[changed][0] != before[changed][0] and after["a005"][0] == before["a005"][0]
    assert {s for s in after if after[s] != marked[s]} == {changed}


def test_the_kept_index_is_a_clean_builds_index(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "site", authors=10, records=6)
    build(root, workers=2)
    _retitle(root, 0, "Newly titled paper")
    _retitle(root, 7, "Another title: SparkDiffusion")
    build(root, workers=2)
    clean = synthetic_site(tmp_path / "clean", authors=10, records=6)
    _retitle(clean, 0, "Newly titled paper")
    _retitle(clean, 7, "Another title: SparkDiffusion")
    build(clean, workers=2)
    assert _index(root / "output") == _index(clean / "output")
    words = b"".join(_index(root / "output").values())
    assert b"newly" in words and b'"sparkdiffusion"' in words and b'"diffusion"' in words


def test_a_damaged_or_foreign_kept_entry_is_ignored(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "site", authors=6, records=5)
    build(root, workers=1)
    want = _index(root / "output")
    # A value of another shape in the author's bucket: the build indexes the author anew.
    _put(root, "a001", "not documents")
    _retitle(root, 1, "Retitled")
    build(root, workers=1)
    got = _index(root / "output")
    assert got != want and b"retitled" in b"".join(got.values())
    assert isinstance(_kept(root)["a001"], tuple)
    # A truncated entry file: ignored, made again.
    truncated = False
    for path in entries(root):
        blob = path.read_bytes()
        try:
            value = pickle.loads(blob[len(b"authorsite-parsed\0") + 64:])
        except Exception:   # noqa: BLE001 - other entries
            continue
        if isinstance(value, dict) and "a001" in value and isinstance(value["a001"], tuple):
            path.write_bytes(blob[:len(blob) // 2])
            truncated = True
    assert truncated
    _retitle(root, 1, "Retitled again")
    build(root, workers=1)
    assert b"again" in b"".join(_index(root / "output").values())


def test_a_build_without_search_keeps_the_documents_for_the_next_build_with_it(tmp_path: Path) -> None:
    root = synthetic_site(tmp_path / "site", authors=6, records=4)
    build(root, workers=1)
    before = _kept(root)
    _retitle(root, 1, "A title the build without search reads")
    build(root, search=False, workers=1)
    assert _kept(root) == before, "a build without the index pruned its documents"
    build(root, workers=1)
    after = _kept(root)
    changed = sorted(slug for slug in after if after[slug] != before.get(slug))
    assert changed == [load_site(root).authors[1].slug], "only the retitled author is tokenized again"


def test_another_tokenizer_never_reuses_the_kept_terms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept documents hold terms cut by one tokenizer (search_tokens.VERSION): a build with
    another one makes every author's again (the parsed cache's folder is named by the code's
    digest too; this checks the documents' own key)."""
    root = synthetic_site(tmp_path / "site", authors=6, records=4)
    build(root, workers=1)
    key, docs = _kept(root)["a003"]
    _put(root, "a003", (key, [(*docs[0][:2], ("keptmark",), *docs[0][3:]), *docs[1:]]))
    ParsedInputs(root).put(Kept.LAST, "", b"", None)   # the index written anew from the kept documents
    monkeypatch.setattr(search_tokens, "VERSION", search_tokens.VERSION + 1)
    _retitle(root, 1, "Retitled so the index is made again")
    build(root, workers=1)
    assert b'"keptmark"' not in b"".join(_index(root / "output").values())
    assert _kept(root)["a003"][0] != key


def test_search_abstracts_indexes_them_and_a_toggle_is_a_clean_builds_index(tmp_path: Path) -> None:
    """site.yaml ``search: {abstracts: ...}`` (issue 45): the abstracts' words are found (by default
    on a lab's site, as this one); turning them off or on keys every author's documents anew, and
    the index is a clean build's."""
    root = synthetic_site(tmp_path / "site", authors=6, records=4)
    plain = (root / "site.yaml").read_text()
    (root / "site.yaml").write_text(plain + "search:\n  abstracts: false\n")
    build(root, workers=1)
    without = _index(root / "output")
    assert b'"abstract"' not in b"".join(without.values())
    (root / "site.yaml").write_text(plain)
    build(root, workers=1)
    with_abstracts = _index(root / "output")
    words = b"".join(with_abstracts.values())
    assert b'"abstract"' in words and b'"emph"' not in words   # the abstract as plain text
    clean = synthetic_site(tmp_path / "clean", authors=6, records=4)
    (clean / "site.yaml").write_text(plain + "search:\n  abstracts: true\n")
    build(clean, workers=1)
    assert with_abstracts == _index(clean / "output")
    (root / "site.yaml").write_text(plain + "search: {abstracts: false}\n")
    build(root, workers=1)
    assert _index(root / "output") == without
