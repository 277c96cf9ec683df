"""Tests for choosing among a kingdom's candidate outlines by how each reads
(scorer.read.verify)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scorer.detect import BoardLocation
from scorer.lab.datasets import load_aau_boards
from scorer.lab.scene_conditions import CONDITIONS
from scorer.lab.synth import make_scene
from scorer.pipeline import score_photo
from scorer.read.classify import BoardPrediction, predict_from_probabilities
from scorer.read.params import DEFAULT
from scorer.read.verify import (
    beyond_tiles,
    decoded_log_probability,
    hypothesis_score,
    verified_outline,
)
from scorer.rules.kingdom import ALL_CELLS, CASTLE, EMPTY, Cell, Terrain

WHEAT = Cell(Terrain.WHEAT, 0)
FOREST = Cell(Terrain.FOREST, 0)
EMPTY_INDEX = ALL_CELLS.index(EMPTY)


def reading_of(labels: list[Cell], sure: float, shape: tuple[int, int]) -> BoardPrediction:
    """A board whose squares read as ``labels``, each with probability ``sure`` (the rest
    spread evenly over the other labels)."""
    rest = (1.0 - sure) / (len(ALL_CELLS) - 1)
    proba = np.full((len(labels), len(ALL_CELLS)), rest)
    for i, cell in enumerate(labels):
        proba[i, ALL_CELLS.index(cell)] = sure
    return predict_from_probabilities(proba.reshape(*shape, len(ALL_CELLS)))


def box(x0: float, y0: float, x1: float, y1: float, shape: tuple[int, int]) -> BoardLocation:
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    return BoardLocation(corners, shape)


def test_the_decoded_labels_probability_is_averaged_in_logs() -> None:
    read = reading_of([WHEAT, FOREST, CASTLE], 0.9, (1, 3))
    assert decoded_log_probability(read, 1e-6) == pytest.approx(math.log(0.9))


def test_two_castles_cost_what_decoding_changes() -> None:
    # Both end squares read as the castle at 0.6; decoding keeps one and gives the other
    # its next label, at (1 - 0.6) / 12 = 1/30. Mean of logs by hand.
    read = reading_of([CASTLE, WHEAT, CASTLE], 0.6, (1, 3))
    expected = (math.log(0.6) + math.log(0.6) + math.log(0.4 / (len(ALL_CELLS) - 1))) / 3
    assert decoded_log_probability(read, 1e-6) == pytest.approx(expected)


def test_the_score_subtracts_the_tiles_beyond() -> None:
    read = reading_of([WHEAT, FOREST, CASTLE], 0.9, (1, 3))
    assert hypothesis_score(read, 0.4, 1e-6) == pytest.approx(math.log(0.9) - 0.5 * 0.4)


def _strip_reader(tile_chance: float):  # type: ignore[no-untyped-def]
    def read(strip: BoardLocation) -> np.ndarray:
        n = strip.shape[0] * strip.shape[1]
        proba = np.zeros((n, len(ALL_CELLS)))
        proba[:, EMPTY_INDEX] = 1.0 - tile_chance
        proba[:, ALL_CELLS.index(WHEAT)] = tile_chance
        return proba

    return read


def test_only_strips_in_the_photo_are_read_beyond() -> None:
    inside = box(100, 100, 400, 400, (3, 3))
    assert beyond_tiles(inside, _strip_reader(0.7), EMPTY_INDEX, (600, 600)) == pytest.approx(0.7)
    frame = box(0, 0, 600, 600, (3, 3))  # every strip lies outside the photo: none is read
    params = replace(DEFAULT, unseen_beyond=0.0)
    assert beyond_tiles(frame, _strip_reader(0.7), EMPTY_INDEX, (600, 600), params) == 0.0


@pytest.mark.parametrize(
    ("corners", "tile_chance", "expected"),
    [
        ((100, 100, 400, 400), 0.7, 0.7),  # every strip in the photo: as read
        ((100, 100, 400, 400), 0.2, 0.2),
        ((0, 0, 600, 600), 0.7, 0.5),  # every strip outside: unseen
        ((0, 100, 300, 400), 0.2, 0.5),  # the left strip outside: the most of both
        ((0, 100, 300, 400), 0.7, 0.7),
        # the bottom strip 40 of its 153⅓ pixels in the photo: the rest unseen
        ((100, 100, 400, 560), 0.2, 0.5 * (1 - 40 / (460 / 3))),
    ],
)
def test_the_part_of_a_strip_outside_the_photo_counts_as_unseen(
    corners: tuple[float, float, float, float], tile_chance: float, expected: float
) -> None:
    params = replace(DEFAULT, unseen_beyond=0.5)
    location = box(*corners, (3, 3))
    read = _strip_reader(tile_chance)
    assert beyond_tiles(location, read, EMPTY_INDEX, (600, 600), params) == pytest.approx(expected)


def _fixed(reads: dict[int, tuple[BoardLocation, np.ndarray, BoardPrediction]]):  # type: ignore[no-untyped-def]
    return lambda loc: reads[id(loc)]


@pytest.mark.parametrize(
    ("other_sure", "taken"),
    [(0.95, True), (0.8, False), (0.7, False)],
)
def test_an_alternative_replaces_the_first_only_when_it_reads_clearly_better(
    other_sure: float, taken: bool
) -> None:
    board = np.zeros((1, 1, 3), np.uint8)
    other = box(0, 0, 600, 600, (1, 3))
    found = BoardLocation(box(0, 0, 600, 600, (1, 3)).corners, (1, 3), alternatives=(other,))
    first = (found, board, reading_of([WHEAT, FOREST, CASTLE], 0.8, (1, 3)))
    second = (other, board, reading_of([WHEAT, FOREST, CASTLE], other_sure, (1, 3)))
    outline, reading, hypotheses = verified_outline(
        found,
        first,
        _fixed({id(other): second}),
        _strip_reader(0.0),
        (600, 600),
        better_by=0.03,
        floor=1e-6,
    )
    assert (outline is other) is taken
    assert (reading is second) is taken
    assert [h.location for h in hypotheses] == [found, other]


def test_an_outline_that_leaves_tiles_beyond_it_loses_to_the_whole() -> None:
    # The first outline is a part of the kingdom, read as clearly, with tiles beyond.
    board = np.zeros((1, 1, 3), np.uint8)
    whole = box(0, 0, 600, 600, (1, 3))
    part = BoardLocation(box(100, 100, 400, 400, (1, 3)).corners, (1, 3), alternatives=(whole,))
    read = reading_of([WHEAT, FOREST, CASTLE], 0.9, (1, 3))
    outline, _, hypotheses = verified_outline(
        part,
        (part, board, read),
        _fixed({id(whole): (whole, board, read)}),
        _strip_reader(0.9),
        (600, 600),
        better_by=0.03,
        floor=1e-6,
    )
    assert outline is whole
    assert hypotheses[0].beyond == pytest.approx(0.9) and hypotheses[1].beyond == 0.0


def test_without_alternatives_nothing_else_is_read() -> None:
    found = box(0, 0, 600, 600, (1, 3))
    first = (found, np.zeros((1, 1, 3), np.uint8), reading_of([WHEAT, FOREST, CASTLE], 0.9, (1, 3)))

    def never(_: BoardLocation) -> np.ndarray:
        raise AssertionError("read without an alternative")

    assert verified_outline(found, first, never, never, (600, 600), better_by=0.03, floor=1e-6) == (
        None,
        first,
        (),
    )


def test_a_cropped_photo_reads_as_the_whole_kingdom(shared_data: Path) -> None:
    # Detection's outline is a 4×4 grid inside the kingdom; the whole frame, its
    # alternative, reads better and is taken (the committed model).
    boards = load_aau_boards(shared_data)
    scene = make_scene(7, boards, condition=CONDITIONS["cropped_edge"])
    (kingdom,) = score_photo(scene.image).kingdoms
    assert kingdom.location.shape == scene.kingdoms[0].shape


@pytest.mark.parametrize(("edge_weight", "grown_taken"), [(0.0, True), (0.1, False)])
def test_a_grid_grown_onto_bare_table_loses_by_its_faint_side(
    edge_weight: float, grown_taken: bool
) -> None:
    # The grown grid reads more surely (its added row of table reads surely as empty),
    # but its weakest side is a tenth as sharp as its seams: by hand, 0.1 × ln(10) = 0.23
    # off its score, more than its clearer reading gains (ln 0.95 − ln 0.8 = 0.17).
    board = np.zeros((1, 1, 3), np.uint8)
    grown = box(100, 100, 400, 500, (4, 3))
    found = BoardLocation(box(100, 100, 400, 400, (3, 3)).corners, (3, 3), alternatives=(grown,))
    first = reading_of([WHEAT] * 4 + [CASTLE] + [FOREST] * 4, 0.8, (3, 3))
    more = reading_of([WHEAT] * 4 + [CASTLE] + [FOREST] * 4 + [EMPTY] * 3, 0.95, (4, 3))

    def sharpness(loc: BoardLocation) -> float:
        return 0.1 if loc is grown else 1.5

    params = replace(DEFAULT, edge_weight=edge_weight)
    outline, _, hypotheses = verified_outline(
        found,
        (found, board, first),
        _fixed({id(grown): (grown, board, more)}),
        _strip_reader(0.0),
        (600, 600),
        better_by=0.03,
        floor=1e-6,
        params=params,
        sides=sharpness,
    )
    assert (outline is grown) is grown_taken
    expected = (0.1, 1.5) if edge_weight else (None, None)
    assert (hypotheses[1].edge, hypotheses[0].edge) == expected
