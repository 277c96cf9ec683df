"""The square classifier's learners as numpy code: what a saved model holds.

:class:`FlatTrees` walks every tree of a boosted classifier at once; :class:`Dense`
is a scaled one-hidden-layer perceptron or logistic regression. Each computes
what scikit-learn's ``predict_proba`` computes, with the same numpy operations in
the same order, so their probabilities are scikit-learn's to the last bit (for more
than two classes; a two-class logistic output may differ in the last bit). Each
turns into plain arrays and a few settings (:meth:`FlatTrees.to_arrays`) and back
(:meth:`FlatTrees.from_arrays`), which checks everything it is given, so a model
file read from anywhere cannot index out of its arrays.
:func:`numpy_learner` turns a learner that :mod:`scorer.lab.fit` fitted into one of
these; scikit-learn is imported only there, and only when it is already loaded.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Mapping
from typing import Any, Final, TypeGuard

import numpy as np

MAX_DEPTH: Final = 256
"""The deepest tree a saved model may hold."""

MAX_NODES: Final = 2**30
"""The most nodes a saved model's trees may hold: twice a node's index fits 32 bits."""

MAX_LAYERS: Final = 8
"""The most layers a saved :class:`Dense` may hold."""

Arrays = dict[str, np.ndarray]


class FlatTrees:
    """Every tree of a fitted boosted classifier in flat arrays, walked for all rows at once.

    :meth:`from_estimator` reads scikit-learn's private ``_predictors`` and
    ``_baseline_prediction``, so ``pyproject.toml`` pins scikit-learn to the versions
    it was checked on, and a test compares it with scikit-learn's own ``predict_proba``.

    Leaves point to themselves, so a fixed number of steps (the deepest
    leaf's depth) brings every (row, tree) pair to its leaf. Most trees are
    shallow, so three times on the way (at the depths above which half, 80%
    and 95% of the leaves lie) the pairs already at a leaf are set aside.
    """

    ARRAYS: Final = (
        "child",
        "feature",
        "threshold",
        "missing_right",
        "value",
        "roots",
        "is_leaf",
        "baseline",
    )
    """The names of :meth:`to_arrays`."""

    def __init__(
        self,
        arrays: Mapping[str, np.ndarray],
        depth: int,
        prune_after: frozenset[int],
        per_iteration: int,
    ) -> None:
        self.child = np.asarray(arrays["child"], np.int32)
        self.feature = np.asarray(arrays["feature"], np.int32)
        self.threshold = np.asarray(arrays["threshold"], np.float64)
        self.missing_right = np.asarray(arrays["missing_right"], bool)
        self.value = np.asarray(arrays["value"], np.float64)
        self.roots = np.asarray(arrays["roots"], np.int32)
        self.is_leaf = np.asarray(arrays["is_leaf"], bool)
        self.baseline = np.asarray(arrays["baseline"], np.float64)
        self.depth = depth
        self.prune_after = prune_after
        self.per_iteration = per_iteration

    @classmethod
    def from_estimator(cls, estimator: Any) -> FlatTrees:
        """The trees of a fitted ``HistGradientBoostingClassifier``."""
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
        depths = nodes["depth"][leaf]
        arrays: Arrays = {
            "child": np.stack([left, right], axis=1).ravel().astype(np.int32),
            "feature": nodes["feature_idx"].astype(np.int32),
            "threshold": nodes["num_threshold"].astype(np.float64),
            "missing_right": ~nodes["missing_go_to_left"].astype(bool),
            "value": nodes["value"].astype(np.float64),
            "roots": offsets.astype(np.int32),
            "is_leaf": leaf,
            "baseline": np.asarray(estimator._baseline_prediction, np.float64).reshape(1, -1),
        }
        return cls(
            arrays,
            depth=int(nodes["depth"].max()),
            prune_after=frozenset(int(np.percentile(depths, q)) - 1 for q in (50, 80, 95)),
            per_iteration=int(estimator.n_trees_per_iteration_),
        )

    def to_arrays(self) -> tuple[Arrays, dict[str, Any]]:
        """The arrays (by the names of :data:`ARRAYS`) and the settings that rebuild it."""
        arrays = {name: getattr(self, name) for name in self.ARRAYS}
        settings = {
            "type": "trees",
            "depth": self.depth,
            "prune_after": sorted(self.prune_after),
            "per_iteration": self.per_iteration,
        }
        return arrays, settings

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, np.ndarray], settings: Mapping[str, Any], n_features: int
    ) -> FlatTrees:
        """Rebuild from :meth:`to_arrays`, checking every index; ``ValueError`` if one is off."""
        _expect_kinds(arrays, {"child": "i", "feature": "i", "roots": "i", "threshold": "f"})
        _expect_kinds(arrays, {"value": "f", "baseline": "f", "missing_right": "b", "is_leaf": "b"})
        depth, per_iteration = settings.get("depth"), settings.get("per_iteration")
        prune_after = settings.get("prune_after")
        if not (_is_int(depth) and 0 <= depth <= MAX_DEPTH):
            raise ValueError(f"tree depth {depth!r} is not a whole number up to {MAX_DEPTH}")
        if not (_is_int(per_iteration) and per_iteration >= 1):
            raise ValueError(f"trees per iteration {per_iteration!r} is not a whole number")
        if not (isinstance(prune_after, list) and all(_is_int(k) for k in prune_after)):
            raise ValueError("the pruning depths are not whole numbers")
        nodes = len(arrays["feature"])
        if nodes > MAX_NODES:
            raise ValueError(f"trees: {nodes} nodes, more than {MAX_NODES}")
        for name in ("feature", "threshold", "missing_right", "value", "is_leaf"):
            if arrays[name].shape != (nodes,):
                raise ValueError(f"trees: {name} does not have one entry per node")
        if arrays["child"].shape != (2 * nodes,) or arrays["roots"].ndim != 1:
            raise ValueError("trees: child or roots has the wrong shape")
        if arrays["baseline"].shape != (1, per_iteration):
            raise ValueError("trees: the baseline does not have one score per tree of an iteration")
        roots, child, feature = arrays["roots"], arrays["child"], arrays["feature"]
        if len(roots) == 0 or len(roots) % per_iteration:
            raise ValueError("trees: the roots do not make whole iterations")
        for name, index, limit in (
            ("child", child, nodes),
            ("roots", roots, nodes),
            ("feature", feature, n_features),
        ):
            if index.min() < 0 or index.max() >= limit:
                raise ValueError(f"trees: an entry of {name} points outside its range")
        leaves = np.flatnonzero(arrays["is_leaf"])
        pairs = child.reshape(-1, 2)[leaves]
        if not (pairs == leaves[:, None]).all():
            raise ValueError("trees: a leaf does not point to itself")
        return cls(arrays, depth, frozenset(prune_after), per_iteration)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:  # noqa: N803
        """Probabilities, one column per class, as scikit-learn's ``predict_proba``."""
        x = np.asarray(X, dtype=np.float64)
        n, width = x.shape
        if n * width >= np.iinfo(np.int32).max:
            raise ValueError(f"{n} rows of {width} features are too many to walk at once")
        flat = x.ravel()
        # (row, tree) pairs, row-major. ``take`` on 32-bit indices gathers faster than
        # fancy indexing: the walk is a tenth of a warm photo's time.
        index = np.tile(self.roots, n)
        start = np.repeat(np.arange(n, dtype=np.int32) * np.int32(width), len(self.roots))
        missing = bool(np.isnan(flat).any())
        reached = index.copy()
        pending = np.arange(index.size, dtype=np.int32)
        feature, threshold, child = self.feature, self.threshold, self.child
        for step in range(self.depth):
            where = feature.take(index)
            where += start
            values = flat.take(where)
            right = values > threshold.take(index)  # NaN compares False: handled below
            if missing:
                right = np.where(np.isnan(values), self.missing_right.take(index), right)
            index <<= 1  # the two children of node i are child[2i] and child[2i + 1]
            index += right
            index = child.take(index)
            if step in self.prune_after:  # most trees are shallow: walk on only the rest
                done = self.is_leaf.take(index)
                reached[pending[done]] = index[done]
                keep = ~done
                pending, index, start = pending[keep], index[keep], start[keep]
        reached[pending] = index
        leaves = self.value.take(reached).reshape(len(x), -1, self.per_iteration)
        raw = leaves.sum(axis=1) + self.baseline
        if self.per_iteration == 1:  # two classes: a logistic link on one score
            positive = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.stack([1.0 - positive, positive], axis=1)
        raw -= raw.max(axis=1, keepdims=True)
        exp = np.exp(raw)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))

    @property
    def n_outputs(self) -> int:
        """Classes it gives probabilities for."""
        return 2 if self.per_iteration == 1 else self.per_iteration


