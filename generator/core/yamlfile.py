"""Safe YAML reading that remembers where every key was written.

PyYAML's ``safe_load`` loses line numbers, lets a duplicate key silently win and
expands aliases (a "billion laughs" bomb). This loader builds plain Python values
from the node tree itself so that:

* every mapping is a ``YMap`` whose ``lines[key]`` is the 1-based line of that key,
  and every sequence a ``YList`` with ``lines[i]`` per item;
* a duplicate key is reported (with both lines) instead of overwriting;
* aliases (``*name``) are refused;
* a float keeps the text it was written as (``YFloat.raw``), so an arXiv id that
  YAML read as a number (``2104.12250`` -> ``2104.1225``) can be reported with the
  original spelling and a hint to quote it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from generator.core.errors import Problem, SiteError

MAX_YAML_BYTES = 1_000_000


class YMap(dict):  # type: ignore[type-arg]
    """A dict that knows the line of each of its keys and its own line."""

    line: int = 1

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[Any, int] = {}


class YList(list):  # type: ignore[type-arg]
    line: int = 1

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[int] = []


class YFloat(float):
    raw: str = ""


_PLAIN_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


class _Loader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: ANN401 - PyYAML's signature
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(
                None, None, "aliases (*name) are not allowed in site files", event.start_mark
            )
        return super().compose_node(parent, index)


def _build(node: yaml.Node, loader: _Loader, path: str, problems: list[Problem], key: object = None) -> Any:
    line = node.start_mark.line + 1
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _PLAIN_TAGS:
        # SafeLoader ignores tags on collections when we build them ourselves: refuse them, so a
        # '!!python/object/apply' (or any other) tag is an error, never silently a plain mapping.
        raise yaml.MarkedYAMLError(None, None, f"the tag '{node.tag}' is not allowed in site files",
                                   node.start_mark)
    if isinstance(node, yaml.MappingNode):
        m = YMap()
        m.line = line
        loader.flatten_mapping(node)  # resolves '<<' merge keys (aliases are refused anyway)
        for knode, vnode in node.value:
            key = _build(knode, loader, path, problems)
            kline = knode.start_mark.line + 1
            if not isinstance(key, (str, int, float, bool)) or key is None:
                problems.append(Problem(path, kline, f"a key must be a plain word, found {key!r}"))
                continue
            if key in m:
                problems.append(
                    Problem(path, kline, f"duplicate key '{key}' (first written on line {m.lines[key]}); "
                            "keep one of them")
                )
                continue
            m[key] = _build(vnode, loader, path, problems, key)
            m.lines[key] = kline
        return m
    if isinstance(node, yaml.SequenceNode):
        seq = YList()
        seq.line = line
        for item in node.value:
            seq.append(_build(item, loader, path, problems))
            seq.lines.append(item.start_mark.line + 1)
        return seq
    try:
        value = loader.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:   # 2024-13-40: YAML's date pattern, no real date
        where = f"'{key}': " if key is not None else ""
        raise SiteError(f"{where}{node.value} reads as a date, but it is not one ({exc})", path=path, line=line,
                        hint=f"put it in quotes ('{node.value}') if it is text, or write a real date") from exc
    if isinstance(value, float):
        f = YFloat(value)
        f.raw = node.value
        return f
    return value


def parse_yaml(text: str, path: str) -> tuple[Any, list[Problem]]:
    """Parse one YAML document; syntax errors raise ``SiteError`` with line and column."""
    problems: list[Problem] = []
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:   # a NUL or other non-printable character
        raise _reader_error(exc, text, path) from exc
    try:
        node = loader.get_single_node()
        if node is None:
            return None, problems
        return _build(node, loader, path, problems), problems
    except RecursionError as exc:   # the pure-Python composer recurses once per nesting level
        raise SiteError("YAML nested too deeply (lists or mappings inside each other hundreds of levels deep)",
                        path=path, hint="a site file needs only a few levels; check for runaway brackets") from exc
    except yaml.reader.ReaderError as exc:
        raise _reader_error(exc, text, path) from exc
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        col = f", column {mark.column + 1}" if mark else ""
        what = exc.problem or exc.context or "invalid YAML"
        started = ""
        if exc.context and exc.context_mark is not None and exc.problem:
            # e.g. an unclosed quote: the problem is found at the end, the cause is where it began
            started = f" ({exc.context} that started on line {exc.context_mark.line + 1})"
        raise SiteError(f"YAML syntax error{col}: {what}{started}", path=path, line=line,
                        hint="check indentation and quoting near this line") from exc
    except yaml.YAMLError as exc:
        raise SiteError(f"YAML error: {exc}", path=path) from exc
    finally:
        loader.dispose()


def _reader_error(exc: yaml.reader.ReaderError, text: str, path: str) -> SiteError:
    pos = exc.position if isinstance(exc.position, int) and 0 <= exc.position <= len(text) else 0
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    offset = len(text[:pos].encode("utf-8", "surrogatepass"))
    return SiteError(f"the character U+{exc.character:04X} is not allowed in YAML (column {column}, byte {offset})",
                     path=path, line=line, hint="remove it; site files are plain UTF-8 text")


def read_yaml(path: Path, display: str) -> tuple[Any, list[Problem]]:
    """Read and parse a YAML file no larger than ``MAX_YAML_BYTES``, strictly UTF-8."""
    return decode_yaml(read_bytes(path, display), display)


def read_bytes(path: Path, display: str) -> bytes:
    """A file's bytes, or a ``SiteError`` naming it."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SiteError(f"cannot read file: {exc.strerror}", path=display) from exc


def decode_yaml(data: bytes, display: str) -> tuple[Any, list[Problem]]:
    """Parse the bytes of a YAML file (as ``read_yaml``; the parsed-input cache reads the bytes first)."""
    if len(data) > MAX_YAML_BYTES:
        raise SiteError(f"file is {len(data):,} bytes, more than the {MAX_YAML_BYTES:,} a site file may have",
                        path=display, hint="a site file takes a few KB: is it the one you meant? (records of a "
                        "source belong in content/cache/, which 'authorsite fetch' fills)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SiteError(f"file is not valid UTF-8 (byte 0x{data[exc.start]:02X} at offset {exc.start})",
                        path=display, line=line, hint="save the file as UTF-8") from exc
    return parse_yaml(text, display)
