"""Author files (content/authors/*.yaml): the profile, its links, filters and sources.

Read against ``schema.AUTHOR``; the sources are read by ``sources.read_sources``. The file
name is the page address, so unsafe names and two files with one slug are refused here,
before their contents are read.
"""

from __future__ import annotations

import contextlib
import os
from functools import partial
from pathlib import Path
from typing import Any, Iterator, Mapping

from generator.core import ids
from generator.config.check import OUTSIDE, Checker, describe, join, no_controls, outside, read_table
from generator.config.photos import read_photo
from generator.config.schema import AUTHOR, FILTERS, LINKS, RECORD_LINKS, Key, record_links
from generator.config.sources import Source, read_sources
from generator.config.typed import config_class
from generator.core.errors import Problem, SiteError
from generator.core.model import Link, Photo
from generator.core.parse_cache import ParseCache
from generator.core.processes import fork_helper, stop_helper
from generator.core.yamlfile import YMap, decode_yaml, read_bytes


Filters = config_class("Filters", FILTERS, __name__)

# An author: its slug (the file name) and its path as messages show it, then every key of the
# author file, typed (the links, the photo, the sources and the filters as their own objects).
AuthorConfig = config_class(
    "AuthorConfig", AUTHOR, __name__, head=(("slug", "str"), ("path", "str")),
    own={"links": ("tuple[Link, ...]", ()), "photo": ("Photo | None", None), "sources": ("tuple[Source, ...]", ()),
         "extra_links": ("tuple[tuple[str, tuple[tuple[str, str], ...]], ...]", ()),   # (record id, (kind, URL)...)
         "filters": ("Filters", Filters()),
         "member": ("tuple[int | None, int | None] | None", None)},   # (from, until) years in the lab
    doc="An author file's keys (generator.config.schema.AUTHOR), its slug and its path.")


def load_authors(root: Path, parsed: ParseCache | None = None,
                 unchanged: Mapping[str, AuthorConfig] | None = None,
                 groups: tuple[str, ...] = (), helper: bool = False) -> tuple[AuthorConfig, ...]:
    """Every author file of the site, in file name order; one ``SiteError`` for all their problems.
    With ``parsed``, a file whose bytes were parsed before is not parsed again. ``unchanged``:
    the preview's authors by file (``AuthorConfig.path``) that the watcher saw no change to.
    ``groups`` (site.yaml), when given, are the only groups an author may name. ``helper``: a
    forked process may parse files meanwhile (``_helping``)."""
    folder = root / "content" / "authors"
    if not folder.is_dir():
        return ()
    # Names, not paths, until a file is read: the preview loads the folder after each edit, and
    # 1,000 Path objects made, sorted and made relative cost more than the one file it reads.
    with os.scandir(folder) as found:
        names = sorted(e.name for e in found if os.path.splitext(e.name)[1] in (".yaml", ".yml") and e.is_file())
    reader = _Reader(root, folder, parsed, groups)
    problems: list[Problem] = []
    authors: list[AuthorConfig] = []
    with _helping(reader, names if helper and not unchanged else []):
        for name in names:
            display = reader.prefix + name
            prior = unchanged.get(display) if unchanged else None
            if prior is not None:
                reader.seen[os.path.splitext(name)[0]] = display
                authors.append(prior)
                continue
            try:
                author, found_problems = reader.read(name)
            except SiteError as exc:
                message = f"{exc.message} ({exc.hint})" if exc.hint else exc.message
                problems.extend(exc.problems or (Problem(exc.path or display, exc.line, message),))
                continue
            problems.extend(found_problems)
            if author is not None:
                authors.append(author)
    if problems:
        raise SiteError.from_problems(problems)
    return tuple(authors)


class _Reader:
    """Reads one author file of the folder at a time (through ``parsed``), refusing the files
    that are not to be read at all (``_refuse_file``; ``seen``: the slugs read so far)."""

    def __init__(self, root: Path, folder: Path, parsed: ParseCache | None, groups: tuple[str, ...]) -> None:
        self.root, self.folder, self.parsed, self.groups = root, folder, parsed, groups
        self.prefix = folder.relative_to(root).as_posix() + "/"
        self.inside = not outside(folder, root)   # then a file that is no symlink is inside too (1,000 resolves saved)
        self.seen: dict[str, str] = {}

    def read(self, name: str) -> tuple[AuthorConfig | None, list[Problem]]:
        display, f = self.prefix + name, self.folder / name
        refused = _refuse_file(f, self.root, display, self.seen, self.inside)
        if refused:
            return None, [refused]
        self.seen[f.stem] = display
        data = read_bytes(f, display)
        load = partial(_load_author, slug=f.stem, display=display, root=self.root, groups=self.groups)
        if self.parsed is None or b"photo" in data:   # a photo's size is read from its own file: not keyed here
            return load(data)
        return self.parsed.get("author", display, self._key(data), lambda _: load(data))

    def _key(self, data: bytes) -> bytes:
        return data + b"\0groups:" + "\0".join(self.groups).encode()   # the check of 'group' reads them

    def parsed_before(self, name: str) -> bool:
        """Whether the file ``name`` is in the parsed cache as it is now (False when it cannot tell)."""
        try:
            data = (self.folder / name).read_bytes()
        except OSError:
            return False
        return self.parsed is not None and b"photo" not in data and \
            self.parsed.holds("author", self.prefix + name, self._key(data))


