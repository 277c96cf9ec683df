"""Tests for how sharply an outline's sides stand out in the photo (scorer.read.sides)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.read.sides import side_sharpness

SQUARE = 60
"""Side of a square in the test photos, in pixels."""

TERRAINS = [(40, 170, 210), (40, 110, 40), (170, 90, 30), (60, 170, 110), (90, 120, 130)]
"""BGR colours of five terrains: wheat, forest, lake, grassland, swamp."""


def kingdom_photo(rows: int, cols: int, table: tuple[int, int, int], margin: int = 3) -> np.ndarray:
    """Squares of the five terrain colours in turn, with dark seams, on a plain table with
    ``margin`` squares of it on every side."""
    rng = np.random.default_rng(0)
    photo = np.zeros(((rows + 2 * margin) * SQUARE, (cols + 2 * margin) * SQUARE, 3), np.uint8)
    photo[:] = table
    for r in range(rows):
        for c in range(cols):
            y, x = (r + margin) * SQUARE, (c + margin) * SQUARE
            photo[y : y + SQUARE, x : x + SQUARE] = TERRAINS[(r * 2 + c) % len(TERRAINS)]
            photo[y : y + SQUARE, x : x + 2] = 30
            photo[y : y + 2, x : x + SQUARE] = 30
    noise = rng.normal(0, 4, photo.shape)
    return np.clip(photo + noise, 0, 255).astype(np.uint8)


def outline(r0: float, c0: float, r1: float, c1: float, margin: int = 3) -> BoardLocation:
    """The grid over rows ``r0..r1`` and columns ``c0..c1`` of the kingdom, in the photo."""
    x0, y0 = (c0 + margin) * SQUARE, (r0 + margin) * SQUARE
    x1, y1 = (c1 + margin) * SQUARE, (r1 + margin) * SQUARE
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    return BoardLocation(corners, (round(r1 - r0), round(c1 - c0)))


@pytest.mark.parametrize("table", [(200, 200, 200), (40, 40, 40), (60, 100, 150)])
def test_a_kingdoms_own_outline_is_sharper_than_one_grown_into_the_table(
    table: tuple[int, int, int],
) -> None:
    photo = kingdom_photo(5, 5, table)
    own = side_sharpness(photo, outline(0, 0, 5, 5), 0.8)
    grown = side_sharpness(photo, outline(0, 0, 5, 6), 0.8)  # a column of bare table
    assert own is not None and grown is not None
    assert own > 0.5  # tile against table changes colour about as much as a seam does
    assert grown < 0.2  # table against table hardly changes colour


def test_a_grid_inside_the_kingdom_has_sides_like_its_seams() -> None:
    # Its sides are seams: neither much sharper nor much fainter than the others.
    photo = kingdom_photo(5, 5, (200, 200, 200))
    inner = side_sharpness(photo, outline(0, 0, 4, 5), 0.8)
    assert inner is not None and 0.3 < inner < 3.0


def test_the_same_outline_seen_in_perspective_keeps_its_measure() -> None:
    photo = kingdom_photo(5, 5, (200, 200, 200))
    h, w = photo.shape[:2]
    quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    tilted = np.array([[0.1 * w, 0.05 * h], [0.9 * w, 0], [w, h], [0, 0.95 * h]], np.float32)
    warp = cv2.getPerspectiveTransform(quad, tilted)
    seen = cv2.warpPerspective(photo, warp, (w, h), borderValue=(200, 200, 200))
    for grown, cols in ((False, 5), (True, 6)):
        loc = outline(0, 0, 5, cols)
        moved = cv2.perspectiveTransform(loc.corners.reshape(1, -1, 2), warp).reshape(-1, 2)
        flat = side_sharpness(photo, loc, 0.8)
        tilt = side_sharpness(seen, BoardLocation(moved, loc.shape), 0.8)
        assert flat is not None and tilt is not None
        assert (tilt < 0.2) is grown and (flat < 0.2) is grown


def test_an_outline_with_no_side_in_the_photo_is_not_measured() -> None:
    # A photo cropped to the kingdom: every side lies on the photo's border.
    photo = kingdom_photo(5, 5, (200, 200, 200), margin=0)
    assert side_sharpness(photo, outline(0, 0, 5, 5, margin=0), 0.8) is None


def test_only_the_sides_in_the_photo_are_measured() -> None:
    # Cropped at the right: the other three sides are measured, the grown column is not
    # in the photo.
    photo = kingdom_photo(5, 5, (200, 200, 200))[:, : 8 * SQUARE]
    sharp = side_sharpness(photo, outline(0, 0, 5, 5), 0.8)
    assert sharp is not None and sharp > 1.0
