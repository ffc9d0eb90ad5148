"""Issue 31, point 5: the theme's message catalogues, and what ``language:`` picks of them.

* The catalogues are those of the theme as it is: ``pybabel extract`` (over babel.cfg, as
  ``make messages`` runs it) finds exactly the strings of generator/locale/messages.pot, and each
  shipped language translates every one of them, keeping its ``%(name)s`` placeholders. A string
  added to a template without ``make messages`` and a translation fails here.
* A BCP 47 tag picks the catalogue of its language and script; right-to-left locales say so.
* Dates, counts and a name's place in a long byline are the locale's (Babel).
* A site's own catalogue that is broken stops the build with its file and line.
* The wheel's package data holds every catalogue.
* ``authorsite check`` says which languages ship and what the site takes, and reports a broken
  site catalogue.
"""

from __future__ import annotations

import gettext
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.pofile import read_po
from helpers import run_cli

from generator.render import i18n
from generator.check import language_note, run_check
from generator.config import load_site
from generator.core.errors import SiteError

REPO = Path(__file__).resolve().parent.parent.parent
LOCALE = REPO / "generator" / "locale"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _catalog(path: Path, locale: str | None = None):  # noqa: ANN202 - babel Catalog
    with open(path, "rb") as f:
        return read_po(f, locale=locale)


def _ids(catalog) -> set[str]:  # noqa: ANN001
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def test_the_template_of_the_catalogues_is_the_theme_as_it_is(tmp_path: Path) -> None:
    """What ``make messages`` extracts now is what the shipped catalogues were made from."""
    pot = tmp_path / "now.pot"
    res = subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-k", "_link:2",
                          "--no-location", "--sort-output", "--omit-header", "-o", str(pot), "."],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    now, shipped = _ids(_catalog(pot)), _ids(_catalog(LOCALE / "messages.pot"))
    assert now == shipped, ("run 'make messages' and translate the new strings: "
                            f"new {sorted(now - shipped)}, gone {sorted(shipped - now)}")
    assert {"Selected publications", "At least %(num)s record", "Page not found", "Homepage", "Email",
            "Publications and source records attributed to %(name)s."} <= now


@pytest.mark.parametrize("folder", sorted(f for f in i18n.SHIPPED if f != i18n.SOURCE))
def test_every_string_is_translated_with_its_placeholders(folder: str) -> None:
    template = _ids(_catalog(LOCALE / "messages.pot"))
    catalog = _catalog(LOCALE / folder / "LC_MESSAGES" / "messages.po", folder)
    assert _ids(catalog) == template, "run 'make messages'"
    problems = []
    for m in catalog:
        if not m.id:
            continue
        ids = (m.id,) if isinstance(m.id, str) else m.id
        strings = (m.string,) if isinstance(m.string, str) else m.string
        if m.fuzzy or not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        problems += [f"{ids[0]!r}: {s!r} has {sorted(set(PLACEHOLDER.findall(s)))}, not {sorted(wanted)}"
                     for s in strings if s and set(PLACEHOLDER.findall(s)) != wanted]
    assert problems == []


@pytest.mark.parametrize("folder", sorted(i18n.SHIPPED))
def test_each_catalogues_plural_forms_are_cldrs(folder: str) -> None:
    """The header's Plural-Forms is Babel's for the language (from CLDR's plural rules: Arabic's
    six, zero one two few many other; Spanish and French's many for a multiple of a million), and
    the form it picks for a count is the form CLDR gives that count: each CLDR form is one msgstr."""
    from babel.messages.plurals import get_plural

    catalog = _catalog(LOCALE / folder / "LC_MESSAGES" / "messages.po", folder)
    assert catalog.plural_forms == str(get_plural(folder)), folder
    pick = gettext.c2py(catalog.plural_expr)
    locale = Locale.parse(folder)
    counts = [*range(0, 1200), 1_000_000, 2_000_000, 3_000_001]
    pairs = {(pick(n), locale.plural_form(n)) for n in counts}
    assert len(pairs) == len({i for i, _ in pairs}) == len({f for _, f in pairs}) == catalog.num_plurals, sorted(pairs)
    if folder == "ar":
        assert sorted(pairs) == [(0, "zero"), (1, "one"), (2, "two"), (3, "few"), (4, "many"), (5, "other")]


