"""The trained square classifier.

:func:`classify_board` is the entry point: it cuts a rectified board into its
squares, gives every square a probability for each of the 18 cell values
(16 (terrain, crowns) pairs, castle, empty), and decodes the whole grid at
once with :func:`scorer.read.decoding.decode`, so that the result is a kingdom the
48 dominoes can build: squares paired into dominoes of the set, no impossible
pair, never more of a pair than the tile set holds, exactly one castle.

The model is a :class:`CellClassifier` saved with ``skops`` (no unpickling of
arbitrary code) beside a metadata file that records its sha256;
:func:`load_model` refuses a file that does not match.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from scorer.read.cells import FEATURE_VERSION, cells_features, split_cells, words_digest
from scorer.read.decoding import decode
from scorer.rules.errors import ModelFileError
from scorer.rules.kingdom import ALL_CELLS, Cell, Kingdom, Position

MODEL_DIR: Final = Path(__file__).resolve().parents[2] / "models"
"""The committed model's folder, found from the package so it works from any checkout."""

MODEL_FILE: Final = "cell_classifier.skops"
"""File name of the model inside its folder."""

METADATA_FILE: Final = "model.json"
"""File name of the metadata (classes, data, figures, sha256) beside the model."""

DOUBT_THRESHOLD: Final = 0.8
"""A square whose chosen label has a lower probability than this is flagged as doubtful."""

TOKENS: Final = tuple(c.token for c in ALL_CELLS)
"""The class tokens, in the order of :data:`scorer.rules.kingdom.ALL_CELLS`."""

_TRUSTED_TYPES: Final = frozenset(
    {
        "scorer.read.classify.CellClassifier",
        "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
        "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
        "sklearn.neural_network._stochastic_optimizers.AdamOptimizer",
        "sklearn._loss.link.Interval",
        "sklearn._loss.link.MultinomialLogit",
        "sklearn._loss.loss.HalfMultinomialLoss",
        "sklearn._loss.link.IdentityLink",
        "sklearn._loss.link.LogitLink",
        "sklearn._loss.loss.HalfBinomialLoss",
        "builtins.float",
        "builtins.int",
        "builtins.str",
        "builtins.bool",
        "builtins.tuple",
        "numpy.dtype",
        "numpy.float64",
        "numpy.int64",
        "numpy.str_",
        "numpy.ndarray",
    }
)
"""Types :func:`load_model` lets ``skops`` build; anything else in the file is refused."""

_SMALL_BATCH: Final = 256


@dataclass(frozen=True)
class BoardPrediction:
    """What the classifier read on one rectified board.

    Attributes
    ----------
    kingdom : Kingdom
        The decoded grid: tile-set consistent, exactly one castle.
    confidence : numpy.ndarray
        ``rows × cols`` probability of each square's chosen label.
    probabilities : numpy.ndarray
        ``rows × cols × len(classes)`` probabilities from the classifier.
    classes : tuple of Cell
        The cell value of each entry along the last axis of ``probabilities``.
    doubtful : frozenset of Position
        Squares with a confidence below :data:`DOUBT_THRESHOLD` or changed by decoding.
    """

    kingdom: Kingdom
    confidence: np.ndarray
    probabilities: np.ndarray
    classes: tuple[Cell, ...]
    doubtful: frozenset[Position]

    def runner_up(self, pos: Position) -> Cell:
        """The most probable reading of a square other than the decoded one.

        For a doubtful square this is what the player most likely needs instead.

        Parameters
        ----------
        pos : Position
            ``(row, column)`` of the square.

        Returns
        -------
        Cell
        """
        order = np.argsort(-np.asarray(self.probabilities[pos]), kind="stable")
        chosen = self.kingdom[pos]
        others: list[Cell] = [self.classes[int(i)] for i in order if self.classes[int(i)] != chosen]
        return others[0]

    def second_choices(self) -> dict[Position, Cell]:
        """:meth:`runner_up` of every doubtful square, in reading order."""
        return {pos: self.runner_up(pos) for pos in sorted(self.doubtful)}


