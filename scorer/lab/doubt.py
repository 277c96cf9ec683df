"""Count the squares flagged for the player, the false alarms among them, and the verdicts.

A flag is a *false alarm* when the square flagged was read right. Real photos: the 57
``aau-boards`` images (read as photos) and the five ``mighty-duel`` photos with the sample
(``game1`` and the sample are labelled); synthetic scenes: the snapshot's families
(:mod:`scorer.lab.snapshot`), each kingdom matched to the true one nearest its centre.
Grids are compared over the four turns. The committed model reads everything, so the
real-photo figures are not held out.

    python -m scorer.lab.doubt --scenes 10
    python -m scorer.lab.doubt --scenes 10 --castle-rule old
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scorer.rules.kingdom import CASTLE, Kingdom, Position
from scorer.rules.scoring import score

_SAMPLE = Path(__file__).resolve().parents[2] / "sample_images" / "sample_board.jpg"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the counts as JSON, one group of inputs after another."""
    args = _parser().parse_args(argv)
    if args.castle_rule == "old":
        _use_old_castle_rule()
    from scorer.lab.datasets import data_dir

    counts = measure(data_dir(args.data), args.scenes)
    print(json.dumps(counts, indent=1, ensure_ascii=False))
    return 0


def measure(root: Path, scenes: int) -> dict[str, dict[str, int]]:
    """The counts per group: ``aau``, ``duel`` and ``scenes``."""
    from scorer.pipeline import score_photo

    counts: dict[str, Counter[str]] = {}
    for group, image, truths in _inputs(root, scenes):
        tally = counts.setdefault(group, Counter())
        try:
            report = score_photo(image)
        except Exception as err:  # a failure is counted, not fatal: this is a measurement
            tally[f"error: {type(err).__name__}"] += 1
            continue
        for found in report.kingdoms:
            _count(tally, found, _nearest(found, truths))
    return {group: dict(sorted(tally.items())) for group, tally in counts.items()}


def _inputs(root: Path, scenes: int) -> Iterator[tuple[str, np.ndarray, list[Any]]]:
    """``(group, image, [(centre, true kingdom)…])``; no truths for an unlabelled photo."""
    from scorer.lab.datasets import load_aau_boards
    from scorer.lab.synth import BACKGROUNDS, make_scene
    from scorer.photo.imageio import load_image

    aau = root / "aau-boards"
    for path in sorted((aau / "images").glob("*.jpg"), key=lambda p: int(p.stem)):
        truth = Kingdom.parse((aau / "labels" / f"{path.stem}.txt").read_text(encoding="utf-8"))
        yield "aau", load_image(path), [(None, truth)]
    duel = root / "mighty-duel"
    game1 = Kingdom.parse((duel / "labels" / "game1.txt").read_text(encoding="utf-8"))
    for path in [*sorted((duel / "photos").glob("*.jpg")), _SAMPLE]:
        labelled = path.stem == "game1" or path == _SAMPLE
        yield "duel", load_image(path), [(None, game1)] if labelled else []
    boards = load_aau_boards(root)
    for k, family in enumerate(BACKGROUNDS):
        for i in range(scenes):
            scene = make_scene(
                90_000 + k * 10_000 + i, boards, background=family, whole_dominoes=True
            )
            truths = [(np.asarray(t.corners).mean(axis=0), t.kingdom) for t in scene.kingdoms]
            yield "scenes", scene.image, truths


def _nearest(found: Any, truths: list[Any]) -> Kingdom | None:
    if not truths:
        return None
    centre = np.asarray(found.location.corners).mean(axis=0)
    far = [0.0 if c is None else float(np.linalg.norm(centre - c)) for c, _ in truths]
    kingdom: Kingdom = truths[int(np.argmin(far))][1]
    return kingdom


def _count(tally: Counter[str], found: Any, truth: Kingdom | None) -> None:
    kingdom = found.kingdom
    tally["kingdoms"] += 1
    tally["flags"] += len(found.doubtful)
    tally["castle flags"] += sum(kingdom[p] == CASTLE for p in found.doubtful)
    tally["unconfirmed"] += not found.confirmed
    for reason in found.reasons:
        tally[f"reason: {reason.split(',')[0].split(' (')[0]}"] += 1
    if truth is None:
        return
    tally["labelled kingdoms"] += 1
    turned = _turned_to(kingdom, truth, found.doubtful)
    if turned is None:
        tally["read with the wrong grid"] += 1
        tally["flags in those"] += len(found.doubtful)
        right_total = False
    else:
        read, flags = turned
        for pos, cell in read.cells():
            if flags[pos] and truth[pos] == cell:
                tally["false alarms"] += 1
                tally["castle false alarms"] += cell == CASTLE
            elif flags[pos]:
                tally["flags on squares read wrong"] += 1
            elif truth[pos] != cell:
                tally["squares read wrong, not flagged"] += 1
        right_total = score(read).total == score(truth).total
    tally["total wrong"] += not right_total
    tally["total wrong but confirmed"] += not right_total and found.confirmed


def _turned_to(
    kingdom: Kingdom, truth: Kingdom, doubtful: frozenset[tuple[int, int]]
) -> tuple[Kingdom, np.ndarray] | None:
    """The reading and its flags turned to agree best with the truth; None if no turn fits."""
    flags = np.zeros(kingdom.shape, bool)
    for pos in doubtful:
        flags[pos] = True
    best: tuple[int, Kingdom, np.ndarray] | None = None
    for _ in range(4):
        if kingdom.shape == truth.shape:
            right = sum(
                a == b for (_, a), (_, b) in zip(kingdom.cells(), truth.cells(), strict=True)
            )
            if best is None or right > best[0]:
                best = (right, kingdom, flags)
        kingdom, flags = kingdom.rotate(), np.rot90(flags, -1)
    return None if best is None else (best[1], best[2])


def _use_old_castle_rule() -> None:
    """Flag squares as before 2026-12-05 (issue 33): the castle too when under the threshold."""
    from scorer.read import classify, corrections, unreadable
    from scorer.rules.kingdom import ALL_CELLS

    def old(
        kingdom: Kingdom,
        confidence: np.ndarray,
        probabilities: np.ndarray,
        *,
        doubt_below: float = classify.DOUBT_THRESHOLD,
    ) -> frozenset[Position]:
        best = probabilities.argmax(axis=-1)
        return frozenset(
            pos
            for pos, cell in kingdom.cells()
            if confidence[pos] < doubt_below or ALL_CELLS[best[pos]] != cell
        )

    classify.doubtful_squares = old
    corrections.doubtful_squares = old  # type: ignore[attr-defined]  # imported by name there
    unreadable.doubtful_squares = old  # type: ignore[attr-defined]  # and there


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m scorer.lab.doubt", description=__doc__)
    p.add_argument("--data", help="labelled data folder (default ../shared/data)")
    p.add_argument("--scenes", type=int, default=10, help="synthetic scenes per table family")
    p.add_argument(
        "--castle-rule",
        choices=("new", "old"),
        default="new",
        help="old: flag the castle square under the doubt threshold, as before issue 33",
    )
    return p


if __name__ == "__main__":
    sys.exit(main())
