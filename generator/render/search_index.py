"""The search index's files: the tokenizer, the term shards and the document chunks.

``generator.write.search`` decides what the documents are; this module writes them as the static
files that ``themes/default/static/search.js`` reads. The layout, under the index folder
(``routes.search_index``):

* ``meta.json``: ``{"version", "docs", "chunk", "words", "shards", "t", "d"}``: the format
  version, the number of documents, documents per chunk, ``MAX_SHARDS_PER_WORD``, the first term
  of each term shard, in order, and the file names of the term shards and of the chunks.
* File names carry the digest of their bytes (``t/N-<digest>.json``), so a browser that still
  holds an older ``meta.json`` (GitHub Pages lets it keep one for 10 minutes) asks for files
  that are gone (the query fails and the form still submits) rather than reading another
  build's shards as if they were its own; an unchanged file keeps its name.
* ``t/N-<digest>.json``: term shard N, ``{term: [title, other]}``: consecutive terms in sorted order (of
  UTF-16 code units, JavaScript's string order), up to ``SHARD_BYTES`` a shard. ``title`` lists
  the documents whose title has the term, ``other`` those whose other text (authors, ids, a
  page's body) has it and whose title does not; each ascending and delta-encoded (the first
  id, then differences).
* ``d/N-<digest>.json``: documents ``N * chunk`` to ``N * chunk + chunk - 1``, each what a result row
  shows: ``[url, title, authors, year, subjects, by]`` (text, never markup).

A query word matches every term it begins (an exact match ranks above a prefix match, the
title above the rest): the terms starting with it are consecutive, so they lie in the shard
where the word would sort and the next ones whose first term starts with it. A word whose
terms span more than ``MAX_SHARDS_PER_WORD`` shards ("a", "co" on a large site) matches only
itself, so no word costs more than 3 requests. Why ranges rather than shards keyed by a term's
first letters: at 1,000 x 100 a prefix key split until each shard is small puts "algorithm"
alone in shard "algo" (its postings alone fill it), so "algo" would fetch every shard below
"algo" or find nothing; a range holds whatever terms fit and needs no special case.

Tokenizing is one rule (``generator.render.search_tokens``), written there and in search.js alike:
"SparkDiffusion" is the words "sparkdiffusion", "spark" and "diffusion".
All output is compact JSON in a fixed order: two builds give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import shutil
import sys
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import orjson

from generator.render.search_runs import Postings

from generator.render.search_tokens import tokens

FORMAT = 3             # meta.json's "version": search.js refuses any other (3: ids from the free pages to the newest paper)
CHUNK = 128            # documents per chunk file: a result shown costs one chunk of ~30 KB at most
SHARD_BYTES = 48_000   # a term shard holds consecutive terms up to this size (uncompressed; ~15 KB gzipped)
MAX_SHARDS_PER_WORD = 3   # a query word whose terms span more shards matches itself only


def _deltas(ids: list[int]) -> list[int]:
    if len(ids) < 2:   # most terms: a name, an id
        return ids
    return [ids[0], *map(operator.sub, ids[1:], ids)]


def _dumps(value: object) -> bytes:
    """Compact UTF-8 JSON: orjson writes the bytes of ``json.dumps(ensure_ascii=False,
    separators=(",", ":"))`` for these values (text and integers) at a fifth of its time; what it
    refuses (a lone surrogate) goes through json, as before."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def term_sets(title: str, other: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A document's terms: those of its title, and those of its other text that its title lacks.
    Interned: the documents kept for the next build (generator.write.search.Kept) hold every term of
    81,304 papers at once, 1.6 million strings for 89,000 distinct terms at 1,000 x 100."""
    in_title = set(map(sys.intern, tokens(title)))
    return tuple(in_title), tuple(set(map(sys.intern, tokens(other))).difference(in_title))


def postings(docs: Iterable[tuple[str, str]]) -> dict[str, tuple[list[int], list[int]]]:
    """term -> (ids of the documents whose title has it, ids of those whose other text has it
    and title does not), ascending; ``docs`` are (title, other text) in id order."""
    return postings_of(term_sets(title, other) for title, other in docs)


def postings_of(terms: Iterable[tuple[Iterable[str], Iterable[str]]]) -> dict[str, tuple[list[int], list[int]]]:
    """``postings`` of the documents' ``term_sets``, in id order."""
    titles: defaultdict[str, list[int]] = defaultdict(list)
    others: defaultdict[str, list[int]] = defaultdict(list)
    for i, (in_title, in_other) in enumerate(terms):
        for t in in_title:
            titles[t].append(i)
        for t in in_other:
            others[t].append(i)
    none: list[int] = []
    return {t: (titles.get(t, none), others.get(t, none)) for t in titles.keys() | others.keys()}


