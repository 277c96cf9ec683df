"""Tests for scorer.lab.fit: fitting the square classifier and learning the visual words."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.lab.fit import fit_cell_classifier, learn_visual_words
from scorer.read.cells import FEATURE_VERSION, words_digest
from scorer.read.classify import CellClassifier, load_model, save_model


def test_a_fitted_classifier_holds_its_settings_and_what_it_was_fitted_on() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))  # noqa: N806
    y = ["W0"] * 20 + ["C"] * 20
    model = fit_cell_classifier(X, y, kind="logistic", C=3.0)
    assert type(model) is CellClassifier
    assert (model.kind, model.C, model.members, model.blend_) == ("logistic", 3.0, 1, None)
    assert list(model.classes_) == ["C", "W0"]
    assert model.n_features_in_ == 5
    assert model.feature_version_ == FEATURE_VERSION
    assert model.words_sha256_ == words_digest()
    assert model.predict_proba(X).shape == (40, 2)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"kind": "forest"}, "unknown kind"),
        ({"blend_weight": 1.0}, "blend_weight"),
        ({"members": 0}, "at least 1"),
    ],
)
def test_settings_out_of_range_are_refused(settings: dict[str, object], message: str) -> None:
    X = np.arange(8, dtype=float).reshape(-1, 1)  # noqa: N806
    with pytest.raises(ValueError, match=message):
        fit_cell_classifier(X, ["W0", "C"] * 4, **settings)  # type: ignore[arg-type]


def test_unknown_tokens_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown cell tokens"):
        fit_cell_classifier(np.zeros((2, 3)), ["W0", "X9"], kind="logistic")


def test_learners_each_fit_the_shared_rows_and_their_own_and_are_averaged(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(240, 6))  # noqa: N806
    y = np.array(["W0", "F0", "L0"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    member = np.repeat([-1, 0, 1], 80)
    model = fit_cell_classifier(X, y, member, kind="hgb", max_iter=10, members=2)
    assert len(model.estimators_) == 2
    first = fit_cell_classifier(X[:160], y[:160], kind="hgb", max_iter=10)
    rows = np.r_[:80, 160:240]
    second = fit_cell_classifier(X[rows], y[rows], kind="hgb", max_iter=10, random_state=1)
    expected = (first.predict_proba(X[:7]) + second.predict_proba(X[:7])) / 2
    assert np.allclose(model.predict_proba(X[:7]), expected, atol=1e-12)
    save_model(model, tmp_path, {"note": "test"})
    assert np.allclose(load_model(tmp_path).predict_proba(X[:7]), expected, atol=1e-12)


@pytest.mark.parametrize(
    ("members", "member", "message"),
    [
        (0, None, "at least 1"),
        (2, np.full(90, 2), "learner below 2"),
        (2, np.full(89, -1), "learner below 2"),
        (2, np.repeat([-1, 0, 1], 30), "does not see every class"),
    ],
)
def test_learners_need_a_valid_member_for_each_row(
    members: int, member: np.ndarray | None, message: str
) -> None:
    X = np.arange(90, dtype=float).reshape(-1, 1)  # noqa: N806
    y = np.array(["W0"] * 30 + ["F0"] * 30 + ["L0"] * 30)  # the last 30 rows hold all the L0s
    with pytest.raises(ValueError, match=message):
        fit_cell_classifier(X, y, member, max_iter=5, members=members)


def test_a_vocabulary_is_learned_from_crops(fixtures: Path) -> None:
    crops = [
        cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted((fixtures / "cells").glob("*.jpg"))
    ]
    words = learn_visual_words(crops, 8, seed=1)
    assert words.shape == (8, 128)
    assert words.dtype == np.float32
    assert np.array_equal(words, learn_visual_words(crops, 8, seed=1))
    with pytest.raises(ValueError, match="cannot make"):
        learn_visual_words([np.zeros((64, 64, 3), np.uint8)], 8)
