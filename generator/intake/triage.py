"""``authorsite triage ISSUE.json``: a "Not mine?" issue becomes one edit of one author file.

"Not this author's work" adds the record's arXiv id to the author's ``exclude:``; "Wrongly merged
with another record" adds the pair to ``separate:``. Every answer is checked as the configuration
checks it (the slug as a file name, an arXiv id as ``exclude`` reads it, record ids as
``separate`` names them), the file must pass the author checks before and after, and the edit
keeps the rest of the file as it was (``yamledit``). Running it again changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.core import ids
from generator.core.files import atomic_write
from generator.config.authors import author_problems
from generator.config.check import outside
from generator.config.site import load_site
from generator.core.errors import SiteError
from generator.intake.issue import Issue, form_fields, parse_issue, read_issue_json, shown
from generator.intake.yamledit import Item, add_item
from generator.assemble.merge import handle
from generator.core.yamlfile import decode_yaml

FORM = "not-mine.yml"
NOT_MINE = "Not this author's work"
WRONG_MERGE = "Wrongly merged with another record"
# What a record id of the site can be once named as ``separate`` names it (merge.handle): a scheme
# and an id of the characters DOIs, DBLP keys and digests use; no space, '"', '$' or backtick.
_RECORD_ID = re.compile(r"(?:arxiv|doi|dblp|openalex|orcid|title):[A-Za-z0-9][A-Za-z0-9._/:;()+'-]{0,199}")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the command did: the file, whether it changed, and one line to say it."""

    path: str
    changed: bool
    summary: str


def author_file(root: Path, issue: Issue, field_id: str = "author") -> Path:
    """The author file the issue names, inside content/authors/ and existing."""
    slug = issue.get(field_id)
    if not ids.is_slug(slug):
        raise issue.error(field_id, f"{shown(slug)} is not an author's page address",
                          hint="the page address is the last part of authors/SLUG/: lower-case letters, digits and "
                               "hyphens, such as jane-doe")
    folder = root / "content" / "authors"
    found = [p for p in (folder / f"{slug}.yaml", folder / f"{slug}.yml") if p.is_file()]
    if not found:
        raise issue.error(field_id, f"there is no author '{slug}' (no content/authors/{slug}.yaml)",
                          hint="check the address of the author's page")
    if found[0].is_symlink() or outside(found[0], root):
        raise issue.error(field_id, f"content/authors/{found[0].name} is a link to another file; it is not edited",
                          hint="edit the file it points to by hand")
    return found[0]


def record_handle(issue: Issue, field_id: str) -> str:
    """A record id as ``separate`` names it ('arxiv:2401.01234', 'doi:10.1/x'), or a message."""
    text = issue.get(field_id)
    if not text:
        raise issue.error(field_id, "is empty", hint="give the record's id as the page shows it, such as "
                                                     "arxiv:2401.01234")
    named = handle(text)
    if not _RECORD_ID.fullmatch(named) or len(text) > 200:
        raise issue.error(field_id, f"{shown(text)} is not a record id",
                          hint="give it as the page shows it, such as arxiv:2401.01234 or doi:10.1145/3299869.3319893")
    return named


def _change(issue: Issue) -> tuple[str, Item, str]:
    """(the key, the item to add to it, what it means) from the issue's answers."""
    problem = issue.get("problem")
    if problem == NOT_MINE:
        record = issue.get("record")
        parsed = ids.parse_arxiv_id(record)
        if parsed is None:
            record_handle(issue, "record")   # a plain message for what is no record id at all
            raise issue.error("record", f"{shown(record)} has no arXiv id; 'exclude' lists arXiv ids",
                              hint="a record of another source is removed from that source, or kept apart from "
                                   "another with 'Wrongly merged with another record'")
        return "exclude", parsed[0], f"{parsed[0]} is not this author's work"
    if problem == WRONG_MERGE:
        pair = (record_handle(issue, "record"), record_handle(issue, "merged_with"))
        if pair[0] == pair[1]:
            raise issue.error("merged_with", "names the same record as 'Record'",
                              hint="give the id of the other record of the wrong merge")
        return "separate", pair, f"{pair[0]} and {pair[1]} are different works"
    raise issue.error("problem", f"{shown(problem)} is not one of the form's choices",
                      hint=f"choose '{NOT_MINE}' or '{WRONG_MERGE}'")


def _present(existing: object, key: str, item: Item) -> bool:
    """Whether the file already says it (ids compared as the configuration reads them)."""
    items = existing if isinstance(existing, list) else [] if existing is None else [existing]
    if key == "exclude":
        return any((ids.parse_arxiv_id(x) or ("",))[0] == item for x in items if isinstance(x, str))
    return any(isinstance(p, list) and {handle(str(x)) for x in p} == set(item) for p in items)


def triage(root: Path, issue_path: Path) -> Outcome:
    """Apply the "Not mine?" issue in ``issue_path`` to its author's file."""
    issue = parse_issue(read_issue_json(issue_path), form_fields(root, FORM), FORM)
    path = author_file(root, issue)
    key, item, meaning = _change(issue)
    config = load_site(root)   # the site as it is must load: an edit is only checked against a sound site
    display = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    current = _current(text, key, display)
    if _present(current, key, item):
        return Outcome(display, False, f"{display} already has {item!r} in '{key}'; nothing to change "
                                       f"(issue #{issue.number})")
    new = add_item(text, key, item, display)
    problems = author_problems(new.encode("utf-8"), path.stem, display, root, config.groups)
    if problems:
        raise SiteError.from_problems(problems)
    atomic_write(path, new.encode("utf-8"))   # the file whole or as it was, never half written
    return Outcome(display, True, f"{display}: added {item!r} to '{key}': {meaning} (issue #{issue.number})")


def _current(text: str, key: str, display: str) -> object:
    data, _ = decode_yaml(text.encode("utf-8"), display)
    return data.get(key) if isinstance(data, dict) else None
