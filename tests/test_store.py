"""The games store: saved games come back as saved, survive crashes, and bad files are refused."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scorer import store as store_module
from scorer.rules.errors import DynastyError, ScorerError, StoreBusyError, StoreError
from scorer.rules.kingdom import Kingdom
from scorer.rules.scoring import DYNASTY_GAMES, Rules, TieBreakOrder, score
from scorer.store import (
    APPLICATION_ID,
    ENV_VAR,
    SCHEMA_VERSION,
    GameStore,
    SavedGame,
    default_store_path,
)

ANN = Kingdom.parse(
    """
    F1 F0 L0 L1 W0
    F0 F0 L0 W0 W1
    G0 G0 C  W0 W0
    G2 S0 S0 M0 M2
    G0 S1 S0 M0 M0
    """
)
BEN = Kingdom.parse("W1 W0 W0\nC  M2 M0\nL1 L0 F0")
CID = Kingdom.parse("C F1 F1 F0")
SUNDAY = [("Ann", ANN), ("Ben", BEN)]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def store(path: Path) -> GameStore:
    return GameStore(path)


# --------------------------------------------------------------------------- round trip


def test_a_saved_game_comes_back_as_saved(store: GameStore) -> None:
    rules = Rules(harmony=True, middle_kingdom=True, tiebreak=TieBreakOrder.CROWNS_FIRST)
    before = datetime.now(UTC).replace(microsecond=0)
    game_id = store.save_game("Sunday", SUNDAY, rules, corrected=[False, True])
    (game,) = store.games()
    assert isinstance(game, SavedGame)
    assert game.id == game_id
    assert game.dynasty == "Sunday"
    assert game.rules == rules
    assert before <= game.created <= datetime.now(UTC)
    assert [p.name for p in game.players] == ["Ann", "Ben"]
    assert [p.kingdom for p in game.players] == [ANN, BEN]
    assert [p.total for p in game.players] == [score(ANN, rules).total, score(BEN, rules).total]
    assert [p.corrected for p in game.players] == [False, True]
    name, kingdom, total, corrected = game.players[0]
    assert (name, kingdom, total, corrected) == ("Ann", ANN, score(ANN, rules).total, False)


def test_rules_with_a_forced_side_come_back(store: GameStore) -> None:
    rules = Rules(side=7)
    store.save_game("Duel", [("Ann", CID), ("Ben", BEN)], rules)
    assert store.games("Duel")[0].rules == rules


def test_games_are_oldest_first_and_filtered_by_dynasty(store: GameStore) -> None:
    first = store.save_game("Sunday", SUNDAY, Rules())
    other = store.save_game("Monday", [("Cid", CID), ("Ann", ANN)], Rules())
    second = store.save_game("Sunday", list(reversed(SUNDAY)), Rules())
    assert [g.id for g in store.games()] == [first, other, second]
    assert [g.id for g in store.games("Sunday")] == [first, second]
    assert [g.id for g in store.games("  Sunday ")] == [first, second]
    assert store.games("Tuesday") == []
    assert store.dynasties() == ["Sunday", "Monday"]


def test_a_copied_file_is_put_back_in_wal_mode(tmp_path: Path) -> None:
    path = _store_with_games(tmp_path / "copy.sqlite3")
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert len(GameStore(path).games()) == 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_games_survive_reopening(path: Path) -> None:
    GameStore(path).save_game("Sunday", SUNDAY, Rules())
    reopened = GameStore(path)
    assert [p.kingdom for p in reopened.games()[0].players] == [ANN, BEN]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_delete_game(store: GameStore) -> None:
    keep = store.save_game("Sunday", SUNDAY, Rules())
    gone = store.save_game("Sunday", SUNDAY, Rules())
    store.delete_game(gone)
    assert [g.id for g in store.games()] == [keep]
    store.delete_game(gone)  # already gone: nothing happens
    store.delete_game(keep)
    assert store.games() == []
    assert store.dynasties() == []
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 0


# --------------------------------------------------------------------------- Dynasty


def test_dynasty_standings_after_three_games(store: GameStore) -> None:
    games = [SUNDAY, [("Ben", CID), ("Ann", BEN)], [("Ann", CID), ("Ben", ANN)]]
    for players in games:
        store.save_game("Sunday", players, Rules())
    by_name = {p.name: p.kingdoms for p in store.dynasty_players("Sunday")}
    assert by_name == {"Ann": (ANN, BEN, CID), "Ben": (BEN, CID, ANN)}
    ranking = store.dynasty_standings("Sunday")
    assert ranking.dynasty
    totals = {s.name: s.total for s in ranking.standings}
    expected = {name: sum(score(k).total for k in kingdoms) for name, kingdoms in by_name.items()}
    assert totals == expected


def test_standings_need_all_three_games(store: GameStore) -> None:
    with pytest.raises(DynastyError, match="has 0 of its 3 games"):
        store.dynasty_standings("Sunday")
    store.save_game("Sunday", SUNDAY, Rules())
    with pytest.raises(DynastyError, match="has 1 of its 3 games"):
        store.dynasty_standings("Sunday")


def test_a_fourth_game_is_refused(store: GameStore) -> None:
    for _ in range(DYNASTY_GAMES):
        store.save_game("Sunday", SUNDAY, Rules())
    with pytest.raises(DynastyError, match="already has its 3 games; start a new Dynasty"):
        store.save_game("Sunday", SUNDAY, Rules())
    assert len(store.games()) == DYNASTY_GAMES


@pytest.mark.parametrize(
    ("players", "rules", "message"),
    [
        ([("Ann", ANN), ("Cid", CID)], Rules(), "is played by Ann, Ben; this game has Ann, Cid"),
        (SUNDAY, Rules(harmony=True), "is played with harmony off; this game has harmony on"),
        (
            SUNDAY,
            Rules(tiebreak=TieBreakOrder.CROWNS_FIRST, side=5),
            "with side not set, tiebreak official; this game has side 5, tiebreak crowns-first",
        ),
    ],
)
def test_later_games_must_match_the_first(
    store: GameStore, players: list[tuple[str, Kingdom]], rules: Rules, message: str
) -> None:
    store.save_game("Sunday", SUNDAY, Rules())
    with pytest.raises(DynastyError, match=message):
        store.save_game("Sunday", players, rules)
    assert len(store.games()) == 1


@pytest.mark.parametrize(
    ("dynasty", "players", "message"),
    [
        ("", SUNDAY, "the Dynasty needs a name"),
        ("Sunday", [("Ann", ANN), (" ", BEN)], "a player needs a name"),
        ("Sunday", [("Ann", ANN), ("Ann ", BEN)], "two players are both named 'Ann'"),
        ("Sunday", [("Ann", ANN)], "a game has 2 to 4 players, not 1"),
        ("Sunday", [(f"P{i}", ANN) for i in range(5)], "a game has 2 to 4 players, not 5"),
        ("x" * 101, SUNDAY, "longer than 100 characters"),
    ],
)
def test_bad_games_are_refused_with_a_reason(
    store: GameStore, dynasty: str, players: list[tuple[str, Kingdom]], message: str
) -> None:
    with pytest.raises(DynastyError, match=message):
        store.save_game(dynasty, players, Rules())
    assert store.games() == []


def test_corrected_flags_must_match_players(store: GameStore) -> None:
    with pytest.raises(ValueError, match="1 flags for 2 players"):
        store.save_game("Sunday", SUNDAY, Rules(), corrected=[True])


# --------------------------------------------------------------------------- the file


def test_default_path_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "mine.sqlite3"))
    assert default_store_path() == tmp_path / "mine.sqlite3"
    GameStore().save_game("Sunday", SUNDAY, Rules())
    assert (tmp_path / "mine.sqlite3").is_file()
    monkeypatch.delenv(ENV_VAR)
    default = default_store_path()
    assert default.name == "games.sqlite3"
    assert "kingdomino-scorer" in default.parts


def test_missing_folders_are_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "games.sqlite3"
    GameStore(path).save_game("Sunday", SUNDAY, Rules())
    assert len(GameStore(path).games()) == 1


def test_an_empty_file_becomes_a_store(path: Path) -> None:
    path.touch()
    GameStore(path).save_game("Sunday", SUNDAY, Rules())
    assert len(GameStore(path).games()) == 1


def _sqlite_file(path: Path, *statements: str) -> Path:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def _damaged_copy(source: Path, target: Path) -> Path:
    """A games file whose pages after the header are overwritten with noise."""
    data = bytearray(source.read_bytes())
    for i in range(200, len(data)):
        data[i] = (i * 131 + 7) % 256
    target.write_bytes(bytes(data))
    return target


def _store_with_games(path: Path) -> Path:
    store = GameStore(path)
    for _ in range(3):
        store.save_game("Sunday", SUNDAY, Rules())
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")
    return path


UNUSABLE = {
    "text": (lambda d: _write(d / "g", b"G0 L0 C\n"), "is not a games file (it is not an SQLite"),
    "random bytes": (lambda d: _write(d / "g", os.urandom(5000)), "is not a games file"),
    "a JPEG": (lambda d: _write(d / "g", b"\xff\xd8\xff\xe0" + bytes(600)), "not a games file"),
    "header only": (lambda d: _write(d / "g", b"SQLite format 3\x00"), "damaged"),
    "newer version": (
        lambda d: _sqlite_file(
            d / "g",
            "CREATE TABLE games (id INTEGER PRIMARY KEY)",
            f"PRAGMA application_id = {APPLICATION_ID}",
            f"PRAGMA user_version = {SCHEMA_VERSION + 1}",
        ),
        "written by a newer version of this program (file version 2",
    ),
    "newer version, in WAL mode": (
        lambda d: _sqlite_file(
            d / "g",
            "PRAGMA journal_mode = WAL",
            "CREATE TABLE games (id INTEGER PRIMARY KEY)",
            f"PRAGMA user_version = {SCHEMA_VERSION + 5}",
        ),
        "newer version",
    ),
    "another program's database": (
        lambda d: _sqlite_file(d / "g", "CREATE TABLE photos (id INTEGER PRIMARY KEY)"),
        "another program's database, with tables such as photos",
    ),
    "another program's database, in WAL mode": (
        lambda d: _sqlite_file(
            d / "g", "PRAGMA journal_mode = WAL", "CREATE TABLE photos (id INTEGER PRIMARY KEY)"
        ),
        "another program's database, with tables such as photos",
    ),
    "another program's id": (
        lambda d: _sqlite_file(d / "g", "PRAGMA application_id = 1234"),
        "belongs to another program",
    ),
    "damaged pages": (
        lambda d: _damaged_copy(_store_with_games(d / "good"), d / "g"),
        "damaged",
    ),
    "tables dropped": (
        lambda d: _sqlite_file(_store_with_games(d / "g"), "DROP TABLE players"),
        "tables are missing",
    ),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("case", list(UNUSABLE))
def test_unusable_files_are_refused_and_left_unchanged(tmp_path: Path, case: str) -> None:
    make, message = UNUSABLE[case]
    path = make(tmp_path)
    before = path.read_bytes()
    siblings = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(StoreError, match=re.escape(message)) as caught:
        GameStore(path)
    assert isinstance(caught.value, ScorerError)
    assert str(path) in str(caught.value)
    assert "left unchanged" in caught.value.hint
    assert path.read_bytes() == before
    # refusing a file creates nothing beside it: no empty -wal and -shm files
    assert sorted(p.name for p in tmp_path.iterdir()) == siblings


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        GameStore(tmp_path)


def test_a_file_replaced_while_open_is_refused(path: Path) -> None:
    store = GameStore(path)
    store.save_game("Sunday", SUNDAY, Rules())
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer version"):
        store.games()
    with pytest.raises(StoreError, match="newer version"):
        store.save_game("Sunday", SUNDAY, Rules())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "games.sqlite3"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(StoreError, match=re.escape(f"the games file {fifo} is a named pipe")):
        GameStore(fifo)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("total", "'forty'", "has an unreadable total for Ben: 'forty'"),
        ("total", "'x' || hex(zeroblob(2000))", "has an unreadable total for Ben: 'x000000000…'"),
        ("total", "4.5", "has an unreadable total for Ben: 4.5"),
        ("name", "X'4265'", "has an unreadable player name: b'Be'"),
        ("grid", "X'43'", "has an unreadable kingdom for Ben: a kingdom is text, not bytes"),
    ],
)
def test_an_edited_value_is_a_store_error(
    store: GameStore, column: str, value: str, message: str
) -> None:
    game_id = store.save_game("Sunday", SUNDAY, Rules())
    with sqlite3.connect(store.path) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        conn.execute(f"UPDATE players SET {column} = {value} WHERE seat = 1")
    with pytest.raises(StoreError, match=re.escape(f"saved game {game_id} {message}")):
        store.games()


def _make_read_only(path: Path) -> bool:
    """Make ``path`` read-only even for root (which ignores permission bits); False when
    this machine cannot."""
    path.chmod(0o444)
    if not os.access(path, os.W_OK):
        return True
    result = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    return result.returncode == 0 and not os.access(path, os.W_OK)


def _make_writable(path: Path) -> None:
    subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
    path.chmod(0o644)


def test_a_read_only_file_is_read_and_saving_is_off(path: Path) -> None:
    GameStore(path).save_game("Sunday", SUNDAY, Rules())
    before = path.read_bytes()
    if not _make_read_only(path):
        _make_writable(path)
        pytest.skip("this machine cannot make a file read-only for this user")
    try:
        store = GameStore(path)
        assert store.read_only
        assert store.read_only_note is not None and "saving is off" in store.read_only_note
        assert [p.name for p in store.games()[0].players] == ["Ann", "Ben"]
        assert store.dynasties() == ["Sunday"]
        with pytest.raises(StoreError, match=r"saving is off: the games file .* is read-only"):
            store.save_game("Sunday", SUNDAY, Rules())
        with pytest.raises(StoreError, match="saving is off"):
            store.delete_game(1)
        assert path.read_bytes() == before
    finally:
        _make_writable(path)
    assert GameStore(path).read_only is False
    assert GameStore(path).read_only_note is None


def test_an_edited_grid_is_reported_not_trusted(store: GameStore) -> None:
    game_id = store.save_game("Sunday", SUNDAY, Rules())
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE players SET grid = 'C C' WHERE seat = 1")
    with pytest.raises(StoreError, match=f"saved game {game_id} has an unreadable kingdom for Ben"):
        store.games()


# --------------------------------------------------------------------------- crashes


_KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from scorer import store
    from scorer.rules.kingdom import Kingdom
    from scorer.rules.scoring import Rules

    path, kill_at = sys.argv[1], int(sys.argv[2])
    games = store.GameStore(path)
    real_connect = store._raw_connect
    seen = []

    def traced_connect(p):
        conn = real_connect(p)

        def trace(statement):
            seen.append(statement)
            if len(seen) == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)  # dies before this statement runs

        conn.set_trace_callback(trace)
        return conn

    store._raw_connect = traced_connect
    players = [("Ann", Kingdom.parse("C M3")), ("Ben", Kingdom.parse("C W1"))]
    games.save_game("Crash", players, Rules())
    print(len(seen))
    """
)


