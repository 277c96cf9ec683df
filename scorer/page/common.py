"""Small types, constants and helpers the parts of the page share."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import streamlit as st
from numpy.typing import NDArray

from scorer.i18n import N_, _, message
from scorer.results.export import PlayerResult
from scorer.rules.errors import BoardNotFoundError, ScorerError
from scorer.rules.kingdom import ALL_CELLS, Cell, Kingdom, Position
from scorer.rules.scoring import ScoreBreakdown, Violation

if TYPE_CHECKING:
    from scorer.results.photo import KingdomReport

APP_DIR: Final = Path(__file__).resolve().parents[2]
"""The folder of ``app.py`` and ``sample_images/``."""

TOKENS: Final = [c.token for c in ALL_CELLS]
"""Every square value a player can pick when correcting: W0 … M3, C and ``.``."""

PER_PLAYER: Final = N_("One photo per player")
WHOLE_TABLE: Final = N_("One photo of the whole table")


@dataclass(frozen=True)
class Photo:
    """A photo given to the page: its bytes, a name to show and a key from its content."""

    name: str
    data: bytes
    sample: bool = False

    @property
    def key(self) -> str:
        """A short fingerprint of the content, stable across reruns."""
        return photo_key(self.data)


@dataclass(frozen=True)
class Problem:
    """An expected failure as the page shows it: what went wrong and what to do next."""

    kind: str
    message: str
    hint: str = ""
    corners_help: bool = False
    """True when marking the kingdom's corners by hand can get past it."""


@dataclass(frozen=True)
class FoundKingdom:
    """One kingdom from any input, as recognised or typed, before corrections by hand."""

    key: str
    source: str
    kingdom: Kingdom
    photo_key: str | None = None
    board: NDArray[Any] | None = None
    corners: NDArray[Any] | None = None
    doubtful: frozenset[Position] = frozenset()
    square_px: float = 0.0
    second_choices: tuple[tuple[Position, Cell], ...] = ()
    outline_note: str | None = None
    report: KingdomReport | None = None
    """The kingdom as the pipeline read it, for the JSON download; None for a typed grid."""
    reasons: tuple[str, ...] = ()
    """Why the program does not stand behind the total read (:mod:`scorer.results.verdict`)."""
    slot: str = ""
    """Which kingdom of its photo: ``"1"``… as detection found them, ``"added-1"``… added."""
    marked: bool = False
    """Whether it was read inside corners the player marked."""
    file_notes: tuple[str, ...] = ()
    """What reading its photo's file noticed (damaged EXIF…), for the JSON download."""

    @property
    def confirmed(self) -> bool:
        """Whether the program stands behind the total read (always, for a typed grid)."""
        return not self.reasons


@dataclass(frozen=True)
class PhotoView:
    """One photo as the page shows it: its preview and the kingdoms read in it, each through
    detection's outline or the corners the player marked."""

    photo: Photo
    preview: NDArray[Any]
    scale: float
    kingdoms: tuple[FoundKingdom, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """What the page keeps of one photo: a preview, the kingdoms found, or the problem."""

    preview: NDArray[Any] | None
    scale: float
    kingdoms: tuple[FoundKingdom, ...] = ()
    problem: Problem | None = None
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class Entry:
    """A player's kingdom as it stands on the page, after any correction by hand."""

    found: FoundKingdom
    name: str
    kingdom: Kingdom
    breakdown: ScoreBreakdown
    violations: tuple[Violation, ...]
    pictures: list[NDArray[Any]] = field(default_factory=list)
    """What the page drew for this kingdom (photo with outline, labelled kingdom), for the PNG."""
    player_confirmed: bool = False
    """Whether the player pressed "This is right" on this reading."""

    @property
    def settled(self) -> bool:
        """Whether the total counts: the program stands behind it, or the player confirmed it,
        corrected a square or marked the corners. Only settled totals are ranked."""
        found = self.found
        return found.confirmed or found.marked or self.corrected or self.player_confirmed

    @property
    def edited(self) -> frozenset[Position]:
        """Squares that differ from what was recognised or typed."""
        if self.kingdom.shape != self.found.kingdom.shape:
            return frozenset(p for p, _ in self.kingdom.cells())
        return frozenset(p for p, c in self.kingdom.cells() if self.found.kingdom[p] != c)

    @property
    def corrected(self) -> bool:
        """True when a player changed a square by hand."""
        return bool(self.edited)

    def result(self) -> PlayerResult:
        """The player's result for the downloads."""
        return PlayerResult(
            self.name,
            self.found.source,
            self.kingdom,
            self.corrected,
            report=self.found.report,
            confirmed=self.settled,
            file_notes=self.found.file_notes,
        )


def photo_key(data: bytes) -> str:
    """The short fingerprint of a photo's bytes that names it in the page's state.

    >>> photo_key(b"kingdom")
    'd7d4ce8b2d08'
    """
    return hashlib.sha1(data).hexdigest()[:12]


def show_problem(problem: Problem) -> None:
    """Show an expected failure: the message, then the next step."""
    st.error(problem.message)
    if problem.hint:
        st.info(_("Next step: {hint}", hint=problem.hint))


def problem_for(err: ScorerError) -> Problem:
    """The page's form of an expected failure: capitalised message, hint, and corners help.

    >>> problem_for(BoardNotFoundError("no kingdom-sized area of tiles found")).message
    'No kingdom-sized area of tiles found'
    """
    text = message(err) or type(err).__name__
    text = text[0].upper() + text[1:]
    return Problem(type(err).__name__, text, _(err.hint), isinstance(err, BoardNotFoundError))


def plural(n: int, noun: str) -> str:
    """A count with its noun, in the plural unless it is one.

    >>> plural(1, "crown"), plural(3, "square")
    ('1 crown', '3 squares')
    """
    return f"{n} {noun}{'' if n == 1 else 's'}"
