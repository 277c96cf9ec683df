"""Tests for the synthetic scene generator (scorer.lab.synth)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.detect import BoardLocation, order_corners, rectify
from scorer.lab.datasets import load_aau_boards
from scorer.lab.synth import BACKGROUNDS, demo_board, make_scene
from scorer.rules.kingdom import EMPTY

DEMO_BOARDS = [demo_board(seed) for seed in range(3)]


def test_same_seed_same_scene() -> None:
    a = make_scene(5, DEMO_BOARDS)
    b = make_scene(5, DEMO_BOARDS)
    np.testing.assert_array_equal(a.image, b.image)
    assert [k.kingdom for k in a.kingdoms] == [k.kingdom for k in b.kingdoms]


def test_different_seeds_differ() -> None:
    assert not np.array_equal(make_scene(1, DEMO_BOARDS).image, make_scene(2, DEMO_BOARDS).image)


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_kingdoms_lie_inside_the_photo(background: str) -> None:
    scene = make_scene(3, DEMO_BOARDS, background=background, n_kingdoms=2)
    h, w = scene.image.shape[:2]
    assert scene.image.dtype == np.uint8
    assert scene.kingdoms
    for k in scene.kingdoms:
        assert (k.corners >= 0).all()
        assert (k.corners[:, 0] <= w).all()
        assert (k.corners[:, 1] <= h).all()
        np.testing.assert_array_equal(k.corners, order_corners(k.corners))


@pytest.mark.parametrize("seed", range(6))
def test_labels_follow_the_photo_orientation(seed: int) -> None:
    """Rectifying a scene at its true corners gives the source board, turned like the labels."""
    board = DEMO_BOARDS[0]
    scene = make_scene(seed, [board], n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    seen = rectify(scene.image, BoardLocation(truth.corners, truth.shape), square_px=20)
    source = cv2.resize(board.image, (100, 100), interpolation=cv2.INTER_AREA)
    label = board.kingdom
    errors = []
    for _ in range(4):
        errors.append((np.abs(seen.astype(float) - source).mean(), label == truth.kingdom))
        source = cv2.rotate(source, cv2.ROTATE_90_CLOCKWISE)
        label = label.rotate()
    # The best-matching turn of the image is the turn the labels were given.
    best = min(range(4), key=lambda i: errors[i][0])
    assert errors[best][1]


def test_removed_cells_are_empty_and_crop_the_grid() -> None:
    shapes = set()
    for seed in range(12):
        scene = make_scene(seed, DEMO_BOARDS, n_kingdoms=1, remove_cells=True)
        (k,) = scene.kingdoms
        assert any(c == EMPTY for _, c in k.kingdom.cells()) or k.shape != (5, 5)
        shapes.add(tuple(sorted(k.shape)))
    assert (4, 5) in shapes


def test_scenes_from_real_boards(shared_data: Path) -> None:
    boards = load_aau_boards(shared_data)
    scene = make_scene(0, boards)
    names = {b.name for b in boards}
    assert scene.kingdoms
    assert all(k.board in names for k in scene.kingdoms)
