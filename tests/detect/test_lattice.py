"""Tests for grids fitted to the lattice of the seams (scorer.detect.lattice)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest

from scorer.detect import find, find_kingdoms, order_corners
from scorer.detect.lattice import lattice_quad, onto_seams, seam_lattice_guesses
from scorer.detect.seams import locate
from scorer.detect.view import View
from scorer.lab.datasets import Board
from scorer.lab.synth import make_scene
from scorer.rules.errors import BoardNotFoundError
from scorer.rules.kingdom import STANDARD_SIZE

CornerError = Callable[[np.ndarray, np.ndarray], float]


def test_outline_a_little_off_at_a_corner_is_moved_onto_the_seams() -> None:
    # Squares of many colours with dark seams; the outline's top-right corner is
    # a fifth of a square off, so the seams cross its grid aslant.
    rng = np.random.default_rng(0)
    image = np.full((600, 800, 3), 120, np.uint8)
    for r in range(STANDARD_SIZE):
        for c in range(STANDARD_SIZE):
            image[150 + 60 * r : 210 + 60 * r, 250 + 60 * c : 310 + 60 * c] = rng.integers(
                40, 230, 3
            )
    for k in range(STANDARD_SIZE + 1):
        image[150:450, 249 + 60 * k : 251 + 60 * k] = 20
        image[149 + 60 * k : 151 + 60 * k, 250:550] = 20
    truth = np.array([[250, 150], [550, 150], [550, 450], [250, 450]], float)
    off = truth.copy()
    off[1] += (-12, 9)
    view = View(image)
    location = locate(view, off, require_grid=False)
    assert location is not None
    assert location.shape == (STANDARD_SIZE, STANDARD_SIZE)
    moved = onto_seams(view, location)
    assert moved.score > location.score
    assert np.abs(moved.corners - truth).max() < 4.0 < np.abs(off - truth).max()


def test_lattice_fit_needs_seams_to_fit() -> None:
    flat = np.full((600, 800, 3), 120, np.uint8)
    quad = np.array([[250, 150], [550, 150], [550, 450], [250, 450]], float)
    assert lattice_quad(View(flat), quad, (STANDARD_SIZE, STANDARD_SIZE)) is None


@pytest.mark.parametrize("angle", [0.0, 20.0, -35.0])
def test_seam_lattice_guesses_lay_the_grid_from_pieces_of_the_kingdom(
    angle: float,
    table_scene: Any,
    error: CornerError,
    error_any_order: CornerError,
) -> None:
    # Only three scattered squares are seen as tile (shadow hides the rest): the
    # outline of those pieces is far from the kingdom's, but their edges and the
    # seams between the hidden squares still lie on the kingdom's lattice.
    image, truth = table_scene()
    centre = truth.mean(axis=0)
    turn = cv2.getRotationMatrix2D(tuple(map(float, centre)), angle - table_scene.angle, 1.0)
    image = cv2.warpAffine(image, turn, image.shape[1::-1], borderMode=cv2.BORDER_REFLECT)
    truth = order_corners(np.hstack([truth, np.ones((4, 1))]) @ turn.T)
    to_photo = cv2.getPerspectiveTransform(
        np.array([[0, 0], [5, 0], [5, 5], [0, 5]], np.float32), truth.astype(np.float32)
    )
    lit = np.zeros(image.shape[:2], np.uint8)
    for r, c in [(1, 1), (1, 3), (3, 2)]:
        square = np.array([[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]], np.float32)
        cv2.fillConvexPoly(
            lit, cv2.perspectiveTransform(square[None], to_photo)[0].astype(np.int32), 255
        )
    pieces = np.array([[1, 1], [4, 1], [4, 4], [1, 4]], np.float32)
    piece_quad = cv2.perspectiveTransform(pieces[None], to_photo)[0].astype(np.float64)
    guesses = seam_lattice_guesses(View(image), [piece_quad], lit)
    assert error(piece_quad, truth) > 0.15
    assert min(error_any_order(g, truth) for g in guesses) < 0.03


def test_seam_lattice_guesses_on_a_plain_patch_are_none() -> None:
    image = np.full((300, 300, 3), 120, np.uint8)
    quad = np.array([[100, 100], [200, 100], [200, 200], [100, 200]], np.float64)
    lit = np.zeros((300, 300), np.uint8)
    assert seam_lattice_guesses(View(image), [quad], lit) == []


def test_kingdom_in_pieces_is_not_found_without_its_seam_lattice_or_filled_mask(
    aau_boards: list[Board], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 50217 (found on its seam lattice: tests/detect/test_scenes.py): dark squares and
    # shadow on a carpet break the tile mask into pieces, and no outline of them
    # shows a clear grid. Grids laid on the lattice find it, and so does the filled
    # mask (scorer.detect.outlines.filled), the same 5×3 part; without both, nothing.
    scene = make_scene(50217, aau_boards)
    monkeypatch.setattr(find, "seam_lattice_guesses", lambda *args: [])
    monkeypatch.setattr(find, "_with_filled_outlines", lambda view, locations: locations)
    with pytest.raises(BoardNotFoundError):
        find_kingdoms(scene.image)
