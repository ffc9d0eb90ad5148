"""Validation of one YAML mapping against a schema table, problem by problem.

Each reader takes one key and records a ``Problem`` (file, line, key path, what is allowed,
what was found) instead of raising, so every problem of a file is reported together in one
``SiteError``. Unknown keys are errors with a "did you mean" hint, as in Zola. The messages
are the user interface: tests pin them word for word.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from pathlib import Path
from typing import Any, Callable, Mapping

from generator.core import ids
from generator.config.schema import Key, Table
from generator.core.errors import Problem, SiteError
from generator.core.taxonomy import load_taxonomy
from generator.core.yamlfile import YFloat, YList, YMap

# C0/C1 control characters other than tab and line breaks (YAML lets "\x07" or "\e" through as
# escapes): not allowed in XML, so one of them would make an author's Atom feed unreadable.
CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")

OUTSIDE = ("is a symbolic link to a file outside the site; it is not read (copy the file into the site "
           "instead)")


class Checker:
    """Collects problems for one file; each reader returns a value or None."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def err(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def mapping(self, value: Any, where: str, line: int) -> YMap | None:  # noqa: ANN401
        if isinstance(value, YMap):
            return value
        self.err(line, f"{where}: expected a mapping (key: value lines), found {describe(value)}")
        return None

    def keys(self, m: YMap, allowed: tuple[str, ...], where: str) -> None:
        for key in m:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                prefix = f"{where}." if where else ""
                self.err(m.lines[key], f"unknown key '{prefix}{key}'{hint}; allowed keys: {', '.join(allowed)}")

    def get(self, m: YMap, key: str, where: str, kind: type | tuple[type, ...], expected: str,
            required: bool = False) -> Any:  # noqa: ANN401
        name = join(where, key)
        if key not in m or m[key] is None:
            if required:
                self.err(m.line, f"missing required key '{name}' ({expected})")
            return None
        value = m[key]
        if isinstance(value, str):
            value = no_controls(value)
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            ok = False
        else:
            ok = isinstance(value, kind)
        if not ok:
            quote = _quote_hint(value) if expected == "text" else ""
            self.err(m.lines[key], f"'{name}' must be {expected}, found {describe(value)}{quote}")
            return None
        return value

    def text(self, m: YMap, key: str, where: str = "", required: bool = False) -> str | None:
        v = self.get(m, key, where, str, "text", required)
        if v is not None and not v.strip():
            if required:
                self.err(m.lines[key], f"'{join(where, key)}' must not be empty")
            return None
        return v.strip() if isinstance(v, str) else None

    def integer(self, m: YMap, key: str, where: str, lo: int, hi: int, required: bool = False) -> int | None:
        v = self.get(m, key, where, int, f"a whole number from {lo} to {hi}", required)
        if v is not None and not lo <= v <= hi:
            self.err(m.lines[key], f"'{join(where, key)}' must be from {lo} to {hi}, found {v}")
            return None
        return v

    def number(self, m: YMap, key: str, where: str, lo: float, hi: float) -> float | None:
        v = self.get(m, key, where, (int, float), f"a number from {lo} to {hi}")
        if v is not None and not lo <= v <= hi:
            self.err(m.lines[key], f"'{join(where, key)}' must be from {lo} to {hi}, found {v}")
            return None
        return float(v) if v is not None else None

    def texts(self, m: YMap, key: str, where: str = "") -> tuple[tuple[str, int], ...]:
        """A list of strings, each with its line; a lone string counts as a list of one."""
        name = join(where, key)
        if key not in m or m[key] is None:
            return ()
        v = m[key]
        if isinstance(v, str):
            return ((v.strip(), m.lines[key]),)
        if not isinstance(v, YList):
            self.err(m.lines[key], f"'{name}' must be a list of text, found {describe(v)}")
            return ()
        out = []
        for i, item in enumerate(v):
            if isinstance(item, str) and no_controls(item).strip():
                out.append((no_controls(item).strip(), v.lines[i]))
            else:
                self.err(v.lines[i], f"'{name}[{i}]' must be text, found {describe(item)}{_quote_hint(item)}")
        return tuple(out)

    def arxiv_ids(self, m: YMap, key: str, where: str = "") -> tuple[str, ...]:
        """A list of arXiv ids; catches ids that YAML read as numbers."""
        name = join(where, key)
        if key not in m or m[key] is None:
            return ()
        v = m[key]
        if isinstance(v, (YFloat, str)) and not isinstance(v, bool):
            one = self.one_arxiv_id(v, name, m.lines[key])  # a lone id: accept it, or explain (quote it)
            return (one,) if one else ()
        if not isinstance(v, YList):
            self.err(m.lines[key], f"'{name}' must be a list of arXiv ids, found {describe(v)}")
            return ()
        found = (self.one_arxiv_id(item, f"{name}[{i}]", v.lines[i]) for i, item in enumerate(v))
        return tuple(one for one in found if one)

    def one_arxiv_id(self, item: Any, name: str, line: int) -> str | None:  # noqa: ANN401
        if isinstance(item, (YFloat, int)) and not isinstance(item, bool):
            raw = item.raw if isinstance(item, YFloat) else str(item)
            self.err(line, f"'{name}': {raw} was read by YAML as the number {item!r}, not an arXiv id; "
                           f"put it in quotes: '{raw}'")
            return None
        parsed = ids.parse_arxiv_id(item) if isinstance(item, str) else None
        if parsed is None:
            self.err(line, f"'{name}' must be an arXiv id such as '2401.01234' or 'hep-th/9901001', "
                           f"found {describe(item)}")
            return None
        return parsed[0]

    def categories(self, m: YMap, key: str, where: str = "") -> tuple[str, ...]:
        tax = load_taxonomy()
        out = []
        for code, line in self.texts(m, key, where):
            canon = tax.canonical(code)
            if canon is None:
                hint = tax.hint(code)   # cs.lg: cs.LG; cs.ML: stat.ML or cs.LG; physics: its categories
                self.err(line, f"'{join(where, key)}': '{code}' is not an arXiv category{f' ({hint})' if hint else ''}")
            else:
                out.append(canon)
        return tuple(out)

    def pairs(self, m: YMap, key: str, where: str = "") -> tuple[tuple[str, str], ...]:
        """A list of pairs of texts (``separate: [[a, b], ...]``), each pair of two different ones."""
        name = join(where, key)
        v = m.get(key)
        if v is None:
            return ()
        if not isinstance(v, YList):
            self.err(m.lines[key], f"'{name}' must be a list of pairs such as [[a, b]], found {describe(v)}")
            return ()
        out = []
        for i, item in enumerate(v):
            texts = [no_controls(t).strip() for t in item if isinstance(t, str)] if isinstance(item, YList) else []
            if len(texts) != 2 or len(item) != 2 or not all(texts) or texts[0] == texts[1]:
                self.err(v.lines[i], f"'{name}[{i}]' must be a pair of two different record ids such as "
                                     f"['arxiv:2401.01234', 'doi:10.1000/x'], found {describe(item)}")
                continue
            out.append((texts[0], texts[1]))
        return tuple(out)

    def date(self, m: YMap, key: str, where: str) -> str | None:
        """A YAML date or timestamp as an ISO 8601 UTC timestamp."""
        value = m.get(key)
        if value is None:
            return None
        iso = iso_date(value)
        if iso is None:
            self.err(m.lines[key], f"'{join(where, key)}' must be a date such as 2024-05-31, "
                                   f"found {describe(value)}")
        return iso


