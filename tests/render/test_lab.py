"""The lab's list (/publications/, issue 31 points 1, 3 and 6), on the lab fixture and the demo.

tests/fixtures/lab-years: eight fictional members whose typed-in records overlap, two alumni
with their years. What the list must show was worked out by hand from the author files, and is
written here (WORKS, COUNTS, PAIRS), not computed by the code under test: each work once, the
counts of every filter, members emphasised, a paper from before a member's ``from`` on her page
but not on the list, the alumni's years on the home page, and who works with whom.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, build, copy_demo, parse_html, tree_state

LAB = REPO / "tests" / "fixtures" / "lab-years"

# The works on the list (title -> kind, members it counts for), from the author files: a work is
# counted for each author who lists it and was a member the year it appeared.
WORKS = {
    "Engines That Learn": ("journal", {"ada-lovelace", "grace-hopper", "li-na"}),
    "Engines of Difference": ("preprint", {"ada-lovelace", "charles-babbage", "mary-somerville"}),
    "A Logic of Engines": ("journal", {"ada-lovelace", "alan-turing"}),   # arXiv + DOI and DOI only: one
    "Compiling for Engines": ("conference", {"alan-turing", "grace-hopper", "li-na"}),
    "Programs for Difference Engines": ("conference", {"charles-babbage", "grace-hopper", "mary-somerville"}),
    "Tables by Engine": ("preprint", {"alan-turing", "charles-babbage", "mary-somerville"}),
    "On Undecidable Engines": ("thesis", {"kurt-goedel"}),
    "A Talk on Symmetric Engines": ("other", {"ada-lovelace", "emmy-noether"}),
    "Invariants of Engines": ("journal", {"emmy-noether"}),   # 2017: Ada is a member from 2018
    "Proofs About Rings of Engines": ("preprint", {"emmy-noether", "kurt-goedel"}),
}
NOT_LISTED = {"Rings Before the Lab": {"emmy-noether", "kurt-goedel"},   # 2014: before both joined
              "Rings After the Lab": {"emmy-noether"}}                     # 2022: after Emmy left (2020)
COUNTS = {
    "year": {"2025": 1, "2024": 1, "2023": 1, "2022": 1, "2021": 1, "2020": 1, "2019": 1, "2018": 1, "2017": 2},
    "member": {"ada-lovelace": 4, "alan-turing": 3, "charles-babbage": 3, "grace-hopper": 3, "li-na": 2,
               "mary-somerville": 3, "emmy-noether": 3, "kurt-goedel": 2},
    "kind": {"journal": 3, "conference": 2, "preprint": 3, "thesis": 1, "other": 1},
    "subject": {"cs.DS": 3, "cs.LO": 3, "math.LO": 3, "cs.PL": 2},
}
GROUPS = {"Current members": 7, "Alumni": 4}
# Works together, over every work (members' years aside), site order within a pair.
PAIRS = {
    ("ada-lovelace", "alan-turing"): 1, ("ada-lovelace", "charles-babbage"): 1, ("ada-lovelace", "emmy-noether"): 2,
    ("ada-lovelace", "grace-hopper"): 1, ("ada-lovelace", "li-na"): 1, ("ada-lovelace", "mary-somerville"): 1,
    ("alan-turing", "charles-babbage"): 1, ("alan-turing", "grace-hopper"): 1, ("alan-turing", "li-na"): 1,
    ("alan-turing", "mary-somerville"): 1, ("charles-babbage", "grace-hopper"): 1,
    ("charles-babbage", "mary-somerville"): 3, ("emmy-noether", "kurt-goedel"): 2, ("grace-hopper", "li-na"): 2,
    ("grace-hopper", "mary-somerville"): 1,
}
NAMES = {"ada-lovelace": "Ada Lovelace", "alan-turing": "Alan Turing", "charles-babbage": "Charles Babbage",
         "emmy-noether": "Emmy Noether", "grace-hopper": "Grace Hopper", "kurt-goedel": "Kurt Goedel",
         "li-na": "Li Na", "mary-somerville": "Mary Somerville"}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lab-years") / "site"
    shutil.copytree(LAB, root)
    return build(root)


def _page(out: Path, rel: str) -> str:
    return (out / rel).read_text("utf-8")


def filter_counts(html: str) -> dict[str, dict[str, int]]:
    """The count each filter link of the list's page says, by facet and value."""
    out: dict[str, dict[str, int]] = {}
    for a in parse_html(html).find_all("a"):
        if "data-facet" in a.attrs:
            n = a.find("span", "n").text().strip("() ")
            out.setdefault(a.attrs["data-facet"], {})[a.attrs["data-value"]] = int(n)
    return out


