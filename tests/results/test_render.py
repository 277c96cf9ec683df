"""Pictures: outlines on the photo and the labelled kingdom."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from scorer.results.render import (
    DOUBT_COLOUR,
    OUTLINE_COLOUR,
    TERRAIN_COLOURS,
    Outline,
    cell_at,
    draw_kingdom,
    draw_outlines,
    encode_png,
    fit_within,
    side_by_side,
    to_rgb,
)
from scorer.rules.kingdom import Kingdom, Position, Terrain

GRID = """\
F1 F0 L0
F0 C  L1
W0 W0 M2"""


@dataclass(frozen=True)
class _Prop:
    terrain: Terrain
    positions: frozenset[Position]
    crowns: int
    points: int


def _mean(image: np.ndarray, pos: Position, cell_px: int) -> np.ndarray:
    r, c = pos
    inner = image[
        r * cell_px + 30 : (r + 1) * cell_px - 30, c * cell_px + 30 : (c + 1) * cell_px - 30
    ]
    return inner.reshape(-1, 3).mean(axis=0)


def test_flat_kingdom_paints_each_square_in_its_terrain_colour() -> None:
    k = Kingdom.parse(GRID)
    picture = draw_kingdom(k, cell_px=100)
    assert picture.shape == (300, 300, 3)
    assert picture.dtype == np.uint8
    for pos, cell in k.cells():
        centre = _mean(picture, pos, 100)
        assert np.allclose(centre, TERRAIN_COLOURS[cell.terrain], atol=40), (pos, cell)


def test_board_photo_is_drawn_underneath_at_the_requested_size() -> None:
    k = Kingdom.parse(GRID)
    board = np.full((450, 450, 3), 17, np.uint8)
    picture = draw_kingdom(k, board=board, cell_px=80)
    assert picture.shape == (240, 240, 3)
    # The middle of the castle square keeps the photo's own colour.
    assert np.allclose(_mean(picture, (1, 1), 80), 17, atol=1)


def test_doubtful_square_gets_a_frame_and_others_do_not() -> None:
    k = Kingdom.parse(GRID)
    plain = draw_kingdom(k, cell_px=100)
    marked = draw_kingdom(k, doubtful={(2, 2)}, cell_px=100)
    frame = np.all(marked == DOUBT_COLOUR, axis=2)
    assert frame[200:300, 200:300].sum() > 500
    assert frame[:200, :].sum() == 0
    assert np.array_equal(plain[:200], marked[:200])


def test_property_is_tinted_and_labelled() -> None:
    k = Kingdom.parse(GRID)
    board = np.full((300, 300, 3), 128, np.uint8)
    forest = _Prop(Terrain.FOREST, frozenset({(0, 0), (0, 1), (1, 0)}), 1, 3)
    plain = draw_kingdom(k, board=board, cell_px=100)
    tinted = draw_kingdom(k, board=board, properties=[forest], cell_px=100)
    # The forest squares move towards the forest colour; the lake squares do not change.
    green = np.array(TERRAIN_COLOURS[Terrain.FOREST], float)
    for pos in forest.positions:
        assert np.linalg.norm(_mean(tinted, pos, 100) - green) < np.linalg.norm(
            _mean(plain, pos, 100) - green
        )
    assert np.array_equal(tinted[:, 240:], plain[:, 240:])


def test_edited_square_is_marked_in_its_corner() -> None:
    k = Kingdom.parse(GRID)
    plain = draw_kingdom(k, cell_px=100)
    edited = draw_kingdom(k, edited={(0, 2)}, cell_px=100)
    diff = np.any(plain != edited, axis=2)
    ys, xs = np.nonzero(diff)
    assert xs.min() >= 200 and ys.max() < 100


def test_outline_and_grid_are_drawn_on_a_copy_of_the_photo() -> None:
    photo = np.zeros((400, 600, 3), np.uint8)
    corners = [(100, 50), (500, 60), (520, 380), (90, 370)]
    out = draw_outlines(photo, [Outline(corners, (5, 5), "Player 1")])
    assert not photo.any()
    green = np.linalg.norm(out.astype(float) - OUTLINE_COLOUR, axis=2) < 120
    # The outline passes near every corner, and grid lines cross the inside.
    for x, y in corners:
        assert green[max(0, y - 4) : y + 5, max(0, x - 4) : x + 5].any()
    assert green[200, 150:450].sum() >= 4
    # Nothing is drawn far outside the kingdom, apart from the caption above it.
    assert not green[390:, :].any()


def test_outline_of_a_whole_table_draws_every_kingdom() -> None:
    photo = np.zeros((300, 600, 3), np.uint8)
    left = Outline([(20, 20), (260, 20), (260, 260), (20, 260)], (5, 5))
    right = Outline([(320, 20), (580, 20), (580, 280), (320, 280)], (7, 7))
    out = draw_outlines(photo, [left, right])
    green = np.linalg.norm(out.astype(float) - OUTLINE_COLOUR, axis=2) < 120
    assert green[:, :290].any() and green[:, 310:].any()


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        (0, 0, (0, 0)),
        (99, 99, (0, 0)),
        (100, 0, (0, 1)),
        (499, 499, (4, 4)),
        (250, 120, (1, 2)),
        (500, 10, None),
        (10, -1, None),
    ],
)
def test_cell_at_maps_a_click_to_its_square(
    x: float, y: float, expected: tuple[int, int] | None
) -> None:
    assert cell_at(x, y, (500, 500), (5, 5)) == expected


def test_fit_within_keeps_small_images_and_shrinks_large_ones() -> None:
    small = np.zeros((50, 80, 3), np.uint8)
    assert fit_within(small, 100)[0] is small
    big, scale = fit_within(np.zeros((1000, 3000, 3), np.uint8), 600)
    assert big.shape == (200, 600, 3)
    assert scale == pytest.approx(0.2)


def test_png_round_trip_and_rgb_order() -> None:
    image = np.zeros((10, 20, 3), np.uint8)
    image[:, :, 0] = 255  # blue in BGR
    decoded = cv2.imdecode(np.frombuffer(encode_png(image), np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, image)
    assert to_rgb(image)[0, 0].tolist() == [0, 0, 255]


def test_side_by_side_scales_to_one_height() -> None:
    out = side_by_side([np.zeros((100, 100, 3), np.uint8), np.zeros((50, 200, 3), np.uint8)], 200)
    assert out.shape == (200, 200 + 12 + 800, 3)
