"""The trained square classifier.

:func:`classify_board` is the entry point: it cuts a rectified board into its
squares, gives every square a probability for each of the 18 cell values
(16 (terrain, crowns) pairs, castle, empty), and decodes the whole grid at
once with :func:`scorer.read.decoding.decode`, so that the result is a kingdom the
48 dominoes can build: squares paired into dominoes of the set, no impossible
pair, never more of a pair than the tile set holds, exactly one castle.

The model is a :class:`CellClassifier` saved as plain arrays (:mod:`scorer.read.modelfile`:
an ``.npz`` archive, no pickle, nothing that runs) beside a metadata file that records
its sha256; :func:`load_model` refuses a file that does not match. Its learners are
numpy code (:mod:`scorer.read.learners`): the boosted trees as :class:`FlatTrees`, the
perceptron or logistic regression as :class:`Dense`, which compute what scikit-learn
computes with the same operations in the same order, so a photo is read without
importing scikit-learn.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from scorer.read import modelfile
from scorer.read.cells import FEATURE_VERSION, cells_features, split_cells, words_digest
from scorer.read.decoding import decode
from scorer.read.hidden import Unreadable
from scorer.read.learners import Dense, FlatTrees, flat_trees, is_boosted, numpy_learner
from scorer.read.params import DEFAULT as READ_DEFAULT
from scorer.rules.errors import ModelFileError
from scorer.rules.kingdom import ALL_CELLS, CASTLE, Cell, Kingdom, Position

MODEL_DIR: Final = Path(__file__).resolve().parents[2] / "models"
"""The committed model's folder, found from the package so it works from any checkout."""

MODEL_FILE: Final = "cell_classifier.npz"
"""File name of the model inside its folder."""

METADATA_FILE: Final = "model.json"
"""File name of the metadata (classes, data, figures, sha256) beside the model."""

DOUBT_THRESHOLD: Final = READ_DEFAULT.doubt_below
"""A square whose chosen label has a lower probability than this is flagged as doubtful
(:attr:`scorer.read.params.ReadParams.doubt_below`, where reading passes it)."""

TOKENS: Final = tuple(c.token for c in ALL_CELLS)
"""The class tokens, in the order of :data:`scorer.rules.kingdom.ALL_CELLS`."""

FORMAT: Final = "kingdomino-cell-classifier"
"""The ``format`` named in a model archive's header."""

FORMAT_VERSION: Final = 1
"""The version of the archive's layout this program reads and writes."""

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
    unreadable : tuple of Unreadable
        Squares that cannot be read (glare, cut off, hidden), each also doubtful
        (:func:`scorer.read.unreadable.with_unreadable`).
    castle_places : frozenset of Position
        Where no square looks like the castle: the squares it may stand on, each also
        doubtful (:func:`scorer.read.decoding.castle_places`); empty otherwise.
    domino_reading : tuple of (Position, Cell)
        Where the tile squares read cannot all be paired into dominoes of the set: the
        squares a grid of whole dominoes reads differently, with its reading of each, each
        also doubtful (:func:`scorer.read.decoding.whole_domino_changes`); empty otherwise.
    """

    kingdom: Kingdom
    confidence: np.ndarray
    probabilities: np.ndarray
    classes: tuple[Cell, ...]
    doubtful: frozenset[Position]
    unreadable: tuple[Unreadable, ...] = ()
    castle_places: frozenset[Position] = frozenset()
    domino_reading: tuple[tuple[Position, Cell], ...] = ()

    def runner_up(self, pos: Position) -> Cell:
        """The most probable reading of a square other than the decoded one that the kingdom
        allows: not the castle where the castle stands elsewhere (a kingdom has one).

        For a doubtful square this is what the player most likely needs instead. On a
        square where the castle may stand (:attr:`castle_places`) though no square looks
        like it, that is the castle; on one a grid of whole dominoes reads differently
        (:attr:`domino_reading`), that grid's reading.

        Parameters
        ----------
        pos : Position
            ``(row, column)`` of the square.

        Returns
        -------
        Cell
        """
        if pos in self.castle_places and self.kingdom[pos] != CASTLE:
            return CASTLE
        whole = dict(self.domino_reading)
        if pos in whole:
            return whole[pos]
        others = self.other_readings(pos)
        return max(others, key=others.__getitem__)  # the first of equals, in class order

    def other_readings(self, pos: Position) -> dict[Cell, float]:
        """Every reading of a square other than the decoded one that the kingdom allows (not
        the castle where the castle stands elsewhere), with its probability.

        Parameters
        ----------
        pos : Position
            ``(row, column)`` of the square.

        Returns
        -------
        dict of Cell to float
            In the order of :attr:`classes`.
        """
        chosen = self.kingdom[pos]
        castle_elsewhere = chosen != CASTLE and any(c == CASTLE for _, c in self.kingdom.cells())
        return {
            cell: float(p)
            for cell, p in zip(self.classes, self.probabilities[pos], strict=True)
            if cell != chosen and not (castle_elsewhere and cell == CASTLE)
        }

    def overridden(self) -> frozenset[Position]:
        """Squares whose decoded label is not the classifier's most probable one: the tile
        set (or the one castle) overruled what the square looks like."""
        best = np.asarray(self.probabilities).argmax(axis=-1)
        return frozenset(
            pos for pos, cell in self.kingdom.cells() if self.classes[best[pos]] != cell
        )

    def second_choices(self) -> dict[Position, Cell]:
        """:meth:`runner_up` of every doubtful square, in reading order."""
        return {pos: self.runner_up(pos) for pos in sorted(self.doubtful)}


def classify_board(
    board: np.ndarray,
    shape: tuple[int, int],
    model: CellClassifier | None = None,
    *,
    doubt_below: float = DOUBT_THRESHOLD,
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
    doubt_below : float
        Confidence under which a square is doubtful (:func:`doubtful_squares`).

    Returns
    -------
    BoardPrediction
    """
    model = default_model() if model is None else model
    crops = split_cells(board, shape)
    probabilities = model.predict_cell_proba(crops).reshape(*shape, len(ALL_CELLS))
    return predict_from_probabilities(probabilities, doubt_below=doubt_below)


