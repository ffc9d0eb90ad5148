"""The one plain-text rendering of TeX (latex.tex_to_text with generator.core.plaintext): Unicode where it
exists, otherwise readable text without braces or backslash commands (issue 15 item 8)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from generator.core.latex import tex_to_html, tex_to_text
from generator.core.plaintext import math_to_text, strip_commands

COMMAND = re.compile(r"\\[a-zA-Z]+")


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"$\tilde{O}(\varepsilon^{-2})$ samples", "Õ(ε⁻²) samples"),
        (r"\tilde{O}(\varepsilon^{-2}) outside math", "Õ(ε^-2) outside math"),
        (r"$\frac{a}{b}$", "a/b"),
        (r"$\frac{a+b}{2}$", "(a+b)/2"),
        (r"$\mathbb R$ and $\mathbb{R}^n$", "ℝ and ℝⁿ"),
        ("30~nm", "30\u00a0nm"),
        (r"{\it i)} first", "i) first"),
        (r"$\sqrt{x}$", "√x"),
        (r"$\sqrt[3]{x}$", "³√x"),
        (r"$\hat{H}$ and $\bar{x}$", "Ĥ and x̄"),
        (r"$O(n\log n)$", "O(n log n)"),
        (r"$\alpha_2 \leq \beta^{10}$", "α₂ ≤ β¹⁰"),
        (r"$x_{ij}^{2}$", "xᵢⱼ²"),
        (r"$x^{\dagger}$", "x^†"),
        (r"$\left( a \right)$", "(a)"),
        (r"$\begin{pmatrix}a&b\\c&d\end{pmatrix}$", "(a b; c d)"),
        (r"$\mathrm{ReLU}(x)$", "ReLU(x)"),
        (r"{SU}(2) gauge", "SU(2) gauge"),
        (r"$\{1,2\}$ and \{3\}", "{1, 2} and {3}"),
        (r"we propose \method, which", "we propose method, which"),
        (r"\cite{x}", "cite x"),
        (r"R\'enyi entropy", "Rényi entropy"),
        (r"$\text{if } x$", "if x"),
        (r"$(\pi, 1-\pi)$ and $0 \le \alpha, \beta\le 1/8$", "(π, 1−π) and 0 ≤ α, β ≤ 1/8"),
    ],
)
def test_plain_text(tex: str, text: str) -> None:
    assert tex_to_text(tex) == text


def test_html_still_renders_mathml() -> None:
    html = tex_to_html(r"$\tilde{O}(\varepsilon^{-2})$ and $\frac{a}{b}$")
    assert "<mover>" in html and "<mfrac>" in html


def test_refused_formula_takes_the_fallback() -> None:
    assert not COMMAND.search(math_to_text(r"\frac{a}{"))
    assert not COMMAND.search(math_to_text("x" * 2000 + r"\alpha"))
    assert math_to_text(r"\alpha + \beta", parse=False) == "α + β"


def test_strip_commands() -> None:
    assert strip_commands(r"a \method b \\x") == "a method b x"
    assert strip_commands("no commands") == "no commands"


HOSTILE = st.lists(
    st.sampled_from(
        list("$\\{}^_~&%#-`' abxyz019()[]|<>\n\x00é") + [
            r"\frac", r"\tilde", r"\mathbb", r"\sqrt", r"\left", r"\right", r"\begin{pmatrix}",
            r"\end{pmatrix}", r"\\", r"\(", r"\)", r"\[", r"\]", r"\emph{", r"\it", r"\text{",
            r"\href{", r"\'", r"\c", r"\method", r"\alpha", r"\over", r"\hat", r"\color{",
            r"\operatorname{", r"\mathrm{", r"\\\\", "\\\\frac",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_hostile_tex(tex: str) -> None:
    """Never raises, never emits a TeX command, output bounded by the input's length."""
    text = tex_to_text(tex)
    assert not COMMAND.search(text), text
    assert len(text) <= 2 * len(tex) + 8
