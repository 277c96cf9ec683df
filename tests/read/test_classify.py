"""Tests for scorer.read.classify: the classifier and its saved file."""

from __future__ import annotations

import copy
import io
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from scorer.lab.fit import fit_cell_classifier
from scorer.read import classify, modelfile
from scorer.read.cells import cell_features
from scorer.read.classify import (
    METADATA_FILE,
    MODEL_FILE,
    BoardPrediction,
    CellClassifier,
    classify_board,
    load_model,
    save_model,
)
from scorer.rules.errors import ModelFileError
from scorer.rules.kingdom import ALL_CELLS, Cell, Kingdom


def _fixture_crops(fixtures: Path) -> dict[str, list[np.ndarray]]:
    crops: dict[str, list[np.ndarray]] = {}
    for path in sorted((fixtures / "cells").glob("*.jpg")):
        token = path.stem.rpartition("_")[0]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        assert image is not None
        crops.setdefault(token, []).append(image)
    return crops


@pytest.fixture(scope="module")
def tiny_model(fixtures: Path) -> CellClassifier:
    """A small model trained on the first copy of each fixture crop, in four turns."""
    rows, labels = [], []
    for token, images in _fixture_crops(fixtures).items():
        for k in range(4):
            rows.append(cell_features(np.ascontiguousarray(np.rot90(images[0], k))))
            labels.append(token)
    return fit_cell_classifier(np.stack(rows), labels, kind="logistic", max_iter=500, C=10.0)


@pytest.fixture()
def saved_model(tiny_model: CellClassifier, tmp_path: Path) -> Path:
    save_model(tiny_model, tmp_path, {"note": "test"})
    return tmp_path


def test_tiny_model_reads_a_board_built_from_crops(
    tiny_model: CellClassifier, fixtures: Path
) -> None:
    crops = _fixture_crops(fixtures)
    tokens = ["W0", "F0", "L0", "G0", "C", "S0", "M0", "W1", "L1"]
    squares = [cv2.resize(crops[t][0], (100, 100)) for t in tokens]
    board = np.vstack([np.hstack(squares[r * 3 : r * 3 + 3]) for r in range(3)])
    prediction = classify_board(board, (3, 3), tiny_model)
    assert [c.token for _, c in prediction.kingdom.cells()] == tokens
    assert prediction.probabilities.shape == (3, 3, len(ALL_CELLS))
    assert prediction.confidence.shape == (3, 3)
    assert prediction.classes == ALL_CELLS
    assert np.allclose(prediction.probabilities.sum(axis=2), 1.0)


def test_tiny_model_generalises_to_other_kingdoms(
    tiny_model: CellClassifier, fixtures: Path
) -> None:
    crops = _fixture_crops(fixtures)
    held_out = [(token, images[1]) for token, images in crops.items() if len(images) > 1]
    features = np.stack([cell_features(image) for _, image in held_out])
    predicted = tiny_model.predict(features)
    terrain_right = sum(p[0] == t[0] for p, (t, _) in zip(predicted, held_out, strict=True))
    assert terrain_right >= 0.75 * len(held_out)


def test_a_classifier_without_learners_refuses_to_predict() -> None:
    model = CellClassifier(kind="logistic", C=3.0)
    assert not hasattr(model, "fit")  # fitting is scorer.lab.fit's
    with pytest.raises(ValueError, match="no fitted learners"):
        model.predict_proba(np.zeros((1, 5)))


def test_saved_model_loads_and_predicts_the_same(
    tiny_model: CellClassifier, saved_model: Path
) -> None:
    loaded = load_model(saved_model)
    X = np.random.default_rng(1).normal(size=(5, tiny_model.n_features_in_))  # noqa: N806
    assert np.allclose(loaded.predict_proba(X), tiny_model.predict_proba(X))
    metadata = json.loads((saved_model / METADATA_FILE).read_text())
    assert metadata["sha256"] == classify.file_sha256(saved_model / MODEL_FILE)


def test_tampered_model_is_refused(saved_model: Path) -> None:
    path = saved_model / MODEL_FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="does not match its metadata") as err:
        load_model(saved_model)
    assert str(path) in str(err.value)
    assert "git checkout models/" in str(err.value)
    assert "make train" in str(err.value)


