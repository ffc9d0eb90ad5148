"""A generated many-author site with small caches, for the batched refresh tests (generator.fetch.refresh).

1,000 authors by default, names from 40 given names x 25 family names (so words are shared
between authors, as in real bylines, and a few carry accents), three cached records each,
one of them co-written with the next author (so it sits in two caches). Every cache was
"fetched" on 2026-01-01 and its records are from 2024-2025. ``new_paper`` makes the record
that a later arXiv would add.
"""

from __future__ import annotations

from pathlib import Path

from fetchkit import write_site

from generator.store import cache
from generator.config import ArxivSource
from generator.core.model import Person, Record

GIVEN = ("Ada", "Bin", "Chloé", "Dmitri", "Eva", "Farid", "Grace", "Hiro", "Ines", "Jun", "Karl", "Lena", "Mei",
         "Nils", "Olga", "Pavel", "Qing", "Rosa", "Sven", "Tara", "Uma", "Viktor", "Wen", "Xiu", "Yara", "Zoe",
         "Alan", "Bea", "Carl", "Dana", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jill", "Kofi", "Lars", "Mona", "Ned")
FAMILY = ("Cui", "Smith", "Müller", "Garcia", "Tanaka", "Novak", "Rossi", "Kim", "Silva", "Dubois", "Berg",
          "Ivanova", "Chen", "Okafor", "Lindqvist", "Moreau", "Sato", "Kowalski", "Haddad", "Nguyen", "Costa",
          "Larsen", "Petrov", "Rahman", "Wong")
FETCHED_AT = "2026-01-01T00:00:00Z"


def names(n: int = 1000) -> list[str]:
    return [f"{GIVEN[i % len(GIVEN)]} {FAMILY[i // len(GIVEN) % len(FAMILY)]}" for i in range(n)]


def slug(i: int) -> str:
    return f"author-{i:04d}"


def query(name: str) -> str:
    return f'au:"{name}"'


def record(arxiv_id: str, authors: tuple[str, ...], when: str, title: str) -> Record:
    return Record(key=f"arxiv:{arxiv_id}", title=title, year=int(when[:4]), arxiv_id=arxiv_id, version=1,
                  authors=tuple(Person(a) for a in authors), abstract="An abstract.", published=when,
                  updated=when, primary_subject="cs.DB", subjects=("cs.DB",))


def corpus(n: int = 1000) -> dict[int, list[Record]]:
    """Each author's cached records (the shared one is in both authors' lists)."""
    people = names(n)
    out: dict[int, list[Record]] = {i: [] for i in range(n)}
    seq = 0
    for i, name in enumerate(people):
        for k in range(3):
            seq += 1
            month = 1 + seq % 24
            when = f"{2024 + (month - 1) // 12}-{1 + (month - 1) % 12:02d}-{1 + seq % 28:02d}T10:00:00Z"
            arxiv_id = f"{24 + (month - 1) // 12}{1 + (month - 1) % 12:02d}.{seq:05d}"
            authors = (name, people[(i + 1) % n]) if k == 0 else (name, "Outside Coauthor")
            rec = record(arxiv_id, authors, when, f"Paper {seq} by {name}")
            out[i].append(rec)
            if k == 0:
                out[(i + 1) % n].append(rec)
    return out


def make_site(root: Path, api: str, n: int = 1000, **policy: float) -> tuple[Path, list[Record]]:
    """The site (delay 0, page size 100) with every cache seeded; returns it and every record once."""
    people = names(n)
    authors = {slug(i): f"name: {name}\nsources:\n  - arxiv: '{query(name)}'\n" for i, name in enumerate(people)}
    write_site(root, authors, api=api, **{"delay": 0, "page_size": 100, "retries": 1, **policy})
    records = corpus(n)
    for i, recs in records.items():
        source = ArxivSource(query=query(people[i]))
        path = cache.cache_file(root / "content" / "cache", slug(i), source)
        assert path is not None
        path.parent.mkdir(parents=True)   # (cache.write_entry's fsync per file is too slow for a thousand)
        path.write_bytes(cache.encode_entry(cache.CacheEntry(cache.source_description(source), FETCHED_AT,
                                                             tuple(recs))))
    unique = {r.key: r for recs in records.values() for r in recs}
    return root, list(unique.values())


def new_paper(i: int, n: int = 1000, day: int = 1) -> Record:
    name = names(n)[i]
    return record(f"2603.{90000 + i:05d}", (name, "Someone Elsewhere"), f"2026-03-{day:02d}T09:00:00Z",
                  f"New paper of {name}")
