"""Read a photo from a path, bytes or an upload into the program's image form.

This is the one image loader of the command line, the pipeline and the app.
It recognises the file type by its content, never by its name; it reads
regular files only, so a named pipe or a device never blocks it; it refuses
images over a pixel or file-size limit before decoding them, so a
decompression bomb costs nothing; it decodes the whole image and refuses a
file whose data is cut short or that the decoder reports as corrupt (for JPEG,
libjpeg's own "Corrupt JPEG data" warnings, through simplejpeg), so a damaged
upload fails here with a clear message rather than later as a wrong score;
what the decoders would print (Pillow's warnings, libtiff's messages) becomes
a note in :class:`ImageInfo` or the refusal, never a line on stderr;
and it turns every colour form a camera or editor writes (grayscale, 16-bit,
alpha, CMYK, palette, EXIF-rotated, HEIC where pillow-heif is installed) into
one shape: a BGR ``uint8`` array of H×W×3.

>>> import io
>>> from PIL import Image
>>> buf = io.BytesIO()
>>> Image.new("RGB", (4, 3), (255, 0, 0)).save(buf, "PNG")
>>> image = load_image(buf.getvalue())
>>> image.shape, image.dtype.name, image[0, 0].tolist()
((3, 4, 3), 'uint8', [0, 0, 255])
>>> load_image(b"")
Traceback (most recent call last):
...
scorer.rules.errors.NotAnImageError: this file is not a readable image (empty file)
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import io
import os
import re
import struct
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import ExifTags, Image, ImageOps

from scorer.files import amounts, read_limited
from scorer.i18n import N_, _
from scorer.photo import thumbnail
from scorer.rules.errors import DamagedImageError, ImageTooLargeError, NotAnImageError

try:  # libjpeg-turbo with its warnings turned into errors: how damaged JPEG data is found
    import simplejpeg
except ImportError:  # pragma: no cover - a declared dependency; without it JPEG damage
    simplejpeg = None  # shows only where Pillow itself fails

HEIF_SUPPORTED: Final = importlib.util.find_spec("pillow_heif") is not None
"""Whether HEIC/HEIF photos from phones can be read (pillow-heif is optional at run time).
Its reader is registered with Pillow only when such a photo comes (:func:`_heif_reader`),
so that a JPEG does not wait for its import."""

MAX_PIXELS: Final = 60_000_000
"""Default pixel limit: above every phone camera in common use, far below a bomb."""

MAX_BYTES: Final = 50_000_000
"""Default file-size limit in bytes (50 MB)."""

SUPPORTED: Final = ("JPEG", "PNG", "WebP", "HEIC/HEIF", "AVIF", "GIF", "BMP", "TIFF")
"""The image types the loader accepts, as named to a player."""

BgrImage = NDArray[np.uint8]
"""An image inside the program: OpenCV-convention BGR, ``uint8``, H×W×3."""

Source = str | os.PathLike[str] | bytes | bytearray | memoryview | BinaryIO
"""Anything :func:`load_image` reads: a path, the file's bytes or an open binary file."""


@dataclass(frozen=True)
class ImageInfo:
    """What the loader learnt about a file besides its pixels.

    Attributes
    ----------
    format : str
        The type found from the content: ``"JPEG"``, ``"PNG"``, ``"HEIF"`` …
    size : tuple of int
        ``(width, height)`` as stored, before the EXIF orientation is applied.
    mode : str
        Pillow's colour mode as stored (``"RGB"``, ``"CMYK"``, ``"I;16"`` …).
    orientation : int
        The EXIF orientation tag (1 = upright; 6 = turned 90° clockwise …).
    n_bytes : int
        Size of the file.
    notes : tuple of str
        What the player should know about the file itself, for that input's result (for
        example that its EXIF data is damaged though the picture was read).
    damage : tuple of str
        Where the picture is damaged though most of it was read (a HEIC photo that differs
        from the thumbnail stored with it, :mod:`scorer.photo.thumbnail`): each makes every
        total read from the photo unconfirmed (``score_photo(..., file_damage=...)``).
    """

    format: str
    size: tuple[int, int]
    mode: str
    orientation: int
    n_bytes: int
    notes: tuple[str, ...] = ()
    damage: tuple[str, ...] = ()


