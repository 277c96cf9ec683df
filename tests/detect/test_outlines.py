"""Tests for the candidate outlines and the choice among them (scorer.detect.outlines)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from scorer.detect import BoardLocation, find_kingdoms
from scorer.detect.outlines import distinct, filled, places, rivals
from scorer.detect.params import DEFAULT
from scorer.lab.datasets import Board
from scorer.lab.synth import make_scene
from scorer.rules.kingdom import STANDARD_SIZE

CornerError = Callable[[np.ndarray, np.ndarray], float]
TableScene = Callable[..., tuple[np.ndarray, np.ndarray]]
OUTLINES = DEFAULT.outlines


def _outline(x0: float, shape: tuple[int, int], score: float) -> BoardLocation:
    corners = np.array([[x0, 0], [x0 + 100, 0], [x0 + 100, 100], [x0, 100]], float)
    return BoardLocation(corners, shape, score=score)


def test_only_groups_of_a_kingdoms_size_are_separate_places() -> None:
    def square(x: int, side: int) -> np.ndarray:
        return np.array([[x, 0], [x + side, 0], [x + side, side], [x, side]], np.int32)

    alike = [[square(0, 100)], [square(200, 90)], [square(400, 95)]]
    assert len(places(alike, OUTLINES)) == 3
    one_large = [[square(0, 100)], [square(200, 40)]]  # a sixth of the area
    assert len(places(one_large, OUTLINES)) == 1


def test_an_area_whose_seams_are_faint_keeps_its_nearly_as_clear_outlines() -> None:
    best = _outline(0, (5, 4), 1.5)
    near, nearer = _outline(3, (5, 5), 1.1), _outline(4, (5, 5), 1.4)
    far, none = _outline(6, (5, 5), 0.9), None
    assert rivals([best, near, far, none, nearer], best, OUTLINES) == [nearer, near]


def test_alternative_outlines_repeat_neither_the_chosen_one_nor_each_other() -> None:
    chosen = _outline(0, (5, 5), 1.5)
    same = _outline(2, (5, 5), 1.4)  # 2 px off, a tenth of a 20-px square
    other_grid = _outline(0, (5, 4), 1.4)
    moved, moved_again = _outline(10, (5, 5), 1.3), _outline(11, (5, 5), 1.3)
    kept = distinct(chosen, [same, other_grid, moved, moved_again], OUTLINES)
    assert kept == (other_grid, moved)
    many = [_outline(0, (r, c), 1.4) for r, c in ((4, 4), (4, 5), (5, 4), (6, 5))]
    assert len(distinct(chosen, many, OUTLINES)) == OUTLINES.max_alternatives


@pytest.mark.parametrize("seed", range(4))
def test_a_kingdom_alone_on_plain_table_has_one_outline(
    seed: int, demo_boards: list[Board]
) -> None:
    scene = make_scene(seed, demo_boards, n_kingdoms=1, remove_cells=False)
    (location,) = find_kingdoms(scene.image)
    assert location.alternatives == ()


@pytest.mark.parametrize(
    "lines",
    [
        [((0, 130), (899, 250), 9)],  # a thick line across the kingdom to both edges
        [((0, 0), (260, 230), 7), ((899, 20), (700, 450), 5)],  # lines ending on the kingdom
    ],
)
def test_stray_lines_stuck_to_a_kingdom_are_not_part_of_it(
    lines: list[tuple[tuple[int, int], tuple[int, int], int]],
    table_scene: TableScene,
    error: CornerError,
) -> None:
    image, truth = table_scene(lines=lines)
    (found,) = find_kingdoms(image)
    assert found.shape == (STANDARD_SIZE, STANDARD_SIZE)
    assert error(found.corners, truth) < 0.03


def test_kingdoms_joined_by_a_line_are_found_apart(
    demo_boards: list[Board], error: CornerError
) -> None:
    scene = make_scene(7, demo_boards, n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    image = np.hstack([scene.image, scene.image])
    shift = np.array([scene.image.shape[1], 0])
    a = truth.corners.mean(axis=0)
    b = a + shift
    h = image.shape[0]
    # One line through both kingdoms and on to the photo's edges.
    d = (b - a) / np.linalg.norm(b - a)
    p, q = a - d * 2 * h, b + d * 2 * h
    cv2.line(image, tuple(int(v) for v in p), tuple(int(v) for v in q), (220, 40, 200), 8)
    found = find_kingdoms(image)
    assert len(found) == 2
    assert error(found[0].corners, truth.corners) < 0.03
    assert error(found[1].corners, truth.corners + shift) < 0.03


def test_filled_closes_small_gaps_then_fills_what_tile_encloses() -> None:
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(3)
    mask = np.zeros((300, 400), np.uint8)
    cv2.rectangle(mask, (50, 40), (250, 240), 255, 3)  # a frame of tile edges
    mask[120:126, 50:54] = 0  # a gap narrower than the closing
    mask[rng.random(mask.shape) < 0.002] = 255  # specks on the table
    cv2.circle(mask, (330, 150), 30, 255, 2)  # a ring: its inside is enclosed too
    out = filled(mask, OUTLINES)
    side = max(mask.shape)
    close_k = max(OUTLINES.min_gap, round(side / OUTLINES.gap_divisor) | 1)
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((close_k, close_k), np.uint8))
    expected = ndimage.binary_fill_holes(closed > 0)
    assert np.array_equal(out > 0, expected)
    assert out[140, 150] == 255 and out[150, 330] == 255  # inside the frame and the ring
    assert out[280, 20] == 0  # the open table stays table
