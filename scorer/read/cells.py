"""Cut a rectified board into its squares and describe each square as numbers.

A rectified board is a BGR uint8 image of ``rows*S × cols*S`` pixels, row 0 at
the top. :func:`split_cells` cuts it row by row, looking at each square with a
small inset margin so that the few-pixel drift of real tile seams does not put
a neighbour's colours into a crop. :func:`cell_features` turns one crop of any
size into a fixed-length float32 vector: colour statistics and histograms in
Lab and HSV, rotation-invariant texture, crown-sensitive descriptors (the
crowns are small yellow icons with white outlines near an edge), and a bag of
SIFT visual words that recognises each square's printed picture.

>>> import numpy as np
>>> board = np.zeros((500, 500, 3), np.uint8)
>>> crops = split_cells(board, (5, 5))
>>> len(crops), crops[0].shape
(25, (88, 88, 3))
>>> cell_features(crops[0]).shape == (FEATURE_SIZE,)
True
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Final, Literal

import cv2
import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from scorer import DATA_DIR

FEATURE_VERSION: Final = 5
"""Bumped whenever :func:`cell_features` changes; a model records the version it saw."""

CROP_SIDE: Final = 64
"""Every crop is resized to this side before its features are computed."""

DEFAULT_MARGIN: Final = 0.06
"""Inset of each crop, as a share of the square's side, on every edge."""

_BORDER: Final = 16
"""Width in pixels (at :data:`CROP_SIDE`) of the edge strips where crowns sit."""

_CROWN_THRESHOLDS: Final = ((100, 100), (170, 140))
"""Least brightness (HSV value) of a crown's white outline and of its yellow fill:
once for dim photos (warm indoor light), once for bright ones."""


_CROWN_GREY: Final = (
    "42 43 43 41 44 45 42 41 41 42 45 42 41 44 39 39 43 45 41 42 41 43 45 43",
    "53 53 51 53 57 55 57 57 57 55 57 55 54 51 52 57 59 58 55 60 54 55 54 53",
    "56 57 56 59 60 57 58 53 63 58 59 59 63 60 64 63 64 62 62 63 60 63 64 58",
    "56 59 58 58 58 55 56 56 57 54 54 59 59 62 60 63 64 65 62 61 63 65 63 61",
    "59 55 56 58 57 56 54 69 89 76 56 54 54 80 87 71 64 57 59 59 61 61 60 62",
    "56 55 55 60 83 82 66 116 131 123 74 48 70 131 133 117 66 67 84 80 59 56 55 57",
    "58 57 61 100 138 133 100 131 107 115 92 43 75 129 113 128 83 110 135 126 83 55 50 51",
    "55 55 61 123 134 126 113 122 109 109 112 59 87 122 109 131 99 130 139 135 116 56 53 48",
    "56 56 55 111 128 117 125 130 123 129 129 123 122 113 127 137 138 131 117 128 116 53 49 48",
    "54 55 55 77 127 119 125 126 128 139 126 119 118 124 146 133 119 113 106 123 82 45 47 46",
    "56 54 51 57 115 126 136 127 131 145 142 128 128 131 150 141 127 129 122 115 60 44 52 46",
    "56 60 50 44 101 128 137 140 140 153 151 124 122 149 159 151 144 141 131 89 42 59 74 43",
    "58 58 51 48 90 125 119 146 147 145 148 149 149 156 152 153 154 128 125 66 39 56 66 37",
    "55 54 51 45 78 126 130 144 140 125 130 148 151 147 130 130 142 127 123 61 39 44 40 32",
    "58 56 49 42 71 128 147 166 163 151 143 135 142 142 147 153 157 141 125 62 38 40 36 28",
    "56 54 48 45 53 115 135 154 155 165 167 165 167 166 164 158 145 135 120 52 38 40 31 23",
    "56 56 50 45 37 56 98 121 128 135 144 155 152 141 135 134 129 117 71 36 34 38 32 28",
    "52 52 50 44 34 28 33 53 69 86 100 111 105 100 101 88 64 55 46 34 40 39 31 27",
    "54 52 46 37 31 27 26 27 25 22 21 23 23 25 34 40 37 41 43 41 45 39 29 21",
    "54 51 48 36 29 27 24 22 21 20 17 18 14 19 32 44 42 39 40 46 46 46 29 21",
)
"""A crown icon (grey levels, 20×24 at :data:`CROP_SIDE`), cut from a photographed tile."""