def predict_from_probabilities(
    probabilities: np.ndarray, *, doubt_below: float = DOUBT_THRESHOLD
) -> BoardPrediction:
    """Decode a consistent kingdom from its squares' probabilities.

    Parameters
    ----------
    probabilities : numpy.ndarray
        ``rows × cols × len(ALL_CELLS)`` probabilities, e.g. part of another
        board's :attr:`BoardPrediction.probabilities`.
    doubt_below : float
        Confidence under which a square is doubtful (:func:`doubtful_squares`).

    Returns
    -------
    BoardPrediction
    """
    shape = (int(probabilities.shape[0]), int(probabilities.shape[1]))
    kingdom, confidence = decode(probabilities, ALL_CELLS, shape)
    doubtful = doubtful_squares(kingdom, confidence, probabilities, doubt_below=doubt_below)
    return BoardPrediction(kingdom, confidence, probabilities, ALL_CELLS, doubtful)


def doubtful_squares(
    kingdom: Kingdom,
    confidence: np.ndarray,
    probabilities: np.ndarray,
    *,
    doubt_below: float = DOUBT_THRESHOLD,
) -> frozenset[Position]:
    """Squares a player should check: confidence below ``doubt_below``, or a label
    other than the square's own most probable one (changed by the tile-set decoding).

    The castle is certain from the tile set (a kingdom has exactly one), so the square read as
    the castle is flagged only when its own evidence is weak: when its own most probable
    reading is not the castle. A low confidence alone does not flag it here: reading
    (:mod:`scorer.read.corrections`) flags it with the squares where the castle may stand.

    Parameters
    ----------
    kingdom : Kingdom
        The decoded grid.
    confidence : numpy.ndarray
        ``rows × cols`` probability of each square's decoded label.
    probabilities : numpy.ndarray
        ``rows × cols × len(ALL_CELLS)`` probabilities from the classifier.
    doubt_below : float
        Confidence under which a square other than the castle is doubtful
        (:data:`DOUBT_THRESHOLD` by default).

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
    >>> proba[0, 0, ALL_CELLS.index(CASTLE)] = 0.6  # read C, perhaps W1: still the castle
    >>> proba[0, 0, ALL_CELLS.index(Cell.parse("W1"))] = 0.35
    >>> kingdom, confidence = decode(proba, ALL_CELLS, (1, 2))
    >>> round(float(confidence[0, 0]), 2), sorted(doubtful_squares(kingdom, confidence, proba))
    (0.6, [(0, 1)])
    """
    best = probabilities.argmax(axis=-1)
    return frozenset(
        pos
        for pos, cell in kingdom.cells()
        if ALL_CELLS[best[pos]] != cell or (confidence[pos] < doubt_below and cell != CASTLE)
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
        The fitted learners (``members`` of them), each with ``predict_proba``:
        scikit-learn's as :func:`scorer.lab.fit.fit_cell_classifier` fits them, or
        :class:`FlatTrees` and :class:`Dense` as :func:`load_model` reads them.
    blend_ : object or None
        The blended perceptron (scikit-learn's, or a :class:`Dense`), or None.
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

        A loaded model's learners are numpy code (:class:`FlatTrees`, :class:`Dense`).
        With a model fitted in this process, a few rows (one board) of a boosted
        model also go through its trees at once in numpy, with the same
        probabilities as scikit-learn's own ``predict_proba``.
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
        if isinstance(estimator, FlatTrees):  # in pieces: a piece holds its (row, tree) pairs
            if len(rows) <= _SMALL_BATCH:
                return estimator.predict_proba(rows)
            pieces = [rows[i : i + _SMALL_BATCH] for i in range(0, len(rows), _SMALL_BATCH)]
            return np.concatenate([estimator.predict_proba(piece) for piece in pieces])
        if len(rows) > _SMALL_BATCH and not isinstance(estimator, Dense):
            return np.asarray(estimator.predict_proba(rows))
        if is_boosted(estimator):
            return flat_trees(estimator).predict_proba(rows)
        with threadpool_limits(1):  # threads cost more than they save on one board
            return np.asarray(estimator.predict_proba(rows))

    def learners(self) -> tuple[list[FlatTrees | Dense], Dense | None]:
        """The learners and the blended perceptron as the numpy code that a saved model holds.

        Raises
        ------
        ValueError
            For a learner that is neither boosted trees nor a scaled perceptron or
            logistic regression.
        """
        self._check_fitted()
        members = [numpy_learner(e) for e in self.estimators_]
        blend = getattr(self, "blend_", None)
        dense = None if blend is None else numpy_learner(blend)
        if isinstance(dense, FlatTrees):
            raise ValueError("the blended learner must be a perceptron or a logistic regression")
        return members, dense


def load_model(path: str | Path | None = None) -> CellClassifier:
    """Load a saved classifier after checking it against its metadata.

    The file is read once, its sha256 checked against the metadata, and only then
    unpacked (:func:`scorer.read.modelfile.read_archive`): plain arrays, nothing that
    runs, every size capped before unpacking and every index checked.

    Parameters
    ----------
    path : str or Path, optional
        The model file, or a folder holding :data:`MODEL_FILE`; the committed
        model in :data:`MODEL_DIR` when omitted. The metadata
        (:data:`METADATA_FILE`) must sit beside it.

    Raises
    ------
    ModelFileError
        When the file or its metadata is missing, too large, truncated, tampered
        with, of another format version, or does not make a classifier.
    """
    model_path = _model_path(path)
    metadata = read_metadata(model_path.parent)
    try:
        with model_path.open("rb") as f:
            data = f.read(modelfile.MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ModelFileError(_restore(f"the model file {model_path} is missing")) from None
    except OSError as err:
        raise ModelFileError(
            _restore(f"the model file {model_path} cannot be read: {err}")
        ) from None
    if len(data) > modelfile.MAX_FILE_BYTES:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} is larger than {modelfile.MAX_FILE_BYTES} bytes, "
                "so it is not one this program wrote"
            )
        )
    expected = metadata["sha256"]  # 64 hex digits, lower case (read_metadata)
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} does not match its metadata "
                f"(sha256 {actual[:12]}…, expected {str(expected)[:12]}…): "
                "it is truncated, damaged or was changed"
            )
        )
    try:
        header, arrays = modelfile.read_archive(data)
    except ValueError as err:
        raise ModelFileError(_restore(_forged(model_path, str(err)))) from None
    return _from_archive(header, arrays, model_path)


