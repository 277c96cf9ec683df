"""Sentences as data: a message template, its values, and their English wording.

The rules explain a ranking and a broken tile-set limit in words, but they know no
language: they build :class:`Phrase` objects, whose template is the English
sentence with named placeholders (also its message id in the catalogues), and
:func:`render` turns them into text with a :class:`Wording`. :data:`ENGLISH`
gives the rules' own English; :mod:`scorer.i18n` gives the player's language.

>>> p = phrase("{names} share the victory.", names=Names(("Anna", "Ben", "Cleo")))
>>> render(p)
'Anna, Ben and Cleo share the victory.'
>>> render(plural_phrase("{name} has {n} crown", "{name} has {n} crowns", 1, name="Ben"))
'Ben has 1 crown'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias


@dataclass(frozen=True)
class Names:
    """Player names that a sentence joins as a list: "Anna, Ben and Cleo"."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Ordinal:
    """A place as an ordinal number: 3rd, 3., 3:e."""

    n: int


@dataclass(frozen=True)
class Phrase:
    """One message: its template (the English text, with ``{named}`` placeholders), the
    plural template when it counts ``n`` things, and the values of its placeholders."""

    text: str
    values: tuple[tuple[str, Value], ...] = ()
    plural: str | None = None
    n: int = 0

    @property
    def english(self) -> str:
        """The phrase in English, as the rules word it."""
        return render(self)


Value: TypeAlias = "int | str | Names | Ordinal | Phrase | tuple[Phrase, ...]"
"""What a placeholder can hold; a tuple of phrases is joined with commas."""


def N_(text: str) -> str:  # noqa: N802  (the gettext name for "mark, do not translate yet")
    """Mark ``text`` as a message for the catalogues; it is translated where it is shown."""
    return text


def phrase(text: str, /, **values: Value) -> Phrase:
    """A message without a plural."""
    return Phrase(text, tuple(values.items()))


def plural_phrase(singular: str, plural: str, n: int, /, **values: Value) -> Phrase:
    """A message whose wording depends on the count ``n`` (given to it as ``{n}`` too)."""
    return Phrase(singular, tuple({"n": n, **values}.items()), plural, n)


class Wording(Protocol):
    """A language's way of wording phrases: translation, number and list forms."""

    def gettext(self, text: str) -> str:
        """The translation of a message id."""

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The translation of a message with a plural, for ``n`` things."""

    def number(self, n: int) -> str:
        """An integer as the language writes it."""

    def names(self, names: Sequence[str]) -> str:
        """Names joined as a list: "Anna and Ben"."""

    def ordinal(self, n: int) -> str:
        """A place as an ordinal: "3rd"."""


class _English:
    """The rules' own English: messages as written, "A, B and C", 1st/2nd/3rd/4th."""

    def gettext(self, text: str) -> str:
        return text

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural

    def number(self, n: int) -> str:
        return str(n)

    def names(self, names: Sequence[str]) -> str:
        if len(names) == 1:
            return names[0]
        return ", ".join(names[:-1]) + " and " + names[-1]

    def ordinal(self, n: int) -> str:
        return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


ENGLISH: Wording = _English()
"""The wording of :attr:`Phrase.english`."""


def render(p: Phrase, wording: Wording = ENGLISH) -> str:
    """The phrase as text in ``wording``'s language; its values are worded first."""
    if p.plural is None:
        template = wording.gettext(p.text)
    else:
        template = wording.ngettext(p.text, p.plural, p.n)
    return template.format_map(_worded(dict(p.values), wording))


def _worded(values: Mapping[str, Value], wording: Wording) -> dict[str, str]:
    out = {}
    for key, value in values.items():
        if isinstance(value, Phrase):
            out[key] = render(value, wording)
        elif isinstance(value, tuple):
            out[key] = ", ".join(render(v, wording) for v in value)
        elif isinstance(value, Names):
            out[key] = wording.names(value.names)
        elif isinstance(value, Ordinal):
            out[key] = wording.ordinal(value.n)
        elif isinstance(value, int):
            out[key] = wording.number(value)
        else:
            out[key] = value
    return out


class WordedError(ValueError):
    """A refusal by the rules whose message is a :class:`Phrase`: ``str()`` gives its English,
    and :func:`scorer.i18n.message` words it in the player's language.

    >>> str(WordedError(phrase("a kingdom is at most {side}×{side}", side=7)))
    'a kingdom is at most 7×7'
    """

    def __init__(self, message: Phrase | str) -> None:
        super().__init__(message)
        self.wording = message if isinstance(message, Phrase) else phrase(message)

    def __str__(self) -> str:
        return self.wording.english