_CROWN_YELLOW: Final = (
    "42 42 42 43 44 44 45 44 43 42 43 49 51 51 47 45 42 37 37 41 43 46 48 47",
    "46 46 47 46 47 48 49 49 48 47 47 54 56 53 51 51 49 42 41 46 51 54 54 52",
    "47 48 49 48 49 51 51 52 51 50 49 53 55 52 50 52 51 47 48 54 57 58 57 55",
    "48 50 51 50 50 50 49 48 48 48 48 49 51 49 46 48 48 49 52 57 58 57 56 55",
    "49 53 53 52 50 47 44 42 42 43 44 47 46 43 42 44 46 49 51 54 55 56 56 56",
    "49 53 52 49 45 41 38 35 35 36 38 43 39 35 37 38 41 43 42 43 48 54 57 56",
    "48 51 47 41 36 33 32 31 32 32 33 38 34 33 36 35 35 35 35 33 40 49 55 55",
    "48 49 44 36 32 32 33 35 37 38 36 35 35 40 44 35 32 35 38 35 38 45 52 54",
    "48 50 43 36 35 36 35 40 50 52 47 42 44 54 56 44 36 39 43 38 37 44 49 52",
    "47 48 43 36 36 42 48 58 69 72 68 64 67 74 74 64 56 54 50 39 39 45 48 49",
    "44 45 44 37 35 45 64 78 83 84 84 81 84 86 86 80 75 68 55 40 42 47 51 51",
    "43 41 42 40 36 45 69 85 89 88 88 85 86 91 92 89 86 74 55 44 47 52 55 52",
    "46 45 45 42 35 37 55 78 88 88 89 91 93 93 91 86 83 67 45 39 46 51 52 48",
    "46 47 44 43 36 33 41 56 65 71 76 84 86 81 74 71 66 51 36 33 42 47 48 45",
    "45 44 43 42 38 34 35 35 38 45 53 61 62 54 47 51 46 38 33 34 41 44 43 41",
    "45 44 46 43 38 34 29 28 30 34 37 38 36 33 33 39 35 32 34 40 44 42 39 35",
    "47 48 45 41 38 33 27 23 26 29 29 31 31 31 31 33 32 31 33 41 46 45 41 37",
    "48 49 44 41 39 36 31 27 28 30 30 31 30 30 32 33 35 35 37 44 48 47 43 37",
    "47 47 44 41 40 37 36 33 32 31 31 31 30 29 32 37 40 41 42 45 47 46 41 36",
    "46 46 43 41 38 35 34 32 31 31 30 31 29 28 31 37 41 43 44 45 47 44 38 35",
)
"""The same crown in the yellow–blue channel (Lab b* − 100): yellow fill in a white outline."""


_CROWN_WHITE: Final = (
    "29 29 30 30 30 31 33 34 34 32 30 29 27 27 29 29 29 30 29 26 26 30 33 35",
    "27 28 30 30 30 30 32 34 32 31 30 28 28 28 28 29 27 26 26 24 24 26 29 33",
    "24 26 28 30 30 29 31 33 33 32 30 30 31 32 32 31 28 25 23 24 23 24 27 31",
    "26 27 30 31 30 30 33 39 42 41 37 37 39 44 46 42 34 28 26 27 26 26 27 32",
    "29 30 33 36 37 38 46 58 64 67 63 63 67 76 74 65 51 41 40 38 34 30 29 32",
    "34 35 42 49 54 59 74 89 98 104 102 100 104 112 108 102 93 80 73 61 49 39 33 36",
    "38 39 48 58 71 89 106 114 115 118 118 117 121 126 121 119 117 112 105 85 63 47 37 39",
    "40 39 48 63 85 107 115 122 122 124 124 120 119 121 125 130 132 127 116 99 73 51 37 37",
    "39 36 44 64 89 108 114 110 102 94 87 80 74 77 90 105 115 118 111 99 76 48 32 34",
    "37 32 38 61 86 98 90 74 59 52 49 46 44 44 48 58 69 80 91 94 76 43 30 32",
    "35 30 33 55 81 86 68 54 43 39 38 34 32 34 36 41 46 54 68 85 75 42 29 30",
    "37 30 33 54 82 80 61 47 41 39 34 26 25 32 37 38 40 49 65 82 75 43 29 29",
    "39 31 35 59 86 79 58 45 42 39 32 28 28 33 38 38 41 52 70 86 80 51 32 31",
    "42 34 42 67 87 80 68 59 56 49 42 39 41 45 49 50 56 68 81 91 87 63 39 34",
    "44 40 51 75 87 84 88 90 87 77 67 65 70 74 77 80 87 98 100 96 89 74 49 38",
    "47 47 62 84 94 98 109 116 110 100 94 97 98 101 103 101 105 109 106 101 91 80 58 42",
    "48 49 63 85 97 103 104 101 105 103 105 99 82 86 101 100 103 105 99 95 89 80 58 42",
    "45 40 49 72 86 92 85 82 97 101 104 91 69 71 91 96 95 93 81 80 80 68 47 38",
    "35 32 36 48 61 62 52 57 79 91 90 72 51 51 71 86 86 74 55 49 50 43 35 32",
    "32 30 31 33 36 36 34 38 53 64 61 46 35 37 46 58 60 49 38 35 34 34 32 31",
)
"""The crown in whiteness (Lab lightness less twice the chroma): the white outline
bright, the yellow fill and the ground around it dark, on any terrain, grassland
included, whose green is as yellow as a crown's fill. The mean of the 119 crowns of
``aau-boards`` squares that the yellow template found (a correlation of at least
0.75), each turned back upright: a fixed image, not re-derived by cross-validation
folds."""

