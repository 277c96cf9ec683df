"""Record what the pipeline reads on a fixed corpus, to show a refactoring changed nothing.

The corpus is the sample photo, every ``mighty-duel`` photo and seeded synthetic scenes of
each table family. For every input the snapshot holds the corners, grids, probabilities
(rounded to 1e-9), doubtful squares, notes and score of each kingdom found, or the error.

    python -m scorer.lab.snapshot --out before.jsonl
    python -m scorer.lab.snapshot --out after.jsonl
    python -m scorer.lab.snapshot --compare before.jsonl after.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

_SAMPLE = Path(__file__).resolve().parents[2] / "sample_images" / "sample_board.jpg"
_DECIMALS = 9


def main(argv: Sequence[str] | None = None) -> int:
    """Write a snapshot, or compare two."""
    args = _parser().parse_args(argv)
    if args.compare:
        return _compare(Path(args.compare[0]), Path(args.compare[1]))
    jobs = list(_inputs(args.data, args.per_family, args.seed))
    with ProcessPoolExecutor(args.jobs) as pool, open(args.out, "w", encoding="utf-8") as out:
        for line in pool.map(_record, jobs, chunksize=4):
            out.write(json.dumps(line, sort_keys=True) + "\n")
    print(f"{len(jobs)} inputs written to {args.out}")
    return 0


def _inputs(data: str | None, per_family: int, seed: int) -> Iterator[tuple[str, Any]]:
    from scorer.lab.datasets import data_dir
    from scorer.lab.synth import BACKGROUNDS

    yield ("photo", str(_SAMPLE))
    root = data_dir(data)
    for path in sorted((root / "mighty-duel" / "photos").glob("*.jpg")):
        yield ("photo", str(path))
    for k, family in enumerate(BACKGROUNDS):
        for i in range(per_family):
            yield ("scene", (str(root), family, seed + k * 10_000 + i))


_BOARDS: dict[str, Any] = {}


def _record(job: tuple[str, Any]) -> dict[str, Any]:
    from scorer.photo.imageio import load_image
    from scorer.pipeline import score_photo
    from scorer.rules.errors import ScorerError

    kind, what = job
    if kind == "photo":
        name = Path(what).name
        image = load_image(what)
    else:
        from scorer.lab.datasets import load_aau_boards
        from scorer.lab.synth import make_scene

        root, family, seed = what
        boards = _BOARDS.setdefault(root, load_aau_boards(Path(root)))
        name = f"{family}/{seed}"
        image = make_scene(seed, boards, background=family).image
    try:
        report = score_photo(image)
    except ScorerError as err:
        return {"input": name, "error": f"{type(err).__name__}: {err}"}
    return {"input": name, "kingdoms": [_kingdom(k) for k in report.kingdoms]}


def _kingdom(report: Any) -> dict[str, Any]:
    prediction = report.prediction
    return {
        "corners": np.round(np.asarray(report.location.corners, float), _DECIMALS).tolist(),
        "shape": list(report.location.shape),
        "grid": prediction.kingdom.format(),
        "probabilities": np.round(prediction.probabilities, _DECIMALS).tolist(),
        "doubtful": sorted(list(p) for p in prediction.doubtful),
        "notes": list(report.warnings),
        "total": report.score.total,
    }


def _compare(a: Path, b: Path) -> int:
    left = a.read_text(encoding="utf-8").splitlines()
    right = b.read_text(encoding="utf-8").splitlines()
    differ = [json.loads(x)["input"] for x, y in zip(left, right, strict=False) if x != y]
    if len(left) != len(right):
        print(f"{a}: {len(left)} inputs, {b}: {len(right)}")
    print(f"{len(left)} inputs compared, {len(differ)} differ")
    for name in differ[:20]:
        print(f"  differs: {name}")
    return 1 if differ or len(left) != len(right) else 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m scorer.lab.snapshot", description=__doc__)
    p.add_argument("--out", default="snapshot.jsonl", help="file to write (JSON lines)")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two files")
    p.add_argument("--data", help="labelled data folder (default ../shared/data)")
    p.add_argument("--per-family", type=int, default=200, help="scenes per table family")
    p.add_argument("--seed", type=int, default=90_000, help="first scene seed")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    return p


if __name__ == "__main__":
    sys.exit(main())
