"""Extract the messages a player sees and update the catalogues of every language.

``python -m scorer.lab.messages`` reads the product's code (``scorer/`` less
``scorer/lab/``, and ``app.py``) with Babel, writes the template
``scorer/locale/messages.pot`` and merges it into each
``scorer/locale/<lang>/LC_MESSAGES/messages.po``: new messages come in untranslated,
messages the code no longer uses go. ``--check`` changes nothing and exits 1 when a
catalogue lacks a message the code uses, keeps one it no longer uses, or (German and
Swedish) leaves one untranslated. ``--add xx`` starts the catalogue of a new language.

The markers are :func:`scorer.i18n._`, :func:`~scorer.i18n.ngettext`, ``N_`` (a message
translated where it is shown), and the rules' :func:`~scorer.rules.phrase.phrase` and
:func:`~scorer.rules.phrase.plural_phrase`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from scorer.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR

ROOT: Final = LOCALE_DIR.parents[1]
"""The repository: the folder holding ``scorer/`` and ``app.py``."""

KEYWORDS: Final = {
    "_": None,
    "N_": None,
    "phrase": None,
    "ngettext": (1, 2),
    "plural_phrase": (1, 2),
}
"""The marker functions and where their message ids are (Babel's keyword form)."""

TEMPLATE: Final = LOCALE_DIR / f"{DOMAIN}.pot"


def sources(root: Path = ROOT) -> Iterator[Path]:
    """The product's Python files, in a fixed order."""
    yield root / "app.py"
    for path in sorted((root / "scorer").rglob("*.py")):
        if "lab" not in path.relative_to(root / "scorer").parts[:1]:
            yield path


def extract(root: Path = ROOT) -> Catalog:
    """Every message the code marks, with the files that use it."""
    catalog = Catalog(domain=DOMAIN, project="kingdomino-scorer", version="0.1.0", fuzzy=False)
    for path in sources(root):
        where = path.relative_to(root).as_posix()
        for line, message, comments, context in extract_from_file(
            "python", str(path), keywords=KEYWORDS, strip_comment_tags=True
        ):
            catalog.add(message, None, [(where, line)], auto_comments=comments, context=context)
    return catalog


def po_path(code: str) -> Path:
    """The catalogue file of one language."""
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(code: str) -> Catalog:
    """The catalogue of one language as it is on disk."""
    with po_path(code).open("rb") as f:
        return read_po(f, locale=code)


def write(catalog: Catalog, path: Path) -> None:
    """Write a catalogue or the template, without line numbers (they change with every edit)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=100, include_lineno=False, ignore_obsolete=True)


def update(codes: Sequence[str] = tuple(LANGUAGES)) -> Catalog:
    """Write the template and merge it into each language's catalogue (created if missing)."""
    template = extract()
    write(template, TEMPLATE)
    for code in codes:
        path = po_path(code)
        catalog = read(code) if path.is_file() else Catalog(locale=code, domain=DOMAIN)
        catalog.update(template, no_fuzzy_matching=True)
        _set_header(catalog)
        write(catalog, path)
    return template


def _set_header(catalog: Catalog) -> None:
    """The catalogue's header: this project, not Babel's placeholders; never fuzzy."""
    catalog.project = "kingdomino-scorer"
    catalog.version = "0.1.0"
    catalog.copyright_holder = "the kingdomino-scorer authors"
    catalog.msgid_bugs_address = ""
    catalog.last_translator = "the kingdomino-scorer authors"
    catalog.language_team = f"{LANGUAGES.get(str(catalog.locale), catalog.locale)}"
    catalog.fuzzy = False


@dataclass(frozen=True)
class Gaps:
    """What one catalogue lacks or keeps beyond the code's messages."""

    missing: tuple[str, ...]
    unused: tuple[str, ...]
    untranslated: tuple[str, ...]


def _key(message_id: str | Sequence[str]) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def gaps(code: str, template: Catalog | None = None) -> Gaps:
    """Compare one language's catalogue with the messages the code uses now."""
    template = template or extract()
    used = {_key(m.id) for m in template if m.id}
    catalog = read(code)
    held = {_key(m.id): m for m in catalog if m.id}
    untranslated = []
    if code != DEFAULT:
        for key, m in held.items():
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            if key in used and (m.fuzzy or not all(strings)):
                untranslated.append(key)
    return Gaps(
        tuple(sorted(used - set(held))), tuple(sorted(set(held) - used)), tuple(untranslated)
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Update the catalogues, or check them (``--check``); return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m scorer.lab.messages", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; report the gaps")
    parser.add_argument("--add", metavar="LANG", help="start the catalogue of a new language")
    args = parser.parse_args(argv)
    if args.check:
        template = extract()
        bad = False
        for code in LANGUAGES:
            found = gaps(code, template)
            for label, keys in vars(found).items():
                for key in keys:
                    bad = True
                    print(f"{code}: {label}: {key!r}")
        return 1 if bad else 0
    codes = [*LANGUAGES, *([args.add] if args.add else [])]
    template = update(codes)
    print(f"{len(template)} messages; updated {', '.join(str(po_path(c)) for c in codes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
