"""Who works with whom: the layout of the co-authorship graph among the site's own authors. Pure.

The lab's page (generator.render.lab) draws it as an SVG made at build time, no JavaScript, no third
party: each author a node on a circle, in site order from the top, clockwise (the same inputs
give the same picture, and a new author moves the others by one step only); each pair of
authors with works together an edge whose width is the number of those works (capped at
``MAX_WIDTH`` so one prolific pair does not cover the picture; the table beside it gives every
count). The markup is the template's; this gives coordinates, rounded to 0.1 so the bytes are
the same on every machine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

MAX_WIDTH = 12      # the widest edge, in the SVG's units
LABEL_ROOM = 170    # room for a name beside its node, left and right
STEP = 34           # the arc between two nodes, at least


@dataclass(frozen=True, slots=True)
class Node:
    slug: str
    name: str
    x: float
    y: float
    label_x: float
    label_y: float
    anchor: str         # text-anchor of the name: start (right half), end (left half), middle


@dataclass(frozen=True, slots=True)
class Edge:
    a: str
    b: str
    count: int
    width: int
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True, slots=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    view: tuple[float, float, float, float]   # the SVG's viewBox: x, y, width, height


def edge_width(count: int) -> int:
    """An edge's width: the number of works together, at most ``MAX_WIDTH``."""
    return min(count, MAX_WIDTH)


def coauthor_graph(people: Sequence[tuple[str, str]], pairs: Sequence[tuple[str, str, int]]) -> Graph:
    """The graph of ``people`` ((slug, name), site order) and ``pairs`` ((slug, slug, works))."""
    n = len(people)
    radius = max(90.0, STEP * n / (2 * math.pi))
    nodes, at = [], {}
    for i, (slug, name) in enumerate(people):
        angle = -math.pi / 2 + 2 * math.pi * i / max(n, 1)
        cos, sin = math.cos(angle), math.sin(angle)
        x, y = _r(radius * cos), _r(radius * sin)
        anchor = "start" if cos > 0.2 else "end" if cos < -0.2 else "middle"
        # A name above or below its node (the circle's top and bottom) stands clear of it.
        label_y = _r((radius + 12) * sin + (4 if abs(sin) < 0.98 else (16 if sin > 0 else -8)))
        nodes.append(Node(slug, name, x, y, _r((radius + 10) * cos), label_y, anchor))
        at[slug] = (x, y)
    edges = tuple(Edge(a, b, count, edge_width(count), *at[a], *at[b])
                  for a, b, count in pairs if a in at and b in at and count > 0)
    side = radius + LABEL_ROOM
    return Graph(tuple(nodes), edges, (-side, -radius - 30, 2 * side, 2 * radius + 60))


def _r(v: float) -> float:
    r = round(v, 1)
    return 0.0 if r == 0 else r   # never -0.0
