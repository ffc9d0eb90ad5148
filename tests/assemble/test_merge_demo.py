"""The demo's example author (content/authors/jane-doe.yaml, issue 14 acceptance 2): an arXiv preprint,
DBLP's CoRR copy of it and the published PVLDB article, each from its own committed cache file, are
one entry on the page showing the published venue, the arXiv and DOI/DBLP links and the arXiv abstract."""

from __future__ import annotations

from generator.core import routes
from helpers import page_records


def test_the_example_author_shows_one_entry_for_the_preprint_and_its_article(demo) -> None:  # noqa: ANN001
    html = demo.read(routes.author("jane-doe").path)
    listed = html[html.index("data-list-controls"):]      # the year lists, after "Selected publications"
    titles = [r.title_html for r in page_records(listed)]
    assert titles.count("Learned Indexes for Skewed Workloads") == 1
    # of 7 cached records (2 arXiv, 5 DBLP): the CoRR copy and the article merged; plus one typed in
    assert len(titles) == 6 and "Skewed Workloads in Practice: A Poster" in titles
    start = html.index('id="r-2401-99999"')
    entry = html[html.rindex('<li class="record"', 0, start):html.index("</li>", start)]
    assert '<i class="venue" dir="auto">Proc. VLDB Endow.</i>' in entry and "2024" not in entry.split("</p>")[0]   # one year
    assert "Learned indexes replace the inner nodes of a search tree" in entry      # the arXiv abstract
    for label, url in [("arXiv", "https://arxiv.org/abs/2401.99999"),
                       ("DOI", "https://doi.org/10.5555/example.2025.2"),
                       ("DBLP", "https://dblp.org/rec/journals/pvldb/DoeS25.html")]:
        assert f'<a href="{url}">{label}</a>' in entry, label
    assert "DBLP 2" not in entry and "journals/corr/abs-2401-99999" not in entry   # arXiv's copy: the arXiv link
