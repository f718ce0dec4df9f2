"""The house rules of the code base, checked: no private names taken across modules,
function-local imports only for optional heavy dependencies (with a comment saying so), and
no module over 800 lines without a one-line reason at its top (``docs/architecture.md``).

The layers themselves are import-linter contracts (``pyproject.toml``), run by ``make lint``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "poolshark"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 800
LONG_MODULE_MARK = "Long module:"
"""A module over ``MAX_LINES`` says why in a docstring line starting with this mark."""
LAZY_IMPORT_MARK = "lazy:"
"""A function-local import carries a ``# lazy: <reason>`` comment on its line."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_module(node: ast.ImportFrom, module: str) -> str:
    """The absolute module an ``ImportFrom`` names, relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")[: -node.level]
    return ".".join([*base, node.module] if node.module else base)


def _private_imports(path: Path) -> list[str]:
    module = _module_name(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = _imported_module(node, module)
        if not source.startswith("poolshark") or source == module:
            continue
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                found.append(f"{module}:{node.lineno} takes {source}.{alias.name}")
    return found


def _unmarked_local_imports(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import | ast.ImportFrom):
                span = lines[inner.lineno - 1 : (inner.end_lineno or inner.lineno)]
                if not any(LAZY_IMPORT_MARK in line for line in span):
                    found.append(f"{_module_name(path)}:{inner.lineno}")
    return sorted(set(found))


def test_no_private_names_are_imported_across_modules() -> None:
    """A leading underscore means "this module's business": other modules use public names."""
    found = [hit for path in MODULES for hit in _private_imports(path)]
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def test_function_local_imports_say_why() -> None:
    """Imports sit at the top of a module; a local one (an optional heavy dependency, or
    torch kept out of the CLI's start) says so with a ``# lazy:`` comment."""
    found = [hit for path in MODULES for hit in _unmarked_local_imports(path)]
    assert not found, "function-local imports without a '# lazy:' reason:\n" + "\n".join(found)


@pytest.mark.parametrize("path", MODULES, ids=_module_name)
def test_long_modules_give_a_reason(path: Path) -> None:
    """About 800 lines is as much as one concept needs; a longer module says why at its top."""
    text = path.read_text()
    if len(text.splitlines()) <= MAX_LINES:
        return
    docstring = ast.get_docstring(ast.parse(text)) or ""
    assert LONG_MODULE_MARK in docstring, (
        f"{_module_name(path)} has {len(text.splitlines())} lines and no '{LONG_MODULE_MARK}' "
        "line in its docstring saying why"
    )
