"""Downloads: JSON in the command line's shape, and CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest

from scorer.results.export import CSV_COLUMNS, PlayerResult, results_csv, results_json
from scorer.results.report import kingdom_result
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import Player, Ranking, Rules, rank, score

ANNA = PlayerResult("Anna", "anna.jpg", Kingdom.parse("F1 F0 F0\nF0 C W0"), corrected=True)
BEN = PlayerResult("Ben", "typed grid 1", Kingdom.parse("M2 M0 C\nS0 S0 ."))
RULES = Rules(harmony=True)


def _ranking() -> Ranking:
    return rank([Player(p.name, (p.kingdom,)) for p in (ANNA, BEN)], RULES)


def test_json_keeps_the_command_line_shape_and_adds_the_player() -> None:
    doc = json.loads(results_json([ANNA, BEN], RULES))
    assert set(doc) == {"results"}
    first = doc["results"][0]
    assert {"input", "error", "kingdoms"} <= set(first)
    assert first["input"] == "anna.jpg" and first["error"] is None
    assert first["player"] == "Anna" and first["corrected_by_hand"] is True
    assert first["kingdoms"] == [kingdom_result(ANNA.kingdom, RULES)]
    assert doc["results"][1]["corrected_by_hand"] is False


def test_json_carries_the_ranking_with_its_explanation() -> None:
    doc = json.loads(results_json([ANNA, BEN], RULES, _ranking()))
    assert doc["ranking"]["winners"] == ["Anna"]
    assert any("largest property" in e for e in doc["ranking"]["explanations"])


@pytest.mark.parametrize("with_ranking", [False, True])
def test_csv_has_one_row_per_player_with_the_figures(with_ranking: bool) -> None:
    ranking = _ranking() if with_ranking else None
    text = results_csv([ANNA, BEN], RULES, ranking)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["player"] for r in rows] == ["Anna", "Ben"]
    for row, player in zip(rows, (ANNA, BEN), strict=True):
        b = score(player.kingdom, RULES)
        assert int(row["total"]) == b.total
        assert int(row["property_points"]) == b.property_points
        assert int(row["largest_property"]) == b.largest_property
        assert int(row["crowns"]) == b.crowns
        assert row["grid"] == " / ".join(player.kingdom.lines())
    assert [r["corrected_by_hand"] for r in rows] == ["yes", "no"]
    assert [r["place"] for r in rows] == (["1", "2"] if with_ranking else ["", ""])


def test_csv_quotes_awkward_names() -> None:
    odd = PlayerResult('Zoë, "the Queen"', "x.jpg", Kingdom.parse("C W1"))
    rows = list(csv.DictReader(io.StringIO(results_csv([odd], Rules()))))
    assert rows[0]["player"] == 'Zoë, "the Queen"'


def _photo_report(reasons: tuple[str, ...]) -> object:
    """A 1×3 kingdom ``F1 F0 C`` read from a photo, surely, with the program's reasons."""
    import numpy as np

    from scorer.detect import BoardLocation
    from scorer.read.classify import predict_from_probabilities
    from scorer.results.photo import KingdomReport
    from scorer.rules.kingdom import ALL_CELLS, Cell

    proba = np.full((1, 3, len(ALL_CELLS)), 1e-4)
    for c, token in enumerate(("F1", "F0", "C")):
        proba[0, c, ALL_CELLS.index(Cell.parse(token))] = 1.0
    prediction = predict_from_probabilities(proba)
    location = BoardLocation(np.array([[0, 0], [300, 0], [300, 100], [0, 100]], float), (1, 3))
    board = np.zeros((100, 300, 3), np.uint8)
    kingdom = prediction.kingdom
    return KingdomReport(location, board, prediction, score(kingdom), (), (), reasons=reasons)


def test_a_photo_players_json_is_the_command_lines_photo_kingdom() -> None:
    from scorer.results.report import photo_kingdom_result

    report = _photo_report(("the grid found is 1×3, not square",))
    player = PlayerResult("Cleo", "table.jpg", report.kingdom, report=report, confirmed=False)  # type: ignore[attr-defined]
    (kingdom,) = json.loads(results_json([player], RULES))["results"][0]["kingdoms"]
    assert kingdom == photo_kingdom_result(report, RULES)  # type: ignore[arg-type]
    assert kingdom["confirmed"] is False and kingdom["reasons"]


def test_csv_says_whether_each_total_is_confirmed_and_why_not() -> None:
    report = _photo_report(("the grid found is 1×3, not square", "3 squares are doubtful"))
    cleo = PlayerResult("Cleo", "table.jpg", report.kingdom, report=report, confirmed=False)  # type: ignore[attr-defined]
    rows = list(csv.DictReader(io.StringIO(results_csv([BEN, cleo], RULES))))
    assert [r["confirmed"] for r in rows] == ["yes", "no"]
    assert rows[0]["reasons"] == ""
    assert rows[1]["reasons"] == "the grid found is 1×3, not square; 3 squares are doubtful"