def load_image(
    source: Source, *, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_BYTES
) -> BgrImage:
    """Read a photo and return it upright as a BGR ``uint8`` array of H×W×3.

    Parameters
    ----------
    source : path, bytes or binary file
        The photo. Its type is found from its content; the name is ignored.
    max_pixels : int
        Refuse images with more pixels than this, before decoding them.
    max_bytes : int
        Refuse files larger than this, before reading all of them.

    Returns
    -------
    ndarray
        The image in OpenCV's BGR order, EXIF orientation applied; alpha is
        composited on white, 16-bit samples are scaled to 8 bits.

    Raises
    ------
    NotAnImageError
        The file is missing, empty, not a regular file, not an image, or an
        unsupported type; the message says which.
    DamagedImageError
        A :class:`NotAnImageError`: the image's data is cut short or corrupt
        ("this file is damaged (JPEG data is corrupt)").
    ImageTooLargeError
        The image or the file is over the limit; the message gives both numbers.

    Examples
    --------
    >>> load_image(b"Kingdom: G0 L0 F1")
    Traceback (most recent call last):
    ...
    scorer.rules.errors.NotAnImageError: this is a text file, not an image
    """
    return load_image_with_info(source, max_pixels=max_pixels, max_bytes=max_bytes)[0]


def load_image_with_info(
    source: Source, *, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_BYTES
) -> tuple[BgrImage, ImageInfo]:
    """Like :func:`load_image`, and also return what was found in the file.

    Parameters
    ----------
    source : path, bytes or binary file
        The photo.
    max_pixels, max_bytes : int
        The limits of :func:`load_image`.

    Returns
    -------
    image : ndarray
        BGR ``uint8`` H×W×3, upright.
    info : ImageInfo
        Type, stored size and mode, EXIF orientation, file size, notes, and where the
        picture is damaged though most of it was read.
    """
    data = _read_bytes(source, max_bytes)
    kind = sniff(data)
    if kind not in _PILLOW_FORMATS:
        raise NotAnImageError(_not_an_image_message(kind, data))
    pil_format = _PILLOW_FORMATS[kind]
    if kind in _HEIF_KINDS:
        _heif_reader()
    if pil_format not in Image.OPEN:
        Image.preinit()  # JPEG, PNG, GIF, BMP, PPM, without importing Pillow's 40 other readers
    if pil_format not in Image.OPEN:
        Image.init()  # Pillow registers most of its formats only on first use
    if pil_format not in Image.OPEN:
        raise NotAnImageError(
            _("this is a {kind} image, but this installation cannot read {kind}", kind=kind)
            + (" (install pillow-heif)" if kind in ("HEIF", "AVIF") else "")
        )
    with _decoder_messages() as caught:
        array, width, height, mode, orientation, exif, damage = _decode(
            data, kind, pil_format, max_pixels
        )
    notes = ((_(EXIF_NOTE),) if exif else ()) + _notes(caught)
    info = ImageInfo(kind, (width, height), mode, orientation, len(data), notes, damage)
    return array, info