_WHITE_SCALES: Final = (1.0, 0.8)
"""Sizes, relative to :data:`_CROWN_WHITE`, at which the whiteness template is matched:
phone photos often show crowns smaller than the template."""

_WHITE_CHROMA_WEIGHT: Final = 2.0
"""Whiteness is Lab lightness less this many times the chroma."""

VISUAL_WORDS: Final = 256
"""Size of the visual vocabulary."""

WORDS_FILE: Final = "visual_words.npy"
"""The visual vocabulary, in ``scorer/data``: one SIFT descriptor per row (float32)."""

_SIFT_CONTRAST: Final = 0.02
"""SIFT's contrast threshold (OpenCV's default is 0.04): on a :data:`CROP_SIDE` crop it
finds about 48 keypoints, against 36 with the default."""


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
    crop or nearly so. The same as one row of :func:`cells_features`.

    Parameters
    ----------
    crop : numpy.ndarray
        BGR uint8 image of one square, any size.

    Returns
    -------
    numpy.ndarray
        float32 vector of length :data:`FEATURE_SIZE`.
    """
    return np.asarray(cells_features([crop])[0])


def cells_features(crops: Sequence[np.ndarray], workers: int | None = None) -> np.ndarray:
    """Describe many square crops at once: one row of :data:`FEATURE_SIZE` numbers each.

    Every crop is resized to :data:`CROP_SIDE` and the crops are then described
    together in numpy, which is several times faster than one at a time. A
    row does not depend on the other crops in the batch. With more than one
    core, the crown template matching runs in other threads beside the rest;
    the result is the same for any number of threads.

    Parameters
    ----------
    crops : sequence of numpy.ndarray
        BGR uint8 images of single squares, any sizes.
    workers : int, optional
        Threads to use, the calling one included; by default one per
        available core, at most :data:`MAX_WORKERS`. Batches under
        :data:`MIN_CROPS_THREADED` crops use one.

    Returns
    -------
    numpy.ndarray
        ``len(crops) × FEATURE_SIZE`` float32 matrix.
    """
    for crop in crops:
        if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 4:
            raise ValueError(f"a crop is a BGR image at least 4×4 pixels, not {crop.shape}")
    if not len(crops):
        return np.zeros((0, FEATURE_SIZE), np.float32)
    threads = _default_workers() if workers is None else max(1, workers)
    imgs = _resized(crops)
    hsv = _converted(imgs, cv2.COLOR_BGR2HSV)
    lab = _converted(imgs, cv2.COLOR_BGR2LAB).astype(np.float32)
    gray = _converted(imgs, cv2.COLOR_BGR2GRAY)
    white = _whiteness(lab)
    # The word histograms' small matrix products would each wake BLAS's own threads,
    # which then spin on the cores the matching threads need: a 25-square board took
    # twice as long.
    with threadpool_limits(1, user_api="blas"):
        return _features(hsv, lab, gray, white, threads)


def _resized(crops: Sequence[np.ndarray]) -> np.ndarray:
    """The crops resized to :data:`CROP_SIDE`, stacked: ``n × side × side × 3``."""
    side = (CROP_SIDE, CROP_SIDE)
    return np.stack([cv2.resize(c, side, interpolation=cv2.INTER_AREA) for c in crops])


def _converted(imgs: np.ndarray, code: int) -> np.ndarray:
    """A colour conversion of a stack of crops, done once on the crops one above another."""
    tall = cv2.cvtColor(imgs.reshape(-1, imgs.shape[2], 3), code)
    return tall.reshape(*imgs.shape[:3], *tall.shape[2:])


def gray_crops(crops: Sequence[np.ndarray]) -> np.ndarray:
    """The crops as the features see them in grey: resized to :data:`CROP_SIDE`, stacked.

    Parameters
    ----------
    crops : sequence of numpy.ndarray
        BGR uint8 images of single squares, any sizes.

    Returns
    -------
    numpy.ndarray
        ``n × CROP_SIDE × CROP_SIDE`` uint8, the input of :func:`crop_descriptors`.
    """
    return _converted(_resized(crops), cv2.COLOR_BGR2GRAY)


def _features(
    hsv: np.ndarray, lab: np.ndarray, gray: np.ndarray, white: np.ndarray, threads: int
) -> np.ndarray:
    """The rows of :func:`cells_features` from the crops' colour planes."""
    if threads > 1 and len(gray) >= MIN_CROPS_THREADED:
        # Crown template matching and SIFT are nearly all OpenCV time, free of the
        # interpreter lock: they run in other threads while this one computes the rest,
        # and then matches its own, smaller share of the crops.
        own, *shares = _matching_shares(len(gray), threads)
        pending = [
            _pool().submit(_matched_features, gray[c], lab[c, ..., 2], white[c])
            for c in shares
            if len(c)
        ]
        rest = _pixel_features(hsv, lab, gray)
        mine = _matched_features(gray[own], lab[own, ..., 2], white[own])
        matched = np.concatenate([mine, *(job.result() for job in pending)])
    else:
        rest = _pixel_features(hsv, lab, gray)
        matched = _matched_features(gray, lab[..., 2], white)
    return np.concatenate([rest, matched], axis=1).astype(np.float32)


