"""Tests for the synthetic scene generator (scorer.lab.synth)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.detect import BoardLocation, order_corners, rectify
from scorer.lab import synth
from scorer.lab.datasets import load_aau_boards
from scorer.lab.synth import (
    BACKGROUNDS,
    CONDITIONS,
    TABLES,
    Condition,
    Scene,
    demo_board,
    make_scene,
)
from scorer.read.decoding import domino_tiling
from scorer.rules.kingdom import EMPTY, Kingdom

DEMO_BOARDS = [demo_board(seed) for seed in range(3)]


def test_same_seed_same_scene() -> None:
    a = make_scene(5, DEMO_BOARDS)
    b = make_scene(5, DEMO_BOARDS)
    np.testing.assert_array_equal(a.image, b.image)
    assert [k.kingdom for k in a.kingdoms] == [k.kingdom for k in b.kingdoms]


def test_different_seeds_differ() -> None:
    assert not np.array_equal(make_scene(1, DEMO_BOARDS).image, make_scene(2, DEMO_BOARDS).image)


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_kingdoms_lie_inside_the_photo(background: str) -> None:
    scene = make_scene(3, DEMO_BOARDS, background=background, n_kingdoms=2)
    h, w = scene.image.shape[:2]
    assert scene.image.dtype == np.uint8
    assert scene.kingdoms
    for k in scene.kingdoms:
        assert (k.corners >= 0).all()
        assert (k.corners[:, 0] <= w).all()
        assert (k.corners[:, 1] <= h).all()
        np.testing.assert_array_equal(k.corners, order_corners(k.corners))


@pytest.mark.parametrize("seed", range(6))
def test_labels_follow_the_photo_orientation(seed: int) -> None:
    """Rectifying a scene at its true corners gives the source board, turned like the labels."""
    board = DEMO_BOARDS[0]
    scene = make_scene(seed, [board], n_kingdoms=1, remove_cells=False)
    (truth,) = scene.kingdoms
    seen = rectify(scene.image, BoardLocation(truth.corners, truth.shape), square_px=20)
    source = cv2.resize(board.image, (100, 100), interpolation=cv2.INTER_AREA)
    label = board.kingdom
    errors = []
    for _ in range(4):
        errors.append((np.abs(seen.astype(float) - source).mean(), label == truth.kingdom))
        source = cv2.rotate(source, cv2.ROTATE_90_CLOCKWISE)
        label = label.rotate()
    # The best-matching turn of the image is the turn the labels were given.
    best = min(range(4), key=lambda i: errors[i][0])
    assert errors[best][1]


def test_removed_cells_are_empty_and_crop_the_grid() -> None:
    shapes = set()
    for seed in range(12):
        scene = make_scene(seed, DEMO_BOARDS, n_kingdoms=1, remove_cells=True)
        (k,) = scene.kingdoms
        assert any(c == EMPTY for _, c in k.kingdom.cells()) or k.shape != (5, 5)
        shapes.add(tuple(sorted(k.shape)))
    assert (4, 5) in shapes


def test_scenes_from_real_boards(shared_data: Path) -> None:
    boards = load_aau_boards(shared_data)
    scene = make_scene(0, boards)
    names = {b.name for b in boards}
    assert scene.kingdoms
    assert all(k.board in names for k in scene.kingdoms)


# --- conditions (scorer.lab.scene_conditions) ---------------------------------------------------


def _cond(name: str, **fields: object) -> Condition:
    """A matrix condition at a small size, for speed."""
    values: dict[str, object] = {"megapixels": 0.3, **fields}
    return replace(CONDITIONS[name], **values)  # type: ignore[arg-type]


def _kingdom_pixels(scene: Scene) -> np.ndarray:
    """The pixels inside the first kingdom's outline, as float BGR rows."""
    mask = np.zeros(scene.image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [scene.kingdoms[0].corners.astype(np.int32)], 1)
    return np.asarray(scene.image[mask > 0], np.float64)


def test_default_scene_unchanged_by_the_conditions_argument() -> None:
    a = make_scene(4, DEMO_BOARDS)
    b = make_scene(4, DEMO_BOARDS, condition=None)
    np.testing.assert_array_equal(a.image, b.image)
    assert b.condition is None and all(not k.hidden and not k.cut for k in b.kingdoms)


@pytest.mark.parametrize("seed", range(3))
def test_dim_warm_is_darker_and_redder(seed: int) -> None:
    plain = _kingdom_pixels(make_scene(seed, DEMO_BOARDS, condition=_cond("plain")))
    dim = _kingdom_pixels(make_scene(seed, DEMO_BOARDS, condition=_cond("dim_warm")))
    assert dim.mean() < 0.7 * plain.mean()
    red_over_blue = dim[:, 2].mean() / dim[:, 0].mean()
    assert red_over_blue > 1.5 * plain[:, 2].mean() / plain[:, 0].mean()


