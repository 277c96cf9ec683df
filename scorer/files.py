"""Open the player's files safely: regular files only, never blocking, never reading past a limit.

A named pipe (FIFO) given as a photo would block the program forever, a device
such as ``/dev/zero`` never ends, and a folder or a socket cannot be read. Each
is refused by name before it is read: the path is checked with ``os.stat``, then
opened without blocking, and the open file is checked again (``os.fstat``), so a
file swapped for a pipe in between is refused too.

>>> import tempfile
>>> from scorer.rules.errors import ScorerError
>>> read_limited(tempfile.gettempdir(), 100, what="a text grid", error=ScorerError,
...              too_large=ScorerError)
Traceback (most recent call last):
...
scorer.rules.errors.ScorerError: this is a folder, not a text grid
>>> amounts(60_007_500, 60_000_000, 1_000_000, "megapixels", "pixels")
('60,007,500 pixels', '60,000,000 pixels')
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Final

from scorer.i18n import N_, _

_NOT_REGULAR: Final = (
    (stat.S_ISDIR, N_("a folder")),
    (stat.S_ISFIFO, N_("a named pipe (FIFO)")),
    (stat.S_ISCHR, N_("a device")),
    (stat.S_ISBLK, N_("a device")),
    (stat.S_ISSOCK, N_("a socket")),
)

_OPEN_FLAGS: Final = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once instead of waiting for a writer
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def not_regular(mode: int) -> str | None:
    """What a file of this ``st_mode`` is when it is not a regular file (``"a folder"`` …),
    or None for a regular file.

    >>> not_regular(os.stat(".").st_mode)
    'a folder'
    """
    if stat.S_ISREG(mode):
        return None
    for test, kind in _NOT_REGULAR:
        if test(mode):
            return kind
    return N_("not a regular file")


def check_regular(
    path: str | os.PathLike[str], *, what: str, error: Callable[[str], Exception]
) -> os.stat_result | None:
    """Refuse ``path`` unless it is a regular file; return its ``os.stat``, None when missing.

    Parameters
    ----------
    path : path
    what : str
        What the file should be, for the message: ``"an image"``, ``"a text grid"`` …
    error : callable
        Makes the exception to raise from a message.

    Raises
    ------
    Exception
        ``error("this is a named pipe (FIFO), not an image")`` and the like; a file that
        cannot be looked at gives ``error("this file cannot be read (…)")``.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except PermissionError:
        raise error(_("this file cannot be read (permission denied)")) from None
    except (OSError, ValueError) as err:  # a loop of links, a name too long, a NUL in it …
        raise error(_("this file cannot be read ({reason})", reason=_reason(err))) from None
    kind = not_regular(info.st_mode)
    if kind is not None:
        raise error(_("this is {kind}, not {what}", kind=_(kind), what=what))
    return info


def open_regular(
    path: str | os.PathLike[str], *, what: str, error: Callable[[str], Exception]
) -> BinaryIO:
    """Open a regular file for reading without ever blocking (see :func:`check_regular`).

    Raises
    ------
    Exception
        ``error("no such file")`` when it is missing; the errors of :func:`check_regular`.
    """
    if check_regular(path, what=what, error=error) is None:
        raise error(_("no such file"))
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise error(_("no such file")) from None
    except PermissionError:
        raise error(_("this file cannot be read (permission denied)")) from None
    except OSError as err:
        raise error(_("this file cannot be read ({reason})", reason=_reason(err))) from None
    try:
        kind = not_regular(os.fstat(fd).st_mode)  # the file opened is the file checked
        if kind is not None:
            raise error(_("this is {kind}, not {what}", kind=_(kind), what=what))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(
    path: str | os.PathLike[str],
    limit: int,
    *,
    what: str,
    error: Callable[[str], Exception],
    too_large: Callable[[int], Exception],
) -> bytes:
    """Read a whole regular file of at most ``limit`` bytes, refusing a larger one unread.

    Parameters
    ----------
    path : path
    limit : int
        The most bytes the file may hold.
    what, error
        As for :func:`check_regular`.
    too_large : callable
        Makes the exception for a file of the given size (in bytes) over ``limit``.
    """
    with open_regular(path, what=what, error=error) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise too_large(size)
        try:
            data = handle.read(limit + 1)
        except OSError as err:
            raise error(_("this file cannot be read ({reason})", reason=_reason(err))) from None
    if len(data) > limit:  # it grew after it was measured
        raise too_large(len(data))
    return data


def amounts(value: int, limit: int, scale: int, unit: str, exact_unit: str) -> tuple[str, str]:
    """``value`` and ``limit`` as a player reads them, with enough digits to tell them apart.

    Whole numbers of ``unit`` (``scale`` of the exact unit each) when they differ; else one
    decimal; else the exact counts with thousands separators.

    >>> amounts(51_000_000, 50_000_000, 1_000_000, "MB", "bytes")
    ('51 MB', '50 MB')
    >>> amounts(50_400_000, 50_000_000, 1_000_000, "MB", "bytes")
    ('50.4 MB', '50.0 MB')
    >>> amounts(70_000, 65_536, 1024, "KB", "bytes")
    ('68 KB', '64 KB')
    """
    for digits in (0, 1):
        shown = (_number(value / scale, digits), _number(limit / scale, digits))
        if shown[0] != shown[1]:
            return f"{shown[0]} {unit}", f"{shown[1]} {unit}"
    return f"{value:,} {exact_unit}", f"{limit:,} {exact_unit}"


def _number(amount: float, digits: int) -> str:
    if digits == 0 and amount < 10 and amount != int(amount):
        return f"{amount:.1f}" if amount >= 0.1 else f"{amount:.2g}"
    return f"{amount:.{digits}f}"


def _reason(err: BaseException) -> str:
    return (err.strerror if isinstance(err, OSError) else None) or str(err)


def user_data_path(env_var: str, name: str) -> Path:
    """Where the program keeps one of the player's files: ``$env_var`` if set, else ``name``
    in the user's data folder (``platformdirs``).

    >>> user_data_path("KINGDOMINO_NO_SUCH_VARIABLE", "games.sqlite3").name
    'games.sqlite3'
    """
    env = os.environ.get(env_var, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs  # only where a file is kept

    return Path(platformdirs.user_data_dir("kingdomino-scorer")) / name
