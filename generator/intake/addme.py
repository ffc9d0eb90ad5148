"""``authorsite new-author --from-issue ISSUE.json``: an "Add me" issue becomes a new author file.

Each answer is checked before anything is written, and the first that fails is the one message
(in words, for the issue's comment): an ORCID iD by its check digit, a DBLP pid, an OpenAlex id,
arXiv ids or a query, a group that site.yaml lists, and a page address not taken. The file is
made by ruamel.yaml from the values (never from text with values pasted in) and must then pass
the author checks of 'authorsite check'; only then is it written, as a new file.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Callable

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from generator.core import ids
from generator.config.authors import author_problems
from generator.config.check import outside
from generator.config.json_schema import AUTHOR_MODELINE
from generator.config.site import load_site
from generator.config.kinds.dblp import check_dblp_pid
from generator.config.kinds.openalex import check_openalex_author
from generator.core.errors import SiteError
from generator.intake.issue import Issue, form_fields, parse_issue, read_issue_json, shown
from generator.intake.yamledit import scalar
from generator.newsite import slugify

FORM = "add-me.yml"
MAX_NAME = 200
MAX_QUERY = 500
_IDS_SPLIT = re.compile(r"[\s,]+")


def _name(issue: Issue) -> str:
    name = " ".join(issue.get("name").split())
    if not name:
        raise issue.error("name", "is empty", hint="give the name the page should show")
    if len(name) > MAX_NAME or any(c in name for c in '"\\') or not name.isprintable():
        raise issue.error("name", f"{shown(name)} cannot be a name on a page and in an arXiv query (over "
                                  f"{MAX_NAME} characters, a double quote, a backslash or a control character)",
                          hint="write the name without them")
    return name


def _slug(issue: Issue, name: str, given: str | None) -> str:
    slug = given if given is not None else slugify(name)
    if not ids.is_slug(slug):
        raise issue.error("name", f"{shown(name)} gives no page address ({shown(slug)})",
                          hint="a maintainer can choose one: authorsite new-author --from-issue ISSUE.json --slug "
                               "first-last")
    return slug


def _not_taken(issue: Issue, root: Path, slug: str) -> None:
    for ext in (".yaml", ".yml"):
        if (root / "content" / "authors" / f"{slug}{ext}").exists():
            raise issue.error("name", f"the page address '{slug}' is taken: content/authors/{slug}{ext} exists",
                              hint=f"if that is you, ask for a change to that file; else a maintainer gives this "
                                   f"author another address: authorsite new-author --from-issue ISSUE.json --slug "
                                   f"{slug}-2")


def _orcid(issue: Issue) -> str | None:
    text = issue.get("orcid")
    if not text:
        return None
    try:
        bare = ids.check_orcid_id(text)
    except ValueError as exc:
        raise issue.error("orcid", str(exc)) from None
    if bare is None:
        raise issue.error("orcid", f"{shown(text)} is not an ORCID iD",
                          hint="an ORCID iD has 16 digits in four groups, such as 0000-0002-1825-0097")
    return bare


def _checked(issue: Issue, field_id: str, check: Callable[[str], str | None], example: str) -> str | None:
    text = issue.get(field_id)
    if not text:
        return None
    value = check(text)
    if value is None:
        raise issue.error(field_id, f"{shown(text)} is not one", hint=f"such as {example}")
    return str(value)


def _arxiv(issue: Issue) -> CommentedMap | None:
    """``{ids: [...]}`` when every word is an arXiv id, else ``{query: ...}``; None when empty."""
    text = issue.get("arxiv").strip()
    if not text:
        return None
    words = [w for w in _IDS_SPLIT.split(text) if w]
    parsed = [ids.parse_arxiv_id(w) for w in words]
    if all(parsed):
        return CommentedMap(ids=_flow([scalar(i) for i in dict.fromkeys(p[0] for p in parsed if p)]))
    if "\n" in text or len(text) > MAX_QUERY:
        raise issue.error("arxiv", "is neither arXiv ids nor a one-line arXiv query",
                          hint="give arXiv ids (such as 2401.01234, one a line) or one query such as au:\"Jane Doe\"")
    return CommentedMap(query=scalar(text))


def _group(issue: Issue, groups: tuple[str, ...]) -> str | None:
    group = issue.get("group").strip()
    if group and groups and group not in groups:
        raise issue.error("group", f"{shown(group)} is not one of this site's groups ({', '.join(groups)})",
                          hint="choose one of them, or a maintainer adds it to 'groups' in site.yaml first")
    return group or None


def _flow(items: list[object]) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def _sources(issue: Issue, name: str, orcid: str | None) -> CommentedSeq:
    """The author's sources: identifiers first, then arXiv (a name query when nothing else finds works)."""
    out = CommentedSeq()
    dblp = _checked(issue, "dblp", check_dblp_pid, "12/3456")
    openalex = _checked(issue, "openalex", check_openalex_author, "A5023888391")
    arxiv = _arxiv(issue)
    for kind, key, value in (("orcid", "id", orcid), ("dblp", "pid", dblp), ("openalex", "author", openalex)):
        if value:
            out.append(CommentedMap({kind: CommentedMap({key: scalar(value)})}))
    if arxiv is None and not out:
        arxiv = CommentedMap(query=scalar(f'au:"{name}"'))
    if arxiv is not None:
        out.append(CommentedMap(arxiv=arxiv))
    return out


