"""Hard photo conditions for synthetic scenes: framing, light, occluders, camera, tables.

A :class:`Condition` is a frozen description handed to
:func:`scorer.lab.synth.make_scene`; each field left at its default keeps the scene's
ordinary random draw. :data:`CONDITIONS` names the ones the condition matrix
(:mod:`scorer.lab.matrix`) measures. The image effects here work on the photo after
the camera, in photo pixels.

>>> CONDITIONS["dim_warm"].light is Light.DIM_WARM
True
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

import cv2
import numpy as np

from scorer.detect import grid_homography
from scorer.rules.kingdom import Position

_Rng = np.random.Generator
_Image = np.ndarray

TABLES: Final = ("checked", "striped", "felt", "pine", "dark_wood")
"""Tables a condition may ask for beyond :data:`scorer.lab.synth.BACKGROUNDS`."""

HIDDEN_SHARE: Final = 0.2
"""Share of a square's area under glare or a hand from which it counts as hidden."""

WASHED: Final = 0.85
"""Glare strength (0 none, 1 pure white) from which a pixel counts as washed out."""


class Light(enum.Enum):
    """A light that colours and exposes the whole photo."""

    DIM_WARM = "dim warm"
    """A lamp in the evening: under-exposed, orange, noisy."""
    HARSH = "harsh"
    """Direct sun or a spot: high contrast, highlights clipped."""
    COOL = "cool"
    """Fluorescent tubes: a blue-green cast."""


@dataclass(frozen=True)
class Condition:
    """One way a photo can be hard, as a recipe for a synthetic scene.

    Attributes
    ----------
    name : str
        The condition's name in the matrix.
    n_kingdoms : int, optional
        Kingdoms in the scene; drawn when None.
    background : str, optional
        The table: one of :data:`scorer.lab.synth.BACKGROUNDS` or :data:`TABLES`.
    remove_cells : bool, optional
        Take squares away from the kingdoms; drawn when None.
    tilt : float, optional
        The camera's tilt from straight down, in degrees; drawn when None.
    megapixels : float, optional
        The photo's size; drawn (about 1 MP) when None.
    kingdom_area : float, optional
        Share of the frame the kingdom covers; drawn when None.
    crop_margin : float, optional
        Crop the photo to the kingdom's bounding box plus this share of its side.
    cut : bool
        Crop one side of the photo through the kingdom, a fraction of a square to
        two squares in.
    light : Light, optional
        Colour and exposure of the light.
    shadow : bool
        A strong shadow across half the kingdom.
    glare : bool
        A washed-out glare spot over about two squares.
    hand : bool
        A skin-coloured hand over a corner square.
    motion_blur : bool
        The camera moved while the photo was taken.
    jpeg_quality : int, optional
        The JPEG quality of the photo; drawn when None.
    clutter : bool
        Other game parts beside the kingdom: loose dominoes, castles, a box lid.
    """

    name: str
    n_kingdoms: int | None = None
    background: str | None = None
    remove_cells: bool | None = None
    tilt: float | None = None
    megapixels: float | None = None
    kingdom_area: float | None = None
    crop_margin: float | None = None
    cut: bool = False
    light: Light | None = None
    shadow: bool = False
    glare: bool = False
    hand: bool = False
    motion_blur: bool = False
    jpeg_quality: int | None = None
    clutter: bool = False

    @property
    def upright(self) -> bool:
        """Whether the kingdom lies nearly square to the frame (needed to crop to it)."""
        return self.crop_margin is not None or self.cut


def _one(name: str, **fields: object) -> Condition:
    """A single-kingdom, complete-kingdom condition (unless told otherwise)."""
    values: dict[str, object] = {"n_kingdoms": 1, "remove_cells": False, **fields}
    return Condition(name, **values)  # type: ignore[arg-type]


