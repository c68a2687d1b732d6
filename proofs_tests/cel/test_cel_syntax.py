"""CEL concrete syntax (the CEL paper, Fig. 2): parser, printer, precedence, errors and the round trip
``parse(format(φ)) == φ`` over generated formulas."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.core.predicates.ast import (FALSE, TRUE, And, Attr, Cmp, Const, IsType, Not, On, Or, Predicate)
from cer_theory.formalisms.cel.ast import (All, Atom, Conj, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Select,
                                       Seq, Start, Strategy, Unless, is_unary)
from cer_theory.formalisms.cel.parser import parse, parse_predicate
from cer_theory.formalisms.cel.printer import format, format_predicate
from cer_theory.testing.strategies.cel import conditions, formulas

try:
    from cer_theory.testing.strategies.predicates import nary_predicates, unary_predicates
except ImportError:  # pragma: no cover - fallback while the shared strategies are not there
    def unary_predicates(max_leaves: int = 6) -> st.SearchStrategy[Predicate]:
        atom = st.one_of(st.builds(lambda o, v: Cmp(Attr("x"), o, Const(v)), st.sampled_from(["=", "<", ">="]),
                                   st.integers(-2, 3)),
                         st.sampled_from([IsType("R"), TRUE, FALSE]))
        return st.recursive(atom, lambda c: st.one_of(c.map(Not), st.lists(c, min_size=2, max_size=3)
                                                       .map(lambda a: And(tuple(a)))), max_leaves=max_leaves)

    def nary_predicates(max_leaves: int = 5) -> st.SearchStrategy[Predicate]:
        return unary_predicates(max_leaves).map(lambda p: On("A", p))

R, T, U, H = Atom("R"), Atom("T"), Atom("U"), Atom("H")


def c(slot: str | None, name: str, op: str, value: object) -> Cmp:
    return Cmp(Attr(name, slot), op, Const(value))


# ---------------------------------------------------------------------------------------------- round trips


@settings(max_examples=300)
@given(formulas(unary=True, selection=True))
def test_round_trip_unary(phi: Formula) -> None:
    assert is_unary(phi)
    assert parse(format(phi)) == phi
    assert parse(format(phi, unicode=True)) == phi


@settings(max_examples=300)
@given(formulas(unary=False, selection=True, variables=("A", "B", "C"), max_depth=5))
def test_round_trip_binary(phi: Formula) -> None:
    assert parse(str(phi)) == phi
    assert parse(format(phi, unicode=True)) == phi


def _full(phi: Formula) -> str:
    """Every subformula parenthesized (and the filter condition too)."""
    match phi:
        case Atom(name):
            return name
        case Plus(b):
            return f"({_full(b)})+"
        case CPlus(b):
            return f"[{_full(b)}]⊕"
        case In(b, v):
            return f"({_full(b)}) AS {v}"
        case Filter(b, cond):
            return f"({_full(b)}) FILTER [{format_predicate(cond, unicode=True)}]"
        case Proj(b, vs):
            return f"π[{', '.join(vs)}]( {_full(b)} )"
        case Start(b):
            return f"START(({_full(b)}))"
        case Select(s, b):
            return f"{s.value}([{_full(b)}])"
        case _:
            op = {Seq: ";", Contig: ":", Disj: "OR", Conj: "AND", All: "ALL", Unless: "UNLESS"}[type(phi)]
            return f"({_full(phi.left)})\n  {op} ({_full(phi.right)})"  # type: ignore[attr-defined]


@settings(max_examples=150)
@given(formulas(unary=False))
def test_fully_parenthesized_input_is_accepted(phi: Formula) -> None:
    assert parse(_full(phi)) == phi


@settings(max_examples=200)
@given(conditions(("A", "R"), unary=False))
def test_condition_round_trip(cond: Predicate) -> None:
    phi = Filter(Seq(In(R, "A"), R), cond)
    assert parse(format(phi)) == phi


def _canonical(p: Predicate) -> Predicate:
    """What the parser builds for ``p``'s text: ``type = "R"`` (and ``!=``) become IsType tests."""
    match p:
        case Cmp(Attr("type", slot), "=" | "!=" as op, Const(str() as v)):
            return IsType(v, slot) if op == "=" else Not(IsType(v, slot))
        case Not(a):
            return Not(_canonical(a))
        case And(args):
            return And(tuple(map(_canonical, args)))
        case Or(args):
            return Or(tuple(map(_canonical, args)))
        case On(v, b):
            return On(v, _canonical(b))
    return p


