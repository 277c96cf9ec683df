"""Fuzzing the image loader: whatever the bytes, only the named errors come out.

Two kinds of input: raw random bytes, and valid images in every supported
type and colour form, damaged the ways files get damaged (cut short, bits
flipped, ranges overwritten, bytes inserted or dropped, header sizes changed).
Every input must either decode to a BGR ``uint8`` H×W×3 array within the
pixel limit, or raise :class:`NotAnImageError` or :class:`ImageTooLargeError`;
anything else (another exception, a wrong shape, a slow decode) fails.

``make test`` runs a few hundred inputs. The long run::

    KINGDOMINO_FUZZ_EXAMPLES=100000 .venv/bin/pytest tests/fuzz -s -q

prints how many inputs each harness tried and what became of them.
"""

from __future__ import annotations

import io
import os
import struct
import time
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from scorer.photo.imageio import load_image
from scorer.rules.errors import ImageTooLargeError, NotAnImageError

LONG_RUN = "KINGDOMINO_FUZZ_EXAMPLES" in os.environ
"""The long run draws new inputs each time; ``make test`` draws the same ones every run."""

EXAMPLES = int(os.environ.get("KINGDOMINO_FUZZ_EXAMPLES", "150"))
"""Inputs per harness: small by default, raised by the environment for the long run."""

MAX_PIXELS = 4_000_000
"""A lower limit than the product's, so damaged headers exercise the limit cheaply."""

SLOWEST_S = 5.0
"""No single input may take longer than this to load or refuse."""


def _encode(image: Image.Image, fmt: str, **options: Any) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


def _seeds() -> list[bytes]:
    """Small valid files: every supported type and the colour forms cameras and editors write."""
    rng = np.random.default_rng(7)
    small = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
    rgb = Image.fromarray(cv2.resize(small, (40, 30), interpolation=cv2.INTER_CUBIC))
    exif = Image.Exif()
    exif[0x0112] = 6
    gray16 = (np.arange(30 * 40, dtype=np.uint32).reshape(30, 40) * 50).astype(np.uint16)
    seeds = [
        _encode(rgb, "JPEG", quality=80),
        _encode(rgb, "JPEG", quality=80, progressive=True),
        _encode(rgb, "JPEG", exif=exif),
        _encode(rgb.convert("CMYK"), "JPEG"),
        _encode(rgb.convert("L"), "JPEG"),
        _encode(rgb, "PNG"),
        _encode(rgb.convert("RGBA"), "PNG"),
        _encode(rgb.convert("P"), "PNG", transparency=0),
        _encode(rgb.convert("LA"), "PNG"),
        _encode(rgb, "PNG", exif=exif),
        cv2.imencode(".png", gray16)[1].tobytes(),
        cv2.imencode(".png", np.dstack([gray16] * 3))[1].tobytes(),
        _encode(rgb, "WEBP"),
        _encode(rgb.convert("RGBA"), "WEBP", lossless=True),
        _encode(rgb.convert("P"), "GIF"),
        _encode(rgb, "BMP"),
        _encode(rgb, "TIFF"),
        _encode(rgb, "TIFF", compression="tiff_deflate"),
        _encode(rgb.convert("1"), "TIFF"),
        _encode(rgb, "HEIF", quality=50),
    ]
    return seeds


SEEDS = _seeds()


@st.composite
def damaged_images(draw: st.DrawFn) -> bytes:
    """A valid seed file with one to four kinds of damage."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(_DAMAGE))
        kind(draw, data)
    return bytes(data)


def _cut(draw: st.DrawFn, data: bytearray) -> None:
    del data[draw(st.integers(0, len(data))) :]


def _flip(draw: st.DrawFn, data: bytearray) -> None:
    if data:
        i = draw(st.integers(0, len(data) - 1))
        data[i] ^= 1 << draw(st.integers(0, 7))


def _overwrite(draw: st.DrawFn, data: bytearray) -> None:
    if data:
        i = draw(st.integers(0, len(data) - 1))
        patch = draw(st.binary(min_size=1, max_size=16))
        data[i : i + len(patch)] = patch


def _insert(draw: st.DrawFn, data: bytearray) -> None:
    i = draw(st.integers(0, len(data)))
    data[i:i] = draw(st.binary(min_size=1, max_size=64))


def _drop(draw: st.DrawFn, data: bytearray) -> None:
    if data:
        i = draw(st.integers(0, len(data) - 1))
        del data[i : i + draw(st.integers(1, 64))]


def _header_number(draw: st.DrawFn, data: bytearray) -> None:
    """Overwrite a 16- or 32-bit number in the first 64 bytes: sizes, offsets, lengths."""
    if len(data) >= 8:
        i = draw(st.integers(0, min(len(data), 64) - 4))
        value = draw(st.sampled_from([0, 1, 255, 256, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF]))
        fmt = draw(st.sampled_from([">H", "<H", ">I", "<I"]))
        packed = struct.pack(fmt, value & (0xFFFF if fmt.endswith("H") else 0xFFFFFFFF))
        data[i : i + len(packed)] = packed


def _repeat(draw: st.DrawFn, data: bytearray) -> None:
    if data:
        i = draw(st.integers(0, len(data) - 1))
        piece = data[i : i + draw(st.integers(1, 256))]
        data[i:i] = piece * draw(st.integers(1, 8))


_DAMAGE: list[Callable[[st.DrawFn, bytearray], None]] = [
    _cut,
    _flip,
    _overwrite,
    _insert,
    _drop,
    _header_number,
    _repeat,
]

ANY_BYTES = st.one_of(
    st.binary(max_size=2048),
    damaged_images(),
    st.sampled_from(SEEDS),
)


def test_the_loader_only_raises_named_errors() -> None:
    outcomes: Counter[str] = Counter()
    slowest = 0.0

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
        derandomize=not LONG_RUN,
    )
    @given(ANY_BYTES)
    def check(data: bytes) -> None:
        nonlocal slowest
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # Pillow warns about damaged EXIF and bombs
                image = load_image(data, max_pixels=MAX_PIXELS)
        except (NotAnImageError, ImageTooLargeError) as err:
            assert str(err)
            outcomes[type(err).__name__] += 1
        else:
            assert image.dtype == np.uint8
            assert image.ndim == 3 and image.shape[2] == 3
            assert 0 < image.shape[0] * image.shape[1] <= MAX_PIXELS
            assert image.flags["C_CONTIGUOUS"]
            outcomes["decoded"] += 1
        elapsed = time.perf_counter() - start
        slowest = max(slowest, elapsed)
        assert elapsed < SLOWEST_S, f"{elapsed:.1f} s for one input"

    check()
    total = sum(outcomes.values())
    print(f"\nloader fuzz: {total} inputs tried, {dict(outcomes)}, slowest {slowest * 1000:.0f} ms")
    assert outcomes["decoded"] > 0 and outcomes["NotAnImageError"] > 0


def test_every_seed_is_a_valid_image() -> None:
    for data in SEEDS:
        image = load_image(data)
        assert image.shape[2] == 3 and min(image.shape[:2]) == 30
