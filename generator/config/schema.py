"""The configuration schema: every key of site.yaml, an author file and a page, declared once.

Each ``Key`` row carries the key's type, default, bounds or pattern and one line of help.
From these tables come the validation (``check.read_table``), the defaults of the typed
objects (their dataclass defaults are read from here), the JSON Schema for editors
(``json_schema``) and the reference page docs/configuration.md (``docs``). A rule that a
bound cannot say (a link's shape, a base URL) is a small function named in the row, so it
still lives in one place. Each source kind's table lives in its module under ``kinds/``
(``config.kind``), next to the code that turns it into a source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit
from typing import Any, Callable

from generator.core import ids
from generator.config.accent import HEX_PATTERN
from generator.core.paths import DEFAULT_OUTPUT_DIR

ARXIV_API = "https://export.arxiv.org/api/query"
SCHEMA_DIR = "docs/schema"      # where a site keeps the JSON Schema files, relative to its root
# The most authors of a site that has the lab's list and a page per paper unless site.yaml says:
# a lab's site. At 1,000 authors x 100 records the paper pages would add 0.58 GB (81,304 pages,
# the site 1.50 GB against 0.95 GB without, over GitHub Pages' 1 GB; trimming every page without
# losing data would leave 1.23 GB: bench/README.md) and 10 s of CPU to every rebuild.
LAB_AUTHORS = 100

# The value types a row can have; json_schema and docs describe each of them.
TYPES = ("text", "int", "number", "bool", "texts", "categories", "arxiv_ids", "arxiv_id", "date",
         "mapping", "section", "sources", "pairs", "record_links")


@dataclass(frozen=True, slots=True)
class Key:
    """One key: its type, default, bounds, and the one line of help shown in docs and editors."""

    name: str
    type: str
    help: str
    default: Any = None
    required: bool = False
    lo: int | None = None           # bounds of an int or number, inclusive
    hi: int | None = None
    check: Callable[[str], str | None] | None = None   # text -> normalised value, or None if refused
    expect: str = ""                # what `check` allows: "'key' must be {expect}, found ..."
    pattern: str | None = None      # the same rule as a regular expression, for the JSON Schema
    table: Table | None = None      # the keys of a "section"
    label: str = ""                 # how the value is shown on pages (link kinds)

    def __post_init__(self) -> None:
        assert self.type in TYPES, self.type


@dataclass(frozen=True, slots=True)
class Table:
    """The keys of one mapping, in the order messages and the docs list them."""

    title: str
    keys: tuple[Key, ...]
    help: str = ""
    shorthand: str | None = None    # a lone text stands for this key (``arxiv: 'au:X'``)
    many: bool = False              # a list of such mappings (``records:``)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys)

    def __getitem__(self, name: str) -> Key:
        for key in self.keys:
            if key.name == name:
                return key
        raise KeyError(name)

    def default(self, name: str) -> Any:  # noqa: ANN401
        return self[name].default


# ----------------------------------------------------------------------------- checks named by rows

HTTP_URL = "an http(s) URL"
# Patterns match the whole value (the JSON Schema anchors them as ^(?:...)$).
HTTP_PATTERN = r"[Hh][Tt][Tt][Pp][Ss]?://[^\s\"'<>\\`]+"
LANGUAGE_PATTERN = r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*"
CNAME_PATTERN = r"[A-Za-z0-9.-]{1,253}"
TEMPLATE_PATTERN = r"[a-z0-9_-]+\.html"
SLUG_PATTERN = r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
ORCID_PATTERN = r"(?:https?://orcid\.org/)?([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])"
ARXIV_AUTHOR_ID = r"[a-z0-9_]{2,64}"
CITATIONS_PATTERN = r"openalex"
EMAIL_PATTERN = r"[^@\s\"'<>]+@[^@\s\"'<>]+\.[A-Za-z]{2,}"
# A path inside content/: not absolute, no '..' segment, no backslash (the loader checks the file too).
PHOTO_PATTERN = r"(?!(?:.*/)?\.\.(?:/|$))[^/\\\s~][^\\]*"
BASE_URL_PATTERN = r"(?:/(?!/)|[Hh][Tt][Tt][Pp][Ss]?://).*"
# A folder inside the site: not absolute, '~', '.', '..', a Windows path, or one of the site's own folders.
OUTPUT_DIR_PATTERN = (r"(?!\.\.?(?:/|$))(?!(?:content|themes|templates|static|generator|tests|\.git)(?:/|$))"
                      r"(?![A-Za-z]:)[^/~\\\x00-\x1f][^\\\x00-\x1f]*")


def _matches(pattern: str) -> Callable[[str], str | None]:
    rx = re.compile(pattern)
    return lambda text: text if rx.fullmatch(text) else None


def check_base_url(text: str) -> str | None:
    """An http(s) URL or a path from the domain root, always ending with '/'."""
    url = text.strip()
    if not (url.startswith("/") and not url.startswith("//")) and ids.safe_url(url) is None:
        return None
    return url if url.endswith("/") else url + "/"


def check_theme(text: str) -> str | None:
    return text if ids.is_slug(text) else None


def check_orcid(text: str) -> str | None:
    """The iD's https://orcid.org/ URL, its check digit verified (``ids.check_orcid_id`` raises
    ``ValueError`` saying which character is wrong): a mistyped iD would link another person."""
    if not re.fullmatch(ORCID_PATTERN, text):
        return None
    bare = ids.check_orcid_id(text)
    return f"https://orcid.org/{bare}" if bare else None


def check_arxiv_author(text: str) -> str | None:
    """An arXiv author id's page, or a URL on arxiv.org (the link is labelled arXiv)."""
    if re.fullmatch(ARXIV_AUTHOR_ID, text):
        return f"https://arxiv.org/a/{text}"
    url = ids.safe_url(text)
    host = (urlsplit(url).hostname or "") if url else ""
    return url if host == "arxiv.org" or host.endswith(".arxiv.org") else None