@settings(max_examples=250)
@given(unary_predicates())
def test_predicate_round_trip_unary(p: Predicate) -> None:
    assert format_predicate(p) == p.text()
    assert parse_predicate(format_predicate(p)) == _canonical(p)
    assert parse_predicate(format_predicate(p, unicode=True)) == _canonical(p)


@settings(max_examples=150)
@given(nary_predicates())
def test_predicate_round_trip_qualified(p: Predicate) -> None:
    assert format_predicate(p) == p.text()
    assert parse_predicate(p.text()) == _canonical(p)
    phi = Filter(R, _canonical(p))  # the same text is a FILTER condition
    assert parse(format(phi)) == phi


# ---------------------------------------------------------------------------------------------- the paper's formulas

PHI1_COND = And((c("T", "tmp", ">", 40), c("H", "hum", "<=", 25), c("T", "id", "=", 0), c("H", "id", "=", 0)))
PHI1 = Filter(Seq(T, H), PHI1_COND)
PHI3 = Filter(Seq(Seq(In(H, "H1"), Plus(T)), In(H, "H2")),
              And((c("H1", "hum", "<", 30), c("H2", "hum", ">", 60), c("H", "id", "=", 1), c("T", "id", "=", 1))))


@pytest.mark.parametrize("text, expected", [
    ("(T;H) FILTER (T.tmp>40 ∧ H.hum<=25 ∧ T.id=0 ∧ H.id=0)", PHI1),
    ("(T;H) FILTER (T.tmp > 40 AND H.hum ≤ 25 AND T.id = 0 AND H.id = 0)", PHI1),
    ("(T:H) FILTER (T.tmp>40 ∧ H.hum<=25 ∧ T.id=0 ∧ H.id=0)", Filter(Contig(T, H), PHI1_COND)),
    ("[(T;H) OR (H;T)] FILTER (T.tmp>40 ∧ H.hum<=25 ∧ T.id=0 ∧ H.id=0)",
     Filter(Disj(Seq(T, H), Seq(H, T)), PHI1_COND)),
    ("[T ALL H] FILTER (T.tmp>40 ∧ H.hum<=25 ∧ T.id=0 ∧ H.id=0)", Filter(All(T, H), PHI1_COND)),
    ("[H IN H1 ; T+ ; H IN H2] FILTER (H1.hum<30 ∧ H2.hum>60 ∧ H.id=1 ∧ T.id=1)", PHI3),
    ("PI[T]([H IN H1 ; T+ ; H IN H2] FILTER (H1.hum<30 ∧ H2.hum>60 ∧ H.id=1 ∧ T.id=1))", Proj(PHI3, ("T",))),
    ("π[T](H IN H1 ; T+ ; H IN H2 FILTER (H1.hum<30 ∧ H2.hum>60 ∧ H.id=1 ∧ T.id=1))", Proj(PHI3, ("T",))),
    ("[H IN H1 ; T+ ; H IN H2] FILTER (H1.hum<30 ∧ H2.hum>60 ∧ H.id=T.id)",
     Filter(PHI3.body, And((c("H1", "hum", "<", 30), c("H2", "hum", ">", 60),
                            Cmp(Attr("id", "H"), "=", Attr("id", "T")))))),
    ("T:+", CPlus(T)),
    ("T⊕", CPlus(T)),
    ("STRICT((T;H) FILTER (T.tmp>40 ∧ H.hum<=25 ∧ T.id=0 ∧ H.id=0))", Select(Strategy.STRICT, PHI1)),
    ("R UNLESS T", Unless(R, T)),
    ("PI[](R)", Proj(R, ())),
    ("START(R ; T)", Start(Seq(R, T))),
    ("NXT(R) AND LAST(T) OR MAX(U)", Disj(Conj(Select(Strategy.NXT, R), Select(Strategy.LAST, T)),
                                         Select(Strategy.MAX, U))),
])
def test_paper_formulas(text: str, expected: Formula) -> None:
    assert parse(text) == expected
    assert parse(format(expected)) == expected