CONDITIONS: Final[Mapping[str, Condition]] = MappingProxyType(
    {
        c.name: c
        for c in (
            _one("plain"),
            _one("cropped_edge", crop_margin=0.0),
            _one("margin_3pct", crop_margin=0.03),
            _one("kingdom_15pct", kingdom_area=0.15),
            _one("tilt_35", tilt=35.0),
            _one("tilt_50", tilt=50.0),
            _one("mp_0.3", megapixels=0.3),
            _one("dim_warm", light=Light.DIM_WARM),
            _one("harsh", light=Light.HARSH),
            _one("cool_fluorescent", light=Light.COOL),
            _one("shadow_half", shadow=True),
            _one("glare", glare=True),
            _one("hand", hand=True),
            _one("motion_blur", motion_blur=True),
            _one("jpeg_25", jpeg_quality=25),
            _one("table_checked", background="checked"),
            _one("table_striped", background="striped"),
            _one("table_felt", background="felt"),
            _one("table_pine", background="pine"),
            _one("table_dark_wood", background="dark_wood"),
            _one("two_kingdoms", n_kingdoms=2),
            _one("incomplete", remove_cells=True),
            _one("cut_by_frame", cut=True),
            _one("clutter", clutter=True),
        )
    }
)
"""The conditions of the matrix, by name."""


# --- tables ----------------------------------------------------------------------------------


