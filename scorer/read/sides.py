"""How sharply a candidate outline's sides stand out in the photo: the edge term of verify.

A kingdom's outline runs along its outer edge, where tiles meet the table. Across it the
colour changes at least as much as across a typical seam between two tiles inside it. A
side that lies on bare table (a grid grown a row into the table) has table on both sides
of it and changes colour far less. :func:`side_sharpness` measures each side's contrast
relative to the seams inside the same outline, in the same light, so neither the photo's
exposure nor the table's colour matters; :mod:`scorer.read.verify` takes the weakest side.

The colours are sampled along each grid line, :data:`ACROSS` of a square either side of
it, every :data:`ALONG` of a square; each sample is the mean of nine points
:data:`SPREAD` of a square apart (a small blur against the photo's noise and the table's
grain). A line's contrast is the median over its samples of the Lab distance between the
two sides, so that a crown, a seam or a missing square along it does not decide.

>>> photo = np.full((700, 800, 3), 40, np.uint8)
>>> photo[100:600, 100:600] = (60, 160, 200)  # tiles of one colour on a dark table
>>> photo[100:600, 200:600:100] = (30, 80, 100)  # the seams between their columns
>>> square = np.array([[100, 100], [600, 100], [600, 600], [100, 600]], float)
>>> bool(side_sharpness(photo, BoardLocation(square, (5, 5)), 0.8) > 1.0)
True
>>> grown = np.array([[100, 100], [700, 100], [700, 600], [100, 600]], float)
>>> side_sharpness(photo, BoardLocation(grown, (5, 6)), 0.8)  # its right side lies on table
0.0
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from scorer.detect import BoardLocation, grid_homography
from scorer.quantiles import median

ACROSS: Final = 0.2
"""Distance (squares) from a line at which its two sides are sampled: clear of the seam's
own dark line, and within the squares beside it."""

ALONG: Final = 0.1
"""Spacing (squares) of the samples along a line."""

SPREAD: Final = 0.025
"""Spacing (squares) of the 3 × 3 points averaged into one sample."""

_FLOOR: Final = 1.0
"""Least seam contrast (Lab units) divided by: a kingdom of one flat colour."""


def side_sharpness(image: np.ndarray, location: BoardLocation, in_photo: float) -> float | None:
    """The contrast across the weakest side of an outline, relative to its seams.

    Parameters
    ----------
    image : numpy.ndarray
        The photo, BGR uint8.
    location : BoardLocation
        The candidate outline and its grid.
    in_photo : float
        Share (0–1) of a line's samples that must lie in the photo for it to be measured
        (:attr:`scorer.read.params.ReadParams.strip_in_photo`).

    Returns
    -------
    float or None
        The least, over the sides measured, of the side's contrast divided by the median
        contrast of the grid's inner lines; None when no side or no inner line lies in
        the photo (a photo cropped to the kingdom), which says nothing either way.
    """
    rows, cols = location.shape
    to_photo = grid_homography(np.asarray(location.corners, np.float64), location.shape)
    sides = [
        _contrast(image, to_photo, True, 0, cols, in_photo),
        _contrast(image, to_photo, True, rows, cols, in_photo),
        _contrast(image, to_photo, False, 0, rows, in_photo),
        _contrast(image, to_photo, False, cols, rows, in_photo),
    ]
    measured = [c for c in sides if c is not None]
    if not measured:  # the whole frame of a cropped photo: its seams need not be measured
        return None
    inner = [_contrast(image, to_photo, True, y, cols, in_photo) for y in range(1, rows)]
    inner += [_contrast(image, to_photo, False, x, rows, in_photo) for x in range(1, cols)]
    seams = [c for c in inner if c is not None]
    if not seams:
        return None
    return min(measured) / max(float(median(np.asarray(seams))), _FLOOR)


def _contrast(
    image: np.ndarray,
    to_photo: np.ndarray,
    across_rows: bool,
    at: float,
    length: int,
    in_photo: float,
) -> float | None:
    """Median Lab distance between the two sides of one grid line (a row line at ``y = at``
    when ``across_rows``, else a column line at ``x = at``); None when fewer than
    ``in_photo`` of its samples lie in the photo."""
    along = np.arange(ALONG / 2, length, ALONG)
    one = _side(image, to_photo, across_rows, at - ACROSS, along)
    other = _side(image, to_photo, across_rows, at + ACROSS, along)
    shown = one[1] & other[1]
    if not shown.any() or float(np.mean(shown)) < in_photo:
        return None
    lab = cv2.cvtColor(np.concatenate([one[0], other[0]]).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
    a, b = np.split(lab.reshape(-1, 3).astype(np.float32), 2)
    return float(median(np.linalg.norm(a[shown] - b[shown], axis=1)))


def _side(
    image: np.ndarray, to_photo: np.ndarray, across_rows: bool, at: float, along: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The mean colour (uint8) of each sample at ``at`` across a line, and whether all
    of its points lie in the photo."""
    offsets = np.array([-SPREAD, 0.0, SPREAD])
    du, dv = (g.ravel() for g in np.meshgrid(offsets, offsets))
    u = along[:, None] + du[None]  # along the line
    v = np.broadcast_to(at + dv[None], u.shape)  # across it
    grid = np.stack([u, v] if across_rows else [v, u], axis=-1).reshape(1, -1, 2)
    points = cv2.perspectiveTransform(grid, to_photo).reshape(len(along), 9, 2)
    height, width = image.shape[:2]
    inside = (
        (points[..., 0] >= 0)
        & (points[..., 0] <= width - 1)
        & (points[..., 1] >= 0)
        & (points[..., 1] <= height - 1)
    ).all(axis=1)
    xs = points[..., 0].astype(np.float32)
    ys = points[..., 1].astype(np.float32)
    colours = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mean = np.asarray(colours, np.float32).mean(axis=1)
    return np.clip(np.rint(mean), 0, 255).astype(np.uint8), inside
