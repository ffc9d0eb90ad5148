"""BibTeX and CSL-JSON exports (issue 15 items 6, 7, 8, 13): entry types as arXiv's own export
writes them, every entry formatted by pybtex's plain style and parsed by bibtexparser, CSL
titles/abstracts without TeX, affiliations kept in CSL, no abstract in BibTeX."""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import pytest
from pybtex.database import parse_string
from pybtex.style.formatting.plain import Style

from generator.render.exports import to_bibtex, to_csl_json, venue_kind
from generator.core.model import Author, Person, Record
from generator.sources.arxiv import parse_page

SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "arxiv-samples"
COMMAND = re.compile(r"\\[a-zA-Z]+")


def author_of(records: tuple[Record, ...]) -> Author:
    return Author(slug="x", name="Jane Doe", affiliation=None, bio_html="", links=(), records=records,
                  subjects=(), years=())


def sample_records() -> tuple[Record, ...]:
    out: list[Record] = []
    for path in sorted(SAMPLES.glob("*.xml")):
        out += parse_page(path.read_bytes()).records
    assert len(out) == 25
    return tuple(out)


def formats_with_pybtex(bib: str) -> list[str]:
    """Every entry through pybtex's plain style (raises on a missing required field)."""
    data = parse_string(bib, "bibtex")
    formatted = Style().format_bibliography(data)
    return [e.text.render_as("text") for e in formatted]


def entry_types(bib: str) -> dict[str, str]:
    lib = bibtexparser.parse_string(bib)
    assert lib.failed_blocks == []
    return {e.key: e.entry_type for e in lib.entries}


def expected_type(r: Record) -> str:
    kind, venue = venue_kind(r)
    if venue is None or not (r.authors and r.year):
        return "misc"
    return "inproceedings" if kind == "proceedings" else "article"


def test_samples_bibtex_formats_with_pybtex_plain() -> None:
    records = sample_records()
    bib = to_bibtex(author_of(records)).decode()
    assert len(formats_with_pybtex(bib)) == len(records)
    types = list(entry_types(bib).values())
    assert types == [expected_type(r) for r in records]
    assert types.count("misc") == 14 and types.count("article") == 6 and types.count("inproceedings") == 5
    lib = bibtexparser.parse_string(bib)
    for r, e in zip(records, lib.entries):
        fields = e.fields_dict
        assert fields["eprint"].value == r.arxiv_id and fields["archivePrefix"].value == "arXiv"
        assert fields["primaryClass"].value == r.primary_subject
        assert ("doi" in fields) == bool(r.doi)
        assert ("journal" in fields) == (e.entry_type == "article")
        assert ("booktitle" in fields) == (e.entry_type == "inproceedings")
        assert "abstract" not in fields and "note" not in fields


@pytest.mark.parametrize(
    ("journal_ref", "venue", "kind"),
    [
        ("Phys. Rev. B 99, 035142 (2019)", None, "article"),
        ("Proc. ACM SIGMOD 2020, pp. 1-10", None, "inproceedings"),
        ("In Proceedings of the 31st ACM SIGSOFT Symposium", None, "inproceedings"),
        (None, "Proceedings of the VLDB Endowment Conference", "inproceedings"),
        (None, "Journal of Machine Learning Research", "article"),
        (None, None, "misc"),
    ],
)
def test_entry_type_follows_the_venue(journal_ref: str | None, venue: str | None, kind: str) -> None:
    doi_only = Record(key="k", title="A Title", year=2020, arxiv_id="2001.00001", doi="10.1/x",
                      authors=(Person("Ann Smith"),), journal_ref=journal_ref, venue=venue)
    bib = to_bibtex(author_of((doi_only,))).decode()
    assert list(entry_types(bib).values()) == [kind]
    formats_with_pybtex(bib)
    csl = json.loads(to_csl_json(author_of((doi_only,))))[0]
    assert csl["type"] == {"article": "article-journal", "inproceedings": "paper-conference", "misc": "article"}[kind]
    assert csl.get("container-title") == (journal_ref or venue) and csl["DOI"] == "10.1/x"
    if kind == "misc":
        assert csl["number"] == "arXiv:2001.00001" and csl["publisher"] == "arXiv"
    else:
        assert csl["archive_location"] == "arXiv:2001.00001" and "publisher" not in csl


