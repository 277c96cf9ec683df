"""Tests for the check every candidate kingdom passes (scorer.detect.plausible)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.detect.params import DEFAULT
from scorer.detect.plausible import (
    apart,
    centre_inside,
    inside_photo,
    overlap_share,
    plausible,
    square_side,
    surrounded,
)

P = DEFAULT.plausible


def box(x0: float, y0: float, x1: float, y1: float, shape: tuple[int, int]) -> BoardLocation:
    """An upright candidate of ``shape`` over the box from (x0, y0) to (x1, y1)."""
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    return BoardLocation(corners, shape)


@pytest.mark.parametrize(
    ("candidate", "inside"),
    [
        (box(100, 100, 600, 600, (5, 5)), True),
        (box(0, 0, 4032, 3024, (5, 5)), True),  # the whole frame
        (box(-40, 100, 460, 600, (5, 5)), True),  # 0.4 of a 100-px square out
        (box(-60, 100, 440, 600, (5, 5)), False),  # 0.6 of a square out
        # The corner the issue reports, in a 4032×3024 photo.
        (
            BoardLocation(
                np.array([[41336, -3744], [900, 0], [900, 900], [0, 900]], float), (5, 5)
            ),
            False,
        ),
        (BoardLocation(np.array([[np.nan, 0], [9, 0], [9, 9], [0, 9]], float), (3, 3)), False),
    ],
)
def test_a_corner_may_lie_only_a_little_outside_the_photo(
    candidate: BoardLocation, inside: bool
) -> None:
    assert inside_photo(candidate, (3024, 4032, 3), 0.5) is inside


def test_square_side_is_the_mean_of_both_directions() -> None:
    # 7 columns of 30 px and 6 rows of 40 px: (30 + 40) / 2 by hand.
    assert square_side(box(0, 0, 210, 240, (6, 7))) == pytest.approx(35.0)


def _mask(
    tiles: list[tuple[int, int, int, int]], shape: tuple[int, int] = (400, 400)
) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    for x0, y0, x1, y1 in tiles:
        mask[y0:y1, x0:x1] = 255
    return mask


def test_a_small_grid_inside_one_lake_square_is_surrounded() -> None:
    # A kingdom of 60-px squares (300 px) and a 6×7 grid of 7-px squares inside one square.
    mask = _mask([(50, 50, 350, 350)])
    small = box(170, 170, 219, 212, (6, 7))
    assert surrounded(small, mask, P)
    assert not plausible(small, mask, P)


def test_a_kingdom_on_the_table_is_not_surrounded() -> None:
    mask = _mask([(50, 50, 350, 350)])
    kingdom = box(50, 50, 350, 350, (5, 5))
    assert not surrounded(kingdom, mask, P)
    assert plausible(kingdom, mask, P)


def test_tiles_beyond_three_sides_with_the_table_beyond_the_fourth_are_not_surrounded() -> None:
    # A kingdom with loose dominoes pressed to three sides.
    mask = _mask([(50, 50, 350, 350), (0, 0, 400, 50), (0, 0, 50, 400), (350, 0, 400, 400)])
    assert not surrounded(box(50, 50, 350, 350, (5, 5)), mask, P)


def test_a_grid_inside_a_cropped_kingdom_is_surrounded_but_the_frame_is_not() -> None:
    mask = _mask([(0, 0, 400, 400)])  # the photo is the kingdom, tiles to its edges
    assert surrounded(box(80, 80, 320, 260, (3, 4)), mask, P)
    # The frame has no strip in the photo: nothing shows tiles beyond it.
    assert not surrounded(box(0, 0, 400, 400, (5, 5)), mask, P)


def test_overlap_is_a_share_of_the_smaller_area() -> None:
    big = box(0, 0, 100, 100, (5, 5))
    # A 40×30 box sharing 20×30 with the big one: half of its area.
    assert overlap_share(big, box(80, 10, 120, 40, (3, 4))) == pytest.approx(0.5)
    assert overlap_share(big, box(200, 0, 300, 100, (5, 5))) == 0.0


def test_a_phantom_laid_over_a_kingdom_goes_and_a_neighbour_stays() -> None:
    kingdom = box(0, 0, 500, 500, (5, 5))
    # A 4×3 "kingdom" over the right part of it, its centre outside (x = 525).
    phantom = box(375, 100, 675, 500, (4, 3))
    neighbour = box(520, 0, 1020, 500, (5, 5))
    assert not centre_inside(kingdom, phantom)
    assert apart([kingdom, phantom], P.max_overlap) == [kingdom]
    assert apart([kingdom, neighbour], P.max_overlap) == [kingdom, neighbour]
