"""Issue 31, acceptance 5, and issue 45, acceptance 5, over built pages: the demo in every language
the theme ships (``de``, ``zh-Hans``, ``ar``, ``es``, ``fr``, ``ja``).

* No English word of the theme is left on any page type (home, author, subjects, a subject and
  its second page, venues, a venue, search, a free page, 404; the feeds' subtitles): the list of
  English strings is the theme's catalogue (generator/locale/messages.pot), each message a pattern
  (its ``%(name)s`` match any value) matched against every element's text and every attribute;
  a message a language writes as English does (Code, GitHub) is not looked for.
* Dates and counts are the locale's.
* In ``ar`` (right to left), what must read left to right is isolated: every date, DOI, arXiv id
  and version list on every page is inside ``<bdi>`` or ``dir="ltr"`` (Jane Doe's DOI and version
  dates among them), so none comes out reversed ("example.2025.2/10.5555").
* A site catalogue (``locale/de/messages.po``) changes a string and adds one; an incremental
  rebuild after editing it equals a clean build, byte for byte.
* ``name_native`` shows on the author page and in bylines, with its ``lang``.
* vnu finds no error on any of the pages, and none scrolls sideways in Chromium at 320, 390 and
  1280 px (German words are long).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from babel.messages.pofile import read_po
from helpers import build, copy_demo, tree_state
from quality_util import format_vnu, require_node_tools, run_vnu, static_server
from selectolax.lexbor import LexborHTMLParser

from generator.render import i18n

REPO = Path(__file__).resolve().parent.parent.parent
LOCALE = REPO / "generator" / "locale"
PLACEHOLDER = re.compile(r"%\(\w+\)s")
# A page of each type, as the demo (paginated by 5) builds it.
PAGE_TYPES = ("index.html", "authors/jane-doe/index.html", "authors/bin-cui/index.html", "subjects/index.html",
              "subjects/cs.CL/index.html", "subjects/cs.CL/page/2/index.html", "venues/index.html",
              "search/index.html", "pages/about/index.html", "404.html")


def _site(root: Path, language: str) -> Path:
    copy_demo(root)
    text = (root / "site.yaml").read_text("utf-8")
    text = re.sub(r"(?m)^language: .*$", f"language: {language}", text)
    text = re.sub(r"(?m)^paginate: .*$", "paginate: 5", text)
    (root / "site.yaml").write_text(text + "authors_shown: 2\n", encoding="utf-8")
    author = root / "content" / "authors" / "jane-doe.yaml"
    author.write_text(author.read_text("utf-8").replace("name: Jane Doe\n", "name: Jane Doe\nname_native: ジェーン・ドウ\n"
                                                        "name_native_lang: ja\n"), encoding="utf-8")
    return root


LANGUAGES = sorted(tag for folder, tag in i18n.SHIPPED.items() if folder != i18n.SOURCE)
# Words of each language on Jane Doe's page: her pinned records' heading and the abstracts' button.
WORDS = {"de": ("Ausgewählte Publikationen", "Alle Zusammenfassungen zeigen"), "zh-Hans": ("代表性论文", "摘要"),
         "ar": ("منشورات مختارة", "عرض جميع الملخصات"), "es": ("Publicaciones destacadas", "Mostrar todos los resúmenes"),
         "fr": ("Publications choisies", "Afficher tous les résumés"), "ja": ("主要業績", "すべての概要を表示")}


@pytest.fixture(scope="module", params=LANGUAGES)
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return request.param, _built(request.param, tmp_path_factory)


_BUILT: dict[str, Path] = {}


def _built(language: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo built in ``language``, once per test process (``built`` and ``arabic`` share it)."""
    if language not in _BUILT:
        _BUILT[language] = build(_site(tmp_path_factory.mktemp(f"i18n-{language}") / "site", language))
    return _BUILT[language]


@pytest.fixture(scope="module")
def arabic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _built("ar", tmp_path_factory)


def _english(folder: str) -> re.Pattern[str]:
    """One pattern of every English message the language writes otherwise (tags dropped: a
    message with a link is matched against its element's text)."""
    with open(LOCALE / "messages.pot", "rb") as f:
        template = read_po(f)
    translations = i18n.translations(i18n.site_language(None, folder.replace("_", "-")))
    patterns = []
    for m in template:
        for n, msgid in enumerate(((m.id,) if isinstance(m.id, str) else m.id) if m.id else (), 1):
            # each English form against the language's for that count (French writes "1 publication" too)
            said = translations.gettext(msgid) if isinstance(m.id, str) else translations.ngettext(*m.id, n)
            words = re.sub(r"<[^>]+>", "", msgid)
            if said == msgid or not re.search(r"[A-Za-z]{3}", PLACEHOLDER.sub("", words)):
                continue   # written as English writes it (a name), or no English word (%(num)sth)
            parts = PLACEHOLDER.split(words)
            patterns.append(".+?".join(re.escape(p) for p in parts))
    return re.compile("|".join(f"(?:{p})" for p in sorted(patterns, key=len, reverse=True)))


