"""The player's language: English, German or Swedish, for the page and the command line.

Messages are written in English in the code, as whole sentences with ``{named}``
placeholders, and translated through the gettext catalogues in
``scorer/locale/<lang>/LC_MESSAGES/messages.po`` (read and compiled in memory on
first use, so a fresh clone needs no build step). :func:`_` and :func:`ngettext`
translate and fill in a message; :func:`words` renders the rules' sentences
(:class:`~scorer.rules.phrase.Phrase`) with Babel's number and list forms:
"Anna und Ben teilen sich den Sieg."

The active language is held per thread of work (a context variable), so two players
on the page in different languages never mix; the command line chooses it from
``--lang``, else ``LC_ALL``, ``LC_MESSAGES`` or ``LANG``.

>>> with using("de"):
...     _("Place"), ngettext("{n} point", "{n} points", 3)
('Platz', '3 Punkte')
>>> _("Place")
'Place'

``python -m scorer.lab.messages`` extracts the messages and updates the catalogues.
"""

from __future__ import annotations

import gettext
import io
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Final, TypeVar

from scorer.rules.kingdom import GridParseError
from scorer.rules.phrase import N_, Phrase, Wording, render

LANGUAGES: Final = {"en": "English", "de": "Deutsch", "sv": "Svenska"}
"""The languages with a catalogue, by code, each named in itself."""

DEFAULT: Final = "en"
"""The language when nothing else is asked for: the one the messages are written in."""

LOCALE_DIR: Final = Path(__file__).resolve().parent / "locale"
"""Where the catalogues are: ``<lang>/LC_MESSAGES/messages.po``."""

DOMAIN: Final = "messages"

_active: ContextVar[str] = ContextVar("language", default=DEFAULT)

T = TypeVar("T")

__all__ = [
    "ACTIVE",
    "DEFAULT",
    "LANGUAGES",
    "N_",
    "_",
    "catalogue",
    "from_accept_language",
    "from_environment",
    "language",
    "match",
    "message",
    "names",
    "ngettext",
    "number",
    "ordinal",
    "pinned",
    "set_language",
    "using",
    "words",
]


def language() -> str:
    """The code of the active language: ``en``, ``de`` or ``sv``."""
    return _active.get()


def set_language(code: str) -> None:
    """Make ``code`` the active language of this thread of work (unknown codes: English)."""
    _active.set(code if code in LANGUAGES else DEFAULT)