def classify_board(
    board: np.ndarray, shape: tuple[int, int], model: CellClassifier | None = None
) -> BoardPrediction:
    """Read every square of a rectified board and decode a consistent kingdom.

    Parameters
    ----------
    board : numpy.ndarray
        BGR uint8 image of ``rows*S × cols*S`` pixels, row 0 at the top.
    shape : tuple of int
        ``(rows, cols)`` of the grid, e.g. ``(5, 5)`` or ``(7, 7)``.
    model : CellClassifier, optional
        The classifier; the committed model when omitted.

    Returns
    -------
    BoardPrediction
    """
    model = default_model() if model is None else model
    crops = split_cells(board, shape)
    probabilities = model.predict_cell_proba(crops).reshape(*shape, len(ALL_CELLS))
    return predict_from_probabilities(probabilities)


def predict_from_probabilities(probabilities: np.ndarray) -> BoardPrediction:
    """Decode a consistent kingdom from its squares' probabilities.

    Parameters
    ----------
    probabilities : numpy.ndarray
        ``rows × cols × len(ALL_CELLS)`` probabilities, e.g. part of another
        board's :attr:`BoardPrediction.probabilities`.

    Returns
    -------
    BoardPrediction
    """
    shape = (int(probabilities.shape[0]), int(probabilities.shape[1]))
    kingdom, confidence = decode(probabilities, ALL_CELLS, shape)
    doubtful = doubtful_squares(kingdom, confidence, probabilities)
    return BoardPrediction(kingdom, confidence, probabilities, ALL_CELLS, doubtful)


def doubtful_squares(
    kingdom: Kingdom, confidence: np.ndarray, probabilities: np.ndarray
) -> frozenset[Position]:
    """Squares a player should check: confidence below :data:`DOUBT_THRESHOLD`, or a label
    other than the square's own most probable one (changed by the tile-set decoding).

    Parameters
    ----------
    kingdom : Kingdom
        The decoded grid.
    confidence : numpy.ndarray
        ``rows × cols`` probability of each square's decoded label.
    probabilities : numpy.ndarray
        ``rows × cols × len(ALL_CELLS)`` probabilities from the classifier.

    Returns
    -------
    frozenset of Position

    Examples
    --------
    >>> from scorer.rules.kingdom import CASTLE, EMPTY
    >>> proba = np.full((1, 2, len(ALL_CELLS)), 0.01)
    >>> proba[0, 0, ALL_CELLS.index(CASTLE)] = 0.9
    >>> proba[0, 1, ALL_CELLS.index(EMPTY)] = 0.5
    >>> kingdom, confidence = decode(proba, ALL_CELLS, (1, 2))
    >>> sorted(doubtful_squares(kingdom, confidence, proba))
    [(0, 1)]
    """
    best = probabilities.argmax(axis=-1)
    return frozenset(
        pos
        for pos, cell in kingdom.cells()
        if confidence[pos] < DOUBT_THRESHOLD or ALL_CELLS[best[pos]] != cell
    )


