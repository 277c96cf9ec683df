"""Kingdoms the players confirmed, kept on this computer to improve recognition (opt-in).

When the player turns on "Help improve recognition on this computer", each kingdom they
confirm is kept in a local folder: its rectified image (the squares the classifier read,
at the size it read them, as PNG), the final grid, the grid as read with the squares the
player corrected and what each was read as, the corners on the photo and the sha256 of
the photo. The whole photo is kept only when the player asks for it too. The folder is
``$KINGDOMINO_CORRECTIONS``, else ``confirmed`` in the user's data folder; ``index.jsonl``
in it holds one JSON row per kingdom. Nothing leaves the computer by itself: a player
may export a bundle (:meth:`ConfirmedStore.export_bundle`, one ``.zip`` with a manifest
and sha256 checksums) and give it to someone, who imports it
(:meth:`ConfirmedStore.import_bundle`). An import trusts nothing in the bundle: it
refuses one over the size limits, with a member name that is not one of ours (``../x``),
a file that is not what the manifest says, or only kingdoms already kept; files are
written under names made here, never under a name from the bundle.

>>> import tempfile
>>> import numpy as np
>>> from scorer.rules.kingdom import Kingdom
>>> store = ConfirmedStore(Path(tempfile.mkdtemp()))
>>> read = Kingdom.parse("W0 C")
>>> item = store.save(np.zeros((40, 80, 3), np.uint8), Kingdom.parse(". C"), read, photo=b"x")
>>> [(c.position, c.read_as.token) for c in item.corrections], store.summary().squares
([((0, 0), 'W0')], 2)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from scorer import i18n
from scorer.files import check_regular, read_limited, user_data_path
from scorer.i18n import N_, _
from scorer.rules.errors import StoreError
from scorer.rules.kingdom import Cell, GridParseError, Kingdom, Position

ENV_VAR: Final = "KINGDOMINO_CORRECTIONS"
"""Environment variable naming the folder of confirmed kingdoms; the user's data folder when
unset."""

INDEX_FILE: Final = "index.jsonl"
"""The index in the folder: one JSON row per kept kingdom."""

MANIFEST: Final = "manifest.json"
"""The member of a bundle that lists its kingdoms and the sha256 and size of every file."""

FORMAT: Final = "kingdomino-confirmed"
"""The name a bundle's manifest gives its format."""

FORMAT_VERSION: Final = 1
"""The layout of the index rows and bundles this program writes and reads."""

MAX_BUNDLE_BYTES: Final = 256 << 20
"""The largest bundle imported: about a thousand kingdoms with their photos."""

MAX_MEMBER_BYTES: Final = 32 << 20
"""The largest file inside a bundle once unpacked (a full photo is at most this)."""

MAX_MANIFEST_BYTES: Final = 4 << 20
"""The largest manifest: :data:`MAX_ITEMS` rows of well under a kilobyte each."""

MAX_INDEX_BYTES: Final = 64 << 20
"""The largest index read: many imported bundles' rows."""

MAX_ITEMS: Final = 5000
"""The most kingdoms one bundle may hold."""

MAX_IMAGE_SIDE: Final = 4096
"""The largest side, in pixels, of a rectified kingdom image imported (7 squares of 585 px)."""

_ID: Final = re.compile(r"[0-9a-f]{16}")
MEMBER_NAME: Final = re.compile(r"([0-9a-f]{16})(\.png|-photo\.(jpg|png|webp|heic|heif|bin))")
"""The only file names the folder and a bundle hold besides the index and the manifest: a
kingdom's id with ``.png`` (its image) or ``-photo.`` and a photo type (its photo)."""
_SHA256: Final = re.compile(r"[0-9a-f]{64}")
_PNG_MAGIC: Final = b"\x89PNG\r\n\x1a\n"