PIXEL_TO_MATCHING_COST: Final = 0.3
"""Time of the pixel features relative to the matched features (crown templates and
SIFT visual words) for the same crops."""


def _matching_shares(count: int, threads: int) -> list[np.ndarray]:
    """Split ``count`` crops' matching between ``threads`` threads, the calling thread
    first: it also computes the pixel features, so it takes a smaller share."""
    other = (1.0 + PIXEL_TO_MATCHING_COST) / threads
    own = max(0, round(count * (1.0 - (threads - 1) * other)))
    rest = np.array_split(np.arange(own, count), threads - 1)
    return [np.arange(own), *rest]


def _matched_features(
    gray: np.ndarray, yellowness: np.ndarray, whiteness: np.ndarray
) -> np.ndarray:
    """The crown template matches and the visual-word histogram of each crop of a stack."""
    templates = _crown_template_features(gray, yellowness, whiteness)
    words = _word_histograms(crop_descriptors(gray), visual_words())
    return np.concatenate([templates, words], axis=1)


MAX_WORKERS: Final = 4
"""Most threads :func:`cells_features` uses by default."""

MIN_CROPS_THREADED: Final = 8
"""Fewest crops worth sharing between threads."""


_thread_cap: int = MAX_WORKERS


def limit_threads(threads: int) -> None:
    """Use at most ``threads`` threads in :func:`cells_features` by default, from now on.

    A batch worker calls it with 1: every core already has a worker of its own,
    and threads within each worker would only take turns on the same cores.
    """
    global _thread_cap
    _thread_cap = max(1, min(MAX_WORKERS, threads))


