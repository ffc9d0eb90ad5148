"""The search index (generator/write/search.py, search_index.py) and its engine in static/search.js:
one tokenizer in both languages, the files as documented, deterministic, one job reading what
it indexes, and in Chromium a two-word query on a synthetic site (60 authors) finding every
author's papers within the request budget of issue 12."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import itertools
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

from browser_util import borrowed
from test_jobs import synthetic_site

from generator.core import routes
from generator.core.model import Author, Page, Person, Record, SiteModel
from generator.assemble.papers import paper_key
from generator.write.search import document_text, documents, indexed_records, search_tasks
from generator.render.search_index import (CHUNK, FORMAT, MAX_SHARDS_PER_WORD, SHARD_BYTES, postings, shards, tokens,
                                    write_index)
from generator.render.search_tokens import ascii_words, words

REPO = Path(__file__).resolve().parents[2]
SEARCH_JS = REPO / "themes/default/static/search.js"

# Accents, ß, Greek (final sigma), Cyrillic, CJK, Arabic, digits and super/subscripts, ligatures,
# full-width forms, apostrophes, hyphens, emoji, math letters, Turkish dotted I, combining marks.
BATTERY = [
    "Schrödinger équation naïve CAFÉ", "Straße STRASSE Maß", "ΟΔΟΣ Σοφία λόγος ΣΑΣ", "Квантовая механика Ёлка",
    "深度学习 模型 日本語のテキスト 한국어", "تعلم الآلة", "x² + y₂ = 10³ ½ Ⅻ", "ﬁnite ﬂow oﬃce", "ＡＢＣ１２３ ｶﾀｶﾅ",
    "O'Brien l’Hôpital d'Alembert", "self-supervised state‑of‑the‑art — en–dash", "🚀 rocket 👩‍🔬 science 🇫🇷",
    "𝐁𝐨𝐥𝐝 𝔉𝔯𝔞𝔨𝔱𝔲𝔯 ℌilbert ℝⁿ", "İstanbul ıI DİYARBAKIR", "e\u0301te\u0301 a\u0308 n\u0303", "2401.01234v2 10.1145/3448016",
    "under_score snake_case", "tab\tnew\nline\u00a0nbsp", "", "   ", "Ǆemal ǅ ǆ", "Ⓐⓑ ①②", "ŁÓDŹ Øresund Æsir",
]
# Compound names (issue 45): CamelCase, capital runs, plurals of them, letters and digits, hyphens,
# scripts side by side, each also in Greek, Cyrillic and with accents, and edges (a lone hyphen,
# hyphens at a run's ends, ſ that NFKD makes an s).
COMPOUNDS = [
    "SparkDiffusion FlashPrefill sparkdiffusion SPARKDiffusion", "HTMLParser XMLHttpRequest iPhone eBay McDonald",
    "LLMs GANs CNNsAre IDs APIs Is As sS Ss", "GPT-4 GPT4o ResNet50 3D 2D-3D COVID-19 x86-64 T5 Llama2 v2",
    "self-supervised state-of-the-art -lead trail- a--b a-", "ΣοφίαΛόγος ΚβαντοваяМеханика ÉcoleNormale naïveBayes",
    "深度Learning 日本語Text Arabicتعلم ИИ-модель", "ſtraße ﬁneTune ＦｕｌｌＷｉｄｔｈ 𝐁𝐨𝐥𝐝Face ǅemal",
    "2401.01234v2 10.1007/978-3-030-12345-6_7 arXiv:2401.99999", "ABCdef ABcD aBC A1b2C3",
]


def test_the_python_and_javascript_tokenizers_agree(chromium) -> None:  # noqa: ANN001
    src = SEARCH_JS.read_text("utf-8")
    fn = re.search(r"\n  (function words\(text\) \{.*?\n  \})\n", src, re.S)
    assert fn, "search.js has no words(text) function"
    with borrowed(chromium) as browser:
        page = browser.new_page()
        got = page.evaluate(f"(texts) => {{ {fn.group(1)}; return texts.map(words); }}", BATTERY + COMPOUNDS)
    want = [[list(run) for run in words(t)] for t in BATTERY + COMPOUNDS]
    assert got == want, [(t, g, w) for t, g, w in zip(BATTERY + COMPOUNDS, got, want) if g != w]
    assert [tokens(t) for t in BATTERY] == [[w for run in found for w in run] for found in want[:len(BATTERY)]]
    assert tokens(BATTERY[0]) == ["schrodinger", "equation", "naive", "cafe"]
    assert tokens(BATTERY[9]) == ["o", "brien", "l", "hopital", "d", "alembert"]
    assert tokens(BATTERY[1]) == ["strasse", "strasse", "mass"] and "οδοσ" in tokens(BATTERY[2])
    assert words("self-supervised")[0] == ("selfsupervised", "self", "supervised")
    assert tokens(BATTERY[11]) == ["rocket", "science"]


def test_compound_words_are_their_whole_and_their_parts() -> None:
    """Issue 45: "diffusion" finds SparkDiffusion; "sparkdiffusion" still does."""
    assert words("SparkDiffusion FlashPrefill") == [("sparkdiffusion", "spark", "diffusion"),
                                                    ("flashprefill", "flash", "prefill")]
    assert words("HTMLParser LLMs GPT-4o ResNet50 3D") == [
        ("htmlparser", "html", "parser"), ("llms",), ("gpt4o", "gpt", "4", "o"), ("resnet50", "res", "net", "50"),
        ("3d", "3", "d")]
    assert words("Spark diffusion ÉcoleNormale") == [("spark",), ("diffusion",), ("ecolenormale", "ecole", "normale")]
    assert words("深度Learning") == [("深度learning", "深度", "learning")]


def test_the_ascii_shortcut_cuts_as_the_general_rule() -> None:
    """ASCII text takes a shortcut (``ascii_words``, on the characters themselves); the general rule
    (on the characters' classes) must cut it alike: each string with a non-ASCII character added
    as a separate word, which sends it the general way."""
    for text in BATTERY + COMPOUNDS:
        if text.isascii():
            assert ascii_words(text) + [("e",)] == words(text + " é"), text


def _site(authors: tuple, record_authors: dict, pages: tuple = ()) -> SiteModel:
    return SiteModel(title="t", description="", base_url="/", language="en", authors=authors, subjects=(),
                     pages=pages, record_authors=record_authors, paginate=50, cname=None)


def _author(slug: str, name: str, records: tuple) -> Author:
    return Author(slug=slug, name=name, affiliation="Lab", bio_html="<p>Bio</p>", links=(), records=records,
                  subjects=(), years=())


def test_a_shared_record_is_indexed_once_under_its_first_author() -> None:
    shared, own = Record(key="arxiv:2401.00001", title="Shared", year=2024), Record(key="t:b", title="B's", year=2024)
    a = _author("ada", "Ada", (shared,))
    b = dataclasses.replace(a, slug="bob", name="Bob", records=(shared, own))
    site = _site((a, b), {shared.key: ("ada", "bob"), own.key: ("bob",)})
    assert indexed_records(site) == {"ada": (shared,), "bob": (own,)}
    alone = indexed_records(_site((b,), {shared.key: ("bob",), own.key: ("bob",)}))
    assert alone == {"bob": (shared, own)}


def test_documents_are_the_pages_then_the_papers_up_to_the_newest_as_plain_text() -> None:
    hostile = '<script>alert(1)</script> & "q"'
    old = Record(key="arxiv:2001.00001", title="Old $x^2$ paper", year=2020, arxiv_id="2001.00001",
                 published="2020-01-01T00:00:00Z", authors=(Person(hostile), Person("Ada Lovelace")),
                 abstract="An abstract about concertinas.", subjects=("cs.LG", "math.CO"), doi="10.1/ABC")
    new = Record(key="title:b", title="New", year=2024)
    tie = Record(key="title:a", title="Tie", year=2024)
    a = _author("eve", hostile, (new, tie, old))
    page = Page(name="about", title="About <us>", body_html="<p>We study <em>things</em> &amp; more.</p>")
    texts, rows = documents(_site((a,), {r.key: ("eve",) for r in (old, new, tie)}, (page,)))
    # search.js ranks the higher id first among equal scores: the newest paper, then (same date) the first key
    assert [r[1] for r in rows] == ["About <us>", "Old x² paper", "New", "Tie"]
    assert texts[1] == ("Old x² paper", f"{hostile}, Ada Lovelace 2001.00001 10.1/ABC")
    assert rows[1] == (f"papers/{paper_key(old.key)}/", "Old x² paper", f"{hostile}, Ada Lovelace", "2020",
                       "cs.LG math.CO", hostile)   # text: search.js shows it with textContent
    assert texts[0][0] == "About <us>" and " ".join(texts[0][1].split()) == "We study things & more."
    assert rows[0] == ("pages/about/", "About <us>", "", "", "", "")
    assert "concertinas" not in repr(texts) and "Bio" not in repr(texts)   # no abstracts, no author's bio
    assert document_text(old)[2] == "2001.00001 10.1/ABC"


def test_a_record_typed_in_without_authors_is_found_by_its_authors_name() -> None:
    """The demo's 36 seed records have no author list: "cui" found none of Bin Cui's papers. Such a
    record is its author's own (as the exports say), so the name is searched; the row still shows
    no byline, as the page does."""
    own = Record(key="title:x", title="SparkDiffusion", year=2024)
    listed = Record(key="title:y", title="Shared work", year=2024, authors=(Person("Ada Lovelace"),))
    texts, rows = documents(_site((_author("bin-cui", "Bin Cui", (own, listed)),), {"title:x": ("bin-cui",),
                                                                                    "title:y": ("bin-cui",)}))
    assert sorted(texts) == [("Shared work", "Ada Lovelace "), ("SparkDiffusion", "Bin Cui ")]
    assert {r[1]: r[2] for r in rows} == {"SparkDiffusion": "", "Shared work": "Ada Lovelace"}


def test_the_index_files_are_as_documented_and_the_same_every_time(tmp_path: Path) -> None:
    texts = [(f"Graph {'learning' if i % 2 else 'theory'} {i}", f"Ada Lovelace {i:05d}") for i in range(700)]
    texts.append(("Graph", "lovelace"))
    rows = [(f"u{i}", f"title {i}", "", "", "", "") for i in range(len(texts))]
    for name in ("one", "two"):
        write_index(tmp_path / name, texts, rows)
    one = {p.relative_to(tmp_path / "one").as_posix(): p.read_bytes() for p in (tmp_path / "one").rglob("*.json")}
    two = {p.relative_to(tmp_path / "two").as_posix(): p.read_bytes() for p in (tmp_path / "two").rglob("*.json")}
    assert one == two, "two builds of the index differ"
    meta = json.loads(one["meta.json"])
    assert f"meta.version !== {FORMAT}" in SEARCH_JS.read_text("utf-8"), "search.js reads another format"
    assert meta["docs"] == 701 and meta["chunk"] == CHUNK and meta["words"] == MAX_SHARDS_PER_WORD
    assert sorted(k for k in one if k.startswith("d/")) == sorted(f"d/{name}.json" for name in meta["d"])
    assert len(meta["d"]) == -(-701 // CHUNK) and len(meta["t"]) == len(meta["shards"])
    for kind in ("t", "d"):   # each file is named by its number and the digest of its bytes
        for n, name in enumerate(meta[kind]):
            data = one[f"{kind}/{name}.json"]
            assert name == f"{n}-{hashlib.sha256(data).hexdigest()[:12]}"
    assert json.loads(one[f"d/{meta['d'][5]}.json"])[60] == [f"u{5 * CHUNK + 60}", f"title {5 * CHUNK + 60}", "", "", "", ""]
    merged: dict[str, list] = {}
    for n, first in enumerate(meta["shards"]):
        data = one[f"t/{meta['t'][n]}.json"]
        shard = json.loads(data)
        assert next(iter(shard)) == first and b" " not in data
        assert not merged.keys() & shard.keys(), "a term in two shards"
        merged.update(shard)
    assert list(merged) == sorted(merged, key=lambda t: t.encode("utf-16-be"))
    undelta = [list(itertools.accumulate(d)) for d in merged["graph"]]
    assert undelta == [list(range(701)), []]   # every title has it: none in the other list
    assert merged["lovelace"] == [[], [0] + [1] * 700]
    assert merged["learning"][0][:3] == [1, 2, 2]


def test_shards_hold_consecutive_terms_up_to_their_size() -> None:
    index = postings([(f"t{i:04d} common", "") for i in range(3000)])
    out = shards(index)
    assert len(out) > 1 and all(len(data) <= SHARD_BYTES + 200 for _, data in out[:-1])
    assert [first for first, _ in out] == sorted(first for first, _ in out)


def test_the_search_job_reads_what_it_indexes() -> None:
    from generator.render import jobs
    from generator.render.digest import Digester

    shared, own = Record(key="arxiv:2401.00001", title="Shared", year=2024), Record(key="t:b", title="B's", year=2024)
    a = _author("ada", "Ada", (shared,))
    b = dataclasses.replace(a, slug="bob", name="Bob", records=(shared, own))
    both = _site((a, b), {shared.key: ("ada", "bob"), own.key: ("bob",)})
    alone = _site((b,), {shared.key: ("bob",), own.key: ("bob",)})   # Ada gone: Bob's document holds it
    [with_ada], [without] = search_tasks(both), search_tasks(alone)
    assert with_ada.rel_path == routes.search_index().path
    # (each author's digest of its slug, name and the records indexed under it: generator.incremental.search_kept.authored)
    assert Digester(both).digest(("bob", "Bob", (own,))) in with_ada.reads[0]
    assert Digester(alone).digest(("bob", "Bob", (shared, own))) in without.reads[0]
    digest = [jobs.plan_jobs([t], site, b"")[0].digest for t, site in ((with_ada, both), (without, alone))]
    assert digest[0] != digest[1]
    moved = _site((dataclasses.replace(a, affiliation="Elsewhere", bio_html="<p>New</p>"), b), both.record_authors)
    assert jobs.plan_jobs(search_tasks(moved), moved, b"")[0].digest == digest[0], "not indexed: not read"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


def test_a_two_word_query_finds_each_authors_papers_within_the_request_budget(tmp_path: Path, chromium) -> None:  # noqa: ANN001
    root = synthetic_site(tmp_path / "syn")
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "generator", "-q", "-C", str(root), "build", "--base-url", "/",
                    "--output", str(out)], check=True, capture_output=True)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_port}/"
    try:
        with borrowed(chromium) as browser:
            for slug in ("a000", "a037"):
                page = browser.new_page()
                page.goto(base + "search/", wait_until="load")
                reqs: list[str] = []
                page.on("request", lambda r: reqs.append(r.url))
                name = re.search(r"<h1>([^<]+)</h1>", (out / f"authors/{slug}/index.html").read_text()).group(1)
                page.goto(base + "search/?q=" + name.replace(" ", "+"))
                page.wait_for_selector("main .hit-title", timeout=15000)
                page.wait_for_load_state("networkidle")
                hrefs = [e.get_attribute("href") or "" for e in page.query_selector_all("main .hit-title")]
                assert any(h.startswith(f"{base}papers/") for h in hrefs), hrefs   # (its paper pages)
                count = page.inner_text("main .search-count")
                assert int(count.split()[0]) >= 25, count   # each of the author's 25 papers, at least
                fetched = [u for u in reqs if "/search/index/" in u]   # meta, a shard per word, chunks shown
                assert any(u.endswith("/static/search.js") for u in reqs)
                assert 1 + len(fetched) <= 20 and len(fetched) <= 1 + 2 * MAX_SHARDS_PER_WORD + 10, fetched
                page.close()
    finally:
        srv.shutdown()


def test_abstracts_are_searched_on_a_labs_site_unless_site_yaml_says(tmp_path: Path) -> None:
    """site.yaml ``search: {abstracts: ...}`` (issue 45): when absent, on for at most LAB_AUTHORS
    authors and off above (bench/search_abstracts.py measured what they cost at 1,000 x 100)."""
    from generator.assemble.site import assemble
    from generator.config import load_site
    from generator.config.schema import LAB_AUTHORS
    from generator.core.taxonomy import load_taxonomy
    from generator.store.reader import read_all

    root = tmp_path / "site"
    (root / "content/authors").mkdir(parents=True)

    def searched(authors: int, yaml: str = "") -> bool:
        for p in (root / "content/authors").iterdir():
            p.unlink()
        for i in range(authors):
            (root / f"content/authors/a{i:03d}.yaml").write_text(f"name: Author {i}\n", "utf-8")
        (root / "site.yaml").write_text("title: T\n" + yaml, "utf-8")
        config = load_site(root)
        return assemble(config, read_all(config), load_taxonomy()).search_abstracts

    assert searched(3) and not searched(LAB_AUTHORS + 1)
    assert searched(LAB_AUTHORS + 1, "search:\n  abstracts: true\n") and not searched(3, "search: {abstracts: false}\n")
    r = Record(key="arxiv:2001.00001", title="T", year=2020, arxiv_id="2001.00001", abstract=r"On \emph{FlashPrefill}.")
    assert document_text(r, abstracts=True)[2] == "2001.00001 On FlashPrefill."
    assert document_text(r)[2] == "2001.00001"