class ConfirmedStoreError(StoreError):
    """The folder of confirmed kingdoms cannot be used; nothing was changed in it."""

    hint = N_(
        "Nothing was changed. Delete the folder's data from the “Your recognition data” "
        "panel, or set KINGDOMINO_CORRECTIONS to another folder."
    )


class BundleError(ConfirmedStoreError):
    """A bundle cannot be imported: too large, damaged, tampered with or already imported."""

    hint = N_(
        "Nothing was imported. Ask for the bundle again, exported from the page or with the CLI."
    )


@dataclass(frozen=True)
class Correction:
    """One square the player changed: where, and what it was read as."""

    position: Position
    read_as: Cell

    def to_json(self) -> dict[str, Any]:
        """The correction as an index row writes it."""
        return {"row": self.position[0], "col": self.position[1], "from": self.read_as.token}


@dataclass(frozen=True)
class ConfirmedKingdom:
    """One kept kingdom: a row of the index.

    Attributes
    ----------
    id : str
        16 hex digits: the start of :attr:`image_sha256`, and the image's file name.
    created : str
        When it was kept, ISO 8601 in UTC.
    kingdom : Kingdom
        The grid the player confirmed, in the orientation of the image.
    read : Kingdom
        The grid as the program read it; it differs at :attr:`corrections` only.
    corners : tuple of (float, float) or None
        The kingdom's corners on the photo, clockwise from the top-left.
    photo_sha256 : str
        sha256 of the photo's file; kingdoms of one photo share it (a training group).
    image_sha256 : str
        sha256 of the rectified image's PNG file.
    photo : str or None
        The file name of the whole photo, when the player chose to keep it.
    photo_file_sha256 : str or None
        sha256 of that file.
    bundle : str or None
        sha256 of the bundle it was imported from; None for a kingdom kept here.
    """

    id: str
    created: str
    kingdom: Kingdom
    read: Kingdom
    corners: tuple[tuple[float, float], ...] | None
    photo_sha256: str
    image_sha256: str
    photo: str | None = None
    photo_file_sha256: str | None = None
    bundle: str | None = None

    @property
    def image(self) -> str:
        """The rectified image's file name."""
        return f"{self.id}.png"

    @property
    def corrections(self) -> tuple[Correction, ...]:
        """The squares the player corrected, row by row."""
        return tuple(
            Correction(pos, self.read[pos])
            for pos, cell in self.kingdom.cells()
            if self.read[pos] != cell
        )

    @property
    def squares(self) -> int:
        """How many squares the kingdom has."""
        return self.kingdom.height * self.kingdom.width

    def to_json(self) -> dict[str, Any]:
        """The row as the index and a bundle's manifest write it."""
        return {
            "version": FORMAT_VERSION,
            "id": self.id,
            "created": self.created,
            "grid": self.kingdom.format(),
            "read": self.read.format(),
            "corrected": [c.to_json() for c in self.corrections],
            "corners": None if self.corners is None else [list(p) for p in self.corners],
            "photo_sha256": self.photo_sha256,
            "image": self.image,
            "image_sha256": self.image_sha256,
            "photo": self.photo,
            "photo_file_sha256": self.photo_file_sha256,
            "bundle": self.bundle,
        }

    @classmethod
    def from_json(cls, row: object) -> ConfirmedKingdom:
        """Read an index row back; raise ValueError, with the reason, on any odd value."""
        if not isinstance(row, dict):
            raise ValueError(_("a row is not a JSON object"))
        if row.get("version") != FORMAT_VERSION:
            raise ValueError(
                _(
                    "a row has version {found}, not {version}",
                    found=repr(row.get("version")),
                    version=FORMAT_VERSION,
                )
            )
        ident = _text(row, "id")
        if not _ID.fullmatch(ident):
            raise ValueError(_("a row's id {ident} is not 16 hex digits", ident=repr(ident)))
        try:
            kingdom = Kingdom.parse(_text(row, "grid"))
            read = Kingdom.parse(_text(row, "read"))
        except GridParseError as err:
            raise ValueError(
                _(
                    "row {ident} has an unreadable grid: {reason}",
                    ident=ident,
                    reason=i18n.message(err),
                )
            ) from None
        if kingdom.shape != read.shape:
            raise ValueError(
                _("row {ident}: the grid read and the grid confirmed differ in size", ident=ident)
            )
        image_sha = _text(row, "image_sha256")
        if not _SHA256.fullmatch(image_sha) or not image_sha.startswith(ident):
            raise ValueError(_("row {ident} has an odd image_sha256", ident=ident))
        photo = row.get("photo")
        if photo is not None and (
            not isinstance(photo, str)
            or not (m := MEMBER_NAME.fullmatch(photo))
            or m.group(1) != ident
            or m.group(2) == ".png"
        ):
            raise ValueError(
                _("row {ident} names an odd photo file: {name}", ident=ident, name=repr(photo))
            )
        item = cls(
            id=ident,
            created=_text(row, "created"),
            kingdom=kingdom,
            read=read,
            corners=_corners(row.get("corners"), ident),
            photo_sha256=_hash(row, "photo_sha256"),
            image_sha256=image_sha,
            photo=photo,
            photo_file_sha256=None if photo is None else _hash(row, "photo_file_sha256"),
            bundle=None if row.get("bundle") is None else _hash(row, "bundle"),
        )
        if row.get("corrected") != [c.to_json() for c in item.corrections]:
            raise ValueError(
                _("row {ident}: its corrected squares do not match its two grids", ident=ident)
            )
        return item


