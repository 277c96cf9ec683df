"""Cut a rectified board into its squares and describe each square as numbers.

A rectified board is a BGR uint8 image of ``rows*S × cols*S`` pixels, row 0 at
the top. :func:`split_cells` cuts it row by row, looking at each square with a
small inset margin so that the few-pixel drift of real tile seams does not put
a neighbour's colours into a crop. :func:`cell_features` turns one crop of any
size into a fixed-length float32 vector: colour statistics and histograms in
Lab and HSV, rotation-invariant texture, and crown-sensitive descriptors (the
crowns are small yellow icons with white outlines near an edge).

>>> import numpy as np
>>> board = np.zeros((500, 500, 3), np.uint8)
>>> crops = split_cells(board, (5, 5))
>>> len(crops), crops[0].shape
(25, (88, 88, 3))
>>> cell_features(crops[0]).shape == (FEATURE_SIZE,)
True
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

FEATURE_VERSION: Final = 1
"""Bumped whenever :func:`cell_features` changes; a model records the version it saw."""

CROP_SIDE: Final = 64
"""Every crop is resized to this side before its features are computed."""

DEFAULT_MARGIN: Final = 0.06
"""Inset of each crop, as a share of the square's side, on every edge."""

_BORDER: Final = 16
"""Width in pixels (at :data:`CROP_SIDE`) of the edge strips where crowns sit."""


def split_cells(
    board: np.ndarray, shape: tuple[int, int], margin: float = DEFAULT_MARGIN
) -> list[np.ndarray]:
    """Cut a rectified board into its squares, row by row.

    Parameters
    ----------
    board : numpy.ndarray
        BGR uint8 image of ``rows*S × cols*S`` pixels (any ``S``; a few pixels off is fine).
    shape : tuple of int
        ``(rows, cols)`` of the grid.
    margin : float
        Inset on every edge as a share of the square's side (0 ≤ margin < 0.5).

    Returns
    -------
    list of numpy.ndarray
        ``rows*cols`` crops in row-major order.
    """
    rows, cols = shape
    if rows < 1 or cols < 1:
        raise ValueError(f"a grid has at least one row and one column, not {shape}")
    if not 0 <= margin < 0.5:
        raise ValueError(f"margin must be in [0, 0.5), not {margin}")
    height, width = board.shape[:2]
    step_y, step_x = height / rows, width / cols
    inset_y, inset_x = margin * step_y, margin * step_x
    crops = []
    for r in range(rows):
        y0, y1 = round(r * step_y + inset_y), round((r + 1) * step_y - inset_y)
        for c in range(cols):
            x0, x1 = round(c * step_x + inset_x), round((c + 1) * step_x - inset_x)
            crops.append(board[y0:y1, x0:x1])
    return crops