def test_a_journal_without_year_stays_misc_and_one_without_authors_names_the_profile() -> None:
    # A record without authors (typed in without an 'authors' list) is the profiled author's own (issue 13).
    records = (Record(key="a", title="No authors", year=2020, journal_ref="J. Foo 1 (2020)"),
               Record(key="b", title="No year", year=None, journal_ref="J. Foo 1", authors=(Person("A B"),)))
    bib = to_bibtex(author_of(records)).decode()
    assert list(entry_types(bib).values()) == ["article", "misc"] and "howpublished = {J. Foo 1" in bib
    assert "author = {" in bib.split("@misc")[0]
    assert len(formats_with_pybtex(bib)) == 2


def test_samples_csl_has_no_tex_and_keeps_affiliations() -> None:
    records = sample_records()
    items = json.loads(to_csl_json(author_of(records)))
    assert len(items) == len(records)
    for item in items:
        assert not COMMAND.search(item["title"]) and not COMMAND.search(item.get("abstract", ""))
    by_id = {i["id"]: i for i in items}
    assert by_id["physics/0507092"]["author"][0] == {
        "family": "Giacomelli", "given": "G.", "affiliation": [{"name": "Bologna University and INFN"}]}
    assert sum("affiliation" in p for i in items for p in i["author"]) == sum(
        bool(p.affiliations) for r in records for p in r.authors)


def test_tex_in_the_csl_becomes_text_bibtex_keeps_it() -> None:
    r = Record(key="k", title=r"$\tilde{O}(\varepsilon^{-2})$ samples for \method in $\mathbb R$", year=2024,
               abstract=r"We use $\frac{a}{b}$ at 30~nm and {\it i)} a \emph{trick}.", authors=(Person("A B"),))
    item = json.loads(to_csl_json(author_of((r,))))[0]
    assert item["title"] == "Õ(ε⁻²) samples for method in ℝ"
    assert item["abstract"] == "We use a/b at 30\u00a0nm and i) a trick."
    bib = to_bibtex(author_of((r,))).decode()
    assert r"\tilde{O}(\varepsilon^{-2})" in bib and "abstract" not in bib


def test_csl_is_compact_and_deterministic() -> None:
    records = sample_records()
    first = to_csl_json(author_of(records))
    assert first == to_csl_json(author_of(records)) and b"\n " not in first and b'": ' not in first


