"""The page's session state: every key the page stores or gives a widget, in one place.

Streamlit keeps widget values and the page's own memory in ``st.session_state`` under
string keys. :class:`PhotoState`, :class:`OutlineState` and :class:`KingdomState` own the
keys of one photo, of the corner tool of one of its kingdoms, and of one player's kingdom;
the constants name the page's other widgets. Each class reads and writes
``st.session_state`` unless given another mapping (as tests do).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any, Final, cast

import streamlit as st

from scorer.rules.kingdom import Kingdom, Position

Point = tuple[float, float]
"""A point on a photo, in the original photo's pixels."""

Corners = tuple[Point, ...]
"""Four corners of a kingdom, clockwise from the top-left (as :mod:`scorer.detect` orders)."""

Store = MutableMapping[str, Any]

# Widgets of the whole page.
LANGUAGE: Final = "language"
"""The language of the page: the browser's at first, then the player's choice."""
VARIANT: Final = "variant"
HARMONY: Final = "harmony"
MIDDLE_KINGDOM: Final = "middle_kingdom"
CROWNS_FIRST: Final = "crowns_first"
PHOTO_MODE: Final = "photo_mode"
UPLOADS: Final = "uploads"
USE_CAMERA: Final = "use_camera"
CAMERA: Final = "camera"
TYPED_GRIDS: Final = "typed_grids"
DYNASTY_NAME: Final = "dynasty_name"
DYNASTY_PANEL: Final = "dynasty_panel"
SAVE_GAME: Final = "save_game"
DELETE_PENDING: Final = "delete_pending"
"""Not a widget: the id of the saved game whose deletion waits for the player's yes."""
DYNASTY_PROBLEM: Final = "dynasty_problem"
"""Not a widget: why deleting a game failed, shown once in the Dynasty panel."""
DOWNLOAD_JSON: Final = "download-json"
DOWNLOAD_CSV: Final = "download-csv"
DOWNLOAD_PNG: Final = "download-png"
KEEP_RECOGNITION: Final = "keep_recognition"
"""The setting "Help improve recognition on this computer" (off by default)."""
KEEP_PHOTOS: Final = "keep_photos"
"""The second box: keep the whole photo with each confirmed kingdom."""
RECOGNITION_PANEL: Final = "recognition_panel"
EXPORT_RECOGNITION: Final = "export-recognition"
DELETE_RECOGNITION: Final = "delete-recognition"
IMPORT_RECOGNITION: Final = "import-recognition"
IMPORT_RECOGNITION_GO: Final = "import-recognition-go"
RECOGNITION_PROBLEM: Final = "recognition_problem"
"""Not a widget: why the last kingdom could not be kept, shown once under it."""
RECOGNITION_DELETE_PROBLEM: Final = "recognition_delete_problem"
"""Not a widget: why deleting kept kingdoms failed, shown once in the panel."""


def keep_key(kingdom_key: str) -> str:
    """The key of the button that confirms a kingdom's squares and keeps it for recognition.

    >>> keep_key("abc-1"), kept_key("abc-1"), delete_recognition_key("0123")
    ('keep-abc-1', 'kept-abc-1', 'delete-kept-0123')
    """
    return f"keep-{kingdom_key}"


def kept_key(kingdom_key: str) -> str:
    """Not a widget: the grid of the kingdom last kept for recognition, and its id."""
    return f"kept-{kingdom_key}"


def delete_recognition_key(ident: str) -> str:
    """The key of the button that deletes one kept kingdom."""
    return f"delete-kept-{ident}"


def delete_game_key(game_id: int) -> str:
    """The key of the button that deletes one saved game.

    >>> delete_game_key(3)
    'delete-game-3'
    """
    return f"delete-game-{game_id}"


def confirm_delete_key(game_id: int) -> str:
    """The key of the button that confirms deleting one saved game.

    >>> confirm_delete_key(3), keep_game_key(3)
    ('confirm-delete-3', 'keep-game-3')
    """
    return f"confirm-delete-{game_id}"


def keep_game_key(game_id: int) -> str:
    """The key of the button that keeps a saved game after all."""
    return f"keep-game-{game_id}"


ADD_KINGDOM: Final = "add-kingdom"
"""Prefix of the toggle that opens the corner tool for a kingdom detection missed."""


def add_kingdom_key(photo_key: str) -> str:
    """The key of the toggle that opens the corner tool for a kingdom detection missed.

    >>> add_kingdom_key("abc")
    'add-kingdom-abc'
    """
    return f"{ADD_KINGDOM}-{photo_key}"


def _session(store: Store | None) -> Store:
    return cast(Store, st.session_state) if store is None else store