def test_paper_formulas_print() -> None:
    # as the paper writes them: a sequence under FILTER in parentheses (D383)
    assert str(PHI1) == "(T ; H) FILTER (T.tmp > 40 AND H.hum <= 25 AND T.id = 0 AND H.id = 0)"
    assert format(PHI1, unicode=True) == "(T ; H) FILTER (T.tmp > 40 ∧ H.hum ≤ 25 ∧ T.id = 0 ∧ H.id = 0)"
    assert str(Proj(PHI3, ("T",))) == ("PI[T]((H IN H1 ; T+ ; H IN H2) FILTER "
                                      "(H1.hum < 30 AND H2.hum > 60 AND H.id = 1 AND T.id = 1))")
    assert format(Proj(CPlus(T), ("T", "A")), unicode=True) == "π[A,T](T⊕)"
    assert repr(CPlus(T)) == "cel('T:+')"


# ---------------------------------------------------------------------------------------------- precedence


@pytest.mark.parametrize("text, expected", [
    ("R ; T+ IN A", Seq(R, In(Plus(T), "A"))),
    ("R+ IN A", In(Plus(R), "A")),
    ("R IN A IN B", In(In(R, "A"), "B")),
    ("R AS A", In(R, "A")),
    ("R ; T IN A", Seq(R, In(T, "A"))),
    ("R ; T : U", Contig(Seq(R, T), U)),
    ("R : T ; U", Seq(Contig(R, T), U)),
    ("R ; (T ; U)", Seq(R, Seq(T, U))),
    ("R OR T ; U", Disj(R, Seq(T, U))),
    ("R ; T OR U", Disj(Seq(R, T), U)),
    ("R OR T AND U", Conj(Disj(R, T), U)),
    ("R UNLESS T ALL U", All(Unless(R, T), U)),
    ("R AND (T OR U)", Conj(R, Disj(T, U))),
    ("R ; T FILTER R.x=1", Filter(Seq(R, T), c("R", "x", "=", 1))),
    ("R FILTER R.x=1 FILTER T.x=2", Filter(Filter(R, c("R", "x", "=", 1)), c("T", "x", "=", 2))),
    ("R FILTER R.x > 1 AND T", Conj(Filter(R, c("R", "x", ">", 1)), T)),
    ("R OR T FILTER T.x > 1", Disj(R, Filter(T, c("T", "x", ">", 1)))),
    ("R FILTER NOT R.x > 1 OR T", Disj(Filter(R, Not(c("R", "x", ">", 1))), T)),
    ("R ; T : U+ IN A FILTER A.x = 0 UNLESS R", Unless(Filter(Contig(Seq(R, T), In(Plus(U), "A")),
                                                             c("A", "x", "=", 0)), R)),
    ("R++", Plus(Plus(R))),
    ("R:++", Plus(CPlus(R))),
    ("R+:+", CPlus(Plus(R))),
    ("R⊕⊕", CPlus(CPlus(R))),
    ("R:+ : T", Contig(CPlus(R), T)),
    ("R : T:+", Contig(R, CPlus(T))),
    ("R:T", Contig(R, T)),
    ("(R ; T)+", Plus(Seq(R, T))),
    ("[R ; T]:+", CPlus(Seq(R, T))),
    ("PI[B,A,B](R IN A ; T IN B)", Proj(Seq(In(R, "A"), In(T, "B")), ("A", "B"))),
])
def test_precedence(text: str, expected: Formula) -> None:
    assert parse(text) == expected
    assert parse(format(expected)) == expected


