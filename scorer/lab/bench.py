"""Measure how long recognition takes, after the model is loaded.

``python -m scorer.bench`` times the classification of every square of a
rectified board (cutting, features, model, tile-set decoding) and prints the
median of each stage in milliseconds. The board is ``--board`` or, by default,
the first ``aau-boards`` image, else a synthetic board of random pixels (the
time hardly depends on what the squares show).

With ``--sklearn-trees`` it also times the model stage through scikit-learn's own
``predict_proba`` of each learner, in turn with the model's flat trees
(:class:`scorer.read.classify._FlatTrees`), and prints what the flat trees save.
``--photo`` times a whole photo instead (:func:`scorer.lab.evaluate_photos.bench_main`).

Each mode is a ``bench_*`` function that returns ``{stage: [seconds, ...]}``
and :func:`print_medians` prints any of them, so a new mode needs its own
function and an option that :func:`main` dispatches on.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import cv2
import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from scorer.lab import datasets
from scorer.read.cells import cells_features, split_cells
from scorer.read.classify import CellClassifier, classify_board, load_model
from scorer.read.decoding import decode
from scorer.rules.kingdom import ALL_CELLS

TARGET_MS: Final = 100.0
"""The goal for classifying the squares of one rectified 5×5 board."""

Timings = dict[str, list[float]]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen benchmark and print the median time of each stage."""
    mode, rest = _mode_parser().parse_known_args(argv)
    if mode.photo:  # a 12-megapixel photo end to end
        from scorer.lab import evaluate_photos

        return evaluate_photos.bench_main(rest)
    args = _parser().parse_args(rest)
    model = load_model(args.model)
    image = _board_image(args.board, args.grid)
    timings = bench_board(
        image, (args.grid, args.grid), model, args.repeat, sklearn_trees=args.sklearn_trees
    )
    print_medians(
        f"rectified {args.grid}×{args.grid} board, {image.shape[1]}×{image.shape[0]} px", timings
    )
    total = statistics.median(timings["total"]) * 1000
    verdict = "meets" if total < TARGET_MS else "misses"
    print(f"median {total:.1f} ms per board: {verdict} the {TARGET_MS:.0f} ms target")
    if args.sklearn_trees:
        flat, plain = (statistics.median(timings[k]) * 1000 for k in ("model", "model_sklearn"))
        print(
            f"model: flat trees {flat:.1f} ms, scikit-learn's trees {plain:.1f} ms "
            f"({plain / flat:.2f} times as long); a board with scikit-learn's trees: "
            f"{total - flat + plain:.1f} ms"
        )
    return 0


def _mode_parser() -> argparse.ArgumentParser:
    """Finds ``--photo`` anywhere on the line and leaves every other word, in order."""
    mode = argparse.ArgumentParser(add_help=False)
    mode.add_argument("--photo", action="store_true")
    return mode


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scorer.bench", description=__doc__)
    parser.add_argument(
        "--photo",
        action="store_true",
        help="time a whole photo instead, 12 megapixels by default "
        "(its own options then apply: --photo --help)",
    )
    parser.add_argument("--board", help="a rectified board image (default: the sample board)")
    parser.add_argument("--grid", type=int, default=5, help="squares per side (5, or 7)")
    parser.add_argument("--repeat", type=int, default=30, help="timed runs")
    parser.add_argument("--model", help="model file (default: the committed model)")
    parser.add_argument(
        "--sklearn-trees",
        action="store_true",
        help="also time the model through scikit-learn's own predict_proba, in turn",
    )
    return parser


def bench_board(
    board: np.ndarray,
    shape: tuple[int, int],
    model: CellClassifier,
    repeat: int = 30,
    sklearn_trees: bool = False,
) -> Timings:
    """Time each stage of classifying a rectified board ``repeat`` times (after one warm-up).

    Returns
    -------
    dict
        Seconds per run for ``split``, ``features``, ``model``, ``decode`` and
        ``total`` (one :func:`scorer.read.classify.classify_board` call); with
        ``sklearn_trees``, also ``model_sklearn`` (:func:`sklearn_proba`), timed in
        the same run on the same features.
    """
    classify_board(board, shape, model)
    stages = ["split", "features", "model", "decode", "total"]
    timings: Timings = {k: [] for k in stages + ["model_sklearn"] * sklearn_trees}
    for _ in range(repeat):
        t0 = time.perf_counter()
        crops = split_cells(board, shape)
        t1 = time.perf_counter()
        features = cells_features(crops)
        t2 = time.perf_counter()
        proba = model.expand_proba(model.predict_proba(features))
        t3 = time.perf_counter()
        decode(proba, ALL_CELLS, shape)
        t4 = time.perf_counter()
        classify_board(board, shape, model)
        t5 = time.perf_counter()
        for key, value in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            timings[key].append(value)
        if sklearn_trees:
            t6 = time.perf_counter()
            sklearn_proba(model, features)
            timings["model_sklearn"].append(time.perf_counter() - t6)
    return timings


def sklearn_proba(model: CellClassifier, features: np.ndarray) -> np.ndarray:
    """What :meth:`scorer.read.classify.CellClassifier.predict_proba` computes, with
    scikit-learn's own ``predict_proba`` of each learner (one thread), in ``ALL_CELLS``
    order: the model stage without the flat trees."""
    rows = np.asarray(features, dtype=np.float32)
    with threadpool_limits(1):
        proba = np.mean([e.predict_proba(rows) for e in model.estimators_], axis=0)
        if model.blend_ is not None:
            other = model.blend_.predict_proba(rows)
            proba = (1 - model.blend_weight) * proba + model.blend_weight * other
    return model.expand_proba(np.asarray(proba))


def print_medians(title: str, timings: Timings) -> None:
    """Print one line per stage: its median and fastest time in milliseconds."""
    print(title)
    for stage, seconds in timings.items():
        median, best = statistics.median(seconds) * 1000, min(seconds) * 1000
        print(f"  {stage:<13} median {median:7.1f} ms   fastest {best:7.1f} ms")


def _board_image(path: str | None, grid: int) -> np.ndarray:
    candidates = [Path(path)] if path else []
    if not path:
        with contextlib.suppress(FileNotFoundError):
            candidates.append(datasets.data_dir() / "aau-boards" / "images" / "1.jpg")
    for candidate in candidates:
        image = cv2.imread(str(candidate), cv2.IMREAD_COLOR)
        if image is not None:
            return image
    if path:
        raise SystemExit(f"cannot read board image {path}")
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (grid * 100, grid * 100, 3), dtype=np.uint8)


if __name__ == "__main__":
    raise SystemExit(main())