class CellClassifier:
    """Label square feature vectors (:func:`scorer.read.cells.cells_features`) with cell tokens.

    A fitted model, as :func:`load_model` reads it from its file;
    :func:`scorer.lab.fit.fit_cell_classifier` makes one. The settings it was fitted
    with are kept as attributes of the same names (the model file holds them), and
    :attr:`blend_weight` also weighs its probabilities.

    Parameters
    ----------
    kind : {"hgb", "logistic", "mlp"}
        The learner: histogram gradient boosting, a scaled logistic regression, or a
        scaled one-hidden-layer perceptron.
    max_iter : int
        Boosting rounds (``hgb``) or solver iterations (``logistic``, ``mlp``).
    learning_rate : float
        Boosting learning rate.
    max_leaf_nodes : int
        Leaves per boosted tree.
    l2_regularization : float
        L2 penalty of the boosted trees.
    class_weight : str or None
        ``"balanced"``: each class weighed by the inverse of its frequency (``hgb``).
    C : float
        Inverse regularisation of the logistic regression.
    hidden_units : int
        Width of the perceptron's hidden layer.
    alpha : float
        L2 penalty of the perceptron.
    blend_weight : float
        With ``hgb``, the share of the perceptron :attr:`blend_` in the
        probabilities: ``(1 - blend_weight) * trees + blend_weight * perceptron``.
    blend_iter : int
        Solver iterations of the blended perceptron.
    members : int
        Learners fitted side by side, each on the rows shared by all and its own
        augmented copies; their probabilities are averaged.
    random_state : int
        Seed.

    Attributes
    ----------
    estimators_ : list
        The fitted learners (``members`` of them), each with ``predict_proba``.
    blend_ : object or None
        The blended perceptron, or None.
    classes_ : numpy.ndarray
        The tokens of the probability columns.
    n_features_in_ : int
        Length of a feature row.
    feature_version_ : int
        :data:`scorer.read.cells.FEATURE_VERSION` of the features it was fitted on.
    words_sha256_ : str
        :func:`scorer.read.cells.words_digest` of the vocabulary it was fitted with.
    """

    estimators_: list[Any]
    blend_: Any
    classes_: np.ndarray
    n_features_in_: int
    feature_version_: int
    words_sha256_: str

    def __init__(
        self,
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
    ) -> None:
        self.kind = kind
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.l2_regularization = l2_regularization
        self.class_weight = class_weight
        self.C = C
        self.hidden_units = hidden_units
        self.alpha = alpha
        self.blend_weight = blend_weight
        self.blend_iter = blend_iter
        self.members = members
        self.random_state = random_state

    def __repr__(self) -> str:
        fitted = "fitted" if hasattr(self, "estimators_") else "not fitted"
        return f"CellClassifier(kind={self.kind!r}, members={self.members}, {fitted})"

    def predict_proba(self, X: np.ndarray) -> np.ndarray:  # noqa: N803
        """Probabilities, one column per entry of ``classes_``.

        A few rows (one board) of a boosted model go through all its trees at
        once in numpy (:class:`_FlatTrees`), with the same probabilities as
        scikit-learn's own ``predict_proba``.
        """
        self._check_fitted()
        rows = np.asarray(X, dtype=np.float32)
        proba = np.asarray(
            np.mean([self._estimator_proba(e, rows) for e in self.estimators_], axis=0)
        )
        blend = getattr(self, "blend_", None)
        if blend is None:
            return proba
        with threadpool_limits(1):
            other = np.asarray(blend.predict_proba(rows))
        return np.asarray((1 - self.blend_weight) * proba + self.blend_weight * other)

    def predict(self, X: np.ndarray) -> np.ndarray:  # noqa: N803
        """The most probable token for each row."""
        return np.asarray(self.classes_[self.predict_proba(X).argmax(axis=1)])

    def predict_cell_proba(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """Probabilities over :data:`scorer.rules.kingdom.ALL_CELLS` for each crop (``n × 18``)."""
        self._check_fitted()
        features = cells_features(crops)
        return self.expand_proba(self.predict_proba(features))

    def expand_proba(self, proba: np.ndarray) -> np.ndarray:
        """Re-order ``n × len(classes_)`` probabilities into ``n × 18`` in ``ALL_CELLS`` order."""
        full = np.zeros((proba.shape[0], len(TOKENS)))
        for j, token in enumerate(self.classes_):
            full[:, TOKENS.index(str(token))] = proba[:, j]
        return full

    def _check_fitted(self) -> None:
        if not hasattr(self, "estimators_"):
            raise ValueError("this CellClassifier holds no fitted learners")

    @staticmethod
    def _estimator_proba(estimator: Any, rows: np.ndarray) -> np.ndarray:
        if len(rows) > _SMALL_BATCH:
            return np.asarray(estimator.predict_proba(rows))
        if isinstance(estimator, HistGradientBoostingClassifier):
            return _flat_trees(estimator).predict_proba(rows)
        with threadpool_limits(1):  # threads cost more than they save on one board
            return np.asarray(estimator.predict_proba(rows))


def load_model(path: str | Path | None = None) -> CellClassifier:
    """Load a saved classifier after checking it against its metadata.

    Parameters
    ----------
    path : str or Path, optional
        The model file, or a folder holding :data:`MODEL_FILE`; the committed
        model in :data:`MODEL_DIR` when omitted. The metadata
        (:data:`METADATA_FILE`) must sit beside it.

    Raises
    ------
    ModelFileError
        When the file or its metadata is missing, truncated, tampered with,
        holds untrusted types or is not a classifier.
    """
    model_path = _model_path(path)
    metadata = read_metadata(model_path.parent)
    if not model_path.is_file():
        raise ModelFileError(_restore(f"the model file {model_path} is missing"))
    expected = metadata.get("sha256")
    actual = file_sha256(model_path)
    if actual != expected:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} does not match its metadata "
                f"(sha256 {actual[:12]}…, expected {str(expected)[:12]}…): "
                "it is truncated, damaged or was changed"
            )
        )
    return _load_skops(model_path)


