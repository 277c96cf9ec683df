"""The page's session state: the exact key strings, and clicks told apart by their time."""

from __future__ import annotations

from typing import Any

from scorer.page import state
from scorer.page.state import KingdomState, PhotoState, new_click
from scorer.rules.kingdom import Kingdom


def test_photo_keys_are_the_strings_the_browser_and_tests_use() -> None:
    memory: dict[str, Any] = {}
    photo = PhotoState("abc", memory)
    photo.clicks = [(1.0, 2.0)]
    assert photo.new_click({"x": 1, "y": 2, "unix_time": 7})
    photo.use_corners(((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)))
    assert memory == {
        "clicks-abc": [(1.0, 2.0)],
        "clicks-abc-last": 7,
        "manual-abc": ((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)),
        "corners-toggle-abc": False,
    }
    assert (photo.toggle_key, photo.picker_key, photo.clear_key, photo.use_key) == (
        "corners-toggle-abc",
        "corner-pick-abc-0",
        "clear-corners-abc",
        "use-corners-abc",
    )


def test_clearing_corners_forgets_them_and_starts_a_fresh_picker() -> None:
    memory: dict[str, Any] = {"clicks-abc": [(1.0, 2.0)], "manual-abc": ((0.0, 0.0),) * 4}
    photo = PhotoState("abc", memory)
    photo.clear_corners()
    photo.clear_corners()
    assert photo.clicks == [] and photo.manual_corners is None
    assert memory["clicks-version-abc"] == 2 and photo.picker_key == "corner-pick-abc-2"


def test_kingdom_keys_are_the_strings_the_browser_and_tests_use() -> None:
    memory: dict[str, Any] = {}
    kingdom = KingdomState("typed-1", memory)
    grid = Kingdom.parse("F1 C")
    kingdom.base = (grid, grid)
    kingdom.selected = (0, 1)
    kingdom.square_error = "two castles"
    assert kingdom.new_click({"x": 1, "y": 1, "unix_time": 3})
    assert memory == {
        "base-typed-1": (grid, grid),
        "selected-typed-1": (0, 1),
        "square-error-typed-1": "two castles",
        "pick-last-typed-1": 3,
    }
    assert (kingdom.name_key, kingdom.editor_key, kingdom.undo_key, kingdom.picker_key) == (
        "name-typed-1",
        "editor-typed-1-0",
        "undo-typed-1",
        "pick-typed-1-0",
    )
    assert kingdom.square_key((2, 3)) == "square-typed-1-2-3"
    kingdom.next_version()
    assert memory["version-typed-1"] == 1 and kingdom.editor_key == "editor-typed-1-1"
    kingdom.selected = None
    assert kingdom.take_square_error() == "two castles" and kingdom.take_square_error() is None
    assert "selected-typed-1" not in memory and "square-error-typed-1" not in memory


def test_a_click_counts_once_until_another_comes() -> None:
    memory: dict[str, Any] = {}
    first, second = {"x": 5, "unix_time": 100}, {"x": 5, "unix_time": 101}
    assert new_click("last", first, memory)
    assert not new_click("last", first, memory)  # the component repeats it on every rerun
    assert new_click("last", second, memory)
    assert not new_click("last", None, memory) and not new_click("last", {}, memory)
    assert memory == {"last": 101}


def test_page_widget_keys() -> None:
    keys = [
        state.VARIANT,
        state.HARMONY,
        state.MIDDLE_KINGDOM,
        state.CROWNS_FIRST,
        state.PHOTO_MODE,
        state.UPLOADS,
        state.USE_CAMERA,
        state.CAMERA,
        state.TYPED_GRIDS,
        state.DYNASTY_NAME,
        state.SAVE_GAME,
        state.DOWNLOAD_JSON,
        state.DOWNLOAD_CSV,
        state.DOWNLOAD_PNG,
        state.delete_game_key(4),
    ]
    assert keys == [
        "variant",
        "harmony",
        "middle_kingdom",
        "crowns_first",
        "photo_mode",
        "uploads",
        "use_camera",
        "camera",
        "typed_grids",
        "dynasty_name",
        "save_game",
        "download-json",
        "download-csv",
        "download-png",
        "delete-game-4",
    ]