def new_click(key: str, click: Mapping[str, Any] | None, store: Store | None = None) -> bool:
    """True for a click not seen before on a picture; it is remembered under ``key``.

    The click component returns its last click again on every rerun; its ``unix_time``
    tells a new click from that one.

    >>> memory: dict[str, Any] = {}
    >>> click = {"x": 10, "y": 20, "unix_time": 1700000000}
    >>> new_click("last", click, memory), new_click("last", click, memory)
    (True, False)
    >>> new_click("last", None, memory)
    False
    """
    if not click:
        return False
    session = _session(store)
    if click.get("unix_time") == session.get(key):
        return False
    session[key] = click.get("unix_time")
    return True


class PhotoState:
    """What the page remembers about one photo: the kingdoms whose corners the player marked.

    Each kingdom of a photo has a *slot*: ``"1"``, ``"2"``… for the kingdoms detection found,
    in its order, and ``"added-1"``, ``"added-2"``… for those the player added by marking their
    corners. Marked corners replace detection's outline of that slot only.

    >>> photo = PhotoState("abc", {})
    >>> photo.mark("2", ((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)))
    >>> photo.next_added_slot
    'added-1'
    >>> photo.mark(photo.next_added_slot, ((20.0, 0.0), (29.0, 0.0), (29.0, 9.0), (20.0, 9.0)))
    >>> list(photo.marked), photo.next_added_slot
    (['2', 'added-1'], 'added-2')
    >>> photo.unmark("2")
    >>> list(photo.marked)
    ['added-1']
    """

    def __init__(self, photo_key: str, store: Store | None = None) -> None:
        self.key = photo_key
        self._store = store

    @property
    def _session(self) -> Store:
        return _session(self._store)

    @property
    def marked(self) -> dict[str, Corners]:
        """The corners the player marked, by slot, in the order they were first marked."""
        return dict(self._session.get(f"marked-{self.key}", {}))

    def mark(self, slot: str, corners: Corners) -> None:
        """Read the kingdom of ``slot`` inside these corners from now on."""
        marked = self.marked
        marked[slot] = corners
        self._session[f"marked-{self.key}"] = marked
        if slot == self.next_added_slot:
            self._session[f"added-{self.key}"] = self._added + 1

    def unmark(self, slot: str) -> None:
        """Go back to detection's outline for ``slot`` (a kingdom added by hand goes)."""
        marked = self.marked
        marked.pop(slot, None)
        self._session[f"marked-{self.key}"] = marked

    @property
    def _added(self) -> int:
        added: int = self._session.get(f"added-{self.key}", 0)
        return added

    @property
    def next_added_slot(self) -> str:
        """The slot the next kingdom added by hand takes (never one used before)."""
        return f"added-{self._added + 1}"


class OutlineState:
    """The corner tool of one kingdom of a photo: the corners clicked so far, and its widgets.

    >>> memory: dict[str, Any] = {}
    >>> tool = OutlineState("abc", "2", memory)
    >>> tool.clicks = [(1.0, 2.0)]
    >>> tool.use_corners(((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)))
    >>> PhotoState("abc", memory).marked["2"][2], memory["corners-toggle-abc-2"]
    ((9.0, 9.0), False)
    >>> tool.clear_corners()
    >>> tool.clicks, tool.picker_key, PhotoState("abc", memory).marked
    ([], 'corner-pick-abc-2-2', {})
    """

    def __init__(self, photo_key: str, slot: str, store: Store | None = None) -> None:
        self.photo = PhotoState(photo_key, store)
        self.slot = slot
        self.key = f"{photo_key}-{slot}"
        self._store = store

    @property
    def _session(self) -> Store:
        return _session(self._store)

    @property
    def manual_corners(self) -> Corners | None:
        """The corners the player marked for this kingdom, or None for detection's outline."""
        return self.photo.marked.get(self.slot)

    @property
    def clicks(self) -> list[Point]:
        """The corners clicked so far (at most four), in the order they were clicked."""
        return list(self._session.get(f"clicks-{self.key}", []))

    @clicks.setter
    def clicks(self, points: list[Point]) -> None:
        self._session[f"clicks-{self.key}"] = list(points)

    @property
    def clicks_version(self) -> int:
        """How many times the clicks were cleared; part of the picker's key, so it starts afresh."""
        version: int = self._session.get(f"clicks-version-{self.key}", 0)
        return version

    def _next_picker(self) -> None:
        self._session[f"clicks-version-{self.key}"] = self.clicks_version + 1

    @property
    def toggle_key(self) -> str:
        """The key of the toggle that opens the corner picker."""
        return f"corners-toggle-{self.key}"

    @property
    def picker_key(self) -> str:
        """The key of the clickable photo."""
        return f"corner-pick-{self.key}-{self.clicks_version}"

    @property
    def clear_key(self) -> str:
        """The key of the button that forgets the clicked corners."""
        return f"clear-corners-{self.key}"

    @property
    def use_key(self) -> str:
        """The key of the button that reads the kingdom inside the clicked corners."""
        return f"use-corners-{self.key}"

    def new_click(self, click: Mapping[str, Any] | None) -> bool:
        """True for a click on the photo not seen before (see :func:`new_click`)."""
        return new_click(f"clicks-{self.key}-last", click, self._session)

    def clear_corners(self) -> None:
        """Forget the clicked and marked corners and go back to detection's outline."""
        self.clicks = []
        self._next_picker()
        self.photo.unmark(self.slot)

    def use_corners(self, corners: Corners) -> None:
        """Read the kingdom inside these corners from now on, and fold the corner picker away."""
        self.photo.mark(self.slot, corners)
        self.clicks = []
        self._next_picker()
        self._session[self.toggle_key] = False