def test_a_writer_killed_mid_transaction_loses_no_finished_game(path: Path) -> None:
    store = GameStore(path)
    finished = [store.save_game("Sunday", SUNDAY, Rules()) for _ in range(2)]
    killed_at: list[int] = []
    for kill_at in range(1, 50):
        result = subprocess.run(
            [sys.executable, "-c", _KILLED_WRITER, str(path), str(kill_at)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if result.returncode == 0:  # it ran past its last statement: the game was saved
            assert int(result.stdout) == kill_at - 1
            break
        assert result.returncode == -9, result.stderr
        killed_at.append(kill_at)
        reopened = GameStore(path)
        assert [g.id for g in reopened.games()] == finished
        assert [p.kingdom for p in reopened.games()[0].players] == [ANN, BEN]
    assert len(killed_at) >= 5  # killed at BEGIN, each check, each insert and COMMIT
    saved = GameStore(path).games()
    assert [g.id for g in saved][:2] == finished
    assert [g.dynasty for g in saved] == ["Sunday", "Sunday", "Crash"]
    assert [p.name for p in saved[2].players] == ["Ann", "Ben"]


# --------------------------------------------------------------------------- concurrency


_WRITER = textwrap.dedent(
    """
    import sys
    from scorer.store import GameStore
    from scorer.rules.kingdom import Kingdom
    from scorer.rules.scoring import Rules

    path, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = GameStore(path)
    for i in range(count):
        players = [(f"{worker}-a", Kingdom.parse("C M3")), (f"{worker}-b", Kingdom.parse("C"))]
        store.save_game(f"{worker}-{i // 3}", players, Rules())
    """
)


def test_concurrent_processes_lose_nothing(path: Path) -> None:
    workers, count = 4, 9
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), f"w{n}", str(count)])
        for n in range(workers)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * workers
    games = GameStore(path).games()
    assert len(games) == workers * count
    assert len({g.id for g in games}) == workers * count
    assert len(GameStore(path).dynasties()) == workers * count // 3
    assert all(p.total == 3 for g in games for p in g.players if p.name.endswith("-a"))