# ----------------------------------------------------------------------------- one table, key by key

Reader = Callable[[Checker, YMap, Key, str], Any]


def read_table(ck: Checker, m: YMap, table: Table, where: str = "", given: Mapping[str, Any] | None = None,
               readers: Mapping[str, Reader] | None = None) -> dict[str, Any]:
    """Every key of ``table`` read from ``m`` (defaults for the missing or refused ones).

    ``given`` values come from elsewhere (the command line) and are checked instead of the
    file's; ``readers`` read the types this module does not know (``sources``).
    """
    ck.keys(m, table.names, where)
    out: dict[str, Any] = {}
    for key in table.keys:
        if given and key.name in given:
            value = _given(key, given[key.name])
        elif readers and key.type in readers:
            value = readers[key.type](ck, m, key, where)
        else:
            value = read_key(ck, m, key, where)
        out[key.name] = key.default if value is None else value
    return out


def read_key(ck: Checker, m: YMap, key: Key, where: str) -> Any:  # noqa: ANN401
    """One key's value, or None when it is missing or refused (the problem is recorded)."""
    name, t = key.name, key.type
    if t == "text":
        value = ck.text(m, name, where, key.required)
        return None if value is None else _checked(ck, key, value, where, m.lines.get(name))
    if t == "int":
        return ck.integer(m, name, where, key.lo, key.hi, key.required)  # type: ignore[arg-type]
    if t == "number":
        return ck.number(m, name, where, key.lo, key.hi)  # type: ignore[arg-type]
    if t == "bool":
        return ck.get(m, name, where, bool, "true or false", key.required)
    if t == "texts":
        return tuple(text for text, _ in ck.texts(m, name, where))
    if t == "categories":
        return ck.categories(m, name, where)
    if t == "arxiv_ids":
        return ck.arxiv_ids(m, name, where)
    if t == "arxiv_id":
        return None if m.get(name) is None else ck.one_arxiv_id(m[name], join(where, name), m.lines[name])
    if t == "date":
        return ck.date(m, name, where)
    if t == "pairs":
        return ck.pairs(m, name, where)
    if t == "mapping":
        found = ck.get(m, name, where, YMap, key.expect or "a mapping")
        return None if found is None else dict(found)
    if t == "section":
        sub = ck.get(m, name, where, YMap, key.expect or "a mapping")
        return None if sub is None else read_table(ck, sub, key.table, join(where, name))  # type: ignore[arg-type]
    raise ValueError(f"no reader for the type {t!r} of {name!r}")


