"""Tests for pairing the kingdoms read with the true ones and counting the squares read
right (scorer.lab.matching)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.lab.matching import corner_error, match_kingdoms, placed_matches, rotation_matches
from scorer.lab.synth import SceneKingdom
from scorer.rules.kingdom import Kingdom

TRUTH_5 = Kingdom.parse(
    "W0 W1 F0 F1 L0\nL1 G0 G1 S0 S1\nM0 M1 C G2 S2\nL0 G2 S2 M2 M3\nW0 F0 L0 G0 S0"
)
SIDE = 100.0


def _square(x0: float, y0: float, w: float, h: float) -> np.ndarray:
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], float)


def test_a_kingdom_read_right_has_every_square_at_its_place() -> None:
    corners = _square(10, 20, SIDE, SIDE)
    assert placed_matches([(BoardLocation(corners, (5, 5)), TRUTH_5)], corners, TRUTH_5) == 25


def test_a_kingdom_read_a_row_short_keeps_the_squares_it_read() -> None:
    corners = _square(0, 0, SIDE, SIDE)
    short = Kingdom.from_cells([list(TRUTH_5.rows[r]) for r in range(4)])
    read = [(BoardLocation(_square(0, 0, SIDE, 0.8 * SIDE), (4, 5)), short)]
    assert placed_matches(read, corners, TRUTH_5) == 20


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_a_grid_read_from_another_corner_matches_by_place(turns: int) -> None:
    corners = _square(0, 0, SIDE, SIDE)
    read_corners, read = corners.copy(), TRUTH_5
    for _ in range(turns):  # the same squares, their grid started from the next corner
        read = read.rotate()
        read_corners = np.roll(read_corners, 1, axis=0)  # row 0 now runs up the left side
    assert placed_matches([(BoardLocation(read_corners, (5, 5)), read)], corners, TRUTH_5) == 25


def test_a_grid_one_square_off_loses_the_squares_it_misplaces() -> None:
    corners = _square(0, 0, SIDE, SIDE)
    shifted = _square(SIDE / 5, 0, SIDE, SIDE)  # the same labels, one column to the right
    placed = placed_matches([(BoardLocation(shifted, (5, 5)), TRUTH_5)], corners, TRUTH_5)
    # Only squares equal to their left neighbour stay right; the first column is unread.
    expected = sum(TRUTH_5[r, c] == TRUTH_5[r, c - 1] for r in range(5) for c in range(1, 5))
    assert placed == expected < 25


def test_an_empty_square_under_no_kingdom_read_counts_as_read_empty() -> None:
    truth = Kingdom.parse("W0 .\nC F0")
    corners = _square(0, 0, 40, 40)
    assert placed_matches([], corners, truth) == 1


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_corner_error_ignores_where_the_corner_list_starts(shift: int) -> None:
    truth = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    found = np.roll(truth, shift, axis=0) + 1.0
    assert corner_error(found, truth) == pytest.approx(np.sqrt(2))


def _truth(x0: float) -> SceneKingdom:
    return SceneKingdom(_square(x0, 0, SIDE, SIDE), TRUTH_5, f"at {x0}")


def _found(x0: float) -> BoardLocation:
    return BoardLocation(_square(x0, 0, SIDE, SIDE), (5, 5))


def test_one_kingdom_found_is_matched_to_one_true_kingdom_only() -> None:
    # Two true kingdoms close together and one kingdom found between them: the nearest
    # found kingdom of each is the same one, but it is only one of them.
    match = match_kingdoms([_found(2)], [_truth(0), _truth(4)])
    assert match == [(0, pytest.approx(0.02)), (None, np.inf)]


def test_kingdoms_are_paired_for_the_least_total_error_not_each_to_its_nearest() -> None:
    # Each true kingdom's nearest is the first found one (0.02 from both); matching
    # each to its nearest would pair it twice and leave the second unused. The least
    # total error pairs the first true kingdom with the second found one instead.
    truths = [_truth(0), _truth(4)]
    found = [_found(2), _found(-3)]
    errors = [[corner_error(f.corners, t.corners) / SIDE for f in found] for t in truths]
    assert [int(np.argmin(row)) for row in errors] == [0, 0]  # nearest for each: the same
    match = match_kingdoms(found, truths)
    assert [index for index, _ in match] == [1, 0]
    assert [error for _, error in match] == pytest.approx([0.03, 0.02])


def test_no_kingdom_found_matches_none() -> None:
    assert match_kingdoms([], [_truth(0)]) == [(None, np.inf)]
    assert match_kingdoms([_found(0)], []) == []


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_flags_follow_the_best_rotation(turns: int) -> None:
    truth = Kingdom.parse("W0 F0 L0\nG0 C S0\nM0 W1 F1")
    read = Kingdom.parse("W0 F0 L0\nG0 C S0\nM0 W0 F0")  # two crowns missed
    doubtful = {(2, 1)}  # one of them flagged
    for _ in range(turns):  # the same reading, photographed turned
        read = read.rotate()
        doubtful = {(c, read.height - 1 - r) for r, c in doubtful}
    assert rotation_matches(read, truth, frozenset(doubtful)) == (7, 1)