@cache
def default_model() -> CellClassifier:
    """The committed model, loaded once per process."""
    return load_model()


def save_model(
    model: CellClassifier, folder: str | Path, metadata: Mapping[str, Any]
) -> dict[str, Any]:
    """Write ``model`` (as plain arrays) and its metadata (with the file's sha256) into
    ``folder``.

    Returns
    -------
    dict
        The metadata as written.

    Raises
    ------
    ValueError
        For a learner that cannot be saved as arrays (:meth:`CellClassifier.learners`).
    """
    members, blend = model.learners()
    header: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "settings": {name: getattr(model, name) for name in _SETTINGS},
        "classes": [str(c) for c in model.classes_],
        "n_features": int(model.n_features_in_),
        "feature_version": int(model.feature_version_),
        "words_sha256": str(model.words_sha256_),
        "learners": [],
        "blend": None,
    }
    arrays: dict[str, np.ndarray] = {}
    for prefix, learner in [(f"m{k}", m) for k, m in enumerate(members)] + [("blend", blend)]:
        if learner is None:
            continue
        parts, settings = learner.to_arrays()
        arrays.update({f"{prefix}.{name}": array for name, array in parts.items()})
        entry = {"arrays": prefix, **settings}
        if prefix == "blend":
            header["blend"] = entry
        else:
            header["learners"].append(entry)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model_path = folder / MODEL_FILE
    modelfile.write_archive(model_path, header, arrays)
    written = dict(metadata)
    written["format"] = f"{FORMAT} {FORMAT_VERSION}: numpy arrays in a zip (.npz), no pickle"
    written["model_file"] = MODEL_FILE
    written["sha256"] = file_sha256(model_path)
    written["size_bytes"] = model_path.stat().st_size
    (folder / METADATA_FILE).write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    return written