def _default_workers() -> int:
    """Cores this process may run on, at most :data:`MAX_WORKERS` (or the cap set)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cores = os.cpu_count() or 1
    return max(1, min(_thread_cap, cores))


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(MAX_WORKERS - 1, thread_name_prefix="cell-features")


# A forked process (a training worker) has none of its parent's threads: it starts its own pool.
os.register_at_fork(after_in_child=_pool.cache_clear)


def _pixel_features(hsv: np.ndarray, lab: np.ndarray, gray: np.ndarray) -> np.ndarray:
    """Every feature but the crown template matches: colour, texture and crown masks."""
    return np.concatenate(
        [_colour_features(hsv, lab), _texture_features(gray), _crown_features(hsv)], axis=1
    )


def _colour_features(hsv: np.ndarray, lab: np.ndarray) -> np.ndarray:
    n = len(lab)
    centre = slice(CROP_SIDE // 4, CROP_SIDE - CROP_SIDE // 4)
    ring = np.ones((CROP_SIDE, CROP_SIDE), bool)
    ring[centre, centre] = False
    planes = np.ascontiguousarray(lab.transpose(0, 3, 1, 2))  # n × 3 × side × side
    whole = planes.reshape(n, 3, -1)
    out: list[np.ndarray] = []
    for pixels in (whole, planes[:, :, centre, centre].reshape(n, 3, -1), planes[:, :, ring]):
        out.extend(_mean_std(pixels))
    ranks = [k * whole.shape[2] // 10 for k in (1, 5, 9)]
    out.append(_order_statistics(whole, ranks).reshape(n, -1))
    hue = hsv[..., 0].reshape(n, -1).astype(np.int32)
    sat = hsv[..., 1].reshape(n, -1).astype(np.int32)
    val = hsv[..., 2].reshape(n, -1).astype(np.int32)
    size = hue.shape[1]
    out.append(_bincount_rows((hue * 12 // 180) * 3 + np.minimum(sat * 3 // 256, 2), 36) / size)
    out.append(_bincount_rows(val * 6 // 256, 6) / size)
    centre_hue = hsv[:, centre, centre, 0].reshape(n, -1).astype(np.int32)
    centre_sat = hsv[:, centre, centre, 1].reshape(n, -1).astype(np.float64)
    weighted = _bincount_rows(centre_hue * 12 // 180, 12, centre_sat)
    out.append(weighted / np.maximum(weighted.sum(axis=1, keepdims=True), 1.0))
    return np.concatenate(out, axis=1)


def _mean_std(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation along the last axis of float32 whole numbers.

    The same float32 values as ``numpy.mean`` and ``numpy.std`` over the pixel
    axis of an ``n × pixels × 3`` array (the features were first computed so):
    sums of whole numbers are exact in any order, and the squared deviations
    are summed one after another as numpy does along a non-contiguous axis.
    """
    count = np.float32(pixels.shape[-1])
    mean = pixels.sum(axis=-1, keepdims=True) / count
    deviation = pixels - mean
    squares = np.cumsum(deviation * deviation, axis=-1)[..., -1]
    return mean[..., 0], np.sqrt(squares / count)


def _order_statistics(values: np.ndarray, ranks: Sequence[int]) -> np.ndarray:
    """The ``ranks``-th smallest along the last axis of an ``n × planes × pixels`` array of
    float32 whole numbers in 0–255 (``n × len(ranks) × planes``), by counting, not sorting."""
    n, planes = values.shape[:2]
    codes = values.astype(np.int32) + 256 * np.arange(n * planes).reshape(n, planes, 1)
    counts = np.bincount(codes.ravel(), minlength=n * planes * 256).reshape(n, planes, 256)
    below = np.cumsum(counts, axis=-1)
    return np.stack([(below > k).argmax(axis=-1) for k in ranks], axis=1).astype(np.float32)


