"""Pair the kingdoms read in a scene with its true ones, and count the squares read right.

A kingdom read is matched to the true kingdom whose corners it lies nearest
(:func:`match_kingdoms`); its squares are compared over the four turns of the grid
(:func:`best_rotation_matches`) or each at its place in the photo (:func:`placed_matches`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from scorer.detect import BoardLocation, grid_homography
from scorer.lab.synth import SceneKingdom
from scorer.rules.kingdom import EMPTY, Kingdom, Position


def match_kingdoms(
    found: Sequence[BoardLocation], truths: Sequence[SceneKingdom]
) -> list[tuple[int | None, float]]:
    """Pair the kingdoms found with the true ones, each found kingdom with one true one at most.

    The pairs minimise the sum of the corner errors (:func:`corner_error` as a share of
    the true kingdom's mean side) over all pairings (``linear_sum_assignment``).

    Returns
    -------
    list of (int or None, float)
        For each true kingdom, the index of its found kingdom and their relative corner
        error, or ``(None, inf)`` where every found kingdom went to another.

    Examples
    --------
    >>> from scorer.lab.synth import SceneKingdom
    >>> from scorer.rules.kingdom import Kingdom
    >>> square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    >>> truth = SceneKingdom(square, Kingdom.parse("C"), "b")
    >>> match_kingdoms([BoardLocation(square + [1, 0], (1, 1))], [truth, truth])
    [(0, 0.1), (None, inf)]
    """
    errors = np.array(
        [
            [corner_error(f.corners, t.corners) / _mean_side(t.corners) for f in found]
            for t in truths
        ]
    ).reshape(len(truths), len(found))
    pairs = dict(zip(*(r.tolist() for r in linear_sum_assignment(errors)), strict=True))
    return [
        (pairs[t], float(errors[t, pairs[t]])) if t in pairs else (None, np.inf)
        for t in range(len(truths))
    ]


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean distance between matching corners, over the four cyclic orders (pixels)."""
    found = np.asarray(found, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.float64)
    return min(
        float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).mean()) for k in range(4)
    )


def placed_matches(
    readings: Sequence[tuple[BoardLocation, Kingdom]], corners: np.ndarray, truth: Kingdom
) -> int:
    """Squares of a true kingdom read right at their place in the photo.

    The centre of each true square is carried into the photo through the true
    corners, then into the grid of whichever kingdom read covers it; the
    square counts as right when the label read there is the true one. A
    square outside every kingdom read is read as empty. Unlike
    :func:`best_rotation_matches` on whole kingdoms, a kingdom read with one
    row too few keeps the squares it did read right, and squares only count
    where they lie, whatever the grid's turn.

    Parameters
    ----------
    readings : sequence of (BoardLocation, Kingdom)
        Every kingdom read in the photo, with its outline as read.
    corners : ndarray of shape (4, 2)
        The true kingdom's corners, clockwise from the corner of its row 0, column 0.
    truth : Kingdom
        Its labels, in the same orientation as ``corners``.

    Returns
    -------
    int
        The number of the true kingdom's squares read right.

    Examples
    --------
    >>> from scorer.rules.kingdom import Kingdom
    >>> truth = Kingdom.parse("W0 W1\\nC F0")
    >>> square = np.array([[0, 0], [20, 0], [20, 20], [0, 20]], float)
    >>> placed_matches([(BoardLocation(square, (2, 2)), truth)], square, truth)
    4
    >>> placed_matches([], square, truth)
    0
    """
    centres = np.array(
        [[c + 0.5, r + 0.5] for r in range(truth.height) for c in range(truth.width)],
        np.float64,
    )
    in_photo = _apply(grid_homography(corners, truth.shape), centres)
    read = [EMPTY] * len(centres)
    for location, kingdom in readings:
        rows, cols = kingdom.shape
        to_grid = np.linalg.inv(grid_homography(location.corners, (rows, cols)))
        at = _apply(to_grid, in_photo)
        for i, (x, y) in enumerate(at):
            if 0 <= x < cols and 0 <= y < rows and read[i] == EMPTY:
                read[i] = kingdom[int(y), int(x)]
    wanted = [truth[r, c] for r in range(truth.height) for c in range(truth.width)]
    return sum(a == b for a, b in zip(read, wanted, strict=True))


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    out = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), h)
    return np.asarray(out.reshape(-1, 2), np.float64)


def best_rotation_matches(found: Kingdom, truth: Kingdom) -> int:
    """Squares equal between two kingdoms under the best of the four rotations."""
    return rotation_matches(found, truth)[0]


def rotation_matches(
    found: Kingdom, truth: Kingdom, flagged: frozenset[Position] = frozenset()
) -> tuple[int, int]:
    """Squares right under the best of the four rotations of ``found``, and how many
    of the wrong ones are among its ``flagged`` squares (turned with it)."""
    best = (0, 0)
    flags = np.zeros(found.shape, bool)
    for pos in flagged:
        flags[pos] = True
    for _ in range(4):
        if found.shape == truth.shape:
            wrong = [pos for pos, cell in truth.cells() if found[pos] != cell]
            right = truth.height * truth.width - len(wrong)
            best = max(best, (right, sum(bool(flags[pos]) for pos in wrong)))
        found, flags = found.rotate(), np.rot90(flags, -1)
    return best


def _mean_side(corners: np.ndarray) -> float:
    c = np.asarray(corners, dtype=np.float64)
    return float(np.mean([np.linalg.norm(c[(i + 1) % 4] - c[i]) for i in range(4)]))
