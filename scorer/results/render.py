"""Pictures for the page: a photo with the found kingdom drawn on it, and a labelled kingdom.

Pure drawing helpers: every function takes arrays and plain values and
returns a new BGR ``uint8`` image; nothing here knows of Streamlit, files or
models.

>>> from scorer.rules.kingdom import Kingdom
>>> picture = draw_kingdom(Kingdom.parse("G0 L1\\nC F0"), cell_px=64)
>>> picture.shape
(128, 128, 3)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.rules.kingdom import Kingdom, Position, Terrain

Image = NDArray[Any]
"""A BGR ``uint8`` image, H×W×3, in OpenCV's convention."""

BGR = tuple[int, int, int]

TERRAIN_COLOURS: Final[Mapping[Terrain, BGR]] = {
    Terrain.WHEAT: (40, 200, 240),
    Terrain.FOREST: (40, 110, 30),
    Terrain.LAKE: (200, 120, 30),
    Terrain.GRASSLAND: (90, 215, 130),
    Terrain.SWAMP: (95, 125, 140),
    Terrain.MINE: (55, 55, 60),
    Terrain.CASTLE: (235, 235, 235),
    Terrain.EMPTY: (205, 215, 225),
}
"""The colour each terrain is drawn in (BGR), close to the tiles' own."""

OUTLINE_COLOUR: Final[BGR] = (60, 220, 60)
"""The found kingdom's outline on the photo (green)."""

DOUBT_COLOUR: Final[BGR] = (200, 40, 230)
"""Doubtful squares are framed in this colour (magenta)."""

EDIT_COLOUR: Final[BGR] = (230, 160, 20)
"""Squares changed by hand are marked with this colour (blue)."""

CROWN_COLOUR: Final[BGR] = (0, 215, 255)
"""Crown icons (gold)."""

_FONT: Final = cv2.FONT_HERSHEY_SIMPLEX
_WHITE: Final[BGR] = (255, 255, 255)
_BLACK: Final[BGR] = (0, 0, 0)


class PropertyLike(Protocol):
    """What drawing needs of a property: its terrain, squares and points."""

    @property
    def terrain(self) -> Terrain: ...  # pragma: no cover

    @property
    def positions(self) -> Collection[Position]: ...  # pragma: no cover

    @property
    def crowns(self) -> int: ...  # pragma: no cover

    @property
    def points(self) -> int: ...  # pragma: no cover


@dataclass(frozen=True)
class Outline:
    """One kingdom found in a photo: its four corners, grid shape and a caption.

    ``corners`` are ``(x, y)`` pixels in the photo, clockwise from the
    kingdom's top-left square; ``shape`` is ``(rows, columns)``.
    """

    corners: Sequence[Sequence[float]] | NDArray[Any]
    shape: tuple[int, int]
    caption: str = ""