def order(term: str) -> bytes:
    """Terms sort by UTF-16 code units: the order of JavaScript's ``<``, which search.js bisects with."""
    return term.encode("utf-16-be")


def entry(term: str, title: list[int], other: list[int]) -> bytes:
    """A term's entry in its shard: ``"term":[title deltas, other deltas]``."""
    return delta_entry(term, [_deltas(title), _deltas(other)])


def delta_entry(term: str, deltas: list[list[int]]) -> bytes:
    """``entry`` of postings given as their deltas (as a shard holds them). A term is letters and
    digits (``tokens``), which JSON never escapes: its text, quoted."""
    return b'"' + term.encode() + b'":' + _dumps(deltas)


class Packer:
    """Cuts consecutive term entries into shards: a shard takes entries while they fit in
    ``SHARD_BYTES`` (one entry alone may be more). One home for the rule, which the rebuild's
    patch (generator.incremental.search_patch) replays from a shard of the last index."""

    def __init__(self, sink: Callable[[bytes], None] | None = None) -> None:
        self.out: list[tuple[str, bytes]] = []   # (first term, JSON) of each shard cut, unless ``sink`` takes it
        self.firsts: list[str] = []
        self.sink = sink
        self.entries: list[bytes] = []
        self.first, self.size = "", 0

    def cuts_before(self, data: bytes) -> bool:
        """Whether an entry of ``data`` would begin a shard (a fresh one: nothing is pending, or it does not fit)."""
        return not self.entries or self.size + len(data) > SHARD_BYTES

    def add(self, term: str, data: bytes) -> None:
        if self.cuts_before(data):
            self.flush()
            self.first = term
        self.entries.append(data)
        self.size += len(data) + 1

    def flush(self) -> None:
        if self.entries:
            data = b"{" + b",".join(self.entries) + b"}"
            self.firsts.append(self.first)
            if self.sink is not None:
                self.sink(data)
            else:
                self.out.append((self.first, data))
            self.entries, self.size = [], 0


def shards(index: Mapping[str, tuple[list[int], list[int]]]) -> list[tuple[str, bytes]]:
    """The term shards: (first term, JSON) of consecutive ranges of the sorted terms, each at
    most ``SHARD_BYTES`` unless one term's postings alone are more."""
    packer = Packer()
    for term in sorted(index, key=order):
        packer.add(term, entry(term, *index[term]))
    packer.flush()
    return packer.out


def write_index(folder: Path, texts: Sequence[tuple[str, str]], rows: Sequence[Sequence[str]]) -> int:
    """Write the index of the documents (``texts``: (title, other text) per document, in id order;
    ``rows``: what each one's result row shows) into ``folder``; return the bytes written."""
    return write_terms(folder, [term_sets(title, other) for title, other in texts], rows)


def write_terms(folder: Path, terms: Iterable[tuple[Iterable[str], Iterable[str]]],
                rows: Iterable[Sequence[str]]) -> int:
    """``write_index`` of the documents' ``term_sets`` (made before, or kept from the last build)."""
    return write_docs(folder, zip(terms, rows, strict=True))