def read_metadata(folder: str | Path) -> dict[str, Any]:
    """Read ``model.json`` from ``folder`` (at most
    :data:`scorer.read.modelfile.MAX_HEADER_BYTES`); raise :class:`ModelFileError` when
    unreadable."""
    path = Path(folder) / METADATA_FILE
    try:
        with path.open("rb") as f:
            raw = f.read(modelfile.MAX_HEADER_BYTES + 1)
        if len(raw) > modelfile.MAX_HEADER_BYTES:
            raise ValueError(f"it is larger than {modelfile.MAX_HEADER_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ModelFileError(_restore(f"the model metadata {path} is missing")) from None
    except (OSError, ValueError) as err:
        raise ModelFileError(_restore(f"the model metadata {path} is unreadable: {err}")) from None
    if not isinstance(data, dict) or "sha256" not in data:
        raise ModelFileError(_restore(f"the model metadata {path} has no sha256"))
    return {**data, "sha256": _sha256_of_metadata(data["sha256"], path)}


def _sha256_of_metadata(value: Any, path: Path) -> str:
    """The sha256 recorded in the metadata, in lower case; refused unless 64 hex digits.

    Hexadecimal is the same number in either case, and common tools print it in upper
    case (PowerShell's ``Get-FileHash``), so the case is not held against a file; anything
    but 64 hex digits is a damaged or hand-edited metadata file, named as such rather than
    reported as a model that does not match.

    >>> _sha256_of_metadata("AB" * 32, Path("model.json")) == "ab" * 32
    True
    >>> try:
    ...     _sha256_of_metadata("sha256:" + "ab" * 32, Path("m.json"))
    ... except ModelFileError as err:
    ...     print(str(err).partition(". ")[0])
    the model metadata m.json records the sha256 'sha256:ab…', not 64 hexadecimal digits
    """
    if (
        isinstance(value, str)
        and len(value) == 64
        and all(c in "0123456789abcdefABCDEF" for c in value)
    ):
        return value.lower()
    shown = repr(value[:9] + "…" if isinstance(value, str) and len(value) > 10 else value)
    raise ModelFileError(
        _restore(
            f"the model metadata {path} records the sha256 {shown[:80]}, not 64 hexadecimal digits"
        )
    )


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


_SETTINGS: Final = (
    "kind",
    "max_iter",
    "learning_rate",
    "max_leaf_nodes",
    "l2_regularization",
    "class_weight",
    "C",
    "hidden_units",
    "alpha",
    "blend_weight",
    "blend_iter",
    "members",
    "random_state",
)
"""The settings of :class:`CellClassifier`, as its archive's header holds them."""

MAX_MEMBERS: Final = 16
"""The most learners a saved model may average."""


def _model_path(path: str | Path | None) -> Path:
    if path is None:
        return MODEL_DIR / MODEL_FILE
    path = Path(path)
    return path / MODEL_FILE if path.is_dir() else path


def _from_archive(
    header: Mapping[str, Any], arrays: Mapping[str, np.ndarray], model_path: Path
) -> CellClassifier:
    """The classifier an archive's header and arrays describe, every part checked.

    A version that no release wrote (missing, not a whole number, below the first) is
    named as a forged or damaged file, never as one from another version of the program.
    """
    if header.get("format") != FORMAT:
        raise ModelFileError(
            _restore(f"the model file {model_path} is not a square classifier of this program")
        )
    version = header.get("format_version")
    if type(version) is not int or version < 1:  # not `True`, which equals 1
        raise ModelFileError(
            _restore(
                _forged(model_path, f"format version {version!r} is no version of this program")
            )
        )
    if version != FORMAT_VERSION:
        newer = "a newer" if version > FORMAT_VERSION else "an older"
        raise ModelFileError(
            _restore(
                f"the model file {model_path} was written by {newer} version of the program "
                f"(format version {version}; this program reads version {FORMAT_VERSION})"
            )
        )
    features = header.get("feature_version")
    if type(features) is not int or features < 1:
        raise ModelFileError(
            _restore(
                _forged(model_path, f"feature version {features!r} is no version of this program")
            )
        )
    if features != FEATURE_VERSION:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} was trained on feature version "
                f"{header.get('feature_version')}, this program computes "
                f"version {FEATURE_VERSION}"
            )
        )
    try:
        words = words_digest()
    except (OSError, ValueError) as err:
        raise ModelFileError(
            f"the visual vocabulary the model needs cannot be read: {err}"
        ) from None
    if header.get("words_sha256") != words:
        raise ModelFileError(
            _restore(
                f"the model file {model_path} was trained with another visual vocabulary "
                "than scorer/data/visual_words.npy"
            )
        )
    try:
        return _build(header, arrays)
    except KeyError as err:
        raise ModelFileError(_restore(_forged(model_path, f"it lacks {err}"))) from None
    except (TypeError, AttributeError) as err:
        what = f"its header is not laid out as this program writes it: {err}"
        raise ModelFileError(_restore(_forged(model_path, what))) from None
    except ValueError as err:
        raise ModelFileError(_restore(_forged(model_path, str(err)))) from None