# A cold build of 1,000 authors parses their files for ~2 s before anything else: from this many
# files, a forked process parses the later half, from the last file back, while the build's
# process reads them in order and finds in the cache those the helper has parsed by then.
_HELP_FROM = 40


@contextlib.contextmanager
def _helping(reader: _Reader, names: list[str]) -> Iterator[None]:
    """Parse the later half of ``names`` in a forked process (into ``reader.parsed``) while the
    body reads them all. Only an accelerator: a file it has not parsed yet, the body parses
    itself, and it reports nothing (the body reports every problem). Stopped when the body ends.
    Not when the first and the last file it would parse are parsed already (a rebuild: it would
    only take a core from the build to read what the build reads)."""
    later = names[len(names) // 2:][::-1]

    def work() -> None:
        for name in later:
            with contextlib.suppress(SiteError):
                reader.read(name)

    wanted = len(names) >= _HELP_FROM and reader.parsed is not None and reader.parsed.write and \
        not (reader.parsed_before(later[0]) and reader.parsed_before(later[-1]))
    pid = fork_helper(work) if wanted else -1
    try:
        yield
    finally:
        stop_helper(pid)


def _refuse_file(f: Path, root: Path, display: str, seen: dict[str, str], inside: bool = False) -> Problem | None:
    """Why the file is not read at all, or None. ``inside``: its folder is inside the site."""
    slug = f.stem
    if not (inside and not f.is_symlink()) and outside(f, root):
        return Problem(display, None, OUTSIDE)
    if not ids.is_slug(slug):
        return Problem(display, None, f"file name '{f.name}' does not make a safe page address; "
                       "use lower-case letters, digits and hyphens, e.g. 'jane-doe.yaml'")
    if slug in seen:
        return Problem(display, None, f"two authors have the slug '{slug}' "
                       f"({seen[slug]} and {display}); rename one file")
    return None


def _load_author(raw: bytes, slug: str, display: str, root: Path,
                 groups: tuple[str, ...]) -> tuple[AuthorConfig | None, list[Problem]]:
    data, parse_problems = decode_yaml(raw, display)
    ck = Checker(display)
    ck.problems.extend(parse_problems)
    m = ck.mapping(data, "author file", 1)
    if m is None:
        return None, ck.problems
    v = read_table(ck, m, AUTHOR, readers={"sources": read_sources, "record_links": read_extra_links})
    if groups and v["group"] is not None and v["group"] not in groups:
        ck.err(m.lines.get("group"), f"'group' must be one of site.yaml's groups ({', '.join(groups)}), found "
                                     f"{v['group']!r}; add it to 'groups' in site.yaml or correct it here")
    author = AuthorConfig(**{
        **v, "slug": slug, "path": display, "name": v["name"] or slug, "links": links_of(v["links"]),
        "filters": Filters(**v["filters"]) if v["filters"] else Filters(),
        "photo": read_photo(ck, root, v["photo"], m.lines.get("photo")),
        "extra_links": tuple(v["extra_links"].items()) if v["extra_links"] else (),
        "member": _member(ck, m, v["member"])})
    return author, ck.problems


def author_problems(raw: bytes, slug: str, display: str, root: Path, groups: tuple[str, ...]) -> list[Problem]:
    """Every problem the configuration finds in an author file's bytes (one not written yet too),
    as 'authorsite check' reports them (used by 'authorsite triage' and 'new-author --from-issue')."""
    try:
        return _load_author(raw, slug, display, root, groups)[1]
    except SiteError as exc:
        return list(exc.problems or (Problem(exc.path or display, exc.line, exc.message),))


def _member(ck: Checker, m: YMap, values: dict[str, Any] | None) -> tuple[int | None, int | None] | None:
    """``member: {from, until}`` as (from, until); a span that ends before it starts is refused."""
    if not values or (values["from"] is None and values["until"] is None):
        return None
    start, end = values["from"], values["until"]
    if start is not None and end is not None and end < start:
        sub = m.get("member")
        line = sub.lines.get("until") if isinstance(sub, YMap) else m.lines.get("member")
        ck.err(line, f"'member.until' ({end}) is before 'member.from' ({start}); give the last year the author "
                     "was a member, or swap the two")
        return None
    return start, end


def read_extra_links(ck: Checker, m: YMap, key: Key, where: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """``extra_links``: record id -> its links (code, slides ...), each URL checked as a record's own."""
    name = join(where, key.name)
    value = m.get(key.name)
    if value is None:
        return {}
    if not isinstance(value, YMap):
        ck.err(m.lines[key.name], f"'{name}' must be {key.expect}, found {describe(value)}")
        return {}
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for rid, links in value.items():
        if not isinstance(rid, str) or not no_controls(rid).strip():
            ck.err(value.lines[rid], f"'{name}': {describe(rid)} is not a record id; quote arXiv ids such as "
                                     f"'2401.01234'")
            continue
        sub = ck.mapping(links, f"{name}.{rid}", value.lines[rid])
        if sub is not None:
            out[rid.strip()] = record_links(read_table(ck, sub, RECORD_LINKS, f"{name}.{rid}"))
    return out


def links_of(values: dict[str, Any] | None) -> tuple[Link, ...]:
    """The links given, in the schema's order, each labelled as the schema says."""
    if not values:
        return ()
    return tuple(Link(key.label, values[key.name], key.name) for key in LINKS.keys if values[key.name])