def test_a_step_answered_busy_at_once_is_tried_again(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows creating a new file together: SQLite may answer "locked" without waiting.
    real, calls = store_module._prepare, []

    def busy_once(p: Path) -> int | None:
        calls.append(p)
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real(p)

    monkeypatch.setattr(store_module, "_prepare", busy_once)
    players = [("Ann", Kingdom.parse("C M3")), ("Ben", Kingdom.parse("C"))]
    GameStore(path).save_game("Sunday", players, Rules())
    assert len(calls) == 2
    assert len(GameStore(path).games()) == 1


def test_a_file_busy_for_too_long_is_a_clear_error(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def always_busy(p: Path) -> int | None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store_module, "_prepare", always_busy)
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 50)
    with pytest.raises(StoreBusyError, match="is busy"):
        GameStore(path)


def test_concurrent_threads_lose_nothing(store: GameStore) -> None:
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            tab = GameStore(store.path)  # each browser tab opens the store itself
            for i in range(6):
                players = [(f"t{worker}a", ANN), (f"t{worker}b", BEN)]
                tab.save_game(f"t{worker}-{i // 3}", players, Rules())
                tab.games()
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert len(store.games()) == 36


def test_two_tabs_racing_for_the_last_dynasty_game(path: Path) -> None:
    store = GameStore(path)
    for _ in range(DYNASTY_GAMES - 1):
        store.save_game("Sunday", SUNDAY, Rules())
    results: list[str] = []
    barrier = threading.Barrier(4)

    def tab() -> None:
        barrier.wait()
        try:
            GameStore(path).save_game("Sunday", SUNDAY, Rules())
            results.append("saved")
        except DynastyError:
            results.append("refused")

    threads = [threading.Thread(target=tab) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(results) == ["refused"] * 3 + ["saved"]
    assert len(store.games("Sunday")) == DYNASTY_GAMES