def _decode(
    data: bytes, kind: str, pil_format: str, max_pixels: int
) -> tuple[BgrImage, int, int, str, int, bool, tuple[str, ...]]:
    """Decode the whole image; return it as BGR with its stored size, mode and orientation,
    whether reading its EXIF data gave warnings (damaged EXIF), and where the picture
    differs from its stored thumbnail."""
    _libtiff_errors.clear()
    try:
        im = Image.open(io.BytesIO(data), formats=[pil_format])
    except Image.DecompressionBombError as err:
        raise ImageTooLargeError(_too_many_pixels_message(_bomb_pixels(err), max_pixels)) from None
    except Exception as err:  # any failure to parse hostile data is damage
        raise DamagedImageError(_corrupt_message(kind, data, err)) from None
    with im:
        width, height = im.size
        if width <= 0 or height <= 0:
            raise NotAnImageError(
                _("this file is not a readable image ({kind} header but no pixels)", kind=kind)
            )
        if width * height > max_pixels:
            raise ImageTooLargeError(_too_many_pixels_message(width * height, max_pixels))
        mode = im.mode
        try:
            im.load()
        except Image.DecompressionBombError as err:
            raise ImageTooLargeError(
                _too_many_pixels_message(_bomb_pixels(err), max_pixels)
            ) from None
        except Exception as err:  # a decoder may raise anything on bad data
            raise DamagedImageError(_corrupt_message(kind, data, err)) from None
        if kind == "JPEG":
            _check_jpeg_data(data)
        if _libtiff_errors:  # a TIFF whose strips libtiff could not decode, though Pillow did
            raise DamagedImageError(_("this file is damaged ({kind} data is corrupt)", kind=kind))
        damage = _thumbnail_damage(data, kind, im)
        with warnings.catch_warnings(record=True) as exif_warnings:
            warnings.simplefilter("always")
            orientation = _orientation(im)  # "Corrupt EXIF data", "Tag data larger than file"
        try:
            array = _to_bgr(_upright(im, orientation))
        except Exception as err:  # an odd mode or a bad palette is corrupt data
            raise DamagedImageError(_corrupt_message(kind, data, err)) from None
    exif = False
    for w in exif_warnings:
        if _from_decoder(w):
            exif = True
        else:  # raised meanwhile by another thread: passed on
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return array, width, height, mode, orientation, exif, damage


def _thumbnail_damage(data: bytes, kind: str, im: Image.Image) -> tuple[str, ...]:
    """Where a HEIF picture differs from the thumbnail stored with it: its decoder reports
    no damage inside the compressed picture (:mod:`scorer.photo.thumbnail`).

    A file damaged over most of its picture is refused; otherwise the part is named.
    """
    if kind not in ("HEIF", "AVIF"):
        return ()
    stored = thumbnail.heif_thumbnail(data)
    found = None if stored is None else thumbnail.compare_with_thumbnail(im, stored)
    if found is None:
        return ()
    if found.fraction > thumbnail.MOST_DAMAGED:
        raise DamagedImageError(
            _(
                "this file is damaged ({kind} picture differs from the thumbnail stored with it "
                "over {percent}% of it)",
                kind=kind,
                percent=round(100 * found.fraction),
            )
        )
    return (
        _(
            "the photo file is damaged in {where}: the picture there differs from the "
            "thumbnail stored in the file, so the squares there may be read wrong",
            where=found.where,
        ),
    )


def sniff(data: bytes) -> str | None:
    """Name the file type from its first bytes, or ``None`` when it is not recognised.

    Image types are named as in :data:`SUPPORTED` keys (``"JPEG"``, ``"PNG"``,
    ``"WebP"``, ``"HEIF"``, ``"AVIF"``, ``"GIF"``, ``"BMP"``, ``"TIFF"``); a few
    common non-images are named too (``"PDF"``, ``"ZIP"``, ``"video"`` …).

    Examples
    --------
    >>> sniff(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(8))
    'PNG'
    >>> sniff(b"%PDF-1.7") is None
    False
    >>> sniff(b"hello") is None
    True
    """
    for kind, test in _MAGIC:
        if test(data):
            return kind
    return None