def draw_outlines(image: Image, outlines: Iterable[Outline]) -> Image:
    """Return a copy of the photo with each kingdom's outline, grid and caption drawn on it.

    Parameters
    ----------
    image : ndarray
        The photo, BGR ``uint8``.
    outlines : iterable of Outline
        The kingdoms to draw, in the photo's pixel coordinates.

    Returns
    -------
    ndarray
        A new BGR image of the same size.

    Examples
    --------
    >>> photo = np.zeros((100, 100, 3), np.uint8)
    >>> out = draw_outlines(photo, [Outline([(10, 10), (90, 10), (90, 90), (10, 90)], (5, 5))])
    >>> bool(out[10, 50].any()), bool(photo.any())
    (True, False)
    """
    out = image.copy()
    scale = max(out.shape[:2]) / 800
    thick = max(2, round(3 * scale))
    for outline in outlines:
        quad = np.asarray(outline.corners, dtype=np.float64).reshape(4, 2)
        rows, cols = outline.shape
        for a, b in _grid_segments(quad, rows, cols):
            cv2.line(out, a, b, OUTLINE_COLOUR, max(1, thick // 2), cv2.LINE_AA)
        cv2.polylines(
            out, [np.round(quad).astype(np.int32)], True, OUTLINE_COLOUR, thick, cv2.LINE_AA
        )
        if outline.caption:
            x, y = (int(v) for v in np.round(quad[0]))
            _text_box(out, outline.caption, (x, max(0, y - thick)), 0.8 * scale, OUTLINE_COLOUR)
    return out


def draw_kingdom(
    kingdom: Kingdom,
    *,
    board: Image | None = None,
    properties: Iterable[PropertyLike] = (),
    doubtful: Collection[Position] = (),
    edited: Collection[Position] = (),
    cell_px: int = 100,
) -> Image:
    """Draw a kingdom square by square, labelled, with its properties and doubts.

    Each square carries its token (``F1``) on a badge in its terrain's colour
    and one gold crown per crown. Each property is tinted in its terrain's
    colour, outlined, and labelled ``squares×crowns=points``. Doubtful squares
    get a magenta frame and a ``?``; squares changed by hand a blue corner.

    Parameters
    ----------
    kingdom : Kingdom
        What to label.
    board : ndarray, optional
        The rectified photo of the kingdom (BGR); drawn underneath when given,
        otherwise the squares are painted in flat terrain colours.
    properties : iterable of PropertyLike
        The scored properties, each with ``terrain``, ``positions``,
        ``crowns`` and ``points``.
    doubtful, edited : collection of (row, column)
        Squares to highlight as doubtful, and squares corrected by hand.
    cell_px : int
        Side of one square in the picture, in pixels.

    Returns
    -------
    ndarray
        A BGR image of ``rows * cell_px`` × ``columns * cell_px`` pixels.
    """
    rows, cols = kingdom.shape
    h, w = rows * cell_px, cols * cell_px
    out: Image
    if board is None:
        out = np.zeros((h, w, 3), np.uint8)
        for (r, c), cell in kingdom.cells():
            _cell_view(out, (r, c), cell_px)[:] = TERRAIN_COLOURS[cell.terrain]
    else:
        out = cv2.resize(_as_bgr(board), (w, h), interpolation=cv2.INTER_AREA)
    props = list(properties)
    _tint_properties(out, props, cell_px)
    _grid_lines(out, rows, cols, cell_px)
    _outline_properties(out, props, cell_px)
    for pos, cell in kingdom.cells():
        _square_badge(out, pos, cell.token, TERRAIN_COLOURS[cell.terrain], cell_px)
        _crowns(out, pos, cell.crowns, cell_px)
    for pos in edited:
        _edit_mark(out, pos, cell_px)
    for pos in doubtful:
        _doubt_frame(out, pos, cell_px)
    for prop in props:
        _property_label(out, prop, cell_px)
    return out


def cell_at(x: float, y: float, size: tuple[int, int], shape: tuple[int, int]) -> Position | None:
    """Return the square under a click at ``(x, y)`` on a picture of ``size`` (width, height).

    >>> cell_at(150, 20, (500, 500), (5, 5))
    (0, 1)
    >>> cell_at(-3, 20, (500, 500), (5, 5)) is None
    True
    """
    width, height = size
    rows, cols = shape
    if width <= 0 or height <= 0 or not (0 <= x < width and 0 <= y < height):
        return None
    return int(y * rows // height), int(x * cols // width)


def fit_within(image: Image, max_side: int) -> tuple[Image, float]:
    """Shrink an image so its longer side is at most ``max_side``; return it and the scale.

    >>> small, scale = fit_within(np.zeros((400, 200, 3), np.uint8), 100)
    >>> small.shape, scale
    ((100, 50, 3), 0.25)
    """
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    if scale >= 1.0:
        return image, 1.0
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), scale


def crop_around(image: Image, corners: Any, margin: float = 0.15) -> Image:
    """The part of a photo around a kingdom: its corners' box grown by ``margin`` of its size.

    >>> photo = np.zeros((1000, 2000, 3), np.uint8)
    >>> crop_around(photo, [(100, 100), (500, 100), (500, 500), (100, 500)]).shape
    (520, 520, 3)
    """
    quad = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    grow = margin * max(x1 - x0, y1 - y0)
    h, w = image.shape[:2]
    left, top = max(0, int(x0 - grow)), max(0, int(y0 - grow))
    right, bottom = min(w, int(np.ceil(x1 + grow))), min(h, int(np.ceil(y1 + grow)))
    if right <= left or bottom <= top:
        return image
    return image[top:bottom, left:right]


def side_by_side(images: Sequence[Image], height: int = 500, gap: int = 12) -> Image:
    """Join images left to right at one height on a white background, for the PNG export.

    >>> side_by_side([np.zeros((10, 20, 3), np.uint8), np.zeros((20, 20, 3), np.uint8)], 10).shape
    (10, 42, 3)
    """
    scaled = []
    for im in images:
        h, w = im.shape[:2]
        width = max(1, round(w * height / h))
        scaled.append(cv2.resize(_as_bgr(im), (width, height), interpolation=cv2.INTER_AREA))
    total = sum(s.shape[1] for s in scaled) + gap * max(0, len(scaled) - 1)
    out = np.full((height, max(1, total), 3), 255, np.uint8)
    x = 0
    for s in scaled:
        out[:, x : x + s.shape[1]] = s
        x += s.shape[1] + gap
    return out


def to_rgb(image: Image) -> Image:
    """Return the image with its channels in RGB order, for displays that expect it."""
    return np.ascontiguousarray(_as_bgr(image)[:, :, ::-1])


def encode_png(image: Image) -> bytes:
    """Return a BGR image as the bytes of a PNG file."""
    ok, buf = cv2.imencode(".png", _as_bgr(image))
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 image
        raise ValueError("the image could not be encoded as PNG")
    return buf.tobytes()


def _as_bgr(image: Image) -> Image:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def _grid_segments(
    quad: NDArray[np.float64], rows: int, cols: int
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    src = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32)
    homography = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    ends = []
    for c in range(1, cols):
        ends.append(((c, 0), (c, rows)))
    for r in range(1, rows):
        ends.append(((0, r), (cols, r)))
    if not ends:
        return []
    pts = np.array([p for pair in ends for p in pair], np.float32).reshape(-1, 1, 2)
    warped = cv2.perspectiveTransform(pts, homography).reshape(-1, 2)
    pixels = [(round(float(x)), round(float(y))) for x, y in warped]
    return [(pixels[i], pixels[i + 1]) for i in range(0, len(pixels), 2)]


def _cell_view(image: Image, pos: Position, cell_px: int) -> Image:
    r, c = pos
    return image[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px]


def _tint_properties(image: Image, props: Sequence[PropertyLike], cell_px: int) -> None:
    for prop in props:
        colour = np.array(TERRAIN_COLOURS[prop.terrain], np.float32)
        alpha = 0.45 if prop.points else 0.25
        for pos in prop.positions:
            view = _cell_view(image, pos, cell_px)
            view[:] = (view * (1 - alpha) + colour * alpha).astype(np.uint8)


def _grid_lines(image: Image, rows: int, cols: int, cell_px: int) -> None:
    for r in range(1, rows):
        cv2.line(image, (0, r * cell_px), (cols * cell_px, r * cell_px), _WHITE, 1)
    for c in range(1, cols):
        cv2.line(image, (c * cell_px, 0), (c * cell_px, rows * cell_px), _WHITE, 1)


def _outline_properties(image: Image, props: Sequence[PropertyLike], cell_px: int) -> None:
    thick = max(2, cell_px // 25)
    for prop in props:
        cells = set(prop.positions)
        colour = _WHITE if prop.points else (200, 200, 200)
        for r, c in cells:
            x0, y0, x1, y1 = c * cell_px, r * cell_px, (c + 1) * cell_px - 1, (r + 1) * cell_px - 1
            if (r - 1, c) not in cells:
                cv2.line(image, (x0, y0), (x1, y0), colour, thick)
            if (r + 1, c) not in cells:
                cv2.line(image, (x0, y1), (x1, y1), colour, thick)
            if (r, c - 1) not in cells:
                cv2.line(image, (x0, y0), (x0, y1), colour, thick)
            if (r, c + 1) not in cells:
                cv2.line(image, (x1, y0), (x1, y1), colour, thick)


def _square_badge(image: Image, pos: Position, token: str, colour: BGR, cell_px: int) -> None:
    r, c = pos
    pad = max(2, cell_px // 20)
    scale = cell_px / 190
    (tw, th), base = cv2.getTextSize(token, _FONT, scale, 1)
    x0, y0 = c * cell_px + pad, r * cell_px + pad
    x1, y1 = x0 + tw + 2 * pad, y0 + th + base + 2 * pad
    cv2.rectangle(image, (x0, y0), (x1, y1), colour, -1)
    cv2.rectangle(image, (x0, y0), (x1, y1), _BLACK, 1)
    cv2.putText(
        image, token, (x0 + pad, y1 - pad - base), _FONT, scale, _ink(colour), 1, cv2.LINE_AA
    )


def _crowns(image: Image, pos: Position, crowns: int, cell_px: int) -> None:
    r, c = pos
    size = max(6, cell_px // 7)
    gap = size // 3
    y1 = (r + 1) * cell_px - max(3, cell_px // 16)
    for i in range(crowns):
        x0 = c * cell_px + max(3, cell_px // 16) + i * (size + gap)
        icon = np.array(
            [
                (x0, y1),
                (x0, y1 - size),
                (x0 + size // 4, y1 - size // 2),
                (x0 + size // 2, y1 - size),
                (x0 + 3 * size // 4, y1 - size // 2),
                (x0 + size, y1 - size),
                (x0 + size, y1),
            ],
            np.int32,
        )
        cv2.fillPoly(image, [icon], CROWN_COLOUR, cv2.LINE_AA)
        cv2.polylines(image, [icon], True, _BLACK, 1, cv2.LINE_AA)


def _doubt_frame(image: Image, pos: Position, cell_px: int) -> None:
    r, c = pos
    thick = max(3, cell_px // 14)
    inset = thick // 2 + 1
    x0, y0 = c * cell_px + inset, r * cell_px + inset
    x1, y1 = (c + 1) * cell_px - 1 - inset, (r + 1) * cell_px - 1 - inset
    cv2.rectangle(image, (x0, y0), (x1, y1), DOUBT_COLOUR, thick)
    scale = cell_px / 110
    (tw, th), _ = cv2.getTextSize("?", _FONT, scale, 2)
    org = (x1 - tw - thick, y0 + th + thick)
    cv2.putText(image, "?", org, _FONT, scale, _WHITE, 4, cv2.LINE_AA)
    cv2.putText(image, "?", org, _FONT, scale, DOUBT_COLOUR, 2, cv2.LINE_AA)


def _edit_mark(image: Image, pos: Position, cell_px: int) -> None:
    r, c = pos
    size = max(8, cell_px // 5)
    x1, y0 = (c + 1) * cell_px - 1, r * cell_px
    tri = np.array([(x1 - size, y0), (x1, y0), (x1, y0 + size)], np.int32)
    cv2.fillPoly(image, [tri], EDIT_COLOUR, cv2.LINE_AA)


def _property_label(image: Image, prop: PropertyLike, cell_px: int) -> None:
    cells = sorted(prop.positions)
    if not cells:
        return
    mean_r = sum(p[0] for p in cells) / len(cells)
    mean_c = sum(p[1] for p in cells) / len(cells)
    r, c = min(cells, key=lambda p: ((p[0] - mean_r) ** 2 + (p[1] - mean_c) ** 2, p))
    text = f"{len(cells)}x{prop.crowns}={prop.points}"
    scale = cell_px / 170
    (tw, th), _ = cv2.getTextSize(text, _FONT, scale, 1)
    cx, cy = c * cell_px + cell_px // 2, r * cell_px + cell_px // 2 + th // 2
    colour = TERRAIN_COLOURS[prop.terrain] if prop.points else (150, 150, 150)
    _text_box(image, text, (cx - tw // 2, cy), scale, colour)


def _text_box(image: Image, text: str, org: tuple[int, int], scale: float, colour: BGR) -> None:
    """Write ``text`` with its baseline-left at ``org`` on a filled box in ``colour``."""
    scale = max(0.35, scale)
    thick = max(1, round(scale * 1.5))
    (tw, th), base = cv2.getTextSize(text, _FONT, scale, thick)
    pad = max(2, th // 4)
    x, y = org
    x = min(max(0, x), max(0, image.shape[1] - tw - 2 * pad))
    y = min(max(th + 2 * pad, y), image.shape[0] - base - pad)
    cv2.rectangle(image, (x, y - th - 2 * pad), (x + tw + 2 * pad, y + base), colour, -1)
    cv2.rectangle(image, (x, y - th - 2 * pad), (x + tw + 2 * pad, y + base), _BLACK, 1)
    cv2.putText(image, text, (x + pad, y - pad), _FONT, scale, _ink(colour), thick, cv2.LINE_AA)


def _ink(background: BGR) -> BGR:
    """Black or white, whichever reads better on ``background``."""
    b, g, r = background
    return _BLACK if 0.114 * b + 0.587 * g + 0.299 * r > 140 else _WHITE
