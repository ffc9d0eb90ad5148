"""Adversarial TeX inputs of about 200 KB each: tests/core/test_latex.py checks that each
finishes and stays inert, bench/latex_adversarial.py measures how fast."""

ADVERSARIAL = {
    "dollars": "$" * 200_000,
    "dollar_a": "$a" * 100_000,
    "open_parens": "\\(" * 100_000,
    "nested_emph": "\\emph{" * 33_000,
    "closed_nesting": "\\emph{" * 5_000 + "x" + "}" * 5_000,
    "braces": "{\\em " * 40_000,
    "backslashes": "\\" * 200_000,
    "accents": "\\'" * 100_000,
    "one_formula": "$" + "x" * 200_000 + "$",
    "many_formulas": " ".join(f"$x_{{{i}}}$" for i in range(25_000)),
    "tildes": "~" * 200_000,
    "mixed": r"\emph{a} $b$ c--d ``e'' \method " * 5_000,
}
