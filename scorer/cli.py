"""The command line: ``kingdomino-score`` and ``python -m scorer``.

Each input is scored on its own: a ``.txt`` file is a text grid, any other
file a photo. An input that fails prints one line on stderr (and sets its
``error`` in ``--json``) without affecting the others; the exit code is 1 when
any input failed, 2 for a usage error.

``--rank`` ranks the scored kingdoms as players named by file stem (a photo
with several kingdoms gives players ``stem#1``, ``stem#2``…). ``--dynasty``
ranks players by the sum of three games: each file is a game of the player
named before the last ``-`` or ``_`` of its name (``anna-1.txt``, ``ben_3.jpg``),
or ``--player NAME FILE FILE FILE`` names the player's three files. Files that
do not group into three games a player are refused, with the grouping read.

``--lang de`` (or ``sv``, ``en``) chooses the language of the readable output and of the
messages inside ``--json`` (whose keys and codes stay English); without it, ``LC_ALL``,
``LC_MESSAGES`` or ``LANG`` decides, as for any program.

The output survives where it goes: characters its encoding lacks are replaced,
a reader that stops early (``| head``) ends the program quietly, and a write that
fails (a full disk, a closed output) is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import importlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, TextIO

from scorer import i18n
from scorer.batch import PARALLEL_MIN, score_inputs
from scorer.files import amounts, read_limited
from scorer.results.report import (
    JSONDict,
    format_breakdown,
    format_ranking,
    kingdom_result,
    photo_kingdom_result,
    ranking_dict,
)
from scorer.rules.errors import ScorerError
from scorer.rules.kingdom import DUEL_SIZE, KINGDOM_SIDES, STANDARD_SIZE, Kingdom
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
EXIT_BROKEN_PIPE: Final = 128 + signal.SIGPIPE
"""The exit code when the reader of the output stopped early, as a tool killed by SIGPIPE."""

MAX_GRID_BYTES: Final = 64 * 1024
"""The largest text grid read: a 7×7 grid with comments is a few hundred bytes."""

_WRITE_ERRORS: Final = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EIO", "EBADF", "EDQUOT", "EFBIG", "EROFS", "EPIPE")
    if hasattr(errno, name)
)
"""The errors of a write to the output that end the program with one line."""

Corners = tuple[tuple[float, float], ...]


class InputError(ScorerError):
    """An input the command line cannot score, with a one-line reason."""


def main(argv: Sequence[str] | None = None) -> int:
    """Score the files named in ``argv`` and print the results; return the exit code.

    Characters the output's encoding lacks are replaced; a reader that stops early ends
    the program quietly (:data:`EXIT_BROKEN_PIPE`); a write that fails is one line on
    stderr and :data:`EXIT_FAILED`.
    """
    with i18n.using(chosen_language(argv)):
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    """:func:`main`, in the language chosen."""
    if sys.stdout is None:  # started with standard output closed (>&-)
        return _output_failed(i18n._("standard output is closed"))
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    try:
        code = _run(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_output()
        return EXIT_BROKEN_PIPE
    except OSError as err:
        if err.errno not in _WRITE_ERRORS:
            raise
        _discard_output()
        return _output_failed(err.strerror or str(err))
    return code


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main`, less the care of the output."""
    args = parse_args(argv)
    rules = rules_from_args(args)
    score_one = functools.partial(_score_input, args=args, rules=rules)
    results = score_inputs(args.inputs, score_one, args.jobs)
    for r in results:
        if r["error"] is not None:
            print(f"{r['input']}: {r['error']}", file=sys.stderr)
    ranking_data, ranking_text, ranking_error = None, "", None
    if args.rank or args.dynasty:
        try:
            ranking = rank(_players(results, args), rules)
        except ValueError as err:
            ranking_error = i18n._("cannot rank: {reason}", reason=i18n.message(err))
            print(ranking_error, file=sys.stderr)
        else:
            ranking_data, ranking_text = ranking_dict(ranking), format_ranking(ranking)
    if args.json:
        _print_json(results, ranking_data, ranking_error, sys.stdout)
    else:
        _print_text(results, rules, ranking_text, sys.stdout)
    failed = ranking_error is not None or any(r["error"] is not None for r in results)
    return EXIT_FAILED if failed else EXIT_OK