def test_cool_light_is_bluer_and_harsh_light_starker() -> None:
    plain = _kingdom_pixels(make_scene(2, DEMO_BOARDS, condition=_cond("plain")))
    cool = _kingdom_pixels(make_scene(2, DEMO_BOARDS, condition=_cond("cool_fluorescent")))
    harsh = _kingdom_pixels(make_scene(2, DEMO_BOARDS, condition=_cond("harsh")))
    ratio = plain[:, 0].mean() / plain[:, 2].mean()
    assert cool[:, 0].mean() / cool[:, 2].mean() > 1.2 * ratio
    assert harsh.mean(axis=1).std() > 1.2 * plain.mean(axis=1).std()


@pytest.mark.parametrize("seed", range(4))
def test_cropped_to_the_edge_leaves_no_margin(seed: int) -> None:
    scene = make_scene(seed, DEMO_BOARDS, condition=CONDITIONS["cropped_edge"])
    h, w = scene.image.shape[:2]
    corners = scene.kingdoms[0].corners
    np.testing.assert_allclose(corners.min(axis=0), [0, 0], atol=1.0)
    np.testing.assert_allclose(corners.max(axis=0), [w, h], atol=1.0)


def test_three_percent_margin() -> None:
    scene = make_scene(1, DEMO_BOARDS, condition=CONDITIONS["margin_3pct"])
    h, w = scene.image.shape[:2]
    corners = scene.kingdoms[0].corners
    side = np.linalg.norm(corners[1] - corners[0])
    room = np.concatenate([corners.min(axis=0), [w, h] - corners.max(axis=0)])
    np.testing.assert_allclose(room / side, 0.03, atol=0.006)


def test_kingdom_covers_15_percent_of_the_frame() -> None:
    scene = make_scene(0, DEMO_BOARDS, condition=_cond("kingdom_15pct"))
    h, w = scene.image.shape[:2]
    area = cv2.contourArea(scene.kingdoms[0].corners.astype(np.float32))
    assert 0.1 < area / (w * h) < 0.2


@pytest.mark.parametrize("mp", [0.3, 0.6])
def test_photo_size(mp: float) -> None:
    h, w = make_scene(0, DEMO_BOARDS, condition=_cond("plain", megapixels=mp)).image.shape[:2]
    assert abs(w * h / 1e6 - mp) < 0.01 * mp


def test_steeper_tilt_narrows_the_far_side_more() -> None:
    def far_over_near(name: str) -> float:
        scene = make_scene(3, DEMO_BOARDS, condition=_cond(name, megapixels=None))
        c = scene.kingdoms[0].corners
        # the kingdom's sides nearest the top and the bottom of the photo
        top, bottom = np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])
        return float(top / bottom)

    assert far_over_near("tilt_50") < far_over_near("tilt_35") < 1.0


@pytest.mark.parametrize("seed", range(4))
def test_glare_hides_about_two_squares_that_are_washed_out(seed: int) -> None:
    scene = make_scene(seed, DEMO_BOARDS, condition=CONDITIONS["glare"])
    # The same scene without the glare (the draws before it are the same).
    plain = make_scene(seed, DEMO_BOARDS, condition=CONDITIONS["plain"])
    (truth,) = scene.kingdoms
    np.testing.assert_allclose(truth.corners, plain.kingdoms[0].corners)
    assert 1 <= len(truth.hidden) <= 4
    location = BoardLocation(truth.corners, truth.shape)
    board = rectify(scene.image, location, square_px=40).min(axis=2)
    before = rectify(plain.image, location, square_px=40).min(axis=2)
    washed = (board > 235) & (before < 200)  # white now, not white before
    share = washed.reshape(5, 40, 5, 40).mean(axis=(1, 3))
    for r, c in truth.hidden:  # each hidden square is largely washed out
        assert share[r, c] > 0.15
    for (r, c), _ in truth.kingdom.cells():  # and no other square much
        if (r, c) not in truth.hidden:
            assert share[r, c] < 0.3


@pytest.mark.parametrize("seed", range(4))
def test_hand_hides_a_corner_square_in_skin_colour(seed: int) -> None:
    scene = make_scene(seed, DEMO_BOARDS, condition=_cond("hand"))
    (truth,) = scene.kingdoms
    rows, cols = truth.shape
    corners = {(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)}
    assert truth.hidden & corners
    board = rectify(scene.image, BoardLocation(truth.corners, truth.shape), square_px=40)
    (r, c) = sorted(truth.hidden & corners)[0]
    b, g, red = board[r * 40 + 10 : r * 40 + 30, c * 40 + 10 : c * 40 + 30].reshape(-1, 3).T
    assert np.median(red) > np.median(g) > np.median(b)  # skin: red over green over blue