def check_email(text: str) -> str | None:
    return f"mailto:{text}" if re.fullmatch(EMAIL_PATTERN, text) else None


def _link(name: str, label: str, help: str) -> Key:
    return Key(name, "text", help, check=ids.safe_url, expect=HTTP_URL, pattern=HTTP_PATTERN, label=label)


# ----------------------------------------------------------------------------- the tables

FETCH = Table("fetch", (
    Key("arxiv_api", "text", "the arXiv API endpoint queried by 'authorsite fetch'", default=ARXIV_API,
        check=ids.safe_url, expect=HTTP_URL, pattern=HTTP_PATTERN),
    Key("delay_seconds", "number", "seconds between two requests to one host (at least 3 for arXiv)",
        default=3.0, lo=0, hi=600),
    Key("page_size", "int", "records asked for in one arXiv API request", default=100, lo=1, hi=2000),
    Key("max_results", "int", "most records fetched for one arXiv query", default=2000, lo=1, hi=10000),
    Key("timeout_seconds", "number", "seconds before one request is given up", default=30.0, lo=1, hi=600),
    Key("retries", "int", "times a failed request is tried again", default=4, lo=0, hi=10),
    Key("retry_after_cap", "number", "longest wait (seconds) honoured from a server's Retry-After",
        default=120.0, lo=0, hi=3600),
), help="How 'authorsite fetch' talks to arXiv and feed servers.")

SEARCH = Table("search", (
    Key("abstracts", "bool", "also search the records' abstracts, not only their titles, authors, arXiv ids and "
        f"DOIs; when absent they are searched on a site of at most {LAB_AUTHORS} authors (a lab) and not on a "
        "larger one (at 1,000 authors x 100 records they make the index 44 MB instead of 29 MB, a word's term "
        "shard up to 155 KB instead of 50 KB, and its step three times as long: bench/README.md)"),
), help="What the header's search box finds (the index under search/index/).")

# Where a site is published: each host's limits are in generator.write.sitesize.HOSTS.
HOSTS = ("github-pages", "cloudflare-pages", "cloudflare-pages-paid", "netlify", "s3")
HOST_PATTERN = "|".join(HOSTS)

# A bucket's name as S3 allows it (3 to 63 lower-case letters, digits, dots and hyphens), then an
# optional prefix (a folder inside the bucket).
DEPLOY_TO_PATTERN = r"[Ss]3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](?:/[^\s\\]*)?"
REGION_PATTERN = r"[a-z0-9][a-z0-9-]{0,31}"

