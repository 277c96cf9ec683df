"""How sharp a grid's lines are in the work image: what the row rules of the extent measure."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorer.detect.geometry import Side
from scorer.detect.params import DetectParams
from scorer.detect.seams import line_strength

Extent = tuple[int, int, int, int]
"""Rows ``r0..r1`` and columns ``c0..c1`` of a grid, in the squares of the grid measured."""


@dataclass(frozen=True, eq=False)
class GridEdges:
    """The work image's edges as a grid sees them.

    Attributes
    ----------
    gradients : tuple of ndarray
        Horizontal and vertical gradients of the work image
        (:func:`scorer.detect.seams.gradients`).
    to_photo : ndarray of shape (3, 3)
        Homography from grid coordinates (one unit a square, ``(x, y)`` = column,
        row) to the work image.
    params : DetectParams
    """

    gradients: tuple[np.ndarray, np.ndarray]
    to_photo: np.ndarray
    params: DetectParams


def edge_ratio(edges: GridEdges, extent: Extent, side: Side, slack: float = 0.0) -> float:
    """How sharp one side's outer grid line is, against the grid line one square inside.

    A real row of tiles ends in a sharp straight edge against the table; a strip
    of shadow, glare or a stray line taken for a row does not. ``slack`` (in
    squares) lets the outer line be looked for that far either way of where the
    grid puts it, in steps of ``slack_step``, the sharpest place counting: a
    grid extended by a row beyond the squares it was measured on may miss that
    row's edge by a little.
    """
    r0, r1, c0, c1 = extent
    step = edges.params.extent.slack_step
    shifts = np.arange(-slack, slack + 1e-9, step) if slack > 0 else np.zeros(1)
    outward = -1 if side in (Side.TOP, Side.LEFT) else 1
    across = side in (Side.TOP, Side.BOTTOM)
    outer, inner = {
        Side.TOP: (r0, r0 + 1),
        Side.BOTTOM: (r1, r1 - 1),
        Side.LEFT: (c0, c0 + 1),
        Side.RIGHT: (c1, c1 - 1),
    }[side]
    start, end = (c0, c1) if across else (r0, r1)
    places = [outer + outward * float(s) for s in shifts] + [float(inner)]
    lines = [((start, at), (end, at)) if across else ((at, start), (at, end)) for at in places]
    strength = []
    for a, b in lines:
        ends = cv2.perspectiveTransform(np.array([[a, b]], np.float32), edges.to_photo)[0]
        strength.append(
            line_strength(edges.gradients, ends[0].astype(np.float64), ends[1], edges.params.seams)
        )
    return max(strength[:-1]) / max(strength[-1], 1e-6)


def outer_segments(edges: GridEdges, extent: Extent, side: Side) -> np.ndarray:
    """Edge strength of the outer grid line of one side, square by square."""
    r0, r1, c0, c1 = extent
    if side in (Side.TOP, Side.BOTTOM):
        y = r0 if side == Side.TOP else r1
        ends = [((c, y), (c + 1, y)) for c in range(c0, c1)]
    else:
        x = c0 if side == Side.LEFT else c1
        ends = [((x, r), (x, r + 1)) for r in range(r0, r1)]
    return _segment_strengths(edges, ends)


def cross_segments(edges: GridEdges, extent: Extent, side: Side) -> np.ndarray:
    """Edge strength of the grid lines across the edge row along one side, ends included."""
    r0, r1, c0, c1 = extent
    if side in (Side.TOP, Side.BOTTOM):
        r = r0 if side == Side.TOP else r1 - 1
        ends = [((c, r), (c, r + 1)) for c in range(c0, c1 + 1)]
    else:
        c = c0 if side == Side.LEFT else c1 - 1
        ends = [((c, r), (c + 1, r)) for r in range(r0, r1 + 1)]
    return _segment_strengths(edges, ends)


def _segment_strengths(
    edges: GridEdges, ends: list[tuple[tuple[int, int], tuple[int, int]]]
) -> np.ndarray:
    """Edge strength of each grid segment (ends in grid ``(x, y)``), mapped into the photo."""
    pts = cv2.perspectiveTransform(np.array(ends, np.float32).reshape(-1, 1, 2), edges.to_photo)
    pts = pts.reshape(-1, 2, 2).astype(np.float64)
    p = edges.params.seams
    return np.array([line_strength(edges.gradients, a, b, p) for a, b in pts])
