"""The table's colour and texture model: which pixels, and which squares, are tile.

A colour model of the table is learnt from the photo's border (k-means in
Lab, with its colours in shadow and glare added); every pixel far from it is
tile. On a table of one colour any other hue is tile however dark
(:func:`colour_off_table`), and on a table with a fine, even pattern a square
without it is tile whatever its colour (:func:`table_texture_map`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.detect.geometry import grid_corners
from scorer.detect.params import TableParams
from scorer.quantiles import median, quantile


@dataclass(frozen=True, eq=False)
class TileMaps:
    """How far each pixel of the work image is from the table's colours.

    Attributes
    ----------
    dist : ndarray of float32
        Distance from the table colours (Lab, lightness counting half).
    lit_dist : ndarray of float32
        The same distance from the table colours in shadow and glare as well.
    mask : ndarray of uint8
        255 where ``dist`` makes a pixel tile.
    lit_mask : ndarray of uint8
        255 where ``lit_dist`` makes a pixel tile: the tiles without shadow and glare.
    found_any : bool
        Whether any tile-like area was seen.
    """

    dist: np.ndarray
    lit_dist: np.ndarray
    mask: np.ndarray
    lit_mask: np.ndarray
    found_any: bool


@dataclass(frozen=True, eq=False)
class TableTexture:
    """The table's fine pattern: where the work image shows thin bright lines or specks.

    Attributes
    ----------
    ridges : ndarray of float32
        Share of the pixels around each pixel (``ridge_window``) that are
        brighter than their surroundings by a share of their lightness: a
        printed line, a carpet's speck. Averaged before a square is warped
        small, so that no thin line falls between the samples.
    density : float
        Share of such pixels along the photo's border (median of the four sides).
    """

    ridges: np.ndarray
    density: float


def tile_maps(work: np.ndarray, p: TableParams) -> TileMaps:
    """Pixels unlike the table: a colour model of the photo's border, k-means in Lab.

    Parameters
    ----------
    work : ndarray of shape (H, W, 3)
        The BGR work image.
    p : TableParams

    Returns
    -------
    TileMaps
    """
    blur = cv2.GaussianBlur(work, (p.blur_side, p.blur_side), 0)
    lab8 = cv2.cvtColor(blur, cv2.COLOR_BGR2LAB)
    lab = _lab8_to_float(lab8)
    sides = [side.reshape(-1, 3) for side in _border_bands(lab, p)]
    rng = np.random.default_rng(0)
    per_side = p.border_samples
    sample = np.concatenate(
        [
            side[rng.choice(len(side), size=min(per_side, len(side)), replace=False)]
            for side in sides
        ]
    )
    side_of = np.repeat(np.arange(4), [min(per_side, len(side)) for side in sides])
    k = p.colours
    criteria = (
        cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER,
        p.kmeans_rounds,
        p.kmeans_epsilon,
    )
    cv2.setRNGSeed(0)  # k-means++ seeding draws from OpenCV's global generator
    _, labels, centres = cv2.kmeans(
        sample.astype(np.float32), k, None, criteria, p.kmeans_attempts, cv2.KMEANS_PP_CENTERS
    )
    # A table colour runs along at least two sides of the photo; a tile or an object
    # touching one side only must not become "table".
    labels = labels.ravel()
    share = np.zeros((k, 4))
    for s in range(4):
        in_side = labels[side_of == s]
        share[:, s] = np.bincount(in_side, minlength=k) / max(len(in_side), 1)
    keep = ((share >= p.side_share).sum(axis=1) >= p.min_sides) | (
        share.mean(axis=1) >= p.border_share
    )
    centres = centres[keep]
    # Distances through lookup tables over quantised Lab (32 levels a channel), computed
    # for the levels present only.
    q = np.right_shift(np.asarray(lab8, dtype=np.int32), 3)
    index = (q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]
    present = np.flatnonzero(np.bincount(index.ravel(), minlength=1 << 15))
    table = np.zeros((2, 1 << 15), np.float32)
    table[0, present] = _distance_table(present, centres, p)
    table[1, present] = _distance_table(present, _lit_variants(centres, p), p)
    dist, lit_dist = table[0][index], table[1][index]
    # On a table of one colour any other colour is a tile, however dark: a forest square
    # in the shade of a black cutting mat is within the colour distance of the mat.
    colour = colour_off_table(lab, np.concatenate(sides), p)
    lifted = p.tile_distance + p.off_colour_lift
    dist = np.where(colour, np.maximum(dist, lifted), dist)
    lit_dist = np.where(colour, np.maximum(lit_dist, lifted), lit_dist)
    mask = (dist > p.tile_distance).astype(np.uint8) * 255
    lit_mask = (lit_dist > p.tile_distance).astype(np.uint8) * 255
    found_any = bool(mask.mean() > 255 * p.found_share)
    return TileMaps(dist, lit_dist, mask, lit_mask, found_any)


def lab(image: np.ndarray) -> np.ndarray:
    """A BGR uint8 image in float Lab, through OpenCV's 8-bit conversion."""
    return _lab8_to_float(cv2.cvtColor(image, cv2.COLOR_BGR2LAB))


