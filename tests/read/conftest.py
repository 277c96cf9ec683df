"""Shared fixtures of the reading tests: a rectified board built from the committed square crops."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.rules.kingdom import Cell, Kingdom

LAYOUT = (
    "W0 W0 F0 F0 L0",
    "W1 M0 F1 G0 L0",
    "S0 S0 C G0 L1",
    "S2 G2 G2 W0 W0",
    "M2 L0 L1 F0 F0",
)
"""The grid of :func:`crop_board`: each square's label, each a crop of that label
(of the two copies of a label, the first where it appears the first time)."""


def _board(fixtures: Path, side: int = 64) -> tuple[np.ndarray, Kingdom]:
    """A 5×5 board of real photographed squares (``tests/fixtures/cells``) and its grid.

    Parameters
    ----------
    fixtures : Path
        The fixtures folder.
    side : int
        Side of one square, in pixels.
    """
    used: dict[str, int] = {}
    rows = []
    for line in LAYOUT:
        row = []
        for token in line.split():
            used[token] = used.get(token, 0) % 2 + 1
            path = fixtures / "cells" / f"{token}_{used[token]}.jpg"
            crop = cv2.imread(str(path), cv2.IMREAD_COLOR)
            assert crop is not None, path
            row.append(cv2.resize(crop, (side, side), interpolation=cv2.INTER_LINEAR))
        rows.append(np.hstack(row))
    grid = Kingdom.from_cells([[Cell.parse(t) for t in line.split()] for line in LAYOUT])
    return np.ascontiguousarray(np.vstack(rows)), grid


def lit(board: np.ndarray, gain: float, red: float = 1.0, blue: float = 1.0) -> np.ndarray:
    """The board under another light: every channel times ``gain``, red and blue times more."""
    light = board.astype(np.float64) * gain
    light[..., 2] *= red
    light[..., 0] *= blue
    return np.clip(np.rint(light), 0, 255).astype(np.uint8)


@pytest.fixture(scope="session")
def crop_board(fixtures: Path) -> tuple[np.ndarray, Kingdom]:
    """A 5×5 board of real photographed squares, 64 pixels each, and its grid (:data:`LAYOUT`)."""
    return _board(fixtures)


@pytest.fixture(scope="session")
def relit() -> object:
    """The function that shows a board under another light (gain, red and blue factors)."""
    return lit