def condition_table(rng: _Rng, kind: str, w: int, h: int) -> _Image:
    """A table of one of the :data:`TABLES` kinds, BGR uint8 of ``h`` × ``w``."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    v = -xx * np.sin(angle) + yy * np.cos(angle)
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    if kind == "checked":  # gingham: two sets of stripes, the crossings darkest
        step = rng.uniform(15, 45)
        colour = np.array([[60, 60, 200], [160, 80, 30], [50, 140, 50]][rng.integers(3)], float)
        a = (np.mod(u, 2 * step) < step).astype(np.float32)
        b = (np.mod(v, 2 * step) < step).astype(np.float32)
        share = ((a + b) / 2)[..., None]
        img = 235 * (1 - share) + colour * share + 4 * fine[..., None]
    elif kind == "striped":
        step = rng.uniform(8, 35)
        colours = rng.uniform(30, 230, (2, 3))
        on = (np.mod(u, 2 * step) < step)[..., None]
        img = np.where(on, colours[0], colours[1]) + 5 * fine[..., None]
    elif kind == "felt":  # green baize
        base = np.array([rng.uniform(40, 70), rng.uniform(100, 140), rng.uniform(20, 50)])
        blur = cv2.GaussianBlur(fine, (0, 0), 0.8)
        img = base * (1 + 0.08 * blur / (blur.std() + 1e-6))[..., None]
    else:  # pine (pale, yellow, close to wheat) or dark wood
        if kind == "pine":
            base = np.array([rng.uniform(90, 130), rng.uniform(175, 210), rng.uniform(215, 245)])
        else:
            base = np.array([rng.uniform(18, 32), rng.uniform(28, 42), rng.uniform(40, 60)])
        warp = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 20)
        warp *= 300 / (warp.std() + 1e-6)
        grain = np.sin((u + warp) / rng.uniform(3, 9)) * 0.5 + 0.5
        knots = np.sin((u + warp) / rng.uniform(30, 60)) * 0.5 + 0.5
        planks = (np.floor(v / rng.uniform(150, 300)) % 2) * rng.uniform(-0.08, 0.08)
        shade = 0.85 + 0.15 * grain + 0.1 * knots + planks
        img = base * shade[..., None] + 2 * fine[..., None]
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


# --- light -----------------------------------------------------------------------------------


def apply_light(rng: _Rng, photo: _Image, light: Light) -> _Image:
    """The photo as the given light and the camera's exposure leave it."""
    img = photo.astype(np.float64)
    if light is Light.DIM_WARM:
        cast = np.array([0.5, 0.75, 1.0]) * rng.uniform(0.95, 1.05, 3)
        img = img * cast * rng.uniform(0.45, 0.6)
        img = img + rng.normal(0, rng.uniform(2, 5), img.shape)
    elif light is Light.HARSH:
        mean = img.mean()
        img = (img - mean) * rng.uniform(1.4, 1.7) + mean * rng.uniform(1.1, 1.3)
        img = img * np.array([0.95, 1.0, 1.05])
    else:
        img = img * np.array([1.15, 1.07, 0.82]) * rng.uniform(0.95, 1.05, 3)
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def half_shadow(rng: _Rng, photo: _Image, corners: np.ndarray) -> _Image:
    """A hard-edged shadow over one half of the kingdom at ``corners`` (and the table
    beyond), its edge through the kingdom's centre at a random angle."""
    h, w = photo.shape[:2]
    centre = corners.mean(axis=0)
    side = float(np.linalg.norm(corners[1] - corners[0]))
    angle = rng.uniform(0, 2 * np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = (xx - centre[0]) * np.cos(angle) + (yy - centre[1]) * np.sin(angle)
    soft = max(1.0, 0.01 * side)
    mask = 1 / (1 + np.exp(-d / soft))
    dark = rng.uniform(0.3, 0.45)
    tint = np.array([1.08, 1.0, 0.92])  # the sky-lit shadow is bluer
    factor = 1 - (1 - dark * tint) * mask[..., None]
    return np.asarray(np.clip(photo * factor, 0, 255), dtype=np.uint8)


# --- occluders -------------------------------------------------------------------------------


def glare_spot(
    rng: _Rng, photo: _Image, corners: np.ndarray, shape: tuple[int, int]
) -> tuple[_Image, np.ndarray]:
    """A washed-out glare spot over two neighbouring squares of the grid at ``corners``.

    Returns the photo and the glare's strength per pixel (0 none, 1 pure white).
    """
    rows, cols = shape
    r, c = int(rng.integers(rows)), int(rng.integers(cols))
    dr, dc = (0, 1) if rng.random() < 0.5 else (1, 0)
    if r + dr >= rows or c + dc >= cols:
        r, c = r - dr, c - dc
    grid = np.array([[c + 0.5 + dc / 2, r + 0.5 + dr / 2], [c + 0.5 + dc, r + 0.5 + dr]])
    pts = _to_photo(grid_homography(corners, shape), grid)
    centre, along = pts[0], pts[1] - pts[0]  # from the pair's middle to a square's centre
    square = 2 * float(np.linalg.norm(along)) + 1e-6
    h, w = photo.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ux, uy = 2 * along / square
    a = (xx - centre[0]) * ux + (yy - centre[1]) * uy
    b = -(xx - centre[0]) * uy + (yy - centre[1]) * ux
    spread = np.exp(-0.5 * ((a / (0.75 * square)) ** 2 + (b / (0.42 * square)) ** 2))
    strength = np.clip(1.8 * spread, 0, 1).astype(np.float32)
    white = np.array([245.0, 250.0, 255.0])
    out = photo * (1 - strength[..., None]) + white * strength[..., None]
    return np.asarray(np.clip(out, 0, 255), dtype=np.uint8), strength


def hand_over_corner(
    rng: _Rng, photo: _Image, corners: np.ndarray, shape: tuple[int, int], avoid: Position
) -> tuple[_Image, np.ndarray]:
    """A skin-coloured hand reaching in from outside over one corner square of the grid.

    ``avoid`` is a square (the castle) whose corner is not chosen when another is
    free. Returns the photo and the hand's mask (1 where the hand is).
    """
    rows, cols = shape
    options = [(0, 0), (0, cols - 1), (rows - 1, cols - 1), (rows - 1, 0)]
    options = [p for p in options if p != avoid] or options
    r, c = options[int(rng.integers(len(options)))]
    out_r, out_c = (-1 if r == 0 else 1), (-1 if c == 0 else 1)
    grid = np.array(
        [
            [c + 0.5, r + 0.5],  # the corner square's centre
            [c + 0.5 + 0.45 * out_c, r + 0.5 + 0.45 * out_r],  # the palm's centre
            [c + 0.5 + 4 * out_c, r + 0.5 + 4 * out_r],  # the arm, far outside
        ]
    )
    pts = _to_photo(grid_homography(corners, shape), grid)
    square = float(
        np.linalg.norm(
            _to_photo(grid_homography(corners, shape), grid[:1] + np.array([1.0, 0.0]))[0] - pts[0]
        )
    )
    h, w = photo.shape[:2]
    mask = np.zeros((h, w), np.float32)
    palm = tuple(int(v) for v in pts[1])
    direction = np.degrees(np.arctan2(*(pts[2] - pts[1])[::-1]))
    axes = (int(1.05 * square), int(0.75 * square))
    cv2.ellipse(mask, palm, axes, float(direction), 0, 360, 1.0, -1)
    cv2.line(mask, palm, tuple(int(v) for v in pts[2]), 1.0, max(1, int(1.1 * square)))
    for k in (-1.0, -0.35, 0.3, 0.9):  # fingers reaching past the corner square
        tip = pts[0] + (pts[0] - pts[1]) * 1.1
        normal = np.array([-(pts[0] - pts[1])[1], (pts[0] - pts[1])[0]])
        normal /= np.linalg.norm(normal) + 1e-6
        offset = normal * k * 0.35 * square
        cv2.line(
            mask,
            tuple(int(v) for v in pts[1] + offset),
            tuple(int(v) for v in tip + offset * 1.3),
            1.0,
            max(1, int(0.22 * square)),
        )
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), max(0.8, 0.02 * square)), np.float32)
    skin = np.array([rng.uniform(95, 135), rng.uniform(135, 170), rng.uniform(190, 225)])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 0.85 + 0.2 * np.cos((xx * 0.7 + yy * 0.3) / max(square, 1.0))
    skin_img = skin * shade[..., None]
    m = np.array([[1, 0, 0.15 * square], [0, 1, 0.2 * square]], np.float32)
    drop = cv2.GaussianBlur(cv2.warpAffine(mask, m, (w, h)), (0, 0), 0.15 * square + 1)
    img = photo.astype(np.float32) * (1 - 0.5 * drop[..., None])
    img = img * (1 - mask[..., None]) + skin_img * mask[..., None]
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8), mask


