"""The site's accent colour (site.yaml ``accent``): links, chart bars and the active filter use it.

Links are text, so the colour must reach WCAG AA's 4.5:1 contrast against the theme's light
background; the dark scheme gets its own variant, the colour mixed with white until it reaches
4.5:1 against the dark background too (``dark_variant``). ``problem`` says what to do when a
colour cannot work on the light background. Pure functions over '#rrggbb' strings.
"""

from __future__ import annotations

LIGHT_BG = "#ffffff"     # --bg of themes/default/static/style.css, light and dark
DARK_BG = "#14171b"
AA_TEXT = 4.5
HEX_PATTERN = r"#[0-9A-Fa-f]{6}"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in rgb)


def luminance(hex_colour: str) -> float:
    """WCAG 2.1 relative luminance."""
    def lin(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in _rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _mix(colour: str, toward: str, t: float) -> str:
    c, w = _rgb(colour), _rgb(toward)
    return _hex(tuple(x + (y - x) * t for x, y in zip(c, w)))


def _first_passing(colour: str, toward: str, bg: str) -> str:
    """The least mix of ``colour`` toward ``toward`` that reaches AA on ``bg`` (steps of 1/64)."""
    for step in range(65):
        mixed = _mix(colour, toward, step / 64)
        if contrast(mixed, bg) >= AA_TEXT:
            return mixed
    return toward


def dark_variant(colour: str) -> str:
    """The accent for the dark scheme: the colour itself when it reaches 4.5:1 on the dark
    background, else the least lightened version of it that does."""
    return _first_passing(colour.lower(), "#ffffff", DARK_BG)


def problem(colour: str) -> str | None:
    """None when ``colour`` reaches 4.5:1 on the light background; else what is wrong and a
    darker version of the same hue that would do."""
    ratio = contrast(colour, LIGHT_BG)
    if ratio >= AA_TEXT:
        return None
    return (f"'accent' {colour} has contrast {ratio:.2f}:1 against the light background {LIGHT_BG}, below "
            f"WCAG AA's {AA_TEXT}:1 for link text; choose a darker colour, such as "
            f"{_first_passing(colour.lower(), '#000000', LIGHT_BG)}")
