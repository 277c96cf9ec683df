"""Tests for the tuned values of reading (scorer.read.params)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from scorer.read.params import DEFAULT, ReadParams


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(ReadParams)])
def test_every_field_has_a_one_sentence_docstring(
    name: str, field_docstrings: Callable[[type], dict[str, str]]
) -> None:
    doc = field_docstrings(ReadParams).get(name, "")
    assert doc.strip(), f"ReadParams.{name} has no docstring"
    assert doc.strip().endswith(".")
    assert "\n" not in doc.strip()


def test_the_defaults_are_the_tuned_values() -> None:
    assert (
        DEFAULT.table_empty_odds,
        DEFAULT.bare_row_empty,
        DEFAULT.clearer_by,
        DEFAULT.min_square_px,
        DEFAULT.decisive_share,
    ) == (100_000.0, 0.5, 0.03, 40, 0.1)


def test_params_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.clearer_by = 0.1  # type: ignore[misc]