def _output_failed(reason: str) -> int:
    """Say on stderr, in one line, that the results could not be written."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(
                i18n._("kingdomino-score: cannot write the results: {reason}", reason=reason),
                file=sys.stderr,
            )
    return EXIT_FAILED


def _discard_output() -> None:
    """Send what is left in the output's buffer nowhere, so the exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no file behind it (a test's capture)
        pass


def chosen_language(argv: Sequence[str] | None = None) -> str:
    """The language asked for: ``--lang``, else the environment (``LC_ALL``, ``LANG``…).

    >>> chosen_language(["--lang", "sv", "a.txt"]), chosen_language(["--lang=de_CH"])
    ('sv', 'de')
    """
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang")
    known, _rest = early.parse_known_args(sys.argv[1:] if argv is None else argv)
    if known.lang:
        return i18n.match([known.lang]) or i18n.DEFAULT
    return i18n.from_environment()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Read the command line; ``--player`` gives the files and implies ``--dynasty``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.lang = i18n.language()  # the language chosen, for the workers that score the inputs
    if args.player:
        if args.inputs:
            parser.error(i18n._("give the files after --player NAME, or on their own, not both"))
        if any(len(group) < 2 for group in args.player):
            parser.error(
                i18n._("--player needs a name and the player's files: --player NAME FILE ...")
            )
        args.inputs = [path for _, *paths in args.player for path in paths]
        args.dynasty = True
    elif not args.inputs:
        parser.error(i18n._("the following arguments are required: FILE"))
    return args


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``kingdomino-score``."""
    _ = i18n._
    parser = argparse.ArgumentParser(
        prog="kingdomino-score",
        description=_("Score finished Kingdomino kingdoms from text grids or photos."),
        epilog=_("A .txt file is a text grid (tokens W0…M3, C and .); any other file is a photo."),
    )
    parser.add_argument("inputs", nargs="*", metavar="FILE", help=_("text grids or photos"))
    parser.add_argument("--harmony", action="store_true", help=_("Harmony bonus: +5 when complete"))
    parser.add_argument(
        "--middle-kingdom",
        action="store_true",
        help=_("Middle Kingdom bonus: +10 when the castle is in the centre"),
    )
    parser.add_argument(
        "--crowns-first",
        action="store_true",
        help=_('house rule "{rule}" for ties', rule=_(CROWNS_FIRST_NAME)),
    )
    parser.add_argument("--json", action="store_true", help=_("print the results as JSON"))
    parser.add_argument(
        "--rank", action="store_true", help=_("rank the kingdoms as players named by file stem")
    )
    parser.add_argument(
        "--dynasty",
        action="store_true",
        help=_(
            "rank players by the sum of {games} games: each file is a game of the player named "
            "before the last - or _ of its name (anna-1.jpg); implies --rank",
            games=DYNASTY_GAMES,
        ),
    )
    parser.add_argument(
        "--player",
        nargs="+",
        action="append",
        metavar=("NAME", "FILE"),
        help=_(
            "a player's name and {games} files, once per player (implies --dynasty)",
            games=DYNASTY_GAMES,
        ),
    )
    parser.add_argument(
        "--grid",
        type=int,
        choices=KINGDOM_SIDES,
        help=_(
            "kingdom side: {small}, or {large} for Mighty Duel (default: from the grid, or "
            "found in the photo)",
            small=STANDARD_SIZE,
            large=DUEL_SIZE,
        ),
    )
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help=_(
            "processes scoring the photos at once (default: one per core from {least} photos "
            "on; 1: one after another)",
            least=PARALLEL_MIN,
        ),
    )
    parser.add_argument(
        "--corners",
        type=parse_corners,
        metavar="x1,y1,...,x4,y4",
        help=_("the kingdom's four corners in a photo, in pixels"),
    )
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=_(
            "language of the output: {languages} (default: from LC_ALL, LC_MESSAGES or LANG)",
            languages=", ".join(i18n.LANGUAGES),
        ),
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
        raise argparse.ArgumentTypeError(
            i18n._("corners must be numbers: {text}", text=repr(text[:80]))
        ) from None
    if len(values) != 8:
        raise argparse.ArgumentTypeError(
            i18n._("corners need 8 numbers (4 points), got {count}", count=len(values))
        )
    return tuple((values[i], values[i + 1]) for i in range(0, 8, 2))


def _score_input(path: str, args: argparse.Namespace, rules: Rules) -> JSONDict:
    """Score one input; a failure becomes its ``error`` message."""
    i18n.set_language(getattr(args, "lang", i18n.language()))  # a worker process starts in English
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
    """Read a text grid of at most :data:`MAX_GRID_BYTES`, from a regular file only."""
    data = read_limited(
        path,
        MAX_GRID_BYTES,
        what=i18n._("a text grid"),
        error=InputError,
        too_large=_grid_too_large,
    )
    # utf-8-sig: editors such as Notepad start the file with a byte-order mark.
    return Kingdom.parse(data.decode("utf-8-sig"))


def _grid_too_large(n_bytes: int) -> InputError:
    size, limit = amounts(n_bytes, MAX_GRID_BYTES, 1024, "KB", "bytes")
    if n_bytes >= 1_000_000:
        size = f"{n_bytes / 1_000_000:.0f} MB"
    return InputError(
        i18n._(
            "this file is {size}, too large for a text grid (at most {limit})",
            size=size,
            limit=limit,
        )
    )


def _score_image_file(path: Path, args: argparse.Namespace) -> list[JSONDict]:
    """Score the kingdoms in a photo (:func:`~scorer.results.report.photo_kingdom_result`)."""
    try:
        imageio: Any = importlib.import_module("scorer.photo.imageio")
        pipeline: Any = importlib.import_module("scorer.pipeline")
    except ImportError as err:
        raise InputError(i18n._("photo input needs scorer.pipeline ({error})", error=err)) from None
    rules = rules_from_args(args)
    image, info = imageio.load_image_with_info(path)
    photo = pipeline.score_photo(
        image, rules, grid=args.grid, corners=args.corners, file_damage=info.damage
    )
    # What the loader noticed about the file (damaged EXIF …) leads each kingdom's notes.
    return [photo_kingdom_result(found, rules, file_notes=info.notes) for found in photo.kingdoms]


def _message(err: BaseException) -> str:
    if isinstance(err, FileNotFoundError):
        return i18n._("no such file")
    if isinstance(err, IsADirectoryError):
        return i18n._("is a directory, not a file")
    if isinstance(err, PermissionError):
        return i18n._("permission denied")
    if isinstance(err, UnicodeDecodeError):
        return i18n._("not a text grid: the file is not UTF-8 text")
    if isinstance(err, OSError):
        return err.strerror or str(err)
    return i18n.message(err) or type(err).__name__


def _players(results: Sequence[JSONDict], args: argparse.Namespace) -> list[Player]:
    """Turn the scored inputs into players; failed inputs take no part."""
    if args.dynasty:
        return _dynasty_players(results, args.player)
    names = _unique_names([r["input"] for r in results])
    players = []
    for name, r in zip(names, results, strict=True):
        kingdoms = _kingdoms(r)
        for i, k in enumerate(kingdoms, start=1):
            label = name if len(kingdoms) == 1 else f"{name}#{i}"
            players.append(Player(label, (k,)))
    return players


def _dynasty_players(
    results: Sequence[JSONDict], named: Sequence[Sequence[str]] | None
) -> list[Player]:
    """Each player's three games, grouped by :func:`dynasty_groups`."""
    groups = dynasty_groups([r["input"] for r in results], named)
    players = []
    for name, indices in groups.items():
        kingdoms = [k for i in indices for k in _kingdoms(results[i])]
        if len(kingdoms) != DYNASTY_GAMES:
            raise ValueError(
                i18n._(
                    "{name} needs {games} scored kingdoms, got {count}",
                    name=name,
                    games=DYNASTY_GAMES,
                    count=len(kingdoms),
                )
            )
        players.append(Player(name, tuple(kingdoms)))
    return players