def colour_off_table(lab: np.ndarray, border: np.ndarray, p: TableParams) -> np.ndarray:
    """Where a photo of a table of one colour shows another colour, however dark (boolean mask).

    ``lab`` is the work image in float Lab and ``border`` the Lab values of its
    border band. Shade darkens a table but keeps its hue: in the a*b* plane its
    pixels stay near grey (a grey table) or near the line from grey through the
    table's median colour (a coloured table; if the camera clipped a channel, in
    the wedge between that line and the line through its truest colour,
    :func:`_shade_tints`). A pixel far off them is a tile, however close to the
    table in lightness. On a coloured table only pixels no lighter than the
    table's median count: glare there moves the table's colour off the line.
    Nothing is marked on a table of many colours.

    The distance is averaged over a small window (tile artwork is speckled where it
    is dark) and the mask is then shrunk by half the window, so that it does not
    spill over a tile's edge onto the table.
    """
    a, b = lab[..., 1], lab[..., 2]
    spread = float(quantile(np.hypot(border[:, 1], border[:, 2]), p.spread_quantile / 100))
    if spread <= p.table_spread:
        away = np.hypot(a, b)
    else:
        tints = _shade_tints(median(border, axis=0), p)
        off = _off_wedge(border[:, 1], border[:, 2], tints)
        spread = float(quantile(off, p.spread_quantile / 100))
        if spread > p.table_spread:
            return np.zeros(lab.shape[:2], bool)
        lighter = lab[..., 0] > float(median(border[:, 0]))
        away = np.where(lighter, 0.0, _off_wedge(a, b, tints))
    window = (p.colour_window, p.colour_window)
    smooth = cv2.blur(away.astype(np.float32), window)
    coloured = (smooth > spread + p.off_table_colour).astype(np.uint8)
    return np.asarray(cv2.erode(coloured, np.ones(window, np.uint8)) > 0)


def table_texture_map(work: np.ndarray, p: TableParams) -> TableTexture | None:
    """The table's fine pattern, or None when the table shows too little of one.

    A cutting mat's printed lines, a carpet's or a cloth's specks cover the
    table densely, in shadow as in light, where a tile's artwork at the same
    scale is smooth or sparsely marked: a blue lake on a blue mat differs by
    its lack of lines, not by its colour. The thin bright parts are measured
    against the local lightness, so shade does not hide them. A pattern that
    does not cover the whole border evenly (wood grain) is no cue.
    """
    lightness = cv2.cvtColor(work, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (p.ridge_side, p.ridge_side))
    tophat = lightness - cv2.morphologyEx(lightness, cv2.MORPH_OPEN, kernel)
    local = cv2.blur(lightness, (3 * p.ridge_side, 3 * p.ridge_side))
    ridges = (tophat > np.maximum(p.ridge_floor, p.ridge_contrast * local)).astype(np.float32)
    top, bottom, left, right = _border_bands(ridges, p)
    sides = (top, bottom, left.T, right.T)  # each band × its length
    density = float(median([side.mean() for side in sides]))
    if density < p.min_table_ridges:
        return None
    # The pattern must cover the whole table: wood grain comes and goes.
    block = p.border_block
    blocks = [
        side[:, i : i + block].mean()
        for side in sides
        for i in range(0, side.shape[1] - block + 1, block)
    ]
    if not blocks or quantile(blocks, p.even_quantile / 100) < p.even_pattern * median(blocks):
        return None
    return TableTexture(cv2.blur(ridges, (p.ridge_window, p.ridge_window)), density)


