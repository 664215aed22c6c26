"""The type stubs say what the code does: every public name is stubbed, and each stubbed
function has the real function's parameters, in order, with the same kinds."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import rapidllm
from rapidllm import _core

PACKAGE = Path(rapidllm.__file__).parent


def stub_functions(name: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse((PACKAGE / name).read_text())
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def stub_parameters(f: ast.FunctionDef) -> list[tuple[str, str]]:
    a = f.args
    out = [(p.arg, "POSITIONAL_OR_KEYWORD") for p in a.posonlyargs + a.args]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL"))
    out += [(p.arg, "KEYWORD_ONLY") for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD"))
    return out


def test_public_stubs_match_the_functions():
    stubs = stub_functions("__init__.pyi")
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    for name in rapidllm.__all__:
        if name == "__version__":
            continue
        obj = getattr(rapidllm, name)
        if inspect.isclass(obj):
            assert name in classes or name in imported, f"{name} is not in __init__.pyi"
            continue
        assert name in stubs, f"{name} is not in __init__.pyi"
        real = [(p.name, p.kind.name) for p in inspect.signature(obj).parameters.values()]
        assert stub_parameters(stubs[name]) == real, name


def test_core_stubs_name_every_compiled_function():
    stubs = stub_functions("_core.pyi")
    compiled = {n for n in dir(_core) if not n.startswith("__") and callable(getattr(_core, n))
                and not inspect.isclass(getattr(_core, n))}
    assert compiled == set(stubs)


def test_docstrings_give_units():
    for f in (rapidllm.predict, rapidllm.collective, rapidllm.sweep, rapidllm.serve):
        assert "(s)" in f.__doc__, f.__name__
    assert "(B/s)" in rapidllm.collective.__doc__ and "(J)" in rapidllm.predict.__doc__