_ACTIVATIONS: Final = ("identity", "relu", "tanh", "logistic")
"""Hidden-layer activations :class:`Dense` computes (scikit-learn's names)."""


class Dense:
    """A scaled perceptron (``kind="mlp"``) or logistic regression (``kind="logistic"``).

    The rows are standardised as scikit-learn's ``StandardScaler`` does (in their own
    float type), then go through the layers as ``MLPClassifier`` or
    ``LogisticRegression`` computes them.

    Parameters
    ----------
    kind : {"mlp", "logistic"}
    mean, scale : numpy.ndarray
        The scaler's ``mean_`` and ``scale_``.
    weights, biases : list of numpy.ndarray
        The perceptron's ``coefs_`` and ``intercepts_``, or the regression's
        ``coef_`` (classes × features) and ``intercept_``.
    hidden : str
        The hidden layers' activation (:data:`_ACTIVATIONS`).
    """

    def __init__(
        self,
        kind: str,
        mean: np.ndarray,
        scale: np.ndarray,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        hidden: str = "relu",
    ) -> None:
        self.kind = kind
        self.mean = mean
        self.scale = scale
        self.weights = weights
        self.biases = biases
        self.hidden = hidden

    @classmethod
    def from_pipeline(cls, pipeline: Any) -> Dense:
        """A fitted ``Pipeline`` of a ``StandardScaler`` and an ``MLPClassifier`` or a
        ``LogisticRegression`` (what :mod:`scorer.lab.fit` builds)."""
        steps = [step for _, step in pipeline.steps]
        kinds = [type(step).__name__ for step in steps]
        if kinds not in (
            ["StandardScaler", "MLPClassifier"],
            ["StandardScaler", "LogisticRegression"],
        ):
            raise ValueError(f"cannot save a learner made of {kinds}")
        scaler, last = steps
        width = len(scaler.mean_) if scaler.mean_ is not None else scaler.n_features_in_
        mean = np.zeros(width) if scaler.mean_ is None else np.asarray(scaler.mean_)
        scale = np.ones(width) if scaler.scale_ is None else np.asarray(scaler.scale_)
        if kinds[1] == "MLPClassifier":
            if last.out_activation_ not in ("softmax", "logistic"):
                raise ValueError(f"cannot save an output activation {last.out_activation_}")
            return cls(
                "mlp", mean, scale, list(last.coefs_), list(last.intercepts_), last.activation
            )
        return cls("logistic", mean, scale, [last.coef_], [last.intercept_])

    def to_arrays(self) -> tuple[Arrays, dict[str, Any]]:
        """The arrays (``mean``, ``scale``, ``w0``, ``b0``…) and the settings that rebuild it."""
        arrays = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        settings = {
            "type": "dense",
            "kind": self.kind,
            "layers": len(self.weights),
            "hidden": self.hidden,
        }
        return arrays, settings

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, np.ndarray], settings: Mapping[str, Any], n_features: int
    ) -> Dense:
        """Rebuild from :meth:`to_arrays`, checking every shape; ``ValueError`` if one is off."""
        kind, layers, hidden = settings.get("kind"), settings.get("layers"), settings.get("hidden")
        if kind not in ("mlp", "logistic") or hidden not in _ACTIVATIONS:
            raise ValueError(f"unknown dense learner {kind!r} with {hidden!r} units")
        if not (_is_int(layers) and 1 <= layers <= (MAX_LAYERS if kind == "mlp" else 1)):
            raise ValueError(f"a {kind} learner cannot have {layers!r} layers")
        names = {"mean": "f", "scale": "f"}
        names.update({f"{p}{i}": "f" for i in range(layers) for p in "wb"})
        _expect_kinds(arrays, names)
        if arrays["mean"].shape != (n_features,) or arrays["scale"].shape != (n_features,):
            raise ValueError("dense: the scaler does not have one entry per feature")
        weights = [arrays[f"w{i}"] for i in range(layers)]
        biases = [arrays[f"b{i}"] for i in range(layers)]
        width = n_features
        for w, b in zip(weights, biases, strict=True):
            inputs, outputs = (
                (w.shape[::-1] if kind == "logistic" else w.shape) if w.ndim == 2 else (0, 0)
            )
            if inputs != width or b.shape != (outputs,) or outputs < 1:
                raise ValueError("dense: the layers' shapes do not follow one another")
            width = outputs
        return cls(str(kind), arrays["mean"], arrays["scale"], weights, biases, str(hidden))

    @property
    def n_outputs(self) -> int:
        """Classes it gives probabilities for."""
        width = self.biases[-1].shape[0]
        return 2 if width == 1 else width

    def predict_proba(self, X: np.ndarray) -> np.ndarray:  # noqa: N803
        """Probabilities, one column per class, as scikit-learn's pipeline gives them."""
        x = np.array(X, copy=True)
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float64)
        if not np.isfinite(x).all():  # as scikit-learn refuses them
            raise ValueError("a row holds a missing or infinite value")
        x -= self.mean.astype(x.dtype)
        x /= self.scale.astype(x.dtype)
        if self.kind == "logistic":
            scores = x @ self.weights[0].T + self.biases[0]
            if scores.shape[1] == 1:
                return _binary(_sigmoid(scores.ravel()))
            return _softmax(scores)
        activation = x
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            activation = activation @ w
            activation += b
            if i != len(self.weights) - 1:
                activation = _activate(activation, self.hidden)
        if activation.shape[1] == 1:
            return _binary(_sigmoid(activation.ravel()))
        return _softmax(activation)


