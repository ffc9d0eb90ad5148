"""The index's file (generator.index.db): its write-ahead log, the indexes made once the authors are
in, and what it keeps with each author's counts."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from generator.assemble import matching
from generator.core.model import Record
from generator.incremental.values import values_of
from generator.index import lazy, orders
from generator.index.db import VERSION, Index


def _put(index: Index, slug: str, n: int) -> None:
    records = [Record(key=f"arxiv:2401.{slug}{i}", title=f"T{i}", year=2024, subjects=("cs.DB",)) for i in range(n)]
    index.put(slug, b"k", records, [b"c" * 16] * n, map(values_of, records), b"")


def _names(index: Index) -> set[str]:
    return {n for (n,) in index.db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}


def test_the_orders_indexes_are_made_once_the_authors_are_in(tmp_path: Path) -> None:
    index = Index(tmp_path / "index.sqlite")
    _put(index, "a", 3)
    assert _names(index) == {"subjects_slug"}, "a new index is filled without the indexes only the orders read"
    index.site(["a"])
    late = {"records_key", "records_newest", "records_dates", "subjects_code"}
    assert _names(index) == {"subjects_slug"} | late
    index.close()
    again = Index(tmp_path / "index.sqlite")
    again.site(["a"])   # (made once: IF NOT EXISTS)
    assert _names(again) == {"subjects_slug"} | late
    assert again.kept("a", b"k") is not None
    again.close()


def test_a_log_left_beside_a_deleted_index_is_not_read_into_the_new_one(tmp_path: Path) -> None:
    """docs: the index is safe to delete; a log a killed build left beside it is not its new file's
    (SQLite reads a log only for a file in WAL mode, which a new one is not yet)."""
    path = tmp_path / "index.sqlite"
    index = Index(path)
    index.db.execute("PRAGMA wal_autocheckpoint = 0")   # (what it wrote stays in the log, as when killed)
    _put(index, "a", 50)
    assert index.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    shutil.copy(f"{path}-wal", tmp_path / "left-wal")   # the log as a process killed while it wrote leaves it
    index.close()
    path.unlink()   # the user deletes the index ("safe to delete"), the log stays
    shutil.copy(tmp_path / "left-wal", f"{path}-wal")
    fresh = Index(path)
    assert fresh.kept("a", b"k") is None
    assert fresh.db.execute("SELECT count(*) FROM records").fetchone() == (0,)
    fresh.close()


def test_data_json_takes_how_an_authors_records_were_matched_from_its_counts_not_its_records(tmp_path: Path) -> None:
    """data.json read every record of the site to summarize how each was matched (16.7 s at 5,000
    x 100): the summary is kept with the author's counts (index.site.Indexer), and read from
    there; an index written before it kept them gives it from the records, as before."""
    records = [Record(key=f"arxiv:2401.0000{i}", arxiv_id=f"2401.0000{i}", title=f"T{i}", year=2024,
                      subjects=("cs.DB",), match=m)
               for i, m in enumerate(("identifier:orcid", "name:arxiv", "confirmed:orcid", "name:arxiv", ""))]
    summary = matching.summary(records)
    assert summary == {"identifier": 1, "confirmed": 1, "name": 2, "name_only": ["2401.00001", "2401.00003"]}
    index = Index(tmp_path / "index.sqlite")
    for slug, counts in (("kept", ((), (), (5, summary))), ("older", ((), ()))):
        index.put(slug, b"k", records, [b"c" * 16] * 5, map(values_of, records), b"", counts)
    index.db.execute("DELETE FROM records WHERE slug = 'kept'")   # (none of its records is there to read)
    assert lazy.matched(lazy.AuthorRecords(index, "kept", 0, 5)) == summary
    assert lazy.matched(lazy.AuthorRecords(index, "older", 0, 5)) == summary
    assert lazy.matched(lazy.AuthorRecords(index, "older", 1, 3)) == matching.summary(records[1:3])
    assert lazy.matched(tuple(records)) == summary
    index.close()


def test_a_record_of_a_usual_size_takes_its_share_of_a_page_not_a_page_of_its_own(tmp_path: Path) -> None:
    """A row of 1.5 KB (a record with its abstract) is past what a WITHOUT ROWID table keeps in a
    4 KB page (about 1 KB): each spilled to an overflow page of its own, and the index took twice
    the bytes of its records (2.6 GB at 5,000 x 100, 1.3 GB since) and read each from two pages.
    The file is deterministic for these rows: the bound is on bytes, not time."""
    index = Index(tmp_path / "index.sqlite")
    abstract = "Pharetra tempor cupidatat ut regression cupidatat reinforcement multilingual. " * 18   # 1.4 KB
    for a in range(20):
        records = [Record(key=f"arxiv:2401.{a:02d}{i:03d}", title=f"A title of record {i}", year=2024, abstract=abstract,
                          subjects=("cs.DB", "cs.LG")) for i in range(100)]
        index.put(f"author-{a}", b"k", records, [b"c" * 16] * 100, map(values_of, records), b"")
    db = index.db
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    payload = db.execute("SELECT sum(length(blob) + length(content) + length(key) + 40) FROM records").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]
    assert payload > 2_000 * 1_400
    assert pages < 1.6 * payload, (pages, payload)   # (the whole file: WITHOUT ROWID 3.1x, with rowids 1.4x)
    index.close()


def test_an_index_of_another_version_or_not_an_index_is_made_anew(tmp_path: Path) -> None:
    """An upgrade's first build: the index an older authorsite wrote (another schema: version 10
    kept records WITHOUT ROWID) is deleted and made anew, as is a file that is no index at all."""
    path = tmp_path / "index.sqlite"
    old = sqlite3.connect(path)
    old.executescript("CREATE TABLE records(slug TEXT, pos INTEGER, PRIMARY KEY(slug, pos)) WITHOUT ROWID;"
                      f"INSERT INTO records VALUES ('a', 0); PRAGMA user_version = {VERSION - 1};")
    old.close()
    index = Index(path)
    assert index.db.execute("PRAGMA user_version").fetchone() == (VERSION,)
    assert index.db.execute("SELECT count(*) FROM records").fetchone() == (0,)
    assert "WITHOUT ROWID" not in index.db.execute("SELECT sql FROM sqlite_master WHERE name = 'records'").fetchone()[0]
    _put(index, "a", 2)
    assert index.kept("a", b"k") is not None
    index.close()
    path.write_bytes(b"not an index at all " * 100)
    again = Index(path)
    assert again.kept("a", b"k") is None and again.db.execute("PRAGMA user_version").fetchone() == (VERSION,)
    again.close()


def _shared(index: Index, slug: str, keys: list[str], key: bytes = b"k") -> None:
    records = [Record(key=k, title=k, year=2024, subjects=("cs.DB",)) for k in keys]
    index.put(slug, key, records, [b"c" * 16] * len(records), map(values_of, records), b"")


def test_an_authors_kept_digests_stand_while_its_rows_do(tmp_path: Path) -> None:
    """An author's encoding and search key (generator.render.digest, ``Digester.kept``) are kept with
    its joined digests, and go with them: when its own rows are written again, when another author
    comes to list one of its records (who lists it is in the record's digest), and for another
    code (keeping one by another code lets the other go)."""
    index = Index(tmp_path / "index.sqlite")
    _shared(index, "a", ["x", "y"])
    _shared(index, "b", ["z"])
    index.site(["a", "b"])
    orders.derive(index, 10)
    for slug in ("a", "b"):
        lazy.author_digests(index, slug)
        index.keep_encoded(slug, "code", 0, b"D" + slug.encode())
        index.keep_encoded(slug, "code", 1, b"S" + slug.encode())
    index.db.commit()
    assert index.authors_encoded("code") == {"a": [b"Da", b"Sa"], "b": [b"Db", b"Sb"]}
    assert index.authors_encoded("other code") == {}
    index.keep_encoded("b", "other code", 1, b"T")
    assert index.authors_encoded("other code") == {"b": [None, b"T"]}
    _shared(index, "b", ["z", "y"], key=b"k2")   # b lists a's record y now
    orders.derive(index, 10)
    assert index.authors_encoded("code") == {}, "a's record y has another lister, b's rows were written again"
    for slug in ("a", "b"):
        lazy.author_digests(index, slug)
        index.keep_encoded(slug, "code", 0, b"E" + slug.encode())
    _shared(index, "b", ["z", "y", "w"], key=b"k3")   # b's own edit: a's records are as they were
    orders.derive(index, 10)
    assert index.authors_encoded("code") == {"a": [b"Ea", None]}
    index.close()
