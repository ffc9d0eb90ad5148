"""How fast the TeX converters get through hostile input (tests/core/latex_cases.py: about
200 KB each), the speed that tests/core/test_latex.py only guards against hangs.

    python bench/latex_adversarial.py [--repeat 5]

For each case, tex_to_html then tex_to_text, timed together; prints the median and the
slowest of the repeats, in seconds, and the rows as JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))

from latex_cases import ADVERSARIAL  # noqa: E402

from generator.core.latex import tex_to_html, tex_to_text  # noqa: E402


def measure(text: str, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        tex_to_html(text)
        tex_to_text(text)
        times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    rows = []
    print(f"{'case':<16} {'median s':>9} {'max s':>7}")
    for name in sorted(ADVERSARIAL):
        times = measure(ADVERSARIAL[name], args.repeat)
        rows.append({"case": name, "bytes": len(ADVERSARIAL[name].encode()), "median_s": statistics.median(times),
                     "max_s": max(times)})
        print(f"{name:<16} {statistics.median(times):9.3f} {max(times):7.3f}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
