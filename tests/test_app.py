"""The scoring page, driven headless with Streamlit's AppTest."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from scorer.pipeline import outline_note
from scorer.rules.errors import BoardNotFoundError, ModelFileError
from scorer.rules.kingdom import Cell, Kingdom
from scorer.rules.scoring import Rules, score

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
SAMPLE = ROOT / "sample_images" / "sample_board.jpg"

# Totals worked out by hand from the grids (properties: squares × crowns), never by score().
ANNA = "F1 F0 F0\nF0 C W0"  # forest 4 × 1 = 4, wheat 1 × 0 = 0: total 4
BEN = "M2 M0 C\nS0 S0 ."  # mine 2 × 2 = 4, swamp 2 × 0 = 0: total 4
ANNA_TOTAL = 4


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets its own games file and no sample photo unless it asks for one."""
    monkeypatch.setenv("KINGDOMINO_DB", str(tmp_path / "games.sqlite3"))
    monkeypatch.setenv("KINGDOMINO_SAMPLE", "")
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    # Stand-in recognisers must not leak into other tests through the page's caches.
    st.cache_data.clear()
    st.cache_resource.clear()


def _app(timeout: float = 30) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    return at


def _typed(text: str, **state: object) -> AppTest:
    at = _app()
    at.session_state["typed_grids"] = text
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def _texts(elements: object) -> list[str]:
    return [str(e.value) for e in elements]  # type: ignore[attr-defined]


def test_typed_kingdom_is_scored_without_errors() -> None:
    at = _typed(ANNA)
    assert not at.exception
    assert not at.error
    assert [m.value for m in at.metric] == [str(ANNA_TOTAL)]


def test_tie_between_two_typed_kingdoms_shows_the_explanation() -> None:
    at = _typed(f"{ANNA}\n\n{BEN}")
    assert not at.exception
    infos = " ".join(_texts(at.info))
    assert "Player 1 and Player 2 both scored 4" in infos
    assert "Step 2 (largest property)" in infos
    assert "Player 1's largest property has 4 squares" in infos
    ranking = at.dataframe[0].value
    assert list(ranking["Player"]) == ["Player 1", "Player 2"]
    assert list(ranking["Place"]) == [1, 2]
    assert "Player 1" in " ".join(_texts(at.success))


def test_house_rule_is_named_and_changes_the_tie_break() -> None:
    at = _typed(f"{ANNA}\n\n{BEN}", crowns_first=True)
    assert not at.exception
    page = " ".join(_texts(at.warning) + _texts(at.caption) + _texts(at.info))
    assert "House rule" in page and "crowns before largest property" in page
    # Crowns first: Player 2 has 2 crowns against Player 1's 1.
    assert list(at.dataframe[0].value["Player"]) == ["Player 2", "Player 1"]


def test_player_names_appear_in_the_ranking() -> None:
    at = _typed(f"{ANNA}\n\n{BEN}", **{"name-typed-1": "Anna", "name-typed-2": "Ben"})
    assert list(at.dataframe[0].value["Player"]) == ["Anna", "Ben"]