@cache
def default_model() -> CellClassifier:
    """The committed model, loaded once per process."""
    return load_model()


def save_model(
    model: CellClassifier, folder: str | Path, metadata: Mapping[str, Any]
) -> dict[str, Any]:
    """Write ``model`` and its metadata (with the file's sha256) into ``folder``.

    Returns
    -------
    dict
        The metadata as written.
    """
    import skops.io

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model_path = folder / MODEL_FILE
    skops.io.dump(model, model_path, compression=8)  # ZIP_DEFLATED
    written = dict(metadata)
    written["model_file"] = MODEL_FILE
    written["sha256"] = file_sha256(model_path)
    written["size_bytes"] = model_path.stat().st_size
    (folder / METADATA_FILE).write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    return written


def read_metadata(folder: str | Path) -> dict[str, Any]:
    """Read ``model.json`` from ``folder``; raise :class:`ModelFileError` when unreadable."""
    path = Path(folder) / METADATA_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelFileError(_restore(f"the model metadata {path} is missing")) from None
    except (OSError, ValueError) as err:
        raise ModelFileError(_restore(f"the model metadata {path} is unreadable: {err}")) from None
    if not isinstance(data, dict) or "sha256" not in data:
        raise ModelFileError(_restore(f"the model metadata {path} has no sha256"))
    return data


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _model_path(path: str | Path | None) -> Path:
    if path is None:
        return MODEL_DIR / MODEL_FILE
    path = Path(path)
    return path / MODEL_FILE if path.is_dir() else path


def _load_skops(model_path: Path) -> CellClassifier:
    import skops.io

    try:
        untrusted = set(skops.io.get_untrusted_types(file=model_path))
        refused = sorted(untrusted - _TRUSTED_TYPES)
        if refused:
            raise ModelFileError(
                _restore(f"the model file {model_path} holds untrusted types: {refused}")
            )
        model = skops.io.load(model_path, trusted=sorted(untrusted))
    except ModelFileError:
        raise
    except Exception as err:  # skops raises many kinds on a damaged archive
        raise ModelFileError(
            _restore(f"the model file {model_path} cannot be read: {err}")
        ) from None
    if not isinstance(model, CellClassifier):
        raise ModelFileError(
            _restore(f"the model file {model_path} holds a {type(model).__name__}")
        )
    if not hasattr(model, "estimators_"):
        raise ModelFileError(
            _restore(f"the model file {model_path} was written by an older version of the program")
        )
    if getattr(model, "feature_version_", None) != FEATURE_VERSION:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} was trained on feature version "
                f"{getattr(model, 'feature_version_', None)}, this program computes "
                f"version {FEATURE_VERSION}"
            )
        )
    try:
        words = words_digest()
    except (OSError, ValueError) as err:
        raise ModelFileError(
            f"the visual vocabulary the model needs cannot be read: {err}"
        ) from None
    if getattr(model, "words_sha256_", None) != words:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} was trained with another visual vocabulary "
                "than scorer/data/visual_words.npy"
            )
        )
    return model