DEPLOY = Table("deploy", (
    Key("to", "text", "the bucket (and folder in it) 'authorsite deploy' sends the built site to, such as "
        "s3://my-site or s3://my-site/lab/; '--to' wins", check=_matches(DEPLOY_TO_PATTERN),
        expect="s3://BUCKET or s3://BUCKET/PREFIX, such as s3://my-site", pattern=DEPLOY_TO_PATTERN),
    Key("endpoint_url", "text", "the S3 API of a service other than AWS, such as "
        "https://ACCOUNT_ID.r2.cloudflarestorage.com (Cloudflare R2) or https://storage.googleapis.com (Google "
        "Cloud Storage); '--endpoint-url' wins; absent: AWS S3", check=ids.safe_url, expect=HTTP_URL,
        pattern=HTTP_PATTERN),
    Key("region", "text", "the bucket's region, such as eu-west-1 (auto for R2); absent: from AWS_REGION or the "
        "profile", check=_matches(REGION_PATTERN), expect="a region name such as eu-west-1 or auto",
        pattern=REGION_PATTERN),
), help="Where 'authorsite deploy' sends the site (docs: README, 'Hosting past GitHub Pages'). No credentials "
        "here: they come from the standard places (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, or "
        "the web identity a GitHub workflow's OIDC token gives).")

SITE = Table("site.yaml", (
    Key("title", "text", "the site's name, shown in every page header and feed", required=True),
    Key("description", "text", "one sentence about the site, for search engines and the home page",
        default=""),
    Key("base_url", "text", "where the site is published; '--base-url' on the command line wins",
        default="/", check=check_base_url, pattern=BASE_URL_PATTERN,
        expect="an http(s) URL such as https://user.github.io/repo/ or a path starting with '/'"),
    Key("language", "text", "the pages' language tag (BCP 47), which also picks the theme's words, dates and "
        "numbers, and the writing direction: en, de and zh-Hans ship (docs/languages.md)", default="en", check=_matches(LANGUAGE_PATTERN),
        expect="a language tag such as en or pt-BR", pattern=LANGUAGE_PATTERN),
    Key("theme", "text", "the folder under themes/ whose templates and static files are used",
        default="default", check=check_theme, expect="a folder name under themes/", pattern=SLUG_PATTERN),
    Key("output_dir", "text", "the folder the site is built into, inside the site folder",
        default=DEFAULT_OUTPUT_DIR, expect="a new folder inside the site", pattern=OUTPUT_DIR_PATTERN),
    Key("contact", "text", "an e-mail address or URL named in the User-Agent sent to arXiv"),
    Key("cname", "text", "a custom domain for GitHub Pages (written to output/CNAME)",
        check=_matches(CNAME_PATTERN), expect="a domain name such as example.org", pattern=CNAME_PATTERN),
    Key("paginate", "int", "records on one subject page before it continues on page/2/",
        default=50, lo=5, hi=10000),
    Key("citations", "text", "show each record's citation count from this source, with the date it was "
        "fetched, on author pages and in CSL-JSON (never in BibTeX); off when absent",
        check=_matches(CITATIONS_PATTERN), expect="'openalex' (the only source of citation counts)",
        pattern=CITATIONS_PATTERN),
    Key("venues", "bool", "add a venue index (/venues/) and one page per published venue listing its "
        "records, with a link in the navigation; venues are grouped by name, case and a trailing year "
        "ignored ('VLDB 2025' is venue VLDB)", default=False),
    Key("papers", "bool", "write a page per paper (/papers/KEY/) with its abstract, sources, versions, "
        "BibTeX and the citation_* tags Google Scholar indexes, linked from every list of records; "
        f"when absent they are made for a site of at most {LAB_AUTHORS} authors (a lab) and not for a larger "
        "one (at 1,000 authors x 100 records they would add 0.58 GB, over GitHub Pages' 1 GB with the rest), "
        "except with host: s3, which has room for them"),
    Key("feed_size", "int", "entries in each Atom feed, author, subject and site: the newest N",
        default=50, lo=1, hi=10000),
    Key("authors_shown", "int", "names shown in a record's author list on the pages (profiled authors"
        " of the site always show, the rest as 'and N more'); exports keep every author",
        default=10, lo=1, hi=10000),
    Key("accent", "text", "the colour of links, chart bars and active filters, as #rrggbb; it must reach WCAG AA "
        "contrast (4.5:1) on the light background, and the dark scheme uses it, or a lighter version of it "
        "that reaches 4.5:1 there; the theme's blue when absent",
        check=_matches(HEX_PATTERN), expect="a colour written #rrggbb, such as '#6b3fa0' (quoted: YAML reads # "
        "as a comment)", pattern=HEX_PATTERN),
    Key("publications", "bool", "add the lab's list of publications (/publications/): every work of every "
        "author once, newest first, with filters by year, member, subject and kind, its own feed, BibTeX and "
        "CSL-JSON, who works with whom, and a link in the navigation; it lists every work in full on one page, "
        f"so when absent it is made for a site of at most {LAB_AUTHORS} authors (a lab) and not for a larger "
        "one (at 1,000 authors x 100 records it would add 380 MB, where the subject pages serve)"),
    Key("shards", "int", "machines a build is spread over: the publish workflow runs this many build jobs side by "
        "side ('authorsite build --shard K/N') and one merge job; 1 builds on one machine (README: A site past "
        "one machine)", default=1, lo=1, hi=256),
    Key("fetch", "section", "how sources are fetched", table=FETCH),
    Key("search", "section", "what the search finds", table=SEARCH),
    Key("host", "text", "where the site is published: build and check measure the output against that host's "
        "limits (github-pages: 1 GB; cloudflare-pages: 20,000 files, cloudflare-pages-paid: 100,000, each at most "
        "25 MiB; netlify: 54,000 files; s3: none, with 'authorsite deploy') and say the fix when it does not fit; "
        "with s3 the paper pages are on whatever the number of authors", default="github-pages",
        check=_matches(HOST_PATTERN), expect="one of " + ", ".join(HOSTS), pattern=HOST_PATTERN),
    Key("deploy", "section", "where 'authorsite deploy' sends the built site (S3, R2 or another S3-compatible "
        "storage); never credentials", table=DEPLOY),
    Key("groups", "texts", "the order of the authors' groups on the home page, such as [current, alumni]; "
        "each author's 'group' must be one of them", default=()),
    Key("extra", "mapping", "free values for your own templates (site.extra.NAME)", default={}),
    Key("repository", "text", "the site's GitHub repository, such as https://github.com/user/site: a record "
        "matched by name only gets a 'Not mine?' link to a new issue there (its not-mine issue form)",
        default="", check=ids.safe_url, expect=HTTP_URL, pattern=HTTP_PATTERN),
    Key("venue_names", "mapping", "short names of venues for the records' badges ('PVLDB 2025'), by DBLP's "
        "venue key (pvldb, sigmod: the part after conf/ or journals/ in a DBLP record's key) or by the venue as "
        "written ('Proc. VLDB Endow.'); they extend and override the theme's table "
        "(generator/assemble/venue_badge.py); a venue named in neither shows its acronym or its first words",
        default={}),
), help="The site: one file at the root of the site folder.")

