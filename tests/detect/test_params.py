"""Tests for the tuned values of detection (scorer.detect.params)."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer.detect import params
from scorer.detect.params import DEFAULT, DetectParams, with_overrides

DETECT = Path(params.__file__).parent


def _flat(values: Any, prefix: str = "") -> dict[str, Any]:
    """Every field of a params dataclass, by its dotted name."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(values):
        value = getattr(values, f.name)
        if dataclasses.is_dataclass(value):
            out.update(_flat(value, f"{prefix}{f.name}."))
        else:
            out[f"{prefix}{f.name}"] = value
    return out


def _other_value(value: Any) -> str:
    """A value of the same type, written as text for an assignment."""
    if isinstance(value, bool):
        return str(not value).lower()
    if isinstance(value, int):
        return str(value + 1)
    if isinstance(value, float):
        return repr(value * 2 + 1)
    return ",".join(repr(v + 1) for v in value)


def test_every_override_changes_exactly_its_field() -> None:
    before = _flat(DEFAULT)
    for name, value in before.items():
        after = _flat(with_overrides(DEFAULT, [f"{name}={_other_value(value)}"]))
        assert {k for k in before if after[k] != before[k]} == {name}
        assert type(after[name]) is type(value)


def test_an_override_parses_to_the_fields_type() -> None:
    changed = with_overrides(
        DEFAULT, ["extent.dark_row_ratio=1.4", "work.side=1000", "table.shades=0.5, 1"]
    )
    assert changed.extent.dark_row_ratio == 1.4
    assert changed.work.side == 1000
    assert changed.table.shades == (0.5, 1.0)
    assert DEFAULT.extent.dark_row_ratio == 1.3  # the defaults stay


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("nothing.side=1", "unknown group or field 'nothing'"),
        ("extent.nothing=1", "unknown field 'nothing' in group 'extent'"),
        ("extent.dark_row_ratio=high", "bad value 'high' for 'extent.dark_row_ratio'"),
        ("work.side=1.5", "bad value '1.5' for 'work.side': expected int"),
        ("outlines.hull_area=0.8", "expected 2 numbers"),
        ("extent=1", "'extent' is a group"),
        ("square_px.x=1", "'square_px' is a field, not a group"),
        ("extent.dark_row_ratio", "expected GROUP.FIELD=VALUE"),
    ],
)
def test_a_bad_override_is_refused_by_name(assignment: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        with_overrides(DEFAULT, [assignment])


def _groups() -> list[type]:
    """DetectParams and the dataclass of each of its groups."""
    return [DetectParams] + [
        type(getattr(DEFAULT, f.name))
        for f in dataclasses.fields(DetectParams)
        if dataclasses.is_dataclass(getattr(DEFAULT, f.name))
    ]


@pytest.mark.parametrize("cls", _groups(), ids=lambda cls: cls.__name__)
def test_every_field_has_a_one_sentence_docstring(
    cls: type, field_docstrings: Callable[[type], dict[str, str]]
) -> None:
    docs = field_docstrings(cls)
    for f in dataclasses.fields(cls):
        doc = " ".join(docs.get(f.name, "").split())
        assert doc, f"{cls.__name__}.{f.name} has no docstring"
        assert doc.endswith("."), f"{cls.__name__}.{f.name}"
        assert not re.search(r"[.;] [A-Z]", doc), f"{cls.__name__}.{f.name}: one sentence"


def test_params_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.extent.dark_row_ratio = 2.0  # type: ignore[misc]


def _is_number(node: ast.expr) -> bool:
    """Whether an expression is a number, or numbers in a tuple or list, or sums of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left) and _is_number(node.right)
    if isinstance(node, ast.Tuple | ast.List):
        return bool(node.elts) and all(_is_number(e) for e in node.elts)
    return False


@pytest.mark.parametrize("path", sorted(DETECT.glob("*.py")), ids=lambda p: p.name)
def test_tuned_values_live_in_params_only(path: Path) -> None:
    if path.name == "params.py":
        return
    text = path.read_text()
    assert "Final" not in text
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            assert not _is_number(node.value), f"{path.name}:{node.lineno} holds a number"