@dataclass(frozen=True)
class Summary:
    """What the folder holds, in counts."""

    kingdoms: int
    squares: int
    corrected: int
    photos: int
    bytes: int


@dataclass(frozen=True)
class ImportResult:
    """What an import did: the kingdoms added and those skipped as already kept."""

    added: tuple[str, ...]
    duplicates: tuple[str, ...]
    bundle_sha256: str


def default_folder() -> Path:
    """The folder of confirmed kingdoms: ``$KINGDOMINO_CORRECTIONS`` if set, else
    ``confirmed`` in the user's data folder.

    Returns
    -------
    Path
        Where :class:`ConfirmedStore` keeps kingdoms when given no folder.
    """
    return user_data_path(ENV_VAR, "confirmed")


def sha256(data: bytes) -> str:
    """The sha256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


class ConfirmedStore:
    """The kept kingdoms in one folder: PNG images, photos if kept, and ``index.jsonl``.

    Every write goes to a temporary file in the folder first and then replaces its target,
    so a crash leaves either the old index or the new one, never half of one. The folder is
    created on the first save only; looking at a missing folder shows no kingdoms.

    Parameters
    ----------
    folder : Path, optional
        :func:`default_folder` when omitted.
    """

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_folder()

    # ----------------------------------------------------------------- reading

    def items(self) -> list[ConfirmedKingdom]:
        """The kept kingdoms, oldest first.

        Raises
        ------
        ConfirmedStoreError
            The index cannot be read or holds a row that is not one of ours.
        """
        path = self.folder / INDEX_FILE
        raw = _read(path, MAX_INDEX_BYTES, missing_ok=True)
        items = []
        for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append(ConfirmedKingdom.from_json(json.loads(line)))
            except ValueError as err:
                raise ConfirmedStoreError(
                    _("{path}, line {line}: {problem}", path=path, line=number, problem=err)
                ) from None
        return items

    def summary(self) -> Summary:
        """How many kingdoms, squares, corrected squares and photos are kept, and their bytes."""
        items = self.items()
        files = [self.folder / i.image for i in items] + [
            self.folder / i.photo for i in items if i.photo
        ]
        return Summary(
            kingdoms=len(items),
            squares=sum(i.squares for i in items),
            corrected=sum(len(i.corrections) for i in items),
            photos=sum(i.photo is not None for i in items),
            bytes=sum(f.stat().st_size for f in files if f.is_file()),
        )

    def image(self, item: ConfirmedKingdom) -> np.ndarray:
        """The rectified image of a kept kingdom, BGR uint8.

        Raises
        ------
        ConfirmedStoreError
            The file is missing, or is not the one the index names.
        """
        path = self.folder / item.image
        data = _read(path, MAX_MEMBER_BYTES)
        if sha256(data) != item.image_sha256:
            raise ConfirmedStoreError(
                _("{path} is not the image the index names (its sha256)", path=path)
            )
        return decode_png(data, item.kingdom.shape, str(path), ConfirmedStoreError)

    # ----------------------------------------------------------------- writing

    def save(
        self,
        board: np.ndarray,
        kingdom: Kingdom,
        read: Kingdom,
        *,
        photo: bytes,
        corners: Sequence[Sequence[float]] | None = None,
        keep_photo: bool = False,
        photo_suffix: str = "jpg",
    ) -> ConfirmedKingdom:
        """Keep a kingdom the player confirmed; keeping the same image again replaces its row.

        Parameters
        ----------
        board : numpy.ndarray
            The rectified kingdom as the classifier read it, BGR uint8.
        kingdom : Kingdom
            The grid the player confirmed.
        read : Kingdom
            The grid as the program read it (same size).
        photo : bytes
            The photo's file: its sha256 is kept, and the file itself only with ``keep_photo``.
        corners : sequence of (x, y), optional
            The kingdom's four corners on the photo.
        keep_photo : bool
            Keep the whole photo too.
        photo_suffix : str
            The photo's file type, for its file name (``jpg``, ``png``, ``webp``, ``heic``).

        Returns
        -------
        ConfirmedKingdom
            The row kept.

        Raises
        ------
        ValueError
            The grids differ in size, or the image does not fit the grid.
        ConfirmedStoreError
            The folder cannot be written; the index is left as it was.
        """
        if kingdom.shape != read.shape:
            raise ValueError(
                _(
                    "the grid read is {read}, the one confirmed {confirmed}",
                    read=read.shape,
                    confirmed=kingdom.shape,
                )
            )
        _check_board(board, kingdom.shape)
        ok, encoded = cv2.imencode(".png", board)
        if not ok:  # pragma: no cover - OpenCV encodes any uint8 BGR image
            raise ValueError(_("the kingdom image could not be encoded"))
        png = encoded.tobytes()
        image_sha = sha256(png)
        ident = image_sha[:16]
        suffix = photo_suffix.lower().lstrip(".")
        suffix = suffix if MEMBER_NAME.fullmatch(f"{ident}-photo.{suffix}") else "bin"
        photo_name = f"{ident}-photo.{suffix}" if keep_photo else None
        item = ConfirmedKingdom(
            id=ident,
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            kingdom=kingdom,
            read=read,
            corners=None if corners is None else tuple((float(x), float(y)) for x, y in corners),
            photo_sha256=sha256(photo),
            image_sha256=image_sha,
            photo=photo_name,
            photo_file_sha256=sha256(photo) if keep_photo else None,
        )
        items = [i for i in self.items() if i.id != ident]
        self._write_file(item.image, png)
        if photo_name is not None:
            self._write_file(photo_name, photo)
        self._write_index([*items, item])
        return item

    def delete(self, ident: str) -> bool:
        """Forget one kept kingdom and delete its files; return whether it was kept."""
        items = self.items()
        gone = [i for i in items if i.id == ident]
        if not gone:
            return False
        self._write_index([i for i in items if i.id != ident])
        for item in gone:
            self._remove(item)
        return True

    def delete_all(self) -> int:
        """Forget every kept kingdom and delete their files; return how many there were."""
        items = self.items()
        if not self.folder.is_dir():
            return 0
        self._write_index([])
        try:
            for path in self.folder.iterdir():  # files of kingdoms a crash left unindexed too
                if MEMBER_NAME.fullmatch(path.name) or path.name.startswith(".tmp-"):
                    path.unlink(missing_ok=True)
            (self.folder / INDEX_FILE).unlink(missing_ok=True)
        except OSError as err:
            raise ConfirmedStoreError(
                _(
                    "cannot delete in {folder}: {reason}",
                    folder=self.folder,
                    reason=err.strerror or err,
                )
            ) from None
        return len(items)

    # ----------------------------------------------------------------- bundles

    def export_bundle(self) -> bytes:
        """Every kept kingdom in one ``.zip``: ``manifest.json`` with the rows and the sha256
        and size of each file, then the files. The same kingdoms give the same bytes.

        Raises
        ------
        ConfirmedStoreError
            A file the index names is missing or changed.
        """
        from scorer.confirmed_bundle import write_bundle  # the bundle module builds on this one

        items = self.items()
        files: dict[str, bytes] = {}
        for item in items:
            files[item.image] = self._checked(item.image, item.image_sha256)
            if item.photo is not None and item.photo_file_sha256 is not None:
                files[item.photo] = self._checked(item.photo, item.photo_file_sha256)
        return write_bundle(items, files)

    def import_bundle(self, data: bytes) -> ImportResult:
        """Add the kingdoms of a bundle that are not kept yet (by the sha256 of their image).

        Everything is checked before anything is written
        (:func:`scorer.confirmed_bundle.read_bundle`): the sizes, every member's name (one
        of ours, no folders, no ``..``), the manifest, and each file against the manifest's
        sha256 and size and the row's image hash. Files are written under the names this
        program makes from each kingdom's id.

        Raises
        ------
        BundleError
            The bundle breaks a limit, is damaged or tampered with, or holds only kingdoms
            already kept; nothing was written.
        """
        from scorer.confirmed_bundle import read_bundle  # the bundle module builds on this one

        bundle_sha = sha256(data)
        rows, files = read_bundle(data)
        items = self.items()
        kept = {i.image_sha256 for i in items}
        new = [r for r in rows if r.image_sha256 not in kept]
        duplicates = tuple(r.id for r in rows if r.image_sha256 in kept)
        if not new:
            raise BundleError(
                _(
                    "every kingdom of this bundle ({n}) is already kept: nothing to import",
                    n=i18n.number(len(rows)),
                )
            )
        for row in new:
            item = replace(row, bundle=row.bundle or bundle_sha)
            self._write_file(item.image, files[item.image])
            if item.photo is not None:
                self._write_file(item.photo, files[item.photo])
            items.append(item)
        self._write_index(items)
        return ImportResult(tuple(r.id for r in new), duplicates, bundle_sha)

    # ----------------------------------------------------------------- files

    def _checked(self, name: str, expected: str) -> bytes:
        path = self.folder / name
        data = _read(path, MAX_MEMBER_BYTES)
        if sha256(data) != expected:
            raise ConfirmedStoreError(
                _("{path} changed since it was kept (its sha256 differs)", path=path)
            )
        return data

    def _write_file(self, name: str, data: bytes) -> None:
        """Write ``data`` as ``name`` in the folder: a temporary file, then a rename."""
        if not MEMBER_NAME.fullmatch(name) and name != INDEX_FILE:
            raise ValueError(_("not a file name of the folder: {name}", name=repr(name)))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.folder / name)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as err:
            raise ConfirmedStoreError(
                _(
                    "cannot write in {folder}: {reason}",
                    folder=self.folder,
                    reason=err.strerror or err,
                )
            ) from None

    def _write_index(self, items: Iterable[ConfirmedKingdom]) -> None:
        lines = [json.dumps(i.to_json(), sort_keys=True) for i in items]
        self._write_file(INDEX_FILE, "".join(f"{line}\n" for line in lines).encode("utf-8"))

    def _remove(self, item: ConfirmedKingdom) -> None:
        for name in (item.image, item.photo):
            if name is not None:
                try:
                    (self.folder / name).unlink(missing_ok=True)
                except OSError as err:
                    raise ConfirmedStoreError(
                        _(
                            "cannot delete {path}: {reason}",
                            path=self.folder / name,
                            reason=err.strerror or err,
                        )
                    ) from None


# --------------------------------------------------------------------------- values


def _read(path: Path, limit: int, *, missing_ok: bool = False) -> bytes:
    """A file of the folder, refused unread when it is not a regular file or is too large;
    empty for a missing file with ``missing_ok``."""
    try:
        if missing_ok and check_regular(path, what="a file", error=ConfirmedStoreError) is None:
            return b""
        return read_limited(
            path,
            limit,
            what="a file",
            error=ConfirmedStoreError,
            too_large=lambda n: ConfirmedStoreError(
                _(
                    "{size} bytes, more than {limit}",
                    size=i18n.number(n),
                    limit=i18n.number(limit),
                )
            ),
        )
    except ConfirmedStoreError as err:
        raise ConfirmedStoreError(
            _("cannot read {path}: {reason}", path=path, reason=err)
        ) from None


def _check_board(board: np.ndarray, shape: tuple[int, int]) -> None:
    """Refuse an image that is not a BGR uint8 picture of about ``shape``'s proportions."""
    if board.dtype != np.uint8 or board.ndim != 3 or board.shape[2] != 3:
        raise ValueError(
            _(
                "the kingdom image is not BGR uint8 but {dtype} {shape}",
                dtype=board.dtype,
                shape=board.shape,
            )
        )
    rows, cols = shape
    height, width = board.shape[:2]
    if max(height, width) > MAX_IMAGE_SIDE or min(height // rows, width // cols) < 8:
        raise ValueError(
            _(
                "a {width}×{height} image does not fit a {rows}×{cols} grid",
                width=width,
                height=height,
                rows=rows,
                cols=cols,
            )
        )
    if abs(height / rows - width / cols) > 0.1 * max(height / rows, width / cols):
        raise ValueError(
            _(
                "a {width}×{height} image does not have {rows}×{cols} square squares",
                width=width,
                height=height,
                rows=rows,
                cols=cols,
            )
        )


def decode_png(
    data: bytes, shape: tuple[int, int], name: str, error: type[Exception]
) -> np.ndarray:
    """A PNG file's pixels, its size checked from its header before it is decoded."""
    if data[:8] != _PNG_MAGIC or len(data) < 24 or data[12:16] != b"IHDR":
        raise error(_("{name} is not a PNG image", name=name))
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if max(width, height) > MAX_IMAGE_SIDE:
        raise error(
            _(
                "{name} is {width}×{height} pixels, more than {limit} a side",
                name=name,
                width=width,
                height=height,
                limit=MAX_IMAGE_SIDE,
            )
        )
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise error(_("{name} is a damaged PNG image", name=name))
    try:
        _check_board(image, shape)
    except ValueError as err:
        raise error(_("{name}: {problem}", name=name, problem=err)) from None
    return np.asarray(image, np.uint8)


def _text(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if not isinstance(value, str):
        raise ValueError(_("a row's {key} is not text: {value}", key=key, value=repr(value)))
    return value


def _hash(row: dict[str, Any], key: str) -> str:
    value = _text(row, key)
    if not _SHA256.fullmatch(value):
        raise ValueError(_("a row's {key} is not a sha256: {value}", key=key, value=repr(value)))
    return value


def _corners(value: object, ident: str) -> tuple[tuple[float, float], ...] | None:
    if value is None:
        return None
    try:
        points = tuple((float(x), float(y)) for x, y in value)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise ValueError(_("row {ident} has odd corners", ident=ident)) from None
    if len(points) != 4 or not all(np.isfinite(points).ravel()):
        raise ValueError(_("row {ident} has odd corners", ident=ident))
    return points
