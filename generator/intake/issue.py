"""A GitHub issue written through one of the site's issue forms, read as hostile data.

The input is the issue's JSON: the webhook event a workflow gets (``{"issue": {...}}``, the file
at ``$GITHUB_EVENT_PATH``) or a bare issue object. GitHub writes a form's answers into the
issue's body as Markdown, each field as ``### LABEL``, a blank line and the value
(``_No response_`` when it was left empty). The labels are read from the form file itself
(the site's ``.github/ISSUE_TEMPLATE/NAME``, else the one ``authorsite init`` writes), so they
are declared once. A body that is not exactly what the form writes (a heading missing, twice, or
out of order; a value too long; a control character) is refused, never guessed at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from generator.config.check import CONTROLS
from generator.core.errors import SiteError

MAX_EVENT_BYTES = 4_000_000   # a webhook payload with a body at GitHub's cap fits many times over
MAX_BODY_CHARS = 65_536       # GitHub's own cap on an issue's body
NO_RESPONSE = "_No response_"
FORM_DIR = ".github/ISSUE_TEMPLATE"


@dataclass(frozen=True, slots=True)
class Field:
    """One answer of a form: its id, its label (the heading in the body) and whether it is one line."""

    id: str
    label: str
    one_line: bool


@dataclass(frozen=True, slots=True)
class Issue:
    """An issue's number and the answers of its form by field id ('' when left empty)."""

    number: int
    form: str
    values: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, str], ...]   # field id -> label, for messages

    def get(self, field_id: str) -> str:
        return dict(self.values).get(field_id, "")

    def label(self, field_id: str) -> str:
        return dict(self.labels).get(field_id, field_id)

    @property
    def where(self) -> str:
        return f"issue #{self.number}"

    def error(self, field_id: str, message: str, hint: str | None = None) -> SiteError:
        """A message naming the issue and the field (as a file and key would be named)."""
        return SiteError(f"'{self.label(field_id)}': {message}", path=self.where, hint=hint)


def shown(value: str, limit: int = 60) -> str:
    """A value quoted in a message: cut short and escaped (a message may end up in an issue comment)."""
    cut = value if len(value) <= limit else value[:limit] + "..."
    return repr(cut).replace("`", "\\x60")


def form_fields(root: Path, name: str) -> tuple[Field, ...]:
    """The answer fields of the form ``name`` (``not-mine.yml``), in order: the site's own copy
    when it has one, else the one ``authorsite init`` writes."""
    own = root / FORM_DIR / name
    if own.is_file():
        text, where = own.read_text(encoding="utf-8"), f"{FORM_DIR}/{name}"
    else:
        text = resources.files("generator").joinpath("scaffold/github/ISSUE_TEMPLATE", name).read_text("utf-8")
        where = f"authorsite's {name}"
    try:
        body = yaml.safe_load(text)["body"]
        return tuple(Field(str(f["id"]), str(f["attributes"]["label"]), f["type"] != "textarea")
                     for f in body if f.get("type") != "markdown")
    except (yaml.YAMLError, KeyError, TypeError) as exc:
        raise SiteError(f"cannot read the issue form's fields ({exc})", path=where,
                        hint="restore the file 'authorsite init' writes") from None


def read_issue_json(path: Path) -> dict[str, Any]:
    """The issue object of an event file or of a bare issue file."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_EVENT_BYTES + 1)
    except OSError as exc:
        raise SiteError(f"cannot read the issue ({exc.strerror})", path=str(path)) from None
    if len(data) > MAX_EVENT_BYTES:
        raise SiteError(f"the file is over {MAX_EVENT_BYTES:,} bytes; a GitHub issue event is far smaller",
                        path=str(path), hint="give the file of the 'issues' event ($GITHUB_EVENT_PATH)")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:   # RecursionError: [[[[... a million deep
        raise SiteError(f"not JSON ({'nested too deep' if isinstance(exc, RecursionError) else exc})", path=str(path),
                        hint="give the issue's JSON: the event file ($GITHUB_EVENT_PATH) or 'gh issue view N --json "
                             "number,title,body'") from None
    issue = doc.get("issue", doc) if isinstance(doc, dict) else None
    if not isinstance(issue, dict) or not isinstance(issue.get("number"), int) or isinstance(issue["number"], bool):
        raise SiteError("no issue in it: expected an object with a whole 'number' (or an event with an 'issue')",
                        path=str(path), hint="give the file of the 'issues' event ($GITHUB_EVENT_PATH)")
    return issue


def parse_issue(issue: dict[str, Any], fields: tuple[Field, ...], form: str) -> Issue:
    """The form's answers in ``issue['body']``, each field once, in the form's order."""
    number = issue["number"]
    where = f"issue #{number}"
    body = issue.get("body")
    if not isinstance(body, str) or not body.strip():
        raise SiteError("the issue has no text", path=where, hint=f"open it with the form {form}")
    if len(body) > MAX_BODY_CHARS:
        raise SiteError(f"the issue's text is {len(body):,} characters long; GitHub's forms write at most "
                        f"{MAX_BODY_CHARS:,}, so it was not written by the form {form}", path=where,
                        hint=f"open a new issue with the form {form}")
    headings = {f"### {f.label}": f for f in fields}
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.replace("\r\n", "\n").split("\n"):
        field = headings.get(line.rstrip())
        if field is not None:
            if field.id in found:
                raise SiteError(f"the heading '### {field.label}' is there twice; the form {form} writes it once",
                                path=where, hint=f"open a new issue with the form {form}")
            current = found[field.id] = []
        elif current is not None:
            current.append(line)
    order = [f.id for f in fields]
    if list(found) != order:
        missing = [f.label for f in fields if f.id not in found]
        why = f"'{missing[0]}' is missing" if missing else "its headings are out of order"
        raise SiteError(f"the issue was not written by the form {form}: {why}", path=where,
                        hint=f"open a new issue with the form {form} (labels are read from the form file)")
    values = tuple((f.id, _value(found[f.id], f, where)) for f in fields)
    return Issue(number, form, values, tuple((f.id, f.label) for f in fields))


def _value(lines: list[str], field: Field, where: str) -> str:
    text = "\n".join(lines).strip()
    if text == NO_RESPONSE:
        return ""
    if CONTROLS.search(text) or "\x00" in text:
        raise SiteError(f"'{field.label}' holds a control character", path=where, hint="write it as plain text")
    if field.one_line and "\n" in text:
        raise SiteError(f"'{field.label}' must be one line; it holds a line break", path=where,
                        hint="the form writes one line here: open a new issue with the form")
    return text