class KingdomState:
    """What the page remembers about one kingdom: its player, corrections and picked square.

    >>> memory: dict[str, Any] = {}
    >>> kingdom = KingdomState("typed-1", memory)
    >>> kingdom.selected = (1, 2)
    >>> kingdom.next_version()
    >>> kingdom.editor_key, kingdom.selected, kingdom.square_key((1, 2))
    ('editor-typed-1-1', (1, 2), 'square-typed-1-1-2')
    >>> kingdom.square_error = "two castles"
    >>> kingdom.take_square_error(), kingdom.take_square_error()
    ('two castles', None)
    """

    def __init__(self, key: str, store: Store | None = None) -> None:
        self.key = key
        self._store = store

    @property
    def _session(self) -> Store:
        return _session(self._store)

    @property
    def name_key(self) -> str:
        """The key of the player's name field."""
        return f"name-{self.key}"

    def restore_name(self) -> None:
        """Give the name field back the name typed, if Streamlit forgot it.

        Streamlit drops a widget's value when a run does not draw it (a photo read again,
        a failure caught on the way); the name typed is kept under a key of the page's own.
        """
        typed = self._session.get(f"player-{self.key}")
        if typed and self.name_key not in self._session:
            self._session[self.name_key] = typed

    def keep_name(self, typed: str) -> None:
        """Remember the name typed, for :meth:`restore_name`."""
        self._session[f"player-{self.key}"] = typed

    @property
    def confirm_key(self) -> str:
        """The key of the button by which the player confirms an unconfirmed total."""
        return f"confirm-{self.key}"

    @property
    def confirmed_reading(self) -> Kingdom | None:
        """The reading whose total the player confirmed; a new reading needs a new look."""
        confirmed: Kingdom | None = self._session.get(f"confirmed-{self.key}")
        return confirmed

    def confirm(self, reading: Kingdom) -> None:
        """The player says this reading's total is right."""
        self._session[f"confirmed-{self.key}"] = reading

    @property
    def base(self) -> tuple[Kingdom, Kingdom] | None:
        """The reading the corrections started from, and the grid the editor starts from."""
        base: tuple[Kingdom, Kingdom] | None = self._session.get(f"base-{self.key}")
        return base

    @base.setter
    def base(self, pair: tuple[Kingdom, Kingdom]) -> None:
        self._session[f"base-{self.key}"] = pair

    @property
    def version(self) -> int:
        """How many times the editor started afresh; part of the editor's and picture's keys."""
        version: int = self._session.get(f"version-{self.key}", 0)
        return version

    def next_version(self) -> None:
        """Start the editor and the clickable picture afresh (their keys change)."""
        self._session[f"version-{self.key}"] = self.version + 1

    @property
    def editor_key(self) -> str:
        """The key of the square editor (a table)."""
        return f"editor-{self.key}-{self.version}"

    @property
    def undo_key(self) -> str:
        """The key of the button that undoes all corrections."""
        return f"undo-{self.key}"

    @property
    def picker_key(self) -> str:
        """The key of the clickable labelled kingdom."""
        return f"pick-{self.key}-{self.version}"

    def new_click(self, click: Mapping[str, Any] | None) -> bool:
        """True for a click on the labelled kingdom not seen before (see :func:`new_click`)."""
        return new_click(f"pick-last-{self.key}", click, self._session)

    @property
    def selected(self) -> Position | None:
        """The square last clicked on the labelled kingdom, or None."""
        selected: Position | None = self._session.get(f"selected-{self.key}")
        return selected

    @selected.setter
    def selected(self, pos: Position | None) -> None:
        if pos is None:
            self._session.pop(f"selected-{self.key}", None)
        else:
            self._session[f"selected-{self.key}"] = pos

    def square_key(self, pos: Position) -> str:
        """The key of the value picker of one square."""
        return f"square-{self.key}-{pos[0]}-{pos[1]}"

    @property
    def square_error(self) -> str | None:
        """Why the last square picked could not be set, until shown."""
        error: str | None = self._session.get(f"square-error-{self.key}")
        return error

    @square_error.setter
    def square_error(self, error: str) -> None:
        self._session[f"square-error-{self.key}"] = error

    def take_square_error(self) -> str | None:
        """The square error, forgotten once taken so it shows once."""
        error: str | None = self._session.pop(f"square-error-{self.key}", None)
        return error
