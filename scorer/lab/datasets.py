"""Load the labelled data sets used to train and measure the square classifier.

Three sets live under the data folder (``$KINGDOMINO_DATA`` or ``../shared/data``
beside the checkout), described in its README:

* ``aau-boards/``: rectified 5×5 boards with text-grid labels and kingdom groups;
* ``phone-tiles/``: single-square crops from phone photos, grouped by photo id;
* ``mighty-duel/``: single-square crops and rectified 7×7 boards.

Every loader returns plain records with BGR uint8 images and :class:`Cell`
labels, plus the group that must never be split between training and
evaluation.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from scorer.confirmed import ConfirmedStore
from scorer.read.cells import split_cells
from scorer.rules.kingdom import CASTLE, EMPTY, Cell, Kingdom, Terrain

DATA_ENV = "KINGDOMINO_DATA"
"""Environment variable naming the data folder."""

_REPO_ROOT = Path(__file__).resolve().parents[2]
_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
_GroupOf = Callable[[Path], str]

PHONE_LABEL_FIXES: Final[Mapping[str, str]] = {
    # file under phone-tiles/ (its folder is the published label): what the crop shows
    "mine_1/IMG_4122_0.jpg": "M2",  # the two-crown mine art, both crowns in full view
    "mine_1/IMG_4140_12.jpg": "S1",  # a swamp (boat art) with one crown
    "mine_1/IMG_4144_11.jpg": "M2",  # the two-crown mine art, both crowns in full view
    "mine_2/board_5.jpg": "S2",  # a swamp (boat art) with two crowns
    "swamp_0/IMG_4048_16.jpg": "S1",  # boat art and a crown inside the tile
    "swamp_0/IMG_4054_20.jpg": "S1",  # boat art and a crown inside the tile
    "swamp_0/IMG_4076_17.jpg": "S1",  # boat art and a crown inside the tile
    "swamp_0/IMG_4124_10.jpg": "S1",  # boat art and a crown inside the tile
    "swamp_0/IMG_4139_29.jpg": "S2",  # boat art and two crowns side by side
    "swamp_1/IMG_20180403_131656_15.jpg": "S2",  # two crowns side by side
    "swamp_1/IMG_20180403_131658_15.jpg": "S2",  # two crowns side by side
    "swamp_1/IMG_20180403_132554_12(1).jpg": "S2",  # two crowns along one edge
    "swamp_1/IMG_4086_1.jpg": "S2",  # two crowns along one edge
    "swamp_1/IMG_4106_26.jpg": "M2",  # a mine (dark ground, mine art), two crowns
    "swamp_1/IMG_4111_5.jpg": "M1",  # a mine (dark ground, mine art), one crown
    "wheat_0/kd24_6.jpg": "G0",  # a green grassland square with sheep
}
"""Phone crops whose folder is plainly wrong, and the label they get here.

Only crops whose picture leaves no doubt: the terrain is plainly another, or more
crowns than the folder says sit inside the square in full view (fewer crowns in
view is not evidence, as many crops cut a crown off). Training uses these labels;
``python -m scorer.evaluate`` reports phone figures against both.
"""


@dataclass(frozen=True)
class Tile:
    """One labelled square crop.

    Attributes
    ----------
    image : numpy.ndarray
        The crop, BGR uint8.
    cell : Cell
        Its label.
    group : str
        Samples sharing a group (same photo, same kingdom) stay on one side of a split.
    source : str
        The data set: ``aau``, ``phone`` or ``duel``.
    published : Cell or None
        The label the data set gives, where it differs from ``cell`` (see
        :data:`PHONE_LABEL_FIXES`); None where they agree.
    """

    image: np.ndarray
    cell: Cell
    group: str
    source: str
    published: Cell | None = None

    @property
    def published_cell(self) -> Cell:
        """The label as the data set gives it."""
        return self.cell if self.published is None else self.published


@dataclass(frozen=True)
class Board:
    """One rectified, labelled kingdom image.

    Attributes
    ----------
    name : str
        The board's name in its data set (``"17"``, ``"game1"``).
    image : numpy.ndarray
        The rectified board, BGR uint8, row 0 at the top.
    kingdom : Kingdom
        The labelled grid, in the orientation of the image.
    group : str
        The physical kingdom; several photos may show the same one.
    """

    name: str
    image: np.ndarray
    kingdom: Kingdom
    group: str


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Return the data folder: ``path``, else ``$KINGDOMINO_DATA``, else ``../shared/data``.

    Raises
    ------
    FileNotFoundError
        When none of them holds the labelled data.
    """
    candidates: list[Path] = []
    if path is not None:
        candidates.append(Path(path))
    elif os.environ.get(DATA_ENV):
        candidates.append(Path(os.environ[DATA_ENV]))
    else:
        candidates.append(_REPO_ROOT.parent / "shared" / "data")
    for candidate in candidates:
        if (candidate / "aau-boards").is_dir() or (candidate / "phone-tiles").is_dir():
            return candidate
    raise FileNotFoundError(
        f"labelled data not found at {candidates[0]}: pass --data or set {DATA_ENV}"
    )


