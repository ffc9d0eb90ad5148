"""The theme in the site's language: gettext catalogues and the locale's dates and numbers (Babel).

Every string of the default theme is written ``{{ _("...") }}`` (or ``ngettext``) in its templates
and goes through Jinja's i18n extension. The catalogues ship in the package as gettext ``.po``
files, ``generator/locale/<folder>/LC_MESSAGES/messages.po`` (English, the source, and
German, Simplified Chinese, Arabic, Spanish, French and Japanese), made and updated by ``make
messages`` (pybabel extract and update over ``babel.cfg``). A site may add or change strings
with ``locale/<language>/messages.po`` in its own folder. Both are compiled in memory by Babel when a build loads them, so no compiled ``.mo``
can be stale or missing from a wheel, and a site's catalogue needs no step of its own.

``language:`` in site.yaml is a BCP 47 tag; it picks the shipped catalogue of its language and
script (``zh``, ``zh-CN`` and ``zh-Hans`` all pick Simplified Chinese, ``de-AT`` German). A
language with no catalogue keeps the English strings, with a warning, but its dates, numbers and
writing direction are still the locale's. Every job's digest covers all of it: the language is
a field of the site model, the shipped catalogues are the package's files (``code_digest``) and a
site's ``locale/`` folder is among the theme's inputs (``incremental.inputs.theme_tops``).
"""

from __future__ import annotations

import datetime
import functools
import gettext
import hashlib
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import jinja2
from babel import Locale, UnknownLocaleError
from babel.core import get_global
from jinja2 import nodes
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from generator.core.errors import SiteError
from generator.core.paths import PACKAGE
from generator.core.yamlfile import YMap, read_yaml

if TYPE_CHECKING:
    from babel.support import Translations

# Babel's date and number formats and its catalogue tools are imported where used: an English
# site's build (the theme's source strings, ISO dates) needs none of them, and each process of a
# build would hold them (2.2 MB with the modules they pull in: zoneinfo, email).

CATALOGUES = PACKAGE / "locale"
DOMAIN = "messages"
# The catalogues that ship: the folder under generator/locale/ and the tag a site writes for it.
SHIPPED = {"en": "en", "de": "de", "zh_Hans": "zh-Hans", "ar": "ar", "es": "es", "fr": "fr", "ja": "ja"}
SOURCE = "en"   # the language of the msgids
SITE_FOLDER = "locale"   # a site's own catalogues: locale/<language>/messages.po in the site folder
# English pages keep ISO 8601 dates (2024-03-01), as they always had; other languages take
# their locale's medium date (01.03.2024, 2024年3月1日).
_ISO = "yyyy-MM-dd"


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark for extraction, translate later"
    """Marks a string for ``make messages`` where it is written; a template translates it."""
    return message


# Link labels that the schema's ``_link`` rows do not spell (pybabel extracts those with ``_link:2``).
MARKED = (N_("Email"),)
# arXiv's groups (generator/data/arxiv-taxonomy.yaml), the headings of the subjects page: translated
# where shown. The subjects themselves keep arXiv's names, as arXiv writes them.
ARXIV_GROUPS = (N_("Physics"), N_("Mathematics"), N_("Quantitative Biology"), N_("Computer Science"),
                N_("Quantitative Finance"), N_("Statistics"), N_("Electrical Engineering and Systems Science"),
                N_("Economics"))


@dataclass(frozen=True, slots=True)
class SiteLanguage:
    """What ``language:`` selects: the tag as written, Babel's locale for it (English when Babel
    knows no such locale), the shipped catalogue's folder (None when none ships) and the site's
    own catalogue (None when it has none)."""

    tag: str
    locale: Locale
    catalogue: str | None
    override: Path | None

    @property
    def translated(self) -> bool:
        """Whether any theme string may differ from its English msgid (English is the source: its
        catalogue translates nothing). The English pages carry no words for the scripts, which have
        them as their own fallbacks, so their bytes are what they were before catalogues."""
        return self.override is not None or self.catalogue not in (None, SOURCE)

    @property
    def direction(self) -> str:
        """``rtl`` for a right-to-left script (Arabic, Hebrew, Persian, Urdu ...), else ``ltr``
        (English without asking CLDR: its data, 4.6 MB and 20 ms to load, is read for nothing else
        in an English site's build)."""
        if self.locale.language == "en":
            return "ltr"
        return "rtl" if self.locale.character_order == "right-to-left" else "ltr"


