"""The reliability battery's map (battery_cases.py): every case has a named test, and the map stays true.

The map (``battery_cases.py``) is checked both ways: every case id of section 3 of
../shared/reference/reliability.md (A1-A19, B1-B27, C1-C13, D1-D10, E1-E12, F1-F6; the counts are
copied here so the test reads nothing outside the repository) has at least one test; every test it
names exists (function in the file, and the parameter id in the file or its fixture);
every test and fixture of this folder appears in the map.
"""

from __future__ import annotations

import re
from pathlib import Path

from battery_cases import YAML_HAZARDS, case_map

REPO = Path(__file__).resolve().parents[2]
SECTIONS = {"A": 19, "B": 27, "C": 13, "D": 10, "E": 12, "F": 6}
HELPERS = {"test_every_fixture_has_a_payload_or_a_recipe", "test_the_listeners_would_catch_a_script"}


def _refs() -> list[tuple[str, str]]:
    return [(case, ref) for case, refs in case_map().items() for ref in refs]


def test_every_case_of_the_battery_has_a_test() -> None:
    m = case_map()
    wanted = {f"{s}{i}" for s, n in SECTIONS.items() for i in range(1, n + 1)}
    assert set(m) == wanted, f"missing: {sorted(wanted - set(m))}, unknown: {sorted(set(m) - wanted)}"
    for case, refs in m.items():
        assert [r for r in refs if not r.startswith("n/a")], f"{case} has no test"


def test_every_reference_names_an_existing_test() -> None:
    for case, ref in _refs():
        if ref.startswith("n/a"):
            continue
        m = re.fullmatch(r"(?P<path>[^:]+)::(?P<func>\w+)(?:\[(?P<param>.+)\])?", ref)
        assert m, f"{case}: malformed reference {ref!r}"
        path = REPO / m["path"]
        assert path.is_file(), f"{case}: {m['path']} does not exist"
        source = path.read_text("utf-8")
        assert re.search(rf"^def {m['func']}\(", source, re.M), f"{case}: no test {m['func']} in {m['path']}"
        param = m["param"]
        if param is None:
            continue
        if m["func"] == "test_yaml_hazard":
            stem = param.split("-", 1)[1]
            assert (YAML_HAZARDS / f"{stem}.json").is_file(), f"{case}: no fixture {stem}"
        elif m["func"] == "test_hazard_leaves_the_cache_byte_identical" or m["func"] == "test_hazard_refused_by_parse_page":
            assert (REPO / "tests/fixtures/hazards" / param).is_file(), f"{case}: no hazard {param}"
        else:
            assert param in source, f"{case}: parameter {param!r} not found in {m['path']}"


def test_every_battery_test_and_fixture_is_in_the_map() -> None:
    named = {ref.split("::")[1].split("[")[0] for _, ref in _refs() if ref.startswith("tests/battery/")}
    here = Path(__file__).resolve().parent
    modules = sorted(p for p in here.glob("test_*.py") if p.name != Path(__file__).name)
    assert modules, f"no test modules next to {Path(__file__).name}"  # a rename must not empty this check
    for module in modules:
        for func in re.findall(r"^def (test_\w+)\(", module.read_text("utf-8"), re.M):
            assert func in named or func in HELPERS, f"{module.name}::{func} is not in battery_cases.py"
    listed = {ref for _, ref in _refs() if "test_yaml_hazard[" in ref}
    assert len(listed) == len(list(YAML_HAZARDS.glob("*.json")))