@pytest.mark.parametrize(
    ("attribute", "value", "message"),
    [
        ("feature_version_", -1, "feature version -1"),
        ("words_sha256_", "0" * 64, "another visual vocabulary"),
    ],
)
def test_model_trained_on_other_features_is_refused(
    tiny_model: CellClassifier, tmp_path: Path, attribute: str, value: object, message: str
) -> None:
    stale = copy.deepcopy(tiny_model)
    setattr(stale, attribute, value)
    save_model(stale, tmp_path, {"note": "test"})
    with pytest.raises(ModelFileError, match=message) as err:
        load_model(tmp_path)
    assert "make train" in str(err.value)


def test_truncated_model_is_refused(saved_model: Path) -> None:
    path = saved_model / MODEL_FILE
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ModelFileError, match="truncated"):
        load_model(path)


def test_missing_model_is_refused(saved_model: Path) -> None:
    (saved_model / MODEL_FILE).unlink()
    with pytest.raises(ModelFileError, match="missing"):
        load_model(saved_model)


def test_missing_metadata_is_refused(saved_model: Path) -> None:
    (saved_model / METADATA_FILE).unlink()
    with pytest.raises(ModelFileError, match="metadata"):
        load_model(saved_model)


def test_matching_hash_of_a_damaged_archive_is_still_refused(saved_model: Path) -> None:
    path = saved_model / MODEL_FILE
    path.write_bytes(b"not a zip archive")
    metadata = json.loads((saved_model / METADATA_FILE).read_text())
    metadata["sha256"] = classify.file_sha256(path)
    (saved_model / METADATA_FILE).write_text(json.dumps(metadata))
    with pytest.raises(ModelFileError, match="is forged or damaged"):
        load_model(saved_model)


def test_committed_model_loads() -> None:
    if not (classify.MODEL_DIR / MODEL_FILE).exists():
        pytest.skip("no committed model yet")
    model = load_model()
    assert set(model.classes_) <= {c.token for c in ALL_CELLS}


def test_committed_model_refused_when_copied_with_wrong_hash(tmp_path: Path) -> None:
    if not (classify.MODEL_DIR / MODEL_FILE).exists():
        pytest.skip("no committed model yet")
    shutil.copy(classify.MODEL_DIR / MODEL_FILE, tmp_path / MODEL_FILE)
    (tmp_path / METADATA_FILE).write_text(json.dumps({"sha256": "0" * 64}))
    with pytest.raises(ModelFileError):
        load_model(tmp_path)


@pytest.mark.parametrize(("n_classes", "leaves"), [(2, 7), (5, 7), (5, 31)])
def test_boosted_model_reads_a_board_as_scikit_learn_does(n_classes: int, leaves: int) -> None:
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(300, 12))  # noqa: N806
    tokens = [c.token for c in ALL_CELLS[:n_classes]]
    y = [tokens[i] for i in (X[:, 0] * 2 + X[:, 1]).astype(int) % n_classes]
    model = fit_cell_classifier(X, y, kind="hgb", max_iter=20, max_leaf_nodes=leaves)
    assert len(model.estimators_) == 1
    board = rng.normal(size=(25, 12))
    board[3, 4] = np.nan  # a missing value follows the trees' learned direction
    expected = model.estimators_[0].predict_proba(board)
    assert np.allclose(model.predict_proba(board), expected, atol=1e-12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_blended_model_saves_loads_and_mixes_both_learners(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 10))  # noqa: N806
    y = np.array(["W0", "W1", "C"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 1)]
    model = fit_cell_classifier(X, y, kind="hgb", max_iter=10, blend_weight=0.3, blend_iter=300)
    trees = model.estimators_[0].predict_proba(X[:5])
    perceptron = model.blend_.predict_proba(X[:5])
    assert np.allclose(model.predict_proba(X[:5]), 0.7 * trees + 0.3 * perceptron)
    save_model(model, tmp_path, {"note": "test"})
    assert np.allclose(load_model(tmp_path).predict_proba(X[:5]), model.predict_proba(X[:5]))