def test_corrected_square_changes_the_total_and_marks_the_kingdom() -> None:
    at = _typed(ANNA)
    assert int(at.metric[0].value) == ANNA_TOTAL
    # The wheat square beside the castle (row 2, column 3) gets a crown.
    at.session_state["editor-typed-1-0"] = {
        "edited_rows": {1: {"3": "W1"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception
    # F1 F0 F0 / F0 C W1: forest 4 × 1 = 4, wheat 1 × 1 = 1: total 5
    assert int(at.metric[0].value) == 5
    assert any("corrected by hand" in m for m in _texts(at.markdown))


def test_correction_that_breaks_the_kingdom_is_refused_with_a_message() -> None:
    at = _typed(ANNA)
    at.session_state["editor-typed-1-0"] = {
        "edited_rows": {0: {"1": "C"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception
    assert any("not a kingdom" in e for e in _texts(at.error))
    assert int(at.metric[0].value) == ANNA_TOTAL


def test_bad_typed_grid_names_the_line_and_square() -> None:
    at = _typed(f"{ANNA}\n\nM2 X9 C")
    assert not at.exception
    errors = " ".join(_texts(at.error))
    assert "Typed grid 2" in errors and "line 4" in errors and "'X9'" in errors
    assert len(at.metric) == 1


def test_bonuses_follow_the_sidebar() -> None:
    full = "\n".join(["F1 F0 F0 F0 F0"] * 2 + ["W0 W0 C W0 W0"] + ["L0 L0 L0 L0 L0"] * 2)
    at = _typed(full, harmony=True, middle_kingdom=True)
    # Forest 10 × 2 = 20; wheat 2 × 0 and 2 × 0 (the castle splits the row); lake 10 × 0;
    # Harmony +5 (all 25 squares filled); Middle Kingdom +10 (castle at the centre): 35.
    assert int(at.metric[0].value) == 35


def test_corrupt_upload_shows_an_error_and_no_exception() -> None:
    at = _app().run()
    at.file_uploader(key="uploads").upload(
        "kingdom.jpg", b"\xff\xd8\xff\xe0 not really", "image/jpeg"
    )
    at.run()
    assert not at.exception
    errors = _texts(at.error)
    assert errors, "a corrupt photo must say what is wrong"
    assert "Traceback" not in " ".join(errors)
    assert any("Next step" in i for i in _texts(at.info))


def test_text_file_uploaded_as_a_photo_is_refused_politely() -> None:
    at = _app().run()
    at.file_uploader(key="uploads").upload("notes.png", b"G0 L0 F1\nW1 C F0\n", "image/png")
    at.run()
    assert not at.exception
    assert any("not an image" in e for e in _texts(at.error))


def test_game_is_saved_to_the_dynasty_and_can_be_deleted() -> None:
    at = _typed(f"{ANNA}\n\n{BEN}")
    at.button(key="save_game").click().run()
    assert not at.exception
    assert any("Saved as game" in s for s in _texts(at.success))
    assert any("Player 1 4" in m and "Player 2 4" in m for m in _texts(at.markdown))
    # A fresh page (a reload) still lists the game.
    again = _typed(f"{ANNA}\n\n{BEN}")
    game_buttons = [b for b in again.button if str(b.key).startswith("delete-game-")]
    assert len(game_buttons) == 1
    game_buttons[0].click().run()
    # Delete asks first: the game stays until the player says yes.
    assert not again.exception
    assert any("Delete game 1 for good?" in w for w in _texts(again.warning))
    assert [b.key for b in again.button if str(b.key).startswith("delete-game-")]
    again.button(key="keep-game-1").click().run()
    assert not any("for good" in w for w in _texts(again.warning))
    again.button(key="delete-game-1").click().run()
    again.button(key="confirm-delete-1").click().run()
    assert not again.exception
    assert not [b for b in again.button if str(b.key).startswith("delete-game-")]


# Three more games of Anna's and Ben's, each a new pair of kingdoms (totals by hand):
# forest 3 × 1 = 3 and mine 2 × 2 = 4; forest 3 × 1 = 3 and mine 1 × 2 = 2; lake 2 × 1 = 2
# and mine 2 × 2 = 4.
GAMES = [
    f"{ANNA}\n\n{BEN}",
    "F1 F0 F0 C\n\nM2 M0 C",
    "F1 F0 F0 C\n\nM2 C W0",
    "L1 L0 C\n\nM2 M0 C",
]


def _play_games(count: int) -> AppTest:
    """Add ``count`` different games of the same two players to Dynasty 1."""
    at = _typed(GAMES[0])
    for n in range(count):
        if n:
            at.text_area(key="typed_grids").set_value(GAMES[n]).run()
        at.button(key="save_game").click().run()
        assert any("Saved as game" in m for m in _texts(at.success)), _texts(at.error)
    return at


def test_three_games_rank_the_dynasty() -> None:
    at = _play_games(3)
    assert not at.exception
    page = " ".join(_texts(at.markdown) + _texts(at.success))
    assert "Dynasty ranking" in page
    # Player 1: 4 + 3 + 3 = 10; Player 2: 4 + 4 + 2 = 10.
    assert list(at.dataframe[-1].value["Total"]) == [10, 10]


def test_a_refused_dynasty_add_keeps_the_panel_and_says_what_to_do() -> None:
    at = _play_games(3)
    # A fourth game is refused inside the panel; the games, their Delete buttons and the
    # Dynasty ranking stay.
    at.text_area(key="typed_grids").set_value(GAMES[3]).run()
    at.button(key="save_game").click().run()
    assert not at.exception
    errors = _texts(at.error)
    assert any("has its 3 games: type a new Dynasty name" in e for e in errors), errors
    assert len([b for b in at.button if str(b.key).startswith("delete-game-")]) == 3
    assert any("Dynasty ranking" in m for m in _texts(at.markdown))
    # A one-player game is refused, saying what to do.
    at.text_area(key="typed_grids").set_value(ANNA).run()
    at.text_input(key="dynasty_name").set_value("Dynasty 2").run()
    at.button(key="save_game").click().run()
    assert not at.exception
    assert any("add the other players' kingdoms" in e for e in _texts(at.error))
    assert len([b for b in at.button if str(b.key).startswith("delete-game-")]) == 3


def test_pressing_add_twice_stores_one_game(tmp_path: Path) -> None:
    from scorer.store import GameStore

    at = _typed(f"{ANNA}\n\n{BEN}")
    at.button(key="save_game").click().run()
    at.button(key="save_game").click().run()
    assert not at.exception
    assert any("already saved, as game 1" in i for i in _texts(at.info)), _texts(at.info)
    assert len(GameStore(tmp_path / "games.sqlite3").games()) == 1


def test_downloads_are_offered() -> None:
    at = _typed(f"{ANNA}\n\n{BEN}")
    keys = {b.key for b in at.get("download_button")}
    assert {"download-json", "download-csv", "download-png"} <= keys


def test_sample_photo_loads_and_scores(monkeypatch: pytest.MonkeyPatch, sample_photo: Path) -> None:
    monkeypatch.setenv("KINGDOMINO_SAMPLE", str(sample_photo))
    at = AppTest.from_file(str(APP), default_timeout=120).run()
    assert not at.exception
    assert not at.error, _texts(at.error)
    assert at.metric, "the sample kingdom is scored"
    assert all(int(m.value) >= 0 for m in at.metric)
    assert any("sample" in i for i in _texts(at.info))


# --- the photo path, with the recogniser replaced by a stand-in ------------------------------

PHOTO_GRID = "F1 F0 L0\nF0 C L1\nW0 W0 M2"
# Forest 3 × 1 = 3, lake 2 × 1 = 2, wheat 2 × 0 = 0, mine 1 × 2 = 2: total 7.
PHOTO_TOTAL = 7


def _png(width: int = 320, height: int = 240) -> bytes:
    image = np.full((height, width, 3), 90, np.uint8)
    image[40:200, 80:240] = (40, 160, 60)
    ok, buf = cv2.imencode(".png", image)
    assert ok
    return buf.tobytes()


def _fake_report(
    kingdom: Kingdom,
    corners: list[list[float]],
    square_px: float = 100.0,
    outline_note: str | None = None,
    reasons: tuple[str, ...] = (),
) -> SimpleNamespace:
    """What the pipeline reports of one kingdom, with the square at the top left in doubt."""
    item = SimpleNamespace(
        outline_note=outline_note,
        kingdom=kingdom,
        board=np.full((300, 300, 3), 128, np.uint8),
        corners=corners,
        confidence=[
            [0.55 if (r, c) == (0, 0) else 0.99 for c in range(kingdom.width)]
            for r in range(kingdom.height)
        ],
        doubtful=frozenset({(0, 0)}),
        second_choices={(0, 0): Cell.parse("W1")},
        score=score(kingdom),
        square_px=square_px,
        warnings=(),
        reasons=reasons,
        confirmed=not reasons,
    )
    return SimpleNamespace(kingdoms=[item], timings={"detect": 0.1, "classify": 0.2})


@pytest.fixture()
def fake_recogniser(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Replace the photo recogniser: no board without corners, one kingdom with them."""
    calls: list[object] = []

    def score_photo(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
        calls.append(kw.get("corners"))
        if kw.get("corners") is None:
            raise BoardNotFoundError("no kingdom-sized area of tiles was found")
        corners = np.asarray(kw["corners"], dtype=float).tolist()
        return _fake_report(Kingdom.parse(PHOTO_GRID), corners)

    monkeypatch.setattr("scorer.pipeline.score_photo", score_photo)
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    st.cache_data.clear()
    st.cache_resource.clear()
    yield calls
    st.cache_data.clear()
    st.cache_resource.clear()


def test_photo_without_a_board_offers_the_corners_and_scores_after_them(
    fake_recogniser: list[object],
) -> None:
    at = _app().run()
    data = _png()
    at.file_uploader(key="uploads").upload("table.png", data, "image/png")
    at.run()
    assert not at.exception
    assert any("No kingdom-sized area" in e for e in _texts(at.error)), _texts(at.error)
    assert any("mark its four corners" in i for i in _texts(at.info))
    assert any("four corners" in m for m in _texts(at.markdown))
    assert not at.metric
    # The player marks the corners (the click component is a browser widget).
    key = hashlib.sha1(data).hexdigest()[:12]
    at.session_state[f"marked-{key}"] = {
        "1": ((80.0, 40.0), (240.0, 40.0), (240.0, 200.0), (80.0, 200.0))
    }
    at.run()
    assert not at.exception
    assert [int(m.value) for m in at.metric] == [PHOTO_TOTAL]
    assert fake_recogniser[-1] is not None
    hint = "row 1 column 1 (read F1, perhaps W1)"
    assert any("doubtful square" in w and hint in w for w in _texts(at.warning)), _texts(at.warning)


def test_four_clicked_corners_are_read_in_order_and_can_be_cleared(
    fake_recogniser: list[object],
) -> None:
    at = _app().run()
    data = _png()
    at.file_uploader(key="uploads").upload("table.png", data, "image/png").run()
    key = hashlib.sha1(data).hexdigest()[:12]
    # Four clicks, scrambled (the click component is a browser widget).
    at.session_state[f"clicks-{key}-1"] = [
        (240.0, 200.0),
        (80.0, 40.0),
        (80.0, 200.0),
        (240.0, 40.0),
    ]
    at.run()
    assert any("4 of 4 corners marked" in c for c in _texts(at.caption))
    at.button(key=f"use-corners-{key}-1").click().run()
    assert not at.exception
    # Handed to the recogniser clockwise from the top-left.
    assert np.asarray(fake_recogniser[-1]).tolist() == [
        [80.0, 40.0],
        [240.0, 40.0],
        [240.0, 200.0],
        [80.0, 200.0],
    ]
    assert [int(m.value) for m in at.metric] == [PHOTO_TOTAL]
    assert at.toggle(key=f"corners-toggle-{key}-1").value is False
    at.toggle(key=f"corners-toggle-{key}-1").set_value(True).run()
    at.button(key=f"clear-corners-{key}-1").click().run()
    assert not at.exception
    assert not at.metric
    assert any("0 of 4 corners marked" in c for c in _texts(at.caption))


def test_an_outline_corrected_by_the_reading_is_pointed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    note = outline_note((2, 3), (3, 3))

    def score_photo(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
        corners = [[80.0, 40.0], [240.0, 40.0], [240.0, 200.0], [80.0, 200.0]]
        return _fake_report(Kingdom.parse(PHOTO_GRID), corners, outline_note=note)

    monkeypatch.setattr("scorer.pipeline.score_photo", score_photo)
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    st.cache_data.clear()
    st.cache_resource.clear()
    at = _app().run()
    at.file_uploader(key="uploads").upload("table.png", _png(), "image/png")
    at.run()
    assert not at.exception
    infos = _texts(at.info)
    assert any(
        "grew to 3×3 to take in squares read beyond it" in i and "four corners" in i for i in infos
    )
    st.cache_data.clear()
    st.cache_resource.clear()


def test_same_photo_twice_is_scored_once(fake_recogniser: list[object]) -> None:
    at = _app().run()
    data = _png()
    uploader = at.file_uploader(key="uploads")
    uploader.upload("a.png", data, "image/png").upload("b.png", data, "image/png")
    at.run()
    assert not at.exception
    assert any("same photo" in i for i in _texts(at.info))
    assert len(fake_recogniser) == 1


def test_seven_by_seven_kingdom_in_the_standard_variant_suggests_mighty_duel() -> None:
    row = "F0 F0 F0 F0 F0 F0 F0"
    duel = "\n".join([row] * 3 + ["F0 F0 F0 C F0 F0 F0"] + [row] * 3)
    at = _typed(f"{duel}\n\n{duel}", variant="Standard 5×5")
    assert not at.exception
    assert any("Mighty Duel" in w for w in _texts(at.warning))
    at.sidebar.radio(key="variant").set_value("Mighty Duel 7×7").run()
    assert not any("Mighty Duel" in w for w in _texts(at.warning))
    assert any("Mighty Duel 7×7" in c for c in _texts(at.caption))


def test_unexpected_failure_in_one_photo_keeps_the_other_kingdoms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("detector fell over")

    monkeypatch.setattr("scorer.pipeline.score_photo", broken)
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    st.cache_data.clear()
    at = _typed(ANNA)
    at.file_uploader(key="uploads").upload("odd.png", _png(), "image/png")
    at.run()
    st.cache_data.clear()
    assert not at.exception
    assert any("unexpected" in e for e in _texts(at.error))
    assert any("Details" in e.label for e in at.expander)
    assert [int(m.value) for m in at.metric] == [ANNA_TOTAL]


def test_unexpected_failure_anywhere_shows_a_friendly_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("drawing fell over")

    monkeypatch.setattr("scorer.results.render.draw_kingdom", broken)
    at = _typed(ANNA)
    assert not at.exception
    assert any("Something unexpected went wrong" in e for e in _texts(at.error))
    assert any("Details" in e.label for e in at.expander)


@pytest.mark.parametrize(("mode", "players"), [("One photo of the whole table", 2), (None, 1)])
def test_whole_table_photo_makes_each_kingdom_a_player(
    monkeypatch: pytest.MonkeyPatch, mode: str | None, players: int
) -> None:
    left, right = Kingdom.parse(ANNA), Kingdom.parse(BEN)

    def score_photo(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
        one = _fake_report(left, [[10, 10], [100, 10], [100, 70], [10, 70]]).kingdoms[0]
        two = _fake_report(right, [[150, 10], [240, 10], [240, 70], [150, 70]]).kingdoms[0]
        return SimpleNamespace(kingdoms=[one, two], timings={})

    monkeypatch.setattr("scorer.pipeline.score_photo", score_photo)
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    st.cache_data.clear()
    at = _app()
    if mode is not None:
        at.session_state["photo_mode"] = mode
    at.run()
    at.file_uploader(key="uploads").upload("table.png", _png(), "image/png").run()
    st.cache_data.clear()
    assert not at.exception
    assert len(at.metric) == players
    if players == 2:
        assert list(at.dataframe[0].value["Player"]) == ["Player 1", "Player 2"]
        assert any("both scored 4" in i for i in _texts(at.info))
    else:
        assert any("shows 2 kingdoms" in i for i in _texts(at.info))


def test_changing_a_typed_grid_starts_its_corrections_afresh() -> None:
    at = _typed(ANNA)
    at.session_state["editor-typed-1-0"] = {
        "edited_rows": {1: {"3": "W1"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert any("corrected by hand" in m for m in _texts(at.markdown))
    at.text_area(key="typed_grids").set_value("M2 M0 C M0 M0").run()
    assert not at.exception
    # Mine 2 × 2 = 4 left of the castle, mine 2 × 0 = 0 right of it: total 4.
    assert [int(m.value) for m in at.metric] == [4]
    assert not any("corrected by hand" in m for m in _texts(at.markdown))


def test_missing_model_is_explained_and_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*args: object, **kwargs: object) -> None:
        raise ModelFileError("the model file models/cell_classifier.skops is missing")

    monkeypatch.setattr("scorer.read.classify.load_model", missing)
    st.cache_data.clear()
    st.cache_resource.clear()
    at = _app().run()
    at.file_uploader(key="uploads").upload("k.png", _png(), "image/png").run()
    assert not at.exception
    assert any("model file" in e for e in _texts(at.error))
    assert any("make train" in i for i in _texts(at.info))
    # Once the model is back, the same photo is read without restarting the page.
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    monkeypatch.setattr(
        "scorer.pipeline.score_photo",
        lambda image, rules, **kw: _fake_report(Kingdom.parse(PHOTO_GRID), [[80, 40]] * 4),
    )
    at.run()
    st.cache_data.clear()
    st.cache_resource.clear()
    assert not at.exception
    assert [int(m.value) for m in at.metric] == [PHOTO_TOTAL]


@pytest.mark.parametrize(("square_px", "warned"), [(100.0, False), (25.0, True)])
def test_small_squares_in_the_photo_are_warned_about(
    monkeypatch: pytest.MonkeyPatch, square_px: float, warned: bool
) -> None:
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    monkeypatch.setattr(
        "scorer.pipeline.score_photo",
        lambda image, rules, **kw: _fake_report(
            Kingdom.parse(PHOTO_GRID), [[80, 40], [240, 40], [240, 200], [80, 200]], square_px
        ),
    )
    st.cache_data.clear()
    st.cache_resource.clear()
    at = _app().run()
    at.file_uploader(key="uploads").upload("far.png", _png(), "image/png").run()
    st.cache_data.clear()
    st.cache_resource.clear()
    assert not at.exception
    assert [int(m.value) for m in at.metric] == [PHOTO_TOTAL]
    assert any("pixels across" in w for w in _texts(at.warning)) is warned


def test_heic_photo_from_an_iphone_is_read(fake_recogniser: list[object]) -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    from PIL import Image

    pillow_heif.register_heif_opener()
    buffer = io.BytesIO()
    Image.new("RGB", (320, 240), (40, 160, 60)).save(buffer, format="HEIF")
    at = _app().run()
    at.file_uploader(key="uploads").upload("IMG_0001.HEIC", buffer.getvalue(), "image/heic")
    at.run()
    assert not at.exception
    # The photo was decoded and handed to the recogniser (which finds no board here).
    assert len(fake_recogniser) == 1
    assert any("No kingdom-sized area" in e for e in _texts(at.error))


# --- issue 33: totals the program stands behind, whole-table fixes, names, downloads --------

WHOLE = "One photo of the whole table"
LEFT = [[10.0, 10.0], [100.0, 10.0], [100.0, 70.0], [10.0, 70.0]]
RIGHT = [[150.0, 10.0], [240.0, 10.0], [240.0, 70.0], [150.0, 70.0]]
CLICKS = [(240.0, 200.0), (80.0, 40.0), (80.0, 200.0), (240.0, 40.0)]
EDGE = "the kingdom reaches the photo's edge, so part of it may be cut off"


@pytest.fixture()
def two_kingdoms(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """A whole-table photo: Anna's kingdom (4) and Ben's (4); corners marked by the player
    read the kingdom ``PHOTO_GRID`` (7). ``two_kingdoms[0]`` holds the reasons Ben's total
    is unconfirmed (none by default)."""
    reasons: list[object] = [()]

    def score_photo(image: np.ndarray, rules: Rules, **kw: object) -> SimpleNamespace:
        if kw.get("corners") is not None:
            corners = np.asarray(kw["corners"], dtype=float).tolist()
            return _fake_report(Kingdom.parse(PHOTO_GRID), corners)
        one = _fake_report(Kingdom.parse(ANNA), LEFT).kingdoms[0]
        two = _fake_report(Kingdom.parse(BEN), RIGHT, reasons=reasons[0]).kingdoms[0]  # type: ignore[arg-type]
        return SimpleNamespace(kingdoms=[one, two], timings={})

    monkeypatch.setattr("scorer.pipeline.score_photo", score_photo)
    monkeypatch.setattr("scorer.read.classify.load_model", lambda *a, **k: object())
    return reasons


def _whole_table(data: bytes, **state: object) -> AppTest:
    at = _app()
    at.session_state["photo_mode"] = WHOLE
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.file_uploader(key="uploads").upload("table.png", data, "image/png").run()
    assert not at.exception
    return at


def _mark(at: AppTest, slot_key: str, toggle: str | None = None) -> None:
    """Open a kingdom's corner tool, click four corners and read inside them."""
    at.toggle(key=toggle or f"corners-toggle-{slot_key}").set_value(True).run()
    at.session_state[f"clicks-{slot_key}"] = CLICKS
    at.run()
    at.button(key=f"use-corners-{slot_key}").click().run()
    assert not at.exception


def test_marking_the_second_kingdom_of_a_whole_table_photo_keeps_both_players(
    two_kingdoms: list[object],
) -> None:
    data = _png()
    key = hashlib.sha1(data).hexdigest()[:12]
    at = _whole_table(data)
    assert [int(m.value) for m in at.metric] == [4, 4]
    # Every kingdom found has its own "Outline wrong?" control.
    assert {f"corners-toggle-{key}-1", f"corners-toggle-{key}-2"} <= {t.key for t in at.toggle}
    _mark(at, f"{key}-2")
    assert [int(m.value) for m in at.metric] == [4, PHOTO_TOTAL]
    assert list(at.dataframe[0].value["Player"]) == ["Player 2", "Player 1"]
    # A kingdom detection missed: its corners make a new player.
    _mark(at, f"{key}-added-1", toggle=f"add-kingdom-{key}")
    assert [int(m.value) for m in at.metric] == [4, PHOTO_TOTAL, PHOTO_TOTAL]
    assert list(at.dataframe[0].value["Player"]) == ["Player 2", "Player 3", "Player 1"]


def test_a_name_survives_marking_corners_correcting_and_the_variant(
    two_kingdoms: list[object], tmp_path: Path
) -> None:
    from scorer.store import GameStore

    data = _png()
    key = hashlib.sha1(data).hexdigest()[:12]
    at = _whole_table(data)
    at.text_input(key=f"name-{key}-1").set_value("Anna").run()
    at.text_input(key=f"name-{key}-2").set_value("Ben").run()
    _mark(at, f"{key}-1")
    assert at.text_input(key=f"name-{key}-1").value == "Anna"
    at.session_state[f"editor-{key}-1-1"] = {
        "edited_rows": {2: {"1": "W1"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert any("corrected by hand" in m for m in _texts(at.markdown))
    at.sidebar.radio(key="variant").set_value("Standard 5×5").run()
    assert not at.exception
    assert at.text_input(key=f"name-{key}-1").value == "Anna"
    assert set(at.dataframe[0].value["Player"]) == {"Anna", "Ben"}
    # The names typed are the ones the Dynasty keeps.
    at.button(key="save_game").click().run()
    (game,) = GameStore(tmp_path / "games.sqlite3").games()
    assert [p.name for p in game.players] == ["Anna", "Ben"]


def test_an_unconfirmed_total_is_kept_out_of_the_ranking_until_confirmed(
    two_kingdoms: list[object],
) -> None:
    two_kingdoms[0] = (EDGE,)
    data = _png()
    key = hashlib.sha1(data).hexdigest()[:12]
    at = _whole_table(data)
    assert [m.label for m in at.metric] == ["Total", "Total (unconfirmed)"]
    page = " ".join(_texts(at.markdown) + _texts(at.warning))
    assert "unconfirmed — check the outline" in page and EDGE in page
    assert not at.success, "no winner while a total is unconfirmed"
    assert not any("Player" in list(d.value.columns) for d in at.dataframe)
    # The corner tool is open beside it, with the button that confirms it.
    assert any("0 of 4 corners marked" in c for c in _texts(at.caption))
    at.button(key=f"confirm-{key}-2").click().run()
    assert not at.exception
    assert [m.label for m in at.metric] == ["Total", "Total"]
    assert list(at.dataframe[0].value["Player"]) == ["Player 1", "Player 2"]


def test_marking_the_corners_of_an_unconfirmed_kingdom_ranks_it(two_kingdoms: list[object]) -> None:
    two_kingdoms[0] = (EDGE,)
    data = _png()
    key = hashlib.sha1(data).hexdigest()[:12]
    at = _whole_table(data)
    at.session_state[f"clicks-{key}-2"] = CLICKS
    at.run()
    at.button(key=f"use-corners-{key}-2").click().run()
    assert list(at.dataframe[0].value["Player"]) == ["Player 2", "Player 1"]


def test_the_json_download_is_the_command_lines_json_for_the_same_photo(
    monkeypatch: pytest.MonkeyPatch, sample_photo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    from scorer.cli import main as cli

    offered: list[bytes] = []
    keep = MemoryMediaFileStorage.load_and_get_id

    def record(self: object, data: bytes, mimetype: str, *args: object, **kw: object) -> str:
        if mimetype == "application/json":
            offered.append(data)
        return keep(self, data, mimetype, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    at = AppTest.from_file(str(APP), default_timeout=120).run()
    at.file_uploader(key="uploads").upload(
        sample_photo.name, sample_photo.read_bytes(), "image/jpeg"
    ).run()
    assert not at.exception and offered
    page = json.loads(offered[-1])["results"]
    monkeypatch.chdir(sample_photo.parent)
    assert cli(["--json", sample_photo.name]) == 0
    command_line = json.loads(capsys.readouterr().out)["results"]
    assert [
        {k: v for k, v in r.items() if k not in ("player", "corrected_by_hand")} for r in page
    ] == command_line
    kingdom = page[0]["kingdoms"][0]
    assert {"corners", "confidence", "doubtful", "notes", "confirmed", "reasons"} <= set(kingdom)


def test_a_five_by_five_ranked_with_a_seven_by_seven_is_warned_about() -> None:
    row = "F0 F0 F0 F0 F0 F0 F0"
    duel = "\n".join([row] * 3 + ["F0 F0 F0 C F0 F0 F0"] + [row] * 3)
    small = "\n".join(["F1 F0 F0 F0 F0"] * 2 + ["W0 W0 C W0 W0"] + ["L0 L0 L0 L0 L0"] * 2)
    at = _typed(f"{duel}\n\n{small}")
    assert any("5×5 kingdom and a 7×7 kingdom" in w for w in _texts(at.warning))
    # Forest 10 squares × 2 crowns: the largest property and the crowns of the kingdom.
    assert any("10 squares · 2 crowns in the kingdom" in c for c in _texts(at.caption))