def listed_counts(html: str) -> dict[str, dict[str, int]]:
    """The same counts, made from the entries the page lists (their sections and data attributes)."""
    out: dict[str, dict[str, int]] = {"year": {}, "member": {}, "kind": {}, "subject": {}}
    for section in parse_html(html).find_all("section", "year"):
        for li in section.find_all("li", "record"):
            for facet, values in (("year", [section.attrs["data-year"]]), ("kind", [li.attrs["data-kind"]]),
                                  ("member", li.attrs["data-members"].split()),
                                  ("subject", li.attrs["data-subjects"].split())):
                for v in values:
                    out[facet][v] = out[facet].get(v, 0) + 1
    return {k: v for k, v in out.items() if v}


def entries(html: str) -> dict[str, tuple[str, set[str]]]:
    """Title -> (kind, members) of every entry; a title twice fails."""
    found: dict[str, tuple[str, set[str]]] = {}
    for li in parse_html(html).find("div", "lab-list").find_all("li", "record"):
        title = li.find("h3", "record-title").text().strip()
        assert title not in found, f"{title!r} is listed twice"
        found[title] = (li.attrs["data-kind"], set(li.attrs["data-members"].split()))
    return found


def test_the_list_holds_each_work_once_with_its_kind_and_members(lab: Path) -> None:
    html = _page(lab, "publications/index.html")
    assert entries(html) == WORKS
    years = [s.attrs["data-year"] for s in parse_html(html).find_all("section", "year")]
    assert years == sorted(years, reverse=True), "newest first, one section a year"


def test_every_filter_says_how_many_works_it_keeps(lab: Path) -> None:
    html = _page(lab, "publications/index.html")
    assert filter_counts(html) == COUNTS
    assert listed_counts(html) == COUNTS
    groups = {m.group(1): int(m.group(2)) for m in
              re.finditer(r'<span class="label">([^<]+) <span class="n">\((\d+)\)</span>:</span>', html)}
    assert groups == GROUPS


def test_members_are_emphasised_in_every_byline(lab: Path) -> None:
    doc = parse_html(_page(lab, "publications/index.html"))
    bylines = doc.find_all("p", "record-authors")
    assert len(bylines) == len(WORKS)
    for p in bylines:
        strong = [s.text() for s in p.find_all("strong", "member")]
        assert strong and all(name in NAMES.values() for name in strong)
        assert [a.text() for s in p.find_all("strong", "member") for a in s.find_all("a", "person")] == strong
        # every name of the byline is a member here: nothing else is left unemphasised
        names = [n.strip() for n in p.text().split(",")]
        assert names == strong


def test_a_paper_from_outside_a_members_years_is_on_her_page_not_on_the_list(lab: Path) -> None:
    listed = entries(_page(lab, "publications/index.html"))
    for title, authors in NOT_LISTED.items():
        assert title not in listed
        for slug in authors:
            assert title in _page(lab, f"authors/{slug}/index.html"), (title, slug)
    ada = _page(lab, "authors/ada-lovelace/index.html")
    assert "Invariants of Engines" in ada and listed["Invariants of Engines"][1] == {"emmy-noether"}


def test_the_home_page_shows_the_members_years(lab: Path) -> None:
    home = parse_html(_page(lab, "index.html"))
    years = {c.find("h3").text().strip(): c.find("p", "years").text() for c in home.find_all("li", "card")
             if c.find_all("p", "years")}
    assert years == {"Ada Lovelace": "Member since 2018", "Alan Turing": "Member since 2019",
                     "Grace Hopper": "Member since 2021", "Li Na": "Member since 2022",
                     "Mary Somerville": "Member since 2020", "Emmy Noether": "Member 2016–2020",
                     "Kurt Goedel": "Member 2015–2019"}
    alumni = _page(lab, "index.html").split(">Alumni</h2>")[1]
    assert "Member 2016–2020" in alumni and "Member 2015–2019" in alumni


def test_who_works_with_whom_one_edge_per_pair_as_wide_as_their_works(lab: Path) -> None:
    doc = parse_html(_page(lab, "publications/index.html"))
    section = doc.find("section", "coauthors")
    lines = {tuple(line.attrs["data-pair"].split()): (int(line.attrs["data-count"]), int(line.attrs["stroke-width"]))
             for line in section.find_all("line")}
    assert len(section.find_all("line")) == len(PAIRS)
    assert lines == {pair: (n, min(n, 12)) for pair, n in PAIRS.items()}
    rows = {(tr.find_all("td")[0].text(), tr.find_all("td")[1].text()): int(tr.find_all("td")[2].text())
            for tr in section.find("tbody").find_all("tr")}
    assert rows == {(NAMES[a], NAMES[b]): n for (a, b), n in PAIRS.items()}
    nodes = {a.attrs["href"]: a.find("text").text() for a in section.find("svg").find_all("a")}
    assert nodes == {f"/authors/{slug}/": name for slug, name in NAMES.items()}