@pytest.mark.parametrize("tag, catalogue, direction", [
    ("en", "en", "ltr"), ("en-GB", "en", "ltr"), ("de", "de", "ltr"), ("de-AT", "de", "ltr"),
    ("zh-Hans", "zh_Hans", "ltr"), ("zh", "zh_Hans", "ltr"), ("zh-CN", "zh_Hans", "ltr"), ("zh-SG", "zh_Hans", "ltr"),
    ("zh-Hant", None, "ltr"), ("zh-TW", None, "ltr"), ("pt-BR", None, "ltr"),
    ("ar", "ar", "rtl"), ("ar-EG", "ar", "rtl"), ("es", "es", "ltr"), ("es-MX", "es", "ltr"), ("fr", "fr", "ltr"),
    ("fr-CA", "fr", "ltr"), ("ja", "ja", "ltr"), ("ja-JP", "ja", "ltr"),
    ("he", None, "rtl"), ("fa", None, "rtl"), ("ur", None, "rtl"), ("qq", None, "ltr"),
])
def test_a_language_tag_picks_its_catalogue_and_direction(tag: str, catalogue: str | None, direction: str) -> None:
    lang = i18n.site_language(None, tag)
    assert (lang.catalogue, lang.direction) == (catalogue, direction)
    assert lang.translated == (catalogue not in (None, "en"))


def test_an_unknown_language_warns_with_the_file_line_and_key(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("title: T\nlanguage: he\n", encoding="utf-8")
    [warning] = i18n.language_warning(tmp_path, "he")
    assert warning.startswith("site.yaml:2: 'language': the theme has no he catalogue (it ships en, de, zh-Hans, ar, "
                              "es, fr, ja)")
    assert "locale/he/messages.po" in warning
    assert i18n.language_warning(tmp_path, "de") == [] == i18n.language_warning(tmp_path, "ar")
    (tmp_path / "locale" / "he").mkdir(parents=True)
    (tmp_path / "locale" / "he" / "messages.po").write_text('msgid "Search"\nmsgstr "חיפוש"\n', encoding="utf-8")
    assert i18n.language_warning(tmp_path, "he") == []   # the site translates its words itself


@pytest.mark.parametrize("tag, date, number, place", [
    ("en", "2024-03-01", "1,204", "1,204th of 2,501"),
    ("de", "01.03.2024", "1.204", "1.204. von 2.501"),
    ("zh-Hans", "2024年3月1日", "1,204", "第 1,204 位，共 2,501 位"),
    ("ar", "01\u200f/03\u200f/2024", "1,204", "المرتبة 1,204 من 2,501"),
    ("es", "1 mar 2024", "1.204", "1.204.º de 2.501"),
    ("fr", "1 mars 2024", "1\u202f204", "1\u202f204e sur 2\u202f501"),
    ("ja", "2024/03/01", "1,204", "2,501 名中 1,204 番目"),
])
def test_dates_numbers_and_places_are_the_locales(tag: str, date: str, number: str, place: str) -> None:
    lang = i18n.site_language(None, tag)
    formats = i18n.Formats(lang.locale, i18n.translations(lang))
    assert formats.date("2024-03-01T17:59:59Z") == formats.date("2024-03-01") == date
    assert formats.number(1204) == number
    assert formats.place(1204, 2501) == place


@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"),
                                     (13, "13th"), (21, "21st"), (22, "22nd"), (101, "101st"), (111, "111th")])
def test_english_ordinals_from_cldr_forms(n: int, text: str) -> None:
    formats = i18n.Formats(Locale("en"), i18n.translations(i18n.site_language(None, "en")))
    assert formats.place(n, 200) == f"{text} of 200"


def test_a_broken_site_catalogue_names_its_file_and_line(tmp_path: Path) -> None:
    po = tmp_path / "locale" / "de" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "Search"\nmsgstr "Finden"\n\nmsgid "Venues"\n', encoding="utf-8")
    with pytest.raises(SiteError) as exc:
        i18n.translations(i18n.site_language(tmp_path, "de"))
    assert str(exc.value).startswith("locale/de/messages.po:4: ") and exc.value.hint


