"""Tests for scorer.read.cells: cutting a board into squares and describing them."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.read import cells
from scorer.read.cells import FEATURE_SIZE, cell_features, cells_features, split_cells


@pytest.mark.parametrize(
    ("height", "width", "shape", "margin"),
    [
        (500, 500, (5, 5), 0.06),
        (700, 700, (7, 7), 0.0),
        (503, 498, (5, 5), 0.1),
        (300, 500, (3, 5), 0.06),
        (60, 60, (1, 1), 0.2),
    ],
)
def test_split_cells_gives_one_crop_per_square(
    height: int, width: int, shape: tuple[int, int], margin: float
) -> None:
    board = np.zeros((height, width, 3), np.uint8)
    crops = split_cells(board, shape, margin=margin)
    assert len(crops) == shape[0] * shape[1]
    side_y, side_x = height / shape[0], width / shape[1]
    for crop in crops:
        assert abs(crop.shape[0] - side_y * (1 - 2 * margin)) <= 2
        assert abs(crop.shape[1] - side_x * (1 - 2 * margin)) <= 2


def test_split_cells_is_row_major_and_stays_inside_each_square() -> None:
    board = np.zeros((200, 300, 3), np.uint8)
    for r in range(2):
        for c in range(3):
            board[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100] = 10 * (r * 3 + c) + 5
    crops = split_cells(board, (2, 3))
    for index, crop in enumerate(crops):
        assert (crop == 10 * index + 5).all()


@pytest.mark.parametrize("margin", [-0.1, 0.5, 0.7])
def test_split_cells_refuses_a_bad_margin(margin: float) -> None:
    with pytest.raises(ValueError, match="margin"):
        split_cells(np.zeros((50, 50, 3), np.uint8), (5, 5), margin=margin)


def test_split_cells_refuses_an_empty_grid() -> None:
    with pytest.raises(ValueError, match="at least one"):
        split_cells(np.zeros((50, 50, 3), np.uint8), (0, 5))


def test_features_are_a_fixed_length_float32_vector(fixtures: Path) -> None:
    crop = cv2.imread(str(fixtures / "cells" / "M2_1.jpg"), cv2.IMREAD_COLOR)
    features = cell_features(crop)
    assert features.dtype == np.float32
    assert features.shape == (FEATURE_SIZE,)
    assert np.isfinite(features).all()


def test_features_do_not_depend_much_on_resolution(fixtures: Path) -> None:
    crop = cv2.imread(str(fixtures / "cells" / "W1_1.jpg"), cv2.IMREAD_COLOR)
    large = cv2.resize(crop, (160, 160), interpolation=cv2.INTER_CUBIC)
    other = cv2.imread(str(fixtures / "cells" / "F0_1.jpg"), cv2.IMREAD_COLOR)
    same = np.linalg.norm(cell_features(crop) - cell_features(large))
    different = np.linalg.norm(cell_features(crop) - cell_features(other))
    assert same < 0.5 * different


def test_features_barely_change_when_the_crop_turns(fixtures: Path) -> None:
    crop = cv2.imread(str(fixtures / "cells" / "G2_1.jpg"), cv2.IMREAD_COLOR)
    turned = np.ascontiguousarray(np.rot90(crop))
    other = cv2.imread(str(fixtures / "cells" / "G0_1.jpg"), cv2.IMREAD_COLOR)
    same = np.linalg.norm(cell_features(crop) - cell_features(turned))
    different = np.linalg.norm(cell_features(crop) - cell_features(other))
    assert same < 0.5 * different


@pytest.mark.parametrize("shape", [(0, 0, 3), (2, 2, 3), (10, 10), (10, 10, 4)])
def test_features_refuse_what_is_not_a_crop(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="crop"):
        cell_features(np.zeros(shape, np.uint8))


def test_batched_features_match_one_crop_at_a_time(fixtures: Path) -> None:
    paths = sorted((fixtures / "cells").glob("*.jpg"))[:8]
    crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths]
    crops.append(cv2.resize(crops[0], (37, 52)))  # crops of different sizes in one batch
    batch = cells_features(crops)
    assert batch.shape == (len(crops), FEATURE_SIZE)
    assert batch.dtype == np.float32
    for row, crop in zip(batch, crops, strict=True):
        assert np.array_equal(row, cell_features(crop))
    assert cells_features([]).shape == (0, FEATURE_SIZE)


def test_features_are_the_same_for_any_number_of_threads(fixtures: Path) -> None:
    paths = sorted((fixtures / "cells").glob("*.jpg"))[:12]
    crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths]
    one = cells_features(crops, workers=1)
    for workers in (2, 3, 4):
        assert np.array_equal(cells_features(crops, workers=workers), one)


def test_features_limited_to_one_thread_hand_nothing_to_the_pool(
    fixtures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = sorted((fixtures / "cells").glob("*.jpg"))[:12]
    crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths]
    expected = cells_features(crops, workers=2)

    def no_pool() -> None:
        raise AssertionError("a batch worker's features must not use other threads")

    monkeypatch.setattr(cells, "_pool", no_pool)
    monkeypatch.setattr(cells, "_thread_cap", cells._thread_cap)  # restored afterwards
    cells.limit_threads(1)
    assert np.array_equal(cells_features(crops), expected)


@pytest.mark.parametrize(("count", "threads"), [(25, 2), (49, 2), (8, 2), (25, 3), (25, 4)])
def test_matching_shares_cover_every_crop_once_the_caller_taking_least(
    count: int, threads: int
) -> None:
    shares = cells._matching_shares(count, threads)
    assert len(shares) == threads
    assert np.array_equal(np.concatenate(shares), np.arange(count))
    assert len(shares[0]) <= min(len(s) for s in shares[1:])


def test_the_whiteness_template_finds_a_drawn_crown_on_green_and_on_black() -> None:
    template = cells._crown_templates(cells._CROWN_WHITE, 1.0)[0]
    for ground in ((40, 200, 120), (20, 20, 20)):  # BGR: bright grassland green, a dark mine
        crop = np.full((cells.CROP_SIDE, cells.CROP_SIDE, 3), ground, np.uint8)
        bright = template > 80  # the outline: white; the fill inside it: yellow
        patch = np.where(bright[..., None], 255, (0, 210, 240)).astype(np.uint8)
        crop[4 : 4 + template.shape[0], 20 : 20 + template.shape[1]] = patch
        templates = cells_features([crop])[0, : -(cells.VISUAL_WORDS + 1)]
        white_peaks = templates[-16:-11]  # whiteness, full size: 5 best peaks
        assert white_peaks[0] > 0.7
        assert white_peaks[1] < 0.6


def test_colour_statistics_match_numpy_over_the_pixel_axis() -> None:
    # the features were defined with numpy over an n × pixels × 3 layout
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (4, 4096, 3)).astype(np.float32)
    planes = np.ascontiguousarray(pixels.transpose(0, 2, 1))
    mean, std = cells._mean_std(planes)
    assert np.array_equal(mean, pixels.mean(axis=1))
    assert np.array_equal(std, pixels.std(axis=1))
    ranks = [409, 2048, 3686]
    expected = np.partition(pixels, ranks, axis=1)[:, ranks]
    assert np.array_equal(cells._order_statistics(planes, ranks), expected)


def test_blobs_are_counted_mask_by_mask_in_one_stacked_call() -> None:
    # the crown features count the blobs of many strips in one call: a blob never
    # reaches into the next mask of the stack, even touching its edge
    rng = np.random.default_rng(4)
    masks = (rng.random((12, 16, 64)) < 0.35).astype(np.uint8)
    masks[3] = 1  # one blob filling the mask, from its first row to its last
    masks[4] = 0
    expected = []
    for mask in masks:
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        expected.append(int((stats[1:count, cv2.CC_STAT_AREA] >= 15).sum()))
    assert cells._count_blobs(masks, 15).tolist() == expected
    assert expected[3] == 1 and expected[4] == 0


def test_texture_order_statistics_are_those_of_a_partition(fixtures: Path) -> None:
    crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(fixtures.glob("cells/*.jpg"))]
    gray = cells.gray_crops(crops)
    g = np.pad(gray.astype(np.float32), ((0, 0), (1, 1), (1, 1)), mode="reflect")
    magnitudes = []
    for image in g:
        gx = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=3)
        magnitudes.append(np.sqrt(gx * gx + gy * gy)[1:-1, 1:-1].ravel())
    mag = np.array(magnitudes)
    ranks = [k * mag.shape[1] // 20 for k in (5, 10, 15, 18)]
    expected = np.partition(mag, ranks, axis=1)[:, ranks] / 255.0
    assert np.array_equal(cells._texture_features(gray)[:, 2:6], expected)


def test_a_forked_process_computes_features_with_its_own_threads(fixtures: Path) -> None:
    paths = sorted((fixtures / "cells").glob("*.jpg"))[:10]
    crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths]
    expected = cells_features(crops, workers=2)  # the parent's thread pool now exists
    with multiprocessing.get_context("fork").Pool(1) as pool:
        result = pool.apply_async(cells_features, (crops, 2)).get(timeout=60)
    assert np.array_equal(result, expected)


def test_sift_finds_keypoints_on_a_picture_and_none_on_a_blank_crop(fixtures: Path) -> None:
    crop = cv2.imread(str(fixtures / "cells" / "M2_1.jpg"), cv2.IMREAD_GRAYSCALE)
    small = cv2.resize(crop, (cells.CROP_SIDE, cells.CROP_SIDE), interpolation=cv2.INTER_AREA)
    blank = np.full_like(small, 90)
    found, nothing = cells.crop_descriptors(np.stack([small, blank]))
    assert found.shape[1] == 128 and len(found) >= 10
    assert nothing.shape == (0, 128)
    words = cells.visual_words()
    histograms = cells._word_histograms([found, nothing], words)
    assert histograms.shape == (2, cells.VISUAL_WORDS + 1)
    assert histograms[0, :-1].sum() == pytest.approx(1.0)
    assert histograms[0, -1] == pytest.approx(len(found) / 100)
    assert not histograms[1].any()


def test_visual_words_of_a_square_barely_change_when_it_turns(fixtures: Path) -> None:
    crop = cv2.imread(str(fixtures / "cells" / "M2_1.jpg"), cv2.IMREAD_COLOR)
    words = slice(-(cells.VISUAL_WORDS + 1), -1)
    turned = cell_features(np.ascontiguousarray(np.rot90(crop)))[words]
    same = cell_features(crop)[words]
    others = [
        cell_features(cv2.imread(str(fixtures / "cells" / name), cv2.IMREAD_COLOR))[words]
        for name in ("W0_1.jpg", "F0_1.jpg", "L1_1.jpg")
    ]
    assert np.abs(same - turned).sum() < 0.7 * min(np.abs(same - o).sum() for o in others)


def test_the_committed_vocabulary_loads_and_a_wrong_one_is_refused(tmp_path: Path) -> None:
    words = cells.visual_words()
    assert words.shape == (cells.VISUAL_WORDS, 128)
    path = tmp_path / "words.npy"
    np.save(path, words[:10])
    with pytest.raises(ValueError, match="git checkout scorer/data/"):
        cells.load_words(path)
    np.save(path, words)
    assert np.array_equal(cells.load_words(path), words)