def parse_locale(tag: str) -> Locale | None:
    """Babel's locale for a BCP 47 tag (``zh-Hans``, ``pt-BR``), None when it knows none."""
    try:
        return Locale.parse(tag, sep="-")
    except (UnknownLocaleError, ValueError):
        return None


def catalogue_for(locale: Locale) -> str | None:
    """The shipped catalogue of ``locale``'s language and script (its likely script when the tag
    names none: ``zh`` is ``zh_Hans``), or None. CLDR's likely scripts (2.6 MB in every process of a
    build) are read only for a language with a catalogue per script."""
    script = locale.script
    if script is None and any(name.startswith(f"{locale.language}_") for name in SHIPPED):
        likely = get_global("likely_subtags").get(str(locale)) or get_global("likely_subtags").get(locale.language)
        script = likely.split("_")[1] if likely and likely.count("_") >= 2 else None
    for name in (f"{locale.language}_{script}" if script else None, locale.language):
        if name in SHIPPED:
            return name
    return None


def site_language(root: Path | None, tag: str) -> SiteLanguage:
    """What ``language: TAG`` selects for the site at ``root`` (None: no catalogue of its own)."""
    locale = parse_locale(tag)
    override = root / SITE_FOLDER / tag / f"{DOMAIN}.po" if root is not None else None
    return SiteLanguage(tag, locale or Locale("en"), catalogue_for(locale) if locale else None,
                        override if override is not None and override.is_file() else None)


def shipped_tags() -> str:
    return ", ".join(SHIPPED.values())


def language_warning(root: Path, tag: str) -> list[str]:
    """A warning when the theme's strings stay English for ``tag``: no catalogue ships for it and
    the site has none of its own."""
    lang = site_language(root, tag)
    if lang.catalogue is not None or lang.override is not None:
        return []
    known = "" if parse_locale(tag) else "; Babel knows no such locale, so dates and numbers are English too"
    return [f"site.yaml{_line_of_language(root)}: 'language': the theme has no {tag} catalogue (it ships "
            f"{shipped_tags()}), so its words stay English{known}; add {SITE_FOLDER}/{tag}/{DOMAIN}.po to the "
            "site folder to translate them (see docs/languages.md)"]


def _line_of_language(root: Path) -> str:
    data, _problems = read_yaml(root / "site.yaml", "site.yaml")
    line = data.lines.get("language") if isinstance(data, YMap) else None
    return f":{line}" if line else ""


def compile_po(path: Path, display: str, locale: Locale) -> Translations:
    """A ``.po`` file compiled by Babel in memory; a broken file is a SiteError naming its line."""
    from babel.messages.mofile import write_mo   # (a catalogue's tools: see the imports above)
    from babel.messages.pofile import PoFileError, read_po
    from babel.support import Translations

    try:
        with open(path, "rb") as f:
            catalog = read_po(f, locale=locale, domain=DOMAIN, abort_invalid=True)
    except PoFileError as exc:
        what = re.sub(r" on \d+$", "", str(exc))   # Babel counts lines from 0, and says so at the end
        raise SiteError(f"{display}:{exc.lineno + 1}: {what}",
                        hint="fix the entry (msgid \"...\" then msgstr \"...\"), or check it with "
                        "'msgfmt --check'") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise SiteError(f"{display}: cannot be read as a UTF-8 gettext catalogue ({exc})",
                        hint="save it as UTF-8 with a 'Content-Type: text/plain; charset=UTF-8' header") from exc
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf, domain=DOMAIN)


def _compile_shipped(folder: str) -> Translations:
    path = CATALOGUES / folder / "LC_MESSAGES" / f"{DOMAIN}.po"
    return compile_po(path, f"generator/locale/{folder}/LC_MESSAGES/{DOMAIN}.po", Locale.parse(folder))


_shipped = functools.lru_cache(maxsize=8)(_compile_shipped)   # shared, never merged into


def translations(lang: SiteLanguage) -> gettext.NullTranslations:
    """The shipped catalogue, with the site's own on top (its entries win), or the English strings."""
    shipped = lang.catalogue if lang.catalogue != SOURCE else None
    if lang.override is None:
        return _shipped(shipped) if shipped else gettext.NullTranslations()
    mine = compile_po(lang.override, f"{SITE_FOLDER}/{lang.tag}/{DOMAIN}.po", lang.locale)
    if shipped is None:
        return mine
    return _compile_shipped(shipped).merge(mine)   # a copy of its own, the site's entries on top