def author_text(issue: Issue, name: str, slug: str, groups: tuple[str, ...]) -> str:
    """The new author file: the modeline, a comment naming the issue, then the values."""
    orcid = _orcid(issue)
    data = CommentedMap(name=scalar(name))
    role = issue.get("role").strip()
    if len(role) > MAX_NAME:
        raise issue.error("role", f"is over {MAX_NAME} characters long", hint="say it in a few words, such as PhD student")
    if role:
        data["role"] = scalar(role)
    group = _group(issue, groups)
    if group:
        data["group"] = scalar(group)
    if orcid:
        data["links"] = CommentedMap(orcid=scalar(orcid))
    data["sources"] = _sources(issue, name, orcid)
    out = YAML(typ="rt")
    out.width = 1_000_000
    out.indent(mapping=2, sequence=4, offset=2)
    buf = io.StringIO()
    out.dump(data, buf)
    head = f"# Added from issue #{issue.number}; the page address is the file name: authors/{slug}/.\n"
    return AUTHOR_MODELINE + head + buf.getvalue()


def new_author_from_issue(root: Path, issue_path: Path, slug: str | None = None) -> Path:
    """Write content/authors/SLUG.yaml from the "Add me" issue in ``issue_path``; nothing when a check fails."""
    if not (root / "site.yaml").is_file():
        raise SiteError(f"no site.yaml in {root}: run new-author in a site's folder (or give it with -C FOLDER)")
    issue = parse_issue(read_issue_json(issue_path), form_fields(root, FORM), FORM)
    config = load_site(root)
    name = _name(issue)
    slug = _slug(issue, name, slug)
    text = author_text(issue, name, slug, config.groups)   # every answer checked, the first wrong one said
    _not_taken(issue, root, slug)
    display = f"content/authors/{slug}.yaml"
    problems = author_problems(text.encode("utf-8"), slug, display, root, config.groups)
    if problems:
        raise SiteError(f"issue #{issue.number}: the author file it would write does not pass 'authorsite check'; "
                        "nothing was written", problems=tuple(problems))
    path = root / display
    if outside(path.parent, root):
        raise SiteError("content/authors/ is a link to a folder outside the site; nothing was written",
                        path="content/authors/", hint="make it a folder of the site")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as f:   # 'x': never over a file that appeared meanwhile
        f.write(text)
    return path