def test_runner_up_is_the_likeliest_reading_other_than_the_decoded_one() -> None:
    proba = np.full((1, 3, len(ALL_CELLS)), 0.01)
    w0, w1, m0 = (ALL_CELLS.index(Cell.parse(t)) for t in ("W0", "W1", "M0"))
    proba[0, 0, [w0, w1]] = 0.5, 0.3
    proba[0, 1, m0] = 0.9
    decoded = Kingdom.parse("W1 M0 C")  # decoding moved square (0, 0) off its best label
    prediction = BoardPrediction(decoded, np.ones((1, 2)), proba, ALL_CELLS, frozenset({(0, 0)}))
    assert prediction.runner_up((0, 0)) == Cell.parse("W0")
    assert prediction.runner_up((0, 1)) != Cell.parse("M0")
    assert prediction.second_choices() == {(0, 0): Cell.parse("W0")}


def test_the_runner_up_is_never_a_second_castle() -> None:
    # Square (0, 0) looks most like a castle after W0, but the kingdom's castle is at (0, 2).
    proba = np.full((1, 3, len(ALL_CELLS)), 0.01)
    w0, castle, m0 = (ALL_CELLS.index(Cell.parse(t)) for t in ("W0", "C", "M0"))
    proba[0, 0, [w0, castle, m0]] = 0.6, 0.3, 0.05
    proba[0, 2, castle] = 0.9
    prediction = BoardPrediction(
        Kingdom.parse("W0 M0 C"), np.ones((1, 3)), proba, ALL_CELLS, frozenset({(0, 0)})
    )
    assert prediction.runner_up((0, 0)) == Cell.parse("M0")


def test_overridden_squares_are_those_decoded_against_their_best_reading() -> None:
    proba = np.full((1, 3, len(ALL_CELLS)), 0.01)
    w0, w1, m0, castle = (ALL_CELLS.index(Cell.parse(t)) for t in ("W0", "W1", "M0", "C"))
    proba[0, 0, [w0, w1]] = 0.5, 0.3
    proba[0, 1, m0] = 0.9
    proba[0, 2, castle] = 0.9
    decoded = Kingdom.parse("W1 M0 C")
    prediction = BoardPrediction(decoded, np.ones((1, 3)), proba, ALL_CELLS, frozenset({(0, 0)}))
    assert prediction.overridden() == {(0, 0)}


# --------------------------------------------------------------------------- the file format


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_boosted_blended_model_loads_bit_for_bit_as_numpy_code(tmp_path: Path) -> None:
    """What the committed model is: two boosted learners averaged, blended with a perceptron."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 12)).astype(np.float32)  # noqa: N806
    tokens = np.array([c.token for c in ALL_CELLS[:5]])
    y = tokens[(X[:, 0] * 2 + X[:, 1]).astype(int) % 5]
    model = fit_cell_classifier(
        X, y, kind="hgb", max_iter=15, members=2, blend_weight=0.3, blend_iter=50
    )
    save_model(model, tmp_path, {"note": "test"})
    loaded = load_model(tmp_path)
    assert [type(e).__name__ for e in loaded.estimators_] == ["FlatTrees", "FlatTrees"]
    assert type(loaded.blend_).__name__ == "Dense"
    board = rng.normal(size=(49, 12)).astype(np.float32)
    assert np.array_equal(loaded.predict_proba(board), model.predict_proba(board))
    assert list(loaded.classes_) == list(model.classes_)
    many = rng.normal(size=(600, 12)).astype(np.float32)  # beyond one batch of trees
    assert np.allclose(loaded.predict_proba(many), model.predict_proba(many), atol=1e-12)


def test_saved_model_is_plain_arrays_numpy_opens_without_pickle(saved_model: Path) -> None:
    with np.load(saved_model / MODEL_FILE, allow_pickle=False) as archive:
        names = archive.files
        assert "header.json" in names
        arrays = [archive[n] for n in names if n != "header.json"]
    assert arrays and all(a.dtype.kind in "biuf" for a in arrays)


def test_saving_twice_writes_the_same_bytes(tiny_model: CellClassifier, tmp_path: Path) -> None:
    first = save_model(tiny_model, tmp_path / "a", {"note": "test"})
    second = save_model(tiny_model, tmp_path / "b", {"note": "test"})
    assert first["sha256"] == second["sha256"]


def test_reading_the_committed_model_imports_neither_scikit_learn_nor_scipy() -> None:
    if not (classify.MODEL_DIR / MODEL_FILE).exists():
        pytest.skip("no committed model yet")
    script = (
        "import sys, numpy as np\n"
        "from scorer.read.classify import load_model\n"
        "model = load_model()\n"
        "model.predict_proba(np.zeros((25, model.n_features_in_)))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'scipy', 'skops'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stderr


def _forge(folder: Path, header: dict[str, Any] | None = None, **members: bytes) -> None:
    """Rewrite the archive in ``folder`` (header fields changed, members added or
    replaced by raw bytes) and its metadata's sha256 to match, as a forger would."""
    path = folder / MODEL_FILE
    with zipfile.ZipFile(path) as old:
        contents = {n: old.read(n) for n in old.namelist()}
    if header:
        contents["header.json"] = json.dumps(
            {**json.loads(contents["header.json"]), **header}
        ).encode()
    contents.update({name.replace("__", "."): data for name, data in members.items()})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
        for name, data in contents.items():
            new.writestr(name, data)
    metadata = json.loads((folder / METADATA_FILE).read_text())
    metadata["sha256"] = classify.file_sha256(path)
    (folder / METADATA_FILE).write_text(json.dumps(metadata))


