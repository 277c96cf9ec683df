"""The page's session state: the exact key strings, and clicks told apart by their time."""

from __future__ import annotations

from typing import Any

from scorer.page import state
from scorer.page.state import KingdomState, OutlineState, PhotoState, new_click
from scorer.rules.kingdom import Kingdom


def test_outline_keys_are_the_strings_the_browser_and_tests_use() -> None:
    memory: dict[str, Any] = {}
    tool = OutlineState("abc", "2", memory)
    tool.clicks = [(1.0, 2.0)]
    assert tool.new_click({"x": 1, "y": 2, "unix_time": 7})
    assert (tool.toggle_key, tool.picker_key, tool.clear_key, tool.use_key) == (
        "corners-toggle-abc-2",
        "corner-pick-abc-2-0",
        "clear-corners-abc-2",
        "use-corners-abc-2",
    )
    tool.use_corners(((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0)))
    assert memory == {
        "clicks-abc-2": [],
        "clicks-abc-2-last": 7,
        "clicks-version-abc-2": 1,
        "marked-abc": {"2": ((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0))},
        "corners-toggle-abc-2": False,
    }


def test_marking_one_kingdom_keeps_the_others_and_clearing_forgets_only_it() -> None:
    square = ((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0))
    memory: dict[str, Any] = {}
    OutlineState("abc", "1", memory).use_corners(square)
    OutlineState("abc", "2", memory).use_corners(square)
    second = OutlineState("abc", "2", memory)
    second.clear_corners()
    second.clear_corners()
    assert second.clicks == [] and second.manual_corners is None
    assert PhotoState("abc", memory).marked == {"1": square}
    assert second.picker_key == "corner-pick-abc-2-3"


def test_kingdoms_added_by_hand_take_new_slots_even_after_one_is_removed() -> None:
    square = ((0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 9.0))
    memory: dict[str, Any] = {}
    photo = PhotoState("abc", memory)
    OutlineState("abc", photo.next_added_slot, memory).use_corners(square)
    assert list(photo.marked) == ["added-1"] and photo.next_added_slot == "added-2"
    OutlineState("abc", "added-1", memory).clear_corners()
    assert photo.marked == {} and photo.next_added_slot == "added-2"


def test_a_typed_name_comes_back_when_streamlit_forgot_the_field() -> None:
    memory: dict[str, Any] = {}
    kingdom = KingdomState("abc-1", memory)
    kingdom.restore_name()
    assert "name-abc-1" not in memory
    kingdom.keep_name("Anna")
    kingdom.restore_name()
    assert memory["name-abc-1"] == "Anna"
    memory["name-abc-1"] = "Anna B"
    kingdom.restore_name()
    assert memory["name-abc-1"] == "Anna B"


def test_the_player_confirms_one_reading() -> None:
    memory: dict[str, Any] = {}
    kingdom = KingdomState("abc-1", memory)
    assert kingdom.confirmed_reading is None and kingdom.confirm_key == "confirm-abc-1"
    kingdom.confirm(Kingdom.parse("F1 C"))
    assert kingdom.confirmed_reading == Kingdom.parse("F1 C")


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
        state.DYNASTY_PANEL,
        state.SAVE_GAME,
        state.DOWNLOAD_JSON,
        state.DOWNLOAD_CSV,
        state.DOWNLOAD_PNG,
        state.delete_game_key(4),
        state.confirm_delete_key(4),
        state.keep_game_key(4),
        state.add_kingdom_key("abc"),
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
        "dynasty_panel",
        "save_game",
        "download-json",
        "download-csv",
        "download-png",
        "delete-game-4",
        "confirm-delete-4",
        "keep-game-4",
        "add-kingdom-abc",
    ]
