"""Finished games and running Dynasties, kept in a local SQLite file.

One file holds every saved game: its Dynasty's name, when it was saved, the
rules, and for each player the name, the kingdom as a text grid, the total
and whether the kingdom was corrected by hand. Every write is one short
SQLite transaction in WAL mode, so a crash or a killed process mid-write
leaves every finished game intact, and two browser tabs saving at once both
succeed. A file that is not a games file, is damaged, or was written by a
newer version of the program raises :class:`~scorer.rules.errors.StoreError` and is
never overwritten; one that is not a regular file (a named pipe, a device) is
refused before it is opened, and refusing a file creates nothing beside it. A
games file this program may not write is opened read-only: its games are shown,
and saving is off (:attr:`GameStore.read_only_note`).

>>> import tempfile
>>> from scorer.rules.kingdom import Kingdom
>>> from scorer.rules.scoring import Rules
>>> store = GameStore(Path(tempfile.mkdtemp()) / "games.sqlite3")
>>> game_id = store.save_game(
...     "Sunday", [("Ann", Kingdom.parse("F1 F0 C")), ("Ben", Kingdom.parse("C M2"))], Rules()
... )
>>> [(p.name, p.total) for p in store.games("Sunday")[0].players]
[('Ann', 2), ('Ben', 2)]
>>> store.dynasties()
['Sunday']
"""

from __future__ import annotations

import enum
import json
import os
import sqlite3
import time
import typing
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from scorer.files import not_regular, open_regular, user_data_path
from scorer.i18n import _
from scorer.rules.errors import DynastyError, StoreBusyError, StoreError
from scorer.rules.kingdom import GridParseError, Kingdom, quoted
from scorer.rules.scoring import (
    DYNASTY_GAMES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Player,
    Ranking,
    Rules,
    rank,
)
from scorer.rules.scoring import score as score_kingdom

ENV_VAR: Final = "KINGDOMINO_DB"
"""Environment variable naming the games file; the user's data folder when unset."""

SCHEMA_VERSION: Final = 1
"""The layout of the games file this program writes (``PRAGMA user_version``)."""

APPLICATION_ID: Final = 0x4B44_4753
"""Marks a SQLite file as a games file (``PRAGMA application_id``; "KDGS")."""

BUSY_TIMEOUT_MS: Final = 10_000
"""How long a write waits for another window's write to finish."""

MAX_NAME_LENGTH: Final = 100
"""Longest player or Dynasty name kept."""


class SavedPlayer(NamedTuple):
    """One player's result in a saved game."""

    name: str
    kingdom: Kingdom
    total: int
    corrected: bool


@dataclass(frozen=True)
class SavedGame:
    """A finished game as stored: players in their order at the table."""

    id: int
    dynasty: str
    created: datetime
    rules: Rules
    players: tuple[SavedPlayer, ...]


def default_store_path() -> Path:
    """The games file: ``$KINGDOMINO_DB`` if set, else ``games.sqlite3`` in the user's data folder.

    Returns
    -------
    Path
        Where :class:`GameStore` keeps games when given no path.
    """
    return user_data_path(ENV_VAR, "games.sqlite3")


