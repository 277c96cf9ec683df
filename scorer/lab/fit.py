"""Fit what recognition runs on: the square classifier and the visual vocabulary.

:func:`fit_cell_classifier` builds a fitted :class:`scorer.read.classify.CellClassifier`
from feature rows (:func:`scorer.read.cells.cells_features`) and their cell tokens;
:func:`learn_visual_words` learns the vocabulary of SIFT descriptors that the features
count words of. Neither runs when a player reads a photo.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.cluster import MiniBatchKMeans
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from scorer.read.cells import FEATURE_VERSION, crop_descriptors, gray_crops, words_digest
from scorer.read.classify import TOKENS, CellClassifier

KINDS = ("hgb", "logistic", "mlp")
"""The learners :func:`fit_cell_classifier` can fit."""


def fit_cell_classifier(
    X: np.ndarray,  # noqa: N803 - scikit-learn's name
    y: Any,
    member: np.ndarray | None = None,
    *,
    kind: str = "hgb",
    max_iter: int = 200,
    learning_rate: float = 0.1,
    max_leaf_nodes: int = 15,
    l2_regularization: float = 0.0,
    class_weight: str | None = None,
    C: float = 1.0,  # noqa: N803 - scikit-learn's name
    hidden_units: int = 256,
    alpha: float = 1e-3,
    blend_weight: float = 0.0,
    blend_iter: int = 200,
    members: int = 1,
    random_state: int = 0,
) -> CellClassifier:
    """Fit a square classifier on an ``n × FEATURE_SIZE`` matrix and its cell tokens.

    Parameters
    ----------
    X : numpy.ndarray
        Feature rows.
    y : sequence of str
        The cell token of each row (:data:`scorer.read.classify.TOKENS`).
    member : numpy.ndarray, optional
        Each row's learner (``0 … members - 1``), or -1 for a row every learner
        sees; without it every learner sees every row.
    kind : {"hgb", "logistic", "mlp"}
        The learner: histogram gradient boosting, a scaled logistic regression, or a
        scaled one-hidden-layer perceptron.
    max_iter : int
        Boosting rounds (``hgb``) or solver iterations (``logistic``, ``mlp``).
    learning_rate, max_leaf_nodes, l2_regularization : float, int, float
        Boosting learning rate, leaves per tree and L2 penalty of the trees.
    class_weight : str or None
        ``"balanced"`` weighs each class by the inverse of its frequency (``hgb``).
    C : float
        Inverse regularisation of the logistic regression.
    hidden_units, alpha : int, float
        Width of the perceptron's hidden layer and its L2 penalty.
    blend_weight : float
        With ``hgb``, the share of a perceptron (``hidden_units``, ``alpha``,
        ``blend_iter``) fitted on every row beside the boosted trees, in ``[0, 1)``.
    blend_iter : int
        Solver iterations of the blended perceptron.
    members : int
        Learners fitted side by side, whose probabilities the model averages;
        learner ``k`` is seeded ``random_state + k``.
    random_state : int
        Seed.

    Returns
    -------
    CellClassifier
        The fitted model, holding these settings as its attributes.

    Raises
    ------
    ValueError
        On an unknown token or learner, a ``blend_weight`` out of range, fewer than
        one learner, a ``member`` that does not fit, or a learner that would not see
        every class.
    """
    model = CellClassifier(
        kind=kind,
        max_iter=max_iter,
        learning_rate=learning_rate,
        max_leaf_nodes=max_leaf_nodes,
        l2_regularization=l2_regularization,
        class_weight=class_weight,
        C=C,
        hidden_units=hidden_units,
        alpha=alpha,
        blend_weight=blend_weight,
        blend_iter=blend_iter,
        members=members,
        random_state=random_state,
    )
    X = np.asarray(X, dtype=np.float32)  # noqa: N806
    labels = np.asarray(y, dtype=str)
    unknown = set(labels) - set(TOKENS)
    if unknown:
        raise ValueError(f"unknown cell tokens: {sorted(unknown)}")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: use 'hgb', 'logistic' or 'mlp'")
    if not 0.0 <= blend_weight < 1.0:
        raise ValueError(f"blend_weight must be in [0, 1), not {blend_weight}")
    if members < 1:
        raise ValueError(f"members must be at least 1, not {members}")
    owner = np.full(len(labels), -1) if member is None else np.asarray(member)
    if owner.shape != labels.shape or owner.max(initial=-1) >= members:
        raise ValueError(f"member must give each row a learner below {members} or -1")
    estimators = []
    blend = None
    with threadpool_limits(1):  # on a shared machine, waiting threads cost more than they save
        for k in range(members):
            rows = (owner == -1) | (owner == k)
            if len(set(labels[rows])) != len(set(labels)):
                raise ValueError(f"learner {k} does not see every class")
            estimators.append(_estimator(model, random_state + k).fit(X[rows], labels[rows]))
        if kind == "hgb" and blend_weight > 0:
            blend = _perceptron(model, blend_iter).fit(X, labels)
    model.estimators_ = estimators
    model.blend_ = blend
    model.classes_ = np.asarray(estimators[0].classes_)
    model.n_features_in_ = X.shape[1]
    model.feature_version_ = FEATURE_VERSION
    model.words_sha256_ = words_digest()
    return model


def _estimator(settings: CellClassifier, seed: int) -> Any:
    """An unfitted learner of the kind and settings of ``settings``, seeded ``seed``."""
    if settings.kind == "hgb":
        return HistGradientBoostingClassifier(
            max_iter=settings.max_iter,
            learning_rate=settings.learning_rate,
            max_leaf_nodes=settings.max_leaf_nodes,
            l2_regularization=settings.l2_regularization,
            class_weight=settings.class_weight,
            early_stopping=False,
            random_state=seed,
        )
    if settings.kind == "logistic":
        return Pipeline(
            [
                ("scale", StandardScaler()),
                ("logistic", LogisticRegression(C=settings.C, max_iter=settings.max_iter)),
            ]
        )
    return _perceptron(settings, settings.max_iter)


def _perceptron(settings: CellClassifier, max_iter: int) -> Pipeline:
    """A scaled one-hidden-layer perceptron with the settings of ``settings``."""
    return Pipeline(
        [
            ("scale", StandardScaler()),
            (
                "mlp",
                MLPClassifier(
                    hidden_layer_sizes=(settings.hidden_units,),
                    alpha=settings.alpha,
                    max_iter=max_iter,
                    random_state=settings.random_state,
                ),
            ),
        ]
    )


def learn_visual_words(
    crops: Sequence[np.ndarray], count: int, seed: int = 0, sample: int = 200_000
) -> np.ndarray:
    """Learn a visual vocabulary: k-means centres of the SIFT descriptors of ``crops``.

    The descriptors are those the features compute
    (:func:`scorer.read.cells.crop_descriptors` of :func:`scorer.read.cells.gray_crops`).

    Parameters
    ----------
    crops : sequence of numpy.ndarray
        BGR uint8 square crops, any sizes.
    count : int
        Number of words.
    seed : int
        Seed of the descriptor sample and of k-means.
    sample : int
        Most descriptors to cluster (a random sample of them when there are more).

    Returns
    -------
    numpy.ndarray
        ``count × 128`` float32 centres.
    """
    found = np.concatenate(crop_descriptors(gray_crops(crops)))
    if len(found) < count:
        raise ValueError(f"{len(found)} descriptors cannot make {count} visual words")
    rng = np.random.default_rng(seed)
    if len(found) > sample:
        found = found[rng.choice(len(found), sample, replace=False)]
    kmeans = MiniBatchKMeans(count, random_state=seed, batch_size=4096, n_init=3).fit(found)
    return np.asarray(kmeans.cluster_centers_, np.float32)
