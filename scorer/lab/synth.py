"""Synthetic table photos: labelled boards warped into generated scenes.

Each scene is drawn from an integer seed. Rectified, labelled boards (the
``aau-boards``) are laid on a generated table (wood, cloth, carpet, paper or a
cutting mat with printed grid lines), some squares removed so the table shows
through, loose dominoes and stray lines placed around them, and the whole
table photographed through a tilted camera with uneven light, shadow, glare,
blur, noise and JPEG compression. The true corners and the labels, in the
photo's orientation, come with the image, so detection and the whole pipeline
can be measured on scenes no one has seen before.

>>> from scorer.lab.synth import demo_board, make_scene
>>> scene = make_scene(3, [demo_board()])
>>> len(scene.kingdoms) >= 1 and scene.image.ndim == 3
True
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np

from scorer.lab import scene_conditions as sc
from scorer.lab.datasets import Board
from scorer.lab.scene_conditions import CONDITIONS, TABLES, Condition, Light
from scorer.read.decoding import domino_tiling
from scorer.rules.kingdom import CASTLE, EMPTY, Kingdom, Position

__all__ = [
    "BACKGROUNDS",
    "CONDITIONS",
    "TABLES",
    "Condition",
    "Light",
    "Scene",
    "SceneKingdom",
    "add_removal_option",
    "degrade",
    "demo_board",
    "make_scene",
]

BACKGROUNDS: Final = ("wood", "cloth", "carpet", "paper", "mat")
"""The kinds of table a scene is laid on."""

_Rng = np.random.Generator
_Image = np.ndarray


@dataclass(frozen=True, eq=False)
class SceneKingdom:
    """One kingdom placed in a scene.

    Attributes
    ----------
    corners : ndarray of shape (4, 2)
        True corners in the scene image: the board's corners carried into the photo
        by the scene's camera, clockwise, from the corner where the side nearest the
        top of the photo starts (the order in which detection reports a kingdom).
    kingdom : Kingdom
        The labels in the photo's orientation; removed squares are empty.
    board : str
        Name of the source board.
    hidden : frozenset of Position
        Squares (in the photo's orientation) that glare or a hand hides from view:
        at least :data:`scorer.lab.scene_conditions.HIDDEN_SHARE` of their area.
    cut : bool
        Whether the photo's edge cuts the kingdom (its corners then lie partly outside).
    """

    corners: np.ndarray
    kingdom: Kingdom
    board: str
    hidden: frozenset[Position] = field(default_factory=frozenset)
    cut: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, columns)`` of the kingdom's grid."""
        return self.kingdom.shape


@dataclass(frozen=True, eq=False)
class Scene:
    """A generated photo and what is in it."""

    image: _Image
    kingdoms: list[SceneKingdom]
    background: str
    seed: int
    condition: Condition | None = None


def make_scene(
    seed: int,
    boards: Sequence[Board],
    *,
    n_kingdoms: int | None = None,
    background: str | None = None,
    remove_cells: bool | None = None,
    condition: Condition | None = None,
    whole_dominoes: bool = False,
) -> Scene:
    """Generate one table photo from a seed.

    Parameters
    ----------
    seed : int
        Everything random in the scene follows from it.
    boards : sequence of Board
        Rectified labelled boards (square cells) to lay out.
    n_kingdoms : int, optional
        Kingdoms in the scene; drawn (mostly one) when not given.
    background : str, optional
        One of :data:`BACKGROUNDS`; drawn when not given.
    remove_cells : bool, optional
        Take some squares away from the kingdoms; drawn when not given.
    condition : Condition, optional
        A hard condition to photograph the scene under
        (:data:`scorer.lab.scene_conditions.CONDITIONS`); its kingdom count, table and
        removal apply where the arguments above are not given. Without one, the
        ordinary random scene.
    whole_dominoes : bool
        Take squares away only as whole dominoes (``_remove_cells``), as a real kingdom
        that was never finished lacks them: an even number of bare squares. Off, single
        squares go (the training scenes, which only need bare table to show); on, for
        the scenes an evaluation reads. The random draws are the same either way.

    Returns
    -------
    Scene
    """
    if condition is not None:
        n_kingdoms = condition.n_kingdoms if n_kingdoms is None else n_kingdoms
        background = condition.background if background is None else background
        remove_cells = condition.remove_cells if remove_cells is None else remove_cells
    rng = np.random.default_rng(seed)
    for _ in range(20):
        scene = _draw_scene(
            rng, seed, boards, n_kingdoms, background, remove_cells, condition, whole_dominoes
        )
        if scene is not None:
            return scene
    raise RuntimeError(f"could not lay out a scene for seed {seed}")


def add_removal_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--single-squares`` to an evaluation's ``parser``: its scenes' incomplete
    kingdoms then lose single squares, as the draws before 2026-12-08 did, instead of
    whole dominoes (:func:`make_scene`'s ``whole_dominoes``)."""
    parser.add_argument(
        "--single-squares",
        action="store_true",
        help="take single squares away from the incomplete kingdoms, as the draws before "
        "2026-12-08 did (default: whole dominoes, as an unfinished real kingdom)",
    )


def _draw_scene(
    rng: _Rng,
    seed: int,
    boards: Sequence[Board],
    n_kingdoms: int | None,
    background: str | None,
    remove_cells: bool | None,
    condition: Condition | None = None,
    whole_dominoes: bool = False,
) -> Scene | None:
    """One attempt at a scene; None when a kingdom would leave the photo."""
    cond = Condition("drawn") if condition is None else condition
    if n_kingdoms is None:
        n_kingdoms = int(rng.choice([1, 1, 1, 1, 1, 1, 2, 2, 3]))
    if background is None:
        background = str(rng.choice(BACKGROUNDS))
    # The table plane, in its own units; the camera maps it onto the photo.
    out_w, out_h = _photo_size(rng)
    if cond.megapixels is not None:
        scale = np.sqrt(cond.megapixels * 1e6 / (out_w * out_h))
        out_w, out_h = int(np.round(out_w * scale)), int(np.round(out_h * scale))
    tilt = float(rng.uniform(0.0, 45.0))
    if cond.tilt is not None:
        tilt = cond.tilt
    elif cond.upright:
        tilt = float(rng.uniform(0.0, 20.0))
    plane_w = out_w
    plane_h = int(out_h / np.cos(np.radians(tilt)))
    table = _background(rng, background, plane_w, plane_h)
    shadow_of_tiles = np.zeros((plane_h, plane_w), np.float32)

    side = min(plane_w, plane_h)
    if cond.kingdom_area is not None:
        k_side = float(np.sqrt(cond.kingdom_area * plane_w * plane_h))
    elif cond.upright:
        k_side = float(rng.uniform(0.65, 0.8)) * side
    elif n_kingdoms == 1:
        k_side = float(rng.uniform(0.35, 0.75)) * side
    else:
        k_side = float(rng.uniform(0.25, 0.42)) * side
    picked = rng.choice(len(boards), size=n_kingdoms, replace=len(boards) < n_kingdoms)
    occupied: list[tuple[float, float, float]] = []
    placed: list[tuple[np.ndarray, Kingdom, str]] = []
    for i in picked:
        board = boards[int(i)]
        kingdom, alpha = _remove_cells(rng, board, remove_cells, whole_dominoes)
        spot = _free_spot(rng, occupied, k_side, plane_w, plane_h)
        if spot is None:
            if condition is not None:  # a condition's kingdom count is part of its recipe
                return None
            break
        cx, cy = spot
        angle = float(rng.uniform(0, 360))
        if cond.upright:  # nearly square to the frame, so that a crop can follow its edge
            angle = float(rng.integers(4) * 90 + rng.uniform(-5, 5))
        corners = _paste(table, shadow_of_tiles, board.image, alpha, (cx, cy), k_side, angle)
        occupied.append((cx, cy, k_side * 0.75))
        extent, kingdom = _extent(kingdom)
        placed.append((_extent_corners(corners, board.kingdom.shape, extent), kingdom, board.name))

    _distractors(rng, table, shadow_of_tiles, boards, occupied, k_side)
    if cond.clutter:
        _clutter(rng, table, shadow_of_tiles, boards, occupied, k_side)
    table = _tile_shadows(table, shadow_of_tiles, rng)

    h = _camera(rng, plane_w, plane_h, out_w, out_h, None if cond.tilt is None else tilt)
    margin = 0.02 * min(out_w, out_h)
    for corners, _, _ in placed:
        img = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h).reshape(4, 2)
        if (
            (img < margin).any()
            or (img[:, 0] > out_w - margin).any()
            or (img[:, 1] > out_h - margin).any()
        ):
            return None
    photo = cv2.warpPerspective(table, h, (out_w, out_h), borderMode=cv2.BORDER_REFLECT)
    if condition is None:
        photo = _lighting(rng, photo)
        photo = _exposure(rng, photo)
        photo = degrade(rng, photo)
        kingdoms = []
        for corners, kingdom, name in placed:
            img_corners = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h).reshape(4, 2)
            ordered, turned = _photo_orientation(img_corners, kingdom)
            kingdoms.append(SceneKingdom(ordered, turned, name))
        return Scene(photo, kingdoms, background, seed)
    return _photograph(rng, seed, photo, h, placed, background, condition)