class GameStore:
    """The saved games, in one SQLite file; safe for several windows and processes at once.

    Parameters
    ----------
    path : Path, optional
        The games file; :func:`default_store_path` when omitted. It is created
        with its folder when missing.

    Raises
    ------
    StoreError
        The file exists but is not a games file, is damaged, or was written by
        a newer version of the program. The file is left unchanged.
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.read_only = _open_or_create(self.path)
        """Whether the file can only be read: its games are shown, nothing is saved."""

    @property
    def read_only_note(self) -> str | None:
        """What to tell the player when the file is read-only: saving is off; else None."""
        if not self.read_only:
            return None
        return _(
            "The games file {path} is read-only: saved games are shown, but saving is "
            "off. Make it writable, or set KINGDOMINO_DB to another file, to save games.",
            path=self.path,
        )

    def save_game(
        self,
        dynasty: str,
        players: Sequence[tuple[str, Kingdom]],
        rules: Rules,
        *,
        corrected: Sequence[bool] | None = None,
    ) -> int:
        """Save a finished game as the next game of ``dynasty``; return its id.

        Parameters
        ----------
        dynasty : str
            The Dynasty's name; a new name starts a new Dynasty.
        players : sequence of (name, Kingdom)
            Each player's name and final kingdom, in table order.
        rules : Rules
            The options the game was played with; totals are scored with them.
        corrected : sequence of bool, optional
            For each player, whether the kingdom was corrected by hand.

        Returns
        -------
        int
            The new game's id.

        Raises
        ------
        DynastyError
            The Dynasty already has its three games, or this game's players or
            rules differ from its first game's; or the names are empty or repeated.
        StoreError
            The file became unusable; nothing was written.
        """
        name = _clean_name(dynasty, _("the Dynasty"))
        names = [_clean_name(n, _("a player")) for n, _kingdom in players]
        flags = [False] * len(players) if corrected is None else [bool(c) for c in corrected]
        _check_players(names, flags)
        rules_text = _rules_to_text(rules)
        rows = [
            (seat, n, k.format(), score_kingdom(k, rules).total, int(c))
            for seat, (n, (_name, k), c) in enumerate(zip(names, players, flags, strict=True))
        ]
        created = datetime.now(UTC).isoformat(timespec="seconds")
        with self._write() as conn:
            _check_dynasty(conn, name, names, rules_text)
            cursor = conn.execute(
                "INSERT INTO games (dynasty, created, rules) VALUES (?, ?, ?)",
                (name, created, rules_text),
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            conn.executemany(
                "INSERT INTO players (game_id, seat, name, grid, total, corrected)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(game_id, *row) for row in rows],
            )
        return game_id

    def games(self, dynasty: str | None = None) -> list[SavedGame]:
        """Return the saved games, oldest first; only ``dynasty``'s when given.

        Raises
        ------
        StoreError
            A stored game cannot be read back (the file was edited or damaged).
        """
        where, args = ("", ()) if dynasty is None else ("WHERE dynasty = ?", (_norm(dynasty),))
        with self._read() as conn:
            games = conn.execute(
                f"SELECT id, dynasty, created, rules FROM games {where} ORDER BY id", args
            ).fetchall()
            players = conn.execute(
                "SELECT game_id, name, grid, total, corrected FROM players"
                f" WHERE game_id IN (SELECT id FROM games {where}) ORDER BY game_id, seat",
                args,
            ).fetchall()
        by_game: dict[int, list[SavedPlayer]] = {}
        for game_id, name, grid, total, corrected in players:
            if not isinstance(name, str):
                raise StoreError(
                    _(
                        "saved game {id} has an unreadable player name: {name}",
                        id=game_id,
                        name=repr(name),
                    )
                )
            by_game.setdefault(game_id, []).append(
                SavedPlayer(
                    name,
                    _parse_grid(grid, game_id, name),
                    _parse_total(total, game_id, name),
                    bool(corrected),
                )
            )
        return [
            SavedGame(
                id=game_id,
                dynasty=name,
                created=_parse_time(created, game_id),
                rules=_rules_from_text(rules_text, game_id),
                players=tuple(by_game.get(game_id, ())),
            )
            for game_id, name, created, rules_text in games
        ]

    def dynasties(self) -> list[str]:
        """Return the names of the Dynasties with saved games, the most recently played first."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT dynasty FROM games GROUP BY dynasty ORDER BY MAX(id) DESC"
            ).fetchall()
        return [row[0] for row in rows]

    def delete_game(self, game_id: int) -> None:
        """Delete one saved game; deleting a game that is already gone does nothing."""
        with self._write() as conn:
            conn.execute("DELETE FROM players WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))

    def dynasty_players(self, dynasty: str) -> list[Player]:
        """Return each player of ``dynasty`` with their kingdoms in game order.

        Parameters
        ----------
        dynasty : str
            The Dynasty's name.

        Returns
        -------
        list of Player
            In the seat order of the first game; one kingdom per game played so far.
        """
        kingdoms: dict[str, list[Kingdom]] = {}
        for game in self.games(dynasty):
            for player in game.players:
                kingdoms.setdefault(player.name, []).append(player.kingdom)
        return [Player(name, tuple(ks)) for name, ks in kingdoms.items()]

    def dynasty_standings(self, dynasty: str) -> Ranking:
        """Rank the players of a finished Dynasty over its three games.

        Raises
        ------
        DynastyError
            The Dynasty does not have its three games yet (or has none).
        """
        games = self.games(dynasty)
        if len(games) != DYNASTY_GAMES:
            raise DynastyError(
                _(
                    "Dynasty {dynasty} has {count} of its {games} games; "
                    "the standings come after the last one",
                    dynasty=repr(dynasty),
                    count=len(games),
                    games=DYNASTY_GAMES,
                )
            )
        return rank(self.dynasty_players(dynasty), games[0].rules)

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same saved games."""
        connect = _read_only_store if self.read_only else _connect
        with _errors_as_store_errors(self.path), closing(connect(self.path)) as conn:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.rollback()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction: all of it is saved, or none of it."""
        if self.read_only:
            raise StoreError(_("saving is off: the games file {path} is read-only", path=self.path))
        with _errors_as_store_errors(self.path), closing(_connect(self.path)) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.rollback()
                raise
            conn.execute("COMMIT")


# --------------------------------------------------------------------------- the file

_SCHEMA: Final = (
    """CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        dynasty TEXT NOT NULL,
        created TEXT NOT NULL,
        rules TEXT NOT NULL
    )""",
    "CREATE INDEX games_by_dynasty ON games (dynasty, id)",
    """CREATE TABLE players (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        grid TEXT NOT NULL,
        total INTEGER NOT NULL,
        corrected INTEGER NOT NULL CHECK (corrected IN (0, 1)),
        PRIMARY KEY (game_id, seat)
    )""",
)
_TABLES: Final = frozenset({"games", "players"})
_SQLITE_MAGIC: Final = b"SQLite format 3\x00"


def _open_or_create(path: Path) -> bool:
    """Check an existing file without writing to it, then create the tables if it is new;
    return whether the file can only be read (then nothing is written to it).

    Windows opening a new file at the same moment race to switch it to WAL and
    create the tables. SQLite answers some of these steps "busy" at once, without
    waiting, so the step is tried again until :data:`BUSY_TIMEOUT_MS` has passed.
    """
    try:
        kind = not_regular(os.stat(path).st_mode)
    except FileNotFoundError:
        kind = None
    except OSError as err:
        raise StoreError(
            _("cannot use the games file {path}: {reason}", path=path, reason=err.strerror or err)
        ) from None
    if kind is not None:  # a named pipe would block here, and the page with it
        raise StoreError(_("the games file {path} is {kind}, not a file", path=path, kind=_(kind)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(
            _(
                "cannot create the folder for the games file {path}: {reason}",
                path=path,
                reason=err,
            )
        ) from None
    if path.exists():
        _check_existing(path)
        if not _writable(path):
            return True
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    with _errors_as_store_errors(path):
        while True:
            try:
                version = _prepare(path)
                break
            except sqlite3.OperationalError as err:
                if not _is_busy(err) or time.monotonic() >= deadline:
                    raise
            time.sleep(_BUSY_RETRY_S)
    if version is not None:
        _check_version(path, version)
    return False


def _writable(path: Path) -> bool:
    """Whether this program may write the games file, and the side files SQLite keeps
    beside it in WAL mode (``-wal``, ``-shm``)."""
    if not os.access(path, os.W_OK):
        return False
    if os.access(path.parent, os.W_OK | os.X_OK):
        return True
    sides = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    return all(os.access(side, os.W_OK) for side in sides)


_BUSY_RETRY_S: Final = 0.02
"""Pause before trying a busy step of :func:`_open_or_create` again."""


def _prepare(path: Path) -> int | None:
    """Switch the file to WAL and create the tables if it has none; return the
    file's version now, or None for a games file that needed nothing."""
    with closing(_raw_connect(path)) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if version == SCHEMA_VERSION and str(mode).lower() == "wal":
            return None  # the usual case: a checked games file, nothing to write
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":  # pragma: no cover - e.g. a file system without locks
            conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:  # new, or another window is creating it right now
                _refuse_other_program(conn, path)
                _refuse_foreign(conn, path)
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            conn.rollback()
            raise
        conn.execute("COMMIT")
        return int(version) if version else SCHEMA_VERSION


def _check_existing(path: Path) -> None:
    """Refuse a file that is not ours, damaged or newer; read-only, so it is never changed.

    The decision on a file that is not a games file is taken from its header and from a
    connection that opens no side files (``immutable``), so refusing it leaves nothing
    beside it; only a file marked as a games file is opened the usual way.
    """
    try:
        with open_regular(path, what="a file", error=StoreError) as handle:
            header = handle.read(_HEADER_BYTES)
    except StoreError as err:
        raise StoreError(
            _("cannot read the games file {path}: {reason}", path=path, reason=err)
        ) from None
    except OSError as err:
        raise StoreError(
            _("cannot read the games file {path}: {reason}", path=path, reason=err.strerror)
        ) from None
    if not header:
        return  # an empty file: a new store
    if header[: len(_SQLITE_MAGIC)] != _SQLITE_MAGIC:
        raise StoreError(_("{path} is not a games file (it is not an SQLite database)", path=path))
    if len(header) < _HEADER_BYTES:
        raise StoreError(_("the games file {path} is damaged: its header is cut short", path=path))
    version = int.from_bytes(header[60:64], "big")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id not in (0, APPLICATION_ID):
        raise StoreError(_("{path} is not a games file (it belongs to another program)", path=path))
    _check_version(path, version)
    if app_id != APPLICATION_ID:
        _check_unmarked(path)
        return
    with _errors_as_store_errors(path), closing(_read_only_connect(path)) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        _refuse_other_program(conn, path)
        _check_version(path, version)
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise StoreError(
                _("the games file {path} is damaged: {problem}", path=path, problem=problems[0])
            )
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if not _TABLES.issubset(tables):
            raise StoreError(_("the games file {path} is damaged: tables are missing", path=path))


_HEADER_BYTES: Final = 100
"""Length of an SQLite file's header: ``user_version`` at 60, ``application_id`` at 68."""


def _check_unmarked(path: Path) -> None:
    """Refuse an SQLite file not marked as a games file if it holds anything (another
    program's database), looking without opening its side files.

    A new games file that another window is creating now may not show its mark in the
    file itself yet; whatever cannot be read here is left to the write transaction of
    :func:`_prepare`, which checks again under SQLite's lock.
    """
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    try:
        with closing(sqlite3.connect(uri, uri=True, isolation_level=None)) as conn:
            if conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
                return
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError:
        return
    _check_version(path, version)
    if version == 0 and not tables:
        return  # an empty database: a new store
    if not _TABLES.issubset(tables):
        names = sorted(tables)[:3]
        raise StoreError(
            _(
                "{path} is not a games file (it is another program's database, "
                "with tables such as {tables})",
                path=path,
                tables=", ".join(names),
            )
        )


def _refuse_other_program(conn: sqlite3.Connection, path: Path) -> None:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id not in (0, APPLICATION_ID):
        raise StoreError(_("{path} is not a games file (it belongs to another program)", path=path))


def _check_version(path: Path, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            _(
                "the games file {path} was written by a newer version of this program "
                "(file version {version}, this program reads up to {newest}); "
                "update the program to open it",
                path=path,
                version=version,
                newest=SCHEMA_VERSION,
            )
        )


def _refuse_foreign(conn: sqlite3.Connection, path: Path) -> None:
    names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master LIMIT 3")]
    if names:
        raise StoreError(
            _(
                "{path} is not a games file (it is another program's database, "
                "with tables such as {tables})",
                path=path,
                tables=", ".join(names),
            )
        )


def _raw_connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _read_only_connect(path: Path, immutable: bool = False) -> sqlite3.Connection:
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _read_only_store(path: Path) -> sqlite3.Connection:
    """A read-only connection to a checked games file this program may not write.

    SQLite reads a file in WAL mode through its side files; where it cannot create them
    (a folder it may not write), the file is read as it is on disk (``immutable``).
    """
    conn = _read_only_connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.OperationalError:
        conn.close()
        conn = _read_only_connect(path, immutable=True)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    return _of_this_version(conn, path, version)


def _of_this_version(conn: sqlite3.Connection, path: Path, version: int) -> sqlite3.Connection:
    """``conn`` when the games file is of this program's version; closed and refused if not."""
    if version == SCHEMA_VERSION:
        return conn
    conn.close()
    _check_version(path, version)
    raise StoreError(
        _(
            "the games file {path} is damaged: its version is {version}",
            path=path,
            version=version,
        )
    )


def _connect(path: Path) -> sqlite3.Connection:
    """A connection to a checked games file, refusing it if it changed version meanwhile."""
    if not path.exists():
        raise StoreError(_("the games file {path} has disappeared", path=path))
    conn = _raw_connect(path)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return _of_this_version(conn, path, version)


@contextmanager
def _errors_as_store_errors(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as err:
        if _is_busy(err):
            raise StoreBusyError(
                _(
                    "the games file {path} is busy (another window is saving); nothing was written",
                    path=path,
                )
            ) from None
        raise StoreError(
            _("the games file {path} cannot be used: {reason}", path=path, reason=err)
        ) from None
    except sqlite3.DatabaseError as err:
        raise StoreError(
            _(
                "the games file {path} is damaged or not a games file: {reason}",
                path=path,
                reason=err,
            )
        ) from None


def _is_busy(err: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds the file."""
    return "locked" in str(err) or "busy" in str(err)


# --------------------------------------------------------------------------- values


def _norm(name: str) -> str:
    """A name with its spaces tidied: no leading, trailing or repeated spaces."""
    return " ".join(str(name).split())


def _clean_name(name: str, what: str) -> str:
    cleaned = _norm(name)
    if not cleaned:
        raise DynastyError(_("{what} needs a name", what=what))
    if len(cleaned) > MAX_NAME_LENGTH:
        raise DynastyError(
            _(
                "{what}'s name is longer than {most} characters",
                what=what,
                most=MAX_NAME_LENGTH,
            )
        )
    return cleaned


def _check_players(names: list[str], corrected: list[bool]) -> None:
    if len(corrected) != len(names):
        raise ValueError(f"corrected has {len(corrected)} flags for {len(names)} players")
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise DynastyError(
            _(
                "a game has {least} to {most} players, not {count}",
                least=MIN_PLAYERS,
                most=MAX_PLAYERS,
                count=len(names),
            )
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DynastyError(
            _(
                "two players are both named {name}; give each player a different name",
                name=repr(repeated[0]),
            )
        )


def _check_dynasty(conn: sqlite3.Connection, dynasty: str, names: list[str], rules: str) -> None:
    """Refuse a game that cannot join the Dynasty; run inside the write transaction."""
    first = conn.execute(
        "SELECT id, rules, (SELECT COUNT(*) FROM games WHERE dynasty = ?)"
        " FROM games WHERE dynasty = ? ORDER BY id LIMIT 1",
        (dynasty, dynasty),
    ).fetchone()
    if first is None:
        return
    first_id, first_rules, count = first
    if count >= DYNASTY_GAMES:
        raise DynastyError(
            _(
                "Dynasty {dynasty} already has its {games} games; start a new Dynasty",
                dynasty=repr(dynasty),
                games=DYNASTY_GAMES,
            )
        )
    players = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (first_id,)
        )
    ]
    if sorted(players) != sorted(names):
        raise DynastyError(
            _(
                "Dynasty {dynasty} is played by {players}; this game has {names}",
                dynasty=repr(dynasty),
                players=", ".join(players),
                names=", ".join(names),
            )
        )
    before, now = json.loads(first_rules), json.loads(rules)
    changed = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
    if changed:
        raise DynastyError(
            _(
                "Dynasty {dynasty} is played with {rules}; this game has {these}",
                dynasty=repr(dynasty),
                rules=_describe_rules(before, changed),
                these=_describe_rules(now, changed),
            )
        )


def _describe_rules(values: dict[str, Any], keys: list[str]) -> str:
    """Rules in words: ``harmony off, tiebreak crowns-first``."""
    words = {True: "on", False: "off", None: "not set"}
    return ", ".join(
        f"{k.replace('_', ' ')} {words.get(values.get(k), values.get(k))}" for k in keys
    )


def _rules_to_text(rules: Rules) -> str:
    values: dict[str, Any] = {}
    for f in fields(rules):
        value = getattr(rules, f.name)
        values[f.name] = value.value if isinstance(value, enum.Enum) else value
    return json.dumps(values, sort_keys=True)


def _rules_from_text(text: str, game_id: int) -> Rules:
    """Rebuild the rules; options unknown to this version are ignored, missing ones default."""
    try:
        values = json.loads(text)
        hints = typing.get_type_hints(Rules)
        kwargs: dict[str, Any] = {}
        for f in fields(Rules):
            if f.name not in values:
                continue
            hint = hints[f.name]
            value = values[f.name]
            is_enum = isinstance(hint, type) and issubclass(hint, enum.Enum)
            kwargs[f.name] = hint(value) if is_enum else value
        return Rules(**kwargs)
    except (ValueError, TypeError, AttributeError) as err:
        raise StoreError(f"saved game {game_id} has unreadable rules: {err}") from None


def _parse_grid(text: str, game_id: int, name: str) -> Kingdom:
    try:
        if not isinstance(text, str):
            raise GridParseError(f"a kingdom is text, not {type(text).__name__}")
        return Kingdom.parse(text)
    except GridParseError as err:
        raise StoreError(
            f"saved game {game_id} has an unreadable kingdom for {name}: {err}"
        ) from None


def _parse_total(total: object, game_id: int, name: str) -> int:
    """A stored total, which must be a whole number (SQLite keeps any value in any column)."""
    if isinstance(total, float) and total.is_integer():
        return int(total)
    if not isinstance(total, int) or isinstance(total, bool):
        shown = quoted(total) if isinstance(total, str) else total
        raise StoreError(f"saved game {game_id} has an unreadable total for {name}: {shown!r}")
    return total


def _parse_time(text: str, game_id: int) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except (ValueError, TypeError):
        raise StoreError(f"saved game {game_id} has an unreadable date: {text!r}") from None
