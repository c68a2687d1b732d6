"""One condition grammar for all the logics (core/conditions.lark): a generated arithmetic comparison, printed by
each logic with a text syntax (CEL, SO-CEL, ACEL, SREMO, CEQL) and parsed back, is the same predicate of the shared
AST in every one of them; and the condition grammar's text is part of every parser's table-cache key."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.conditions import GRAMMAR_PATH, IMPORT_PATH
from cer_theory.core.parsing import imported_grammars
from cer_theory.core.predicates.ast import Arith, Attr, Cmp, Const, On, Predicate, term_attrs
from cer_theory.formalisms.acel import ast as acel_ast
from cer_theory.formalisms.acel.parser import parse as parse_acel
from cer_theory.formalisms.acel.printer import format as format_acel
from cer_theory.formalisms.cel import ast as cel_ast
from cer_theory.formalisms.cel.parser import EXTENSION_IMPORT_PATHS
from cer_theory.formalisms.cel.parser import GRAMMAR_PATH as CEL_GRAMMAR
from cer_theory.formalisms.cel.parser import parse as parse_cel
from cer_theory.formalisms.cel.parser import parse_predicate
from cer_theory.formalisms.cel.printer import format as format_cel
from cer_theory.formalisms.cel.printer import format_predicate
from cer_theory.formalisms.ceql.parser import GRAMMAR_PATH as CEQL_GRAMMAR
from cer_theory.formalisms.ceql.parser import parse as parse_ceql
from cer_theory.formalisms.ceql.printer import format_filter
from cer_theory.formalisms.socel import ast as socel_ast
from cer_theory.formalisms.socel.parser import GRAMMAR_PATH as SOCEL_GRAMMAR
from cer_theory.formalisms.socel.parser import parse as parse_socel
from cer_theory.formalisms.socel.printer import format as format_socel
from cer_theory.formalisms.sremo.ast import Cond
from cer_theory.formalisms.sremo.parser import GRAMMAR_PATH as SREMO_GRAMMAR
from cer_theory.formalisms.sremo.parser import parse as parse_sremo
from cer_theory.formalisms.sremo.printer import format as format_sremo
from cer_theory.testing.strategies.predicates import arith_terms

OPS = st.sampled_from(["=", "!=", "<", "<=", ">", ">="])


def comparisons(slot: str | None) -> st.SearchStrategy[Cmp]:
    """``term op term`` with an arithmetic left side over the attributes of ``slot``."""
    right = st.one_of(arith_terms(slot), st.sampled_from([Attr("x", slot), Attr("y", slot)]))
    sides = st.tuples(arith_terms(slot), OPS, right).filter(lambda t: bool(term_attrs(t[0]) or term_attrs(t[2])))
    return sides.map(lambda t: Cmp(*t))


def qualified(p: Cmp, slot: str) -> Cmp:
    def term(t):
        if isinstance(t, Attr):
            return Attr(t.name, slot)
        if isinstance(t, Arith):
            return Arith(t.op, term(t.left), term(t.right))
        return t
    return Cmp(term(p.left), p.op, term(p.right))


def read_back(p: Cmp) -> dict[str, Predicate]:
    """``p`` (unqualified) printed and parsed by each logic; the FILTER logics read it on the variable R."""
    r = qualified(p, "R")
    cel = parse_cel(format_cel(cel_ast.Filter(cel_ast.Atom("R"), r)))
    socel = parse_socel(format_socel(socel_ast.Filter(socel_ast.Atom("R"), r)))
    acel = parse_acel(format_acel(acel_ast.Filter(acel_ast.Atom("R"), r)))
    ceql = parse_ceql(f"SELECT * FROM S WHERE R FILTER {format_filter(On('R', p))}").pattern
    sremo = parse_sremo(format_sremo(Cond(p)))
    assert isinstance(ceql, cel_ast.Filter) and isinstance(ceql.condition, On), ceql
    return {"CEL predicate": parse_predicate(format_predicate(p)), "CEL FILTER": cel.condition,
            "SO-CEL": socel.condition, "ACEL": acel.condition, "CEQL": ceql.condition.body, "SREMO": sremo.guard}


@settings(max_examples=150)
@given(comparisons(None))
def test_an_arithmetic_condition_is_one_predicate_in_every_logic(p):
    """Printed and parsed back by CEL, SO-CEL, ACEL (on R), SREMO and CEQL (inside R[...]), the comparison is the
    predicate it was: the one condition grammar, read by the one builder."""
    got = read_back(p)
    want = {logic: qualified(p, "R") if logic in ("CEL FILTER", "SO-CEL", "ACEL") else p for logic in got}
    assert got == want, (p.text(), {k: v.text() for k, v in got.items() if v != want[k]})


def test_worked_example_reads_alike_everywhere():
    """The FO-CEL(P₊) witness of the CEL paper's Thm 4.6 (``y.value + z.value = x.value``) in every syntax."""
    p = Cmp(Arith("+", Attr("value", "y"), Attr("value", "z")), "=", Attr("value", "x"))
    assert parse_predicate("y.value + z.value = x.value") == p
    assert parse_cel("(X ; Y ; Z) FILTER y.value + z.value = x.value").condition == p
    assert parse_socel("X ; Y ; Z FILTER y.value + z.value = x.value").condition == p
    value, stored = Attr("value"), Attr("value", "r1")
    want = Cmp(Arith("+", value, Arith("*", Const(1), Const(2))), "=", Arith("-", stored, Const(-3)))
    assert parse_sremo("<value + 1 * 2 = r1.value - -3>").guard == want
    assert parse_predicate("value + 1 * 2 = r1.value - -3") == want


def test_every_spelling_of_the_grammar_is_read_by_every_logic():
    """The grammar's other spellings (``∧ ∨ ¬ ≠ ≤ ≥``, a unary ``+``) mean the same in CEL, SREMO and CEQL;
    CEQL keeps CORE's own (``==``, ``<>``, lower-case keywords)."""
    want = parse_predicate("NOT x >= 1 AND y != 2 OR z <= 3 + 1")
    spelled = "¬ x ≥ 1 ∧ y ≠ 2 ∨ z ≤ +3 + 1"
    assert parse_predicate(spelled) == want
    assert parse_sremo(f"[{spelled}]").guard == want
    ceql = parse_ceql(f"SELECT * FROM S WHERE R FILTER R[{spelled}]").pattern.condition.body
    core = parse_ceql("SELECT * FROM S WHERE R FILTER R[not x >= 1 and y <> 2 or z <= +3 + 1]").pattern.condition.body
    assert ceql == core == want


def test_the_condition_grammar_is_in_every_importing_parsers_cache_key():
    """A parser's cached tables are keyed on the grammars it imports too: a changed condition grammar never meets
    the tables of the old one."""
    conditions = GRAMMAR_PATH.read_text(encoding="utf-8")
    for grammar, paths in ((CEL_GRAMMAR, (IMPORT_PATH,)), (SREMO_GRAMMAR, (IMPORT_PATH,)),
                           (CEQL_GRAMMAR, (IMPORT_PATH,)), (SOCEL_GRAMMAR, EXTENSION_IMPORT_PATHS)):
        imported = imported_grammars(grammar.read_text(encoding="utf-8"), paths)
        assert conditions in imported, grammar
    assert CEL_GRAMMAR.read_text(encoding="utf-8") in imported_grammars(SOCEL_GRAMMAR.read_text(encoding="utf-8"),
                                                                       EXTENSION_IMPORT_PATHS)
    assert imported_grammars("start: NAME\nNAME: /a/\n", (Path(IMPORT_PATH),)) == ""
