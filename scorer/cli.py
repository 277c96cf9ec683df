"""The command line: ``kingdomino-score`` and ``python -m scorer``.

Each input is scored on its own: a ``.txt`` file is a text grid, any other
file a photo. An input that fails prints one line on stderr (and sets its
``error`` in ``--json``) without affecting the others; the exit code is 1 when
any input failed, 2 for a usage error.

``--rank`` ranks the scored kingdoms as players named by file stem (a photo
with several kingdoms gives players ``stem#1``, ``stem#2``…). ``--dynasty``
takes the inputs in consecutive groups of three, one group per player, named
by what the three file stems share (``anna-1.txt anna-2.txt anna-3.txt`` is
``anna``), and ranks them by the sum of the three games.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from scorer.results.report import (
    JSONDict,
    format_breakdown,
    format_ranking,
    kingdom_result,
    photo_kingdom_result,
    ranking_dict,
)
from scorer.rules.errors import ScorerError
from scorer.rules.kingdom import DUEL_SIZE, STANDARD_SIZE, Kingdom
from scorer.rules.scoring import (
    CROWNS_FIRST_NAME,
    DYNASTY_GAMES,
    Player,
    Rules,
    TieBreakOrder,
    rank,
)

TEXT_SUFFIX = ".txt"
EXIT_OK = 0
EXIT_FAILED = 1

Corners = tuple[tuple[float, float], ...]


class InputError(ScorerError):
    """An input the command line cannot score, with a one-line reason."""


def main(argv: Sequence[str] | None = None) -> int:
    """Score the files named in ``argv`` and print the results; return the exit code."""
    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    results = [_score_input(path, args, rules) for path in args.inputs]
    for r in results:
        if r["error"] is not None:
            print(f"{r['input']}: {r['error']}", file=sys.stderr)
    ranking_data, ranking_text, ranking_error = None, "", None
    if args.rank or args.dynasty:
        try:
            ranking = rank(_players(results, args.dynasty), rules)
        except ValueError as err:
            ranking_error = f"cannot rank: {err}"
            print(ranking_error, file=sys.stderr)
        else:
            ranking_data, ranking_text = ranking_dict(ranking), format_ranking(ranking)
    if args.json:
        _print_json(results, ranking_data, ranking_error, sys.stdout)
    else:
        _print_text(results, rules, ranking_text, sys.stdout)
    failed = ranking_error is not None or any(r["error"] is not None for r in results)
    return EXIT_FAILED if failed else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``kingdomino-score``."""
    parser = argparse.ArgumentParser(
        prog="kingdomino-score",
        description="Score finished Kingdomino kingdoms from text grids or photos.",
        epilog="A .txt file is a text grid (tokens W0…M3, C and .); any other file is a photo.",
    )
    parser.add_argument("inputs", nargs="+", metavar="FILE", help="text grids or photos")
    parser.add_argument("--harmony", action="store_true", help="Harmony bonus: +5 when complete")
    parser.add_argument(
        "--middle-kingdom",
        action="store_true",
        help="Middle Kingdom bonus: +10 when the castle is in the centre",
    )
    parser.add_argument(
        "--crowns-first",
        action="store_true",
        help=f'house rule "{CROWNS_FIRST_NAME}" for ties',
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--rank", action="store_true", help="rank the kingdoms as players named by file stem"
    )
    parser.add_argument(
        "--dynasty",
        action="store_true",
        help=f"rank players by the sum of {DYNASTY_GAMES} games: the files in groups of "
        f"{DYNASTY_GAMES}, one group per player (implies --rank)",
    )
    parser.add_argument(
        "--grid",
        type=int,
        choices=(STANDARD_SIZE, DUEL_SIZE),
        help=f"kingdom side: {STANDARD_SIZE}, or {DUEL_SIZE} for Mighty Duel "
        "(default: from the grid, or found in the photo)",
    )
    parser.add_argument(
        "--corners",
        type=parse_corners,
        metavar="x1,y1,...,x4,y4",
        help="the kingdom's four corners in a photo, in pixels",
    )
    return parser


def rules_from_args(args: argparse.Namespace) -> Rules:
    """Return the rules chosen by the flags."""
    order = TieBreakOrder.CROWNS_FIRST if args.crowns_first else TieBreakOrder.OFFICIAL
    return Rules(
        harmony=args.harmony, middle_kingdom=args.middle_kingdom, tiebreak=order, side=args.grid
    )


def parse_corners(text: str) -> Corners:
    """Read ``x1,y1,...,x4,y4`` into four ``(x, y)`` points.

    >>> parse_corners("0,0, 10,0, 10,10, 0,10")
    ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    """
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"corners must be numbers: {text!r}") from None
    if len(values) != 8:
        raise argparse.ArgumentTypeError(f"corners need 8 numbers (4 points), got {len(values)}")
    return tuple((values[i], values[i + 1]) for i in range(0, 8, 2))


