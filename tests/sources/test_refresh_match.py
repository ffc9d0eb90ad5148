"""Which queries share a batch, and whether a new record may belong to a query (generator.fetch.refresh_match).

The one property that matters: the local answer is never "no" where arXiv's author index
(here the fake's independent implementation, ``fakesearch``) says "yes", or a paper is missed.
"""

from __future__ import annotations

import itertools

import pytest
from fakesearch import Search
from refreshkit import record

from generator.fetch.refresh_match import RecordIndex, author_terms, may_belong, tokenize


@pytest.mark.parametrize("query", [
    'au:"Bin Cui"', "au:cui", "au:Cui,Bin", "au:cui,b;li,y", 'au:"Bin Cui" OR au:"B. Cui"',
    '(au:"Bin Cui" AND au:"Yi Li")', 'au:"Bin Cui" AND cat:cs.DB', 'cat:cs.DB AND au:"Bin Cui"',
    'au:"José Müller"', "au:cu*",
])
def test_batchable(query: str) -> None:
    assert author_terms(query)


@pytest.mark.parametrize("query", [
    "", "   ", 'ti:"graph"', "cui", 'au:"Bin Cui" OR cat:cs.DB',      # OR with a category: not bounded by names
    'au:"Bin Cui" ANDNOT au:"Yi Li"', 'cat:cs.DB ANDNOT au:"Bin Cui"', "au:Cui_B", 'cat:cs.DB AND au:del_maestro',
    'au:"Bin Cui', '(au:"Bin Cui"', 'au:"Bin Cui")', "au:*cui", 'au:""', 'all:"Bin Cui"', "NOT au:cui",
    'au:"Bin Cui" AND abs:database', "cat:cs.DB",
])
def test_not_batchable(query: str) -> None:
    assert author_terms(query) is None


def test_tokenize_keeps_quoted_phrases_whole() -> None:
    assert tokenize('(au:"Bin  Cui" OR au:li,y) AND cat:cs.DB') == (
        "(", 'au:"Bin  Cui"', "OR", "au:li,y", ")", "AND", "cat:cs.DB")


NAMES = ["Bin Cui", "B. Cui", "Cui Bin", "Bin X. Cui", "Bin Cuí", "BIN CUI", "Bin-Yu Cui", "Binh Cui", "Cui",
         "Yi Li", "Y. Li", "Jean-Pierre Serre", "J.-P. Serre", "José Müller", "Jose Muller", "Ann Other",
         "Ann Cui-Other", "H1 Collaboration", "Bin Cui et al"]
QUERIES = ['au:"Bin Cui"', "au:cui", "au:Cui,Bin", "au:cui,b", 'au:"B Cui"', 'au:"Cui Bin"', "au:li,y",
           'au:"Jean-Pierre Serre"', "au:serre", 'au:"Jose Muller"', 'au:"José Müller"', "au:cu*",
           'au:"Bin Cui" AND au:"Yi Li"', 'au:"Bin Cui" OR au:"Yi Li"', 'au:"Ann Other" AND cat:cs.DB',
           'au:"H1 Collaboration"', "au:other"]


@pytest.mark.parametrize("query", QUERIES)
def test_never_no_where_arxiv_says_yes(query: str) -> None:
    terms = author_terms(query)
    assert terms is not None
    records = [record(f"2401.{n:05d}", authors, "2025-01-01T00:00:00Z", "t")
               for n, authors in enumerate(itertools.chain(((a,) for a in NAMES), itertools.combinations(NAMES, 2)))]
    matched = Search(records).evaluate(query)
    index = RecordIndex(records)
    local = {r.key for r in index.may_belong(terms)}
    for i in matched:
        assert records[i].key in local, (query, [p.name for p in records[i].authors])
        assert may_belong(terms, records[i])
    assert len(local) < len(records)                     # and it does rule records out


def test_a_record_whose_author_list_was_cut_may_belong_to_anyone() -> None:
    terms = author_terms('au:"Bin Cui"')
    assert terms is not None
    assert may_belong(terms, record("2401.00001", ("Someone", "et al."), "2025-01-01T00:00:00Z", "t"))
    assert may_belong(terms, record("2401.00002", (), "2025-01-01T00:00:00Z", "t"))
    assert not may_belong(terms, record("2401.00003", ("Someone Else",), "2025-01-01T00:00:00Z", "t"))


def test_hostile_names_do_not_break_matching() -> None:
    terms = author_terms('au:"Bin Cui"')
    assert terms is not None
    for name in ["", " ", "\u0301\u0301", "<script>Bin Cui</script>", "Bin\u00a0Cui", "ℬin Cui", "x" * 10000,
                 "Bin\nCui", "-", "--- Cui", "Bin Cui" * 50]:
        may_belong(terms, record("2401.00001", (name,), "2025-01-01T00:00:00Z", "t"))
