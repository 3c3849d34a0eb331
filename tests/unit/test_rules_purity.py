"""ARCHITECTURE §2: the pure rules core imports nothing but the standard library and itself."""

import ast
import sys
from pathlib import Path

import pytest

import domain.rules

RULES_DIR = Path(domain.rules.__file__).parent
MODULES = sorted(RULES_DIR.glob("*.py"))


def _imported_modules(source: str) -> list[str]:
    """Absolute module names a source file imports (relative imports stay inside the package)."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("module", MODULES, ids=[path.name for path in MODULES])
def test_a_rules_module_imports_only_the_standard_library_and_domain_rules(module):
    imported = _imported_modules(module.read_text(encoding="utf-8"))

    foreign = [
        name
        for name in imported
        if name.split(".")[0] not in sys.stdlib_module_names
        and name != "domain.rules"
        and not name.startswith("domain.rules.")
    ]
    assert foreign == []