def _photograph(
    rng: _Rng,
    seed: int,
    photo: _Image,
    h: np.ndarray,
    placed: list[tuple[np.ndarray, Kingdom, str]],
    background: str,
    cond: Condition,
) -> Scene:
    """Light, occlude, blur, crop and compress a condition's photo; record what it hides."""
    first = cv2.perspectiveTransform(placed[0][0].reshape(-1, 1, 2), h).reshape(4, 2)
    first_kingdom = placed[0][1]
    hidden_mask = np.zeros(photo.shape[:2], np.float32)
    level = 0.5
    if cond.hand:
        photo, hidden_mask = sc.hand_over_corner(
            rng, photo, first, first_kingdom.shape, first_kingdom.castle
        )
    photo = _lighting(rng, photo)
    if cond.shadow:
        photo = sc.half_shadow(rng, photo, first)
    photo = _exposure(rng, photo)
    if cond.light is not None:
        photo = sc.apply_light(rng, photo, cond.light)
    if cond.glare:
        photo, hidden_mask = sc.glare_spot(rng, photo, first, first_kingdom.shape)
        level = sc.WASHED
    if cond.motion_blur:
        photo = sc.motion_blur(rng, photo)
    offset = np.zeros(2)
    if cond.upright:
        margin = 0.0 if cond.crop_margin is None else cond.crop_margin
        x0, y0, x1, y1 = sc.crop_box(first, photo.shape[1::-1], margin, cond.cut, rng)
        photo = np.ascontiguousarray(photo[y0:y1, x0:x1])
        hidden_mask = hidden_mask[y0:y1, x0:x1]
        offset = np.array([x0, y0], np.float64)
    photo = degrade(rng, photo, quality=cond.jpeg_quality)
    kingdoms = []
    for k, (corners, kingdom, name) in enumerate(placed):
        img_corners = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h).reshape(4, 2)
        ordered, turned = _photo_orientation(img_corners - offset, kingdom)
        hidden: frozenset[Position] = frozenset()
        if k == 0 and (cond.glare or cond.hand):
            hidden = sc.hidden_squares(hidden_mask, ordered, turned.shape, level)
        kingdoms.append(SceneKingdom(ordered, turned, name, hidden, cut=cond.cut and k == 0))
    return Scene(photo, kingdoms, background, seed, cond)


