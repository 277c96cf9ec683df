"""Grids fitted to the lattice of the seams themselves, not to an outline of the tiles.

Where an outline is a fraction of a square off, :func:`onto_seams` moves it
onto the seams inside it (:func:`lattice_quad`). Where shadow or dark squares
break the tile mask into pieces, :func:`seam_lattice_guesses` lays full
kingdoms' grids on the lattice of the seams and edges in the area: the grid's
turn from the edges' directions modulo 90°, its square and phase from a comb
over the gradient profiles (:func:`_comb_phase`), its place where it covers the
most tiles (:func:`_best_spans`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from scorer.detect.geometry import BoardLocation, grid_corners, order_corners
from scorer.detect.params import LatticeParams
from scorer.detect.seams import (
    locate,
    on_grid_canvas,
    refine_quad,
    seam_gradient,
    seam_profile,
    to_grid_canvas,
)
from scorer.detect.view import View
from scorer.quantiles import median, quantile
from scorer.rules.kingdom import DUEL_SIZE, STANDARD_SIZE


def onto_seams(view: View, location: BoardLocation) -> BoardLocation:
    """A faint outline moved onto the seams inside it, if that shows a clear grid.

    An outline drawn round an irregular tile area (empty squares along an edge,
    a shadow joined to the tiles) can be a fraction of a square off at a corner,
    so that the seams inside cross the canvas aslant and none is clear. The
    seams are where they are, though: :func:`lattice_quad` fits the grid's
    lines to them and the outer sides are then snapped onto the nearest edges.
    The result is kept only if it shows a clear grid of the same shape.

    Parameters
    ----------
    view : View
    location : BoardLocation
        An outline measured in the work image (:func:`scorer.detect.seams.locate`).

    Returns
    -------
    BoardLocation
        The outline moved, or ``location`` itself.
    """
    best = location
    for _ in range(view.params.lattice.rounds):
        quad = lattice_quad(view, best.corners, best.shape)
        if quad is None:
            break
        moved = locate(view, refine_quad(view, quad, narrow=True), require_grid=False)
        if moved is None or moved.shape != location.shape or moved.score <= best.score:
            break
        best = moved
    return best if best.score >= view.params.seams.min_seam_score else location


def lattice_quad(view: View, quad: np.ndarray, shape: tuple[int, int]) -> np.ndarray | None:
    """The outline of the ``shape`` grid whose inner lines best fit the seams inside ``quad``.

    In each of ``bands`` bands across the grid canvas, each inner seam is
    looked for near its expected place; the places found are matched to their
    grid lines by a robust homography, which gives the outline. None when too
    few seams show or the outline is not convex.
    """
    p, canvas = view.params.lattice, view.params.work.grid_canvas
    rows, cols = shape
    gray = cv2.cvtColor(on_grid_canvas(view.work, quad, canvas), cv2.COLOR_BGR2GRAY)
    gray = gray.astype(np.float32)
    on_grid: list[tuple[float, float]] = []
    on_canvas: list[tuple[float, float]] = []
    band = canvas / p.bands
    for axis, count, across in ((1, cols, rows), (0, rows, cols)):
        grad = seam_gradient(gray, axis)
        step = canvas / count
        reach = max(2, int(p.reach * step))
        for b in range(p.bands):
            profile = seam_profile(grad[int(b * band) : int((b + 1) * band)], view.params.seams)
            typical = max(float(median(profile)), view.params.seams.min_typical_gradient)
            middle = (b + 0.5) * band
            for k in range(1, count):
                place = _peak_near(profile, round(k * step), reach, p.peak * typical)
                if place is None:
                    continue
                if axis == 1:  # a column seam: x = place at the band's middle row
                    on_grid.append((k, middle / canvas * across))
                    on_canvas.append((place, middle))
                else:
                    on_grid.append((middle / canvas * across, k))
                    on_canvas.append((middle, place))
    if len(on_grid) < p.min_seams:
        return None
    grid_points, seen = np.array(on_grid, np.float32), np.array(on_canvas, np.float32)
    h, inliers = cv2.findHomography(grid_points, seen, cv2.RANSAC, p.tolerance)
    if h is None or inliers is None or int(inliers.sum()) < p.min_seams:
        return None
    corners = grid_corners(shape).reshape(-1, 1, 2)
    to_work = np.linalg.inv(to_grid_canvas(quad, canvas))
    back = cv2.perspectiveTransform(cv2.perspectiveTransform(corners, h), to_work)
    if not cv2.isContourConvex(back):
        return None
    return order_corners(back.reshape(4, 2).astype(np.float64))


def seam_lattice_guesses(
    view: View, quads: Sequence[np.ndarray], lit_mask: np.ndarray
) -> list[np.ndarray]:
    """Outlines of a grid laid on the lattice of seams and edges in an area of tiles.

    When shadow or dark squares break the tile mask into pieces, no outline of
    the area fits the kingdom, but the pieces are squares of its grid: their
    edges and the seams between them run two ways, a square apart. The grid's
    orientation is the dominant direction of the strong edges near the tiles
    (angles taken modulo 90°); turned upright, the gradient across each axis,
    summed along it, peaks once per square (:func:`_comb_phase`). Grids of a
    full kingdom's side are laid on that lattice where they cover the most
    tiles (``lit_mask``): the two best places each way for 5×5, the best for
    7×7 (one of ``view.grid`` squares when the player set it). They are only
    guesses: each is measured and chosen among like any other outline.
    """
    p, work, grid = view.params.lattice, view.work, view.grid
    points = np.vstack([q.reshape(-1, 2) for q in quads]).astype(np.float32)
    hull = cv2.convexHull(points)
    size = float(np.sqrt(max(cv2.contourArea(hull), 1.0)))
    bx, by, bw, bh = cv2.boundingRect(hull)
    margin = int(p.margin * size)
    height, width = work.shape[:2]
    x0, y0 = max(0, bx - margin), max(0, by - margin)
    x1, y1 = min(width, bx + bw + margin), min(height, by + bh + margin)
    if x1 - x0 < p.min_region_px or y1 - y0 < p.min_region_px:
        return []
    gray = cv2.cvtColor(work[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    region = np.zeros(gray.shape, np.uint8)
    cv2.fillConvexPoly(region, np.round(hull.reshape(-1, 2) - [x0, y0]).astype(np.int32), 1)
    tiles = (lit_mask[y0:y1, x0:x1] > 0).astype(np.uint8)
    grow = np.ones((p.near_tiles_px, p.near_tiles_px), np.uint8)
    near_tiles = region * cv2.dilate(tiles, grow)
    weight = near_tiles if near_tiles.sum() >= p.min_near_tiles else region
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.hypot(gx, gy) * weight
    if not np.any(magnitude > 0):
        return []
    strong = magnitude > quantile(magnitude[weight > 0], p.edges)
    direction = (magnitude[strong] * np.exp(4j * np.arctan2(gy[strong], gx[strong]))).sum()
    turn = cv2.getRotationMatrix2D(
        ((x1 - x0) / 2, (y1 - y0) / 2), float(np.degrees(np.angle(direction) / 4)), 1.0
    )
    dsize = (x1 - x0, y1 - y0)
    upright = cv2.warpAffine(gray, turn, dsize, flags=cv2.INTER_LINEAR)
    inside = cv2.warpAffine(region, turn, dsize, flags=cv2.INTER_NEAREST).astype(np.float32)
    covered = cv2.warpAffine(tiles, turn, dsize, flags=cv2.INTER_NEAREST).astype(np.float64)
    across_x = seam_gradient(upright, axis=1) * inside
    across_y = seam_gradient(upright, axis=0).T * inside
    profiles = (
        across_x.sum(axis=0) / np.maximum(inside.sum(axis=0), 1.0),
        across_y.sum(axis=1) / np.maximum(inside.sum(axis=1), 1.0),
    )
    smooth = max(p.min_smooth, int(size / p.smooth_divisor) | 1)
    profiles = tuple(q - np.convolve(q, np.ones(smooth) / smooth, mode="same") for q in profiles)
    least, most = (share * size for share in p.periods)
    best = max(
        (
            (fx[0] + fy[0], step, fx[1], fy[1])
            for step in np.arange(max(least, p.min_period), most, p.period_step)
            for fx, fy in [(_comb_phase(profiles[0], step), _comb_phase(profiles[1], step))]
        ),
        default=None,
    )
    if best is None:
        return []
    _, step, phase_x, phase_y = best
    back = cv2.invertAffineTransform(turn)
    sizes = (
        ((grid, p.duel_places),)
        if grid is not None
        else ((STANDARD_SIZE, p.standard_places), (DUEL_SIZE, p.duel_places))
    )
    guesses = []
    for n, places in sizes:
        for xa, xb in _best_spans(covered.sum(axis=0), phase_x, step, n, places):
            for ya, yb in _best_spans(covered.sum(axis=1), phase_y, step, n, places):
                upright_quad = np.array([[xa, ya, 1], [xb, ya, 1], [xb, yb, 1], [xa, yb, 1]], float)
                guesses.append(order_corners(upright_quad @ back.T + [x0, y0]))
    return guesses


def too_bare(location: BoardLocation, p: LatticeParams) -> bool:
    """Whether a third (one in ``bare_parts``) or more of the squares of a grid look like
    bare table.

    A grid laid on a lattice of seams (:func:`seam_lattice_guesses`) must show
    its tiles: a kingdom is built of dominoes, few of them discarded, while wood
    grain, or a cutting mat's lines beside a loose domino, make a lattice too, but
    over bare table; and a 7×7 grid laid round a 5×5 kingdom is half table.

    >>> from scorer.detect.params import DEFAULT
    >>> def grid(*empty: tuple[int, int]) -> BoardLocation:
    ...     return BoardLocation(np.zeros((4, 2)), (3, 3), frozenset(empty))
    >>> too_bare(grid((0, 0), (1, 1)), DEFAULT.lattice)
    False
    >>> too_bare(grid((0, 0), (1, 1), (2, 2)), DEFAULT.lattice)
    True
    """
    rows, cols = location.shape
    return p.bare_parts * len(location.empty) >= rows * cols


def _comb_phase(profile: np.ndarray, step: float) -> tuple[float, float]:
    """How strongly ``profile`` peaks every ``step`` pixels, and where the first peak is.

    The sum of the profile (centred on zero) at every ``step`` from the best
    phase: a lattice twice as fine adds the troughs between, one twice as
    coarse misses half the peaks, so the true step sums highest.

    >>> profile = np.zeros(100)
    >>> profile[[7, 27, 47, 67, 87]] = 1.0
    >>> score, phase = _comb_phase(profile - profile.mean(), 20.0)
    >>> round(phase), round(score, 2)
    (7, 4.75)
    """
    n = len(profile)
    phases = np.arange(0.0, step, 1.0)
    places = phases[:, None] + step * np.arange(int(n / step) + 1)[None, :]
    valid = places < n - 1
    low = np.minimum(np.floor(places).astype(int), n - 2)
    frac = places - low
    values = profile[low] * (1 - frac) + profile[low + 1] * frac
    sums = np.where(valid, values, 0.0).sum(axis=1)
    i = int(sums.argmax())
    return float(sums[i]), float(phases[i])


def _best_spans(
    coverage: np.ndarray, phase: float, step: float, n: int, places: int
) -> list[tuple[float, float]]:
    """The ``places`` spans of ``n`` lattice steps that cover the most tiles.

    >>> _best_spans(np.r_[np.zeros(10), np.ones(50), np.zeros(40)], 0.0, 10.0, 5, 2)
    [(10.0, 60.0), (0.0, 50.0)]
    """
    size = len(coverage)
    spans = []
    for k in range(-int(phase // step) - 1, int(size / step) + 1):
        a, b = phase + k * step, phase + (k + n) * step
        lo, hi = max(0, int(a)), min(size, int(b))
        spans.append((float(coverage[lo:hi].sum()) if hi > lo else 0.0, a, b))
    spans.sort(key=lambda s: -s[0])
    return [(float(a), float(b)) for _, a, b in spans[:places]]


def _peak_near(profile: np.ndarray, centre: int, reach: int, least: float) -> float | None:
    """Sub-pixel place of the highest point of ``profile`` within ``reach`` of ``centre``,
    if it reaches ``least``."""
    lo = max(0, centre - reach)
    segment = profile[lo : centre + reach + 1]
    i = int(segment.argmax())
    if segment[i] < least:
        return None
    place = float(lo + i)
    if 0 < i < len(segment) - 1:
        curve = segment[i - 1] - 2 * segment[i] + segment[i + 1]
        if curve < 0:
            place += 0.5 * (segment[i - 1] - segment[i + 1]) / curve
    return place