def _texts(html: str) -> list[str]:
    """Each element's text (short ones: a message is a sentence at most), and every attribute."""
    tree = LexborHTMLParser(html)
    out = []
    for node in tree.css("*"):
        if node.tag in ("script", "style", "svg"):
            continue
        text = " ".join(node.text(deep=True).split())
        if text and len(text) < 600:
            out.append(text)
        out += [" ".join(v.split()) for v in node.attributes.values() if v]
    out += [" ".join(t.text().split()) for t in tree.css("svg title")]
    return out


def test_no_english_word_of_the_theme_is_left_on_any_page_type(built: tuple[str, Path]) -> None:
    language, out = built
    english = _english(i18n.catalogue_for(i18n.parse_locale(language)))
    assert all(english.fullmatch(t) for t in ("Selected publications", "At least 18 records", "Page 2 of 3",
                                               "Records per year: 2024: 3, 2025: 1", "Search records"))
    pages = sorted(out.rglob("*.html"))
    assert {str(p.relative_to(out)) for p in pages} >= set(PAGE_TYPES)
    venue = next(p for p in pages if p.parent.parent.name == "venues")   # venues/<slug>/index.html
    left = {}
    for page in pages:
        found = sorted({t for t in _texts(page.read_text("utf-8")) if english.fullmatch(t)})
        if found:
            left[str(page.relative_to(out))] = found
    assert left == {}, f"English left on {language} pages (of {len(pages)}, {venue.parent.name} among them)"
    for feed in [out / "feed.xml", *out.glob("authors/*/feed.xml"), *out.glob("subjects/*/feed.xml")]:
        subtitle = re.search(r"<subtitle>(.*)</subtitle>", feed.read_text("utf-8")).group(1)
        assert not english.fullmatch(subtitle), (feed, subtitle)


def test_the_words_and_formats_are_the_languages(built: tuple[str, Path]) -> None:
    language, out = built
    home, jane = (out / "index.html").read_text("utf-8"), (out / "authors/jane-doe/index.html").read_text("utf-8")
    assert f'<html lang="{language}"' in home
    dates = re.findall(r'<time datetime="(\d{4})-(\d\d)-(\d\d)[^"]*">([^<]*)</time>', jane)
    assert dates
    for y, m, d, shown in dates:
        want = {"de": f"{d}.{m}.{y}", "zh-Hans": f"{y}年{int(m)}月{int(d)}日", "ar": f"{d}\u200f/{m}\u200f/{y}",
                "ja": f"{y}/{m}/{d}"}.get(language)
        assert shown == want if want else re.fullmatch(rf"{int(d)} \w+\.? {y}", shown), shown   # es, fr: 1 mar 2024
    assert all(word in jane for word in WORDS[language])
    if language == "de":
        assert "Ausgewählte Publikationen" in jane and ">Mindestens 18 Einträge<" in (out / "authors/bin-cui/index.html").read_text("utf-8")
        assert 'data-status-other="{n} Einträge in {code}"' in jane and 'data-copied="BibTeX kopiert."' in jane
        assert re.search(r"<span>Seite 1 von \d+</span>", (out / "subjects/cs.CL/index.html").read_text("utf-8"))
        assert "<subtitle>Neue Einträge der vorgestellten Autoren.</subtitle>" in (out / "feed.xml").read_text("utf-8")
    elif language == "zh-Hans":
        assert "代表性论文" in jane and ">至少 18 条记录<" in (out / "authors/bin-cui/index.html").read_text("utf-8")
        assert re.search(r"<span>第 1 页，共 \d+ 页</span>", (out / "subjects/cs.CL/index.html").read_text("utf-8"))


_VNU: dict[str, list[dict]] = {}


