"""Seams between the squares: gradients, how clear a grid's seams are, and snapping onto edges.

An outline is warped to a square canvas, where the gradient across each axis,
its median taken along the axis, peaks at every seam: how high the peaks of a
grid of *n* squares stand above the typical gradient says how clear that grid
is (:func:`seam_count`). The sides of an outline are moved onto the strongest
straight edges near them (:func:`refine_quad`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scorer.detect.geometry import BoardLocation, intersect, order_corners
from scorer.detect.params import DetectParams, SeamsParams
from scorer.quantiles import median, quantile
from scorer.rules.kingdom import MAX_SIZE

if TYPE_CHECKING:
    from scorer.detect.view import View


def locate(view: View, quad: np.ndarray, *, require_grid: bool) -> BoardLocation | None:
    """Measure the grid inside one quadrilateral of the work image.

    Parameters
    ----------
    view : View
    quad : ndarray of shape (4, 2)
        Corners in the work image, clockwise from the top-left.
    require_grid : bool
        Return None when no grid is clear (unless the player set the grid).

    Returns
    -------
    BoardLocation or None
        The grid whose seams are clearest, its seam strength as ``score``.
    """
    params = view.params
    warped = on_grid_canvas(view.work, quad, params.work.grid_canvas)
    cols, col_score = seam_count(warped, 1, view.grid, params)
    rows, row_score = seam_count(warped, 0, view.grid, params)
    score = min(col_score, row_score)
    if require_grid and view.grid is None and score < params.seams.min_seam_score:
        return None
    return BoardLocation(corners=quad, shape=(rows, cols), score=score)


def one_axis_clear(view: View, location: BoardLocation) -> bool:
    """Whether a grid too faint to count is clear along one axis and faint along the other.

    A blurred or dim kingdom often shows its seams clearly one way only (the
    light falls along them, or dark squares meet the other way); a patch of
    bare table shows faint seams, if any, both ways.
    """
    p = view.params.seams
    if location.score < p.faint_seam_score:
        return False
    warped = on_grid_canvas(view.work, location.corners, view.params.work.grid_canvas)
    rows, cols = location.shape
    clearer = max(
        seam_count(warped, 0, rows, view.params)[1], seam_count(warped, 1, cols, view.params)[1]
    )
    return clearer >= p.one_axis_clear


def seam_count(
    warped: np.ndarray, axis: int, forced: int | None, params: DetectParams
) -> tuple[int, float]:
    """How many squares lie along one axis of a rectified board, and how clear its seams are.

    ``axis=1`` counts columns (seams are vertical lines), ``axis=0`` rows.
    """
    p = params.seams
    candidates = [forced] if forced is not None else list(range(params.min_side + 1, MAX_SIZE + 1))
    scores = count_scores(warped, axis, candidates, p)
    best_n, best = candidates[0], -np.inf
    for n in candidates:
        s = scores[n]
        if s > best * p.count_gain or (s > best * p.count_tie and n > best_n):
            best_n, best = n, s
    return best_n, best


def count_scores(
    warped: np.ndarray, axis: int, counts: Sequence[int], p: SeamsParams
) -> dict[int, float]:
    """How clear the seams of a grid of each of ``counts`` squares along one axis are."""
    gray = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # The median across the seams is taken over every other line: as robust, half the cost.
    profile = seam_profile(seam_gradient(gray, axis)[:: p.count_stride], p)
    size = len(profile)
    # A flat outline (a plain table, a blown-out patch) has almost no typical gradient: the
    # floor keeps a faint line there from counting as a clear seam.
    typical = max(float(median(profile)), p.min_typical_gradient)
    scores = {}
    for n in counts:
        step = size / n
        window = max(2, int(p.peak_window * step))
        peaks = []
        for k in range(1, n):
            c = round(k * step)
            peaks.append(profile[max(0, c - window) : c + window + 1].max())
        # A seam must show along most of the grid: use a low quantile, not the mean.
        scores[n] = float(quantile(peaks, p.seam_quantile)) / typical
    return scores


def seam_gradient(gray: np.ndarray, axis: int) -> np.ndarray:
    """Gradient magnitude across the seams of one axis, one line of the grid canvas per row:
    ``axis=1`` for the column seams (as the canvas is), ``axis=0`` for the row seams
    (transposed)."""
    if axis == 1:
        return np.abs(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3))
    return np.abs(cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)).T


def seam_profile(lines: np.ndarray, p: SeamsParams) -> np.ndarray:
    """Median over lines of :func:`seam_gradient`, lightly smoothed: seams are its peaks."""
    n = p.profile_smooth
    return np.convolve(median(lines, axis=0), np.ones(n) / n, mode="same")


def on_grid_canvas(work: np.ndarray, quad: np.ndarray, canvas: int) -> np.ndarray:
    """The inside of a quadrilateral of the work image, warped to a square ``canvas`` wide."""
    h = to_grid_canvas(quad, canvas)
    return np.asarray(cv2.warpPerspective(work, h, (canvas, canvas), flags=cv2.INTER_LINEAR))


def to_grid_canvas(quad: np.ndarray, canvas: int) -> np.ndarray:
    """Homography from the work image to the grid canvas of a quadrilateral."""
    dst = np.array([[0, 0], [canvas, 0], [canvas, canvas], [0, canvas]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(quad.astype(np.float32), dst))


def gradients(work: np.ndarray, p: SeamsParams) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel x and y derivatives of the lightly smoothed work image."""
    side = p.gradient_blur
    smooth = cv2.GaussianBlur(work, (side, side), 0).astype(np.float32)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
    return gx, gy


