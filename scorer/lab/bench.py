"""Measure how long recognition takes, after the model is loaded.

``python -m scorer.bench`` times the classification of every square of a
rectified board (cutting, features, model, tile-set decoding) and prints the
median of each stage in milliseconds. The board is ``--board`` or, by default,
the first ``aau-boards`` image, else a synthetic board of random pixels (the
time hardly depends on what the squares show).

Each mode is a ``bench_*`` function that returns ``{stage: [seconds, ...]}``
and :func:`print_medians` prints any of them, so a new mode (an end-to-end
photo, say) needs its own function and a branch in :func:`main`.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import cv2
import numpy as np

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
    given = list(sys.argv[1:] if argv is None else argv)
    if "--photo" in given:  # a 12-megapixel photo end to end: scorer.lab.evaluate_photos
        from scorer.lab import evaluate_photos

        return evaluate_photos.bench_main([a for a in given if a != "--photo"])
    parser = argparse.ArgumentParser(prog="python -m scorer.bench", description=__doc__)
    parser.add_argument("--board", help="a rectified board image (default: the sample board)")
    parser.add_argument("--grid", type=int, default=5, help="squares per side (5, or 7)")
    parser.add_argument("--repeat", type=int, default=30, help="timed runs")
    parser.add_argument("--model", help="model file (default: the committed model)")
    args = parser.parse_args(argv)
    model = load_model(args.model)
    image = _board_image(args.board, args.grid)
    timings = bench_board(image, (args.grid, args.grid), model, args.repeat)
    print_medians(
        f"rectified {args.grid}×{args.grid} board, {image.shape[1]}×{image.shape[0]} px", timings
    )
    total = statistics.median(timings["total"]) * 1000
    verdict = "meets" if total < TARGET_MS else "misses"
    print(f"median {total:.1f} ms per board: {verdict} the {TARGET_MS:.0f} ms target")
    return 0


def bench_board(
    board: np.ndarray, shape: tuple[int, int], model: CellClassifier, repeat: int = 30
) -> Timings:
    """Time each stage of classifying a rectified board ``repeat`` times (after one warm-up).

    Returns
    -------
    dict
        Seconds per run for ``split``, ``features``, ``model``, ``decode`` and
        ``total`` (one :func:`scorer.read.classify.classify_board` call).
    """
    classify_board(board, shape, model)
    timings: Timings = {k: [] for k in ("split", "features", "model", "decode", "total")}
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
        for key, value in zip(timings, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            timings[key].append(value)
    return timings


def print_medians(title: str, timings: Timings) -> None:
    """Print one line per stage: its median and fastest time in milliseconds."""
    print(title)
    for stage, seconds in timings.items():
        median, best = statistics.median(seconds) * 1000, min(seconds) * 1000
        print(f"  {stage:<10} median {median:7.1f} ms   fastest {best:7.1f} ms")


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
