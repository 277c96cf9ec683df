"""Measure how long recognition takes: a board, a photo, a cold start, a pile of photos.

``python -m scorer.bench`` times the classification of every square of a
rectified board (cutting, features, model, tile-set decoding) and prints the
median of each stage in milliseconds. The board is ``--board`` or, by default,
the first ``aau-boards`` image, else a synthetic board of random pixels (the
time hardly depends on what the squares show).

``--photo`` times a whole photo instead (:func:`scorer.lab.evaluate_photos.bench_main`);
``--startup`` the cold start of the command on one photo, step by step, and
``--batch N`` the command on N generated photos one by one and in its pool of
processes (both :mod:`scorer.lab.bench_commands`, in fresh processes). Each takes
its own options after it (``--startup --help``).

Each board or photo mode is a ``bench_*`` function that returns ``{stage: [seconds,
...]}`` and :func:`print_medians` prints any of them, so a new mode needs its own
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
    if mode.startup:
        from scorer.lab import bench_commands

        return bench_commands.startup_main(rest)
    if mode.batch is not None:
        from scorer.lab import bench_commands

        return bench_commands.batch_main(mode.batch, rest)
    args = _parser().parse_args(rest)
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


def _mode_parser() -> argparse.ArgumentParser:
    """Finds ``--photo``, ``--startup`` or ``--batch N`` anywhere on the line and leaves
    every other word, in order."""
    mode = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    mode.add_argument("--photo", action="store_true")
    mode.add_argument("--startup", action="store_true")
    mode.add_argument("--batch", type=int)
    return mode


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scorer.bench", description=__doc__)
    parser.add_argument(
        "--photo",
        action="store_true",
        help="time a whole photo instead, 12 megapixels by default "
        "(its own options then apply: --photo --help)",
    )
    parser.add_argument(
        "--startup",
        action="store_true",
        help="time the cold start of the command on one photo, step by step, in fresh "
        "processes (its own options then apply: --startup --help)",
    )
    parser.add_argument(
        "--batch",
        type=int,
        metavar="N",
        help="time the command on N generated photos, one by one and in its pool of "
        "processes (its own options then apply: --batch N --help)",
    )
    parser.add_argument("--board", help="a rectified board image (default: the sample board)")
    parser.add_argument("--grid", type=int, default=5, help="squares per side (5, or 7)")
    parser.add_argument("--repeat", type=int, default=30, help="timed runs")
    parser.add_argument("--model", help="model file (default: the committed model)")
    return parser


def bench_board(
    board: np.ndarray,
    shape: tuple[int, int],
    model: CellClassifier,
    repeat: int = 30,
) -> Timings:
    """Time each stage of classifying a rectified board ``repeat`` times (after one warm-up).

    Returns
    -------
    dict
        Seconds per run for ``split``, ``features``, ``model``, ``decode`` and
        ``total`` (one :func:`scorer.read.classify.classify_board` call).
    """
    classify_board(board, shape, model)
    stages = ["split", "features", "model", "decode", "total"]
    timings: Timings = {k: [] for k in stages}
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
    return timings


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