def demo_board(seed: int = 0) -> Board:
    """A plain generated 5×5 board (flat colours, dark seams) for tests without data."""
    rng = np.random.default_rng(seed)
    palette = {
        "W0": (40, 200, 230),
        "F0": (40, 90, 30),
        "L0": (200, 120, 30),
        "G0": (60, 200, 120),
        "S0": (110, 150, 170),
        "M0": (40, 50, 60),
        "C": (200, 200, 200),
    }
    tokens = list(palette)[:-1]
    grid = [[str(rng.choice(tokens)) for _ in range(5)] for _ in range(5)]
    grid[2][2] = "C"
    image = np.zeros((500, 500, 3), np.uint8)
    for r in range(5):
        for c in range(5):
            colour = np.array(palette[grid[r][c]], np.float64)
            cell = np.clip(colour + rng.normal(0, 12, (100, 100, 3)), 0, 255)
            image[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = cell.astype(np.uint8)
    for k in range(6):
        image[:, max(0, k * 100 - 2) : k * 100 + 2] //= 3
        image[max(0, k * 100 - 2) : k * 100 + 2, :] //= 3
    kingdom = Kingdom.parse("\n".join(" ".join(row) for row in grid))
    return Board(f"demo{seed}", image, kingdom, f"demo{seed}")


# --- scene parts -------------------------------------------------------------------------------


def _photo_size(rng: _Rng) -> tuple[int, int]:
    long_side = int(rng.uniform(900, 1500))
    ratio = float(rng.choice([4 / 3, 16 / 9, 3 / 2, 1.0]))
    short = int(long_side / ratio)
    return (long_side, short) if rng.random() < 0.5 else (short, long_side)


def _background(rng: _Rng, kind: str, w: int, h: int) -> _Image:
    """A table texture of the given kind (:data:`BACKGROUNDS` or :data:`TABLES`)."""
    if kind in TABLES:
        return sc.condition_table(rng, kind, w, h)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array([rng.uniform(30, 90), rng.uniform(70, 130), rng.uniform(120, 190)])
        angle = rng.uniform(0, np.pi)
        u = xx * np.cos(angle) + yy * np.sin(angle)
        v = -xx * np.sin(angle) + yy * np.cos(angle)
        warp = _smooth_noise(rng, h, w, 25) * 400
        grain = np.sin((u + warp) / rng.uniform(3, 9)) * 0.5 + 0.5
        planks = (np.floor(v / rng.uniform(120, 300)) % 2) * rng.uniform(-0.12, 0.12)
        shade = 0.8 + 0.25 * grain + planks
        img = base * shade[..., None]
    elif kind in ("cloth", "carpet"):
        base = rng.uniform(60, 200) + rng.normal(0, 25, 3)
        if rng.random() < 0.4:  # a coloured cloth
            base = rng.uniform(40, 200, 3)
        sigma = 1.0 if kind == "carpet" else 2.5
        noise = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), sigma)
        mottle = _smooth_noise(rng, h, w, 40)
        amp = 0.35 if kind == "carpet" else 0.12
        shade = 1 + amp * noise / (noise.std() + 1e-6) * 0.5 + 0.1 * mottle
        img = base * shade[..., None]
    elif kind == "paper":
        base = rng.uniform(200, 250) - np.abs(rng.normal(0, 8, 3))
        noise = cv2.GaussianBlur(rng.normal(0, 3, (h, w)).astype(np.float32), (0, 0), 1.2)
        img = base + noise[..., None]
    else:  # a cutting mat with its printed grid
        base = rng.choice([[90.0, 50.0, 20.0], [60.0, 90.0, 30.0], [40.0, 40.0, 40.0]])
        base = base * rng.uniform(0.7, 1.3)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        img += rng.normal(0, 3, (h, w, 1))
        step = rng.uniform(15, 60)
        line = np.array([rng.uniform(180, 240)] * 3)
        angle = rng.uniform(-0.3, 0.3)
        u = xx * np.cos(angle) + yy * np.sin(angle)
        v = -xx * np.sin(angle) + yy * np.cos(angle)
        for coord in (u, v):
            phase = np.mod(coord, step)
            thin = (phase < 1.3).astype(np.float32)
            thick = (np.mod(coord, step * 5) < 2.5).astype(np.float32)
            on = np.maximum(thin, thick)[..., None]
            img = img * (1 - on) + line * on
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def _smooth_noise(rng: _Rng, h: int, w: int, sigma: float) -> np.ndarray:
    """Gaussian noise blurred by ``sigma`` px, unit spread; drawn at low resolution."""
    f = max(1, int(sigma / 4))
    small = rng.normal(0, 1, (h // f + 2, w // f + 2)).astype(np.float32)
    small = np.asarray(cv2.GaussianBlur(small, (0, 0), sigma / f), dtype=np.float32)
    small /= small.std() + 1e-6
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)[:h, :w]


def _remove_cells(
    rng: _Rng, board: Board, remove: bool | None, whole_dominoes: bool = False
) -> tuple[Kingdom, np.ndarray]:
    """Take some squares away; return the labels and an alpha mask of what remains.

    With ``whole_dominoes``, only whole dominoes of the board's tiling go
    (:func:`scorer.read.decoding.domino_tiling`; a board that does not tile loses its
    squares singly): of an outer row or column, the dominoes lying along it; of a few
    border squares, each with the other half of its domino.
    """
    kingdom = board.kingdom
    rows, cols = kingdom.shape
    if remove is None:
        remove = bool(rng.random() < 0.3)
    if remove:
        border = [
            (r, c)
            for r in range(rows)
            for c in range(cols)
            if (r in (0, rows - 1) or c in (0, cols - 1)) and kingdom[r, c] != CASTLE
        ]
        mode = rng.integers(3)
        if mode == 0:  # a whole outer row or column
            r_or_c = [("r", 0), ("r", rows - 1), ("c", 0), ("c", cols - 1)][rng.integers(4)]
            gone = [
                p
                for p in border
                if (r_or_c[0] == "r" and p[0] == r_or_c[1])
                or (r_or_c[0] == "c" and p[1] == r_or_c[1])
            ]
        else:  # a few border squares, maybe a corner
            count = int(rng.integers(1, 4))
            idx = rng.choice(len(border), size=min(count, len(border)), replace=False)
            gone = [border[int(i)] for i in idx]
        pairs = domino_tiling(kingdom) if whole_dominoes else None
        if pairs is not None:
            gone = _whole_dominoes(gone, pairs, along=mode == 0)
        for pos in gone:
            kingdom = kingdom.replace(pos, EMPTY)
    h, w = board.image.shape[:2]
    alpha = np.ones((h, w), np.float32)
    ch, cw = h / rows, w / cols
    for (r, c), cell in kingdom.cells():
        if cell == EMPTY:
            alpha[int(r * ch) : int((r + 1) * ch), int(c * cw) : int((c + 1) * cw)] = 0
    return kingdom, alpha


def _whole_dominoes(
    gone: Sequence[Position], pairs: Sequence[tuple[Position, Position]], *, along: bool
) -> list[Position]:
    """The squares to take away so that only whole dominoes of ``pairs`` go, in order: with
    ``along`` (``gone`` is a line of squares), the dominoes lying wholly in it; otherwise
    each square of ``gone`` with the other half of its domino."""
    partner = {a: b for a, b in pairs} | {b: a for a, b in pairs}
    if along:
        return [pos for pos in gone if partner.get(pos) in gone]
    out: list[Position] = []
    for pos in gone:
        for square in (pos, partner.get(pos)):
            if square is not None and square not in out:
                out.append(square)
    return out


def _extent(kingdom: Kingdom) -> tuple[tuple[int, int, int, int], Kingdom]:
    """The bounding rows/columns of the non-empty squares, and the kingdom cropped to them."""
    filled = [p for p, c in kingdom.cells() if c != EMPTY]
    r0 = min(p[0] for p in filled)
    r1 = max(p[0] for p in filled) + 1
    c0 = min(p[1] for p in filled)
    c1 = max(p[1] for p in filled) + 1
    rows = [list(kingdom.rows[r][c0:c1]) for r in range(r0, r1)]
    return (r0, r1, c0, c1), Kingdom.from_cells(rows)


def _extent_corners(
    corners: np.ndarray, shape: tuple[int, int], extent: tuple[int, int, int, int]
) -> np.ndarray:
    """Corners of a sub-rectangle of cells, given the full board's corners (TL, TR, BR, BL)."""
    rows, cols = shape
    r0, r1, c0, c1 = extent
    tl, tr, _, bl = corners
    ex, ey = (tr - tl) / cols, (bl - tl) / rows
    return np.array([tl + c * ex + r * ey for r, c in ((r0, c0), (r0, c1), (r1, c1), (r1, c0))])


def _free_spot(
    rng: _Rng,
    occupied: list[tuple[float, float, float]],
    k_side: float,
    w: int,
    h: int,
) -> tuple[float, float] | None:
    radius = k_side * 0.75
    margin = radius + 0.04 * min(w, h)
    if 2 * margin >= min(w, h):
        margin = min(w, h) / 2 - 1
    for _ in range(60):
        cx = float(rng.uniform(margin, w - margin))
        cy = float(rng.uniform(margin, h - margin))
        if all(np.hypot(cx - x, cy - y) > radius + r + 0.05 * k_side for x, y, r in occupied):
            return cx, cy
    return None


def _paste(
    table: _Image,
    shadow: np.ndarray,
    image: _Image,
    alpha: np.ndarray,
    centre: tuple[float, float],
    side: float,
    angle: float,
) -> np.ndarray:
    """Lay a board (or piece) on the table; return its corners (TL, TR, BR, BL) on the table."""
    h, w = image.shape[:2]
    scale = side / max(h, w)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    size = (table.shape[1], table.shape[0])
    warped = cv2.warpAffine(image, m, size, flags=cv2.INTER_AREA)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)
    out = table.astype(np.float32) * (1 - a[..., None]) + warped.astype(np.float32) * a[..., None]
    table[...] = np.clip(out, 0, 255).astype(np.uint8)
    shadow[...] = np.maximum(shadow, a)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return src @ m[:, :2].T + m[:, 2]