def _forged(model_path: Path, what: str) -> str:
    """The reason for a model file whose sha256 matches its metadata but whose content is
    not what this program writes: forged with its metadata, or damaged before it was
    recorded.

    >>> _forged(Path("m.npz"), "it lacks 'settings'")
    "the model file m.npz is forged or damaged (it lacks 'settings')"
    """
    return f"the model file {model_path} is forged or damaged ({what})"


def _build(header: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> CellClassifier:
    """:func:`_from_archive` once the header names this format; ``ValueError`` if a part is off."""
    settings = header["settings"]
    if not isinstance(settings, dict) or set(settings) != set(_SETTINGS):
        raise ValueError("the settings are not those of a CellClassifier")
    if not all(v is None or isinstance(v, int | float | str) for v in settings.values()):
        raise ValueError("a setting is not a number or a word")
    weight = settings["blend_weight"]
    if not (isinstance(weight, int | float) and 0 <= weight < 1):
        raise ValueError(f"the blend weight {weight!r} is not in [0, 1)")
    classes, width = header["classes"], header["n_features"]
    if not (isinstance(classes, list) and 2 <= len(classes) == len(set(classes))):
        raise ValueError("the classes are not a list of distinct tokens")
    if not set(classes) <= set(TOKENS):
        raise ValueError(f"unknown cell tokens {sorted(set(classes) - set(TOKENS))}")
    if not (isinstance(width, int) and 0 < width <= 1 << 16):
        raise ValueError(f"the feature count {width!r} is not a positive whole number")
    entries, blend_entry = header["learners"], header["blend"]
    if not (isinstance(entries, list) and 1 <= len(entries) <= MAX_MEMBERS):
        raise ValueError(f"a model averages 1 to {MAX_MEMBERS} learners")
    named = {name.partition(".")[0] for name in arrays}
    used = {e["arrays"] for e in entries} | ({blend_entry["arrays"]} if blend_entry else set())
    if named != used or len(used) != len(entries) + (blend_entry is not None):
        raise ValueError("the arrays are not those its learners name")
    members = [_learner(e, arrays, width) for e in entries]
    blend = None if blend_entry is None else _learner(blend_entry, arrays, width)
    if isinstance(blend, FlatTrees):
        raise ValueError("the blended learner is not a dense one")
    if any(m.n_outputs != len(classes) for m in [*members, *([blend] if blend else [])]):
        raise ValueError("a learner does not give one probability per class")
    model = CellClassifier(**settings)
    model.estimators_ = members
    model.blend_ = blend
    model.classes_ = np.asarray(classes)
    model.n_features_in_ = width
    model.feature_version_ = int(header["feature_version"])
    model.words_sha256_ = str(header["words_sha256"])
    return model


def _learner(
    entry: Mapping[str, Any], arrays: Mapping[str, np.ndarray], width: int
) -> FlatTrees | Dense:
    prefix = entry["arrays"]
    own = {
        name.partition(".")[2]: array
        for name, array in arrays.items()
        if name.partition(".")[0] == prefix
    }
    if entry.get("type") == "trees":
        return FlatTrees.from_arrays(own, entry, width)
    if entry.get("type") == "dense":
        return Dense.from_arrays(own, entry, width)
    raise ValueError(f"unknown learner type {entry.get('type')!r}")


def _restore(reason: str) -> str:
    return f"{reason}. Restore it with `git checkout models/` or retrain with `make train`."