def cell_features(crop: np.ndarray) -> np.ndarray:
    """Describe one square crop as a 1-D float32 vector of :data:`FEATURE_SIZE` numbers.

    The crop is resized to :data:`CROP_SIDE` first, so the result does not
    depend on its resolution. Every feature is invariant to 90° turns of the
    crop or nearly so.

    Parameters
    ----------
    crop : numpy.ndarray
        BGR uint8 image of one square, any size.

    Returns
    -------
    numpy.ndarray
        float32 vector of length :data:`FEATURE_SIZE`.
    """
    if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 4:
        raise ValueError(f"a crop is a BGR image at least 4×4 pixels, not {crop.shape}")
    img = cv2.resize(crop, (CROP_SIDE, CROP_SIDE), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    parts = [
        _colour_features(hsv, lab),
        _texture_features(gray),
        _crown_features(hsv),
    ]
    return np.concatenate(parts).astype(np.float32)


def _colour_features(hsv: np.ndarray, lab: np.ndarray) -> np.ndarray:
    centre = slice(CROP_SIDE // 4, CROP_SIDE - CROP_SIDE // 4)
    ring = np.ones((CROP_SIDE, CROP_SIDE), bool)
    ring[centre, centre] = False
    out: list[np.ndarray] = []
    for pixels in (lab.reshape(-1, 3), lab[centre, centre].reshape(-1, 3), lab[ring]):
        out.append(pixels.mean(axis=0))
        out.append(pixels.std(axis=0))
    ordered = np.sort(lab.reshape(-1, 3), axis=0)
    out.append(ordered[[n * ordered.shape[0] // 10 for n in (1, 5, 9)]].ravel())
    hue = hsv[..., 0].ravel().astype(np.int32)
    sat = hsv[..., 1].ravel().astype(np.int32)
    val = hsv[..., 2].ravel().astype(np.int32)
    hs = np.bincount((hue * 12 // 180) * 3 + np.minimum(sat * 3 // 256, 2), minlength=36)
    out.append(hs[:36] / hue.size)
    out.append(np.bincount(val * 6 // 256, minlength=6)[:6] / val.size)
    centre_hue = hsv[centre, centre, 0].ravel().astype(np.int32)
    centre_sat = hsv[centre, centre, 1].ravel().astype(np.float32)
    out.append(np.bincount(centre_hue * 12 // 180, weights=centre_sat, minlength=12)[:12])
    out[-1] = out[-1] / max(float(out[-1].sum()), 1.0)
    return np.concatenate(out)


def _texture_features(gray: np.ndarray) -> np.ndarray:
    g = gray.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    lap = np.abs(cv2.Laplacian(g, cv2.CV_32F))
    stats = [
        mag.mean(),
        mag.std(),
        *np.sort(mag.ravel())[[n * mag.size // 20 for n in (5, 10, 15, 18)]],
        lap.mean(),
        lap.std(),
    ]
    half = cv2.resize(gray, (CROP_SIDE // 2, CROP_SIDE // 2), interpolation=cv2.INTER_AREA)
    return np.concatenate([np.asarray(stats) / 255.0, _lbp_histogram(gray), _lbp_histogram(half)])


def _lbp_histogram(gray: np.ndarray) -> np.ndarray:
    """Rotation-invariant uniform local binary patterns (8 neighbours, radius 1): 10 bins."""
    g = gray.astype(np.int16)
    centre = g[1:-1, 1:-1]
    h, w = centre.shape
    offsets = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))
    bits = np.stack([(g[dy : dy + h, dx : dx + w] >= centre) for dy, dx in offsets])
    transitions = (bits != np.roll(bits, 1, axis=0)).sum(axis=0)
    ones = bits.sum(axis=0)
    code = np.where(transitions <= 2, ones, 9)
    return np.bincount(code.ravel(), minlength=10)[:10] / code.size


def _crown_features(hsv: np.ndarray) -> np.ndarray:
    hue, sat, val = (hsv[..., i].astype(np.int32) for i in range(3))
    yellow = ((hue >= 15) & (hue <= 35) & (sat >= 90) & (val >= 140)).astype(np.uint8)
    white = ((sat <= 70) & (val >= 170)).astype(np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    near_white = np.asarray(cv2.dilate(white, kernel), np.uint8)
    near_yellow = np.asarray(cv2.dilate(yellow, kernel), np.uint8)
    crown = yellow & near_white
    blob = np.asarray(cv2.dilate(crown | (white & near_yellow), kernel))
    strips = []
    for k in range(4):
        y, w, c, b = (np.rot90(m, k)[:_BORDER] for m in (yellow, white, crown, blob))
        strips.append(
            [
                y.mean(),
                w.mean(),
                c.mean(),
                _count_blobs(b),
                _profile_peaks(c),
            ]
        )
    table = np.asarray(strips, np.float32)
    order = np.argsort(-table[:, 2], kind="stable")
    table = table[order]
    inner = slice(_BORDER, CROP_SIDE - _BORDER)
    totals = [
        yellow.mean(),
        white.mean(),
        crown.mean(),
        crown[inner, inner].mean(),
        _count_blobs(blob),
    ]
    return np.concatenate([table.ravel(), table.sum(axis=0), np.asarray(totals, np.float32)])


def _count_blobs(mask: np.ndarray, min_area: int = 6) -> float:
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return float((stats[1:n, cv2.CC_STAT_AREA] >= min_area).sum())


def _profile_peaks(strip: np.ndarray) -> float:
    """Number of separate runs along a strip where crown pixels are present."""
    profile = np.convolve(strip.sum(axis=0).astype(np.float32), np.ones(3) / 3, mode="same")
    present = profile >= 1.0
    return float(np.count_nonzero(present[1:] & ~present[:-1]) + int(present[0]))


FEATURE_SIZE: Final = int(cell_features(np.zeros((8, 8, 3), np.uint8)).size)
"""Length of the vector :func:`cell_features` returns."""