def hidden_squares(
    mask: np.ndarray, corners: np.ndarray, shape: tuple[int, int], level: float = 0.5
) -> frozenset[Position]:
    """Squares of the grid at ``corners`` with at least :data:`HIDDEN_SHARE` of their
    area where ``mask`` reaches ``level``.

    >>> m = np.zeros((100, 100), np.float32); m[:, :30] = 1
    >>> sorted(hidden_squares(m, np.array([[0, 0], [100, 0], [100, 100], [0, 100]]), (1, 2)))
    [(0, 0)]
    """
    rows, cols = shape
    per = 16
    scale = np.diag([1 / per, 1 / per, 1.0])
    to_photo = grid_homography(np.asarray(corners, np.float64), shape) @ scale
    flat = cv2.warpPerspective(
        (mask >= level).astype(np.float32),
        np.linalg.inv(to_photo),
        (cols * per, rows * per),
        flags=cv2.INTER_LINEAR,
        borderValue=0.0,
    )
    share = flat.reshape(rows, per, cols, per).mean(axis=(1, 3))
    return frozenset(
        (r, c) for r in range(rows) for c in range(cols) if share[r, c] >= HIDDEN_SHARE
    )


# --- camera ----------------------------------------------------------------------------------


def motion_blur(rng: _Rng, photo: _Image) -> _Image:
    """A straight smear of 0.8% to 1.5% of the photo's long side, in a random direction."""
    length = max(3, int(rng.uniform(0.008, 0.015) * max(photo.shape[:2])))
    return smear(photo, length, rng.uniform(0, 180))


def smear(image: _Image, length: int, angle: float) -> _Image:
    """``image`` moved ``length`` pixels along ``angle`` (degrees) while it was exposed."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    kernel = np.asarray(cv2.warpAffine(kernel, turn, (length, length)), np.float32)
    kernel /= kernel.sum()
    return np.asarray(cv2.filter2D(image, -1, kernel), dtype=np.uint8)


def crop_box(
    corners: np.ndarray, size: tuple[int, int], margin: float, cut: bool, rng: _Rng
) -> tuple[int, int, int, int]:
    """The part of the photo kept: ``(x0, y0, x1, y1)``.

    Around the kingdom at ``corners`` with ``margin`` times its side on each side; with
    ``cut``, one side (drawn) passes through the kingdom between 0.4 and 1.5 squares in
    (for a 5-square side) and the others keep 3% to 10%.
    """
    w, h = size
    side = float(np.mean([np.linalg.norm(corners[(i + 1) % 4] - corners[i]) for i in range(4)]))
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    if cut:
        pads = rng.uniform(0.03, 0.1, 4) * side
        which = int(rng.integers(4))
        pads[which] = -rng.uniform(0.08, 0.3) * side
    else:
        pads = np.full(4, margin * side)
    x0 = int(np.floor(max(0.0, lo[0] - pads[0])))
    y0 = int(np.floor(max(0.0, lo[1] - pads[1])))
    x1 = int(np.ceil(min(float(w), hi[0] + pads[2])))
    y1 = int(np.ceil(min(float(h), hi[1] + pads[3])))
    return x0, y0, x1, y1


def _to_photo(h: np.ndarray, grid: np.ndarray) -> np.ndarray:
    pts = cv2.perspectiveTransform(grid.reshape(-1, 1, 2).astype(np.float64), h)
    return np.asarray(pts.reshape(-1, 2), np.float64)
