"""The regression variants' catalogue (bench/variants.py): how an edit lands, that the tags of
variants already measured keep their code, and that every row a variant names exists. Whether
each anchor is in the fork's source is the end-to-end tier's (test/e2e/test_variant_anchors.py)."""
import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bench"))

import mysql_variants  # noqa: E402
import variants  # noqa: E402


def load_checks():
    spec = importlib.util.spec_from_file_location("variant_checks", REPO / "bench" / "variant-checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOURCE = "int f(\n{\n\tfirst();\n\tanchor();\n}\nint g(\n{\n\tanchor();\n}\n"


def test_code_follows_the_first_anchor_after_the_marker():
    v = variants.variant("x.cc", ("int g(\n", "\tanchor();\n"), "\tadded();\n", ["point-query"], [], "why")
    assert v.edit(SOURCE) == "int f(\n{\n\tfirst();\n\tanchor();\n}\nint g(\n{\n\tanchor();\n\tadded();\n}\n"


def test_replacing_code_takes_the_anchors_place():
    v = variants.variant("x.cc", ("int f(\n", "\tanchor();\n"), "\tother();\n", ["point-query"], [], "why", replaces=True)
    assert v.edit(SOURCE) == SOURCE.replace("\tfirst();\n\tanchor();\n", "\tfirst();\n\tother();\n")


@pytest.mark.parametrize("marker, anchor, message", [
    ("int h(\n", "\tanchor();\n", "expected 'int h(\\n' once, found it 0 times"),
    ("{\n", "\tanchor();\n", "expected '{\\n' once, found it 2 times"),
    ("int g(\n", "\tfirst();\n", "x.cc: no '\\tfirst();\\n' after 'int g(\\n'"),
])
def test_a_marker_missing_or_twice_or_an_anchor_missing_is_an_error_naming_the_file(marker, anchor, message):
    v = variants.variant("x.cc", (marker, anchor), "\tadded();\n", ["point-query"], [], "why")
    with pytest.raises(ValueError) as e:
        v.edit(SOURCE)
    assert str(e.value).startswith("x.cc: ") and message in str(e.value)


# Measured variants: their tag hashes their code, so a change to the code would silently make
# a new commit and new figures under the same name.
MEASURED_TAGS = {
    "read-1": "variant-read-1-2fd28466", "read-2": "variant-read-2-8f75b864", "read-4": "variant-read-4-39b84554",
    "write-1": "variant-write-1-98f26e43", "write-2": "variant-write-2-f69c0558", "write-4": "variant-write-4-c0360ab1",
    "purge-2": "variant-purge-2-c0360ab1", "purge-4": "variant-purge-4-8b6aa661",
    "sleep-5": "variant-sleep-5-d6687bc8", "sleep-15": "variant-sleep-15-acc399bb",
    "read-sleep-5": "variant-read-sleep-5-99cc78ef", "read-sleep-15": "variant-read-sleep-15-af00a3f7",
}


def test_the_measured_variants_keep_their_tags():
    assert {name: variants.variant_tag(name) for name in MEASURED_TAGS} == MEASURED_TAGS


# The MySQL fork's variants measured in docs/measurements.md ("Seeded regressions on MySQL 9.7").
MYSQL_MEASURED_TAGS = {
    "fsync-commit": "variant-fsync-commit-80856561", "lock-sleep": "variant-lock-sleep-f2d54b8f",
    "leak-statement": "variant-leak-statement-2c9963a2", "default-sort-buffer": "variant-default-sort-buffer-c51294ec",
}


def test_the_measured_mysql_variants_keep_their_tags():
    tags = {name: variants.variant_tag(name, mysql_variants.MYSQL_VARIANTS) for name in MYSQL_MEASURED_TAGS}
    assert tags == MYSQL_MEASURED_TAGS


def test_every_row_a_variant_names_is_a_benchmark_or_words():
    benchmarks = yaml.safe_load((REPO / "thresholds" / "benchmarks.yml").read_text())["benchmarks"]
    for name, v in [*variants.VARIANTS.items(), *mysql_variants.MYSQL_VARIANTS.items()]:
        assert v.slows and v.why, name
        for row in v.slows + v.leaves:
            assert " " in row or row in benchmarks, f"{name}: {row!r} is not in thresholds/benchmarks.yml"
        assert not set(v.slows) & set(v.leaves), name


def test_the_quick_suite_lists_the_rows_the_catalogue_calls_quick():
    suite = yaml.safe_load((REPO / "thresholds" / "suites" / "quick.yml").read_text())
    assert list(variants.QUICK) == suite["benchmarks"]


def test_a_variant_the_quick_suite_cannot_judge_has_a_hand_check():
    checks = load_checks().CHECKS
    unjudged = {name for name, v in variants.VARIANTS.items() if not v.quick}
    assert unjudged == {"lock-sleep", "plan-fullscan", "leak-statement", "ddl-slow-index", "spin-longer"}
    assert unjudged <= set(checks)
    assert set(checks) <= set(variants.VARIANTS)
