"""Tests for the JSON and the notes of a kingdom read from a photo (scorer.results.report)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.read.classify import predict_from_probabilities
from scorer.results.photo import KingdomReport
from scorer.results.report import (
    confidence_grid,
    corner_points,
    photo_kingdom_result,
    photo_notes,
    small_squares_note,
)
from scorer.rules.kingdom import ALL_CELLS, CASTLE, Cell, Kingdom
from scorer.rules.scoring import Rules, score

F1, F0, W1 = Cell.parse("F1"), Cell.parse("F0"), Cell.parse("W1")


def _report(warnings: tuple[str, ...] = ()) -> KingdomReport:
    """A 1×3 kingdom ``F1 F0 C`` read surely except its middle square (F0, perhaps W1)."""
    proba = np.full((1, 3, len(ALL_CELLS)), 1e-4)
    proba[0, 0, ALL_CELLS.index(F1)] = 1.0
    proba[0, 1, ALL_CELLS.index(F0)] = 0.55
    proba[0, 1, ALL_CELLS.index(W1)] = 0.45
    proba[0, 2, ALL_CELLS.index(CASTLE)] = 1.0
    prediction = predict_from_probabilities(proba / proba.sum(axis=-1, keepdims=True))
    corners = np.array([[10.26, 5.04], [310.31, 5.0], [310.0, 104.96], [10.0, 105.0]])
    kingdom = prediction.kingdom
    board = np.zeros((100, 300, 3), np.uint8)
    location = BoardLocation(corners, (1, 3))
    return KingdomReport(location, board, prediction, score(kingdom, Rules()), (), warnings)


def test_photo_kingdom_json_adds_corners_confidence_doubtful_and_notes() -> None:
    report = _report(warnings=("a note",))
    assert report.kingdom == Kingdom.parse("F1 F0 C")
    data = photo_kingdom_result(report, Rules())
    assert list(data) == [
        "grid",
        "score",
        "properties",
        "warnings",
        "corners",
        "confidence",
        "doubtful",
        "notes",
        "confirmed",
        "reasons",
    ]
    assert data["grid"] == ["F1 F0 C"]
    assert data["score"]["total"] == 2
    assert data["corners"] == [[10.3, 5.0], [310.3, 5.0], [310.0, 105.0], [10.0, 105.0]]
    # 1 / (1 + 17 × 0.0001) and 0.55 / (1 + 16 × 0.0001), to three decimals:
    assert data["confidence"] == [[0.998, 0.549, 0.998]]
    assert data["doubtful"] == [{"square": [0, 1], "read": "F0", "perhaps": "W1"}]
    assert data["notes"] == ["a note"]
    assert data["confirmed"] is True and data["reasons"] == []


def test_photo_kingdom_json_carries_the_verdict_and_the_players_corrections() -> None:
    report = replace(_report(), reasons=("the grid found is 1×3, not square",))
    data = photo_kingdom_result(report, Rules())
    assert data["confirmed"] is False
    assert data["reasons"] == ["the grid found is 1×3, not square"]
    # The page's download: the player corrected the doubtful square and confirmed the total.
    corrected = Kingdom.parse("F1 W1 C")
    page = photo_kingdom_result(report, Rules(), kingdom=corrected, confirmed=True)
    assert page["grid"] == ["F1 W1 C"] and page["score"]["total"] == 2
    assert page["doubtful"] == [] and page["confirmed"] is True
    assert page["reasons"] == data["reasons"] and page["corners"] == data["corners"]


def test_corners_are_rounded_to_a_tenth_and_confidence_to_a_thousandth() -> None:
    assert corner_points(np.array([[1.04, 2.06]])) == [[1.0, 2.1]]
    assert confidence_grid(np.array([[0.12345, 0.9996]])) == [[0.123, 1.0]]


def test_photo_notes_come_outline_first_then_grid_size_then_doubtful_squares() -> None:
    kingdom = Kingdom.parse("F1 F0 C\nW1 W0 .")
    notes = photo_notes(
        (2, 3), 20.0, kingdom, {(0, 1): W1, (1, 0): Cell.parse("W0")}, outline="outline moved"
    )
    assert notes == (
        "outline moved",
        "the grid found is 2×3, not square: check the corners",
        "the squares are only 20 pixels across in the photo, so crowns may be misread: "
        "check them, or take the photo closer or at a higher resolution",
        "2 doubtful squares, please check: row 1 column 2 (read F0, perhaps "
        "W1), row 2 column 1 (read W1, perhaps W0)",
    )


def test_photo_notes_of_a_clear_square_kingdom_are_none() -> None:
    assert photo_notes((3, 3), 100.0, Kingdom.parse("F1 F0 C"), {}) == ()


@pytest.mark.parametrize(
    ("side", "noted"), [(0.0, False), (1.0, True), (39.9, True), (40.0, False), (120.0, False)]
)
def test_small_squares_are_noted_under_forty_pixels(side: float, noted: bool) -> None:
    assert (small_squares_note(side) is not None) is noted


def test_small_squares_limit_can_be_set() -> None:
    assert small_squares_note(50.0, limit=60) is not None
    assert small_squares_note(50.0, limit=50) is None