def _bincount_rows(codes: np.ndarray, bins: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-row histograms of integer codes in ``[0, bins)`` (``n × bins``)."""
    n = len(codes)
    shifted = codes + bins * np.arange(n)[:, None]
    flat_weights = None if weights is None else weights.ravel()
    return np.bincount(shifted.ravel(), weights=flat_weights, minlength=n * bins).reshape(n, bins)


def _texture_features(gray: np.ndarray) -> np.ndarray:
    n = len(gray)
    g = _apply_padded(gray.astype(np.float32), 1, "reflect")
    gx = _stacked(g, lambda im: cv2.Sobel(im, cv2.CV_32F, 1, 0, ksize=3))
    gy = _stacked(g, lambda im: cv2.Sobel(im, cv2.CV_32F, 0, 1, ksize=3))
    lap = np.abs(_stacked(g, lambda im: cv2.Laplacian(im, cv2.CV_32F)))
    mag = np.sqrt(gx * gx + gy * gy)[:, 1:-1, 1:-1].reshape(n, -1)
    lap = lap[:, 1:-1, 1:-1].reshape(n, -1)
    ranks = [k * mag.shape[1] // 20 for k in (5, 10, 15, 18)]
    stats = np.column_stack(
        [
            mag.mean(axis=1),
            mag.std(axis=1),
            # a sort finds the same order statistics as a partition at four ranks, several
            # times faster (numpy's vectorised sort)
            np.sort(mag, axis=1)[:, ranks],
            lap.mean(axis=1),
            lap.std(axis=1),
        ]
    )
    half_side = (CROP_SIDE // 2, CROP_SIDE // 2)
    half = np.stack([cv2.resize(g, half_side, interpolation=cv2.INTER_AREA) for g in gray])
    return np.concatenate([stats / 255.0, _lbp_histogram(gray), _lbp_histogram(half)], axis=1)


def _apply_padded(
    images: np.ndarray, width: int, mode: Literal["reflect", "constant"]
) -> np.ndarray:
    """Pad every image of an ``n × h × w`` stack by ``width`` pixels on each side."""
    return np.pad(images, ((0, 0), (width, width), (width, width)), mode=mode)


def _stacked(images: np.ndarray, op: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Apply a same-size image filter to an ``n × h × w`` stack in one call (images one above
    another; padded images keep each result free of its neighbours)."""
    n, h, w = images.shape
    return np.asarray(op(np.ascontiguousarray(images.reshape(n * h, w)))).reshape(n, h, w)


def _lbp_histogram(gray: np.ndarray) -> np.ndarray:
    """Rotation-invariant uniform local binary patterns (8 neighbours, radius 1): 10 bins."""
    g = gray.astype(np.int16)
    centre = g[:, 1:-1, 1:-1]
    h, w = centre.shape[1:]
    offsets = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))
    bits = np.stack([(g[:, dy : dy + h, dx : dx + w] >= centre) for dy, dx in offsets])
    transitions = (bits != np.roll(bits, 1, axis=0)).sum(axis=0)
    ones = bits.sum(axis=0)
    code = np.where(transitions <= 2, ones, 9).reshape(len(g), -1)
    return _bincount_rows(code, 10) / code.shape[1]


def _crown_features(hsv: np.ndarray) -> np.ndarray:
    hue, sat, val = (hsv[..., i].astype(np.int32) for i in range(3))
    yellowish = (hue >= 15) & (hue <= 35) & (sat >= 90)
    parts = []
    for white_v, yellow_v in _CROWN_THRESHOLDS:
        yellow = (yellowish & (val >= yellow_v)).astype(np.uint8)
        white = ((sat <= 70) & (val >= white_v)).astype(np.uint8)
        parts.append(_crown_masks_features(yellow, white))
    return np.concatenate(parts, axis=1)


def _crown_masks_features(yellow: np.ndarray, white: np.ndarray) -> np.ndarray:
    n = len(yellow)
    near_white, near_yellow = _dilate(white), _dilate(yellow)
    crown = yellow & near_white
    blob = _dilate(crown | (white & near_yellow))
    strips = []
    blob_strips = [np.rot90(blob, k, axes=(1, 2))[:, :_BORDER] for k in range(4)]
    strip_blobs = _count_blobs(np.concatenate(blob_strips), 15).reshape(4, n)  # one call
    for k in range(4):
        y, w, c = (np.rot90(m, k, axes=(1, 2))[:, :_BORDER] for m in (yellow, white, crown))
        strips.append(
            np.column_stack(
                [
                    y.mean(axis=(1, 2)),
                    w.mean(axis=(1, 2)),
                    c.mean(axis=(1, 2)),
                    strip_blobs[k],
                    _profile_peaks(c),
                ]
            )
        )
    table = np.stack(strips, axis=1).astype(np.float32)  # n × 4 strips × 5
    order = np.argsort(-table[:, :, 2], axis=1, kind="stable")
    table = np.take_along_axis(table, order[:, :, None], axis=1)
    inner = slice(_BORDER, CROP_SIDE - _BORDER)
    totals = np.column_stack(
        [
            yellow.mean(axis=(1, 2)),
            white.mean(axis=(1, 2)),
            crown.mean(axis=(1, 2)),
            crown[:, inner, inner].mean(axis=(1, 2)),
            _count_blobs(blob, 15),
            _count_blobs(crown, 4),
        ]
    ).astype(np.float32)
    return np.concatenate([table.reshape(n, -1), table.sum(axis=1), totals], axis=1)


def _dilate(masks: np.ndarray) -> np.ndarray:
    """3×3 dilation of each mask of an ``n × h × w`` stack (outside counts as empty)."""
    kernel = np.ones((3, 3), np.uint8)
    padded = _apply_padded(masks, 1, "constant")
    return _stacked(padded, lambda m: cv2.dilate(m, kernel))[:, 1:-1, 1:-1]


