"""generator.core.latex (and its tables in generator.core.latex_tables): TeX in arXiv titles and abstracts
-> safe HTML / plain text, on hand-picked cases, the seed dumps, arXiv samples, XSS payloads and fuzz."""

from __future__ import annotations

import random
import re
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import Markup, escape

from generator.core import latex
from generator.core.latex import tex_to_html, tex_to_text
from latex_cases import ADVERSARIAL

# Inputs inside the repository, found relative to this file, so the tests run the same in CI:
# two profile-page dumps (copies of ../shared/seeds) and two arXiv API responses (50 entries).
TESTS = Path(__file__).resolve().parents[1]
SEEDS = TESTS / "fixtures" / "seeds"
ARXIV_SAMPLES = TESTS / "fixtures" / "arxiv-samples"

MATHML_TAGS = set(latex._MATHML_TAGS)
ALLOWED_TAGS = MATHML_TAGS | {"em", "strong", "code", "span"}
ALLOWED_ATTRS = set(latex._MATHML_ATTRS) | {"class"}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> _Collector:
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector


def assert_inert(html: str) -> None:
    """Only our own tags/attributes; nothing scriptable, no URLs in attributes."""
    for tag, attrs in parse(html).tags:
        assert tag in ALLOWED_TAGS, (tag, html)
        assert tag not in {"script", "style", "img", "iframe", "a", "svg"}
        for name, value in attrs:
            assert name in ALLOWED_ATTRS, (name, html)
            assert not name.startswith("on")
            assert name not in {"href", "src", "style", "xlink:href", "action", "formaction"}
            assert "javascript" not in (value or "").lower()
            if name == "class":
                assert tag == "span" and value in {"tex-underline", "tex-sc"}


def seed_lines() -> list[str]:
    lines = (line.strip() for path in sorted(SEEDS.glob("*.txt")) for line in path.open(encoding="utf-8"))
    return [line for line in lines if line]


def arxiv_texts() -> list[str]:
    ns = {"a": "http://www.w3.org/2005/Atom"}
    texts = []
    for path in sorted(ARXIV_SAMPLES.glob("*.xml")):
        root = ET.parse(path).getroot()
        for entry in root.findall("a:entry", ns):
            texts += [entry.findtext("a:title", "", ns), entry.findtext("a:summary", "", ns)]
    return texts


# --- seed examples ---------------------------------------------------------------------------

def test_times_becomes_mathml() -> None:
    out = tex_to_html(r"for up to $265\times$ Single-GPU Acceleration")
    assert isinstance(out, Markup)
    assert '<math display="inline"><mrow><mn>265</mn><mo>×</mo></mrow></math>' in out
    assert out.startswith("for up to ") and out.endswith(" Single-GPU Acceleration")


def test_emph() -> None:
    assert tex_to_html(r"We identify the \emph{high-sparsity trap}: at") == (
        "We identify the <em>high-sparsity trap</em>: at"
    )


@pytest.mark.parametrize("macro", [r"\method", r"\name", r"\ours", r"\benchmark"])
def test_unknown_macros_stay_visible(macro: str) -> None:
    assert macro in tex_to_html(f"we propose {macro}, which")
    assert tex_to_text(f"we propose {macro}, which") == f"we propose {macro[1:]}, which"  # plain: no TeX


def test_unknown_macro_inside_known_one() -> None:
    assert tex_to_html(r"\textbf{\method} wins") == r"<strong>\method</strong> wins"
    assert tex_to_text(r"\textbf{\method} wins") == "method wins"


def test_superscript_after_text() -> None:
    out = tex_to_html(r"Med-R$^3$: Enhancing Medical Retrieval")
    assert out.startswith("Med-R<math")
    assert "<msup><mi></mi><mn>3</mn></msup>" in out


def test_math_text_inside_math() -> None:
    out = tex_to_html(r"However, $\textit {de facto}$ filter-based")
    assert '<mtext mathvariant="italic">' in out and "facto</mtext>" in out