def _vnu_errors(language: str, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The Nu checker's errors on every page of the demo built in ``language``. The checker runs
    once over the pages of every language (each built once per test process anyway, by
    ``_built``): a start of the JVM costs most of a run over one language's pages. Each message
    goes to the language whose folder holds the page it names; one that names no page of any
    language goes to every language, so no error is ever lost."""
    if not _VNU:
        outs = {lang: _built(lang, tmp_path_factory) for lang in LANGUAGES}
        messages = run_vnu([page for out in outs.values() for page in sorted(out.rglob("*.html"))])
        found: dict[str, list[dict]] = {lang: [] for lang in LANGUAGES}
        for m in messages:
            url = m.get("url", "")
            page = Path(unquote(urlsplit(url).path)).resolve() if url.startswith("file:") else None
            owners = [lang for lang, out in outs.items() if page is not None and page.is_relative_to(out.resolve())]
            for lang in owners or LANGUAGES:
                found[lang].append(m)
        _VNU.update(found)
    return _VNU[language]


def test_the_translated_pages_are_valid_html(built: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> None:
    """vnu finds no error on any page (a translation is HTML: a stray quote in an attribute's
    message would show here)."""
    require_node_tools()
    language, out = built
    errors = _vnu_errors(language, tmp_path_factory)
    assert errors == [], "\n".join(format_vnu(e, out) for e in errors)


def test_longer_words_scroll_nothing_sideways(built: tuple[str, Path], browser) -> None:  # noqa: ANN001
    """German words are longer than English ones (and the list controls do not wrap): at 320, 390
    and 1280 px no page type scrolls sideways in Chromium."""
    _, out = built
    wide = []
    with static_server(out) as base:
        for width in (320, 390, 1280):
            page = browser.new_page(viewport={"width": width, "height": 800})
            try:
                for rel in PAGE_TYPES:
                    page.goto(base + rel.removesuffix("index.html"), wait_until="load")
                    sw = page.evaluate("document.scrollingElement.scrollWidth")
                    if sw > width:
                        wide.append(f"{rel} at {width} px: scrollWidth {sw}")
            finally:
                page.close()
    assert wide == []


def test_a_byline_shows_a_name_in_its_own_script(built: tuple[str, Path]) -> None:
    _, out = built
    page = (out / "authors/jane-doe/index.html").read_text("utf-8")
    assert '<h1>Jane Doe <span class="name-native" lang="ja">ジェーン・ドウ</span></h1>' in page
    assert '"alternateName":"ジェーン・ドウ"' in page
    assert ('>Jane Doe</a> <span class="name-native" lang="ja">(ジェーン・ドウ)</span>'
            in (out / "venues/sigmod-conference/index.html").read_text("utf-8"))
    assert '<strong class="own" dir="auto">Jane Doe</strong>' in page   # her own page: bold, the heading has it


def test_a_site_catalogue_changes_and_adds_strings_and_rebuilds_in_place(tmp_path: Path) -> None:
    root = _site(tmp_path / "site", "de")
    out = build(root)
    po = root / "locale" / "de" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "Selected publications"\nmsgstr "Ausgewählte Arbeiten"\n\n'
                  'msgid "At least %(num)s record"\nmsgid_plural "At least %(num)s records"\n'
                  'msgstr[0] "Wenigstens %(num)s Arbeit"\nmsgstr[1] "Wenigstens %(num)s Arbeiten"\n', encoding="utf-8")
    build(root)
    jane = (out / "authors/jane-doe/index.html").read_text("utf-8")
    assert "Ausgewählte Arbeiten" in jane and "Ausgewählte Publikationen" not in jane
    assert "Wenigstens 18 Arbeiten" in (out / "authors/bin-cui/index.html").read_text("utf-8")
    assert "Alle Zusammenfassungen zeigen" in jane   # the shipped catalogue's other strings stay
    po.write_text(po.read_text("utf-8").replace("Ausgewählte Arbeiten", "Auswahl"), encoding="utf-8")
    build(root)
    assert "<h2 id=\"pinned-heading\">Auswahl</h2>" in (out / "authors/jane-doe/index.html").read_text("utf-8")
    in_place = tree_state(out)
    clean = tmp_path / "clean"
    shutil.copytree(root, clean, ignore=shutil.ignore_patterns("output", ".authorsite"))
    assert tree_state(build(clean, reuse=False)) == in_place


def _isolated(node) -> bool:  # noqa: ANN001 - a selectolax node
    """Whether the node is inside a <bdi> or an element with dir="ltr" (itself included)."""
    while node is not None and node.tag != "html":
        if node.tag == "bdi" or node.attributes.get("dir") == "ltr":
            return True
        node = node.parent
    return False


ARXIV_ID = re.compile(r"(arXiv:)?\d{4}\.\d{4,5}(v\d+)?")


def test_right_to_left_pages_isolate_what_reads_left_to_right(arabic: Path) -> None:
    """In ``ar``, every date, DOI, arXiv id and version on every page stands in a <bdi> or a
    dir="ltr" element; Jane Doe's DOI and version dates (her page and the paper's) among them."""
    out = arabic
    assert '<html lang="ar" dir="rtl">' in (out / "index.html").read_text("utf-8")
    loose, seen = [], 0
    for page in sorted(out.rglob("*.html")):
        tree = LexborHTMLParser(page.read_text("utf-8"))
        values = [*tree.css("main time"), *[n for n in tree.css("main a, main span") if n.text(deep=True).startswith("10.")
                                            or ARXIV_ID.fullmatch(n.text(deep=True).strip())]]
        seen += len(values)
        loose += [f"{page.relative_to(out)}: {v.html}" for v in values if not _isolated(v)]
    assert seen >= 25 and loose == [], (seen, loose)
    for rel in ("authors/jane-doe/index.html", "papers/2401.99999/index.html"):
        tree = LexborHTMLParser((out / rel).read_text("utf-8"))
        dois = [a for a in tree.css("dd a") if a.text() == "10.5555/example.2025.2"]
        versions = [dt.next for dt in tree.css("dt") if dt.text() == "النسخ"]   # "Versions"
        times = [t for dd in versions for t in dd.css("time")]
        assert (dois or rel.startswith("papers/")) and len(times) >= 2, rel   # (the paper page links it as "DOI")
        assert all(_isolated(n) for n in (*dois, *times)), rel