def dynasty_groups(
    paths: Sequence[str], named: Sequence[Sequence[str]] | None = None
) -> dict[str, list[int]]:
    """Which inputs (by position) are each player's games, in the order players first appear.

    With ``named`` (the ``--player NAME FILE …`` groups, whose files are ``paths`` in
    order) the player is the one named; else the file name before its last ``-`` or ``_``.

    Raises
    ------
    ValueError
        A file names no player, or a player has other than three games; the message
        shows the grouping read.

    Examples
    --------
    >>> dynasty_groups(["anna-1.txt", "ben_1.jpg", "anna-2.txt", "ben_2.jpg", "anna-3.txt",
    ...                 "ben_3.jpg"])
    {'anna': [0, 2, 4], 'ben': [1, 3, 5]}
    >>> try:
    ...     dynasty_groups(["a-1", "b-1", "a-2", "b-2", "a-3", "b-3", "b-4"])
    ... except ValueError as err:
    ...     print(str(err).split(" as ")[1].split("; name")[0])
    a: a-1, a-2, a-3; b: b-1, b-2, b-3, b-4
    """
    groups: dict[str, list[int]] = {}
    if named:
        start = 0
        for name, *files in named:
            groups.setdefault(name, []).extend(range(start, start + len(files)))
            start += len(files)
    else:
        for i, path in enumerate(paths):
            groups.setdefault(_player_of(path) or _NO_PLAYER, []).append(i)
    if _NO_PLAYER in groups or any(len(g) != DYNASTY_GAMES for g in groups.values()):
        read = "; ".join(
            f"{i18n._(name) if name == _NO_PLAYER else name}: "
            + ", ".join(Path(paths[i]).name for i in indices)
            for name, indices in groups.items()
        )
        raise ValueError(
            i18n._(
                "a Dynasty needs {games} games per player, but the files group as {read}; "
                "name each file PLAYER-GAME (anna-1.jpg), or give each player's files with "
                "--player NAME {files}",
                games=DYNASTY_GAMES,
                read=read,
                files=" ".join(["FILE"] * DYNASTY_GAMES),
            )
        )
    return groups