def test_json_exports_are_the_bytes_json_dumps_writes() -> None:
    """_dumps writes with orjson: the same bytes as json.dumps(ensure_ascii=False, compact) for
    every value an export holds (text with any character but a lone surrogate, ints, None,
    bools, nested lists and dicts); what orjson refuses goes through json."""
    import random

    from generator.render.exports import _dumps

    rng = random.Random(3)
    alphabet = ["a", " ", '"', "\\", "/", "\x00", "\x1f", "\x7f", "\x85", "\u2028", "é", "—", "😀", "\n", "\t", "<", "&"]

    def value(depth: int) -> object:
        kind = rng.randrange(7 if depth < 3 else 4)
        if kind == 0:
            return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        if kind == 1:
            return rng.choice([0, -1, 2024, 2**63 - 1, -(2**63), True, False, None])
        if kind in (2, 3):
            return rng.choice(["", "x", "Õ(ε⁻²)"])
        if kind == 4:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3))): value(depth + 1)
                for _ in range(rng.randint(0, 4))}

    for _ in range(2000):
        v = value(0)
        assert _dumps(v) == (json.dumps(v, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"), v
    assert _dumps([2**70]) == b"[1180591620717411303424]\n"   # past orjson's 64 bits: json writes it
    records = sample_records()
    items = json.loads(to_csl_json(author_of(records)))
    assert to_csl_json(author_of(records)) == (json.dumps(items, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _rec(key: str, title: str, published: str, **kw: object) -> Record:
    return Record(key=key, title=title, year=int(published[:4]), published=published,
                  authors=(Person("Li Wang"),), **kw)  # type: ignore[arg-type]


def test_a_newer_record_takes_the_next_key_and_cited_keys_stay() -> None:
    """Keys that collide are told apart oldest first: a new paper must not take a key a reader
    has already cited (helper audit: "wang2026flashprefill" moved to the new V3)."""
    v1 = _rec("arxiv:1", "FlashPrefill", "2026-01-05T00:00:00Z")
    v2 = _rec("arxiv:2", "FlashPrefill V2", "2026-03-01T00:00:00Z")
    v3 = _rec("arxiv:3", "FlashPrefill V3", "2026-06-01T00:00:00Z")
    before = dict(zip(entry_types(to_bibtex(author_of((v2, v1))).decode()), ("V2", "V1")))
    after = dict(zip(entry_types(to_bibtex(author_of((v3, v2, v1))).decode()), ("V3", "V2", "V1")))
    assert before == {"wang2026flashprefilla": "V2", "wang2026flashprefill": "V1"}
    assert after == {**before, "wang2026flashprefillb": "V3"}


@pytest.mark.parametrize(("title", "written"), [
    ("ChatGPT and Software Testing Education: Promises & Perils",
     "ChatGPT and Software Testing Education: Promises \\& Perils"),
    ("Q&A over 50% of Trees_2 #data", "Q\\&A over 50\\% of Trees\\_2 \\#data"),
    ("Bounds for $x_1 + y_{ij}$ and a_b", "Bounds for $x_1 + y_{ij}$ and a\\_b"),   # math keeps its _
    ("Already \\& escaped \\_ and \\% done", "Already \\& escaped \\_ and \\% done"),
])
def test_bibtex_titles_escape_what_tex_cannot_set(title: str, written: str) -> None:
    bib = to_bibtex(author_of((_rec("arxiv:1", title, "2024-01-01T00:00:00Z", venue="SIGMOD Conference & Co"),))).decode()
    assert "\ttitle = {{" + written + "}}," in bib
    assert "{SIGMOD Conference \\& Co}" in bib
    assert len(formats_with_pybtex(bib)) == 1


def test_dblp_keys_decide_journal_conference_and_thesis() -> None:
    """"Proc. VLDB Endow." reads like proceedings, but DBLP files it under journals/; a phd/
    key is a thesis: @phdthesis with its school, CSL "thesis" published by the school."""
    pvldb = _rec("doi:1", "Learned Indexes", "2025-01-01T00:00:00Z", venue="Proc. VLDB Endow.",
                 source_ids=(("dblp", "journals/corr/abs-2401-99999"), ("dblp", "journals/pvldb/DoeS25")))
    conf = _rec("doi:2", "Query Plans", "2024-01-01T00:00:00Z", venue="SIGMOD 2024",
                source_ids=(("dblp", "conf/sigmod/DoeLS24"),))
    phd = _rec("title:3", "Indexing Without Trees", "2020-01-01T00:00:00Z", venue="Example University",
               source_ids=(("dblp", "phd/Doe20"),))
    assert [venue_kind(r)[0] for r in (pvldb, conf, phd)] == ["journal", "proceedings", "thesis"]
    bib = to_bibtex(author_of((pvldb, conf, phd))).decode()
    assert list(entry_types(bib).values()) == ["article", "inproceedings", "phdthesis"]
    assert "\tschool = {Example University}" in bib and len(formats_with_pybtex(bib)) == 3
    thesis = json.loads(to_csl_json(author_of((phd,))))[0]
    assert (thesis["type"], thesis["genre"], thesis["publisher"]) == ("thesis", "PhD thesis", "Example University")
    assert "container-title" not in thesis
