"""Tests for the composed pipeline (scorer.pipeline) and photo input on the command line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer import cli
from scorer.detect import BoardLocation, find_kingdoms
from scorer.detect.params import DEFAULT as DETECT_DEFAULT
from scorer.detect.params import DetectParams
from scorer.lab.datasets import load_aau_boards
from scorer.lab.synth import demo_board, make_scene
from scorer.pipeline import (
    STAGES,
    decisive_squares,
    read_kingdom,
    score_kingdom,
    score_photo,
    square_side_px,
    unvouched,
)
from scorer.read.classify import BoardPrediction
from scorer.read.params import DEFAULT as READ_DEFAULT
from scorer.results.report import other_outline_note, outline_note
from scorer.rules.errors import BoardNotFoundError, ModelFileError
from scorer.rules.kingdom import ALL_CELLS, CASTLE, DUEL_SIZE, EMPTY, Cell, Kingdom, Terrain
from scorer.rules.scoring import Rules, score

MIN_SQUARE_PX = READ_DEFAULT.min_square_px
WHEAT = Cell(Terrain.WHEAT, 0)
CROWNED_WHEAT = Cell(Terrain.WHEAT, 1)


class CentreCastleModel:
    """A stand-in classifier: the middle square is the castle, every other one plain wheat."""

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        proba = np.full((len(crops), len(ALL_CELLS)), 0.01)
        proba[:, ALL_CELLS.index(WHEAT)] = 0.9
        middle = len(crops) // 2
        proba[middle] = 0.01
        proba[middle, ALL_CELLS.index(CASTLE)] = 0.9
        return proba / proba.sum(axis=1, keepdims=True)


class FixedModel:
    """A stand-in classifier: rows of plain wheat, forest and lake (as many as the tile set
    holds), the castle in the middle, and a given chance of empty, square by square."""

    def __init__(self, empty_chance: dict[tuple[int, int], float]) -> None:
        self.empty_chance = empty_chance

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        proba = np.full((len(crops), len(ALL_CELLS)), 1e-6)
        rows = (Terrain.WHEAT, Terrain.FOREST, Terrain.LAKE, Terrain.WHEAT, Terrain.FOREST)
        for i in range(len(crops)):
            proba[i, ALL_CELLS.index(Cell(rows[i // 5], 0))] = 1.0
        proba[len(crops) // 2, ALL_CELLS.index(CASTLE)] = 2.0
        for (r, c), chance in self.empty_chance.items():
            proba[r * 5 + c, ALL_CELLS.index(EMPTY)] = chance
        return proba / proba.sum(axis=1, keepdims=True)


def test_score_photo_reports_each_kingdom_with_corners_confidence_and_timings() -> None:
    scene = make_scene(2, [demo_board(0)], n_kingdoms=1, remove_cells=False)
    report = score_photo(scene.image, Rules(), model=CentreCastleModel())
    (found,) = report.kingdoms
    assert found.kingdom.shape == (5, 5)
    assert found.kingdom.castle == (2, 2)
    assert found.score == score(found.kingdom, Rules())
    assert np.array(found.corners).shape == (4, 2)
    assert np.array(found.confidence).shape == (5, 5)
    assert found.board.shape == (500, 500, 3)
    assert set(STAGES) <= set(report.timings)
    assert all(t >= 0 for t in report.timings.values())


def test_score_photo_without_kingdom_raises_named_error() -> None:
    image = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(BoardNotFoundError):
        score_photo(image, Rules(), model=CentreCastleModel())


def test_user_corners_and_grid_are_passed_to_detection() -> None:
    scene = make_scene(4, [demo_board(1)], n_kingdoms=1, remove_cells=False)
    corners = scene.kingdoms[0].corners
    report = score_photo(
        scene.image, Rules(), grid=5, corners=corners.tolist(), model=CentreCastleModel()
    )
    np.testing.assert_allclose(report.kingdoms[0].corners, corners, atol=0.1)


@pytest.mark.parametrize("given", [None, DetectParams()])
def test_detection_params_reach_find_kingdoms(
    monkeypatch: pytest.MonkeyPatch, given: DetectParams | None
) -> None:
    seen: list[object] = []

    def find(image: np.ndarray, **kw: object) -> list[BoardLocation]:
        seen.append(kw["params"])
        return [BoardLocation(_quad(100, 100, 600, 600), (5, 5))]

    monkeypatch.setattr("scorer.pipeline.find_kingdoms", find)
    score_photo(_drawn_kingdom((2, 2)), Rules(), model=MarkedCastleModel(), detect_params=given)  # type: ignore[arg-type]
    (passed,) = seen
    assert passed is (DETECT_DEFAULT if given is None else given)


@pytest.mark.parametrize(("scale", "warned"), [(1.0, False), (0.25, True)])
def test_small_squares_in_the_photo_are_warned_about(scale: float, warned: bool) -> None:
    scene = make_scene(2, [demo_board(0)], n_kingdoms=1, remove_cells=False)
    corners = scene.kingdoms[0].corners * scale
    image = cv2.resize(scene.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    report = score_photo(
        image, Rules(), grid=5, corners=corners.tolist(), model=CentreCastleModel()
    )
    side = square_side_px(report.kingdoms[0].location)
    assert (side < MIN_SQUARE_PX) is warned
    assert any("pixels across" in w for w in report.kingdoms[0].warnings) is warned


def test_score_kingdom_scores_a_typed_kingdom() -> None:
    kingdom = Kingdom.parse("F1 F0 C")
    assert score_kingdom(kingdom, Rules()).total == 2


def _trained_model_or_skip() -> None:
    from scorer.read.classify import default_model

    try:
        default_model()
    except ModelFileError as err:
        pytest.skip(f"no trained model: {err}")


@pytest.mark.slow
def test_real_photo_end_to_end(fixtures: Path) -> None:
    _trained_model_or_skip()
    image = cv2.imread(str(fixtures / "photos" / "game1.jpg"))
    truth = Kingdom.parse((fixtures / "photos" / "game1.txt").read_text(encoding="utf-8"))
    (found,) = score_photo(image, Rules()).kingdoms
    assert found.kingdom.shape == (DUEL_SIZE, DUEL_SIZE)
    best = 0
    kingdom = found.kingdom
    for _ in range(4):
        best = max(best, sum(kingdom[p] == c for p, c in truth.cells()))
        kingdom = kingdom.rotate()
    assert best >= 44  # a downscaled 800-px copy; the full photo is measured by the evaluation


@pytest.mark.slow
def test_command_line_scores_a_photo_as_json(
    fixtures: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _trained_model_or_skip()
    code = cli.main([str(fixtures / "photos" / "game1.jpg"), "--json", "--grid", "7"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    text = json.dumps(out)
    assert '"corners"' in text and '"confidence"' in text and '"grid"' in text
    (kingdom,) = out["results"][0]["kingdoms"]
    for doubt in kingdom["doubtful"]:
        r, c = doubt["square"]
        assert kingdom["grid"][r].split()[c] == doubt["read"] != doubt["perhaps"]


@pytest.mark.parametrize(("scale", "noted"), [(1.0, False), (0.3, True)])
def test_command_line_notes_a_photo_whose_squares_are_small(
    fixtures: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], scale: float, noted: bool
) -> None:
    _trained_model_or_skip()
    image = cv2.imread(str(fixtures / "photos" / "game1.jpg"), cv2.IMREAD_COLOR)
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    path = tmp_path / "photo.png"
    cv2.imwrite(str(path), small)
    assert cli.main([str(path), "--json", "--grid", "7"]) == 0
    (kingdom,) = json.loads(capsys.readouterr().out)["results"][0]["kingdoms"]
    assert any("pixels across" in n for n in kingdom["notes"]) is noted
    assert cli.main([str(path), "--grid", "7"]) == 0
    assert ("note: the squares are only" in capsys.readouterr().out) is noted


def test_score_kingdom_warning_names_each_doubtful_square_and_its_other_reading() -> None:
    corners = [[0, 0], [499, 0], [499, 499], [0, 499]]
    model = FixedModel({(0, 1): 0.45})
    image = np.zeros((500, 500, 3), np.uint8)
    photo = score_photo(image, Rules(), corners=corners, grid=5, model=model)  # type: ignore[arg-type]
    (report,) = photo.kingdoms
    assert (0, 1) in report.doubtful
    assert report.second_choices[(0, 1)] in (EMPTY, Cell(Terrain.WHEAT, 0))
    assert report.second_choices[(0, 1)] != report.kingdom[(0, 1)]
    (warning,) = [w for w in report.warnings if "please check" in w]
    other = report.second_choices[(0, 1)].token
    assert f"row 1 column 2 (read {report.kingdom[(0, 1)].token}, perhaps {other})" in warning


class _BareSpotModel:
    """Reads, each square at 0.97, a kingdom of whole dominoes with its top left domino (W0
    W0) taken away, whose right half's bare table it reads as a crowned grassland (empty at
    0.02)."""

    GRID = ". G2 F0 F0 L1 / G0 G0 M2 W0 F0 / W1 S0 C L0 L0 / M0 S0 W0 S0 F1 / G2 W0 G0 M2 W0"

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        proba = np.full((len(crops), len(ALL_CELLS)), 0.01 / (len(ALL_CELLS) - 1))
        for i, token in enumerate(self.GRID.replace("/", "").split()):
            proba[i, ALL_CELLS.index(Cell.parse(token))] = 0.97
        proba[1, ALL_CELLS.index(EMPTY)] = 0.02
        return proba / proba.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rule", [True, False])
def test_a_bare_spot_read_surely_as_a_tile_is_flagged_where_dominoes_cannot_pair(
    rule: bool,
) -> None:
    # 23 tile squares: whole dominoes never leave an odd number. The crowned grassland read
    # on bare table joins the two grassland squares below it: 3 x 2 = 6 points too many.
    read = Kingdom.parse(_BareSpotModel.GRID.replace("/", "\n"))
    truth = read.replace((0, 1), EMPTY)
    assert score(read).total - score(truth).total == 6
    corners = [[0, 0], [499, 0], [499, 499], [0, 499]]
    params = replace(READ_DEFAULT, domino_doubt=rule)
    (report,) = score_photo(
        np.zeros((500, 500, 3), np.uint8),
        Rules(),
        corners=corners,
        grid=5,
        model=_BareSpotModel(),  # type: ignore[arg-type]
        read_params=params,
    ).kingdoms
    assert report.kingdom == read
    assert ((0, 1) in report.doubtful) is rule
    if rule:  # the player is offered the bare table a grid of whole dominoes reads there
        assert report.second_choices[(0, 1)] == EMPTY
    assert not report.confirmed  # the bare square (0, 0) is in doubt either way


MARKED_CASTLE = (0, 0, 255)
"""Colour of the castle square in the drawn photos below (BGR red)."""


class MarkedCastleModel:
    """A stand-in classifier: a red square is the castle, a yellow one wheat, a green one
    wheat with a crown, the rest empty."""

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        proba = np.full((len(crops), len(ALL_CELLS)), 0.01)
        for i, crop in enumerate(crops):
            _, g, r = crop.reshape(-1, 3).mean(axis=0)
            cell = (
                CASTLE
                if r > 200 and g < 60
                else WHEAT
                if r > 200
                else CROWNED_WHEAT
                if g > 200
                else EMPTY
            )
            proba[i, ALL_CELLS.index(cell)] = 0.9
        return proba / proba.sum(axis=1, keepdims=True)


def _drawn_kingdom(castle: tuple[int, int] | None, bare_row: int | None = None) -> np.ndarray:
    """A 700×700 grey photo with a 5×5 kingdom at (100, 100), 100-px squares: wheat, the
    castle at ``castle`` and, in the castle's outer row or column, nothing else; the
    row ``bare_row``, if any, is bare table."""
    image = np.full((700, 700, 3), 90, np.uint8)
    for r in range(5):
        if r == bare_row:
            continue
        for c in range(5):
            lone_row = castle is not None and castle[0] in (0, 4) and r == castle[0]
            lone_col = castle is not None and castle[1] in (0, 4) and c == castle[1]
            if (r, c) != castle and (lone_row or lone_col):
                continue
            colour = MARKED_CASTLE if (r, c) == castle else (0, 220, 240)
            y, x = 100 + 100 * r, 100 + 100 * c
            image[y + 2 : y + 98, x + 2 : x + 98] = colour
    return image


def _quad(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def test_score_photo_notes_an_outline_corrected_by_what_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = _drawn_kingdom((2, 4))
    left_out = BoardLocation(_quad(100, 100, 500, 600), (5, 4))
    monkeypatch.setattr("scorer.pipeline.find_kingdoms", lambda *a, **k: [left_out])
    (found,) = score_photo(image, Rules(), model=MarkedCastleModel()).kingdoms  # type: ignore[arg-type]
    assert found.kingdom.shape == (5, 5)
    assert found.kingdom.castle == (2, 4)
    assert found.warnings[0] == found.outline_note == outline_note((5, 4), (5, 5))
    assert found.detected_shape == (5, 4)
    marked = score_photo(image, Rules(), corners=left_out.corners, model=MarkedCastleModel())  # type: ignore[arg-type]
    assert marked.kingdoms[0].kingdom.shape == (5, 4)  # the player's corners stand
    assert marked.kingdoms[0].outline_note is None


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "board"), [(40178, "16"), (50131, "12")])
def test_lake_row_on_a_blue_mat_left_out_by_detection_is_read_back(
    shared_data: Path, seed: int, board: str
) -> None:
    # Lakes along one side of the kingdom, on a blue cutting mat: detection takes the
    # row for table; the classifier reads lakes.
    _trained_model_or_skip()
    scene = make_scene(seed, load_aau_boards(shared_data))
    (truth,) = [k for k in scene.kingdoms if k.board == board]
    found = find_kingdoms(scene.image)
    location = min(found, key=lambda loc: float(np.abs(loc.corners - truth.corners).sum()))
    assert location.trimmed
    assert sorted(location.shape) != sorted(truth.shape)
    new, _, prediction = read_kingdom(scene.image, location)
    side = float(np.linalg.norm(truth.corners[1] - truth.corners[0]))
    assert np.abs(new.corners - truth.corners).max() < 0.05 * side
    assert prediction.kingdom.shape == truth.shape


@pytest.mark.slow
def test_kingdom_in_pieces_found_on_its_seam_lattice_reads_whole(shared_data: Path) -> None:
    # 50217: detection lays a grid on the seams of a kingdom that shadow breaks into
    # pieces, and leaves out two rows as table; what is read takes back the one with
    # crowns, then grows the kingdom to the row that holds its castle.
    _trained_model_or_skip()
    scene = make_scene(50217, load_aau_boards(shared_data))
    (truth,) = scene.kingdoms
    (location,) = find_kingdoms(scene.image)
    new, _, prediction = read_kingdom(scene.image, location)
    side = float(np.linalg.norm(truth.corners[1] - truth.corners[0]))
    assert np.abs(new.corners - truth.corners).max() < 0.05 * side
    assert prediction.kingdom.shape == truth.shape


class ClarityModel:
    """A stand-in classifier that is sure of a square whose middle is one colour and unsure
    of one cut across a seam: red is the castle, yellow wheat, the rest empty."""

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        proba = np.zeros((len(crops), len(ALL_CELLS)))
        for i, crop in enumerate(crops):
            h, w = crop.shape[:2]
            middle = crop[h // 5 : h - h // 5, w // 5 : w - w // 5].reshape(-1, 3)
            _, g, r = middle.mean(axis=0)
            cell = CASTLE if r > 200 and g < 60 else WHEAT if r > 150 else EMPTY
            sure = 0.98 if middle.std(axis=0).max() < 20 else 0.4
            proba[i] = (1 - sure) / (len(ALL_CELLS) - 1)
            proba[i, ALL_CELLS.index(cell)] = sure
        return proba


RIGHT = BoardLocation(_quad(100, 100, 600, 600), (5, 5))
OFF = BoardLocation(_quad(150, 100, 650, 600), (5, 5))  # half a square to the right


def test_score_photo_notes_an_outline_taken_for_its_clearer_squares(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = _drawn_kingdom((2, 2))
    found = BoardLocation(OFF.corners, (5, 4), alternatives=(RIGHT,))
    monkeypatch.setattr("scorer.pipeline.find_kingdoms", lambda *a, **k: [found])
    (kingdom,) = score_photo(image, Rules(), model=ClarityModel()).kingdoms  # type: ignore[arg-type]
    assert kingdom.location is RIGHT
    assert kingdom.detected_shape == (5, 4) and kingdom.other_outline
    assert kingdom.warnings[0] == kingdom.outline_note == other_outline_note((5, 4), (5, 5))


# A mine square read M2 beside the castle, with the castle's place in doubt: its most probable
# other reading is the castle, which is not a terrain swap the total can be recomputed for:
# if the castle stands there, the squares that score are others. Hand-checked total: forest
# 1×1 + mine 1×2 = 3; as S2 (a swamp of one with two crowns) still 3.
@pytest.mark.parametrize(
    ("places", "decisive"),
    [
        (set(), ()),  # the castle's place is sure: a castle runner-up cannot be
        ({(0, 2)}, ()),  # only where it is read
        ({(0, 1), (0, 2)}, ((0, 1), (0, 2))),  # it may stand on the mine square too
    ],
)
def test_a_castle_whose_place_is_in_doubt_could_change_the_total(
    places: set[tuple[int, int]], decisive: tuple[tuple[int, int], ...]
) -> None:
    kingdom = Kingdom.parse("F1 M2 C")
    assert score(kingdom).total == 3
    readings = {(0, 1): {CASTLE: 0.2, Cell.parse("S2"): 0.1}, (0, 2): {Cell.parse("S0"): 0.3}}
    assert decisive_squares(kingdom, readings, Rules(), (), places, share=0.2) == decisive


# The middle square of the top row read as swamp, doubtful. Hand-checked totals: as read,
# forest 1×1 + mine 2×2 = 5; the square as S1 (a swamp of one with a crown) 6, as F0 (the
# forest grows to 2 squares) 6, as M0 (the mine grows to 3 squares) 7, as G0 or W0 still 5.
@pytest.mark.parametrize(
    ("readings", "doubted"),
    [
        ({"G0": 0.25, "W0": 0.1, "S1": 0.05}, False),  # the runner-up keeps the total
        ({"G0": 0.15, "S1": 0.1, "F0": 0.12}, True),  # but a fifth of the rest changes it
        ({"S1": 0.18, "W0": 0.02}, True),  # the runner-up changes it, however unlikely
        ({"G0": 0.3, "M0": 0.1, "F0": 0.06, "S1": 0.05}, True),  # small ones that add up
    ],
)
def test_a_doubtful_square_is_decisive_when_its_runner_up_or_a_share_of_the_rest_would_be(
    readings: dict[str, float], doubted: bool
) -> None:
    kingdom = Kingdom.parse("F1 S0 M2\nC W0 M0")
    assert score(kingdom).total == 5
    others = {Cell.parse(k): v for k, v in readings.items()}
    expected = ((0, 1),) if doubted else ()
    assert decisive_squares(kingdom, {(0, 1): others}, Rules(), share=0.2) == expected


def test_a_tenth_of_a_doubtful_square_that_changes_the_total_withholds_it() -> None:
    # The same kingdom (total 5); the square read S0 at 0.55: its runner-up G0 keeps the
    # total, S1 and F0 change it (to 6) and hold 0.15 together: enough at the default tenth,
    # not at a fifth. A matrix scene (margin_3pct, seed 6002) was so: true S0 read F0 at
    # 0.44, the runner-up S1 keeping the total, the truth at 0.16: confirmed and wrong.
    kingdom = Kingdom.parse("F1 S0 M2\nC W0 M0")
    assert score(kingdom).total == 5
    others = {Cell.parse("G0"): 0.3, Cell.parse("S1"): 0.08, Cell.parse("F0"): 0.07}
    share = READ_DEFAULT.decisive_share
    assert decisive_squares(kingdom, {(0, 1): others}, Rules(), share=share) == ((0, 1),)
    assert decisive_squares(kingdom, {(0, 1): others}, Rules(), share=0.2) == ()


# A hand over a corner: the square, truly L1, reads as empty at 0.976 and is doubted by a rule
# (an empty read that nothing confirms), not by its probabilities. Hand-checked totals: as
# read, lake 3×1 = 3 (the wheat has no crown); as S0 (a lone swamp) or W0 (the wheat grows
# to two squares) still 3; as the true L1, lake 4×2 = 8.
@pytest.mark.parametrize(
    ("confidence", "cell", "decisive"),
    [
        (0.976, ".", ((0, 0),)),  # read surely, doubted by a rule: its readings cannot vouch
        (0.6, ".", ()),  # doubted by its probabilities, which say the total stands
        (0.85, "C", ()),  # a castle read weakly: its doubts are where else it may stand
    ],
)
def test_a_square_a_rule_doubted_cannot_be_vouched_for_by_its_probabilities(
    confidence: float, cell: str, decisive: tuple[tuple[int, int], ...]
) -> None:
    kingdom = Kingdom.parse(f"{cell} W0 {'.' if cell == 'C' else 'C'}\nL0 L1 L0")
    assert score(kingdom).total == 3
    if cell != "C":
        assert score(kingdom.replace((0, 0), Cell.parse("L1"))).total == 8
    confidences = np.ones(kingdom.shape)
    confidences[0, 0] = confidence
    proba = np.zeros((*kingdom.shape, len(ALL_CELLS)))
    prediction = BoardPrediction(kingdom, confidences, proba, ALL_CELLS, frozenset({(0, 0)}))
    readings = {(0, 0): {Cell.parse("S0"): 0.02, Cell.parse("W0"): 0.004}}
    rule_doubted = unvouched(prediction, prediction.doubtful, doubt_below=0.8)
    assert decisive_squares(kingdom, readings, Rules(), (), (), rule_doubted, share=0.2) == (
        decisive
    )


SURE = replace(READ_DEFAULT, several_doubtful=26, decisive_doubtful=26)
"""Doubtful squares never count here: the drawn kingdom holds more plain wheat than the tile
set, so decoding doubts some squares; the other reasons are under test."""


def test_score_photo_gives_each_kingdom_its_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    image = _drawn_kingdom((2, 2))
    whole = BoardLocation(_quad(100, 100, 600, 600), (5, 5))
    monkeypatch.setattr("scorer.pipeline.find_kingdoms", lambda *a, **k: [whole])
    (found,) = score_photo(image, Rules(), model=MarkedCastleModel(), read_params=SURE).kingdoms  # type: ignore[arg-type]
    assert found.confirmed and found.reasons == ()
    # The variant in play expects 7×7: a 5×5 grid is not the program's to stand behind.
    (duel,) = score_photo(
        image, Rules(side=7), model=MarkedCastleModel(), read_params=SURE
    ).kingdoms  # type: ignore[arg-type]
    assert duel.reasons == ("the grid found is 5×5, not the 7×7 of the variant in play",)
    # The same kingdom cut by the photo's right edge.
    cut = np.ascontiguousarray(image[:, :601])
    (edge,) = score_photo(cut, Rules(), model=MarkedCastleModel(), read_params=SURE).kingdoms  # type: ignore[arg-type]
    assert not edge.confirmed
    assert edge.reasons == ("the kingdom reaches the photo's edge, so part of it may be cut off",)
    # Corners the player marked are the player's outline, even at the edge.
    marked = score_photo(
        cut, Rules(), corners=whole.corners, model=MarkedCastleModel(), read_params=SURE
    )  # type: ignore[arg-type]
    assert marked.kingdoms[0].confirmed


def test_an_outline_corrected_by_the_reading_leaves_the_total_unconfirmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = _drawn_kingdom((2, 4))
    left_out = BoardLocation(_quad(100, 100, 500, 600), (5, 4))
    monkeypatch.setattr("scorer.pipeline.find_kingdoms", lambda *a, **k: [left_out])
    (found,) = score_photo(image, Rules(), model=MarkedCastleModel(), read_params=SURE).kingdoms  # type: ignore[arg-type]
    assert found.reasons == ("the reading moved the outline detection found (5×4)",)
    marked = score_photo(
        image, Rules(), corners=left_out.corners, model=MarkedCastleModel(), read_params=SURE
    )  # type: ignore[arg-type]
    assert marked.kingdoms[0].reasons == ("the grid found is 5×4, not square",)


def test_command_line_says_when_a_photos_total_is_unconfirmed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kingdom.png"
    cv2.imwrite(str(path), _drawn_kingdom((2, 4)))
    left_out = BoardLocation(_quad(100, 100, 500, 600), (5, 4))
    monkeypatch.setattr("scorer.pipeline.find_kingdoms", lambda *a, **k: [left_out])
    monkeypatch.setattr("scorer.read.classify.default_model", MarkedCastleModel)
    monkeypatch.setattr("scorer.read.corrections.default_model", MarkedCastleModel)
    assert cli.main([str(path)]) == 0
    text = capsys.readouterr().out
    assert "\nunconfirmed total: the reading moved the outline detection found (5×4)" in text
    assert cli.main([str(path), "--json"]) == 0
    (kingdom,) = json.loads(capsys.readouterr().out)["results"][0]["kingdoms"]
    assert kingdom["confirmed"] is False
    assert kingdom["reasons"][0] == "the reading moved the outline detection found (5×4)"
