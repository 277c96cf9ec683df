"""The comparison of a photo with the thumbnail stored in it (damage a decoder cannot see)."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from scorer.photo import imageio, thumbnail
from scorer.photo.thumbnail import compare_with_thumbnail, heif_thumbnail
from scorer.rules.errors import DamagedImageError

SAMPLE = Path(__file__).resolve().parents[2] / "sample_images" / "sample_board.jpg"

heif = pytest.mark.skipif(not imageio.HEIF_SUPPORTED, reason="pillow-heif is not installed")


@cache
def _sample_rgb() -> Image.Image:
    with Image.open(SAMPLE) as im:
        return im.convert("RGB")


@cache
def _heic(with_thumbnail: bool) -> bytes:
    """The sample photo as a HEIC file, with a 320-pixel thumbnail as phones store, or none."""
    buf = io.BytesIO()
    _sample_rgb().save(buf, "HEIF", quality=90, thumbnails=[320] if with_thumbnail else [])
    return buf.getvalue()


def _painted(box: tuple[int, int, int, int]) -> Image.Image:
    """The sample photo (675×1200) with ``box`` painted magenta, as garbled HEVC blocks look."""
    picture = _sample_rgb().copy()
    ImageDraw.Draw(picture).rectangle(box, fill=(255, 0, 255))
    return picture


@pytest.mark.parametrize(
    ("box", "where"),
    [
        ((0, 0, 150, 250), "the top left of the picture"),
        ((550, 1000, 674, 1199), "the bottom right of the picture"),
        ((300, 550, 380, 650), "the centre of the picture"),
        ((0, 900, 674, 1000), "the bottom of the picture"),
        ((600, 0, 674, 1199), "the right of the picture"),
        ((300, 800, 674, 1199), "the middle and bottom centre and right of the picture"),
    ],
)
def test_the_damaged_part_is_named_by_thirds(box: tuple[int, int, int, int], where: str) -> None:
    thumb = _sample_rgb().resize((180, 320), Image.Resampling.LANCZOS)
    found = compare_with_thumbnail(_painted(box), thumb)
    assert found is not None
    assert found.where == where
    # The share found is that of the box, to within the 8-pixel cells of the thumbnail.
    x0, y0, x1, y1 = box
    share = (x1 - x0 + 1) * (y1 - y0 + 1) / (675 * 1200)
    assert found.fraction == pytest.approx(share, abs=0.04)


def test_a_whole_picture_agrees_with_its_thumbnail() -> None:
    thumb = _sample_rgb().resize((180, 320), Image.Resampling.BICUBIC)
    assert compare_with_thumbnail(_sample_rgb(), thumb) is None


@pytest.mark.parametrize(
    ("size", "why"),
    [
        ((40, 71), "too small to show the picture"),
        ((675, 1200), "not smaller than the picture"),
        ((320, 180), "another shape: turned, or of another picture"),
    ],
)
def test_a_thumbnail_that_cannot_be_compared_is_not_used(size: tuple[int, int], why: str) -> None:
    painted = _painted((0, 0, 674, 1199))  # all different: any comparison would find it
    assert compare_with_thumbnail(painted, Image.new("RGB", size)) is None, why


@heif
def test_the_thumbnail_a_heic_file_holds_is_read() -> None:
    thumb = heif_thumbnail(_heic(True))
    assert thumb is not None and thumb.size == (180, 320)
    assert heif_thumbnail(_heic(False)) is None  # written without one
    assert heif_thumbnail(b"not a HEIF file") is None


@heif
def test_a_heic_file_differing_from_its_thumbnail_over_most_of_it_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = Image.new("RGB", (180, 320), (255, 0, 255))
    monkeypatch.setattr(thumbnail, "heif_thumbnail", lambda data: other)
    with pytest.raises(DamagedImageError) as refused:
        imageio.load_image_with_info(_heic(True))
    assert str(refused.value) == (
        "this file is damaged (HEIF picture differs from the thumbnail stored with it "
        "over 100% of it)"
    )


@heif
def test_a_heic_file_damaged_in_a_part_is_read_with_that_part_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    thumb = _painted((550, 1000, 674, 1199)).resize((180, 320))
    monkeypatch.setattr(thumbnail, "heif_thumbnail", lambda data: thumb)
    image, info = imageio.load_image_with_info(_heic(True))
    assert image.shape == (1200, 675, 3)
    assert info.damage == (
        "the photo file is damaged in the bottom right of the picture: the picture there "
        "differs from the thumbnail stored in the file, so the squares there may be read wrong",
    )