LINKS = Table("links", (
    _link("homepage", "Homepage", "a personal or group home page"),
    Key("orcid", "text", "an ORCID iD or its https://orcid.org/ URL", check=check_orcid, label="ORCID",
        expect="an ORCID iD such as 0000-0002-1825-0097 or its https://orcid.org/ URL", pattern=ORCID_PATTERN),
    Key("arxiv", "text", "an arXiv author id or an https://arxiv.org/a/ URL", check=check_arxiv_author,
        label="arXiv", expect="an arXiv author id such as cui_b_1 or an https://arxiv.org/a/ URL (on arxiv.org)",
        pattern=f"{ARXIV_AUTHOR_ID}|{HTTP_PATTERN}"),
    _link("dblp", "DBLP", "the author's DBLP page"),
    _link("scholar", "Google Scholar", "the author's Google Scholar profile"),
    _link("github", "GitHub", "the author's GitHub profile"),
    Key("email", "text", "an e-mail address (shown as a mailto: link)", check=check_email, label="Email",
        expect="an e-mail address", pattern=EMAIL_PATTERN),
), help="Links shown on the author's page, in this order.")

RECORD_LINKS = Table("record links", (
    _link("code", "Code", "the record's source code"),
    _link("slides", "Slides", "the slides of its talk"),
    _link("video", "Video", "a recording of its talk"),
    _link("project", "Project", "its project page"),
    _link("poster", "Poster", "its poster"),
), help="Links shown with one record, in this order.")