@pytest.mark.parametrize("phi, text", [
    (Plus(Seq(R, T)), "(R ; T)+"),
    (Seq(R, Seq(T, U)), "R ; (T ; U)"),
    (Seq(Seq(R, T), U), "R ; T ; U"),
    (Seq(Disj(R, T), U), "(R OR T) ; U"),
    (Disj(R, Disj(T, U)), "R OR (T OR U)"),
    (Disj(Disj(R, T), U), "(R OR T) OR U"),  # operands of OR other than atoms, iterations, IN: parenthesized
    (In(Seq(R, T), "A"), "(R ; T) IN A"),
    (Seq(Filter(R, c("R", "x", "=", 1)), T), "(R FILTER R.x = 1) ; T"),
    (Filter(R, Not(c("R", "x", "=", 1))), "R FILTER (NOT R.x = 1)"),
    (Filter(R, Not(IsType("T", "R"))), "R FILTER (NOT R.type = \"T\")"),
    (Filter(R, On("R", And((IsType("R"), c(None, "x", "<", 3))))), 'R FILTER R[type = "R" AND x < 3]'),
    (Filter(Seq(H, T), Cmp(Attr("id", "H"), "=", Attr("id", "T"))), "(H ; T) FILTER H.id = T.id"),
    (CPlus(Plus(R)), "R+:+"),
])
def test_minimal_parentheses(phi: Formula, text: str) -> None:
    assert format(phi) == text


# ---------------------------------------------------------------------------------------------- lexical details


@pytest.mark.parametrize("text, expected", [
    ("R FILTER R.x = 2.5", c("R", "x", "=", 2.5)),
    ("R FILTER R.x = -3", c("R", "x", "=", -3)),
    ("R FILTER R.x >= 1e3", c("R", "x", ">=", 1000.0)),
    ("R FILTER R.x ≠ -0.5", c("R", "x", "!=", -0.5)),
    ("R FILTER R.s = 'it\\'s'", c("R", "s", "=", "it's")),
    ('R FILTER R.s = "a\\"b\\\\c\\n"', c("R", "s", "=", 'a"b\\c\n')),
    ("R FILTER R.b = true", c("R", "b", "=", True)),
    ("R FILTER false != R.b", Cmp(Const(False), "!=", Attr("b", "R"))),
    ("R FILTER 3 < R.x", Cmp(Const(3), "<", Attr("x", "R"))),
    ('R FILTER R.type = "T"', IsType("T", "R")),
    ("R FILTER R.type != 'T'", Not(IsType("T", "R"))),
    ("R FILTER R.type < 'T'", c("R", "type", "<", "T")),
    ("R FILTER TRUE", TRUE),
    ("R FILTER ¬ R[FALSE]", Not(On("R", FALSE))),
    ("R FILTER (R.x = 1 OR R.x = 2 ∨ NOT R.x = 3 AND R.x < 4)",
     Or((c("R", "x", "=", 1), c("R", "x", "=", 2), And((Not(c("R", "x", "=", 3)), c("R", "x", "<", 4)))))),
    ("R FILTER ((R.x = 1 AND R.x = 2) AND R.x = 3)",
     And((And((c("R", "x", "=", 1), c("R", "x", "=", 2))), c("R", "x", "=", 3)))),
    ("R FILTER [NOT NOT R.x = 1]", Not(Not(c("R", "x", "=", 1)))),
])
def test_condition_syntax(text: str, expected: Predicate) -> None:
    phi = parse(text)
    assert isinstance(phi, Filter) and phi.condition == expected
    assert parse(format(phi)) == phi