# A place in a byline past the first names ("1,204th of 2,501"): the ordinal's form by the
# locale's ordinal plural category (CLDR: English 1st 2nd 3rd 4th 11th 21st), each a message.
ORDINALS = {"one": N_("%(num)sst"), "two": N_("%(num)snd"), "few": N_("%(num)srd"), "other": N_("%(num)sth")}


def install(env: jinja2.Environment, lang: SiteLanguage) -> Formats:
    """The site's catalogue into Jinja's i18n extension (``_``, ``gettext``, ``ngettext``, ``pgettext``,
    and ``{% trans %}``), and its dates, numbers and places for the templates' globals and filters."""
    t = translations(lang)
    env.install_gettext_translations(t, newstyle=True)   # (sets what {% trans %} compiles to)
    messages = _Gettext(t)
    functions = messages.functions()
    env.globals.update(functions)
    key = catalogue_key(t)
    if getattr(env, "fold_key", "") != key and env.cache is not None:
        env.cache.clear()   # compiled with another catalogue's messages folded in
    env.filters.update({f"_i18n{name}": functions[name] for name in _FUNCTIONS})
    env.fold, env.fold_key = _Fold(functions).visit, key   # type: ignore[attr-defined]
    return Formats(lang.locale, t)


def catalogue_key(t: gettext.NullTranslations) -> str:
    """A digest of every message of a catalogue (none for the English source strings)."""
    catalogue = getattr(t, "_catalog", None)
    if not catalogue:
        return "source"
    entries = sorted((repr(k), repr(v)) for k, v in catalogue.items())
    return hashlib.sha256(repr(entries).encode("utf-8")).hexdigest()[:16]


_FILLED_MAX = 50_000   # messages with values kept per process (a few thousand on a 1,000-author site)

# The gettext functions a template calls, each also a filter that ``_Fold`` calls directly.
_FUNCTIONS = ("_", "gettext", "ngettext", "pgettext", "npgettext")


class _Fold(NodeTransformer):
    """The theme's messages in a parsed template, made when it compiles instead of on each call
    (Jinja sends a global function's call through ``Context.call``; it calls a filter directly):
    ``_("...")`` or ``gettext("...")`` with one literal and no values becomes its translation (a
    Markup constant, as the call returns it); any other call of a gettext function whose first
    argument is a literal becomes the same function called as a filter (``_i18n_ngettext``...)."""

    def __init__(self, functions: dict[str, Callable[..., Markup]]) -> None:
        self._functions = functions

    def visit_Call(self, node: nodes.Call) -> nodes.Node:  # noqa: N802 - NodeTransformer's naming
        node = self.generic_visit(node)
        if not (isinstance(node.node, nodes.Name) and node.node.name in _FUNCTIONS and node.args
                and isinstance(node.args[0], nodes.Const) and isinstance(node.args[0].value, str)
                and node.dyn_args is None and node.dyn_kwargs is None):
            return node
        name, first = node.node.name, node.args[0]
        if name in ("_", "gettext") and len(node.args) == 1 and not node.kwargs:
            text = str(self._functions[name](first.value))
            return nodes.MarkSafe(nodes.Const(text, lineno=node.lineno), lineno=node.lineno)
        return nodes.Filter(first, f"_i18n{name}", node.args[1:], node.kwargs, None, None, lineno=node.lineno)