def test_the_list_has_its_feed_bibtex_and_csl_json(lab: Path) -> None:
    feed = _page(lab, "publications/feed.xml")
    assert feed.count("<entry>") == len(WORKS)
    bib = _page(lab, "publications/publications.bib")
    assert len(re.findall(r"^@\w+\{", bib, re.M)) == len(WORKS)
    csl = json.loads(_page(lab, "publications/publications.json"))
    assert sorted(item["title"] for item in csl) == sorted(WORKS)
    home = _page(lab, "index.html")
    assert '<a href="/publications/">Publications</a>' in home


def test_the_demo_lists_every_work_of_its_authors_once(demo) -> None:  # noqa: ANN001
    html = demo.read("publications/index.html")
    listed = [li.find("h3", "record-title").attrs["id"] for li in parse_html(html).find_all("li", "record")]
    assert len(listed) == len(set(listed))
    on_pages = set()
    for page in (demo.out / "authors").glob("*/index.html"):
        doc = parse_html(page.read_text("utf-8"))
        on_pages |= {h.attrs["id"] for h in doc.find_all("h3", "record-title") if "id" in h.attrs}
    assert set(listed) == on_pages
    assert filter_counts(html) == listed_counts(html)
    assert sum(filter_counts(html)["year"].values()) == len(listed)
    assert sum(filter_counts(html)["kind"].values()) == len(listed)
    # members bold and linked in every byline, the other names plain
    profiled = {"Bin Cui", "Bingning Wang", "Jane Doe"}
    doc = parse_html(html)
    strong = {s.text() for s in doc.find_all("strong", "member")}
    assert strong and strong <= profiled
    assert not {b.text() for b in doc.find_all("bdi")} & profiled


def test_member_years_are_checked_with_file_line_and_key(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(LAB, root)
    f = root / "content/authors/emmy-noether.yaml"
    f.write_text(f.read_text("utf-8").replace("until: 2020", "until: 2012"), "utf-8")
    res = subprocess.run([sys.executable, "-m", "generator", "-C", str(root), "build"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode != 0
    line = next(i for i, text in enumerate(f.read_text("utf-8").splitlines(), 1) if "until: 2012" in text)
    assert f"content/authors/emmy-noether.yaml:{line}: 'member.until' (2012) is before 'member.from' (2016)" \
        in res.stderr
    f.write_text(f.read_text("utf-8").replace("member:\n  from: 2016\n  until: 2012", "member: 2016"), "utf-8")
    res = subprocess.run([sys.executable, "-m", "generator", "-C", str(root), "build"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode != 0 and "'member' must be a mapping such as {from: 2019, until: 2023}" in res.stderr
    assert not (root / "output").exists()


def test_a_rebuild_after_members_years_change_equals_a_clean_build(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(LAB, root)
    build(root)
    f = root / "content/authors/emmy-noether.yaml"
    f.write_text(f.read_text("utf-8").replace("until: 2020", "until: 2022"), "utf-8")
    out = build(root)
    assert "Rings After the Lab" in _page(out, "publications/index.html")
    clean = tmp_path / "clean"
    shutil.copytree(root, clean, ignore=shutil.ignore_patterns("output", ".authorsite"))
    assert tree_state(out) == tree_state(build(clean))


def test_the_list_can_be_turned_off(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "site")
    (root / "site.yaml").write_text((root / "site.yaml").read_text("utf-8") + "publications: false\n", "utf-8")
    out = build(root)
    assert not (out / "publications").exists()
    assert "/publications/" not in (out / "index.html").read_text("utf-8")
    assert "/publications/" not in (out / "sitemap.xml").read_text("utf-8")


def test_a_site_of_more_than_a_labs_authors_has_the_list_only_when_it_asks(tmp_path: Path) -> None:
    from generator.config.schema import LAB_AUTHORS

    root = tmp_path / "site"
    (root / "content/authors").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Many\n", "utf-8")
    for i in range(LAB_AUTHORS + 1):
        (root / f"content/authors/a{i:03d}.yaml").write_text(f"name: Author {i}\n", "utf-8")
    assert not (build(root) / "publications").exists()
    (root / "site.yaml").write_text("title: Many\npublications: true\n", "utf-8")
    assert (build(root) / "publications/index.html").is_file()
