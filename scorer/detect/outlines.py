"""Candidate outlines of the kingdoms: quadrilaterals round the areas of tiles, and the choice.

Each large connected area of the tile mask becomes a few quadrilaterals (the
four longest sides of its hull intersected, its simplified hull, its rotated
rectangle, the straight stretches of its outline), and so do its parts once
thin lines and bridges are cut off, and its parts seen apart from shadow and
glare. Once each is measured, :func:`choose` picks the outline that best joins
clear seams with covering the tiles, and :func:`rivals` keeps the others
nearly as clear for the reading to decide between.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from scorer.detect.geometry import BoardLocation, order_corners, quad_from_lines
from scorer.detect.params import DetectParams, OutlinesParams


def filled(mask: np.ndarray, p: OutlinesParams) -> np.ndarray:
    """The tile mask with its small gaps closed and every hole filled: table that tile
    encloses on all sides counts as tile.

    A kingdom whose squares look partly like the table (wheat beside an orange table,
    mines in the shadow on a grey one) breaks the mask into pieces, no one of which is the
    kingdom; the dark edges of its tiles often still enclose it. Filled, it is one area again.
    """
    h, w = mask.shape
    closed = _closed(mask, p)
    outside = np.zeros((h + 2, w + 2), np.uint8)
    outside[1:-1, 1:-1] = closed
    cv2.floodFill(outside, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 255)
    return np.asarray(closed | ~outside[1:-1, 1:-1], dtype=np.uint8)


def candidate_quads(
    mask: np.ndarray, lit_mask: np.ndarray | None, p: OutlinesParams
) -> list[list[np.ndarray]]:
    """Possible outlines of each kingdom-sized area of tiles: a few quads per area.

    Parameters
    ----------
    mask : ndarray of uint8
        The tile mask (255 for tile).
    lit_mask : ndarray of uint8 or None
        The tile mask that leaves out the table in shadow and glare too; its
        areas inside an area of ``mask`` are more outlines of the same kingdom,
        without the shadow or glare stuck to it.
    p : OutlinesParams

    Returns
    -------
    list of list of ndarray of shape (4, 2)
        The quads of each area, in work-image pixels.
    """
    h, w = mask.shape
    clean = _clean_mask(mask, p)
    contours, _ = cv2.findContours(clean, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = p.min_area_share * h * w
    # Each area as it is and without the thin lines and bridges stuck to it; an area
    # that falls into several parts is several areas.
    groups = [
        _split_joined(clean, c, min_area, p) for c in contours if cv2.contourArea(c) >= min_area
    ]
    if not groups:
        return []
    lit_parts: list[np.ndarray] = []
    if lit_mask is not None:
        found, _ = cv2.findContours(
            _clean_mask(lit_mask, p), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE
        )
        lit_parts = [c for c in found if cv2.contourArea(c) >= min_area]
    grouped = []
    for whole, *parts in groups:
        parts += [
            c
            for c in lit_parts
            if _contains(whole, _centre(c))
            # else the same outline
            and cv2.contourArea(c) < p.lit_same_share * cv2.contourArea(whole)
        ]
        grouped.append([whole, *_without_joins(parts, p)])
    # Sizes compare with the largest kingdom-like outline: an area's parts where it has
    # any (a blob of shadow joining several kingdoms is none), else the area itself.
    largest = max(cv2.contourArea(c) for group in grouped for c in (group[1:] or group))
    areas = []
    for whole, *parts in grouped:
        parts = [c for c in parts if cv2.contourArea(c) >= p.kingdom_share * largest]
        clusters = _clusters(parts)
        if cv2.contourArea(whole) < p.kingdom_share * largest and not clusters:
            continue
        if len(clusters) <= 1:
            quads = _quads_of(whole, w, h, p)
            for c in clusters[0] if clusters else []:
                quads += [q for q in _quads_of(c, w, h, p) if not has_quad(quads, q, p)]
            areas.append(quads)
        else:  # the parts first; the whole area only where no part is a kingdom
            for cluster in clusters:
                quads = []
                for c in cluster:
                    quads += [q for q in _quads_of(c, w, h, p) if not has_quad(quads, q, p)]
                areas.append(quads)
            areas.append(_quads_of(whole, w, h, p))
    return [quads for quads in areas if quads]


def has_quad(
    quads: list[np.ndarray], quad: np.ndarray, p: OutlinesParams, tolerance: float | None = None
) -> bool:
    """Whether a quad within ``tolerance`` pixels (``same_quad_px`` if None) of this one is
    already in the list."""
    near = p.same_quad_px if tolerance is None else tolerance
    return any(np.abs(quad - q).max() < near for q in quads)


def choose(
    tried: list[BoardLocation | None], lit_mask: np.ndarray, params: DetectParams
) -> BoardLocation:
    """The outline that best joins a clear grid with covering the tiles of its area.

    Each outline with a grid is scored by its seam strength, counted up to
    ``clear_seams`` only, times the cube (``cover_power``) of its share of the
    most tile pixels any outline covers (``lit_mask``, shadow and glare left
    out), times its tile density (tile pixels per pixel inside, against the
    densest outline's). An outline that leaves out a row of squares can show
    clearer seams than the whole kingdom, so clarity alone would favour it;
    once the seams are clear, what counts is which outline holds the tiles. An
    outline stretched over the table to a loose domino, or to a printed mat's
    lines whose grid looks like seams, holds a few more tiles but much more
    table. Outlines whose seams are much weaker than the clearest are not
    considered.
    """
    p, min_seam = params.outlines, params.seams.min_seam_score
    found = [loc for loc in tried if loc is not None]
    seen = [loc for loc in found if loc.score >= min_seam] or found
    clearest = max(loc.score for loc in seen)
    seen = [loc for loc in seen if loc.score >= p.near_clearest * clearest]
    covered = [_pixels_inside(lit_mask, loc.corners) for loc in seen]
    most = max(max(covered), 1)
    areas = [max(cv2.contourArea(loc.corners.astype(np.float32)), 1.0) for loc in seen]
    densest = max(c / a for c, a in zip(covered, areas, strict=True))
    # Among faint grids only, a tight outline round part of the tiles is no likelier.
    power = p.density_power if clearest >= min_seam else 0

    def joint(i: int) -> tuple[float, float]:
        share = covered[i] / most
        density = covered[i] / areas[i] / max(densest, 1e-9)
        sparse = min(1.0, density / p.sparse_density) ** power
        return min(seen[i].score, p.clear_seams) * share**p.cover_power * sparse, seen[i].score

    return seen[max(range(len(seen)), key=joint)]


def rivals(
    tried: Sequence[BoardLocation | None], best: BoardLocation, p: OutlinesParams
) -> list[BoardLocation]:
    """The other outlines of an area whose seams are nearly as clear as the chosen one's,
    clearest first.

    Seams can be faint (lake beside lake, dark squares on a dark cutting mat),
    and then a grid one row short, or a fraction of a square off, can show them
    a little more clearly than the right one; and among outlines with clear
    seams, the one covering the most tiles can have taken in a loose domino or
    a shadow. Which grid's squares look like squares of a tile is then the
    better test, and only reading them tells.
    """
    near = [
        loc
        for loc in tried
        if loc is not None and loc is not best and loc.score >= p.near_best * best.score
    ]
    return sorted(near, key=lambda loc: -loc.score)


def distinct(
    chosen: BoardLocation, others: Sequence[BoardLocation], p: OutlinesParams
) -> tuple[BoardLocation, ...]:
    """``others`` without the outlines that repeat ``chosen`` or each other, at most
    ``max_alternatives``."""
    kept: list[BoardLocation] = []
    for loc in others:
        if len(kept) == p.max_alternatives:
            break
        if not any(same_outline(loc, k, p) for k in [chosen, *kept]):
            kept.append(loc)
    return tuple(kept)


def same_outline(a: BoardLocation, b: BoardLocation, p: OutlinesParams) -> bool:
    """Whether two outlines have the same grid and corners within ``same_outline`` of a
    square."""
    if a.shape != b.shape:
        return False
    square = np.linalg.norm(a.corners[1] - a.corners[0]) / a.shape[1]
    return bool(np.linalg.norm(a.corners - b.corners, axis=1).max() < p.same_outline * square)


def places(clusters: list[list[np.ndarray]], p: OutlinesParams) -> list[list[np.ndarray]]:
    """The clusters that may each be a kingdom: those whose largest outline is at least
    ``place_share`` of the largest one's. Kingdoms joined by shadow are alike in
    size; a kingdom that glare breaks into pieces leaves one large piece and small ones."""
    largest = [max(cv2.contourArea(c) for c in cluster) for cluster in clusters]
    return [c for c, a in zip(clusters, largest, strict=True) if a >= p.place_share * max(largest)]


def _without_joins(parts: list[np.ndarray], p: OutlinesParams) -> list[np.ndarray]:
    """The parts of an area less those that join several places (shadow spread between kingdoms).

    A part holds several places when the smaller parts inside it fall into two or
    more groups that do not overlap, each of a kingdom's size next to the others
    (:func:`places`); it is then an outline of them all, like the whole area,
    and no kingdom's.
    """
    kept = []
    for part in parts:
        area = cv2.contourArea(part)
        inside = [
            c
            for c in parts
            if c is not part
            and cv2.contourArea(c) < p.join_share * area
            and _contains(part, _centre(c))
        ]
        if len(places(_clusters(inside), p)) < 2:
            kept.append(part)
    return kept


def _clean_mask(mask: np.ndarray, p: OutlinesParams) -> np.ndarray:
    """The mask without specks, its small gaps closed."""
    side = max(mask.shape)
    open_k = max(p.min_speck, round(side / p.speck_divisor) | 1)
    clean = cv2.morphologyEx(
        mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (open_k, open_k))
    )
    return _closed(clean, p)


def _closed(mask: np.ndarray, p: OutlinesParams) -> np.ndarray:
    """The mask with its gaps closed: those narrower than ``1 / gap_divisor`` of the image's
    longer side, and at least ``min_gap`` pixels."""
    close_k = max(p.min_gap, round(max(mask.shape) / p.gap_divisor) | 1)
    return np.asarray(
        cv2.morphologyEx(
            mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (close_k, close_k))
        ),
        dtype=np.uint8,
    )


def _clusters(outlines: list[np.ndarray]) -> list[list[np.ndarray]]:
    """Outlines grouped by overlap: each group is one place, outlined several ways."""
    clusters: list[list[np.ndarray]] = []
    for c in outlines:
        for cluster in clusters:
            first = cluster[0]
            if _contains(first, _centre(c)) or _contains(c, _centre(first)):
                cluster.append(c)
                break
        else:
            clusters.append([c])
    return clusters


def _centre(contour: np.ndarray) -> tuple[float, float]:
    """The centroid of an outline (the mean of its points when it has no area)."""
    m = cv2.moments(contour)
    if m["m00"] == 0:
        x, y = contour.reshape(-1, 2).mean(axis=0)
        return float(x), float(y)
    return m["m10"] / m["m00"], m["m01"] / m["m00"]


def _contains(contour: np.ndarray, point: tuple[float, float]) -> bool:
    """Whether ``point`` lies inside or on the outline."""
    return bool(cv2.pointPolygonTest(contour, point, False) >= 0)


def _quads_of(contour: np.ndarray, w: int, h: int, p: OutlinesParams) -> list[np.ndarray]:
    """Possible outlines of the kingdom in one area of tiles."""
    hull = cv2.convexHull(contour)
    if _touches_border(contour, w, h, p):
        # Cut off by the photo's edge, or joined to glare or an object that is:
        # only straight sides lying wholly inside the photo may make a kingdom.
        inside = _quad_from_segments(contour, p)
        margin = p.inside_margin * min(h, w)
        if inside is None or not (
            (inside >= margin).all()
            and (inside[:, 0] <= w - margin).all()
            and (inside[:, 1] <= h - margin).all()
        ):
            return []
        return [inside]
    if cv2.contourArea(contour) / max(cv2.contourArea(hull), 1.0) < p.min_solidity:
        return []
    quads: list[np.ndarray] = []
    for quad in (
        _quad_from_hull(hull, p),
        _quad_from_poly(hull, p),
        _quad_from_rect(contour),
        _quad_from_segments(contour, p),
    ):
        if quad is not None and not has_quad(quads, quad, p):
            quads.append(quad)
    return quads


def _split_joined(
    clean: np.ndarray, contour: np.ndarray, min_area: float, p: OutlinesParams
) -> list[np.ndarray]:
    """An area, followed by its parts once thin lines and narrow bridges are cut away.

    An area that reaches the photo's edge, or is not convex, is opened with a
    disc a fraction of a square wide: lines and bridges narrower than it vanish,
    whole squares stay. A convex area is returned alone.
    """
    h, w = clean.shape
    area = cv2.contourArea(contour)
    solidity = area / max(cv2.contourArea(cv2.convexHull(contour)), 1.0)
    if solidity >= p.convex_solidity and not _touches_border(contour, w, h, p):
        return [contour]
    x, y, bw, bh = cv2.boundingRect(contour)
    own = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(own, [contour], -1, 255, -1, offset=(-x, -y))
    own &= clean[y : y + bh, x : x + bw]
    k = max(p.min_bridge, round(max(h, w) / p.bridge_divisor) | 1)
    opened = cv2.morphologyEx(
        own, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x, y))
    return [contour] + [part for part in parts if cv2.contourArea(part) >= min_area]


def _quad_from_segments(contour: np.ndarray, p: OutlinesParams) -> np.ndarray | None:
    """Four corners from the straight stretches of the outline itself, not of its hull.

    Collinear stretches are pooled (a side broken by a missing square is still
    one side), and the longest pooled lines in two directions make the sides.
    Blobs of glare or shadow stuck to the kingdom have no long straight edges.
    """
    perimeter = cv2.arcLength(contour, True)
    poly = (
        cv2.approxPolyDP(contour, p.segment_epsilon * perimeter, True)
        .reshape(-1, 2)
        .astype(np.float64)
    )
    n = len(poly)
    if n < 4:
        return None
    quarter = perimeter / 4
    clusters: list[dict[str, Any]] = []
    segments = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    segments.sort(key=lambda ab: -float(np.linalg.norm(ab[1] - ab[0])))
    for a, b in segments:
        length = float(np.linalg.norm(b - a))
        if length < p.min_segment * quarter:
            break
        theta = float(np.arctan2(b[1] - a[1], b[0] - a[0]) % np.pi)
        normal = np.array([-np.sin(theta), np.cos(theta)])
        rho = float((a + b) @ normal / 2)
        for c in clusters:
            dt = abs(theta - c["theta"])
            dt = min(dt, np.pi - dt)
            # Offsets are compared along the cluster's own normal.
            if (
                dt < np.radians(p.same_angle)
                and abs(float((a + b) @ c["normal"] / 2) - c["rho"]) < p.same_offset * quarter
            ):
                c["points"].extend([a, b])
                c["weight"] += length
                break
        else:
            clusters.append(
                {"theta": theta, "normal": normal, "rho": rho, "points": [a, b], "weight": length}
            )
    clusters.sort(key=lambda c: -c["weight"])
    if len(clusters) < 4:
        return None
    first = clusters[0]

    def angle_to(c: dict[str, Any]) -> float:
        dt = abs(c["theta"] - first["theta"])
        return float(min(dt, np.pi - dt))

    parallel = [c for c in clusters[1:] if angle_to(c) < np.radians(p.parallel_angle)]
    across = [c for c in clusters[1:] if angle_to(c) >= np.radians(p.parallel_angle)]
    partner = next(
        (
            c
            for c in parallel
            if abs(float(np.mean(c["points"], axis=0) @ first["normal"]) - first["rho"])
            > p.apart_offset * quarter
        ),
        None,
    )
    if partner is None or len(across) < 2:
        return None
    side_a = across[0]
    side_b = next(
        (
            c
            for c in across[1:]
            if abs(float(np.mean(c["points"], axis=0) @ side_a["normal"]) - side_a["rho"])
            > p.apart_offset * quarter
        ),
        None,
    )
    if side_b is None:
        return None
    lines = []
    for c in (first, side_a, partner, side_b):
        pts = np.array(c["points"], dtype=np.float32)
        vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01)
        lines.append((np.array([x0.item(), y0.item()]), np.array([vx.item(), vy.item()])))
    quad = quad_from_lines(lines)
    return None if quad is None else order_corners(quad)


def _quad_from_poly(hull: np.ndarray, p: OutlinesParams) -> np.ndarray | None:
    """The hull simplified until four corners remain."""
    perimeter = cv2.arcLength(hull, True)
    for eps in p.poly_epsilons:
        poly = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(poly) == 4:
            return order_corners(poly.reshape(4, 2).astype(np.float64))
        if len(poly) < 4:
            return None
    return None


def _quad_from_rect(contour: np.ndarray) -> np.ndarray:
    """The smallest rotated rectangle around the area."""
    return order_corners(cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64))


def _touches_border(contour: np.ndarray, w: int, h: int, p: OutlinesParams) -> bool:
    """True when a long stretch of the outline runs along the photo's edge (a cut-off board)."""
    pts = contour.reshape(-1, 2)
    on_edge = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= w - 2) | (pts[:, 1] >= h - 2)
    return bool(on_edge.mean() > p.border_run)