def load_aau_boards(root: Path) -> list[Board]:
    """Load every board of ``aau-boards/`` with its label and kingdom group."""
    base = root / "aau-boards"
    groups = _read_groups(base / "groups.csv")
    boards = []
    for label in sorted((base / "labels").glob("*.txt"), key=_natural_key):
        name = label.stem
        image = _read_image(base / "images" / f"{name}.jpg")
        kingdom = Kingdom.parse(label.read_text(encoding="utf-8"))
        boards.append(Board(name, image, kingdom, groups.get(name, f"board-{name}")))
    return boards


def load_phone_tiles(root: Path) -> list[Tile]:
    """Load ``phone-tiles/``: one :class:`Tile` per crop, grouped by photo id."""
    return _load_tile_folders(root / "phone-tiles", "phone", _photo_id, PHONE_LABEL_FIXES)


def load_duel_tiles(root: Path) -> list[Tile]:
    """Load ``mighty-duel/tiles/``; each crop is its own group (photo ids are not recorded)."""
    return _load_tile_folders(root / "mighty-duel" / "tiles", "duel", lambda p: f"duel-{p.stem}")


def load_duel_boards(root: Path) -> list[Board]:
    """Load the rectified Mighty Duel boards that have a label (``labels/gameN.txt``)."""
    base = root / "mighty-duel"
    boards = []
    for label in sorted((base / "labels").glob("*.txt"), key=_natural_key):
        image = _read_image(base / "boards" / f"{label.stem}.png")
        kingdom = Kingdom.parse(label.read_text(encoding="utf-8"))
        boards.append(Board(label.stem, image, kingdom, label.stem))
    return boards


def folder_cell(name: str) -> Cell:
    """The label of a tile folder: ``wheat_1`` → W1, ``castle`` → C, ``empty`` → ``.``.

    >>> folder_cell("mine_3").token
    'M3'
    """
    if name == Terrain.CASTLE.value:
        return CASTLE
    if name == Terrain.EMPTY.value:
        return EMPTY
    terrain, _, crowns = name.rpartition("_")
    return Cell(Terrain(terrain), int(crowns))


def _load_tile_folders(
    base: Path, source: str, group_of: _GroupOf, fixes: Mapping[str, str] | None = None
) -> list[Tile]:
    tiles = []
    fixes = fixes or {}
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        published = folder_cell(folder.name)
        for file in sorted(folder.iterdir()):
            if file.suffix.lower() in _IMAGE_SUFFIXES:
                fixed = fixes.get(f"{folder.name}/{file.name}")
                cell = published if fixed is None else Cell.parse(fixed)
                tiles.append(
                    Tile(
                        _read_image(file),
                        cell,
                        group_of(file),
                        source,
                        None if cell == published else published,
                    )
                )
    return tiles


def _photo_id(path: Path) -> str:
    """The photo a phone tile was cut from: the file name before its last ``_``."""
    return "phone-" + path.stem.rpartition("_")[0]


def _read_groups(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as f:
        return {row["board"]: f"kingdom-{row['kingdom']}" for row in csv.DictReader(f)}


def _read_image(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"cannot read image {path}")
    return image


def _natural_key(path: Path) -> tuple[int, str]:
    stem = path.stem
    digits = "".join(ch for ch in stem if ch.isdigit())
    return (int(digits) if digits else -1, stem)


def board_tiles(board: Board, source: str = "aau") -> list[Tile]:
    """Cut a labelled board into one :class:`Tile` per square, in the board's group."""
    crops = split_cells(board.image, board.kingdom.shape)
    return [
        Tile(crop, cell, board.group, source)
        for crop, (_, cell) in zip(crops, board.kingdom.cells(), strict=True)
    ]


CONFIRMED_SOURCE: Final = "confirmed"
"""The data set name of the squares of kingdoms players confirmed (:mod:`scorer.confirmed`)."""


@dataclass(frozen=True)
class ConfirmedSquares:
    """The squares of the kingdoms kept in one folder of confirmed kingdoms.

    Attributes
    ----------
    tiles : list of Tile
        One per square, row by row, kingdom by kingdom; each kingdom's group is its
        source photo (``photo-`` and the start of its sha256), so kingdoms of one photo
        stay on one side of a split.
    corrected : numpy.ndarray
        One boolean per tile: whether the player corrected that square.
    read : list of Cell
        One per tile: what the program read there when the player confirmed it.
    """

    tiles: list[Tile]
    corrected: np.ndarray
    read: list[Cell]


def load_confirmed(folder: str | os.PathLike[str]) -> ConfirmedSquares:
    """Load a folder of confirmed kingdoms (what the page keeps, or bundles imported).

    Raises
    ------
    scorer.confirmed.ConfirmedStoreError
        The folder's index or one of its images cannot be read.
    FileNotFoundError
        There is no such folder.
    """
    if not Path(folder).is_dir():
        raise FileNotFoundError(f"no folder of confirmed kingdoms at {folder}")
    store = ConfirmedStore(Path(folder))
    tiles: list[Tile] = []
    corrected: list[bool] = []
    read: list[Cell] = []
    for item in store.items():
        board = Board(item.id, store.image(item), item.kingdom, f"photo-{item.photo_sha256[:16]}")
        tiles.extend(board_tiles(board, CONFIRMED_SOURCE))
        changed = {c.position for c in item.corrections}
        corrected.extend(pos in changed for pos, _ in item.kingdom.cells())
        read.extend(cell for _, cell in item.read.cells())
    return ConfirmedSquares(tiles, np.asarray(corrected, bool), read)