class _FlatTrees:
    """Every tree of a fitted boosted classifier in flat arrays, walked for all rows at once.

    It reads scikit-learn's private ``_predictors`` and ``_baseline_prediction``, so
    ``pyproject.toml`` pins scikit-learn to the versions it was checked on, and a test
    compares it with scikit-learn's own ``predict_proba``.

    Leaves point to themselves, so a fixed number of steps (the deepest
    leaf's depth) brings every (row, tree) pair to its leaf. Most trees are
    shallow, so three times on the way (at the depths above which half, 80%
    and 95% of the leaves lie) the pairs already at a leaf are set aside.
    """

    def __init__(self, estimator: HistGradientBoostingClassifier) -> None:
        trees = [p.nodes for iteration in estimator._predictors for p in iteration]
        sizes = np.array([len(nodes) for nodes in trees])
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        nodes = np.concatenate(trees)
        if nodes["is_categorical"].any():
            raise ValueError("categorical splits are not supported")
        shift = np.repeat(offsets, sizes)
        own = np.arange(len(nodes))
        leaf = nodes["is_leaf"].astype(bool)
        left = np.where(leaf, own, nodes["left"].astype(np.int64) + shift)
        right = np.where(leaf, own, nodes["right"].astype(np.int64) + shift)
        self.child = np.stack([left, right], axis=1).ravel().astype(np.int32)
        self.feature = nodes["feature_idx"].astype(np.int32)
        self.threshold = nodes["num_threshold"].astype(np.float64)
        self.missing_right = ~nodes["missing_go_to_left"].astype(bool)
        self.value = nodes["value"].astype(np.float64)
        self.roots = offsets.astype(np.int32)
        self.depth = int(nodes["depth"].max())
        self.is_leaf = leaf
        depths = nodes["depth"][leaf]
        self.prune_after = frozenset(int(np.percentile(depths, q)) - 1 for q in (50, 80, 95))
        self.per_iteration = int(estimator.n_trees_per_iteration_)
        self.baseline = np.asarray(estimator._baseline_prediction, np.float64).reshape(1, -1)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:  # noqa: N803
        x = np.asarray(X, dtype=np.float64)
        n, width = x.shape
        flat = x.ravel()
        index = np.tile(self.roots, n)  # (row, tree) pairs, row-major
        start = np.repeat(np.arange(n, dtype=np.int64) * width, len(self.roots))
        missing = bool(np.isnan(flat).any())
        reached = index.copy()
        pending = np.arange(index.size)
        for step in range(self.depth):
            values = flat[start + self.feature[index]]
            right = values > self.threshold[index]  # NaN compares False: handled below
            if missing:
                right = np.where(np.isnan(values), self.missing_right[index], right)
            index = self.child[2 * index + right]
            if step in self.prune_after:  # most trees are shallow: walk on only the rest
                done = self.is_leaf[index]
                reached[pending[done]] = index[done]
                keep = ~done
                pending, index, start = pending[keep], index[keep], start[keep]
        reached[pending] = index
        leaves = self.value[reached].reshape(len(x), -1, self.per_iteration)
        raw = leaves.sum(axis=1) + self.baseline
        if self.per_iteration == 1:  # two classes: a logistic link on one score
            positive = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.stack([1.0 - positive, positive], axis=1)
        raw -= raw.max(axis=1, keepdims=True)
        exp = np.exp(raw)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))


_FLAT: Final[weakref.WeakKeyDictionary[Any, _FlatTrees]] = weakref.WeakKeyDictionary()


def _flat_trees(estimator: HistGradientBoostingClassifier) -> _FlatTrees:
    """The flat trees of ``estimator``, built once and kept out of the saved model."""
    flat = _FLAT.get(estimator)
    if flat is None:
        flat = _FlatTrees(estimator)
        _FLAT[estimator] = flat
    return flat


def _restore(reason: str) -> str:
    return f"{reason}. Restore it with `git checkout models/` or retrain with `make train`."
