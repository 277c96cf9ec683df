"""Measure the terrain colours under the training light, the target of the light fit.

``python -m scorer.lab.colours`` reads every labelled rectified board (the ``aau``
boards and the labelled ``mighty-duel`` board), takes the log mean colour of the middle
of each square (:func:`scorer.read.light.square_colours`) and writes, per terrain and
for the castle, the median over its squares to ``scorer/data/terrain_colours.csv``
(:data:`scorer.read.light.COLOURS_FILE`), with the median square of all the kingdoms
for the fit's grey-world start (a last row named ``median``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scorer.lab.datasets import Board, data_dir, load_aau_boards, load_duel_boards
from scorer.read.light import COLOURS_FILE, MEDIAN_ROW, parse_colours, square_colours
from scorer.rules.kingdom import EMPTY, Terrain

_OUT = Path(__file__).resolve().parents[1] / "data" / COLOURS_FILE


def terrain_colours_of(boards: Sequence[Board]) -> dict[str, Any]:
    """The content of the terrain colours file, measured on labelled boards.

    Parameters
    ----------
    boards : sequence of Board

    Returns
    -------
    dict
        ``names``, ``log_bgr`` and ``median_log_bgr``, as
        :func:`scorer.read.light.parse_colours` reads them.
    """
    colours: dict[Terrain, list[np.ndarray]] = {}
    squares = []
    for board in boards:
        found = square_colours(board.image, board.kingdom.shape)
        for (_, cell), colour in zip(board.kingdom.cells(), found, strict=True):
            if cell != EMPTY:
                colours.setdefault(cell.terrain, []).append(colour)
                squares.append(colour)
    names = sorted(colours, key=lambda t: t.value)
    return {
        "names": [t.value for t in names],
        "log_bgr": [np.median(colours[t], axis=0).round(4).tolist() for t in names],
        "median_log_bgr": np.median(squares, axis=0).round(4).tolist(),
        "squares": {t.value: len(colours[t]) for t in names},
    }


def colours_csv(data: dict[str, Any]) -> str:
    """The terrain colours as the CSV text :func:`scorer.read.light.colours_table` reads."""
    lines = ["name,log_blue,log_green,log_red,squares"]
    for name, colour in zip(data["names"], data["log_bgr"], strict=True):
        lines.append(",".join([name, *(f"{v:.4f}" for v in colour), str(data["squares"][name])]))
    total = sum(data["squares"].values())
    lines.append(",".join([MEDIAN_ROW, *(f"{v:.4f}" for v in data["median_log_bgr"]), str(total)]))
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the terrain colours and write them."""
    p = argparse.ArgumentParser(prog="python -m scorer.lab.colours", description=__doc__)
    p.add_argument("--data", default=None, help="labelled data folder (default ../shared/data)")
    p.add_argument("--out", default=str(_OUT), help="file to write")
    args = p.parse_args(argv)
    root = data_dir(args.data)
    data = terrain_colours_of([*load_aau_boards(root), *load_duel_boards(root)])
    parse_colours(data)
    Path(args.out).write_text(colours_csv(data), encoding="utf-8")
    print(f"wrote {args.out}: {', '.join(data['names'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