def test_a_site_catalogue_wins_over_the_shipped_one_and_leaves_it_untouched(tmp_path: Path) -> None:
    po = tmp_path / "locale" / "de" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "Search"\nmsgstr "Finden"\n', encoding="utf-8")
    mine = i18n.translations(i18n.site_language(tmp_path, "de"))
    assert (mine.gettext("Search"), mine.gettext("Venues")) == ("Finden", "Publikationsorte")
    shipped = i18n.translations(i18n.site_language(None, "de"))
    assert shipped.gettext("Search") == "Suchen"
    assert shipped.ngettext("%(num)s record", "%(num)s records", 2) == "%(num)s Einträge"


def test_the_wheel_carries_every_catalogue() -> None:
    """pyproject's package data names each .po and the .pot (the build compiles them: no .mo)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["generator"]
    package = REPO / "generator"
    shipped = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    catalogues = {p for p in LOCALE.rglob("*") if p.suffix in (".po", ".pot")}
    assert catalogues and catalogues <= shipped
    assert {p.parent.parent.name for p in LOCALE.rglob("messages.po")} == set(i18n.SHIPPED)
    assert any(d.startswith("Babel>=") for d in config["project"]["dependencies"])


def test_check_names_the_languages_and_a_broken_site_catalogue(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("title: T\nlanguage: de-AT\n", encoding="utf-8")
    assert language_note(load_site(tmp_path)) == ("theme languages: en, de, zh-Hans, ar, es, fr, ja ship; "
                                                  "site.yaml's language de-AT takes its de catalogue")
    quiet, verbose = run_cli("check", cwd=tmp_path), run_cli("-v", "check", cwd=tmp_path)
    assert "catalogue" not in quiet.stderr + quiet.stdout, quiet.stderr   # a healthy language: nothing to say
    assert "takes its de catalogue" in verbose.stderr
    po = tmp_path / "locale" / "de-AT" / "messages.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "Search"\nmsgstr "Finden"\nmsgid "Venues"\n', encoding="utf-8")
    assert language_note(load_site(tmp_path)).endswith("with the site's own locale/de-AT/messages.po")
    problems, _warnings = run_check(tmp_path)
    assert [p for p in problems if p.startswith("locale/de-AT/messages.po:3: ")], problems


@pytest.mark.parametrize(("tag", "forms", "direction"), [
    ("en", [("one", 1), ("other", 0)], "ltr"),
    ("ar", [("few", 3), ("many", 11), ("one", 1), ("other", 100), ("two", 2), ("zero", 0)], "rtl"),
    ("he", None, "rtl"),
])
def test_plural_forms_and_direction_as_cldr_says(tag: str, forms: list[tuple[str, int]] | None, direction: str) -> None:
    """The plural forms, worked out on first use (an English site reads no CLDR data), are each
    form's smallest number; the direction is CLDR's character order (English's without asking)."""
    lang = i18n.site_language(None, tag)
    got = i18n.Formats(lang.locale, gettext.NullTranslations()).plural_forms
    locale = Locale.parse(tag)
    expected = sorted({locale.plural_form(n): n for n in reversed(range(1000))}.items())
    assert list(got) == expected and len(got) == len(expected) and got[0] == expected[0]
    if forms is not None:
        assert list(got) == forms
    assert lang.direction == direction


def test_a_message_with_values_is_filled_as_jinja_fills_it_whatever_was_filled_before() -> None:
    """Messages with values are kept once filled (``_Gettext``): by value and type, so a Markup
    and a str of the same text, or 1 and True, are each filled as Jinja's new-style gettext
    fills them, and unhashable values are filled each time."""
    from markupsafe import Markup

    ours = i18n._Gettext(gettext.NullTranslations())
    message = "Published in %(venue)s (%(year)s)"
    cases = [{"venue": "<i>A</i>", "year": 1}, {"venue": Markup("<i>A</i>"), "year": 1},
             {"venue": "<i>A</i>", "year": True}, {"venue": ["<i>A</i>"], "year": 1.0}]
    for _ in range(2):   # the second round reads what the first kept
        for values in cases:
            got = ours.gettext(message, **values)
            assert got == Markup(message) % values and type(got) is Markup
    assert ours.gettext(message, venue="<i>A</i>", year=1) == "Published in &lt;i&gt;A&lt;/i&gt; (1)"
    assert ours.gettext(message, venue=Markup("<i>A</i>"), year=True) == "Published in <i>A</i> (True)"
