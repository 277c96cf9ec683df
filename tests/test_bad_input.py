"""Hostile inputs: every bad file ends in one clear, specific message, never a traceback.

Each row of the tables below is a file a player might feed the program. Every
row runs through the command line (one line on stderr naming the input, exit
code 1) and through the library path the app uses (``load_image`` then
``score_photo``, or ``Kingdom.parse`` for text grids), and must fail with the
named error and the expected words. A second table holds odd but valid photos
(16-bit, CMYK, rotated …) that must load, in the right shape, and still show
their kingdom to the detector. The files are generated here, in a temporary
folder; nothing binary is committed.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image

from scorer.cli import main, parse_corners
from scorer.detect import find_kingdoms
from scorer.lab.fit import fit_cell_classifier
from scorer.lab.synth import demo_board, make_scene
from scorer.page.inputs import MAX_TYPED_KINGDOMS, parse_grids
from scorer.photo.imageio import load_image, load_image_with_info
from scorer.pipeline import score_photo
from scorer.read import classify
from scorer.read.cells import cell_features
from scorer.rules.errors import (
    BoardNotFoundError,
    DamagedImageError,
    ImageTooLargeError,
    MarkedCornersError,
    ModelFileError,
    NotAnImageError,
    ScorerError,
    StoreError,
)
from scorer.rules.kingdom import GridParseError, Kingdom
from scorer.rules.scoring import Rules
from scorer.store import GameStore

RNG_SEED = 2024


@dataclass(frozen=True)
class Hostile:
    """A bad input: how to write it, and what the player must be told."""

    name: str
    filename: str
    make: Callable[[Path], None]
    error: type[Exception]
    message: str


# --------------------------------------------------------------------------- makers


def _bytes(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data)


def _encode(image: Image.Image, fmt: str, **options: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


def _photo(width: int = 320, height: int = 240) -> Image.Image:
    """A small colourful picture with some structure (not a kingdom)."""
    rng = np.random.default_rng(RNG_SEED)
    small = rng.integers(0, 256, (height // 16, width // 16, 3), dtype=np.uint8)
    big = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)
    return Image.fromarray(big)


JPEG = _encode(_photo(), "JPEG", quality=90)
"""A valid JPEG to cut short."""


def _truncated_jpeg(cut: Callable[[int], int]) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(JPEG[: cut(len(JPEG))])


def _start_of_scan() -> int:
    return JPEG.index(b"\xff\xda")


def _png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG whose header declares ``width``×``height`` RGB pixels."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(bytes(64)))
        + chunk(b"IEND", b"")
    )


def _jpeg_declaring(width: int, height: int) -> bytes:
    data = bytearray(JPEG)
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def _bmp_declaring(width: int, height: int) -> bytes:
    data = bytearray(_encode(_photo(16, 16), "BMP"))
    data[18:26] = struct.pack("<ii", width, height)
    return bytes(data)


def _corrupt_png() -> bytes:
    data = bytearray(_encode(_photo(), "PNG"))
    idat = data.index(b"IDAT")
    data[idat + 20 : idat + 60] = bytes(40)
    return bytes(data)


def _half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _sparse(n_bytes: int) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        with path.open("wb") as handle:
            handle.truncate(n_bytes)

    return make


def _folder(path: Path) -> None:
    path.mkdir()


def _nothing(path: Path) -> None:
    """Leave the file missing."""


def wood_texture(width: int = 1200, height: int = 900, seed: int = RNG_SEED) -> np.ndarray:
    """A photo of a plain wooden table: warm brown, wavy grain, no tiles (BGR)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    warp = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 40)
    rings = np.sin((y + 400 * warp) / 9.0 + 2 * np.sin(x / 150.0))
    grain = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 1.5)
    value = 0.55 + 0.12 * rings + 0.05 * grain
    bgr = np.stack([60 * value, 110 * value, 170 * value], axis=2)
    return np.clip(bgr, 0, 255).astype(np.uint8)


def _jpeg_of(bgr: np.ndarray) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(cv2.imencode(".jpg", bgr)[1].tobytes())


def _png_of(image: Image.Image) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(_encode(image, "PNG"))


def _fifo(path: Path) -> None:
    """A named pipe: opened the usual way, it waits for a writer forever."""
    os.mkfifo(path)


def _link_to(target: str) -> Callable[[Path], None]:
    return lambda path: path.symlink_to(target)


def _zeroed(data: bytes, at: float, n_bytes: int = 4096) -> bytes:
    start = int(len(data) * at)
    return data[:start] + bytes(len(data[start : start + n_bytes])) + data[start + n_bytes :]


def _flipped(data: bytes, at: float, n_bytes: int = 64) -> bytes:
    start = int(len(data) * at)
    middle = bytes(b ^ 0xFF for b in data[start : start + n_bytes])
    return data[:start] + middle + data[start + n_bytes :]


