"""Tests for fitting a grid's extent to its tiles (scorer.detect.extent)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from scorer.detect import find_kingdoms
from scorer.detect.extent import STEPS, prefer_full
from scorer.detect.seams import locate
from scorer.detect.view import View
from scorer.lab.datasets import Board
from scorer.rules.kingdom import STANDARD_SIZE

CornerError = Callable[[np.ndarray, np.ndarray], float]
TableScene = Callable[..., tuple[np.ndarray, np.ndarray]]


def test_the_steps_run_rows_then_trim_then_square() -> None:
    names = [name for name, _ in STEPS]
    assert names == [
        "drop or add edge rows",
        "trim a 7×5 grid to its 5×5 kingdom",
        "complete a square kingdom",
    ]


@pytest.mark.parametrize(
    ("removed", "shape"),
    [
        ([(0, 0), (0, 1), (4, 4)], (5, 5)),  # corners missing: the outline is not a square
        ([(0, c) for c in range(5)], (4, 5)),  # a whole border row missing
    ],
)
def test_incomplete_kingdom_with_empty_cells(
    removed: list[tuple[int, int]], shape: tuple[int, int], demo_boards: list[Board]
) -> None:
    board = demo_boards[0].image
    alpha = np.ones(board.shape[:2], np.float32)
    for r, c in removed:
        alpha[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = 0
    rng = np.random.default_rng(0)
    table = (np.full((900, 900, 3), 150.0) + rng.normal(0, 6, (900, 900, 3))).clip(0, 255)
    m = cv2.getRotationMatrix2D((250, 250), 20, 1.0)
    m[:, 2] += (200, 200)
    warped = cv2.warpAffine(board, m, (900, 900))
    a = cv2.warpAffine(alpha, m, (900, 900))[..., None]
    image = (table * (1 - a) + warped * a).astype(np.uint8)
    (found,) = find_kingdoms(image)
    assert sorted(found.shape) == sorted(shape)


@pytest.mark.parametrize(
    ("shade", "where"),
    [
        (0.45, (500, 0, 600, 500)),  # a shadow one square wide along the right side
        (0.45, (-100, -100, 600, 0)),  # a shadow along the top
        (1.6, (0, 500, 500, 600)),  # glare along the bottom
    ],
)
def test_shadow_or_glare_beside_a_kingdom_is_not_a_row(
    shade: float,
    where: tuple[float, float, float, float],
    table_scene: TableScene,
    error: CornerError,
) -> None:
    image, truth = table_scene(beside=[where], shade=shade)
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert error(found.corners, truth) < 0.03


def test_kingdom_in_a_large_shadow_is_found_whole(
    table_scene: TableScene, error: CornerError
) -> None:
    image, truth = table_scene(beside=[(-150, -150, 650, 650)], shade=0.5)
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert error(found.corners, truth) < 0.03


@pytest.mark.parametrize("kept", [0, 2, 4])
def test_row_with_one_square_left_still_counts(
    kept: int, table_scene: TableScene, error: CornerError
) -> None:
    # Row 0 holds a single square (a dark one at column 0): the kingdom is still 5×5.
    image, truth = table_scene(removed=[(0, c) for c in range(5) if c != kept])
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert error(found.corners, truth) < 0.03


def test_kingdom_without_its_top_row_is_not_grown_to_a_square(
    table_scene: TableScene, error: CornerError
) -> None:
    image, truth = table_scene(removed=[(0, c) for c in range(5)])
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE - 1, STANDARD_SIZE)
    tl, tr, br, bl = truth
    expected = np.array([tl + (bl - tl) / 5, tr + (br - tr) / 5, br, bl])
    assert error(found.corners, expected) < 0.03


def _rows_faint(row_seams: int, five_share: float, column_seams: float = 60.0) -> np.ndarray:
    """A 400-pixel square of grey noise with 5 columns of dark seams (``column_seams``
    darker), faint row seams of a ``row_seams``-row grid, and fainter still
    (``five_share`` as dark) those of a 5-row grid."""
    rng = np.random.default_rng(0)
    side = 400
    gray = np.full((side, side), 128.0) + rng.normal(0, 6, (side, side))
    for k in range(1, STANDARD_SIZE):
        gray[:, 80 * k - 1 : 80 * k + 1] -= column_seams
    for n, darker in ((row_seams, 5.0), (STANDARD_SIZE, 5.0 * five_share)):
        for k in range(1, n):
            y = round(k * side / n)
            gray[y - 1 : y + 1, :] -= darker
    return np.dstack([np.clip(gray, 0, 255).astype(np.uint8)] * 3)


@pytest.mark.parametrize(
    ("five_share", "column_seams", "expected"),
    [
        (0.9, 60.0, (STANDARD_SIZE, STANDARD_SIZE)),  # nearly as clear: a full kingdom
        (0.3, 60.0, (4, STANDARD_SIZE)),  # far fainter: the 4 rows stand
        (0.9, 4.0, (4, STANDARD_SIZE)),  # no clear axis to go by
    ],
)
def test_faint_axis_counts_a_full_kingdom_when_its_seams_allow(
    five_share: float, column_seams: float, expected: tuple[int, int]
) -> None:
    view = View(_rows_faint(4, five_share, column_seams))
    quad = np.array([[0, 0], [400, 0], [400, 400], [0, 400]], float)
    found = locate(view, quad, require_grid=False)
    assert found is not None
    assert found.shape == (4, STANDARD_SIZE)  # the faint rows fit 4 best
    assert prefer_full(view, found).shape == expected
