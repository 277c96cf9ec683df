"""Tests for scorer.lab.train: augmentation, features of many crops, and a held-out retrain."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.lab import datasets, train
from scorer.lab.datasets import Tile
from scorer.lab.synth import demo_board
from scorer.read.decoding import decode
from scorer.rules.kingdom import ALL_CELLS, Cell


def _fixture_tiles(fixtures: Path) -> list[Tile]:
    tiles = []
    for path in sorted((fixtures / "cells").glob("*.jpg"))[:6]:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        assert image is not None
        tiles.append(Tile(image, Cell.parse(path.stem.rpartition("_")[0]), path.stem, "test"))
    return tiles


@pytest.mark.parametrize("photo", [False, True])
def test_augment_keeps_a_usable_crop(fixtures: Path, photo: bool) -> None:
    image = _fixture_tiles(fixtures)[0].image
    rng = np.random.default_rng(0)
    for _ in range(10):
        out = train.augment(image, rng, photo=photo)
        assert out.dtype == np.uint8
        assert out.ndim == 3
        assert 0.8 * image.shape[0] <= max(out.shape[:2]) <= image.shape[0]


def test_plain_copy_shifts_the_hue_by_at_most_hue_shift() -> None:
    # A wheat-yellow square (hue 26): its plain copies keep the hue within
    # HUE_SHIFT, short of the bare wooden table's hue of about 20.
    wheat = cv2.cvtColor(np.full((40, 40, 3), (26, 240, 190), np.uint8), cv2.COLOR_HSV2BGR)
    rng = np.random.default_rng(0)
    hues = []
    for _ in range(60):
        out = train.augment(wheat, rng, photo=False)
        hues.append(float(np.median(cv2.cvtColor(out, cv2.COLOR_BGR2HSV)[..., 0])))
    assert max(abs(h - 26) for h in hues) <= train.HUE_SHIFT[0] + 1  # 1: rounding to whole hues
    assert max(hues) - min(hues) >= train.HUE_SHIFT[0]  # the shift is applied both ways


def test_photo_like_copy_loses_the_fine_detail_of_a_large_crop() -> None:
    yy, xx = np.mgrid[0:200, 0:200]
    checks = (((yy // 2 + xx // 2) % 2) * 255).astype(np.uint8)
    image = np.dstack([checks] * 3)
    out = train._photo_camera(image, np.random.default_rng(0))
    assert out.shape == image.shape
    detail = float(np.abs(cv2.Laplacian(out, cv2.CV_32F)).mean())
    assert detail < 0.2 * float(np.abs(cv2.Laplacian(image, cv2.CV_32F)).mean())


def test_a_shadow_takes_up_to_most_of_the_light_and_is_bluer() -> None:
    # A grey square: the light's gradient alone leaves every pixel above 1 - 0.25 / √2 of
    # its grey (over 100 of 128), and a glare spot only adds light. Darker pixels are shade.
    grey = np.full((60, 60, 3), 128, np.uint8)
    rng = np.random.default_rng(0)
    darkest = []
    for _ in range(400):
        out = train._photo_light(grey, rng).astype(np.int32)
        pixel = out[np.unravel_index(out[..., 1].argmin(), out.shape[:2])]
        darkest.append(pixel[1])
        if pixel[1] < 100:
            assert pixel[0] >= pixel[2]  # the sky-lit shade is bluer, never redder
    shaded = sum(g < 100 for g in darkest)
    assert 0.5 * train.SHADOW_SHARE * 400 <= shaded <= 1.2 * train.SHADOW_SHARE * 400
    assert min(darkest) < 0.45 * 128  # a hard shadow takes more than half the light


def test_a_smeared_copy_draws_a_dot_out_into_a_line() -> None:
    dot = np.zeros((101, 101, 3), np.uint8)
    dot[50, 50] = 255
    rng = np.random.default_rng(3)
    for _ in range(20):
        out = train._smeared(dot, rng)[..., 0].astype(np.float64)
        ys, xs = np.nonzero(out)
        spread = np.linalg.eigvalsh(np.cov(np.stack([ys, xs]), aweights=out[ys, xs]))
        # A line: its length, from the spread along it (a uniform segment of length L has
        # variance L² / 12), within SMEAR sides; hardly any spread across it.
        length = np.sqrt(12 * spread[1])
        assert train.SMEAR[0] * 101 - 2 <= length <= train.SMEAR[1] * 101 + 2
        assert spread[0] < 0.1 * spread[1] + 0.5


class _Constant:
    def __init__(self, token: str) -> None:
        self.token = token

    def predict(self, X: np.ndarray) -> np.ndarray:  # noqa: N803
        return np.full(len(X), self.token)


def test_training_accuracy_counts_only_the_crops_as_they_are(fixtures: Path) -> None:
    tiles = _fixture_tiles(fixtures)
    features = train.featurize(tiles, views=2, seed=0, jobs=1)
    first = tiles[0].cell.token
    expected = sum(t.cell.token == first for t in tiles) / len(tiles)
    assert train.training_accuracy(_Constant(first), features) == pytest.approx(expected)  # type: ignore[arg-type]


def test_a_model_that_does_not_fit_its_training_crops_is_not_written(
    fixtures: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(train, "collect_tiles", lambda root, sources: _fixture_tiles(fixtures))
    monkeypatch.setattr(train, "training_accuracy", lambda model, features: 0.4)
    (tmp_path / "phone-tiles").mkdir()
    status = train.main(["--data", str(tmp_path), "--out", str(tmp_path / "models"), "--jobs", "1"])
    assert status == 1
    assert "did not converge" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()


def test_model_params_are_the_chosen_ones_seeded_and_sorted_as_the_metadata_lists_them() -> None:
    params = train.model_params(3, members=1)
    assert params == {**train.MODEL_PARAMS, "random_state": 3, "members": 1}
    assert list(params) == sorted(params)


def test_featurize_is_seeded_and_independent_of_processes(fixtures: Path) -> None:
    tiles = _fixture_tiles(fixtures)
    one = train.featurize(tiles, views=1, seed=3, jobs=1, members=1)
    two = train.featurize(tiles, views=1, seed=3, jobs=2, members=1)
    assert np.array_equal(one.X, two.X)
    assert len(one.y) == len(tiles) * 2
    photo_like = train.featurize(tiles, views=2, seed=3, jobs=1, members=1)  # a photo-like copy
    assert len(photo_like.y) == len(tiles) * 3
    assert np.array_equal(photo_like.X[1::3], one.X[1::2])  # the first copies are unchanged
    turned = train.featurize(tiles, views=2, seed=3, jobs=1, turns=True, members=1)
    assert len(turned.y) == len(tiles) * 6
    assert one.original.sum() == len(tiles)
    assert list(one.y[one.original]) == [t.cell.token for t in tiles]
    # Two learners: the crop as it is is shared, each learner has its own copies,
    # and the first learner's copies are those of a single learner.
    pair = train.featurize(tiles, views=2, seed=3, jobs=1, members=2)
    assert len(pair.y) == len(tiles) * 5
    assert list(pair.member[:5]) == [-1, 0, 0, 1, 1]
    assert np.array_equal(pair.X[pair.member < 1], photo_like.X)
    assert not np.array_equal(pair.X[1::5], pair.X[3::5])


def test_describe_data_counts_crops_groups_and_labels(fixtures: Path) -> None:
    tiles = _fixture_tiles(fixtures)
    first = tiles[0]
    tiles[0] = Tile(first.image, Cell.parse("M2"), first.group, "test", Cell.parse("M1"))
    described = train.describe_data(tiles)
    assert described["test"]["crops"] == 6
    assert sum(described["test"]["labels"].values()) == 6
    assert described["test"]["labels"]["M2"] >= 1
    assert described["test"]["relabelled"] == 1


def test_collect_tiles_refuses_an_unknown_data_set(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown data set"):
        train.collect_tiles(tmp_path, ["nope"])


def test_scene_squares_carry_their_kingdom_and_label() -> None:
    boards = [demo_board(0), demo_board(1)]
    scenes = train.scene_features(boards, 2, first_seed=5, jobs=1)
    n = len(scenes.y)
    assert n >= 25  # at least one kingdom's squares
    assert scenes.X.shape == (n, train.FEATURE_SIZE)
    assert set(scenes.groups) <= {b.group for b in boards}
    tokens = {cell.token for b in boards for _, cell in b.kingdom.cells()} | {"."}
    assert set(scenes.y) <= tokens
    assert set(scenes.sources) == {train.SCENE_SOURCE}
    assert not scenes.original.any()  # never a test view
    assert (scenes.member == -1).all() and (scenes.origin == -1).all()
    again = train.scene_features(boards, 2, first_seed=5, jobs=2)
    np.testing.assert_array_equal(again.X, scenes.X)  # seeded, whatever the processes


def test_no_boards_give_no_scene_squares() -> None:
    scenes = train.scene_features([], 5, jobs=1)
    assert scenes.X.shape == (0, train.FEATURE_SIZE)
    assert len(scenes.y) == len(scenes.groups) == len(scenes.member) == 0


def test_feature_sets_join_row_by_row(fixtures: Path) -> None:
    features = train.featurize(_fixture_tiles(fixtures), views=1, seed=0, jobs=1)
    scenes = train.scene_features([demo_board(0)], 1, jobs=1)
    joined = features.join(scenes)
    assert len(joined.y) == len(features.y) + len(scenes.y)
    np.testing.assert_array_equal(joined.X[len(features.y) :], scenes.X)
    np.testing.assert_array_equal(joined.sources[: len(features.y)], features.sources)
    assert joined.select(joined.sources == train.SCENE_SOURCE).y.tolist() == scenes.y.tolist()


@pytest.mark.slow
def test_retrain_without_some_kingdoms_reads_them(shared_data: Path) -> None:
    boards = datasets.load_aau_boards(shared_data)
    groups = sorted({b.group for b in boards})
    held_groups = set(groups[1::9])  # a few kingdoms, each photographed once or more
    tiles = [t for b in boards if b.group not in held_groups for t in datasets.board_tiles(b)]
    tiles += datasets.load_phone_tiles(shared_data)
    features = train.featurize(tiles, views=0, seed=0, jobs=2)
    model = train.fit_model(features, members=1)  # no copies: learners would be alike
    right = total = 0
    for board in boards:
        if board.group not in held_groups:
            continue
        crops = [t.image for t in datasets.board_tiles(board)]
        kingdom, _ = decode(model.predict_cell_proba(crops), ALL_CELLS, board.kingdom.shape)
        pairs = zip(kingdom.cells(), board.kingdom.cells(), strict=True)
        right += sum(a == b for (_, a), (_, b) in pairs)
        total += len(crops)
    assert total >= 100
    assert right / total >= 0.98, f"{right}/{total} squares of held-out kingdoms right"