def _distractors(
    rng: _Rng,
    table: _Image,
    shadow: np.ndarray,
    boards: Sequence[Board],
    occupied: list[tuple[float, float, float]],
    k_side: float,
) -> None:
    """Loose dominoes from other boards and stray lines, kept clear of the kingdoms."""
    h, w = table.shape[:2]
    for _ in range(int(rng.integers(0, 5))):
        _loose_domino(rng, table, shadow, boards, occupied, k_side)
    for _ in range(int(rng.integers(0, 4))):
        colour = tuple(int(v) for v in rng.uniform(0, 255, 3))
        p = rng.uniform([0, 0], [w, h])
        q = p + rng.normal(0, 1, 2) * max(w, h)
        thickness = int(rng.integers(1, 4))
        lines = table.copy()
        cv2.line(lines, tuple(int(v) for v in p), tuple(int(v) for v in q), colour, thickness)
        keep = shadow[..., None] > 0.5
        table[...] = np.where(keep, table, lines)


def _loose_domino(
    rng: _Rng,
    table: _Image,
    shadow: np.ndarray,
    boards: Sequence[Board],
    occupied: list[tuple[float, float, float]],
    k_side: float,
    rows: int | None = None,
) -> None:
    """One domino cut from a random board, laid at a free spot of the table at any angle.

    Its side is two squares of a kingdom ``k_side`` across with ``rows`` rows (the cut
    board's own rows when not given).
    """
    h, w = table.shape[:2]
    board = boards[int(rng.integers(len(boards)))]
    board_rows, board_cols = board.kingdom.shape
    cell = board.image.shape[0] // board_rows
    r, c = int(rng.integers(board_rows)), int(rng.integers(board_cols - 1))
    piece = np.ascontiguousarray(board.image[r * cell : (r + 1) * cell, c * cell : (c + 2) * cell])
    piece_side = k_side / (board_rows if rows is None else rows) * 2
    spot = _free_spot(rng, occupied, piece_side * 0.9, w, h)
    if spot is None:
        return
    alpha = np.ones(piece.shape[:2], np.float32)
    _paste(table, shadow, piece, alpha, spot, piece_side, float(rng.uniform(0, 360)))
    occupied.append((spot[0], spot[1], piece_side * 0.55))