def _quad_from_hull(hull: np.ndarray, p: OutlinesParams) -> np.ndarray | None:
    """Four corners from a convex outline: intersect the lines of its four longest sides."""
    pts = hull.reshape(-1, 2).astype(np.float64)
    perimeter = cv2.arcLength(hull, True)
    poly = (
        cv2.approxPolyDP(hull, p.hull_epsilon * perimeter, True).reshape(-1, 2).astype(np.float64)
    )
    if len(poly) < 4:
        return None
    n = len(poly)
    lengths = np.array([np.linalg.norm(poly[(i + 1) % n] - poly[i]) for i in range(n)])
    keep = sorted(np.argsort(lengths)[-4:])
    lines = []
    for i in keep:
        a, b = poly[i], poly[(i + 1) % n]
        lines.append(_fit_side(pts, a, b, p))
    quad = quad_from_lines(lines)
    if quad is None:
        return None
    hull_area = cv2.contourArea(hull.astype(np.float32))
    quad_area = cv2.contourArea(quad.astype(np.float32))
    least, most = p.hull_area
    if not least * hull_area <= quad_area <= most * hull_area:
        return None
    return order_corners(quad)


def _fit_side(
    pts: np.ndarray, a: np.ndarray, b: np.ndarray, p: OutlinesParams
) -> tuple[np.ndarray, np.ndarray]:
    """A line (point, direction) through the outline points near the segment ``a``–``b``."""
    d = b - a
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-9)
    rel = pts - a
    t = rel @ u
    dist = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
    start, end = p.side_span
    near = (
        (t > start * length)
        & (t < end * length)
        & (dist < max(p.side_near_px, p.side_near_share * length))
    )
    if near.sum() < 2:
        return a, u
    vx, vy, x0, y0 = cv2.fitLine(pts[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
    return np.array([x0.item(), y0.item()]), np.array([vx.item(), vy.item()])


def _pixels_inside(mask: np.ndarray, quad: np.ndarray) -> int:
    """How many marked pixels of ``mask`` lie inside the quadrilateral."""
    h, w = mask.shape
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w, h])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, [w, h])
    if x1 <= x0 or y1 <= y0:
        return 0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad - [x0, y0]).astype(np.int32), 1)
    return int(np.count_nonzero(mask[y0:y1, x0:x1][inside > 0]))
