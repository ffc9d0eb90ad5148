"""Add one item to a top-level list of an author file, every other byte of the file kept.

A round trip through a YAML library re-flows long lines and re-indents lists (the demo's
abstracts, its ``subjects:`` lists), so the file is not dumped again as a whole. The item is
emitted by ruamel.yaml (a value is never pasted into YAML text: the library quotes what needs
quoting) and set where the list ends, as the file writes it: after the last item of a flow list
(``exclude: ['2301.99999', NEW]``), as a new ``- NEW`` line under a block list, or as a new key at
the end of the file. The result is then read back with the site's own YAML reading (PyYAML, YAML
1.1) and must give exactly the old values with the one item added, or nothing is written.
"""

from __future__ import annotations

import io
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedSeq
from ruamel.yaml.scalarstring import SingleQuotedScalarString

from generator.core.errors import SiteError

Item = str | tuple[str, str]


def _emitter() -> YAML:
    out = YAML(typ="rt")
    out.width = 1_000_000   # one line, however long
    return out


def _flow(value: list[Any]) -> str:
    seq = CommentedSeq(value)
    seq.fa.set_flow_style()
    for inner in value:
        if isinstance(inner, CommentedSeq):
            inner.fa.set_flow_style()
    buf = io.StringIO()
    _emitter().dump(seq, buf)
    return buf.getvalue().strip()


def scalar(text: str) -> str | SingleQuotedScalarString:
    """``text`` as ruamel would write it, unless the site's YAML 1.1 reading would read that back
    as something else ('yes' is a boolean there): then single-quoted."""
    if yaml.safe_load(_flow([text])) == [text]:
        return text
    return SingleQuotedScalarString(text)


def emit_item(item: Item) -> str:
    """One list item in flow style, as ruamel.yaml writes it: ``'2401.01234'``, ``[a, b]``."""
    value: Any = CommentedSeq([scalar(x) for x in item]) if isinstance(item, tuple) else scalar(item)
    return _flow([value])[1:-1].strip()


def _top_node(text: str, path: str) -> yaml.MappingNode:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise SiteError(f"cannot read it as YAML ({exc})", path=path) from None
    if not isinstance(node, yaml.MappingNode):
        raise SiteError("expected a mapping (key: value lines) at the top", path=path)
    return node


def _line_start(text: str, line: int) -> int:
    """The index where 0-based ``line`` starts (the end of the text past its last line)."""
    pos = 0
    for _ in range(line):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos


def _insert(text: str, key: str, value: yaml.Node | None, item: Item) -> str:
    new = emit_item(item)
    if value is None:   # no such key: a new one, last
        return text + f"{key}: [{new}]\n"   # the key is ours (exclude, separate); the item ruamel's
    if isinstance(value, yaml.SequenceNode) and value.flow_style:
        at = value.value[-1].end_mark.index if value.value else value.start_mark.index + 1
        return text[:at] + (", " if value.value else "") + new + text[at:]
    if isinstance(value, yaml.SequenceNode):   # a block list: a new '- item' line under its last item
        end = value.value[-1].end_mark
        at = _line_start(text, end.line + 1 if end.column else end.line)
        return text[:at] + " " * value.start_mark.column + f"- {new}\n" + text[at:]
    # null (``exclude:``) or a lone item (``exclude: '2301.99999'``): a flow list of what it held and the item
    old = [] if value.tag == "tag:yaml.org,2002:null" else [value.value]
    items = ", ".join([*(emit_item(str(o)) for o in old), new])
    start, end = value.start_mark.index, value.end_mark.index
    lead = " " if start == end and text[start - 1:start] == ":" else ""
    return text[:start] + f"{lead}[{items}]" + text[end:]


def add_item(text: str, key: str, item: Item, path: str) -> str:
    """``text`` with ``item`` added to the top-level list ``key`` (made when absent)."""
    if not text.endswith("\n"):
        text += "\n"
    top = _top_node(text, path)
    value = next((v for k, v in top.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
    if value is not None and not isinstance(value, (yaml.SequenceNode, yaml.ScalarNode)):
        raise SiteError(f"'{key}' must be a list, found a mapping", path=path, line=value.start_mark.line + 1)
    new = _insert(text, key, value, item)
    before = yaml.safe_load(text)
    old = before.get(key)
    expected = {**before, key: [*([] if old is None else old if isinstance(old, list) else [old]),
                                list(item) if isinstance(item, tuple) else item]}
    try:
        after = yaml.safe_load(new)
    except yaml.YAMLError:
        after = None
    if after != expected:   # never write a file that does not say exactly this
        raise SiteError(f"cannot add {item!r} to '{key}' without changing anything else in the file",
                        path=path, hint=f"add it to '{key}' by hand")
    return new
