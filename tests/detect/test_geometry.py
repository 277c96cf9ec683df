"""Tests for locations, sides and corners (scorer.detect.geometry)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import (
    BoardLocation,
    Side,
    beyond_side,
    extend_location,
    order_corners,
    parse_corners,
)
from scorer.detect.geometry import check_corners, kingdom_grids
from scorer.rules.errors import BoardNotFoundError


def test_order_corners_starts_at_the_top_side_and_runs_clockwise() -> None:
    rng = np.random.default_rng(0)
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    ordered = order_corners(square[rng.permutation(4)])
    np.testing.assert_array_equal(ordered, square)


def test_parse_corners_rejects_wrong_counts() -> None:
    with pytest.raises(ValueError, match="eight numbers"):
        parse_corners("1,2,3")


def test_corners_too_close_to_outline_a_kingdom_are_refused() -> None:
    small = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    check_corners(small, 10)  # 100 working pixels: just enough
    with pytest.raises(BoardNotFoundError, match="corners marked"):
        check_corners(small, 11)


TILTED = BoardLocation(
    np.array([[120, 80], [520, 110], [560, 600], [90, 560]], np.float64),
    (5, 4),
    empty=frozenset({(0, 0)}),
    tiles=frozenset({(4, 3)}),
)
"""A 5×4 kingdom seen in perspective, with one square seen as table and one as tile."""


@pytest.mark.parametrize(
    ("side", "shape", "kept", "offset"),
    [
        (Side.TOP, (6, 4), [2, 3], (1, 0)),
        (Side.BOTTOM, (6, 4), [0, 1], (0, 0)),
        (Side.LEFT, (5, 5), [1, 2], (0, 1)),
        (Side.RIGHT, (5, 5), [0, 3], (0, 0)),
    ],
)
def test_a_location_grows_by_the_row_beyond_one_side(
    side: Side, shape: tuple[int, int], kept: list[int], offset: tuple[int, int]
) -> None:
    grown = extend_location(TILTED, side)
    assert grown.shape == shape
    # The far side stays where it was; the near side is the strip's outer side.
    np.testing.assert_allclose(grown.corners[kept], TILTED.corners[kept], atol=1e-3)
    strip = beyond_side(TILTED)[side]
    assert 1 in strip.shape
    moved = [i for i in range(4) if i not in kept]
    np.testing.assert_allclose(grown.corners[moved], strip.corners[moved], atol=1e-3)
    dr, dc = offset
    assert grown.empty == {(dr, dc)}
    assert grown.tiles == {(4 + dr, 3 + dc)}


def test_the_row_beyond_follows_the_perspective() -> None:
    quad = np.array([[100, 100], [300, 100], [400, 300], [0, 300]], np.float64)  # a trapezoid
    strip = beyond_side(BoardLocation(quad, (2, 2)))[Side.BOTTOM]
    below = strip.corners[2:]
    # Farther from the camera squares shrink: the next row down is wider and deeper
    # than a copy of the last row would be.
    assert below[0, 0] - below[1, 0] > 400
    assert below[0, 1] - 300 > 100


@pytest.mark.parametrize(
    ("shape", "grids"),
    [
        ((6, 5), 2),  # a row too many: two 5×5 kingdoms fit
        ((6, 6), 4),
        ((7, 6), 6),
        ((8, 7), 12 + 2),  # 5×5 and 7×7 both fit
        ((5, 5), 0),  # a kingdom's own grid
        ((7, 7), 0),
        ((5, 4), 0),  # too small for either
    ],
)
def test_the_kingdom_grids_inside_an_outline(shape: tuple[int, int], grids: int) -> None:
    rows, cols = shape
    corners = np.array([[0, 0], [100 * cols, 0], [100 * cols, 100 * rows], [0, 100 * rows]], float)
    inside = kingdom_grids(BoardLocation(corners, shape), (5, 7))
    assert len(inside) == grids
    _assert_whole_squares(inside)


@pytest.mark.parametrize(
    ("shape", "grow", "grids"),
    [
        ((5, 4), 1, 2),  # a column short: the column may be missing at either side
        ((4, 4), 1, 4),
        ((6, 4), 1, 2 * 2),  # a row too many and a column short
        ((6, 6), 1, 4 + 4),  # inside it two ways each way; 7×7 over it, two ways each way
        ((5, 3), 1, 0),  # two columns short
        ((5, 3), 2, 3),
        ((5, 4), 0, 0),
    ],
)
def test_the_kingdom_grids_over_an_outline_a_row_short(
    shape: tuple[int, int], grow: int, grids: int
) -> None:
    rows, cols = shape
    corners = np.array([[0, 0], [100 * cols, 0], [100 * cols, 100 * rows], [0, 100 * rows]], float)
    over = kingdom_grids(BoardLocation(corners, shape), (5, 7), grow=grow)
    assert len(over) == grids
    for grid in over:  # each covers as much of the outline as it can
        x0, y0 = grid.corners[0]
        x1, y1 = grid.corners[2]
        covered = (min(x1, 100 * cols) - max(x0, 0)) * (min(y1, 100 * rows) - max(y0, 0))
        side = grid.shape[0]
        assert covered == pytest.approx(100**2 * min(side, rows) * min(side, cols))
    _assert_whole_squares(over)


def _assert_whole_squares(grids: tuple[BoardLocation, ...]) -> None:
    for grid in grids:  # whole squares of the outline's grid, axis-aligned here
        side = grid.shape[0] * 100
        x0, y0 = grid.corners[0]
        assert x0 % 100 == pytest.approx(0, abs=1e-6) and y0 % 100 == pytest.approx(0, abs=1e-6)
        np.testing.assert_allclose(
            grid.corners - grid.corners[0], [[0, 0], [side, 0], [side, side], [0, side]], atol=1e-6
        )