class _Gettext:
    """Jinja's "new style" gettext functions (a message is Markup, ``%(name)s`` filled with the
    escaped values, ``ngettext``'s ``num`` the count unless given), as plain functions with the
    messages without values kept: Jinja's own (``pass_context``, ``Context.call`` and a Markup
    ``%`` on every call) cost 18 us a call, a hundred times a literal's, on every record's
    partial; these cost what a global function's call costs."""

    __slots__ = ("_t", "_plain", "_filled")

    def __init__(self, t: gettext.NullTranslations) -> None:
        self._t = t
        self._plain: dict[str, Markup] = {}
        self._filled: dict[tuple[object, ...], Markup] = {}

    def gettext(self, message: str, /, **values: object) -> Markup:
        if not values:
            text = self._plain.get(message)
            if text is None:
                text = self._plain[message] = Markup(self._t.gettext(message)) % {}
            return text
        return self._fill(message, values)

    def _fill(self, message: str, values: dict[str, object]) -> Markup:
        """A message with values, kept by the message and each value with its type (a Markup and
        a str of the same text print differently, as do 1 and True): the same few are filled on
        thousands of records ("Abstract on %(name)s’s page", a venue and year), and a Markup ``%``
        escapes every value anew (5 us). Unhashable values are filled each time."""
        key = (message, *[(k, type(v), v) for k, v in values.items()])
        try:
            text = self._filled.get(key)
        except TypeError:
            return Markup(self._t.gettext(message)) % values
        if text is None:
            if len(self._filled) >= _FILLED_MAX:
                self._filled.clear()
            text = self._filled[key] = Markup(self._t.gettext(message)) % values
        return text

    def ngettext(self, singular: str, plural: str, n: int, /, **values: object) -> Markup:
        values.setdefault("num", n)
        return Markup(self._t.ngettext(singular, plural, n)) % values

    def pgettext(self, context: str, message: str, /, **values: object) -> Markup:
        return Markup(self._t.pgettext(context, message)) % values

    def npgettext(self, context: str, singular: str, plural: str, n: int, /, **values: object) -> Markup:
        values.setdefault("num", n)
        return Markup(self._t.npgettext(context, singular, plural, n)) % values

    def functions(self) -> dict[str, Callable[..., Markup]]:
        return {"_": self.gettext, "gettext": self.gettext, "ngettext": self.ngettext,
                "pgettext": self.pgettext, "npgettext": self.npgettext}


class Formats:
    """The locale's dates, numbers and places for the templates: ``r.published|date``,
    ``n|number``, and the place of a name in a long byline."""

    __slots__ = ("_locale", "_pattern", "_dates", "_english", "_t")

    def __init__(self, locale: Locale, t: gettext.NullTranslations) -> None:
        self._locale, self._t = locale, t
        self._english = locale.language == "en"
        self._pattern = _ISO if self._english else "medium"
        self._dates: dict[str, str] = {}

    def date(self, iso: str) -> str:
        """An ISO date or date-time (``2024-03-01T12:00:00Z``) as the locale writes the day (in
        English the ISO day itself: Babel's formatting cost 30 us a date, most records two)."""
        day = iso[:10]
        if self._english:
            return day
        text = self._dates.get(day)
        if text is None:
            from babel.dates import format_date   # (not for English: see the imports above)

            try:
                text = format_date(datetime.date.fromisoformat(day), self._pattern, locale=self._locale)
            except ValueError:
                text = day
            self._dates[day] = text
        return text

    def number(self, n: int) -> str:
        """A count with the locale's grouping (1,204 in English, 1.204 in German)."""
        if self._english:
            return f"{n:,}"
        from babel.numbers import format_decimal   # (not for English: see the imports above)

        return format_decimal(n, locale=self._locale)

    @property
    def plural_forms(self) -> PluralForms:
        """Each CLDR plural form of the language with its smallest number (English: one 1, other
        0; Arabic: zero 0, one 1, two 2, few 3, many 11, other 100): the scripts' words for a
        count are written for each, and the browser's Intl.PluralRules picks one."""
        return PluralForms(self._locale)

    def place(self, n: int, total: int) -> str:
        """"1,204th of 2,501", in the site's language."""
        form = self._locale.ordinal_form(n)
        ordinal = self._t.gettext(ORDINALS.get(form, ORDINALS["other"])) % {"num": self.number(n)}
        return self._t.gettext("%(place)s of %(total)s") % {"place": ordinal, "total": self.number(total)}


class PluralForms(Sequence[tuple[str, int]]):
    """``Formats.plural_forms``, worked out on first use: only a translated site's pages read
    them, and working them out loads the locale's CLDR data (4.6 MB and 20 ms), which an English
    site's build otherwise never reads."""

    __slots__ = ("_locale", "_forms")

    def __init__(self, locale: Locale) -> None:
        self._locale = locale
        self._forms: tuple[tuple[str, int], ...] | None = None

    def _all(self) -> tuple[tuple[str, int], ...]:
        if self._forms is None:
            forms: dict[str, int] = {}
            for n in range(1000):
                forms.setdefault(self._locale.plural_form(n), n)
            self._forms = tuple(sorted(forms.items()))
        return self._forms

    def __getitem__(self, i: int) -> tuple[str, int]:  # type: ignore[override]
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())