def _clutter(
    rng: _Rng,
    table: _Image,
    shadow: np.ndarray,
    boards: Sequence[Board],
    occupied: list[tuple[float, float, float]],
    k_side: float,
) -> None:
    """Other game parts beside the kingdoms: a box lid's edge, loose dominoes, castles."""
    h, w = table.shape[:2]
    lid_side = int(rng.integers(4))  # the lid lies along one edge of the table
    room = [
        min(x - r for x, _, r in occupied),
        min(y - r for _, y, r in occupied),
        min(w - x - r for x, _, r in occupied),
        min(h - y - r for _, y, r in occupied),
    ][lid_side]
    depth = int(min(0.25 * min(w, h), room - 0.05 * k_side))
    if depth > 10:
        lid = np.zeros((h, w), np.float32)
        box = [(0, 0, depth, h), (0, 0, w, depth), (w - depth, 0, w, h), (0, h - depth, w, h)]
        x0, y0, x1, y1 = box[lid_side]
        lid[y0:y1, x0:x1] = 1.0
        colour = np.array([rng.uniform(60, 120), rng.uniform(30, 60), rng.uniform(10, 40)])
        art = colour + 25 * _smooth_noise(rng, h, w, 12)[..., None]
        rim = np.zeros((h, w), np.float32)
        inset = int(0.05 * depth) + 3
        cv2.rectangle(rim, (x0 + inset, y0 + inset), (x1 - inset, y1 - inset), 1.0, 3)
        art = art * (1 - rim[..., None]) + np.array([40, 170, 220]) * rim[..., None]
        out = table * (1 - lid[..., None]) + art * lid[..., None]
        table[...] = np.clip(out, 0, 255).astype(np.uint8)
        shadow[...] = np.maximum(shadow, lid)
    rows = boards[0].kingdom.shape[0]
    for _ in range(int(rng.integers(3, 6))):  # loose dominoes
        _loose_domino(rng, table, shadow, boards, occupied, k_side, rows)
    for _ in range(int(rng.integers(1, 3))):  # castles: a coloured keep with a darker top
        side = k_side / rows
        keeps = [(170, 90, 230), (40, 200, 230), (60, 170, 60), (200, 120, 40)]
        colour = np.array(keeps[int(rng.integers(4))], np.float64)
        castle = np.zeros((60, 60, 3), np.uint8)
        castle[...] = colour.astype(np.uint8)
        castle[15:45, 15:45] = (colour * 0.6).astype(np.uint8)
        for k in range(0, 60, 15):
            castle[0:6, k : k + 8] = (colour * 0.8).astype(np.uint8)
        spot = _free_spot(rng, occupied, side, w, h)
        if spot is not None:
            alpha = np.ones((60, 60), np.float32)
            _paste(table, shadow, castle, alpha, spot, side, float(rng.uniform(0, 360)))
            occupied.append((spot[0], spot[1], side * 0.7))