def test_comments_whitespace_and_names() -> None:
    assert parse("-- a comment\n  R\n\t;   -- another\n T  ") == Seq(R, T)
    assert parse("INPUT ; in ; _x1 IN ANDY") == Seq(Seq(Atom("INPUT"), Atom("in")), In(Atom("_x1"), "ANDY"))
    assert parse("R ; filter") == Seq(R, Atom("filter"))  # keywords are case-sensitive
    assert parse("[R]") == R and parse("((([R])))") == R


def test_parse_predicate() -> None:
    assert parse_predicate('tmp > 40 AND type = "H"') == And((c(None, "tmp", ">", 40), IsType("H")))
    assert parse_predicate("NOT (x ≤ 1 ∨ y = x)") == Not(Or((c(None, "x", "<=", 1),
                                                              Cmp(Attr("y"), "=", Attr("x")))))
    assert parse_predicate("type != 'R'") == Not(IsType("R"))
    assert parse_predicate("TRUE") == TRUE
    assert parse_predicate("T.x = 1 AND A[x > 0]") == And((c("T", "x", "=", 1), On("A", c(None, "x", ">", 0))))
    assert format_predicate(parse_predicate("x≤1 ∧ ¬(y ≠ 2)"), unicode=True) == "x ≤ 1 ∧ ¬(y ≠ 2)"


def test_infinite_constant_round_trips() -> None:
    p = c(None, "x", "<", float("inf"))
    assert parse_predicate(format_predicate(p)) == p


# ---------------------------------------------------------------------------------------------- errors


def _error(text: str, start: str = "formula") -> SyntaxErrorCER:
    with pytest.raises(SyntaxErrorCER) as info:
        parse(text) if start == "formula" else parse_predicate(text)
    return info.value


@pytest.mark.parametrize("text, line, column, fragments", [
    ("R ;\n ; T", 2, 2, ["unexpected ';'", "a formula", "a relation name", "START"]),
    ("R ; T )", 1, 7, ["unexpected ')'", "an operator", "end of input"]),
    ("(R ; T", 1, 7, ["end of input", "')'"]),
    ("((R)\n;\n(T", 3, 3, ["end of input", "')'"]),
    ("R ; T $", 1, 7, ["unexpected character '$'", "end of input"]),
    ("R\n  ; T ; → U", 2, 9, ["unexpected character '→'", "a formula"]),
    ("R ; IN", 1, 5, ["keyword IN", "a formula", "reserved"]),
    ("FILTER", 1, 1, ["keyword FILTER", "a formula"]),
    ("R IN AND", 1, 6, ["keyword AND", "a variable name"]),
    ("R FILTER", 1, 9, ["end of input", "a filter condition"]),
    ("R FILTER ; T", 1, 10, ["unexpected ';'", "a filter condition"]),
    ("R FILTER x > 1", 1, 12, ["'>'", "T.x"]),
    ("R FILTER R.x > 1 ; T", 1, 18, ["unexpected ';'", "end of input"]),
    ("R FILTER (R.x > 1 T)", 1, 19, ["name 'T'", "OR", "AND", "')'"]),
    ("R FILTER R[T.x > 1]", 1, 13, ["'.'", "comparison operator", "unqualified"]),
    ("R FILTER 1 < 2", 1, 14, ["number 2", "an attribute"]),
    ('R FILTER R.x = "ab', 1, 16, ["unterminated string"]),
    ("PI[A,,B](R)", 1, 6, ["unexpected ','", "a variable name"]),
    ("PI[A;B](R)", 1, 5, ["unexpected ';'", "','", "']'"]),
    ("PI[3](R)", 1, 4, ["number 3", "a variable name"]),
    ("PI(R)", 1, 3, ["'('", "'['"]),
    ("START R", 1, 7, ["name 'R'", "'('"]),
    ("R IN A:+", 1, 7, ["':+'", "an operator"]),
])
def test_error_positions(text: str, line: int, column: int, fragments: list[str]) -> None:
    e = _error(text)
    assert (e.line, e.column) == (line, column), str(e)
    assert e.text == text
    for fragment in fragments:
        assert fragment in str(e), (fragment, str(e))
    assert str(e).startswith(f"line {line}, column {column}: ")
    assert e.expected


