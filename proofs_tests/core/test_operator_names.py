"""One naming of the same operator across the CEL-shaped ASTs (CEL, SO-CEL, ACEL): a formula class with the same
concrete operator has the same name in every one of them (``Disj`` for OR, ``Conj`` for AND, …), and no formula
class takes a name of the predicate language's (``And``, ``Or``, ``Not``), which reads as a condition."""

from __future__ import annotations

import inspect

import pytest

from cer_theory.core.predicates import ast as predicates
from cer_theory.formalisms.acel import ast as acel
from cer_theory.formalisms.cel import ast as cel
from cer_theory.formalisms.socel import ast as socel

MODULES = {"cel": cel, "socel": socel, "acel": acel}


def _formula_classes(module) -> dict[str, str]:
    """operator text → class name, for the formula node classes of ``module``."""
    out: dict[str, str] = {}
    for name, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ == module.__name__ and issubclass(cls, module.Formula) and cls is not module.Formula:
            op = getattr(cls, "operator", None)
            if isinstance(op, str):
                out[op] = name
    return out


def test_the_same_operator_has_the_same_class_name_in_every_cel_shaped_ast() -> None:
    names: dict[str, dict[str, str]] = {}
    for logic, module in MODULES.items():
        for op, cls in _formula_classes(module).items():
            names.setdefault(op, {})[logic] = cls
    differ = {op: by for op, by in names.items() if len(set(by.values())) > 1}
    assert not differ, differ
    assert names["OR"] == {"cel": "Disj", "socel": "Disj", "acel": "Disj"}
    assert names["AND"] == {"cel": "Conj", "socel": "Conj", "acel": "Conj"}


@pytest.mark.parametrize("logic", list(MODULES))
def test_no_formula_class_takes_a_predicate_name(logic: str) -> None:
    predicate_names = {name for name, cls in inspect.getmembers(predicates, inspect.isclass)
                       if cls.__module__ == predicates.__name__}
    clash = set(_formula_classes(MODULES[logic]).values()) & predicate_names
    assert not clash, (logic, clash)