def downscale(image: BgrImage, max_side: int) -> BgrImage:
    """Shrink ``image`` so that its longer side is at most ``max_side`` pixels.

    Parameters
    ----------
    image : ndarray
        BGR ``uint8`` H×W×3.
    max_side : int
        The longest side allowed; smaller images are returned unchanged.

    Returns
    -------
    ndarray
        The image itself when already small enough, else a resized copy
        (area interpolation, aspect ratio kept).

    Examples
    --------
    >>> downscale(np.zeros((400, 1000, 3), np.uint8), 500).shape
    (200, 500, 3)
    """
    if max_side < 1:
        raise ValueError("max_side must be at least 1")
    height, width = image.shape[:2]
    scale = max_side / max(height, width)
    if scale >= 1:
        return image
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


# --------------------------------------------------------------------------- reading


def _read_bytes(source: Source, max_bytes: int) -> bytes:
    """Read the whole file, refusing it before reading past ``max_bytes``."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        _check_file_size(len(data), max_bytes)
        return data
    if isinstance(source, str | os.PathLike):
        # The messages leave the path out: whoever shows them names the input already.
        return read_limited(
            Path(source),
            max_bytes,
            what=_("an image"),
            error=NotAnImageError,
            too_large=lambda n_bytes: ImageTooLargeError(_file_size_message(n_bytes, max_bytes)),
        )
    else:
        try:
            if source.seekable():
                _check_file_size(source.seek(0, os.SEEK_END), max_bytes)
                source.seek(0)
            data = source.read(max_bytes + 1)
        except OSError as err:
            raise NotAnImageError(_("this file cannot be read ({reason})", reason=err)) from None
        if not isinstance(data, bytes | bytearray):
            raise TypeError("load_image needs a file opened in binary mode")
        data = bytes(data)
    if len(data) > max_bytes:
        limit = amounts(max_bytes, max_bytes, 1_000_000, "MB", "bytes")[1]
        raise ImageTooLargeError(_("file is over {limit}; the limit is {limit}", limit=limit))
    return data


def _check_file_size(n_bytes: int, max_bytes: int) -> None:
    if n_bytes > max_bytes:
        raise ImageTooLargeError(_file_size_message(n_bytes, max_bytes))


def _file_size_message(n_bytes: int, max_bytes: int) -> str:
    """``file is 51 MB; the limit is 50 MB``, with the exact sizes where rounding hides them."""
    size, limit = amounts(n_bytes, max_bytes, 1_000_000, "MB", "bytes")
    return _("file is {size}; the limit is {limit}", size=size, limit=limit)


# --------------------------------------------------------------------------- file types

_HEIF_BRANDS: Final = frozenset(
    {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"mif2"}
)
_AVIF_BRANDS: Final = frozenset({b"avif", b"avis"})
_VIDEO_BRANDS: Final = frozenset(
    {b"isom", b"iso2", b"mp41", b"mp42", b"qt  ", b"M4V ", b"3gp4", b"3gp5", b"avc1", b"dash"}
)


def _ftyp_brand(data: bytes) -> bytes | None:
    return data[8:12] if len(data) >= 12 and data[4:8] == b"ftyp" else None


_MAGIC: Final[tuple[tuple[str, Callable[[bytes], bool]], ...]] = (
    ("JPEG", lambda d: d[:3] == b"\xff\xd8\xff"),
    ("PNG", lambda d: d[:8] == b"\x89PNG\r\n\x1a\n"),
    ("WebP", lambda d: d[:4] == b"RIFF" and d[8:12] == b"WEBP"),
    ("HEIF", lambda d: _ftyp_brand(d) in _HEIF_BRANDS),
    ("AVIF", lambda d: _ftyp_brand(d) in _AVIF_BRANDS),
    ("GIF", lambda d: d[:6] in (b"GIF87a", b"GIF89a")),
    ("BMP", lambda d: d[:2] == b"BM" and len(d) >= 6 and not _looks_like_text(d[:64])),
    ("TIFF", lambda d: d[:4] in (b"II*\x00", b"MM\x00*")),
    ("PDF", lambda d: d[:5] == b"%PDF-"),
    ("ZIP", lambda d: d[:4] == b"PK\x03\x04"),
    ("gzip", lambda d: d[:2] == b"\x1f\x8b"),
    ("video", lambda d: _ftyp_brand(d) in _VIDEO_BRANDS or d[:4] == b"\x1aE\xdf\xa3"),
    ("SVG", lambda d: b"<svg" in d[:1024].lower()),
)

_HEIF_KINDS: Final = frozenset({"HEIF", "AVIF"})
"""Kinds that pillow-heif may read where Pillow itself does not."""


@functools.cache
def _heif_reader() -> bool:
    """Register pillow-heif's reader with Pillow, once; whether it could be."""
    try:
        import pillow_heif
    except ImportError:  # pragma: no cover - depends on the installation
        return False
    pillow_heif.register_heif_opener()
    return True