def record_links(values: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """(kind, URL) of the links given, in the schema's order (``model.Record.links``)."""
    if not values:
        return ()
    return tuple((key.name, values[key.name]) for key in RECORD_LINKS.keys if values[key.name])


FILTERS = Table("filters", (
    Key("categories", "categories", "keep only records with one of these arXiv subjects", default=()),
    Key("since", "int", "keep only records from this year on", lo=1900, hi=2100),
    Key("until", "int", "keep only records up to this year", lo=1900, hi=2100),
    Key("coauthors", "texts", "keep only records with one of these co-authors", default=()),
), help="Which fetched records the author's page keeps (typed-in records are always kept).")

MEMBER = Table("member", (
    Key("from", "int", "the first year the author was a member", lo=1900, hi=2100),
    Key("until", "int", "the last year the author was a member (absent while they are one)", lo=1900, hi=2100),
), help="The years an author was a member of the lab: its list (/publications/) and its counts take the "
        "author's records from these years only; the author's own page shows all of them, and the home page "
        "shows the years (alumni's, with 'group').")

AUTHOR = Table("author file", (
    Key("name", "text", "the author's name as shown on the page", required=True),
    Key("name_native", "text", "the name in its own script, such as 崔斌, shown beside 'name' on the author's "
        "page and in bylines where there is room"),
    Key("name_native_lang", "text", "the language of 'name_native', such as zh, ja or ko (for screen readers "
        "and fonts); without it the page names none", check=_matches(LANGUAGE_PATTERN),
        expect="a language tag such as zh or ko", pattern=LANGUAGE_PATTERN),
    Key("affiliation", "text", "the author's institution"),
    Key("role", "text", "the author's role or position, such as PhD student or Professor"),
    Key("group", "text", "the group the author is listed under on the home page, such as current or alumni "
        "(one of site.yaml's 'groups' when it lists them)"),
    Key("member", "section", "the years the author was a member of the lab, such as {from: 2019, until: 2023}",
        table=MEMBER, expect="a mapping such as {from: 2019, until: 2023}"),
    Key("photo", "text", "a photo: a PNG, JPEG, WebP or GIF image under content/, such as "
        "photos/jane-doe.jpg; it is copied to the site with its width and height",
        check=_matches(PHOTO_PATTERN), pattern=PHOTO_PATTERN,
        expect="a path to an image inside content/, such as photos/jane-doe.jpg"),
    Key("links", "section", "links to the author's other profiles", table=LINKS,
        expect="a mapping of link kinds to URLs"),
    Key("bio", "text", "a few sentences about the author (Markdown)", default=""),
    Key("aliases", "texts", "other spellings of the name: co-author names spelled so link to this page", default=()),
    Key("sources", "sources",
        "where the records come from: a list of arxiv, feed, records, orcid, dblp or openalex entries",
        default=()),
    Key("pinned", "texts", "records shown first as 'Selected publications': arXiv ids, DOIs or record ids "
        "(quote them)", default=()),
    Key("extra_links", "record_links", "links (code, slides, video, project, poster) for fetched records, by "
        "arXiv id, DOI or record id: {'2401.01234': {code: https://...}}", default=(),
        expect="a mapping of record ids to mappings of link kinds to URLs"),
    Key("include", "arxiv_ids", "arXiv ids always kept, whatever the filters say (quote them)", default=()),
    Key("exclude", "arxiv_ids", "arXiv ids never shown, e.g. a namesake's (quote them)", default=()),
    Key("filters", "section", "which fetched records are kept", table=FILTERS),
    Key("separate", "pairs", "pairs of records wrongly merged into one, to keep apart ('authorsite review' "
        "shows each merge and its reason)", default=(),
        expect="a list of pairs such as [['arxiv:2401.01234', 'doi:10.1145/3299869.3319893']]"),
    Key("template", "text", "the template that renders this author's page", default="author.html",
        check=_matches(TEMPLATE_PATTERN), expect="a template file name such as author.html",
        pattern=TEMPLATE_PATTERN),
), help="One file per author in content/authors/; the file name is the page address (jane-doe.yaml).")

PAGE = Table("page front matter", (
    Key("title", "text", "the page's title and its name in the navigation", required=True),
    Key("description", "text", "one sentence about the page, for search engines", default=""),
    Key("weight", "int", "the page's place in the navigation, lowest first", default=0, lo=-10000, hi=10000),
    Key("nav", "bool", "whether the page is listed in the navigation", default=True),
), help="The YAML between the two '---' lines at the top of content/pages/NAME.md.")

LINK_KINDS = LINKS.names
