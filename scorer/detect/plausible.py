"""Whether a candidate kingdom can be a kingdom at all: the check every candidate passes.

Detection proposes outlines from colours and seams; some cannot be a kingdom
whatever their seams say. One check is applied to every candidate:

- its corners lie in the photo, or at most ``plausible.outside_squares`` of a
  square beyond its border (a kingdom cut by the frame is still reported, its
  corners just outside);
- it is not a grid inside a larger area of tiles: where the strip of one square
  beyond each side lies in the photo, at least one of those strips shows the
  table (a grid of small squares inside one lake square, or a 3×4 grid inside a
  kingdom photographed without a margin, has tiles all round);
- it does not overlap a kingdom kept before it by more than
  ``plausible.max_overlap`` of its own area (a second "kingdom" laid over one
  already found would become a phantom player).

>>> from scorer.detect.geometry import BoardLocation
>>> square = np.array([[0, 0], [50, 0], [50, 50], [0, 50]], float)
>>> inside_photo(BoardLocation(square, (5, 5)), (100, 100), 0.5)
True
>>> inside_photo(BoardLocation(square - 20, (5, 5)), (100, 100), 0.5)
False
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from scorer.detect.geometry import BoardLocation, beyond_side
from scorer.detect.params import PlausibleParams


def plausible(location: BoardLocation, tile_mask: np.ndarray, p: PlausibleParams) -> bool:
    """Whether a candidate may be reported: inside the photo and not inside more tiles.

    Parameters
    ----------
    location : BoardLocation
        The candidate, in the pixels of ``tile_mask``.
    tile_mask : ndarray of uint8 of shape (H, W)
        255 where the pixel is tile (:class:`scorer.detect.table.TileMaps`).
    p : PlausibleParams

    Returns
    -------
    bool
    """
    return inside_photo(location, tile_mask.shape, p.outside_squares) and not surrounded(
        location, tile_mask, p
    )


def inside_photo(location: BoardLocation, shape: tuple[int, ...], outside_squares: float) -> bool:
    """Whether every corner lies in the photo or within ``outside_squares`` squares of it.

    Parameters
    ----------
    location : BoardLocation
    shape : tuple of int
        The photo's shape, ``(height, width, ...)``.
    outside_squares : float
        How far beyond the border a corner may lie, in squares of the candidate's grid.

    Returns
    -------
    bool
    """
    corners = np.asarray(location.corners, dtype=np.float64)
    if not np.all(np.isfinite(corners)):
        return False
    margin = outside_squares * square_side(location)
    height, width = shape[:2]
    low, high = -margin, np.array([width, height], dtype=np.float64) + margin
    return bool(np.all((corners >= low) & (corners <= high)))


def square_side(location: BoardLocation) -> float:
    """The mean side of one of the candidate's squares, in its pixels.

    >>> from scorer.detect.geometry import BoardLocation
    >>> c = np.array([[0, 0], [40, 0], [40, 60], [0, 60]], float)
    >>> square_side(BoardLocation(c, (3, 2)))
    20.0
    """
    c = np.asarray(location.corners, dtype=np.float64)
    rows, cols = location.shape
    across = (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / (2 * cols)
    down = (np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / (2 * rows)
    return float((across + down) / 2)


def surrounded(location: BoardLocation, tile_mask: np.ndarray, p: PlausibleParams) -> bool:
    """Whether tiles lie beyond every side of the candidate that has the photo beyond it.

    A side counts where at least ``p.in_photo_share`` of the strip one square beyond
    it lies in the photo; the candidate is surrounded when at least ``p.min_sides_seen``
    sides count and in each the share of tile pixels is at least ``p.surrounded_tile``.

    Parameters
    ----------
    location : BoardLocation
    tile_mask : ndarray of uint8 of shape (H, W)
    p : PlausibleParams

    Returns
    -------
    bool
    """
    height, width = tile_mask.shape[:2]
    seen = 0
    for strip in beyond_side(location).values():
        poly = np.round(strip.corners).astype(np.int32).reshape(-1, 1, 2)
        whole = abs(cv2.contourArea(poly.astype(np.float32)))
        if whole < 1.0:
            return False
        region = np.zeros((height, width), np.uint8)
        cv2.fillPoly(region, [poly], 255)
        inside = region > 0
        area = int(np.count_nonzero(inside))
        if area < p.in_photo_share * whole:
            continue
        seen += 1
        if np.count_nonzero(tile_mask[inside]) < p.surrounded_tile * area:
            return False
    return seen >= p.min_sides_seen


def overlap_area(a: BoardLocation, b: BoardLocation) -> float:
    """The area two convex candidates share, in their pixels (0 where either is not convex).

    >>> from scorer.detect.geometry import BoardLocation
    >>> sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    >>> overlap_area(BoardLocation(sq, (5, 5)), BoardLocation(sq + [5, 0], (5, 5)))
    50.0
    """
    pa = np.asarray(a.corners, dtype=np.float32).reshape(-1, 1, 2)
    pb = np.asarray(b.corners, dtype=np.float32).reshape(-1, 1, 2)
    try:
        shared, _ = cv2.intersectConvexConvex(pa, pb)
    except cv2.error:
        return 0.0
    return float(shared)


def overlap_share(a: BoardLocation, b: BoardLocation) -> float:
    """The area shared by two candidates, as a share of the smaller one's area.

    >>> from scorer.detect.geometry import BoardLocation
    >>> sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    >>> overlap_share(BoardLocation(sq, (5, 5)), BoardLocation(sq + [5, 0], (5, 5)))
    0.5
    """
    pa = np.asarray(a.corners, dtype=np.float32).reshape(-1, 1, 2)
    pb = np.asarray(b.corners, dtype=np.float32).reshape(-1, 1, 2)
    smaller = min(abs(cv2.contourArea(pa)), abs(cv2.contourArea(pb)))
    if smaller <= 0:
        return 1.0
    # Not convex: no area shared, and the centre test of the caller decides.
    return overlap_area(a, b) / smaller


def apart(locations: Sequence[BoardLocation], max_overlap: float) -> list[BoardLocation]:
    """The candidates that do not overlap one kept before them, earlier first.

    Two overlap where either's centre lies inside the other, or where they share more
    than ``max_overlap`` of the smaller one's area.

    >>> from scorer.detect.geometry import BoardLocation
    >>> sq = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    >>> kept = apart([BoardLocation(sq, (5, 5)), BoardLocation(sq + [7, 0], (5, 5))], 0.2)
    >>> len(kept)
    1
    """
    kept: list[BoardLocation] = []
    for loc in locations:
        if not any(overlapping(loc, other, max_overlap) for other in kept):
            kept.append(loc)
    return kept


def overlapping(a: BoardLocation, b: BoardLocation, max_overlap: float) -> bool:
    """Whether either kingdom's centre lies inside the other, or they share more than
    ``max_overlap`` of the smaller one's area (:func:`apart`)."""
    return centre_inside(a, b) or overlap_share(a, b) > max_overlap


def centre_inside(a: BoardLocation, b: BoardLocation) -> bool:
    """Whether either kingdom's centre lies inside the other."""
    for inner, outer in ((a, b), (b, a)):
        centre = inner.corners.mean(axis=0)
        contour = outer.corners.astype(np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(contour, (float(centre[0]), float(centre[1])), False) >= 0:
            return True
    return False