def test_empty_input() -> None:
    for text in ("", "   \n ", "-- only a comment"):
        e = _error(text)
        assert (e.line, e.column) == (1, 1) and "empty input" in str(e) and "a formula" in str(e)
    e = _error("", start="predicate")
    assert "empty input" in str(e)


def test_predicate_errors() -> None:
    e = _error("x > ", start="predicate")
    assert (e.line, e.column) == (1, 4) and "end of input" in str(e)
    e = _error("x AND y", start="predicate")
    assert (e.line, e.column) == (1, 3) and "comparison operator" in str(e)
    e = _error("x = 1 )", start="predicate")
    assert (e.line, e.column) == (1, 7)


@settings(max_examples=300)
@given(st.text(alphabet=list("RTA ;:+⊕()[]INASFILTERORPI,.x=<>!1\"'-\n¬∧∨"), max_size=30))
def test_no_lark_exception_escapes(text: str) -> None:
    for fn in (parse, parse_predicate):
        try:
            fn(text)
        except SyntaxErrorCER as e:
            assert e.line >= 1 and e.column >= 1


# ---------------------------------------------------------------------------------------------- arithmetic (D204)

def _arith_cmp(slot):
    from cer_theory.core.predicates.ast import OPS, term_attrs
    from cer_theory.testing.strategies.predicates import arith_terms

    other = st.one_of(arith_terms(slot), st.integers(-5, 5).map(Const), st.just(Attr("x", slot)))
    return st.builds(Cmp, arith_terms(slot).filter(lambda t: bool(term_attrs(t))), st.sampled_from(tuple(OPS)),
                     other)


@settings(max_examples=60)
@given(_arith_cmp("R"), _arith_cmp(None), st.booleans())
def test_arithmetic_conditions_round_trip_in_every_position(qualified: Cmp, unqualified: Cmp, flip: bool) -> None:
    """CEQL's arithmetic (the CORE paper) in the CEL family's conditions: a qualified comparison in FILTER, an
    unqualified one in R[…] and in parse_predicate, each printed and parsed back to the same AST."""
    if flip:
        qualified = Cmp(qualified.right, qualified.op, qualified.left)
    for phi in (Filter(Atom("R"), qualified), Filter(Atom("R"), On("R", unqualified))):
        assert parse(format(phi)) == phi, format(phi)
    assert parse_predicate(format_predicate(unqualified)) == unqualified, format_predicate(unqualified)


def test_arithmetic_reads_as_ceql_reads_it() -> None:
    """Precedence and the minus sign: * / over + -, left-associative; -1 is the constant, -x is 0 - x."""
    from cer_theory.core.predicates.ast import Arith

    x, y = Attr("x", "T"), Attr("y", "T")
    assert parse("T FILTER T.x - 1 * 2 > -1").condition == Cmp(Arith("-", x, Arith("*", Const(1), Const(2))), ">",
                                                               Const(-1))
    assert parse("T FILTER T.x - T.y - 1 = 0").condition == Cmp(Arith("-", Arith("-", x, y), Const(1)), "=", Const(0))
    assert parse("T FILTER -T.x < (T.y + 1) / 2").condition == Cmp(Arith("-", Const(0), x), "<",
                                                                   Arith("/", Arith("+", y, Const(1)), Const(2)))
    assert parse("T FILTER T.x -1 > 0") == parse("T FILTER T.x - 1 > 0")  # no number swallows the minus
