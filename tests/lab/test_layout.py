"""The package's layout: what a player runs never imports the lab, and no module grows too long.

The product is every module of ``scorer/`` outside ``scorer/lab/``, and ``app.py``; the four
launchers of ``python -m scorer.train``, ``evaluate``, ``evaluate_photos`` and ``bench``
only start the lab's commands and may import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "scorer"
LAB = "scorer.lab"
LAUNCHERS = frozenset(
    f"scorer/{name}.py" for name in ("train", "evaluate", "evaluate_photos", "bench")
)
MAX_LINES = 800


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _product_modules() -> list[Path]:
    lab = PACKAGE / "lab"
    product = [
        path
        for path in _modules()
        if lab not in path.parents and path.relative_to(ROOT).as_posix() not in LAUNCHERS
    ]
    return [*product, ROOT / "app.py"]


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every module an ``import`` or ``from … import`` in ``path`` (under ``root``) names,
    with its line; relative imports resolved, and ``from a import b`` giving ``a.b`` as
    well as ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package[: len(package) - node.level + 1]
                base = ".".join([*stem, *([base] if base else [])])
            found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return found


def _is_lab(name: str) -> bool:
    return name == LAB or name.startswith(LAB + ".")


def test_the_product_modules_are_found() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in _product_modules()}
    assert {"app.py", "scorer/pipeline.py", "scorer/read/classify.py"} <= names
    assert not any(name.startswith("scorer/lab/") for name in names)
    assert not names & LAUNCHERS


def test_no_product_module_imports_the_lab() -> None:
    offending = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _product_modules()
        for line, name in imported_modules(path)
        if _is_lab(name)
    ]
    assert not offending, "the product imports scorer.lab:\n" + "\n".join(offending)


def test_no_module_is_over_the_line_limit() -> None:
    long = [
        f"{path.relative_to(ROOT)}: {count} lines"
        for path in _modules()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert not long, f"modules over {MAX_LINES} lines:\n" + "\n".join(long)


@pytest.mark.parametrize(
    ("source", "where", "expected"),
    [
        ("import scorer.lab.train", "scorer/cli.py", True),
        ("from scorer.lab import datasets", "scorer/cli.py", True),
        ("from scorer import lab", "scorer/cli.py", True),
        ("def f():\n    from scorer.lab.fit import fit_cell_classifier", "scorer/cli.py", True),
        ("from ..lab.synth import make_scene", "scorer/read/cells.py", True),
        ("from . import lab", "scorer/__init__.py", True),
        ("from .classify import load_model", "scorer/read/cells.py", False),
        ("from scorer.read import classify", "scorer/cli.py", False),
        ("import scorer.labels", "scorer/cli.py", False),
    ],
)
def test_an_import_of_the_lab_is_recognised_in_any_form(
    source: str, where: str, expected: bool, tmp_path: Path
) -> None:
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source + "\n", encoding="utf-8")
    assert any(_is_lab(name) for _, name in imported_modules(path, tmp_path)) is expected