# Verbatim excerpts of the seed dumps (two profile pages), so the tests run without them.
SEED_EXAMPLES = [
    r"SparkDiffusion: Mitigating the High-Sparsity Trap --- A Unified Framework for up to "
    r"$265\times$ Single-GPU Acceleration of Visual Generation",
    r"We instantiate the principle as \method, a unified acceleration framework for visual "
    r"generation. \method sustains $97\%$ attention sparsity",
    r"over the 50-step dense baseline for Wan2.1-T2V-14B-720P on a single RTX~5090 "
    r"($220\times$ on H100), and denoises a Wan2.1-T2V-1.3B-480P video in $1.3$s",
    r"In this paper, we propose \textit{Dynamic Pipeline Parallelism} (DPP). Comprehensive "
    r"experiments demonstrate that \name achieves up to 1.69\texttimes\ speedup over FlexSP",
    r"Med-R$^3$: Enhancing Medical Retrieval-Augmented Reasoning of LLMs via Progressive "
    r"Reinforcement Learning",
    r"while Qwen2.5-14B augmented with \ours shows a more substantial gain of 16",
    r"introduce \textbf{\benchmark}, a new benchmark. Extensive experiments on {\benchmark} "
    r"show that {\method} establishes new state-of-the-art performance",
    r"StaleFlow achieves up to 1.42-2.68$\times$ (1.18-1.91$\times$ on average) higher throughput",
    r"and delivers ~1.20$\times$ end-to-end inference speedup",
    r"However, $\textit {de facto}$ filter-based data quality enhancement paradigms",
]


def test_seed_examples() -> None:
    html = [tex_to_html(line) for line in SEED_EXAMPLES]
    text = [tex_to_text(line) for line in SEED_EXAMPLES]
    for out in html:
        assert_inert(out)
    assert html[0].startswith("SparkDiffusion: Mitigating the High-Sparsity Trap — A Unified")
    assert "<mn>97</mn><mi>%</mi>" in html[1] and html[1].count("\\method") == 2
    assert "RTX\u00a05090" in html[2] and "<mn>1.3</mn></mrow></math>s" in html[2]
    assert "<em>Dynamic Pipeline Parallelism</em>" in html[3] and "1.69× speedup" in html[3]
    assert "<strong>\\benchmark</strong>" in html[6] and "{\\method}" in html[6]
    assert "delivers ~" in html[8]
    assert text[0].endswith("for up to 265× Single-GPU Acceleration of Visual Generation")
    assert text[1].endswith("method sustains 97% attention sparsity")
    assert text[3].endswith("name achieves up to 1.69× speedup over FlexSP")
    assert text[4].startswith("Med-R³: Enhancing")
    assert text[7].endswith("(1.18-1.91× on average) higher throughput")
    assert "de facto filter-based" in text[9]


def test_the_inputs_are_in_the_repository() -> None:
    assert len(sorted(SEEDS.glob("*.txt"))) == 2, f"seed dumps missing under {SEEDS}"
    assert len(sorted(ARXIV_SAMPLES.glob("*.xml"))) == 2, f"arXiv samples missing under {ARXIV_SAMPLES}"


@pytest.mark.parametrize("line", seed_lines())
def test_seed_lines_render_safely(line: str) -> None:
    html = tex_to_html(line)
    assert_inert(html)
    for macro in re.findall(r"\\(?:method|name|ours|benchmark)\b", line):
        assert macro in html and macro[1:] in tex_to_text(line)
    assert not re.search(r"\\[A-Za-z]", tex_to_text(line))  # plain text carries no TeX command
    assert "$" not in tex_to_text(line)  # every formula in the seeds is balanced


def test_arxiv_samples() -> None:
    texts = arxiv_texts()
    assert len(texts) == 50
    joined = " ".join(tex_to_html(t) for t in texts)
    assert_inert(joined)
    assert "<mi>α</mi>" in joined and "“Holy Trinity”" in joined
    assert "i.i.d. samples" in tex_to_text(" ".join(texts))


# --- text macros ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("tex", "html"),
    [
        (r"\textit{Dynamic Pipeline Parallelism}", "<em>Dynamic Pipeline Parallelism</em>"),
        (r"\textbf{bold}", "<strong>bold</strong>"),
        (r"\texttt{code}", "<code>code</code>"),
        (r"\underline{u}", '<span class="tex-underline">u</span>'),
        (r"\textsc{Sc}", '<span class="tex-sc">Sc</span>'),
        (r"{\em x} {\bf y}", "<em>x</em> <strong>y</strong>"),
        (r"\emph {spaced}", "<em>spaced</em>"),
        (r"\emph{a \textbf{b}}", "<em>a <strong>b</strong></em>"),
        (r"1.69\texttimes\ speedup", "1.69× speedup"),
        ("RTX~5090", "RTX\u00a05090"),
        ("a -- b --- c", "a – b — c"),
        ("``Holy Trinity''", "“Holy Trinity”"),
        (r"Caf\'e na\"ive \`a \^o \~n \c{c} \v{s} \'{\i} \H{o} \={a}",
         "Café naïve à ô ñ ç š í ő ā"),
        (r"Stra\ss e, \o, \aa", "Straße, ø, å"),
        (r"\% \& \_ \# \$ \{ \}", "% &amp; _ # $ { }"),
        (r"a\\b", "a b"),
        (r"\LaTeX{} and \ldots", "LaTeX and …"),
        (r"\url{https://x.org/~a--b}", "https://x.org/~a--b"),
        (r"see \cite{x} and {braces}", r"see \cite{x} and {braces}"),
    ],
)
def test_text_macros(tex: str, html: str) -> None:
    assert tex_to_html(tex) == html


