"""Find kingdoms in a photo and rectify each to a canonical image of equal squares.

Detection works on a downscaled copy of the photo:

1. a dim photo's exposure and white balance are evened (:mod:`scorer.detect.light`);
   a colour model of the table is learnt from the photo's border, and every
   pixel far from it is taken as tile (:mod:`scorer.detect.table`);
2. each large connected area of tiles becomes a few quadrilaterals, their
   sides snapped onto the strongest edges near them
   (:mod:`scorer.detect.outlines`, :mod:`scorer.detect.seams`);
3. each quadrilateral is warped to a square and the grid shape (rows, columns)
   is read from the periodic seams between the squares; where no outline of an
   area shows a clear grid (shadow breaks it into pieces), outlines are moved
   onto the seams, and grids are laid on the lattice of the seams and edges
   inside it (:mod:`scorer.detect.lattice`);
4. the chosen grid is grown or shrunk by whole rows to cover the tiles
   (:mod:`scorer.detect.extent`);
5. every candidate passes one check: inside the photo, not a grid inside a
   larger area of tiles, not overlapping a kingdom kept before it
   (:mod:`scorer.detect.plausible`);
6. more hypotheses, for reading to weigh (:mod:`scorer.read.verify`): where the grid
   chosen is not a kingdom's square (a hand or a shadow joined to the tiles stretches
   every outline), the lattice's grids moved onto the seams; the grids of the tile
   mask with its holes filled, where squares that look like the table broke a kingdom
   into pieces (:func:`scorer.detect.outlines.filled`); and for a photo colourful
   nearly all over, the whole frame.

:func:`rectify` then crops each kingdom from the full-resolution photo, so no
detail is lost. Rows run from the side nearest the top of the photo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from scorer.detect.extent import settle
from scorer.detect.geometry import (
    BoardLocation,
    check_corners,
    grid_corners,
    kingdom_grids,
    marked_quad,
    same_squares,
    square_of,
)
from scorer.detect.lattice import onto_seams, seam_lattice_guesses, too_bare
from scorer.detect.light import balanced
from scorer.detect.outlines import (
    candidate_quads,
    choose,
    distinct,
    filled,
    has_quad,
    rivals,
    same_outline,
)
from scorer.detect.params import DEFAULT, DetectParams, PlausibleParams
from scorer.detect.plausible import apart, inside_photo, overlap_area, overlapping, plausible
from scorer.detect.seams import locate, one_axis_clear, refine_quad
from scorer.detect.table import lab
from scorer.detect.view import View
from scorer.i18n import _
from scorer.rules.errors import BoardNotFoundError, GridNotConsistentError
from scorer.rules.kingdom import KINGDOM_SIDES, MAX_SIZE


def find_kingdoms(
    image: np.ndarray,
    *,
    corners: np.ndarray | list[list[float]] | list[tuple[float, float]] | None = None,
    grid: int | None = None,
    params: DetectParams = DEFAULT,
) -> list[BoardLocation]:
    """Find every kingdom in a photo.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        BGR photo, any size.
    corners : array-like of shape (4, 2), optional
        Corners marked by the player, in any order; detection is skipped.
    grid : int, optional
        Force a square grid of this side (5 or 7) instead of measuring it.
    params : DetectParams, optional
        The tuned values to detect with (:data:`scorer.detect.params.DEFAULT`).

    Returns
    -------
    list of BoardLocation
        Ordered left to right, then top to bottom.

    Raises
    ------
    BoardNotFoundError
        No kingdom-sized area of tiles is in the photo.
    GridNotConsistentError
        Tiles were found but no consistent grid of equal squares fits them.
    """
    _check_image(image, params.work.min_photo_side)
    if grid is not None and not params.min_side <= grid <= MAX_SIZE:
        raise ValueError(f"grid must be between {params.min_side} and {MAX_SIZE}, not {grid}")
    work, scale = _downscale(image, params.work.side)
    if min(work.shape[:2]) < params.work.min_side:
        raise BoardNotFoundError(
            _(
                "no kingdom-sized area of tiles found: the image is {width}×{height} px, too "
                "narrow to hold a kingdom",
                width=image.shape[1],
                height=image.shape[0],
            )
        )
    view = View(balanced(work, params.light), grid, params)
    if corners is not None:
        w = params.work
        squares = grid or params.min_side
        quad = marked_quad(corners, image.shape, squares, w.corner_margin, w.min_marked_square)
        check_corners(quad * scale, params.work.min_side)
        location = locate(view, quad * scale, require_grid=False)
        assert location is not None
        return [_to_original(location, scale)]

    areas = candidate_quads(view.tiles.mask, view.tiles.lit_mask, params.outlines)
    locations: list[BoardLocation] = []
    faint: list[BoardLocation] = []
    for quads in areas:
        found = _kingdom_in(view, quads)
        if found is not None:
            located, clear = found
            (locations if clear else faint).append(located)
    # Every candidate passes one check (:mod:`.plausible`); a faint grid is a kingdom
    # only where no clear grid overlaps it.
    check = params.plausible
    mask = view.tiles.lit_mask
    locations = apart(
        [
            _with_plausible_alternatives(view, loc, mask, check)
            for loc in locations + faint
            if plausible(loc, mask, check)
        ],
        check.max_overlap,
    )
    locations = _with_filled_outlines(view, locations)
    locations = _with_whole_frame(view, locations)
    if not locations:
        if areas:
            raise GridNotConsistentError(
                _(
                    "found tiles but no consistent grid: the seams between the squares do not "
                    "line up into equal squares"
                )
            )
        else:
            if view.tiles.found_any:
                raise BoardNotFoundError(_("no kingdom-sized area of tiles found"))
            raise BoardNotFoundError(
                _(
                    "no kingdom-sized area of tiles found (the photo shows no colourful tiles "
                    "apart from the table)"
                )
            )
    return [_to_original(loc, scale) for loc in _reading_order(locations)]


def rectify(
    image: np.ndarray, location: BoardLocation, square_px: int = DEFAULT.square_px
) -> np.ndarray:
    """Warp one kingdom to a canonical top-down image.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3)
        The full-resolution BGR photo the location was found in.
    location : BoardLocation
        The kingdom's corners and grid shape.
    square_px : int
        Side of one square in the output.

    Returns
    -------
    ndarray of shape (rows * square_px, cols * square_px, 3)
        BGR image; row 0 is the side nearest the top of the photo.
    """
    rows, cols = location.shape
    out_w, out_h = cols * square_px, rows * square_px
    corners = np.asarray(location.corners, dtype=np.float64)
    # Warp at up to three times the output size, then average down, so fine
    # texture of a large photo is not aliased away; the cost follows the output.
    side_px = float(
        max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[0]))
    )
    k = int(np.clip(np.ceil(side_px / max(out_w, out_h)), 1, 3))
    dst = np.array(
        [[0, 0], [out_w * k, 0], [out_w * k, out_h * k], [0, out_h * k]], dtype=np.float32
    )
    h = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    warped = cv2.warpPerspective(
        image, h, (out_w * k, out_h * k), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if k > 1:
        warped = cv2.resize(warped, (out_w, out_h), interpolation=cv2.INTER_AREA)
    return np.asarray(warped, dtype=np.uint8)


def _kingdom_in(view: View, quads: Sequence[np.ndarray]) -> tuple[BoardLocation, bool] | None:
    """The kingdom in one area of tiles, given its candidate outlines, and whether its grid
    is clear; None when no outline shows a grid.

    Each outline is snapped onto the edges and measured; where none shows a clear
    grid, each is moved onto the seams inside it, and failing that grids are laid
    on the lattice of the seams themselves (one with many squares of bare table is
    a lattice in the table's grain). A faint grid counts when it is clear along
    one axis. Outlines nearly as clear as the chosen one are kept as its
    alternatives.
    """
    params, grid = view.params, view.grid
    min_seam = params.seams.min_seam_score
    lit_mask = view.tiles.lit_mask
    refined: list[np.ndarray] = []
    for q in quads:
        r = refine_quad(view, q)
        # Outlines often snap onto the same edges.
        if not has_quad(refined, r, params.outlines, params.outlines.same_refined_px):
            refined.append(r)
    tried = [locate(view, q, require_grid=False) for q in refined]
    if all(loc is None or loc.score < min_seam for loc in tried):
        # No outline of this area shows a clear grid: move each onto the seams inside it.
        tried = [loc and onto_seams(view, loc) for loc in tried]
    best = choose(tried, lit_mask, params)
    located: BoardLocation | None = None
    if best.score < min_seam:
        # Still none: lay grids on the lattice of the seams themselves.
        guessed = _lattice_guesses(view, quads)
        guess = choose([*tried, *guessed], lit_mask, params)
        if any(guess is g for g in guessed):
            laid = settle(view, guess)
            if not too_bare(laid, params.lattice):
                best, located = guess, laid
                tried += guessed
    elif grid is None and not square_of(best.shape, KINGDOM_SIDES):
        # A clear grid short of a kingdom's square may be an outline that something joined
        # to the tiles (a hand, a shadow) stretched or cut, and then the kingdom's own grid
        # shows clearer seams: the grids of the lattice whose seams, once moved onto them,
        # are clearer than the chosen outline's are more hypotheses for reading to weigh.
        tried += [
            moved
            for loc in _lattice_guesses(view, quads)
            if (moved := onto_seams(view, loc)) is not loc and moved.score > best.score
        ]
    clear = grid is not None or best.score >= min_seam
    if not clear and not one_axis_clear(view, best):
        return None
    if located is None:
        located = settle(view, best)
    others = rivals(tried, best, params.outlines) if grid is None else []
    if others:
        settled = [settle(view, o) for o in others]
        located = replace(located, alternatives=distinct(located, settled, params.outlines))
    return located, clear


def _lattice_guesses(view: View, quads: Sequence[np.ndarray]) -> list[BoardLocation]:
    """The grids laid on the lattice of an area's seams and edges
    (:func:`scorer.detect.lattice.seam_lattice_guesses`), snapped and measured."""
    guesses = seam_lattice_guesses(view, quads, view.tiles.lit_mask)
    located = (locate(view, refine_quad(view, q), require_grid=False) for q in guesses)
    return [loc for loc in located if loc is not None]


def _check_image(image: np.ndarray, min_side: int) -> None:
    """Refuse what is not a BGR uint8 image, or is too small to hold a kingdom."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 image of shape (H, W, 3), got {image.shape}")
    if min(image.shape[:2]) < min_side:
        raise BoardNotFoundError(
            _(
                "no kingdom-sized area of tiles found: the image is only {width}×{height} px",
                width=image.shape[1],
                height=image.shape[0],
            )
        )