def _npy(array: np.ndarray, *, shape: tuple[int, ...] | None = None) -> bytes:
    """The ``.npy`` bytes of ``array`` (pickled when it holds objects); with ``shape``, a
    header that names that shape before the data of ``array``."""
    out = io.BytesIO()
    if shape is None:
        np.save(out, array, allow_pickle=True)
    else:
        header = {"descr": array.dtype.str, "fortran_order": False, "shape": shape}
        np.lib.format.write_array_header_1_0(out, header)
        out.write(array.tobytes())
    return out.getvalue()


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (lambda f: _forge(f, {"format_version": 2}), "a newer version of the program"),
        (lambda f: _forge(f, {"format": "other"}), "not a square classifier"),
        (lambda f: _forge(f, evil__py=b"import os"), "members that are not arrays"),
        (
            lambda f: _forge(f, m0__scale__npy=_npy(np.array([object()], dtype=object))),
            "not a plain number",
        ),
        (
            lambda f: _forge(f, m0__scale__npy=_npy(np.zeros(3), shape=(9_999_999,))),
            "does not hold the array its header names",
        ),
        (lambda f: _forge(f, header__json=b"{not json"), "is not JSON"),
        (lambda f: _forge(f, {"learners": []}), "1 to 16 learners"),
        (lambda f: _forge(f, {"n_features": 3}), "the scaler does not have one entry per feature"),
        (lambda f: _forge(f, {"classes": ["W0", "W0"]}), "distinct tokens"),
    ],
)
def test_forged_model_archive_is_refused_with_the_file_named(
    saved_model: Path, forge: Any, message: str
) -> None:
    forge(saved_model)
    with pytest.raises(ModelFileError, match=message) as err:
        load_model(saved_model)
    assert str(saved_model / MODEL_FILE) in str(err.value)
    assert "make train" in str(err.value)


def test_trees_pointing_outside_their_arrays_are_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 4))  # noqa: N806
    model = fit_cell_classifier(X, np.where(X[:, 0] > 0, "W0", "C"), kind="hgb", max_iter=3)
    save_model(model, tmp_path, {"note": "test"})
    with np.load(tmp_path / MODEL_FILE, allow_pickle=False) as archive:
        child = archive["m0.child"].copy()
    child[0] = 10**6
    _forge(tmp_path, m0__child__npy=_npy(child))
    with pytest.raises(ModelFileError, match="points outside its range"):
        load_model(tmp_path)


def test_caps_are_checked_before_unpacking(
    saved_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modelfile, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(ModelFileError, match=r"unpacks to \d+ bytes, more than 1000"):
        load_model(saved_model)
    monkeypatch.setattr(modelfile, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ModelFileError, match="larger than 1000 bytes"):
        load_model(saved_model)


def test_oversized_metadata_is_refused(saved_model: Path) -> None:
    path = saved_model / METADATA_FILE
    metadata = json.loads(path.read_text())
    metadata["padding"] = "x" * (modelfile.MAX_HEADER_BYTES + 1)
    path.write_text(json.dumps(metadata))
    with pytest.raises(ModelFileError, match="larger than"):
        load_model(saved_model)


def test_a_deflate_bomb_member_is_refused_before_it_is_unpacked(saved_model: Path) -> None:
    _forge(saved_model, big__npy=b"\0" * (modelfile.MAX_UNPACKED_BYTES + 1))
    with pytest.raises(ModelFileError, match="unpacks to"):
        load_model(saved_model)