_PILLOW_FORMATS: Final = {
    "JPEG": "JPEG",
    "PNG": "PNG",
    "WebP": "WEBP",
    "HEIF": "HEIF",
    "AVIF": "AVIF",
    "GIF": "GIF",
    "BMP": "BMP",
    "TIFF": "TIFF",
}

_NON_IMAGES: Final = {
    "PDF": N_("this is a PDF document, not an image"),
    "ZIP": N_("this is a ZIP archive, not an image"),
    "gzip": N_("this is a compressed (gzip) file, not an image"),
    "video": N_("this is a video, not a photo"),
    "SVG": N_("this is an SVG drawing, not a photo"),
}


def _not_an_image_message(kind: str | None, data: bytes) -> str:
    if kind in _NON_IMAGES:
        return _(_NON_IMAGES[kind])
    if not data:
        return _("this file is not a readable image (empty file)")
    if _looks_like_text(data):
        return _("this is a text file, not an image")
    return _("this file is not a readable image (unknown file type)")


def _looks_like_text(data: bytes) -> bool:
    head = data[:4096]
    if b"\x00" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 4:  # a real error, not a character cut at 4096
            return False
        text = head[: err.start].decode("utf-8")
    printable = sum(ch.isprintable() or ch in "\t\r\n\f" for ch in text)
    return bool(text) and printable >= 0.95 * len(text)


# --------------------------------------------------------------------------- errors

_BOMB_PIXELS: Final = re.compile(r"\((\d+) pixels\)")


def _bomb_pixels(err: Exception) -> int:
    """The pixel count in Pillow's decompression-bomb message, or its limit when absent."""
    found = _BOMB_PIXELS.search(str(err))
    if found:
        return int(found.group(1))
    return 2 * int(Image.MAX_IMAGE_PIXELS or 0) + 1


def _too_many_pixels_message(pixels: int, max_pixels: int) -> str:
    """``image is 300 megapixels; the limit is 60``; exact counts where rounding hides them."""
    size, limit = amounts(pixels, max_pixels, 1_000_000, "megapixels", "pixels")
    return _(
        "image is {size}; the limit is {limit}", size=size, limit=limit.removesuffix(" megapixels")
    )


def _corrupt_message(kind: str, data: bytes, err: Exception) -> str:
    if _ends_early(kind, data, err):
        return _("this file is damaged ({kind} data ends early)", kind=kind)
    return _("this file is damaged ({kind} data is corrupt)", kind=kind)


_JPEG_DAMAGE: Final = ("Corrupt JPEG data", "Premature end of JPEG file")
"""How libjpeg begins its warnings about damaged data ("Corrupt JPEG data: premature end of
data segment", "… 61 extraneous bytes before marker 0xd9"); Pillow decodes such a file
without a word, filling what it could not read with grey or garbage."""


