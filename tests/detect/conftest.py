"""Shared fixtures of the detection tests: boards to build scenes from, scenes built by hand,
and how far a found kingdom lies from the true one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.detect import BoardLocation, order_corners
from scorer.lab.datasets import Board, load_aau_boards
from scorer.lab.synth import SceneKingdom, demo_board

CornerError = Callable[[np.ndarray, np.ndarray], float]
"""A corner error: found corners and true corners to a share of the true kingdom's side."""


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean corner distance as a share of the true kingdom's mean side."""
    side = np.mean([np.linalg.norm(truth[(i + 1) % 4] - truth[i]) for i in range(4)])
    return float(np.linalg.norm(found - truth, axis=1).mean() / side)


def corner_error_any_order(found: np.ndarray, truth: np.ndarray) -> float:
    """:func:`corner_error` over the four cyclic orders of the found corners."""
    return min(corner_error(np.roll(found, k, axis=0), truth) for k in range(4))


def assert_found(found: list[BoardLocation], truth: SceneKingdom, shape: tuple[int, int]) -> None:
    """The found kingdom closest to ``truth`` lies on it (corner error under 5%) with ``shape``."""
    best = min(found, key=lambda loc: corner_error_any_order(loc.corners, truth.corners))
    assert corner_error_any_order(best.corners, truth.corners) < 0.05
    assert best.shape == shape


class TableScenes:
    """Builds a demo board turned on a plain 900-px table, with shadow, glare or stray lines.

    Attributes
    ----------
    angle : float
        The board's turn, in degrees.
    """

    at = (200.0, 200.0)
    angle = 20.0

    def __init__(self, board: Board) -> None:
        self.board = board

    def __call__(
        self,
        removed: Sequence[tuple[int, int]] = (),
        *,
        table: tuple[float, float, float] = (150.0, 150.0, 150.0),
        beside: Sequence[tuple[float, float, float, float]] = (),
        shade: float = 1.0,
        lines: Sequence[tuple[tuple[int, int], tuple[int, int], int]] = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """The scene and the board's true corners.

        ``removed`` squares are left out; ``beside`` lists rectangles in board
        pixels (x0, y0, x1, y1; a square is 100 px) where the table is multiplied
        by ``shade`` (below 1 a shadow, above 1 glare); ``lines`` are stray lines
        (from, to, thickness) drawn on the table.
        """
        board = self.board.image
        alpha = np.ones(board.shape[:2], np.float32)
        for r, c in removed:
            alpha[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = 0
        rng = np.random.default_rng(0)
        image = (np.full((900, 900, 3), table) + rng.normal(0, 6, (900, 900, 3))).clip(0, 255)
        m = cv2.getRotationMatrix2D((250, 250), self.angle, 1.0)
        m[:, 2] += np.array(self.at)
        light = np.zeros((900, 900), np.float32)
        for x0, y0, x1, y1 in beside:
            corners = (
                np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float) @ m[:, :2].T + m[:, 2]
            )
            cv2.fillPoly(light, [corners.astype(np.int32)], 1.0)
        soft = cv2.GaussianBlur(light, (0, 0), 2)
        image = (image * (1 + (shade - 1) * soft[..., None])).clip(0, 255)
        for p, q, thickness in lines:
            cv2.line(image, p, q, (200, 60, 220), thickness)
        warped = cv2.warpAffine(board, m, (900, 900))
        a = cv2.warpAffine(alpha, m, (900, 900))[..., None]
        image = (image * (1 - a) + warped * a).astype(np.uint8)
        square = np.array([[0, 0], [500, 0], [500, 500], [0, 500]], float)
        return image, order_corners(square @ m[:, :2].T + m[:, 2])


@pytest.fixture(scope="session")
def demo_boards() -> list[Board]:
    """Four plain generated 5×5 boards (flat colours, dark seams)."""
    return [demo_board(seed) for seed in range(4)]


@pytest.fixture(scope="session")
def aau_boards(shared_data: Path) -> list[Board]:
    """The labelled boards of the AAU set; skips without the data."""
    return load_aau_boards(shared_data)


@pytest.fixture(scope="session")
def table_scene(demo_boards: list[Board]) -> TableScenes:
    """Scenes of the first demo board on a plain table (:class:`TableScenes`)."""
    return TableScenes(demo_boards[0])


@pytest.fixture(scope="session")
def error() -> CornerError:
    """:func:`corner_error`."""
    return corner_error


@pytest.fixture(scope="session")
def error_any_order() -> CornerError:
    """:func:`corner_error_any_order`."""
    return corner_error_any_order


@pytest.fixture(scope="session")
def found_on() -> Callable[[list[BoardLocation], SceneKingdom, tuple[int, int]], None]:
    """:func:`assert_found`."""
    return assert_found