def _tile_shadows(table: _Image, tiles: np.ndarray, rng: _Rng) -> _Image:
    """Tiles are thick card: darken the table just beside them."""
    dx, dy = rng.uniform(-6, 6, 2)
    m = np.array([[1, 0, dx], [0, 1, dy]], dtype=np.float32)
    moved = cv2.warpAffine(tiles, m, (tiles.shape[1], tiles.shape[0]))
    moved = cv2.GaussianBlur(moved, (0, 0), 3)
    dark = 1 - 0.45 * np.clip(moved - tiles, 0, 1)
    return np.asarray(np.clip(table.astype(np.float32) * dark[..., None], 0, 255), dtype=np.uint8)


def _camera(
    rng: _Rng, plane_w: int, plane_h: int, out_w: int, out_h: int, tilt: float | None = None
) -> np.ndarray:
    """A homography from the table to the photo: a tilted view, far side at the top.

    The far side is drawn narrower by a random share; with ``tilt`` (degrees) given,
    by the largest share of that range, so the view is as oblique as the tilt allows.
    """
    if tilt is None:
        squeeze = float(rng.uniform(0.0, 0.22)) * out_w * (plane_h / out_h - 1.0) / 0.41
        squeeze = float(np.clip(squeeze, 0, 0.22 * out_w))
    else:
        squeeze = 0.22 * out_w * (plane_h / out_h - 1.0) / 0.41
        squeeze = float(np.clip(squeeze, 0, 0.35 * out_w))
    jitter = rng.normal(0, 0.015 * min(out_w, out_h), (4, 2))
    src = np.array([[0, 0], [plane_w, 0], [plane_w, plane_h], [0, plane_h]], dtype=np.float32)
    dst = np.array(
        [[squeeze, 0], [out_w - squeeze, 0], [out_w, out_h], [0, out_h]], dtype=np.float32
    ) + jitter.astype(np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)