def crop_descriptors(gray: np.ndarray) -> list[np.ndarray]:
    """SIFT descriptors of each grey :data:`CROP_SIDE` crop of an ``n × h × w`` stack.

    SIFT keypoints have their own scale and orientation, so the descriptors of a
    square barely change when it turns. The contrast threshold is lowered
    (:data:`_SIFT_CONTRAST`) so that it finds enough keypoints on small pictures.

    Parameters
    ----------
    gray : numpy.ndarray
        ``n × CROP_SIDE × CROP_SIDE`` uint8 grey crops.

    Returns
    -------
    list of numpy.ndarray
        For each crop, a ``k × 128`` float32 array (``k`` may be 0).
    """
    # one detector per call: a detector is not shared between threads
    sift = cv2.SIFT.create(contrastThreshold=_SIFT_CONTRAST)
    out = []
    for crop in gray:
        _, found = sift.detectAndCompute(np.ascontiguousarray(crop), None)
        out.append(np.zeros((0, 128), np.float32) if found is None else found)
    return out


def _word_histograms(descriptors: Sequence[np.ndarray], words: np.ndarray) -> np.ndarray:
    """For each crop, the share of its descriptors nearest each visual word, and their count.

    This is a bag of visual words: a square's picture (a mine cart, a pile of
    rocks, a crown) leaves the same words whatever its turn or its place in the
    crop, and each pair of terrain and crown count has its own few pictures.
    """
    out = np.zeros((len(descriptors), len(words) + 1), np.float32)
    word_norms = (words * words).sum(axis=1)
    for row, found in zip(out, descriptors, strict=True):
        if len(found):
            distances = word_norms[None, :] - 2.0 * found @ words.T
            nearest = distances.argmin(axis=1)
            row[: len(words)] = np.bincount(nearest, minlength=len(words)) / len(found)
        row[-1] = len(found) / 100.0
    return out


@cache
def visual_words() -> np.ndarray:
    """The committed visual vocabulary (:data:`WORDS_FILE`): ``words × 128`` float32.

    It was learned without labels, by k-means over the SIFT descriptors of the
    training crops (``python -m scorer.train --learn-words``).
    """
    return load_words(words_resource())


def words_resource() -> Path:
    """Where the committed visual vocabulary lies in the package (``scorer/data``)."""
    return DATA_DIR / WORDS_FILE


def load_words(path: str | os.PathLike[str]) -> np.ndarray:
    """Read a visual vocabulary from ``path``; raise ``ValueError`` or ``OSError`` when unfit.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npy`` file of :data:`VISUAL_WORDS` × 128 numbers.

    Returns
    -------
    numpy.ndarray
        The words, float32 and C-contiguous.
    """
    words = np.load(path, allow_pickle=False)
    if words.shape != (VISUAL_WORDS, 128) or not np.isfinite(words).all():
        raise ValueError(
            f"{path} holds {words.shape} values, not {VISUAL_WORDS} × 128 finite numbers: "
            "restore it with `git checkout scorer/data/` or learn it again with "
            "`python -m scorer.train --learn-words`"
        )
    return np.ascontiguousarray(words, np.float32)


def words_digest() -> str:
    """sha256 of the committed visual vocabulary's values: a model records the one it saw."""
    return hashlib.sha256(visual_words().tobytes()).hexdigest()


def _whiteness(lab: np.ndarray) -> np.ndarray:
    """Lab lightness less :data:`_WHITE_CHROMA_WEIGHT` times the chroma (OpenCV's 8-bit Lab)."""
    chroma = np.hypot(lab[..., 1] - 128.0, lab[..., 2] - 128.0)
    return np.asarray(lab[..., 0] - _WHITE_CHROMA_WEIGHT * chroma, np.float32)


def _crown_template_features(
    gray: np.ndarray, yellowness: np.ndarray, whiteness: np.ndarray
) -> np.ndarray:
    """Best matches of a crown's shape, in any of four turns.

    For the grey and the yellow–blue channel, the five strongest separate
    peaks of normalised cross-correlation with a crown icon, and how many
    peaks pass 0.6 and 0.7: a crowned square has one strong peak per crown.
    The same for the whiteness channel at each of :data:`_WHITE_SCALES`, with
    how many peaks pass 0.5 as well.
    """
    matches: list[tuple[np.ndarray, tuple[np.ndarray, ...], tuple[float, ...]]] = [
        (gray, _crown_templates(_CROWN_GREY, 1.0), (0.6, 0.7)),
        (yellowness, _crown_templates(_CROWN_YELLOW, 1.0), (0.6, 0.7)),
    ]
    matches.extend(
        (whiteness, _crown_templates(_CROWN_WHITE, scale), (0.5, 0.6, 0.7))
        for scale in _WHITE_SCALES
    )
    out = [
        _template_peaks(np.asarray(channel, np.float32), templates, thresholds)
        for channel, templates, thresholds in matches
    ]
    return np.concatenate(out, axis=1)  # each part is float32 already


