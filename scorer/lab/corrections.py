"""Export and import the kingdoms players confirmed, from the command line.

``python -m scorer.lab.corrections export OUT.zip`` writes every kingdom kept in the folder
(``--folder``, else ``$KINGDOMINO_CORRECTIONS``, else the user's data folder) into one
bundle with a manifest and sha256 checksums. ``python -m scorer.lab.corrections import
BUNDLE.zip...`` adds the kingdoms of each bundle not kept yet; a bundle that is too large,
damaged, tampered with or already imported is refused whole, and the others still go in.
``python -m scorer.lab.corrections show`` counts what is kept. Train on a folder with
``python -m scorer.train --corrections DIR``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from scorer.confirmed import MAX_BUNDLE_BYTES, ConfirmedStore, ConfirmedStoreError
from scorer.files import read_limited


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status (1 when any bundle or file was refused)."""
    parser = argparse.ArgumentParser(prog="python -m scorer.lab.corrections", description=__doc__)
    parser.add_argument("--folder", help="the folder of kept kingdoms (default: as the page)")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write every kept kingdom into one bundle")
    export.add_argument("out", help="the bundle to write (.zip)")
    imported = commands.add_parser("import", help="add the kingdoms of bundles")
    imported.add_argument("bundles", nargs="+", help="bundles (.zip) to import")
    commands.add_parser("show", help="count the kept kingdoms")
    args = parser.parse_args(argv)
    store = ConfirmedStore(args.folder)
    try:
        if args.command == "export":
            return _export(store, Path(args.out))
        if args.command == "import":
            return _import(store, [Path(b) for b in args.bundles])
        summary = store.summary()
    except ConfirmedStoreError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(
        f"{store.folder}: {summary.kingdoms} kingdoms, {summary.squares} squares "
        f"({summary.corrected} corrected), {summary.photos} photos, {summary.bytes:,} bytes"
    )
    return 0


def _export(store: ConfirmedStore, out: Path) -> int:
    summary = store.summary()
    if not summary.kingdoms:
        print(f"error: no kingdom is kept in {store.folder}: nothing to export", file=sys.stderr)
        return 1
    data = store.export_bundle()
    out.write_bytes(data)
    print(f"wrote {out}: {summary.kingdoms} kingdoms, {len(data):,} bytes", file=sys.stderr)
    return 0


def _import(store: ConfirmedStore, bundles: Sequence[Path]) -> int:
    status = 0
    for path in bundles:
        try:
            data = read_limited(
                path,
                MAX_BUNDLE_BYTES,
                what="a bundle",
                error=ConfirmedStoreError,
                too_large=lambda n: ConfirmedStoreError(
                    f"the bundle is {n:,} bytes, more than {MAX_BUNDLE_BYTES:,}"
                ),
            )
            result = store.import_bundle(data)
        except ConfirmedStoreError as err:
            print(f"{path}: refused: {err}", file=sys.stderr)
            status = 1
            continue
        print(
            f"{path}: {len(result.added)} kingdoms added, {len(result.duplicates)} already kept "
            f"(bundle sha256 {result.bundle_sha256[:16]}…)",
            file=sys.stderr,
        )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