def _lighting(rng: _Rng, photo: _Image) -> _Image:
    """A light gradient, a soft shadow and a glare spot."""
    h, w = photo.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = photo.astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (xx * np.cos(angle) + yy * np.sin(angle)) / max(w, h)
    img *= (rng.uniform(0.7, 1.1) + rng.uniform(-0.35, 0.35) * ramp)[..., None]
    if rng.random() < 0.5:
        mask = np.zeros((h, w), np.float32)
        pts = rng.uniform([0, 0], [w, h], (int(rng.integers(3, 7)), 2)).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(pts)], 1.0)
        mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), rng.uniform(5, 40)), np.float32)
        img *= (1 - rng.uniform(0.2, 0.5) * mask)[..., None]
    if rng.random() < 0.5:
        cx, cy = rng.uniform([0, 0], [w, h])
        r = rng.uniform(0.03, 0.12) * max(w, h)
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        img += (rng.uniform(60, 160) * glare)[..., None]
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def _exposure(rng: _Rng, photo: _Image) -> _Image:
    """A camera's automatic exposure: the bright end of the photo lands near white."""
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    bright = float(np.percentile(gray, 97)) + 1.0
    gain = float(np.clip(rng.uniform(190, 245) / bright, 0.8, 2.5))
    return np.asarray(np.clip(photo.astype(np.float32) * gain, 0, 255), dtype=np.uint8)


