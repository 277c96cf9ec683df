"""Find damage a decoder cannot see, by comparing a photo with the thumbnail stored in it.

HEVC (HEIC photos) has no checksum, and libde265 reports nothing when bytes inside the
compressed picture are changed: it decodes them as picture, and the damage shows as
smeared or garbled blocks. A phone stores a small thumbnail of the same picture in the
file, coded apart from it; where the picture, shrunk to the thumbnail's size, differs
from the thumbnail far beyond what coding the two at different sizes explains, one of
them is damaged there. Both are blurred first, so the fine texture that the shrinking
and the thumbnail's coding treat differently does not count.

The comparison is independent of the decoder's silence, but it needs a thumbnail: a
file without one (many are written without) is not checked.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image

from scorer.i18n import N_, _

THUMB_BLUR: Final = 2.0
"""Blur, in thumbnail pixels (Gaussian sigma), of both pictures before they are compared."""

THUMB_CELL: Final = 8
"""Side, in thumbnail pixels, of the cells whose mean difference is compared."""

THUMB_DAMAGED: Final = 30.0
"""Mean difference of a cell (0…255, averaged over the colour channels) above which it is
damaged: over twice the largest of whole files (14), below all but one damaged file in 417."""

MOST_DAMAGED: Final = 0.5
"""Share of the picture's area beyond which a damaged file is refused rather than scored."""

MIN_THUMB_SIDE: Final = 64
"""A thumbnail's shorter side, in pixels, from which it is used; smaller ones show too little."""

_REGIONS: Final = (("top", "middle", "bottom"), ("left", "centre", "right"))

_PART_WORDS: Final = {
    "top": N_("top"),
    "middle": N_("middle"),
    "bottom": N_("bottom"),
    "top and middle": N_("top and middle"),
    "middle and bottom": N_("middle and bottom"),
    "left": N_("left"),
    "centre": N_("centre"),
    "right": N_("right"),
    "left and centre": N_("left and centre"),
    "centre and right": N_("centre and right"),
}
"""The thirds of a picture, and two thirds side by side, as :func:`_where` names them."""


@dataclass(frozen=True)
class Damage:
    """Where a picture differs from the thumbnail stored with it.

    Attributes
    ----------
    fraction : float
        The share of the picture's area that differs, 0…1.
    where : str
        The part of the picture, in words of the active language: ``"the bottom right of the
        picture"``, ``"the whole picture"`` …
    """

    fraction: float
    where: str


def heif_thumbnail(data: bytes) -> Image.Image | None:
    """The first thumbnail stored with a HEIF file's primary picture, or None when there is
    none (or pillow-heif cannot read it)."""
    try:
        import pillow_heif

        heif = pillow_heif.open_heif(io.BytesIO(data))
        primary = heif[heif.primary_index]
        if not primary.info.get("thumbnails"):
            return None
        return primary.get_thumbnail(0).to_pillow()
    except Exception:  # a broken thumbnail is no thumbnail: the check is then not made
        return None


def compare_with_thumbnail(picture: Image.Image, thumbnail: Image.Image) -> Damage | None:
    """Compare a decoded picture with its stored thumbnail; return where they differ.

    Parameters
    ----------
    picture : PIL.Image.Image
        The decoded picture, as stored (before any EXIF turn).
    thumbnail : PIL.Image.Image
        The thumbnail stored with it.

    Returns
    -------
    Damage or None
        None when they agree, or when the thumbnail cannot be compared (larger than the
        picture, too small, or of another shape).

    Examples
    --------
    >>> from PIL import ImageDraw
    >>> picture = Image.new("RGB", (640, 480), (90, 140, 60))
    >>> compare_with_thumbnail(picture, picture.resize((160, 120))) is None
    True
    >>> damaged = picture.copy()
    >>> ImageDraw.Draw(damaged).rectangle((480, 360, 640, 480), fill=(255, 0, 255))
    >>> compare_with_thumbnail(damaged, picture.resize((160, 120)))
    Damage(fraction=0.0667, where='the bottom right of the picture')
    """
    width, height = thumbnail.size
    if (
        min(width, height) < MIN_THUMB_SIDE
        or width >= picture.width
        or abs(width / height - picture.width / picture.height) > 2 / min(width, height)
    ):
        return None
    small = np.asarray(
        cv2.resize(_rgb(picture), (width, height), interpolation=cv2.INTER_AREA), np.float32
    )
    diff = _blurred_difference(small, _rgb(thumbnail))
    rows, cols = height // THUMB_CELL, width // THUMB_CELL
    cells = (
        diff[: rows * THUMB_CELL, : cols * THUMB_CELL]
        .reshape(rows, THUMB_CELL, cols, THUMB_CELL)
        .mean(axis=(1, 3))
    )
    damaged = cells > THUMB_DAMAGED
    if not damaged.any():
        return None
    return Damage(round(float(damaged.mean()), 4), _where(damaged))


def _rgb(im: Image.Image) -> NDArray[np.float32]:
    return np.asarray(im.convert("RGB"), dtype=np.float32)


def _blurred_difference(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """Mean absolute difference over the channels of the two pictures, both blurred."""
    blur_a = cv2.GaussianBlur(a, (0, 0), THUMB_BLUR)
    blur_b = cv2.GaussianBlur(b, (0, 0), THUMB_BLUR)
    return np.asarray(np.abs(blur_a - blur_b).mean(axis=2), dtype=np.float32)


def _where(damaged: NDArray[np.bool_]) -> str:
    """The part of the picture the damaged cells lie in, by thirds, in words of the active
    language.

    >>> grid = np.zeros((9, 9), bool)
    >>> grid[7:, 0] = True
    >>> _where(grid)
    'the bottom left of the picture'
    >>> grid[4, 8] = True
    >>> _where(grid)
    'the middle and bottom of the picture'
    >>> _where(np.ones((9, 9), bool))
    'the whole picture'
    """
    parts = []
    for axis, names in enumerate(_REGIONS):
        size = damaged.shape[axis]
        found = np.nonzero(damaged)[axis]
        thirds = range(3 * int(found.min()) // size, 3 * int(found.max()) // size + 1)
        parts.append("" if len(thirds) == 3 else " and ".join(names[t] for t in thirds))
    vertical, horizontal = parts
    if not vertical and not horizontal:
        return _("the whole picture")
    if vertical == "middle" and horizontal == "centre":
        return _("the centre of the picture")
    if vertical and horizontal:
        return _(
            "the {vertical} {horizontal} of the picture",
            vertical=_(_PART_WORDS[vertical]),
            horizontal=_(_PART_WORDS[horizontal]),
        )
    return _("the {part} of the picture", part=_(_PART_WORDS[vertical or horizontal]))