def cell_maps(
    dists: tuple[np.ndarray, np.ndarray],
    quad: np.ndarray,
    shape: tuple[int, int],
    texture: TableTexture | None,
    p: TableParams,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tileness of each square of a grid and of the ring around it: as the colours say,
    with shadow and glare as table too, and each of these where a square without the
    table's pattern counts as tile (see :func:`scorer.detect.extent.fit_extent`).

    ``dists`` are :attr:`TileMaps.dist` and :attr:`TileMaps.lit_dist`; ``shape``
    is ``(rows, columns)``; each map is ``(rows + 2) × (columns + 2)``, ring included.
    """
    tiles = _cell_tileness(dists[0], quad, shape, p)
    lit = _cell_tileness(dists[1], quad, shape, p)
    # The squares without the table's pattern keep an edge row; they do not grow one.
    plain = np.zeros_like(tiles) if texture is None else cell_plainness(texture, quad, shape, p)
    plain[tiles - lit > p.glare_gap] = 0.0
    return tiles, lit, np.fmax(tiles, plain), np.fmax(lit, plain)


def cell_plainness(
    texture: TableTexture, quad: np.ndarray, shape: tuple[int, int], p: TableParams
) -> np.ndarray:
    """How far each square (ring included) lacks the table's pattern, from 0 to 1.

    1 where its ridge density is under ``plain_below`` of the table's, 0 from
    ``patterned_above`` of it up, linear between; NaN outside the photo.
    """
    density = _per_cell(texture.ridges, quad, shape, np.mean, p) / texture.density
    plain, patterned = p.plain_below, p.patterned_above
    return np.clip((patterned - density) / (patterned - plain), 0.0, 1.0)


def _lab8_to_float(lab8: np.ndarray) -> np.ndarray:
    """OpenCV's 8-bit Lab as float Lab: lightness 0-100, a* and b* centred on zero."""
    lab = lab8.astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    return lab


def _border_bands(
    image: np.ndarray, p: TableParams
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bands along the top, bottom, left and right of an image, where the table shows.

    Each is ``border_band`` of the image's shorter side wide, and at least
    ``min_border_band`` pixels.
    """
    h, w = image.shape[:2]
    band = max(p.min_border_band, int(p.border_band * min(h, w)))
    return image[:band], image[-band:], image[:, :band], image[:, -band:]


def _shade_tints(median: np.ndarray, p: TableParams) -> tuple[np.ndarray, np.ndarray]:
    """The two a*b* colours between which a table of median Lab colour ``median`` lies.

    Shade scales a table's colour channels alike and keeps its hue, so its colour
    alone is enough, unless the camera's exposure clipped a channel at full scale:
    then the table's true colour holds more of that channel than it shows, and its
    shade, no longer clipped, shows a truer hue, somewhere up to the colour with
    that channel ``clipped_stretch`` times as strong. Returns the shown colour
    and the truest one (the same colour twice when nothing is clipped).

    >>> from scorer.detect.params import DEFAULT
    >>> grey, same = _shade_tints(np.array([50.0, 0.0, 0.0]), DEFAULT.table)
    >>> bool(np.allclose(grey, same))
    True
    >>> shown, truest = _shade_tints(np.array([70.0, 35.0, 55.0]), DEFAULT.table)  # red clipped
    >>> bool(truest[0] > shown[0] + 10)  # redder
    True
    """
    lab = median.reshape(1, 1, 3).astype(np.float32)
    bgr = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)[0, 0]
    clipped = bgr >= p.clipped
    shown = np.asarray(median[1:], dtype=np.float64)
    if not clipped.any() or clipped.all():
        return shown, shown
    truest = np.where(clipped, bgr * p.clipped_stretch, bgr)
    truest = (truest / truest.max()).reshape(1, 1, 3).astype(np.float32)
    return shown, np.asarray(cv2.cvtColor(truest, cv2.COLOR_BGR2Lab)[0, 0, 1:], np.float64)


def _off_wedge(a: np.ndarray, b: np.ndarray, tints: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Distance in the a*b* plane from the wedge of hues between the half-lines from grey
    through the two ``tints`` (0 inside it; see :func:`_off_line`).

    >>> tints = (np.array([1.0, 0.0]), np.array([1.0, 1.0]))
    >>> _off_wedge(np.array([5.0, 5.0, 3.0]), np.array([2.0, -3.0, 1.0]), tints)
    array([0., 3., 0.])
    """
    first, last = tints
    turn = float(first[0] * last[1] - first[1] * last[0])
    if abs(turn) < 1e-9:  # one hue: the wedge is its half-line
        return _off_line(a, b, first)
    off = np.minimum(_off_line(a, b, first), _off_line(a, b, last))
    after_first = (first[0] * b - first[1] * a) * turn >= 0
    before_last = (a * last[1] - b * last[0]) * turn >= 0
    ahead = a * (first[0] + last[0]) + b * (first[1] + last[1]) > 0
    return np.asarray(np.where(after_first & before_last & ahead, 0.0, off))


def _off_line(a: np.ndarray, b: np.ndarray, tint: np.ndarray) -> np.ndarray:
    """Distance in the a*b* plane from the half-line that starts at grey and runs through
    ``tint``: the colours of a table of that colour in any light.

    >>> _off_line(np.array([6.0, 0.0, -3.0]), np.array([0.0, 5.0, 4.0]), np.array([2.0, 0.0]))
    array([0., 5., 5.])
    """
    unit = tint / max(float(np.hypot(*tint)), 1e-6)
    along = a * unit[0] + b * unit[1]
    return np.asarray(np.where(along >= 0, np.abs(a * unit[1] - b * unit[0]), np.hypot(a, b)))


def _distance_table(index: np.ndarray, centres: np.ndarray, p: TableParams) -> np.ndarray:
    """Distance to the nearest table colour of quantised Lab values; 0 for glare.

    ``index`` packs the three 5-bit levels of each value as ``L << 10 | a << 5 | b``.
    Lightness counts ``lightness_weight`` as much as colour: shadows and glare change it.
    """
    levels = np.stack([index >> 10, (index >> 5) & 31, index & 31], axis=-1) * 8 + 4
    lab = _lab8_to_float(levels.astype(np.uint8)[:, None, :])[:, 0, :]
    weight = np.array([p.lightness_weight, 1.0, 1.0], dtype=np.float32)
    lab_w = lab * weight
    table = np.asarray(centres, np.float32) * weight
    # |x - c|^2 = |x|^2 - 2 x.c + |c|^2, the nearest of all table colours at once.
    d2 = (lab_w**2).sum(axis=1)[:, None] - 2 * lab_w @ table.T + (table**2).sum(axis=1)[None, :]
    dist = np.asarray(np.sqrt(np.maximum(d2.min(axis=1), 0.0)), dtype=np.float32)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    # Glare and white paper are not tiles.
    dist[(lab[:, 0] > p.glare_lightness) & (chroma < p.glare_chroma)] = 0.0
    return dist


def _lit_variants(centres: np.ndarray, p: TableParams) -> np.ndarray:
    """Table colours (float Lab) as they look in shadow and under glare, in float Lab.

    A shadow scales a colour's BGR down; glare mixes white into it or adds white light.
    """
    lab8 = np.empty((len(centres), 1, 3), np.float32)
    lab8[:, 0, 0] = centres[:, 0] * 255.0 / 100.0
    lab8[:, 0, 1:] = centres[:, 1:] + 128.0
    bgr = cv2.cvtColor(np.clip(lab8, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)
    bgr = bgr.reshape(-1, 1, 3).astype(np.float32)
    shades = np.array(p.shades, np.float32)[None, :, None]
    whites = np.array(p.glares, np.float32)[None, :, None]
    dark = bgr * shades
    bright = bgr + (255.0 - bgr) * whites
    lit = bgr + np.array(p.glare_light, np.float32)[None, :, None]
    variants = np.concatenate([dark, bright, lit], axis=1).reshape(-1, 1, 3)
    out = cv2.cvtColor(np.clip(variants, 0, 255).astype(np.uint8), cv2.COLOR_BGR2LAB)
    return np.asarray(_lab8_to_float(out)[:, 0, :], dtype=np.float32)


def _cell_tileness(
    dist: np.ndarray, quad: np.ndarray, shape: tuple[int, int], p: TableParams
) -> np.ndarray:
    """Share of each square (and of a ring of squares around the grid) unlike the table.

    NaN where a square falls outside the photo.
    """
    least = p.cell_tile_distance
    return _per_cell(dist, quad, shape, lambda cell: float((cell > least).mean()), p)


def _per_cell(
    values: np.ndarray,
    quad: np.ndarray,
    shape: tuple[int, int],
    measure: Callable[[np.ndarray], float],
    p: TableParams,
) -> np.ndarray:
    """``measure`` of the non-negative ``values`` inside each square, and a ring around the grid.

    Each square is warped to ``cell_px`` pixels a side. NaN where a square falls outside the photo.
    """
    rows, cols = shape
    px = p.cell_px
    # The grid's corners one square in from the canvas's, a ring of squares around it.
    g = cv2.getPerspectiveTransform((grid_corners(shape) + 1) * px, quad.astype(np.float32))
    size = ((cols + 2) * px, (rows + 2) * px)
    warped = cv2.warpPerspective(
        values,
        g,
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=-1.0,
    )
    out = np.full((rows + 2, cols + 2), np.nan)
    m = px // p.cell_inset
    for r in range(rows + 2):
        for c in range(cols + 2):
            cell = warped[r * px + m : (r + 1) * px - m, c * px + m : (c + 1) * px - m]
            valid = cell >= 0
            if valid.mean() > p.cell_inside:
                out[r, c] = measure(cell[valid])
    return out