def degrade(rng: _Rng, photo: _Image, quality: int | None = None) -> _Image:
    """Blur, sensor noise and JPEG compression: the camera model of every scene.

    :func:`scorer.lab.train.augment` applies it too, to the photo-like copy of a
    square shrunk to the size a photo shows it at.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws the blur, the noise level and the JPEG quality.
    photo : ndarray
        BGR uint8 image.
    quality : int, optional
        The JPEG quality; drawn (35 to 95) when not given.

    Returns
    -------
    ndarray
        The degraded BGR uint8 image, of the same size.
    """
    img = photo
    sigma = float(rng.uniform(0, 1.5))
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    noise = rng.normal(0, rng.uniform(0, 8), img.shape)
    img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    drawn = int(rng.integers(35, 96))
    quality = drawn if quality is None else quality
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)


def _photo_orientation(corners: np.ndarray, kingdom: Kingdom) -> tuple[np.ndarray, Kingdom]:
    """Start the corners at the photo's top side, and turn the labels to match.

    ``corners`` are the label's TL, TR, BR, BL carried through the camera, so they
    run clockwise in the photo too. The side whose middle is highest in the photo
    becomes the first (corner 0 to corner 1); if it starts at the label's corner
    ``k``, the labels are turned clockwise ``(4 - k) % 4`` times.
    """
    if _clockwise(corners) < 0:  # never happens with a camera, kept as a guard
        raise AssertionError("the camera mirrored the table")
    k = int(np.argmin(corners[:, 1] + np.roll(corners[:, 1], -1)))  # side k runs k → k + 1
    for _ in range((4 - k) % 4):
        kingdom = kingdom.rotate()
    return np.roll(corners, -k, axis=0), kingdom


def _clockwise(corners: np.ndarray) -> float:
    a, b, c = corners[0], corners[1], corners[2]
    return float((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
