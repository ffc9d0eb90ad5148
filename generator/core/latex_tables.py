"""The fixed tables behind generator.core.latex: which TeX macros mean what, and the MathML allow-list.

Data only, kept apart from the renderer so latex.py stays a readable algorithm (and under the
400-line module limit). Why a table looks the way it does is said next to it; the renderer's
rules (what eats a space, what stays literal) are explained in latex.py's docstring.
"""

from __future__ import annotations

_EM, _STRONG, _CODE = ("<em>", "</em>"), ("<strong>", "</strong>"), ("<code>", "</code>")
_PLAIN = ("", "")
_UNDERLINE = ('<span class="tex-underline">', "</span>")
_SMALLCAPS = ('<span class="tex-sc">', "</span>")
STYLE_MACROS = {
    "emph": _EM, "textit": _EM, "textsl": _EM, "textbf": _STRONG, "texttt": _CODE,
    "underline": _UNDERLINE, "uline": _UNDERLINE, "textsc": _SMALLCAPS, "textrm": _PLAIN,
    "textsf": _PLAIN, "textup": _PLAIN, "textmd": _PLAIN, "textnormal": _PLAIN, "mbox": _PLAIN,
    "text": _PLAIN,
}
DECLARATIONS = {
    "em": _EM, "it": _EM, "itshape": _EM, "sl": _EM, "slshape": _EM, "bf": _STRONG,
    "bfseries": _STRONG, "tt": _CODE, "ttfamily": _CODE, "sc": _SMALLCAPS, "scshape": _SMALLCAPS,
    "rm": _PLAIN, "rmfamily": _PLAIN, "sf": _PLAIN, "sffamily": _PLAIN, "upshape": _PLAIN,
    "normalfont": _PLAIN,
}
REPLACEMENTS = {"---": "—", "--": "–", "``": "“", "''": "”", "~": "\u00a0", "~~": "~"}
SYMBOLS = {
    "texttimes": "×", "textdiv": "÷", "textpm": "±", "ldots": "…", "dots": "…", "textellipsis": "…",
    "textendash": "–", "textemdash": "—", "textquoteleft": "‘", "textquoteright": "’",
    "textquotedblleft": "“", "textquotedblright": "”", "textdegree": "°", "copyright": "©",
    "textcopyright": "©", "S": "§", "P": "¶", "dag": "†", "ddag": "‡", "pounds": "£", "euro": "€",
    "textbullet": "•", "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^",
    "textunderscore": "_", "textbar": "|", "textless": "<", "textgreater": ">", "LaTeX": "LaTeX",
    "TeX": "TeX", "quad": "\u2003", "qquad": "\u2003\u2003", "thinspace": "\u2009", "slash": "/",
    "newline": " ", "linebreak": " ", "par": " ", "noindent": "", "xspace": "",
}
LETTERS = {  # letter-making macros eat the following space (Stra\ss e -> Straße)
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ",
}
ACCENTS = {  # accent command -> (combining mark, spacing form for an empty argument)
    "'": ("\u0301", "´"), "`": ("\u0300", "`"), "^": ("\u0302", "^"), '"': ("\u0308", "¨"),
    "~": ("\u0303", "~"), "=": ("\u0304", "¯"), ".": ("\u0307", "˙"), "u": ("\u0306", "˘"),
    "v": ("\u030c", "ˇ"), "H": ("\u030b", "˝"), "c": ("\u0327", "¸"), "k": ("\u0328", "˛"),
    "r": ("\u030a", "˚"), "d": ("\u0323", ""), "b": ("\u0331", ""),
}
CONTROL_SYMBOLS = {
    "%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}", " ": " ", "\t": " ",
    "\n": " ", "\r": " ", "\\": " ", ",": "\u2009", ";": " ", ":": " ", ">": " ", "!": "",
    "/": "", "-": "", "@": "",
}
# MathML allow-list: what latex2mathml emits, minus anything that can carry a URL, script,
# CSS or an identifier (href, style, class, id, xmlns, on*).
MATHML_TAGS = frozenset(
    "math mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt mroot mover munder "
    "munderover mtable mtr mtd mstyle menclose mpadded mphantom merror".split()
)
MATHML_ATTRS = frozenset(
    "display mathvariant stretchy fence separator accent accentunder lspace rspace columnalign "
    "rowalign columnlines rowlines columnspacing rowspacing frame displaystyle scriptlevel "
    "notation width height depth voffset linethickness minsize maxsize mathsize movablelimits "
    "largeop symmetric form mathcolor mathbackground linebreak".split()
)
_GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho"
_GREEK2 = "sigma tau upsilon phi chi psi omega"
MATH_SYMBOLS = {
    **{name: chr(0x3B1 + i) for i, name in enumerate(_GREEK.split())},
    **{name: chr(0x3C3 + i) for i, name in enumerate(_GREEK2.split())},
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "varepsilon": "ε", "vartheta": "ϑ",
    "varphi": "φ", "times": "×", "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…", "pm": "±",
    "mp": "∓", "div": "÷", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ll": "≪", "gg": "≫",
    "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "equiv": "≡", "propto": "∝",
    "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "leftrightarrow": "↔", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪",
    "cap": "∩", "forall": "∀", "exists": "∃", "partial": "∂", "nabla": "∇", "sum": "∑", "prod": "∏",
    "int": "∫", "sqrt": "√", "circ": "∘", "prime": "′", "ell": "ℓ", "langle": "⟨", "rangle": "⟩",
    "emptyset": "∅", "mid": "∣", "oplus": "⊕", "otimes": "⊗", "quad": " ", "qquad": " ",
    "left": "", "right": "", "displaystyle": "", "limits": "",
    **{f: f for f in "log ln exp sin cos tan max min arg lim det sup inf".split()},
}
SUPERSCRIPT = str.maketrans("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ")
SUBSCRIPT = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