def _given(key: Key, value: str) -> str | None:
    """A value of the command line (``--base-url``) through its key's check: an error names the
    option, not the file the value would otherwise come from."""
    option = "--" + key.name.replace("_", "-")
    try:
        good = key.check(value) if key.check is not None else value
    except ValueError as exc:
        raise SiteError(f"{option}: {exc}") from exc
    if good is None:
        raise SiteError(f"{option} must be {key.expect}, found {value.strip()!r}", hint="it overrides site.yaml's "
                        f"'{key.name}' for this run")
    return good


def checked_text(ck: Checker, key: Key, value: str, where: str, line: int | None) -> str | None:
    """A text given another way (a source's shorthand) through its key's check, as if written in full."""
    return _checked(ck, key, value, where, line)


def _checked(ck: Checker, key: Key, value: str, where: str, line: int | None) -> str | None:
    if key.check is None:
        return value
    try:
        good = key.check(value)
    except ValueError as exc:      # a check that can say exactly what is wrong (an ORCID check digit)
        ck.err(line, f"'{join(where, key.name)}': {exc}")
        return None
    if good is None:
        ck.err(line, f"'{join(where, key.name)}' must be {key.expect}, found {value.strip()!r}")
    return good


# ----------------------------------------------------------------------------- small helpers

def no_controls(text: str) -> str:
    return CONTROLS.sub("", text)


def join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _quote_hint(value: Any) -> str:  # noqa: ANN401
    """For text that YAML read as something else (name: yes, pinned: [2104.12250]): quote it."""
    if isinstance(value, bool):
        return "; YAML reads yes, no, on, off, true and false unquoted as true/false: put the text in quotes"
    if isinstance(value, (int, float)):
        return f"; put it in quotes: '{value.raw if isinstance(value, YFloat) else value}'"
    return ""


def describe(value: Any) -> str:  # noqa: ANN401
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"true/false ({str(value).lower()})"
    if isinstance(value, YFloat):
        return f"the number {value.raw}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(value, (YMap, dict)):
        return "a mapping"
    if isinstance(value, (YList, list)):
        return "a list"
    return type(value).__name__


def iso_date(value: Any) -> str | None:  # noqa: ANN401
    if isinstance(value, dt.datetime):
        value = value.astimezone(dt.timezone.utc) if value.tzinfo else value
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.strftime("%Y-%m-%dT00:00:00Z")
    return None


def outside(path: Path, root: Path) -> bool:
    """True if ``path`` (a symlink, or inside a symlinked folder) leads out of the site folder."""
    try:
        return not path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):   # a symlink loop
        return True