def _score_input(path: str, args: argparse.Namespace, rules: Rules) -> JSONDict:
    """Score one input; a failure becomes its ``error`` message."""
    result: JSONDict = {"input": path, "error": None, "kingdoms": []}
    try:
        if Path(path).suffix.lower() == TEXT_SUFFIX:
            result["kingdoms"] = [kingdom_result(_read_grid(Path(path)), rules)]
        else:
            result["kingdoms"] = _score_image_file(Path(path), args)
    except (ScorerError, OSError, ValueError) as err:
        result["error"] = _message(err)
    return result


def _read_grid(path: Path) -> Kingdom:
    # utf-8-sig: editors such as Notepad start the file with a byte-order mark.
    return Kingdom.parse(path.read_text(encoding="utf-8-sig"))


def _score_image_file(path: Path, args: argparse.Namespace) -> list[JSONDict]:
    """Score the kingdoms in a photo (:func:`~scorer.results.report.photo_kingdom_result`)."""
    try:
        imageio: Any = importlib.import_module("scorer.photo.imageio")
        pipeline: Any = importlib.import_module("scorer.pipeline")
    except ImportError as err:
        raise InputError(f"photo input needs scorer.pipeline ({err})") from None
    rules = rules_from_args(args)
    image = imageio.load_image(path)
    photo = pipeline.score_photo(image, rules, grid=args.grid, corners=args.corners)
    return [photo_kingdom_result(found, rules) for found in photo.kingdoms]


def _message(err: BaseException) -> str:
    if isinstance(err, FileNotFoundError):
        return "no such file"
    if isinstance(err, IsADirectoryError):
        return "is a directory, not a file"
    if isinstance(err, PermissionError):
        return "permission denied"
    if isinstance(err, UnicodeDecodeError):
        return "not a text grid: the file is not UTF-8 text"
    if isinstance(err, OSError):
        return err.strerror or str(err)
    return str(err) or type(err).__name__


def _players(results: Sequence[JSONDict], dynasty: bool) -> list[Player]:
    """Turn the scored inputs into players; failed inputs take no part."""
    if dynasty:
        return _dynasty_players(results)
    names = _unique_names([r["input"] for r in results])
    players = []
    for name, r in zip(names, results, strict=True):
        kingdoms = _kingdoms(r)
        for i, k in enumerate(kingdoms, start=1):
            label = name if len(kingdoms) == 1 else f"{name}#{i}"
            players.append(Player(label, (k,)))
    return players


def _dynasty_players(results: Sequence[JSONDict]) -> list[Player]:
    if len(results) % DYNASTY_GAMES:
        raise ValueError(
            f"a Dynasty needs the files in groups of {DYNASTY_GAMES}, one per player; "
            f"got {len(results)} files"
        )
    groups = [results[i : i + DYNASTY_GAMES] for i in range(0, len(results), DYNASTY_GAMES)]
    players = []
    for group in groups:
        kingdoms = [k for r in group for k in _kingdoms(r)]
        name = _group_name([r["input"] for r in group])
        if len(kingdoms) != DYNASTY_GAMES:
            raise ValueError(f"{name} needs {DYNASTY_GAMES} scored kingdoms, got {len(kingdoms)}")
        players.append(Player(name, tuple(kingdoms)))
    return players


def _kingdoms(result: JSONDict) -> list[Kingdom]:
    if result["error"] is not None:
        return []
    return [Kingdom.parse("\n".join(k["grid"])) for k in result["kingdoms"]]


def _unique_names(paths: Sequence[str]) -> list[str]:
    stems = [Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else p for s, p in zip(stems, paths, strict=True)]


def _group_name(paths: Sequence[str]) -> str:
    """What the file stems share, without trailing separators; else the first stem."""
    stems = [Path(p).stem for p in paths]
    shared = ""
    for letters in zip(*stems, strict=False):
        if len(set(letters)) > 1:
            break
        shared += letters[0]
    return shared.rstrip("-_ .0123456789") or stems[0]


def _print_json(
    results: Sequence[JSONDict], ranking: JSONDict | None, error: str | None, out: TextIO
) -> None:
    data: JSONDict = {"results": list(results)}
    if ranking is not None:
        data["ranking"] = ranking
    elif error is not None:
        data["ranking"] = {"error": error}
    json.dump(data, out, indent=2, ensure_ascii=False)
    out.write("\n")


def _print_text(results: Sequence[JSONDict], rules: Rules, ranking: str, out: TextIO) -> None:
    blocks = []
    for r in results:
        if r["error"] is not None:
            blocks.append(f"== {r['input']}\nerror: {r['error']}")
            continue
        for i, k in enumerate(r["kingdoms"], start=1):
            title = r["input"] if len(r["kingdoms"]) == 1 else f"{r['input']} (kingdom {i})"
            kingdom = Kingdom.parse("\n".join(k["grid"]))
            notes = "".join(f"\nnote: {n}" for n in k.get("notes", []))
            blocks.append(f"== {title}\n{format_breakdown(kingdom, rules)}{notes}")
        if not r["kingdoms"]:
            blocks.append(f"== {r['input']}\nno kingdom found")
    if ranking:
        blocks.append(ranking)
    out.write("\n\n".join(blocks) + "\n")