def _downscale(image: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    """The image shrunk so its longest side is at most ``side``, and the scale applied."""
    scale = min(1.0, side / max(image.shape[:2]))
    if scale >= 1.0:
        return image, 1.0
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return small.astype(np.uint8), scale


def _to_original(location: BoardLocation, scale: float) -> BoardLocation:
    """A location found in the work image, its alternatives too, in the photo's pixels."""
    return replace(
        location,
        corners=location.corners / scale,
        alternatives=tuple(_to_original(a, scale) for a in location.alternatives),
    )


def _with_whole_frame(view: View, locations: list[BoardLocation]) -> list[BoardLocation]:
    """The kingdoms found, with the whole frame as more hypotheses for a cropped photo.

    A photo cropped to a kingdom has its edges at the kingdom's sides, so the table
    model learnt from its border sees tiles as table and the outlines fall inside
    the kingdom. Where the photo is colourful nearly all over, the frame as it is
    and with its sides snapped onto the nearest edges are measured like any outline
    (:func:`_whole_frames`). When nothing else was found the clearer is the kingdom
    and the other its alternative; otherwise both join the kingdom they overlap most
    as its first alternatives, and reading decides (:mod:`scorer.read.verify`): on a
    table of printed lines the frame's seams can be clearer than the kingdom's.
    """
    # The clearer first: of two hypotheses that read alike, reading keeps the earlier.
    frames = sorted(_whole_frames(view), key=lambda loc: -loc.score)
    if not frames:
        return locations
    limit = view.params.outlines.max_alternatives
    if not locations:
        first, *rest = frames
        if first.score < view.params.seams.min_seam_score:
            return []
        return [replace(first, alternatives=tuple(rest))]
    i = int(np.argmax([overlap_area(frames[0], loc) for loc in locations]))
    found = locations[i]
    alternatives = (*frames, *found.alternatives)[:limit]
    return [
        replace(loc, alternatives=alternatives) if j == i else loc
        for j, loc in enumerate(locations)
    ]


def _with_filled_outlines(view: View, locations: list[BoardLocation]) -> list[BoardLocation]:
    """The kingdoms found, with the clear grids of the filled tile mask as more hypotheses.

    Where squares look like the table, the mask breaks a kingdom into pieces and its
    outlines fall on parts of it (:func:`scorer.detect.outlines.filled`). Each clear,
    plausible grid of the filled mask that is not already an outline of a kingdom found
    becomes the first alternative of the kingdom it overlaps most, for reading to weigh
    (:mod:`scorer.read.verify`), or a kingdom of its own where it overlaps none. An area
    whose every outline is a grid found already (:func:`_same_grid`; most photos) is not
    measured again.
    """
    params = view.params
    check, limit = params.plausible, params.outlines.max_alternatives
    mask = view.tiles.lit_mask
    out = list(locations)
    for quads in candidate_quads(filled(view.tiles.mask, params.outlines), None, params.outlines):
        known = [o for loc in out for o in (loc, *loc.alternatives)]
        if all(any(_same_grid(q, o) for o in known) for q in quads):
            continue  # every outline of the area is a grid found already: nothing new
        found = _kingdom_in(view, quads)
        if found is None or not found[1] or not plausible(found[0], mask, check):
            continue
        loc = replace(found[0], alternatives=())
        near = [i for i, other in enumerate(out) if overlapping(loc, other, check.max_overlap)]
        if not near:
            out.append(loc)
            continue
        i = max(near, key=lambda j: overlap_area(loc, out[j]))
        if any(same_outline(loc, o, params.outlines) for o in (out[i], *out[i].alternatives)):
            continue
        out[i] = replace(out[i], alternatives=(loc, *out[i].alternatives)[:limit])
    return out


def _same_grid(quad: np.ndarray, loc: BoardLocation) -> bool:
    """Whether ``quad``'s corners, carried into ``loc``'s grid of squares, round to that
    grid's four corners (in any order): an outline within half a square of every corner
    of a kingdom found has its rows and columns, and refines onto the same seams."""
    grid = grid_corners(loc.shape)
    h = cv2.getPerspectiveTransform(loc.corners.astype(np.float32), grid)
    carried = cv2.perspectiveTransform(quad.astype(np.float32).reshape(-1, 1, 2), h)
    return {tuple(p) for p in np.rint(carried.reshape(-1, 2)).astype(int)} == {
        tuple(p) for p in grid.astype(int)
    }


def _whole_frames(view: View) -> list[BoardLocation]:
    """The photo's frame as a kingdom, as it is and snapped onto the edges near it, when
    the photo is colourful nearly all over.

    Each is kept where a grid is measured in it and its corners lie in the photo;
    none when the photo's shape or colours rule out a kingdom filling it. They are
    not settled by the row rules: the table model learnt from a border of tiles takes
    tiles for table, and those rules would cut rows of the kingdom.
    """
    p = view.params.outlines
    h, w = view.work.shape[:2]
    narrowest, widest = p.whole_aspect
    if not narrowest <= w / h <= widest:
        return []
    colours = lab(view.work)
    chroma = np.hypot(colours[..., 1], colours[..., 2])
    if (chroma > p.whole_chroma).mean() < p.whole_colourful:
        return []
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    snapped = refine_quad(view, frame)
    found = [locate(view, q, require_grid=True) for q in (frame, snapped)]
    outside = view.params.plausible.outside_squares
    kept = [loc for loc in found if loc is not None and inside_photo(loc, view.work.shape, outside)]
    if len(kept) == 2 and has_quad([kept[0].corners], kept[1].corners, p, p.same_refined_px):
        kept = kept[:1]
    return kept


def _with_plausible_alternatives(
    view: View, location: BoardLocation, mask: np.ndarray, check: PlausibleParams
) -> BoardLocation:
    """The location with those alternatives that pass the same check, and after them the
    square grids a kingdom may have over any of its outlines whose grid no kingdom has
    (:func:`scorer.detect.geometry.kingdom_grids`): inside it, where a hand or a row of table
    taken in with the tiles makes a 6×5 outline round a 5×5 kingdom, and reaching
    ``outlines.grow_rows`` rows beyond it, where a shadow or a patterned
    table hid the seams of the last row and left a 5×4 outline on a 5×5 kingdom. Each side
    is moved onto the edge nearest it (the outline's squares are a little off where it
    spans more or less than the kingdom). Reading weighs them all
    (:mod:`scorer.read.verify`)."""
    kept = [a for a in location.alternatives if plausible(a, mask, check)]
    for outline in (location, *location.alternatives):
        for cut in kingdom_grids(outline, KINGDOM_SIDES, view.params.outlines.grow_rows):
            grid = replace(cut, corners=refine_quad(view, cut.corners))
            if not any(same_squares(grid, k) for k in (location, *kept)) and plausible(
                grid, mask, check
            ):
                kept.append(grid)
    if tuple(kept) == location.alternatives:
        return location
    return replace(location, alternatives=tuple(kept))


def _reading_order(locations: list[BoardLocation]) -> list[BoardLocation]:
    """Sort kingdoms left to right within rows, rows top to bottom."""
    items = sorted(locations, key=lambda loc: float(loc.corners[:, 1].mean()))
    rows: list[list[BoardLocation]] = []
    for loc in items:
        cy = float(loc.corners[:, 1].mean())
        if rows:
            first = rows[-1][0]
            if first.corners[:, 1].min() <= cy <= first.corners[:, 1].max():
                rows[-1].append(loc)
                continue
        rows.append([loc])
    return [loc for row in rows for loc in sorted(row, key=lambda c: float(c.corners[:, 0].mean()))]