def _activate(x: np.ndarray, name: str) -> np.ndarray:
    if name == "relu":
        return np.asarray(np.maximum(x, 0, out=x))
    if name == "tanh":
        return np.asarray(np.tanh(x, out=x))
    if name == "logistic":
        return _sigmoid(x)
    return x


def _softmax(x: np.ndarray) -> np.ndarray:
    """scikit-learn's softmax: less the row's largest, exponentiated, over the row's sum."""
    tmp = x - x.max(axis=1)[:, np.newaxis]
    np.exp(tmp, out=x)
    x /= x.sum(axis=1)[:, np.newaxis]
    return x


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=x.dtype)


def _binary(positive: np.ndarray) -> np.ndarray:
    return np.vstack([1 - positive, positive]).T


def _expect_kinds(arrays: Mapping[str, np.ndarray], kinds: Mapping[str, str]) -> None:
    for name, kind in kinds.items():
        array = arrays.get(name)
        if array is None:
            raise ValueError(f"the array {name!r} is missing")
        if array.dtype.kind != kind:
            raise ValueError(f"the array {name!r} holds {array.dtype}, not {kind!r} numbers")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_FLAT: Final[weakref.WeakKeyDictionary[Any, FlatTrees]] = weakref.WeakKeyDictionary()


def flat_trees(estimator: Any) -> FlatTrees:
    """The :class:`FlatTrees` of a fitted boosted classifier, built once and kept beside it."""
    flat = _FLAT.get(estimator)
    if flat is None:
        flat = FlatTrees.from_estimator(estimator)
        _FLAT[estimator] = flat
    return flat


def is_boosted(estimator: Any) -> bool:
    """Whether ``estimator`` is scikit-learn's ``HistGradientBoostingClassifier``
    (without importing scikit-learn: such a learner exists only once it is loaded)."""
    ensemble = sys.modules.get("sklearn.ensemble")
    return ensemble is not None and isinstance(estimator, ensemble.HistGradientBoostingClassifier)


def numpy_learner(estimator: Any) -> FlatTrees | Dense:
    """``estimator`` as numpy code: already one, boosted trees, or a scaled perceptron
    or logistic regression (a ``Pipeline``); ``ValueError`` for anything else."""
    if isinstance(estimator, FlatTrees | Dense):
        return estimator
    if is_boosted(estimator):
        return flat_trees(estimator)
    if type(estimator).__name__ == "Pipeline":
        return Dense.from_pipeline(estimator)
    raise ValueError(f"cannot save a learner of type {type(estimator).__name__}")