ENDS_EARLY = "this file is damaged (JPEG data ends early)"
TOO_BIG = "the limit is 60"
NO_KINGDOM = "no kingdom-sized area of tiles found"

PHOTOS: list[Hostile] = [
    Hostile(
        "empty file", "photo.jpg", _bytes(b""), NotAnImageError, "not a readable image (empty file)"
    ),
    Hostile(
        "random bytes",
        "photo.jpg",
        _bytes(bytes(np.random.default_rng(RNG_SEED).integers(1, 256, 4096, dtype=np.uint8))),
        NotAnImageError,
        "this file is not a readable image (unknown file type)",
    ),
    Hostile(
        "text named .jpg",
        "kingdom.jpg",
        _bytes(b"G0 L0 F0 F0 F0\nG0 L0 F1 F0 W0\nG0 G0 C F0 F0\n"),
        NotAnImageError,
        "this is a text file, not an image",
    ),
    Hostile(
        "JPEG cut at 3 bytes", "cut.jpg", _truncated_jpeg(lambda n: 3), NotAnImageError, ENDS_EARLY
    ),
    Hostile(
        "JPEG cut at 20 bytes",
        "cut.jpg",
        _truncated_jpeg(lambda n: 20),
        NotAnImageError,
        ENDS_EARLY,
    ),
    Hostile(
        "JPEG cut at 200 bytes",
        "cut.jpg",
        _truncated_jpeg(lambda n: 200),
        NotAnImageError,
        ENDS_EARLY,
    ),
    Hostile(
        "JPEG cut in the scan header",
        "cut.jpg",
        _truncated_jpeg(lambda n: _start_of_scan() + 6),
        NotAnImageError,
        ENDS_EARLY,
    ),
    *[
        Hostile(
            f"JPEG cut at {pct}%",
            "cut.jpg",
            _truncated_jpeg(lambda n, pct=pct: n * pct // 100),
            NotAnImageError,
            ENDS_EARLY,
        )
        for pct in (10, 30, 50, 70, 90)
    ],
    Hostile(
        "JPEG missing its last bytes",
        "cut.jpg",
        _truncated_jpeg(lambda n: n - 3),
        NotAnImageError,
        ENDS_EARLY,
    ),
    Hostile(
        "PNG declaring 100000×100000",
        "bomb.png",
        _bytes(_png_declaring(100_000, 100_000)),
        ImageTooLargeError,
        "image is 10000 megapixels; the limit is 60",
    ),
    Hostile(
        "PNG declaring 300 megapixels",
        "big.png",
        _bytes(_png_declaring(20_000, 15_000)),
        ImageTooLargeError,
        "image is 300 megapixels; the limit is 60",
    ),
    Hostile(
        "JPEG declaring 65000×65000",
        "bomb.jpg",
        _bytes(_jpeg_declaring(65_000, 65_000)),
        ImageTooLargeError,
        "image is 4225 megapixels; the limit is 60",
    ),
    Hostile(
        "BMP declaring 30000×30000",
        "bomb.bmp",
        _bytes(_bmp_declaring(30_000, 30_000)),
        ImageTooLargeError,
        "image is 900 megapixels; the limit is 60",
    ),
    Hostile(
        "file of 51 MB",
        "huge.jpg",
        _sparse(51_000_000),
        ImageTooLargeError,
        "file is 51 MB; the limit is 50 MB",
    ),
    Hostile(
        "1×1 image",
        "dot.png",
        _png_of(Image.new("RGB", (1, 1), (200, 30, 30))),
        BoardNotFoundError,
        f"{NO_KINGDOM}: the image is only 1×1 px",
    ),
    Hostile("plain wood", "table.jpg", _jpeg_of(wood_texture()), BoardNotFoundError, NO_KINGDOM),
    Hostile(
        "blank screenshot",
        "screen.png",
        _png_of(Image.new("RGB", (800, 600), (245, 245, 245))),
        BoardNotFoundError,
        NO_KINGDOM,
    ),
    Hostile(
        "PNG with corrupt data",
        "photo.png",
        _bytes(_corrupt_png()),
        NotAnImageError,
        "this file is damaged (PNG data is corrupt)",
    ),
    Hostile(
        "PNG cut in half",
        "photo.png",
        _bytes(_half(_encode(_photo(), "PNG"))),
        NotAnImageError,
        "(PNG data ends early)",
    ),
    Hostile(
        "WebP cut in half",
        "photo.webp",
        _bytes(_half(_encode(_photo(), "WEBP"))),
        NotAnImageError,
        "(WebP data ends early)",
    ),
    Hostile(
        "HEIC cut in half",
        "IMG_0001.HEIC",
        _bytes(_half(_encode(_photo(), "HEIF"))),
        NotAnImageError,
        "(HEIF data ends early)",
    ),
    Hostile(
        "GIF cut in half",
        "photo.gif",
        _bytes(_half(_encode(_photo(), "GIF"))),
        NotAnImageError,
        "(GIF data ends early)",
    ),
    Hostile(
        "PDF named .jpg",
        "scan.jpg",
        _bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"),
        NotAnImageError,
        "this is a PDF document, not an image",
    ),
    Hostile(
        "video named .heic",
        "live.heic",
        _bytes(b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  " + bytes(64)),
        NotAnImageError,
        "this is a video, not a photo",
    ),
    Hostile(
        "SVG named .png",
        "logo.png",
        _bytes(b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>\n'),
        NotAnImageError,
        "this is an SVG drawing, not a photo",
    ),
    Hostile(
        "ZIP named .jpg",
        "photos.jpg",
        _bytes(b"PK\x03\x04" + bytes(60)),
        NotAnImageError,
        "this is a ZIP archive, not an image",
    ),
    Hostile(
        "folder named .jpg", "album.jpg", _folder, NotAnImageError, "this is a folder, not an image"
    ),
    Hostile("missing file", "gone.jpg", _nothing, NotAnImageError, "no such file"),
    # Issue 34, one row a point
    Hostile(  # 2: nothing may block
        "named pipe (FIFO) named .jpg",
        "pipe.jpg",
        _fifo,
        NotAnImageError,
        "this is a named pipe (FIFO), not an image",
    ),
    Hostile(  # 3: a damaged photo is never scored as if whole (libjpeg's warning)
        "JPEG with 4 KB zeroed at two thirds",
        "zeroed.jpg",
        _bytes(_zeroed(JPEG, 2 / 3)),
        DamagedImageError,
        "this file is damaged (JPEG data is corrupt)",
    ),
    Hostile(  # 7: Pillow's DecompressionBombWarning is not printed besides the refusal
        "PNG declaring 12000×9000",
        "bomb-warning.png",
        _bytes(_png_declaring(12_000, 9_000)),
        ImageTooLargeError,
        "image is 108 megapixels; the limit is 60",
    ),
    Hostile(  # 7: libtiff's "Using code not yet in table" is not printed
        "LZW TIFF with flipped bytes",
        "scan.tif",
        _bytes(_flipped(_encode(_photo(), "TIFF", compression="tiff_lzw"), 1 / 2)),
        DamagedImageError,
        "this file is damaged (TIFF data is corrupt)",
    ),
    Hostile(  # 8: rounding never shows the size equal to the limit
        "PNG declaring 7500×8001",
        "just-over.png",
        _bytes(_png_declaring(7_500, 8_001)),
        ImageTooLargeError,
        "image is 60,007,500 pixels; the limit is 60,000,000 pixels",
    ),
    Hostile(
        "file of 50,000,001 bytes",
        "just-over.jpg",
        _sparse(50_000_001),
        ImageTooLargeError,
        "file is 50,000,001 bytes; the limit is 50,000,000 bytes",
    ),
]

GRIDS: list[Hostile] = [
    Hostile(
        "bad token",
        "bad-token.txt",
        _bytes(b"G0 X9 C\n"),
        GridParseError,
        "line 1, column 2: 'X9': unknown terrain letter 'X'",
    ),
    Hostile(
        "half a token",
        "half.txt",
        _bytes(b"G0 W C\n"),
        GridParseError,
        "a square is a terrain letter and a crown count (W0…M3), C or .",
    ),
    Hostile(
        "ragged row",
        "ragged.txt",
        _bytes(b"G0 L0 F0\nW0 C\n"),
        GridParseError,
        "line 2: ragged row: 2 squares, but line 1 has 3",
    ),
    Hostile(
        "two castles",
        "castles.txt",
        _bytes(b"C G0\nW0 C\n"),
        GridParseError,
        "line 2, column 2: 'C': a second castle; the first is at line 1, column 1",
    ),
    Hostile(
        "8×8",
        "eight.txt",
        _bytes("\n".join([" ".join(["C"] + ["W0"] * 7)] + [" ".join(["W0"] * 8)] * 7).encode()),
        GridParseError,
        "8 squares in a row; a kingdom is at most 7×7",
    ),
    Hostile(
        "8 rows",
        "tall.txt",
        _bytes(("C W0\n" + "W0 W0\n" * 7).encode()),
        GridParseError,
        "line 8: more than 7 rows",
    ),
    Hostile(
        "impossible crowns",
        "crowns.txt",
        _bytes(b"C M4\n"),
        GridParseError,
        "'M4': mine never has 4 crowns (at most 3)",
    ),
    Hostile("no castle", "nocastle.txt", _bytes(b"W0 W1\n"), GridParseError, "no castle"),
    Hostile(
        "only comments", "empty.txt", _bytes(b"# nothing yet\n\n"), GridParseError, "grid is empty"
    ),
    # Issue 34
    Hostile(  # 1: a bad token is quoted only in part
        "a token of 60,000 zero bytes",
        "zeros.txt",
        _bytes(bytes(60_000)),
        GridParseError,
        f"line 1, column 1: {chr(0) * 10 + '…'!r}: a square is a terrain letter",
    ),
    Hostile(  # 8: a superscript is no crown count
        "crowns written as ²",
        "superscript.txt",
        _bytes("C M²\n".encode()),
        GridParseError,
        "line 1, column 2: 'M²': the crown count is a digit 0–3, not '²'",
    ),
]

NOT_TEXT: list[Hostile] = [
    Hostile(
        "JPEG named .txt",
        "grid.txt",
        _bytes(JPEG),
        UnicodeDecodeError,
        "not a text grid: the file is not UTF-8 text",
    ),
    Hostile(
        "Latin-1 grid",
        "grid.txt",
        _bytes("# K\xf6nigreich\nC W0\n".encode("latin-1")),
        UnicodeDecodeError,
        "not a text grid: the file is not UTF-8 text",
    ),
    # Issue 34
    Hostile(  # 1: text grids have a size limit
        "grid of 10 MB of zero bytes",
        "big.txt",
        _sparse(10_000_000),
        ScorerError,
        "this file is 10 MB, too large for a text grid (at most 64 KB)",
    ),
    Hostile(
        "grid of 65,537 bytes",
        "just-over.txt",
        _bytes(b"C" + b" " * 65_536),
        ScorerError,
        "this file is 65,537 bytes, too large for a text grid (at most 65,536 bytes)",
    ),
    Hostile(  # 1, 2: a link to /dev/zero is a device, refused unread
        "grid linked to /dev/zero",
        "zero.txt",
        _link_to("/dev/zero"),
        ScorerError,
        "this is a device, not a text grid",
    ),
    Hostile(  # 2: nothing may block
        "grid that is a named pipe",
        "pipe.txt",
        _fifo,
        ScorerError,
        "this is a named pipe (FIFO), not a text grid",
    ),
]


def _ids(rows: list[Hostile]) -> list[Any]:
    return [pytest.param(row, id=row.name) for row in rows]


def _write(row: Hostile, folder: Path) -> Path:
    path = folder / row.filename
    row.make(path)
    return path


def _one_line_error(capsys: pytest.CaptureFixture[str], path: Path, message: str) -> None:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"{path}: ")
    assert lines[0].count(str(path)) == 1, "the path is printed once"
    assert message in lines[0]
    assert len(lines[0]) < len(str(path)) + 300


# --------------------------------------------------------------------------- photos


def test_the_table_is_large_enough() -> None:
    assert len(PHOTOS) + len(GRIDS) + len(NOT_TEXT) + len(MODELS) >= 30
    assert sum(row.name.startswith("JPEG cut") or "last bytes" in row.name for row in PHOTOS) == 10


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
@pytest.mark.parametrize("row", _ids(PHOTOS))
def test_bad_photo_through_the_command_line(
    row: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(row, tmp_path)
    assert main([str(path)]) == 1
    _one_line_error(capsys, path, row.message)


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
@pytest.mark.parametrize("row", _ids(PHOTOS))
def test_bad_photo_through_the_pipeline(row: Hostile, tmp_path: Path) -> None:
    path = _write(row, tmp_path)
    with pytest.raises(row.error, match=re.escape(row.message)) as caught:
        score_photo(load_image(path), Rules())
    assert isinstance(caught.value, ScorerError)
    assert caught.value.hint


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_bad_photos_fail_alone_beside_a_good_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for n, row in enumerate(PHOTOS):
        folder = tmp_path / str(n)
        folder.mkdir()
        paths.append(str(_write(row, folder)))
    good = tmp_path / "good.txt"
    good.write_text("F1 F0 C\n")
    assert main([*paths, str(good), "--json"]) == 1
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == len(PHOTOS)
    results = json.loads(captured.out)
    results = results if isinstance(results, list) else results["results"]
    scored = [r for r in results if r["error"] is None]
    assert [r["input"] for r in scored] == [str(good)]
    assert scored[0]["kingdoms"][0]["score"]["total"] == 2


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_bad_inputs_in_a_fresh_process(tmp_path: Path) -> None:
    """``python -m scorer`` as a player runs it: one line per bad input, no traceback."""
    rows = PHOTOS + GRIDS + NOT_TEXT
    paths = []
    for n, row in enumerate(rows):
        folder = tmp_path / str(n)
        folder.mkdir()
        paths.append(_write(row, folder))
    result = subprocess.run(
        [sys.executable, "-m", "scorer", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == len(rows), result.stderr
    for line, path, row in zip(lines, paths, rows, strict=True):
        assert line.startswith(f"{path}: ") and row.message in line, (row.name, line)


# --------------------------------------------------------------------------- text grids


@pytest.mark.parametrize("row", _ids(GRIDS + NOT_TEXT))
def test_bad_grid_through_the_command_line(
    row: Hostile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(row, tmp_path)
    assert main([str(path)]) == 1
    _one_line_error(capsys, path, row.message)


@pytest.mark.parametrize("row", _ids(GRIDS))
def test_bad_grid_through_the_parser(row: Hostile, tmp_path: Path) -> None:
    text = _write(row, tmp_path).read_text(encoding="utf-8")
    with pytest.raises(GridParseError, match=re.escape(row.message)):
        Kingdom.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "F1 F0 C\r\n",
        "\tF1  F0\tC  \n\n",
        "# a comment\nf1 f0 c\n",
    ],
    ids=["CRLF", "tabs and spaces", "comment, lower case"],
)
def test_harmless_grid_variations_are_read(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "grid.txt"
    path.write_bytes(text.encode("utf-8"))
    rc = main([str(path), "--json"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "F1 F0 C" in captured.out


def test_an_impossible_kingdom_is_flagged_not_silently_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mines.txt"
    path.write_text("M3 M3 C\n")  # the tile set has one M3 square
    main([str(path), "--json"])
    out = capsys.readouterr().out
    results = json.loads(out)
    results = results if isinstance(results, list) else results["results"]
    warnings = results[0]["kingdoms"][0]["warnings"]
    assert warnings, out


# --------------------------------------------------------------------------- model file


@pytest.fixture(scope="module")
def good_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real classifier saved with its metadata, as ``make train`` does."""
    folder = tmp_path_factory.mktemp("model")
    crops = [np.full((64, 64, 3), 17 * i % 256, np.uint8) for i in range(len(classify.TOKENS))]
    features = np.stack([cell_features(c) for c in crops * 2])
    model = fit_cell_classifier(features, list(classify.TOKENS) * 2, kind="logistic", C=0.1)
    classify.save_model(model, folder, {"note": "test model"})
    return folder


def _remove(name: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).unlink()


def _truncate_model(folder: Path) -> None:
    path = folder / classify.MODEL_FILE
    path.write_bytes(path.read_bytes()[:-100])


def _flip_byte(folder: Path) -> None:
    path = folder / classify.MODEL_FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _replace_with_matching_junk(folder: Path) -> None:
    """A file that is not a model, with metadata rewritten to match it."""
    path = folder / classify.MODEL_FILE
    path.write_bytes(b"not a model at all")
    meta_path = folder / classify.METADATA_FILE
    meta = json.loads(meta_path.read_text())
    meta["sha256"] = classify.file_sha256(path)
    meta_path.write_text(json.dumps(meta))


def _other_version(folder: Path) -> None:
    """A model archive of another format version, with metadata rewritten to match it."""
    path = folder / classify.MODEL_FILE
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["header.json"])
    members["header.json"] = json.dumps({**header, "format_version": 99}).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    meta_path = folder / classify.METADATA_FILE
    meta = json.loads(meta_path.read_text())
    meta["sha256"] = classify.file_sha256(path)
    meta_path.write_text(json.dumps(meta))


def _no_version(folder: Path) -> None:
    """A forged archive whose header names no format version, metadata rewritten to match."""
    path = folder / classify.MODEL_FILE
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["header.json"])
    del header["format_version"]
    members["header.json"] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    _record_sha256(folder, classify.file_sha256(path))


def _record_sha256(folder: Path, digest: str) -> None:
    meta_path = folder / classify.METADATA_FILE
    meta = json.loads(meta_path.read_text())
    meta["sha256"] = digest
    meta_path.write_text(json.dumps(meta))


RESTORE = "Restore it with `git checkout models/` or retrain with `make train`"

MODELS: list[Hostile] = [
    Hostile(
        "model missing",
        "",
        _remove(classify.MODEL_FILE),
        ModelFileError,
        f"{classify.MODEL_FILE} is missing",
    ),
    Hostile(
        "metadata missing",
        "",
        _remove(classify.METADATA_FILE),
        ModelFileError,
        "model.json is missing",
    ),
    Hostile(
        "model truncated",
        "",
        _truncate_model,
        ModelFileError,
        "does not match its metadata",
    ),
    Hostile(
        "model tampered",
        "",
        _flip_byte,
        ModelFileError,
        "it is truncated, damaged or was changed",
    ),
    Hostile(
        "model replaced, metadata forged",
        "",
        _replace_with_matching_junk,
        ModelFileError,
        "is forged or damaged (not a model archive",
    ),
    Hostile(
        "model of another format version, metadata forged",
        "",
        _other_version,
        ModelFileError,
        "was written by a newer version of the program (format version 99",
    ),
    Hostile(
        "8: forged archive without a format version, metadata forged",
        "",
        _no_version,
        ModelFileError,
        "is forged or damaged (format version None is no version of this program)",
    ),
    Hostile(
        "8: metadata whose sha256 is not a digest",
        "",
        lambda folder: _record_sha256(folder, "sha256:" + "0" * 64),
        ModelFileError,
        "records the sha256 'sha256:00…', not 64 hexadecimal digits",
    ),
]


@pytest.fixture
def broken_models(good_model: Path, tmp_path: Path) -> Iterator[Callable[[Hostile], Path]]:
    def make(row: Hostile) -> Path:
        folder = tmp_path / "models"
        shutil.copytree(good_model, folder)
        row.make(folder)
        return folder

    yield make


def test_the_good_model_loads(good_model: Path) -> None:
    assert isinstance(classify.load_model(good_model), classify.CellClassifier)


def test_an_upper_case_sha256_in_the_metadata_is_the_same_digest(
    good_model: Path, tmp_path: Path
) -> None:
    """8: hexadecimal in either case is the same number (PowerShell prints upper case)."""
    folder = tmp_path / "models"
    shutil.copytree(good_model, folder)
    _record_sha256(folder, classify.file_sha256(folder / classify.MODEL_FILE).upper())
    assert isinstance(classify.load_model(folder), classify.CellClassifier)


@pytest.mark.parametrize("row", _ids(MODELS))
def test_broken_model_through_the_loader(
    row: Hostile, broken_models: Callable[[Hostile], Path]
) -> None:
    folder = broken_models(row)
    with pytest.raises(ModelFileError, match=re.escape(row.message)) as caught:
        classify.load_model(folder)
    assert RESTORE in str(caught.value)
    assert str(folder) in str(caught.value)


@pytest.mark.parametrize("row", _ids(MODELS))
def test_broken_model_through_the_command_line(
    row: Hostile,
    broken_models: Callable[[Hostile], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = broken_models(row)
    photo = tmp_path / "board.png"
    photo.write_bytes(cv2.imencode(".png", demo_board().image)[1].tobytes())
    monkeypatch.setattr(classify, "MODEL_DIR", folder)
    classify.default_model.cache_clear()
    try:
        assert main([str(photo), "--corners", "0,0,500,0,500,500,0,500"]) == 1
    finally:
        classify.default_model.cache_clear()
    _one_line_error(capsys, photo, row.message)
    capsys.readouterr()


# --------------------------------------------------------------------------- odd but valid


@pytest.fixture(scope="module")
def scene() -> np.ndarray:
    """A generated table photo with one kingdom on it (BGR)."""
    image = make_scene(3, [demo_board()]).image
    return cv2.resize(image, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)


def _sixteen_bit_png(bgr: np.ndarray) -> bytes:
    return cv2.imencode(".png", bgr.astype(np.uint16) * 257)[1].tobytes()


def _cmyk_jpeg(bgr: np.ndarray) -> bytes:
    return _encode(Image.fromarray(bgr[:, :, ::-1]).convert("CMYK"), "JPEG", quality=95)


def _rotated_jpeg(bgr: np.ndarray) -> bytes:
    """The photo stored turned 90° anticlockwise, with EXIF saying "turn it clockwise"."""
    exif = Image.Exif()
    exif[0x0112] = 6
    stored = Image.fromarray(np.ascontiguousarray(np.rot90(bgr[:, :, ::-1], 1)))
    return _encode(stored, "JPEG", quality=95, exif=exif)


def _gray_jpeg(bgr: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))[1].tobytes()


def _rgba_png(bgr: np.ndarray) -> bytes:
    rgba = np.dstack([bgr[:, :, ::-1], np.full(bgr.shape[:2], 255, np.uint8)])
    return _encode(Image.fromarray(rgba, "RGBA"), "PNG")


def _heic(bgr: np.ndarray) -> bytes:
    return _encode(Image.fromarray(bgr[:, :, ::-1]), "HEIF", quality=90)


def _sixteen_bit_gray_png(bgr: np.ndarray) -> bytes:
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    return cv2.imencode(".png", gray.astype(np.uint16) * 257)[1].tobytes()


VALID: list[tuple[str, Callable[[np.ndarray], bytes], str, bool]] = [
    ("16-bit PNG", _sixteen_bit_png, "RGB", True),
    ("16-bit grayscale PNG", _sixteen_bit_gray_png, "I;16", False),
    ("CMYK JPEG", _cmyk_jpeg, "CMYK", True),
    ("EXIF-rotated JPEG", _rotated_jpeg, "RGB", True),
    ("RGBA PNG", _rgba_png, "RGBA", True),
    ("HEIC", _heic, "RGB", True),
    ("grayscale JPEG", _gray_jpeg, "L", False),
]


def test_the_sixteen_bit_files_are_sixteen_bit(scene: np.ndarray) -> None:
    for encode in (_sixteen_bit_png, _sixteen_bit_gray_png):
        data = encode(scene)
        assert data[12:16] == b"IHDR" and data[24] == 16  # bit depth in the PNG header


@pytest.mark.parametrize(
    ("encode", "mode", "colour"), [pytest.param(*v[1:], id=v[0]) for v in VALID]
)
def test_odd_but_valid_photos_load_and_show_their_kingdom(
    scene: np.ndarray, encode: Callable[[np.ndarray], bytes], mode: str, colour: bool
) -> None:
    image, info = load_image_with_info(encode(scene))
    assert info.mode == mode
    assert image.dtype == np.uint8
    assert image.shape == scene.shape
    if not colour:
        gray = cv2.cvtColor(scene, cv2.COLOR_BGR2GRAY)
        assert np.abs(image[:, :, 1].astype(np.int16) - gray).mean() < 4
        return
    difference = np.abs(image.astype(np.int16) - scene.astype(np.int16))
    assert float(difference.mean()) < 12, "colours changed in decoding"
    expected = find_kingdoms(scene)
    found = find_kingdoms(image)
    assert len(found) == len(expected)
    for got, want in zip(found, expected, strict=True):
        assert got.shape == want.shape
        assert np.abs(got.corners - want.corners).max() < 8


# --------------------------------------------------------------------------- issue 34: the rest


def test_a_named_pipe_and_dev_zero_are_refused_at_once_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    """Neither blocks nor fills memory: a clean one-line refusal each, well within 10 s."""
    pipe, grid_pipe = tmp_path / "f.jpg", tmp_path / "f.txt"
    os.mkfifo(pipe)
    os.mkfifo(grid_pipe)
    zero, grid_zero = tmp_path / "zero.jpg", tmp_path / "zero.txt"
    zero.symlink_to("/dev/zero")
    grid_zero.symlink_to("/dev/zero")
    paths = [pipe, grid_pipe, zero, grid_zero, Path("/dev/zero")]
    result = subprocess.run(
        [sys.executable, "-m", "scorer", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        timeout=10,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"{pipe}: this is a named pipe (FIFO), not an image",
        f"{grid_pipe}: this is a named pipe (FIFO), not a text grid",
        f"{zero}: this is a device, not an image",
        f"{grid_zero}: this is a device, not a text grid",
        "/dev/zero: this is a device, not an image",
    ]


@pytest.fixture(scope="module")
def board_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("board") / "board.png"
    path.write_bytes(cv2.imencode(".png", demo_board().image)[1].tobytes())
    return path


CORNERS = [
    pytest.param(  # 4: corners must lie inside the photo
        "5000,5000,5100,5000,5100,5100,5000,5100",
        "the corners marked lie outside the photo: (5000, 5000) is beyond its",
        id="corners far outside the photo",
    ),
    pytest.param(  # 4: and hold the grid
        "10,10,30,10,30,30,10,30",
        "the corners marked are only 20 px apart: too small to hold 5 squares a side",
        id="corners too close to hold a 5×5 grid",
    ),
    pytest.param(  # 7: no numpy RuntimeWarning on stderr
        "inf,0,100,0,100,100,0,100",
        "the corners marked must be finite numbers, not inf or nan",
        id="corners at inf",
    ),
]


@pytest.mark.parametrize(("corners", "message"), CORNERS)
def test_bad_corners_are_refused_in_one_line(
    corners: str, message: str, board_photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(board_photo), "--grid", "5", "--corners", corners]) == 1
    _one_line_error(capsys, board_photo, message)
    with pytest.raises(MarkedCornersError, match=re.escape(message)):
        score_photo(load_image(board_photo), Rules(), grid=5, corners=parse_corners(corners))


def test_corners_at_inf_print_nothing_else_in_a_fresh_process(board_photo: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scorer", str(board_photo), "--corners", "inf,0,1,0,1,1,0,1"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"{board_photo}: the corners marked must be finite numbers, not inf or nan\n"
    )


def test_a_damaged_exif_is_a_note_on_the_result(
    board_photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """7: Pillow's "Corrupt EXIF data" becomes a note on that input, not a line on stderr."""
    exif = b"Exif\x00\x00II*\x00" + struct.pack("<IH", 8, 50) + bytes(20)  # 50 entries, 1 there
    photo = tmp_path / "exif.jpg"
    Image.open(board_photo).convert("RGB").save(photo, "JPEG", quality=95, exif=exif)
    assert main([str(photo), "--json", "--corners", "0,0,500,0,500,500,0,500"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    notes = json.loads(captured.out)["results"][0]["kingdoms"][0]["notes"]
    assert notes[0] == "the photo's EXIF data is damaged; the picture itself was read"


def test_a_dynasty_never_mixes_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """5: anna-1 ben-1 anna-2 ben-3 anna-3 ben-2 ben-4: grouped by name, refused when unequal."""
    names = ["anna-1", "ben-1", "anna-2", "ben-3", "anna-3", "ben-2", "ben-4"]
    paths = []
    for name in names:
        (tmp_path / f"{name}.txt").write_text("F1 F0 C\n")
        paths.append(str(tmp_path / f"{name}.txt"))
    assert main(["--dynasty", *paths]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "cannot rank: a Dynasty needs 3 games per player, but the files group as "
        "anna: anna-1.txt, anna-2.txt, anna-3.txt; ben: ben-1.txt, ben-3.txt, ben-2.txt, "
        "ben-4.txt; name each file PLAYER-GAME (anna-1.jpg), or give each player's files with "
        "--player NAME FILE FILE FILE"
    ]


def _grids(folder: Path, names: list[str]) -> list[str]:
    paths = []
    for name in names:
        path = folder / name
        path.write_text("F1 F0 C\n")
        paths.append(str(path))
    return paths


def _cli(*args: str, **options: Any) -> subprocess.CompletedProcess[bytes]:
    """``python -m scorer`` with its stderr (and, unless given, its stdout) captured."""
    options.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", "scorer", *args],
        stderr=subprocess.PIPE,
        check=False,
        timeout=120,
        **options,
    )


def test_a_name_the_output_cannot_encode_is_written_with_replacements(tmp_path: Path) -> None:
    """6: PYTHONIOENCODING=cp1252 and a snowman in the name: replaced, not a traceback."""
    (path,) = _grids(tmp_path, ["Königreich über 5×5 — ☃.txt"])
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    for flags in ([], ["--json"]):
        result = _cli(path, *flags, env=env)
        assert result.returncode == 0, result.stderr
        assert result.stderr == b""
        out = result.stdout.decode("cp1252")
        assert "Königreich über 5×5 — ?.txt" in out


def test_a_reader_that_closes_after_10_bytes_gets_no_traceback(tmp_path: Path) -> None:
    """6: ``--json | head -c 10``: the program ends quietly, with no traceback on stderr."""
    paths = _grids(tmp_path, [f"grid-{i}.txt" for i in range(400)])  # far past a pipe's buffer
    process = subprocess.Popen(
        [sys.executable, "-m", "scorer", "--json", *paths],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    head = process.stdout.read(10)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=120) == 141  # 128 + SIGPIPE, as a tool killed by it
    assert head == b'{\n  "resul'
    assert err == b""


def test_closed_output_and_a_full_disk_are_one_line(tmp_path: Path) -> None:
    """6: ``>&-`` and ``> /dev/full``: one line on stderr and exit code 1, no traceback."""
    paths = _grids(tmp_path, [f"grid-{i}.txt" for i in range(3)])
    closed = subprocess.run(
        [sys.executable, "-m", "scorer", *paths],
        stdout=None,
        stderr=subprocess.PIPE,
        check=False,
        timeout=120,
        preexec_fn=lambda: os.close(1),
    )
    assert closed.returncode == 1
    assert closed.stderr == (
        b"kingdomino-score: cannot write the results: standard output is closed\n"
    )
    if Path("/dev/full").exists():
        with open("/dev/full", "wb") as full:
            result = _cli(*paths, "--json", stdout=full)
        assert result.returncode == 1
        assert result.stderr == (
            b"kingdomino-score: cannot write the results: No space left on device\n"
        )


def test_store_rows(tmp_path: Path) -> None:
    """9: a text total is a StoreError; a foreign file leaves nothing beside it; a FIFO as
    the games file is refused at once."""
    path = tmp_path / "games.sqlite3"
    store = GameStore(path)
    store.save_game(
        "Sunday", [("Ann", Kingdom.parse("F1 F0 C")), ("Ben", Kingdom.parse("C"))], Rules()
    )
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE players SET total = 'forty' WHERE seat = 1")
    with pytest.raises(StoreError, match=re.escape("has an unreadable total for Ben: 'forty'")):
        store.games()

    foreign = tmp_path / "photos.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    conn.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(StoreError, match="another program's database"):
        GameStore(foreign)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no empty -wal, -shm

    fifo = tmp_path / "fifo.sqlite3"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match=re.escape(f"the games file {fifo} is a named pipe")):
        GameStore(fifo)


def test_the_page_reads_at_most_eight_typed_kingdoms() -> None:
    """11: 500 kingdoms typed at once are not all read; the page says so."""
    kingdoms, problems = parse_grids("F1 F0 C\n\n" * 500)
    assert len(kingdoms) == MAX_TYPED_KINGDOMS == 8
    assert problems[0].message == (
        "500 kingdoms were typed; a game has at most 4 players, and only the first 8 are read."
    )
