"""Authors' names for the exports (issue 15 item 7): particles stay with the family name, doubtful
names stay whole; checked through CSL-JSON and BibTeX, BibTeX read back by pybtex and bibtexparser."""

from __future__ import annotations

import json

import bibtexparser
import pytest
from hypothesis import given, settings, strategies as st
from nameparser import HumanName
from pybtex.database import parse_string

from generator.render.exports import to_bibtex, to_csl_json
from generator.core.model import Author, Person, Record
from generator.render.names import bibtex_name, csl_name, split_name

SPLIT = [
    # name, given, family (CSL), BibTeX
    ("A. Del Maestro", "A.", "Del Maestro", "Del Maestro, A."),
    ("Peter H. N. de With", "Peter H. N.", "de With", "de With, Peter H. N."),
    ("Willem-Jan van den Heuvel", "Willem-Jan", "van den Heuvel", "van den Heuvel, Willem-Jan"),
    ("Ulrich von Luxburg", "Ulrich", "von Luxburg", "von Luxburg, Ulrich"),
    ("Maria de la Cruz", "Maria", "de la Cruz", "de la Cruz, Maria"),
    ("Hugo Di Giacomo", "Hugo", "Di Giacomo", "Di Giacomo, Hugo"),
    ("José María Álvarez-Pérez", "José María", "Álvarez-Pérez", "Álvarez-Pérez, José María"),
    ("Jean-Pierre Dupont", "Jean-Pierre", "Dupont", "Dupont, Jean-Pierre"),
    ("Bin Cui", "Bin", "Cui", "Cui, Bin"),
    ("Michael A. Nielsen", "Michael A.", "Nielsen", "Nielsen, Michael A."),
    ("Yann Benétreau-Dupin", "Yann", "Benétreau-Dupin", "Benétreau-Dupin, Yann"),
    ("Mark D'Angelo", "Mark", "D'Angelo", "D'Angelo, Mark"),
]
LITERAL = ["ATLAS Collaboration", "The CMS Collaboration", "LIGO Scientific Collaboration", "Madonna",
           "李小龙", "Иван Петров", "J. Smith and Co", "van der Waals", "R2 D2", "Smith, John",
           "Event Horizon Telescope Consortium"]


@pytest.mark.parametrize(("name", "given_", "family", "bib"), SPLIT)
def test_split(name: str, given_: str, family: str, bib: str) -> None:
    assert csl_name(name) == {"family": family, "given": given_}
    assert bibtex_name(name) == bib
    parsed = parse_string(f"@misc{{k, author = {{{bib} and Other, A.}}}}", "bibtex")
    person = parsed.entries["k"].persons["author"][0]
    assert " ".join(person.prelast_names + person.last_names) == family
    assert " ".join(person.first_names + person.middle_names) == given_


def test_suffix() -> None:
    assert csl_name("Martin Luther King Jr.") == {"family": "King", "given": "Martin Luther", "suffix": "Jr."}
    assert bibtex_name("Martin Luther King Jr.") == "King, Jr., Martin Luther"


@pytest.mark.parametrize("name", LITERAL)
def test_doubtful_names_stay_whole(name: str) -> None:
    assert csl_name(name) == {"literal": name}
    assert bibtex_name(name) == "{" + name + "}"


def test_exports_use_the_split() -> None:
    people = tuple(Person(n) for n, *_ in SPLIT[:3]) + (Person("ATLAS Collaboration"),)
    r = Record(key="arxiv:2101.00001", title="A title", year=2021, arxiv_id="2101.00001", authors=people)
    a = Author(slug="x", name="X", affiliation=None, bio_html="", links=(), records=(r,), subjects=(), years=())
    item = json.loads(to_csl_json(a))[0]
    assert [p.get("family") or p["literal"] for p in item["author"]] == [
        "Del Maestro", "de With", "van den Heuvel", "ATLAS Collaboration"]
    bib = to_bibtex(a).decode()
    assert "author = {Del Maestro, A. and de With, Peter H. N. and van den Heuvel, Willem-Jan and " \
           "{ATLAS Collaboration}}" in bib
    entry = bibtexparser.parse_string(bib).entries[0]
    assert entry.key == "delmaestro2021title"
    persons = parse_string(bib, "bibtex").entries[entry.key].persons["author"]
    assert [" ".join(p.prelast_names + p.last_names) for p in persons] == [
        "Del Maestro", "de With", "van den Heuvel", "{ATLAS Collaboration}"]


def test_fast_path_agrees_with_nameparser() -> None:
    """Plain capitalised names skip nameparser (0.4 ms a name); the answer must be the same."""
    names = ["Bin Cui", "Michael A. Nielsen", "Hans R. Künsch", "Yauhen Leanidavich Arnatovich",
             "Amelia Carolina Sparavigna", "J. R. R. Tolkien", "Zhang Wei", "Ankit Pensia"]
    for name in names:
        h = HumanName(name)
        assert split_name(name).family == h.last
        assert split_name(name).given == " ".join(p for p in (h.first, h.middle) if p)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(list("aBcDé .-'{},&\\%0李\x00") + ["and", "de", "van", "Jr.", " "]),
                max_size=20).map("".join))
def test_any_name_makes_a_parseable_author_list(name: str) -> None:
    r = Record(key="k", title="T", year=2020, authors=(Person(name), Person("Ann Other")))
    a = Author(slug="x", name="X Y", affiliation=None, bio_html="", links=(), records=(r,), subjects=(), years=())
    bib = to_bibtex(a).decode()
    assert bibtexparser.parse_string(bib).failed_blocks == []
    entry = next(iter(parse_string(bib, "bibtex").entries.values()))
    assert len(entry.persons["author"]) == 2
    json.loads(to_csl_json(a))
