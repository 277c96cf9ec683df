"""Convert a model saved with ``skops`` (before the plain-array format) without retraining.

    git show 3e303ed:models/cell_classifier.skops > /tmp/old/cell_classifier.skops
    git show 3e303ed:models/model.json > /tmp/old/model.json
    python -m scorer.lab.export_model /tmp/old/cell_classifier.skops --out models/

The old file is checked against the sha256 in its ``model.json``, opened with
``skops`` trusting only the types the old loader trusted (``pip install skops``:
the program itself no longer needs it), and written with
:func:`scorer.read.classify.save_model` beside the old metadata (its figures kept,
its format, file name, size and sha256 replaced). The new file is then loaded as a
player's program loads it and must give the very same probabilities as the old
model on every row tried, bit for bit: the squares of the ``aau-boards`` (else the
test fixtures) and random rows near them, in batches of one board (the size the
pipeline reads). Nothing is written when they differ.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from scorer.lab import datasets
from scorer.read import classify
from scorer.read.cells import cells_features

TRUSTED_TYPES: Final = frozenset(
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
"""The types the ``skops`` loader trusted; a file holding any other is refused."""

BOARD: Final = 49
"""Rows per batch when comparing: a 7×7 board, what the pipeline reads at once."""

_REPLACED: Final = ("model_file", "sha256", "size_bytes")  # the format is rewritten in place
_FIXTURES: Final = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "cells"


def main(argv: Sequence[str] | None = None) -> int:
    """Convert, compare and write; 1 when the probabilities differ or the file is refused."""
    args = _parser().parse_args(argv)
    source = Path(args.source)
    metadata = classify.read_metadata(source.parent)
    if classify.file_sha256(source) != metadata.get("sha256"):
        print(f"error: {source} does not match the sha256 in its model.json", file=sys.stderr)
        return 1
    old = load_skops(source)
    rows = comparison_rows(old.n_features_in_, args.data)
    with tempfile.TemporaryDirectory() as tmp:
        kept = {k: v for k, v in metadata.items() if k not in _REPLACED}
        classify.save_model(old, tmp, kept)
        new = classify.load_model(tmp)
        differ = compare(old, new, rows)
        if differ:
            print(f"error: {differ}; nothing written", file=sys.stderr)
            return 1
        written = classify.save_model(new, args.out, kept)
    path = Path(args.out) / written["model_file"]
    print(
        f"{len(rows)} rows: the same probabilities, bit for bit, in batches of {BOARD}; "
        f"all {len(rows)} at once they differ by up to {whole_batch_difference(old, new, rows):.3g}"
        f"\nwrote {path} ({written['size_bytes'] / 1e6:.1f} MB, "
        f"sha256 {written['sha256'][:12]}…) and its model.json"
    )
    return 0


def load_skops(path: Path) -> classify.CellClassifier:
    """The classifier in an old ``skops`` file, trusting only :data:`TRUSTED_TYPES`."""
    try:
        import skops.io
    except ImportError:
        raise SystemExit("converting an old model needs skops: pip install 'skops<1'") from None
    untrusted = set(skops.io.get_untrusted_types(file=path))
    refused = sorted(untrusted - TRUSTED_TYPES)
    if refused:
        raise SystemExit(f"{path} holds untrusted types: {refused}")
    model = skops.io.load(path, trusted=sorted(untrusted))
    if not isinstance(model, classify.CellClassifier) or not hasattr(model, "estimators_"):
        raise SystemExit(f"{path} holds a {type(model).__name__}, not a fitted CellClassifier")
    return model


def comparison_rows(width: int, data: str | None = None) -> np.ndarray:
    """Feature rows to compare on: real squares, and random rows near them."""
    try:
        boards = datasets.load_aau_boards(datasets.data_dir(data))
        crops = [t.image for b in boards for t in datasets.board_tiles(b)]
    except FileNotFoundError:
        paths = sorted(_FIXTURES.glob("*.jpg"))
        crops = [np.asarray(cv2.imread(str(p), cv2.IMREAD_COLOR)) for p in paths]
    real = cells_features(crops)
    rng = np.random.default_rng(0)
    noise = (real[rng.integers(0, len(real), 200)] * rng.normal(1, 0.3, (200, width))).astype(
        np.float32
    )
    return np.concatenate([real, noise])


def compare(old: Any, new: classify.CellClassifier, rows: np.ndarray) -> str:
    """``""`` when both give the same probabilities bit for bit in batches of one
    board, else what differs."""
    if list(old.classes_) != list(new.classes_):
        return "the classes differ"
    pieces = range(0, len(rows), BOARD)
    before = np.concatenate([old.predict_proba(rows[i : i + BOARD]) for i in pieces])
    after = np.concatenate([new.predict_proba(rows[i : i + BOARD]) for i in pieces])
    if not np.array_equal(before, after):
        return f"board batches differ by up to {np.abs(before - after).max():.3g}"
    return ""


def whole_batch_difference(old: Any, new: classify.CellClassifier, rows: np.ndarray) -> float:
    """The largest difference of the two models' probabilities on ``rows`` at once.

    Beyond 256 rows the old model's boosted trees were scikit-learn's own
    ``predict_proba`` (which adds the trees in another order) and the new model's are
    :class:`scorer.read.learners.FlatTrees`; the pipeline never reads so many at once.
    """
    return float(np.abs(old.predict_proba(rows) - new.predict_proba(rows)).max())


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m scorer.lab.export_model", description=__doc__)
    p.add_argument("source", help="the old cell_classifier.skops, its model.json beside it")
    p.add_argument("--out", default=str(classify.MODEL_DIR), help="folder to write (models/)")
    p.add_argument("--data", help="labelled data folder, for the squares compared on")
    return p


if __name__ == "__main__":
    sys.exit(main())