def write_docs(folder: Path, docs: Iterable[tuple[tuple[Iterable[str], Iterable[str]], Sequence[str]]],
               tmp: Path | None = None) -> int:
    """``write_terms`` of the documents (``term_sets``, result row), in id order. Written as they come: each chunk once its rows are in, the postings in runs
    (generator.render.search_runs, their files in ``tmp``), each shard once it is cut, ``meta.json``
    last: the files ``write_files`` writes of ``shards`` and ``chunk`` of them all, in bounded memory."""
    folder.mkdir(parents=True)
    chunks, shard_files = _Files(folder / "d"), _Files(folder / "t")
    postings, pending, count = Postings(order, tmp), [], 0
    for count, (t, row) in enumerate(docs, 1):
        postings.add(count - 1, t)
        pending.append(list(row))
        if len(pending) == CHUNK:
            chunks.add(_dumps(pending))
            pending = []
    if pending:
        chunks.add(_dumps(pending))
    packer = Packer(shard_files.add)
    for term, title, other in postings.sorted():
        packer.add(term, entry(term, title, other))
    packer.flush()
    return _write_meta(folder, count, packer.firsts, shard_files.names, chunks.names) + chunks.size + shard_files.size


class _Files:
    """The files of one kind of an index being written, each ``N-<digest>.json`` as it comes."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.folder, self.names, self.size = folder, list[str](), 0

    def add(self, data: bytes) -> None:
        name = file_name(len(self.names), data)
        (self.folder / f"{name}.json").write_bytes(data)
        self.names.append(name)
        self.size += len(data)


def chunk(rows: Sequence[Sequence[str]], start: int) -> bytes:
    """The chunk file of the documents from ``start`` (a multiple of ``CHUNK``)."""
    return _dumps([list(r) for r in rows[start:start + CHUNK]])


def file_name(n: int, data: bytes) -> str:
    """File ``n`` of its kind, named by the digest of its bytes (without ``.json``)."""
    return f"{n}-{hashlib.sha256(data).hexdigest()[:12]}"


File = bytes | str   # a file's JSON, or the name of the last index's file of the same bytes


def write_files(folder: Path, docs: int, firsts: Sequence[str], shard_files: Sequence[File],
                chunks: Sequence[File], last: Path | None = None) -> int:
    """Write the index into ``folder``: the term shards (``firsts``: the first term of each) and
    the chunks, each its bytes or the name of the file under ``last`` (the last index's folder)
    that holds them, linked; return the bytes written anew."""
    folder.mkdir(parents=True)
    meta = _write_meta(folder, docs, firsts, _write_all(folder / "t", shard_files, last),
                       _write_all(folder / "d", chunks, last))
    return meta + sum(len(data) for data in (*shard_files, *chunks) if isinstance(data, bytes))


def _write_meta(folder: Path, docs: int, firsts: Sequence[str], shards: list[str], chunks: list[str]) -> int:
    """Write the index's ``meta.json`` (its files' names, without ``.json``); return its size."""
    meta = _dumps({"version": FORMAT, "docs": docs, "chunk": CHUNK, "words": MAX_SHARDS_PER_WORD,
                   "shards": list(firsts), "t": shards, "d": chunks})
    (folder / "meta.json").write_bytes(meta)
    return len(meta)


def _write_all(folder: Path, files: Sequence[bytes | str], last: Path | None) -> list[str]:
    """Write each file as ``N-<digest>.json`` in ``folder``; return their names, without ``.json``.
    A file given as a name is the last index's file (``last / kind / name.json``) of those bytes: linked."""
    folder.mkdir(parents=True)
    names = []
    for n, data in enumerate(files):
        if isinstance(data, str):
            assert last is not None
            name = f"{n}-{data.partition('-')[2]}"
            _link(last / folder.name / f"{data}.json", folder / f"{name}.json")
        else:
            name = file_name(n, data)
            (folder / f"{name}.json").write_bytes(data)
        names.append(name)
    return names


def _link(source: Path, dest: Path) -> None:
    """``dest`` as a hard link to ``source`` (both in the output's file system), or a copy."""
    try:
        os.link(source, dest)
    except OSError:
        shutil.copyfile(source, dest)