def _check_jpeg_data(data: bytes) -> None:
    """Refuse a JPEG whose data libjpeg reports as corrupt, though Pillow decoded it.

    The check decodes again at an eighth of the size: libjpeg still reads every coded
    block, so it sees the same damage, in about 20 ms for 12 megapixels (Pillow's own
    decoding takes 70 ms).
    Only libjpeg's warnings about damaged data count; any other complaint (a feature
    libjpeg-turbo's simple API lacks) leaves the picture Pillow decoded as it is.
    """
    if simplejpeg is None:  # pragma: no cover - see the import
        return
    try:
        simplejpeg.decode_jpeg(data, min_height=1, min_width=1, min_factor=8, strict=True)
    except (ValueError, RuntimeError) as err:
        if str(err).startswith(_JPEG_DAMAGE):
            ends = str(err).startswith("Premature end of JPEG file")
            raise DamagedImageError(
                _("this file is damaged ({kind} data ends early)", kind="JPEG")
                if ends
                else _("this file is damaged ({kind} data is corrupt)", kind="JPEG")
            ) from None


# --------------------------------------------------------------------------- decoder messages

_DECODE_LOCK: Final = threading.Lock()
"""Serialises decoding in the loader: ``warnings.catch_warnings`` and libtiff's error
handler are process-wide, so two pages decoding at once take turns."""

_LIBRARIES: Final = (f"{os.sep}PIL{os.sep}", f"{os.sep}pillow_heif{os.sep}")
"""Where the warnings the loader takes over come from; any other is passed on as it was."""

EXIF_NOTE: Final = N_("the photo's EXIF data is damaged; the picture itself was read")
"""The note for Pillow's "Corrupt EXIF data" warning."""


@contextmanager
def _decoder_messages() -> Iterator[list[warnings.WarningMessage]]:
    """Catch what Pillow and pillow-heif warn while a file is decoded, instead of printing it.

    Warnings raised elsewhere meanwhile (another thread) are passed on unchanged.
    """
    mine: list[warnings.WarningMessage] = []
    others: list[warnings.WarningMessage] = []
    try:
        with _DECODE_LOCK, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield mine
            finally:
                for w in caught:
                    (mine if _from_decoder(w) else others).append(w)
    finally:
        for w in others:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def _from_decoder(w: warnings.WarningMessage) -> bool:
    """Whether a warning was raised by Pillow or pillow-heif."""
    return any(lib in w.filename for lib in _LIBRARIES)


def _notes(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    """Notes for the player from the decoders' warnings; the size warning is the loader's own."""
    notes: list[str] = []
    for w in caught:
        if issubclass(w.category, Image.DecompressionBombWarning):
            continue  # the loader's own pixel limit has already decided
        text = " ".join(str(w.message).split())
        note = (
            _(EXIF_NOTE)
            if "EXIF" in text
            else _("the image decoder warned: {text}", text=text[:120])
        )
        if note not in notes:
            notes.append(note)
    return tuple(notes)


_TIFF_HANDLER: Final = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p)
"""libtiff's error handler: ``void (*)(const char *module, const char *fmt, va_list ap)``."""

_libtiff_errors: list[str] = []
"""What libtiff has reported since the loader began decoding (its module and message)."""


def _record_libtiff_error(module: bytes | None, fmt: bytes | None, _args: int | None) -> None:
    """Keep a libtiff error for the loader, instead of printing it."""
    _libtiff_errors.append(
        f"{(module or b'').decode(errors='replace')}: {(fmt or b'').decode(errors='replace')}"
    )


_LIBTIFF_HANDLER: Final = _TIFF_HANDLER(_record_libtiff_error)
""":func:`_record_libtiff_error` as libtiff calls it; kept here, as libtiff holds no reference."""


def _quiet_libtiff() -> None:
    """Take over libtiff's errors ("Using code not yet in table"): they are kept for the
    loader, which refuses the file as damaged, instead of being printed on stderr.

    Pillow turns most of them into an exception too, but leaves libtiff's process-wide
    error handler, which prints, as it is; here it is replaced, once, in the copy of
    libtiff that is loaded (found in the process's memory map, so a system library and
    Pillow's own are both right). Where that cannot be found (not Linux), nothing changes.
    """
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split(None, 5)[-1].strip() for line in maps if "libtiff" in line}
    except OSError:
        return
    for path in sorted(p for p in paths if p.startswith(os.sep)):
        try:
            libtiff = ctypes.CDLL(path)
            libtiff.TIFFSetErrorHandler(_LIBTIFF_HANDLER)
            libtiff.TIFFSetWarningHandler(None)
        except (OSError, AttributeError):
            continue


