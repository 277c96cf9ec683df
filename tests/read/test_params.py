"""Tests for the tuned values of reading (scorer.read.params)."""

from __future__ import annotations

import ast
import dataclasses
import inspect

import pytest

from scorer.read import params
from scorer.read.params import DEFAULT, ReadParams


def _field_docstrings() -> dict[str, str]:
    """Each field of ReadParams with the string literal just below it in the source."""
    (cls,) = [
        node
        for node in ast.parse(inspect.getsource(params)).body
        if isinstance(node, ast.ClassDef) and node.name == ReadParams.__name__
    ]
    docs = {}
    for stmt, after in zip(cls.body, cls.body[1:], strict=False):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[stmt.target.id] = after.value.value
    return docs


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(ReadParams)])
def test_every_field_has_a_one_sentence_docstring(name: str) -> None:
    doc = _field_docstrings().get(name, "")
    assert doc.strip(), f"ReadParams.{name} has no docstring"
    assert doc.strip().endswith(".")
    assert "\n" not in doc.strip()


def test_the_defaults_are_the_tuned_values() -> None:
    assert (
        DEFAULT.table_empty_odds,
        DEFAULT.bare_row_empty,
        DEFAULT.clearer_by,
        DEFAULT.min_square_px,
    ) == (100_000.0, 0.5, 0.03, 40)


def test_params_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.clearer_by = 0.1  # type: ignore[misc]