_NO_PLAYER: Final = i18n.N_("(no player in the name)")


def _player_of(path: str) -> str | None:
    """The player a file is a game of: its name before the last ``-`` or ``_``, if any."""
    stem = Path(path).stem
    cut = max(stem.rfind("-"), stem.rfind("_"))
    name = stem[:cut].strip() if cut > 0 else ""
    return name or None


def _kingdoms(result: JSONDict) -> list[Kingdom]:
    if result["error"] is not None:
        return []
    return [Kingdom.parse("\n".join(k["grid"])) for k in result["kingdoms"]]


def _unique_names(paths: Sequence[str]) -> list[str]:
    stems = [Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else p for s, p in zip(stems, paths, strict=True)]


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
            blocks.append(f"== {r['input']}\n" + i18n._("error: {message}", message=r["error"]))
            continue
        for i, k in enumerate(r["kingdoms"], start=1):
            title = (
                r["input"]
                if len(r["kingdoms"]) == 1
                else i18n._("{input} (kingdom {n})", input=r["input"], n=i)
            )
            kingdom = Kingdom.parse("\n".join(k["grid"]))
            notes = "".join("\n" + i18n._("note: {note}", note=n) for n in k.get("notes", []))
            if k.get("confirmed") is False:
                notes += "\n" + i18n._(
                    "unconfirmed total: {reasons}", reasons="; ".join(k["reasons"])
                )
            blocks.append(f"== {title}\n{format_breakdown(kingdom, rules)}{notes}")
        if not r["kingdoms"]:
            blocks.append(f"== {r['input']}\n" + i18n._("no kingdom found"))
    if ranking:
        blocks.append(ranking)
    out.write("\n\n".join(blocks) + "\n")