@contextmanager
def using(code: str) -> Iterator[None]:
    """Use language ``code`` inside the ``with`` block, then the one before it."""
    token = _active.set(code if code in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _active.reset(token)


def pinned(func: Callable[[T], str]) -> Callable[[T], str]:
    """``func`` in the language active now, wherever it is called later: a widget's
    ``format_func``, which Streamlit may call outside the page's run.

    >>> with using("de"):
    ...     label = pinned(_)
    >>> label("Place")
    'Platz'
    """
    code = language()

    def in_language(value: T) -> str:
        with using(code):
            return func(value)

    return in_language


def match(tags: Sequence[str]) -> str | None:
    """The first supported language among locale tags or names, if any.

    >>> match(["de_AT.UTF-8"]), match(["fr-FR", "sv-SE"]), match(["C.UTF-8", "fr"])
    ('de', 'sv', None)
    """
    for tag in tags:
        code = re.split(r"[-_.@]", tag.strip().lower(), maxsplit=1)[0]
        if code in LANGUAGES:
            return code
    return None


def from_environment(env: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for: ``LC_ALL``, ``LC_MESSAGES``, then ``LANG``.

    The first of them that is set decides, as for any program using gettext.

    >>> from_environment({"LANG": "sv_SE.UTF-8"}), from_environment({"LC_ALL": "C", "LANG": "de"})
    ('sv', 'en')
    """
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return match([value]) or DEFAULT
    return DEFAULT


def from_accept_language(header: str) -> str | None:
    """The best supported language of an HTTP ``Accept-Language`` header, if any.

    >>> from_accept_language("fr-CH, fr;q=0.9, sv;q=0.8, de;q=0.7")
    'sv'
    >>> from_accept_language("de;q=0.5, en;q=0.9")
    'en'
    """
    ranked = []
    for i, part in enumerate(header.split(",")):
        tag, _sep, params = part.partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag.strip() and q > 0:
            ranked.append((-q, i, tag.strip()))
    return match([tag for _q, _i, tag in sorted(ranked)])


@cache
def catalogue(code: str) -> gettext.NullTranslations:
    """The compiled catalogue of a language (English has its message ids as they are).

    The message ids are English, so English needs no catalogue: its own is the template the
    others are made from, and compiling it (babel's catalogue code and 486 messages) would
    cost a cold command about 50 ms for nothing.
    """
    path = LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"
    if code == DEFAULT or not path.is_file():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        catalog = read_po(f, locale=code)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _(message: str, /, **values: object) -> str:
    """``message`` in the active language, its ``{named}`` placeholders filled in."""
    text = catalogue(language()).gettext(message)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, /, **values: object) -> str:
    """The form of a message for ``n`` things, in the active language; ``{n}`` is filled in
    with the number as the language writes it, and the other placeholders from ``values``."""
    text = catalogue(language()).ngettext(singular, plural, n)
    return text.format(n=number(n), **values)


def number(value: float, digits: int = 0) -> str:
    """A number as the active language writes it: "1,5" in German.

    >>> with using("de"):
    ...     number(1234.5, 1)
    '1.234,5'
    """
    from babel.numbers import format_decimal  # Babel loads on first use: a photo rarely needs it

    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=language())


def names(items: Sequence[str]) -> str:
    """Names joined as a list in the active language: "Anna und Ben".

    >>> with using("sv"):
    ...     names(["Anna", "Ben", "Cleo"])
    'Anna, Ben och Cleo'
    """
    from babel.lists import format_list

    return format_list(list(items), locale=language()) if items else ""


def ordinal(n: int) -> str:
    """A place in the active language: 3rd, 3., 3:e.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11)]
    ['1st', '2nd', '3rd', '4th', '11th']
    """
    code = language()
    if code == "de":
        return f"{n}."
    if code == "sv":
        return f"{n}:{'a' if n % 10 in (1, 2) and n % 100 not in (11, 12) else 'e'}"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{'th' if n % 100 in (11, 12, 13) else suffix}"


class _Active:
    """The active language as a :class:`~scorer.rules.phrase.Wording`."""

    def gettext(self, text: str) -> str:
        return catalogue(language()).gettext(text)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return catalogue(language()).ngettext(singular, plural, n)

    def number(self, n: int) -> str:
        return number(n)

    def names(self, items: Sequence[str]) -> str:
        return names(items)

    def ordinal(self, n: int) -> str:
        return ordinal(n)


ACTIVE: Final[Wording] = _Active()
"""The wording of the active language."""


def words(p: Phrase | str) -> str:
    """A sentence of the rules (or a message id) in the active language."""
    return render(p, ACTIVE) if isinstance(p, Phrase) else _(p)


def message(err: BaseException) -> str:
    """An error's message in the active language: its phrase worded, or its text translated.

    >>> from scorer.rules.kingdom import Kingdom
    >>> try:
    ...     Kingdom.parse("F1 X0 C")
    ... except ValueError as err:
    ...     with using("de"):
    ...         print(message(err))
    Zeile 1, Spalte 2: 'X0': unbekannter Geländebuchstabe 'X'
    """
    if isinstance(err, GridParseError):
        where = []
        if err.line is not None:
            where.append(_("line {n}", n=err.line))
        if err.column is not None:
            where.append(_("column {n}", n=err.column))
        prefix = ", ".join(where)
        if err.token is not None:
            prefix = f"{prefix}: {err.token!r}" if prefix else repr(err.token)
        reason = words(err.wording)
        return f"{prefix}: {reason}" if prefix else reason
    wording = getattr(err, "wording", None)
    if isinstance(wording, Phrase):
        return words(wording)
    return _(str(err))


def locale_name(code: str) -> str:
    """A language's name in the active language: "Schwedisch".

    >>> locale_name("sv")
    'Swedish'
    """
    from babel import Locale

    return Locale.parse(code).get_display_name(language()) or code