def test_plain_text_fast_path_only_escapes() -> None:
    text = 'A <b>bold</b> & "quoted" {BERT} claim'
    assert tex_to_html(text) == escape(text)
    assert isinstance(tex_to_html(text), Markup)


def test_fast_path_is_taken_only_when_the_renderer_would_only_escape() -> None:
    """``_has_tex`` (a bytes.translate test for ASCII) says False only for text in which the
    renderer finds no token and no control character (a lone quote, backtick or dash, as in
    "model's"); a trailing backslash is the one non-token it still sends to the renderer."""
    rng = random.Random(1)
    alphabet = list("$\\{}~-`'<>&\"\t\n ab9é\x00\x7f\x85") + ["--", "''", "``", "\\em", "\u2014"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        plain = latex._TOKEN.search(text) is None and latex._CONTROL.search(text) is None
        assert latex._has_tex(text) is not plain or text.endswith("\\"), repr(text)
        if plain:
            assert tex_to_html(text) == latex._render_html(text) == escape(text)


def test_apostrophes_are_kept() -> None:
    assert tex_to_html("model's") == "model&#39;s"
    assert tex_to_text("model's") == "model's"


def test_display_and_paren_math() -> None:
    out = tex_to_html(r"$$x^2$$ and \[y\] and \(z\)")
    assert out.count('display="block"') == 2 and out.count('display="inline"') == 1


def test_control_characters_removed() -> None:
    assert tex_to_html("a\x00b\x07c\x85d\ud800e") == "abcde"
    assert tex_to_text("a\x00b--c") == "ab–c"


# --- fallbacks --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("tex", "html"),
    [
        ("costs $5 only", "costs $5 only"),
        (r"$\frac{1}{$ x", r"$\frac{1}{$ x"),
        (r"$x^{$", "$x^{$"),
        (r"\emph{unclosed", r"\emph{unclosed"),
        (r"{\em unclosed", r"{\em unclosed"),
        (r"\( open", r"\( open"),
        ("$$", "$$"),
        ("$ $", "$ $"),
        ("trailing \\", "trailing \\"),
        (r"\'{}x \'{ab}", "´x \\&#39;{ab}"),
        (r"$a<b$ \(a\)", '<math display="inline"><mrow><mi>a</mi><mo>&lt;</mo><mi>b</mi></mrow></math> <'),
    ],
)
def test_unbalanced_input_falls_back(tex: str, html: str) -> None:
    out = tex_to_html(tex)
    assert out.startswith(html)
    assert_inert(out)


def test_converter_failure_shows_source(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    import latex2mathml.converter   # (generator.core.latex imports it by the first formula)

    monkeypatch.setattr(latex2mathml.converter, "convert_to_element", boom)
    latex._math_to_html.cache_clear()
    latex._html_cached.cache_clear()
    try:
        assert tex_to_html(r"a $x<y$ b") == "a $x&lt;y$ b"
    finally:
        latex._math_to_html.cache_clear()
        latex._html_cached.cache_clear()


def test_math_budget_limits_conversions() -> None:
    rng = random.Random(1)
    formulas = ["".join(rng.choice("abcxyz+") for _ in range(900)) for _ in range(30)]
    out = tex_to_html(" ".join(f"${f}$" for f in formulas))
    assert 0 < out.count("<math") < 30
    assert f"${formulas[-1]}$" in out  # past the budget: escaped source
    assert_inert(out)


# --- untrusted input --------------------------------------------------------------------------

XSS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "javascript:alert(1)",
    r"\href{javascript:alert(1)}{click}",
    r"\url{javascript:alert(1)}",
    r"$\text{<script>alert(1)</script>}$",
    r"$\mbox{<img src=x onerror=alert(1)>}$",
    r"$\href{javascript:alert(1)}{x}$",
    r"$\style{background:url(javascript:alert(1))}{x}$",
    r"$\class{x\" onclick=\"alert(1)}{y}$",
    r"$\class$",
    r"$\operatorname{<svg onload=alert(1)>}$",
    r"$\begin{array}{<script>}a\end{array}$",
    r"$\text{&lt;script&gt;}$ $\text{&#x3C;script>}$",
    r"$\color{red\" onmouseover=\"alert(1)}{x}$",
    r"$\hspace{1em\" onload=\"x}$",
    r"\emph{<script>}</script>",
    r"$</math><script>alert(1)</script>$",
    r"\(</mtext><img src=x onerror=alert(1)>\)",
]