def _template_peaks(
    channel: np.ndarray, templates: Sequence[np.ndarray], thresholds: Sequence[float]
) -> np.ndarray:
    """The five strongest separate peaks of the best match of any template over each image
    of an ``n × h × w`` stack, then how many peaks pass each threshold."""
    n = len(channel)
    if not n:
        return np.zeros((0, 5 + len(thresholds)), np.float32)
    padded = np.pad(channel, ((0, 0), (6, 6), (6, 6)), mode="edge")
    response = np.full(padded.shape, -1.0, np.float32)
    for image, best in zip(padded, response, strict=True):
        for template in templates:
            res = cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED)
            cy, cx = template.shape[0] // 2, template.shape[1] // 2
            view = best[cy : cy + res.shape[0], cx : cx + res.shape[1]]
            np.maximum(view, res, out=view)
    height, width = padded.shape[1], padded.shape[2]
    yy = np.arange(height)[None, :, None]
    xx = np.arange(width)[None, None, :]
    flat = response.reshape(n, -1)
    peaks = []
    for _ in range(5):
        at = flat.argmax(axis=1)
        peaks.append(flat[np.arange(n), at])
        y, x = np.divmod(at, width)
        near = (np.abs(yy - y[:, None, None]) <= 7) & (np.abs(xx - x[:, None, None]) <= 7)
        response[near] = -1.0
    values = np.column_stack(peaks).astype(np.float32)
    counts = [(values > t).sum(axis=1) for t in thresholds]
    return np.column_stack([values, *counts]).astype(np.float32)


@cache
def _crown_templates(rows: tuple[str, ...], scale: float) -> tuple[np.ndarray, ...]:
    """A template table at ``scale`` of its size, in its four 90° turns."""
    base: np.ndarray = np.array([[float(v) for v in row.split()] for row in rows], np.float32)
    if scale != 1.0:
        size = (round(base.shape[1] * scale), round(base.shape[0] * scale))
        base = np.asarray(cv2.resize(base, size, interpolation=cv2.INTER_AREA), np.float32)
    return tuple(np.ascontiguousarray(np.rot90(base, k)) for k in range(4))


def _count_blobs(masks: np.ndarray, min_area: int = 6) -> np.ndarray:
    """Connected parts (8-neighbour) of at least ``min_area`` pixels in each mask of a stack."""
    n, h, w = masks.shape
    tall = np.pad(masks.astype(np.uint8), ((0, 0), (0, 1), (0, 0))).reshape(n * (h + 1), w)
    count, _, stats, _ = cv2.connectedComponentsWithStats(tall, connectivity=8)
    big = stats[1:count, cv2.CC_STAT_AREA] >= min_area
    owner = stats[1:count, cv2.CC_STAT_TOP][big] // (h + 1)
    return np.bincount(owner, minlength=n).astype(np.float32)


def _profile_peaks(strips: np.ndarray) -> np.ndarray:
    """Number of separate runs along each strip of a stack where crown pixels are present."""
    sums = strips.sum(axis=1).astype(np.float32)
    padded = np.pad(sums, ((0, 0), (1, 1)))
    present = (padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:]) / 3 >= 1.0
    rises = np.count_nonzero(present[:, 1:] & ~present[:, :-1], axis=1)
    return np.asarray(rises + present[:, 0], np.float32)


def _feature_size() -> int:
    """Length of a feature row, counted part by part (computing a row at import took 4 ms
    of every command's start; a test checks the count against a row)."""
    colour = 3 * 2 * 3 + 3 * 3 + 36 + 6 + 12  # Lab mean and spread of 3 regions, 3 ranks, hues
    texture = 8 + 2 * 10  # gradient statistics, two LBP histograms
    crown_masks = len(_CROWN_THRESHOLDS) * (4 * 5 + 5 + 6)  # 4 edge strips, their sums, totals
    templates = 2 * (5 + 2) + len(_WHITE_SCALES) * (5 + 3)  # 5 peaks and threshold counts
    return colour + texture + crown_masks + templates + VISUAL_WORDS + 1


FEATURE_SIZE: Final = _feature_size()
"""Length of the vector :func:`cell_features` returns."""