_quiet_libtiff()  # Pillow's core, imported above, has loaded libtiff


def _ends_early(kind: str, data: bytes, err: Exception) -> bool:
    """Whether a decoding failure is a file cut short rather than damaged bytes."""
    if isinstance(err, EOFError | struct.error) or "truncated" in str(err).lower():
        return True
    if kind == "WebP" and len(data) >= 8:
        declared: int = struct.unpack("<I", data[4:8])[0]
        return declared + 8 > len(data)
    if kind == "PNG":
        return b"IEND" not in data[-12:]
    if kind == "BMP" and len(data) >= 6:
        declared = int.from_bytes(data[2:6], "little")
        return declared > len(data)
    if kind in ("HEIF", "AVIF"):
        return _boxes_end_early(data)
    if kind == "JPEG":
        return b"\xff\xd9" not in data[-64:]
    return False


def _boxes_end_early(data: bytes) -> bool:
    """Whether the top-level boxes of an ISO media file (HEIF, AVIF) run past its end."""
    offset = 0
    while offset + 8 <= len(data):
        size = int.from_bytes(data[offset : offset + 4], "big")
        if size == 1 and offset + 16 <= len(data):  # a 64-bit size follows the type
            size = int.from_bytes(data[offset + 8 : offset + 16], "big")
        elif size == 0:  # the box runs to the end of the file
            return False
        if size < 8:
            return False  # not a box size at all: damaged, not short
        offset += size
    return offset != len(data)


# --------------------------------------------------------------------------- pixels


def _orientation(im: Image.Image) -> int:
    """The EXIF orientation tag, 1 when absent or unreadable."""
    try:
        value = im.getexif().get(ExifTags.Base.Orientation, 1)
    except Exception:  # broken EXIF must not make a good photo unreadable
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _upright(im: Image.Image, orientation: int) -> Image.Image:
    """``im`` turned and flipped as its EXIF orientation tag says (``ImageOps.exif_transpose``).

    ``orientation`` is :func:`_orientation` of ``im``: an image whose EXIF cannot be
    read, or holds no valid tag, is left as it is.
    """
    if orientation == 1:
        return im
    upright = ImageOps.exif_transpose(im)
    return im if upright is None else upright


def _to_bgr(im: Image.Image) -> BgrImage:
    """Convert any decoded Pillow image to BGR ``uint8`` H×W×3."""
    mode = im.mode
    if mode in ("I;16", "I;16L", "I;16B", "I;16N", "I"):
        gray = _scale_16bit(np.asarray(im))
        return np.ascontiguousarray(np.repeat(gray[:, :, None], 3, axis=2))
    if mode == "F":
        values = np.nan_to_num(np.asarray(im, dtype=np.float64), nan=0.0)
        scale = 255.0 if values.size and float(values.max()) <= 1.0 else 1.0
        gray = np.clip(np.rint(values * scale), 0, 255).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(gray[:, :, None], 3, axis=2))
    has_alpha = mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        mode == "P" and "transparency" in im.info
    )
    if has_alpha:
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        rgb = Image.alpha_composite(white, rgba).convert("RGB")
    else:
        rgb = im if mode == "RGB" else im.convert("RGB")
    array = np.asarray(rgb, dtype=np.uint8)
    return np.ascontiguousarray(array[:, :, ::-1])


def _scale_16bit(values: NDArray[np.generic]) -> NDArray[np.uint8]:
    """Map 16-bit samples (0…65535) to 8 bits with rounding: 65535 → 255, 32896 → 128."""
    wide = np.clip(values.astype(np.int64), 0, 65535)
    return ((wide * 255 + 32767) // 65535).astype(np.uint8)