@pytest.mark.parametrize("payload", XSS)
def test_xss_payloads_are_inert(payload: str) -> None:
    out = tex_to_html(payload)
    assert_inert(out)
    assert "<script" not in out.lower() and "<img" not in out.lower() and "<svg" not in out.lower()
    assert "href" not in str(parse(out).tags)


def test_text_script_stays_text() -> None:
    out = tex_to_html(r"$\text{<script>alert(1)</script>}$")
    assert "<mtext>&lt;script&gt;alert(1)&lt;/script&gt;</mtext>" in out


def test_href_link_text_kept_without_link() -> None:
    assert tex_to_html(r"\href{javascript:alert(1)}{click}") == "click"
    assert tex_to_text(r"\href{javascript:alert(1)}{click}") == "click"


def test_fuzz_output_is_always_inert() -> None:
    rng = random.Random(0)
    alphabet = list("$\\{}^_~-`'<>\"&=/ abcxyz019") + [
        r"\emph{", r"\text{", r"\href{", "<script>", "javascript:", r"\(", r"\)", r"\[", r"\]",
        r"\frac{", r"\'", r"\c", r"\method", "onerror=", r"\style{", r"\class{", "</math>", "\x00",
    ]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))
        html = tex_to_html(text)
        assert_inert(html)
        assert html == tex_to_html(text)
        tex_to_text(text)


# A hang guard, not a speed claim: catastrophic backtracking on 200 KB takes minutes, so the
# bound is the behaviour ("finishes"). The slowest case's median here is 0.79 s for the whole
# test (many_formulas, 5 runs), so 20 s is a margin of 25x; how fast each case is, is measured
# by bench/latex_adversarial.py.
HANG_SECONDS = 20.0


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_200kb_input_finishes_and_stays_inert(name: str) -> None:
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    html = tex_to_html(text)
    plain = tex_to_text(text)
    assert time.perf_counter() - start < HANG_SECONDS
    assert isinstance(html, Markup) and isinstance(plain, str)
    assert_inert(html[:20_000])
    if name == "nested_emph":
        assert html.count("<em>") == 0  # unbalanced: literal, no recursion blow-up


def test_deterministic() -> None:
    text = r"\emph{x} $O(n^2)$ and $\alpha_1$ -- ``q''"
    first = tex_to_html(text)
    latex._math_to_html.cache_clear()
    latex._html_cached.cache_clear()
    assert tex_to_html(text) == first


# --- tex_to_text ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"up to $265\times$ Single-GPU", "up to 265× Single-GPU"),
        (r"Med-R$^3$: Enhancing", "Med-R³: Enhancing"),
        (r"$O(n^2)$ time", "O(n²) time"),
        (r"$97\%$ accuracy", "97% accuracy"),
        (r"the \emph{high-sparsity trap}", "the high-sparsity trap"),
        (r"\textbf{\method} beats \name", "method beats name"),
        (r"$\alpha_2 \leq \beta^{10}$", "α₂ ≤ β¹⁰"),
        (r"$\frac{a}{b}$", "a/b"),
        (r"$x_{ij}$", "xᵢⱼ"),
        (r"$\textit {de facto}$ filter", "de facto filter"),
        (r"1.69\texttimes\ speedup on RTX~5090", "1.69× speedup on RTX\u00a05090"),
        ("Comment on ``The 2005\n    Neyman Lecture''  ", "Comment on “The 2005 Neyman Lecture”"),
        ("a -- b --- c", "a – b — c"),
        (r"Caf\'e \c{c}", "Café ç"),
        ("costs $5", "costs $5"),
        ("$$ and $ $", "$$ and $ $"),
        ("~x~", "~x\u00a0"),
        ("<script>x</script>", "<script>x</script>"),  # plain text: the template escapes it
        ("  plain\ttext \n", "plain text"),
    ],
)
def test_tex_to_text(tex: str, text: str) -> None:
    assert tex_to_text(tex) == text
