"""The image loader: every colour form comes out as BGR uint8 H×W×3, bad files as named errors."""

from __future__ import annotations

import io
import os
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image

from scorer.photo.imageio import downscale, load_image, load_image_with_info, sniff
from scorer.rules.errors import DamagedImageError, ImageTooLargeError, NotAnImageError

RNG = np.random.default_rng(6)
PHOTO = RNG.integers(0, 256, (48, 64, 3), dtype=np.uint8)
"""A small random RGB picture, 64 wide and 48 high."""


def encode(image: Image.Image, fmt: str, **options: Any) -> bytes:
    """The bytes of ``image`` saved as ``fmt``."""
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


def png_header(width: int, height: int, *, bit_depth: int = 8, colour_type: int = 2) -> bytes:
    """A PNG that declares ``width``×``height`` but carries almost no data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def assert_bgr(image: np.ndarray, shape: tuple[int, int]) -> None:
    assert image.dtype == np.uint8
    assert image.shape == (*shape, 3)
    assert image.flags["C_CONTIGUOUS"]


# --------------------------------------------------------------------------- sources


def test_path_bytes_and_file_give_the_same_pixels(tmp_path: Path) -> None:
    data = encode(Image.fromarray(PHOTO), "PNG")
    path = tmp_path / "photo.png"
    path.write_bytes(data)
    from_path = load_image(path)
    assert_bgr(from_path, (48, 64))
    np.testing.assert_array_equal(from_path, PHOTO[:, :, ::-1])
    np.testing.assert_array_equal(load_image(str(path)), from_path)
    np.testing.assert_array_equal(load_image(data), from_path)
    np.testing.assert_array_equal(load_image(bytearray(data)), from_path)
    with path.open("rb") as handle:
        handle.read(10)  # an upload already partly read is read from its start
        np.testing.assert_array_equal(load_image(handle), from_path)


def _in_a_fresh_process(folder: Path, fmts: tuple[str, ...], lines: str) -> str:
    """What a new interpreter prints after ``lines`` (``folder`` is a pathlib.Path there),
    with the test photo written into ``folder`` in each format (``photo.<format>``)."""
    for fmt in fmts:
        (folder / f"photo.{fmt.lower()}").write_bytes(encode(Image.fromarray(PHOTO), fmt))
    script = (
        "import sys, pathlib\n"
        "from scorer.photo.imageio import load_image\n"
        "folder = pathlib.Path(sys.argv[1])\n" + lines
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_fresh_process_reads_every_type(tmp_path: Path) -> None:
    """Pillow registers most formats lazily: the first load in a new process must work."""
    every = ("PNG", "WEBP", "TIFF", "GIF", "BMP", "HEIF", "JPEG")
    lines = (
        "for path in sorted(folder.iterdir()):\n    print(path.suffix, load_image(path).shape)\n"
    )
    assert _in_a_fresh_process(tmp_path, every, lines).count("(48, 64, 3)") == 7


def test_a_jpeg_is_read_without_the_heic_reader(tmp_path: Path) -> None:
    """pillow-heif is imported only for a HEIC photo: a JPEG does not wait for it."""
    pytest.importorskip("pillow_heif")
    lines = (
        "print(load_image(folder / 'photo.jpeg').shape, 'pillow_heif' in sys.modules)\n"
        "print(load_image(folder / 'photo.heif').shape, 'pillow_heif' in sys.modules)\n"
    )
    printed = _in_a_fresh_process(tmp_path, ("JPEG", "HEIF"), lines)
    assert printed.split("\n")[:2] == ["(48, 64, 3) False", "(48, 64, 3) True"]


def test_type_is_found_by_content_not_name(tmp_path: Path) -> None:
    misnamed = tmp_path / "photo.txt"
    misnamed.write_bytes(encode(Image.fromarray(PHOTO), "JPEG", quality=95))
    image, info = load_image_with_info(misnamed)
    assert info.format == "JPEG"
    assert_bgr(image, (48, 64))


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [
        ("JPEG", "JPEG"),
        ("PNG", "PNG"),
        ("WEBP", "WebP"),
        ("GIF", "GIF"),
        ("BMP", "BMP"),
        ("TIFF", "TIFF"),
        ("HEIF", "HEIF"),
    ],
)
def test_every_supported_type_loads(fmt: str, kind: str) -> None:
    data = encode(Image.fromarray(PHOTO), fmt)
    assert sniff(data) == kind
    image, info = load_image_with_info(data)
    assert info.format == kind
    assert info.size == (64, 48)
    assert_bgr(image, (48, 64))
    lossless = fmt in ("PNG", "BMP", "TIFF")
    if lossless:
        np.testing.assert_array_equal(image, PHOTO[:, :, ::-1])


def test_channel_order_is_bgr() -> None:
    red = Image.new("RGB", (3, 2), (255, 0, 0))
    assert load_image(encode(red, "PNG"))[0, 0].tolist() == [0, 0, 255]


# --------------------------------------------------------------------------- colour forms


def test_grayscale_becomes_three_equal_channels() -> None:
    gray = PHOTO[:, :, 0]
    image = load_image(encode(Image.fromarray(gray), "PNG"))
    assert_bgr(image, (48, 64))
    for channel in range(3):
        np.testing.assert_array_equal(image[:, :, channel], gray)


def test_sixteen_bit_gray_is_scaled_not_clipped() -> None:
    values = np.array([[0, 257, 32896, 65535]], dtype=np.uint16)
    _, buf = cv2.imencode(".png", values)
    image, info = load_image_with_info(buf.tobytes())
    assert info.mode.startswith("I")
    assert image[0, :, 0].tolist() == [0, 1, 128, 255]


def test_sixteen_bit_colour_keeps_its_colours() -> None:
    bgr16 = np.zeros((4, 5, 3), np.uint16)
    bgr16[..., 0] = 65535
    bgr16[..., 2] = 32896
    _, buf = cv2.imencode(".png", bgr16)
    image = load_image(buf.tobytes())
    assert_bgr(image, (4, 5))
    assert image[0, 0].tolist() == [255, 0, 128]


def test_alpha_is_composited_on_white() -> None:
    rgba = np.zeros((2, 2, 4), np.uint8)
    rgba[0, 0] = (255, 0, 0, 255)  # opaque red
    rgba[0, 1] = (255, 0, 0, 0)  # fully transparent
    rgba[1, 0] = (0, 0, 0, 128)  # half-transparent black
    image = load_image(encode(Image.fromarray(rgba, "RGBA"), "PNG"))
    assert image[0, 0].tolist() == [0, 0, 255]
    assert image[0, 1].tolist() == [255, 255, 255]
    assert 120 <= image[1, 0, 0] <= 135


def test_gray_with_alpha_and_transparent_palette() -> None:
    la = Image.new("LA", (3, 3), (0, 0))
    assert load_image(encode(la, "PNG"))[0, 0].tolist() == [255, 255, 255]
    palette = Image.new("P", (3, 3), 0)
    palette.putpalette([10, 20, 30] * 256)
    assert load_image(encode(palette, "PNG"))[0, 0].tolist() == [30, 20, 10]
    transparent = encode(palette, "PNG", transparency=0)
    assert load_image(transparent)[0, 0].tolist() == [255, 255, 255]


def test_cmyk_jpeg_loads_as_colour() -> None:
    green = Image.new("RGB", (20, 10), (20, 200, 40)).convert("CMYK")
    image, info = load_image_with_info(encode(green, "JPEG", quality=95))
    assert info.mode == "CMYK"
    assert_bgr(image, (10, 20))
    blue, green_, red = image[5, 10].tolist()
    assert green_ > 150 and red < 80 and blue < 90


def test_one_bit_and_float_images() -> None:
    assert load_image(encode(Image.new("1", (3, 3), 1), "BMP"))[0, 0].tolist() == [255] * 3
    ramp = np.linspace(0, 1, 20, dtype=np.float32).reshape(4, 5)
    image = load_image(encode(Image.fromarray(ramp), "TIFF"))
    assert image[0, 0, 0] == 0 and image[3, 4, 0] == 255


_UPRIGHT: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    1: lambda a: a,
    2: np.fliplr,
    3: lambda a: np.rot90(a, 2),
    4: np.flipud,
    5: lambda a: a.transpose(1, 0, 2),
    6: lambda a: np.rot90(a, -1),  # a quarter turn clockwise
    7: lambda a: np.rot90(a, 2).transpose(1, 0, 2),
    8: lambda a: np.rot90(a, 1),
}
"""How the stored pixels of each EXIF orientation are stood upright, in numpy."""

_ROW_0_AND_COLUMN_0: dict[int, tuple[str, str]] = {
    1: ("top", "left"),
    2: ("top", "right"),
    3: ("bottom", "right"),
    4: ("bottom", "left"),
    5: ("left", "top"),
    6: ("right", "top"),
    7: ("right", "bottom"),
    8: ("left", "bottom"),
}
"""The EXIF standard's meaning of the orientation tag: where the stored first row and first
column are seen in the upright picture."""


def _exif_png(pixels: np.ndarray, orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encode(Image.fromarray(pixels), "PNG", exif=exif)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied(orientation: int) -> None:
    image, info = load_image_with_info(_exif_png(PHOTO, orientation))
    assert info.orientation == orientation
    assert info.size == (64, 48)  # as stored
    upright = _UPRIGHT[orientation](PHOTO)
    assert_bgr(image, upright.shape[:2])
    np.testing.assert_array_equal(image, upright[:, :, ::-1])


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_puts_the_first_row_and_column_where_the_standard_says(
    orientation: int,
) -> None:
    stored = np.zeros((6, 10, 3), np.uint8)
    stored[0, :, 0] = 255  # the first row: red
    stored[:, 0, 1] = 255  # the first column: green
    image = load_image(_exif_png(stored, orientation))
    red, green = image[:, :, 2] == 255, image[:, :, 1] == 255
    sides = {
        "top": lambda m: m[0, :],
        "bottom": lambda m: m[-1, :],
        "left": lambda m: m[:, 0],
        "right": lambda m: m[:, -1],
    }
    row_side, column_side = _ROW_0_AND_COLUMN_0[orientation]
    assert sides[row_side](red).all() and red.sum() == 10
    assert sides[column_side](green).all() and green.sum() == 6


def test_upright_exif_changes_nothing() -> None:
    exif = Image.Exif()
    exif[0x0112] = 1
    image = load_image(encode(Image.fromarray(PHOTO), "PNG", exif=exif))
    np.testing.assert_array_equal(image, PHOTO[:, :, ::-1])


def test_rotated_jpeg_comes_out_upright_shape() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    image = load_image(encode(Image.fromarray(PHOTO), "JPEG", exif=exif))
    assert_bgr(image, (64, 48))


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "this file is not a readable image (empty file)"),
        (b"G0 L0 F1\nW1 C F0\n", "this is a text file, not an image"),
        ("Königreich: Wiese, Wald\n".encode(), "this is a text file, not an image"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "this is a PDF document, not an image"),
        (b"PK\x03\x04" + bytes(40), "this is a ZIP archive, not an image"),
        (b"\x00\x00\x00\x18ftypmp42" + bytes(20), "this is a video, not a photo"),
        (bytes(range(256)) * 4, "this file is not a readable image (unknown file type)"),
        (b"\xff\xd8\xff\xe0" + bytes(100), "this file is damaged (JPEG"),
        (b"\x89PNG\r\n\x1a\n" + bytes(100), "this file is damaged (PNG"),
    ],
)
def test_not_an_image(data: bytes, message: str) -> None:
    with pytest.raises(NotAnImageError, match=_literal(message)):
        load_image(data)


def test_truncated_jpeg_says_it_ends_early() -> None:
    data = encode(Image.fromarray(PHOTO), "JPEG", quality=90)
    with pytest.raises(DamagedImageError, match=_literal("damaged (JPEG data ends early)")):
        load_image(data[: len(data) * 2 // 3])


def test_corrupt_png_data_is_named() -> None:
    data = bytearray(encode(Image.fromarray(PHOTO), "PNG"))
    idat = data.index(b"IDAT")
    data[idat + 8 : idat + 40] = bytes(32)  # zeroes over the compressed stream, CRC now wrong
    with pytest.raises(DamagedImageError, match=_literal("damaged (PNG data is corrupt)")):
        load_image(bytes(data))


def test_bomb_png_is_refused_before_decoding() -> None:
    bomb = png_header(100_000, 100_000)
    assert len(bomb) < 100
    with pytest.raises(
        ImageTooLargeError, match=_literal("image is 10000 megapixels; the limit is 60")
    ):
        load_image(bomb)


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
@pytest.mark.parametrize(
    ("width", "height", "message"),
    [
        (20_000, 15_000, "image is 300 megapixels; the limit is 60"),
        (10_000, 6_001, "image is 60,010,000 pixels; the limit is 60,000,000 pixels"),
        (7_500, 8_001, "image is 60,007,500 pixels; the limit is 60,000,000 pixels"),
        (8_000, 8_000, "image is 64 megapixels; the limit is 60"),
        (7_772, 7_772, "image is 60.4 megapixels; the limit is 60.0"),
        (65_535, 65_535, "image is 4295 megapixels; the limit is 60"),
    ],
)
def test_pixel_limit(width: int, height: int, message: str) -> None:
    with pytest.raises(ImageTooLargeError, match=_literal(message)):
        load_image(png_header(width, height))


def test_pixel_limit_is_a_parameter() -> None:
    data = encode(Image.fromarray(PHOTO), "PNG")
    with pytest.raises(ImageTooLargeError, match=_literal("image is 0.0031 megapixels")):
        load_image(data, max_pixels=1000)
    assert_bgr(load_image(data, max_pixels=64 * 48), (48, 64))


def test_file_size_limit(tmp_path: Path) -> None:
    data = encode(Image.fromarray(PHOTO), "PNG")
    path = tmp_path / "big.png"
    path.write_bytes(data)
    one_over = f"file is {len(data):,} bytes; the limit is {len(data) - 1:,} bytes"
    with pytest.raises(ImageTooLargeError, match=_literal(one_over)):
        load_image(path, max_bytes=len(data) - 1)
    with pytest.raises(ImageTooLargeError, match="the limit is"):
        load_image(io.BytesIO(data), max_bytes=100)
    with pytest.raises(ImageTooLargeError, match="the limit is"):
        load_image(data, max_bytes=100)
    assert_bgr(load_image(path, max_bytes=len(data)), (48, 64))


def test_default_file_size_limit_is_fifty_megabytes() -> None:
    with pytest.raises(ImageTooLargeError, match=_literal("file is 51 MB; the limit is 50 MB")):
        load_image(io.BytesIO(bytes(51_000_000)))


@pytest.mark.parametrize(
    ("n_bytes", "message"),
    [
        (50_300_000, "file is 50.3 MB; the limit is 50.0 MB"),
        (50_000_001, "file is 50,000,001 bytes; the limit is 50,000,000 bytes"),
    ],
)
def test_file_size_limit_is_never_shown_equal_to_the_size(n_bytes: int, message: str) -> None:
    with pytest.raises(ImageTooLargeError, match=_literal(message)):
        load_image(bytes(n_bytes))


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(NotAnImageError, match=r"^no such file$"):
        load_image(tmp_path / "nothing.jpg")
    with pytest.raises(NotAnImageError, match=r"^this is a folder, not an image$"):
        load_image(tmp_path)  # the message leaves the path to whoever shows it


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_or_a_device_is_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "photo.jpg"
    os.mkfifo(fifo)  # opening it for reading the usual way would wait for a writer forever
    with pytest.raises(NotAnImageError, match=r"^this is a named pipe \(FIFO\), not an image$"):
        load_image(fifo)
    if Path("/dev/zero").exists():
        link = tmp_path / "zero.jpg"
        link.symlink_to("/dev/zero")
        with pytest.raises(NotAnImageError, match=r"^this is a device, not an image$"):
            load_image(link)


def test_text_mode_file_is_a_programming_error(tmp_path: Path) -> None:
    path = tmp_path / "grid.txt"
    path.write_text("C\n")
    with path.open() as handle, pytest.raises(TypeError, match="binary mode"):
        load_image(handle)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- downscale


def test_downscale_keeps_aspect_and_small_images() -> None:
    image = np.zeros((3000, 4000, 3), np.uint8)
    assert downscale(image, 1000).shape == (750, 1000, 3)
    small = np.zeros((10, 20, 3), np.uint8)
    assert downscale(small, 1000) is small
    with pytest.raises(ValueError, match="at least 1"):
        downscale(small, 0)


# --------------------------------------------------------------------------- helpers


def _literal(text: str) -> str:
    return re.escape(text)