def refine_quad(view: View, quad: np.ndarray, *, narrow: bool = False) -> np.ndarray:
    """Move each side onto the strongest straight edge near it: the kingdom's outer edge.

    Each side may shift and tilt by up to a fraction of a square, so it cannot
    jump to a seam between two rows of squares: first within ``wide_reach`` of
    its length, then ``narrow_reach``; only the narrow search when ``narrow``.
    """
    p = view.params.seams
    refined = quad
    for reach in (p.narrow_reach,) if narrow else (p.wide_reach, p.narrow_reach):
        lines = [_snap_side(view.gradients, refined, i, reach, p) for i in range(4)]
        corners = []
        for j in range(4):
            point = intersect(lines[j - 1], lines[j])
            if point is None:
                return quad
            corners.append(point)
        refined = np.array(corners)
    moved = np.linalg.norm(refined - quad, axis=1).max()
    side = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[0])
    if moved > p.max_move * side or not cv2.isContourConvex(refined.astype(np.float32)):
        return quad
    return order_corners(refined)


def line_strength(
    gradients: tuple[np.ndarray, np.ndarray], a: np.ndarray, b: np.ndarray, p: SeamsParams
) -> float:
    """Median edge strength across the segment ``a``–``b`` (within ``line_reach`` pixels)."""
    gx, gy = gradients
    h, w = gx.shape[:2]
    d = b - a
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-9)
    n = np.array([u[1], -u[0]])
    t = np.linspace(p.line_margin, 1 - p.line_margin, p.line_samples)
    offsets = np.arange(-p.line_reach, p.line_reach + 1)
    pts = a[None, None, :] + (t[:, None, None] * d) + offsets[None, :, None] * n
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    across = np.abs(gx[ys, xs] * n[0] + gy[ys, xs] * n[1]).sum(axis=-1)
    return float(median(across.max(axis=1)))


def _snap_side(
    gradients: tuple[np.ndarray, np.ndarray],
    quad: np.ndarray,
    i: int,
    reach: float,
    p: SeamsParams,
) -> tuple[np.ndarray, np.ndarray]:
    """The line near side ``i`` of ``quad`` with the strongest step edge across it.

    Thin lines beside a kingdom (a cutting mat's print) do not count as edges
    (:func:`_step_profile`).
    """
    h, w = gradients[0].shape[:2]
    a, b = quad[i], quad[(i + 1) % 4]
    d = b - a
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-9)
    n = np.array([u[1], -u[0]])  # outward for corners ordered clockwise on screen
    r = max(2, round(reach * length))
    # Coarse for a long reach.
    offsets = np.arange(-r, r + 1, max(1, r // p.snap_offsets), dtype=np.float32)
    t = np.linspace(p.snap_margin, 1 - p.snap_margin, p.snap_samples, dtype=np.float32)
    base = a[None, :] + t[:, None] * d[None, :]
    pts = base[:, None, :] + offsets[None, :, None] * n[None, None, :]
    inside = (pts[..., 0] >= 0) & (pts[..., 0] < w) & (pts[..., 1] >= 0) & (pts[..., 1] < h)
    if reach > p.step_only_reach:
        across = _step_profile(gradients, base, n, r, p)[:, offsets.astype(int) + r] * inside
    else:
        gx, gy = gradients
        xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        across = np.abs(gx[ys, xs] * n[0] + gy[ys, xs] * n[1]).sum(axis=-1) * inside
    # profile[t, k]: edge strength at sample t, offset k. A line is a pair of end offsets.
    k = np.arange(len(offsets))
    k0, k1 = np.meshgrid(k, k, indexing="ij")
    along = np.round(k0[..., None] * (1 - t) + k1[..., None] * t).astype(int)
    score = across[np.arange(len(t)), along].mean(axis=-1)
    best0, best1 = np.unravel_index(int(np.argmax(score)), score.shape)
    p0 = a + offsets[best0] * n
    p1 = b + offsets[best1] * n
    direction = (p1 - p0) / max(float(np.linalg.norm(p1 - p0)), 1e-9)
    return p0, direction


def _step_profile(
    gradients: tuple[np.ndarray, np.ndarray],
    base: np.ndarray,
    n: np.ndarray,
    reach: int,
    p: SeamsParams,
) -> np.ndarray:
    """Edge strength across ``n`` at whole-pixel offsets ``-reach..reach`` from each base point.

    Only steps in colour count (a kingdom's edge against the table): a thin line
    (a cutting mat's print, a stray thread) rises and falls within a few
    pixels, so its gradients across cancel over ``step_reach`` pixels either
    side and it scores little.
    """
    gx, gy = gradients
    h, w = gx.shape[:2]
    half = p.step_reach
    fine = np.arange(-reach - half, reach + half + 1, dtype=np.float32)
    pts = base[:, None, :] + fine[None, :, None] * n.astype(np.float32)
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    signed = gx[ys, xs] * n[0] + gy[ys, xs] * n[1]  # (points, offsets, channels)
    width = 2 * half + 1
    totals = np.cumsum(np.pad(signed, ((0, 0), (1, 0), (0, 0))), axis=1)
    step = np.abs(totals[:, width:] - totals[:, :-width]) / 2
    peak = np.abs(signed[:, half : len(fine) - half])
    return np.asarray(np.minimum(peak, step).sum(axis=-1))