def test_shadow_darkens_one_half_of_the_kingdom() -> None:
    plain = _kingdom_pixels(make_scene(5, DEMO_BOARDS, condition=_cond("plain")))
    shaded = _kingdom_pixels(make_scene(5, DEMO_BOARDS, condition=_cond("shadow_half")))
    ratio = (shaded.mean(axis=1) + 1) / (plain.mean(axis=1) + 1)
    dark = ratio < 0.75 * np.median(ratio[ratio > np.percentile(ratio, 60)])
    assert 0.25 < dark.mean() < 0.75


def test_motion_blur_softens_the_photo() -> None:
    def sharpness(name: str) -> float:
        image = make_scene(6, DEMO_BOARDS, condition=_cond(name)).image
        return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    assert sharpness("motion_blur") < 0.7 * sharpness("plain")


def test_cut_by_frame_leaves_part_of_the_kingdom_outside() -> None:
    for seed in range(4):
        scene = make_scene(seed, DEMO_BOARDS, condition=CONDITIONS["cut_by_frame"])
        (truth,) = scene.kingdoms
        h, w = scene.image.shape[:2]
        c = truth.corners
        outside = (c[:, 0] < -1) | (c[:, 1] < -1) | (c[:, 0] > w + 1) | (c[:, 1] > h + 1)
        assert truth.cut and outside.sum() >= 2


@pytest.mark.parametrize("kind", TABLES)
def test_condition_tables(kind: str) -> None:
    scene = make_scene(0, DEMO_BOARDS, condition=_cond("plain", background=kind))
    assert scene.background == kind
    outside = np.ones(scene.image.shape[:2], bool)
    outside[
        cv2.fillPoly(
            np.zeros_like(outside, np.uint8), [scene.kingdoms[0].corners.astype(np.int32)], 1
        )
        > 0
    ] = False
    table = scene.image[outside].astype(float)
    if kind == "dark_wood":
        assert table.mean() < 80
    if kind == "pine":  # pale yellow: red over green over blue
        b, g, r = table.mean(axis=0)
        assert r > g > b


def test_two_kingdoms_incomplete_and_clutter() -> None:
    assert len(make_scene(0, DEMO_BOARDS, condition=_cond("two_kingdoms")).kingdoms) == 2
    incomplete = make_scene(0, DEMO_BOARDS, condition=_cond("incomplete")).kingdoms[0]
    assert incomplete.shape != (5, 5) or any(c == EMPTY for _, c in incomplete.kingdom.cells())
    full = make_scene(0, DEMO_BOARDS, condition=_cond("plain")).kingdoms[0]
    assert full.shape == (5, 5) and all(c != EMPTY for _, c in full.kingdom.cells())
    a = make_scene(0, DEMO_BOARDS, condition=_cond("plain")).image
    b = make_scene(0, DEMO_BOARDS, condition=_cond("clutter")).image
    assert a.shape == b.shape and not np.array_equal(a, b)


# A finished kingdom laid from 12 dominoes of the set, on a demo board's picture.
WHOLE = replace(
    demo_board(0),
    kingdom=Kingdom.parse(
        "W0 W0 F0 F0 L1\nG0 G0 M2 W0 F0\nW1 S0 C L0 L0\nM0 S0 W0 S0 F1\nG2 W0 G0 M2 W0"
    ),
)
# W0W0, F0F0, L1F0, G0G0, M2W0, W1M0, S0S0, L0L0, F1W0, G2W0, W0G0, S0M2


@pytest.mark.parametrize("seed", range(12))
def test_an_evaluation_scene_takes_squares_away_a_whole_domino_at_a_time(seed: int) -> None:
    scene = make_scene(seed, [WHOLE], n_kingdoms=1, remove_cells=True, whole_dominoes=True)
    (kept,) = [k.kingdom for k in scene.kingdoms]
    assert len(kept.land()) % 2 == 0
    assert domino_tiling(kept) is not None  # what is left is still laid from whole dominoes
    # Drawn alike: the dominoes along an outer line go, or each square drawn with its partner.
    single, _ = synth._remove_cells(np.random.default_rng(seed), WHOLE, True)
    whole, _ = synth._remove_cells(np.random.default_rng(seed), WHOLE, True, True)
    gone, gone_singly = ({p for p, c in k.cells() if c == EMPTY} for k in (whole, single))
    assert gone <= gone_singly or gone >= gone_singly
    assert domino_tiling(whole) is not None
