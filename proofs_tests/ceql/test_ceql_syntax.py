"""CEQL syntax (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2 and CORE's grammar; docs/decisions.md D25).

The round trip ``parse(format(q)) == q`` is a property over generated queries; the paper's queries
(Fig. 1, App. G, the Pn suite of §5) must parse to the intended ASTs; the precedence of CORE's grammar is checked
on ``A;B OR C`` against the CEL paper reference semantics; errors name line, column and what was expected.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.core.windows import Window
from cer_theory.core.errors import SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.predicates.ast import (And, Arith, Attr, Cmp, Const, InRange, InSet, IsType, Like, Not, On, Or,
                                            Predicate, format_value)
from cer_theory.formalisms.cel.parser import parse_predicate
from cer_theory.formalisms.cel.printer import format_predicate
from cer_theory.formalisms.cel.semantics import evaluate_complex_events
from cer_theory.formalisms.cel.ast import (Atom, Conj, Contig, CPlus, Disj, Filter, In, Plus, Proj, Select, Seq,
                                       Strategy)
from cer_theory.formalisms.ceql.ast import KEYWORDS, Query, STREAM_ATTRIBUTE, StreamDeclaration
from cer_theory.formalisms.ceql.declarations import declaration_of, declaration_text
from cer_theory.streams.schema import Schema
from cer_theory.formalisms.ceql.parser import parse, parse_declarations
from cer_theory.formalisms.ceql.printer import format, format_declaration, format_expression
from cer_theory.testing.strategies.ceql import expressions, queries

A, B, C = Atom("A"), Atom("B"), Atom("C")


def where(text: str) -> Query:
    return parse(f"SELECT * WHERE {text}")


def cond(text: str) -> Predicate:
    """The predicate inside ``A[...]``."""
    pattern = parse(f"SELECT * WHERE A FILTER A[{text}]").pattern
    assert isinstance(pattern, Filter) and isinstance(pattern.condition, On)
    return pattern.condition.body


def on(var: str, attr: str, op: str, value: object) -> On:
    return On(var, Cmp(Attr(attr), op, Const(value)))


# ---------------------------------------------------------------------------------------------- round trip


@pytest.mark.parametrize("value, ceql_text, cel_text", [
    ("it's", "'it''s'", '"it\'s"'),
    ('say "hi" \\ bye', '\'say "hi" \\ bye\'', '"say \\"hi\\" \\\\ bye"'),
    (float("inf"), "1e999", "1e999"),
    (float("-inf"), "-1e999", "-1e999"),
    (1.5, "1.5", "1.5"),
    (True, "true", "true"),
])
def test_one_value_printer_for_both_languages(value: object, ceql_text: str, cel_text: str) -> None:
    """One ``format_value``: CORE's ``'…'`` (``''`` for a quote) for CEQL, ``"…"`` with backslash escapes for CEL,
    infinities as ``±1e999`` in both; each reads back to the same constant."""
    assert format_value(value, quote="'") == ceql_text  # type: ignore[arg-type]
    assert format_value(value) == cel_text  # type: ignore[arg-type]
    q = Query(Filter(A, on("A", "x", "=", value)))
    assert parse(format(q)) == q
    p = Cmp(Attr("x", "T"), "=", Const(value))  # type: ignore[arg-type]
    assert parse_predicate(format_predicate(p)) == p


@settings(max_examples=300)
@given(queries())
def test_format_round_trips(q: Query) -> None:
    text = format(q)
    assert parse(text) == q, text


@settings(max_examples=150)
@given(expressions())
def test_predicate_text_is_ceql(p: Predicate) -> None:
    """``p.text()`` of the extended predicates is CEQL expression syntax (for names that are not keywords)."""
    if {n.lower() for n in _attr_names(p)} & {k.lower() for k in KEYWORDS}:
        return  # text() does not backquote; format_expression does
    assert cond(p.text()) == p
    assert cond(format_expression(p)) == p


def _attr_names(p: Predicate) -> set[str]:
    names: set[str] = set()

    def term(t: object) -> None:
        if isinstance(t, Attr):
            names.add(t.name)
        elif isinstance(t, Arith):
            term(t.left)
            term(t.right)

    for node in p.walk():
        for field in ("left", "right", "term"):
            term(getattr(node, field, None))
    return names


# ---------------------------------------------------------------------------------------------- the paper's queries

FIG1_Q1 = ('SELECT * FROM Stock WHERE SELL as msft; SELL as intel; SELL as amzn FILTER msft[name="MSFT"] AND '
           'msft[price > 100] AND intel[name="INTC"] AND amzn[name="AMZN"] AND amzn[price < 2000]')
FIG1_Q2 = ("SELECT b FROM Stock WHERE (BUY OR SELL) as s; (BUY OR SELL) as b PARTITION BY [name], [volume] "
           "WITHIN 1 minute")
FIG1_Q3 = ("SELECT MAX * FROM Stock WHERE (BUY OR SELL) as low; (BUY OR SELL)+ as mid; (BUY OR SELL) as high "
           "FILTER low[price < 100] AND mid[price >= 100] AND mid[price <= 2000] AND high[price > 2000] "
           "PARTITION BY [name]")


def test_fig1_q1_parses_to_the_filtered_sequence() -> None:
    q = parse(FIG1_Q1)
    sells = Seq(Seq(In(Atom("SELL"), "msft"), In(Atom("SELL"), "intel")), In(Atom("SELL"), "amzn"))
    assert q == Query(pattern=Filter(sells, And((
        on("msft", "name", "=", "MSFT"), on("msft", "price", ">", 100), on("intel", "name", "=", "INTC"),
        on("amzn", "name", "=", "AMZN"), on("amzn", "price", "<", 2000)))), streams=("Stock",))


def test_fig1_q2_projection_partition_and_time_window() -> None:
    q = parse(FIG1_Q2)
    either = Disj(Atom("BUY"), Atom("SELL"))
    assert q.pattern == Seq(In(either, "s"), In(either, "b"))
    assert q.select == ("b",) and q.partition_by == (("name",), ("volume",))
    assert q.within == Window("time", 60)  # "1 minute": seconds, singular unit accepted
    assert q.to_cel() == Proj(q.pattern, ("b",))


def test_fig1_q3_max_strategy_and_kleene_variable() -> None:
    q = parse(FIG1_Q3)
    either = Disj(Atom("BUY"), Atom("SELL"))
    assert q.strategy == "MAX" and q.select is None and q.partition_by == (("name",),)
    assert isinstance(q.pattern, Filter)
    assert q.pattern.body == Seq(Seq(In(either, "low"), In(Plus(either), "mid")), In(either, "high"))
    assert q.to_cel(strategy=True) == Select(Strategy.MAX, q.pattern)


APP_G_FILTER_Q1 = ("msft[name = 'MSFT'] AND oracle[name = 'ORCL'] AND csco[name = 'CSCO'] "
                   "AND amat[name = 'AMAT']")
APP_G_FILTER_Q2 = ("msft[name = 'MSFT'] AND msft[price > 26.0] AND oracle[name = 'ORCL'] AND oracle[price > 11.14] "
                   "AND csco[name = 'CSCO'] AND amat[name = 'AMAT'] AND amat[price >= 18.92]")
APP_G_SEQ_Q1 = "(SELL as msft; BUY as oracle; BUY as csco; SELL as amat)"
APP_G_SEQ_Q4 = "(SELL as msft; (BUY OR SELL) as oracle; (BUY OR SELL) as csco; SELL as amat)"
APP_G = {
    "Q1": f"SELECT * FROM S WHERE {APP_G_SEQ_Q1} FILTER {APP_G_FILTER_Q1} WITHIN 30000 [stock_time]",
    "Q2": f"SELECT * FROM S WHERE {APP_G_SEQ_Q1} FILTER {APP_G_FILTER_Q2} WITHIN 30000 [stock_time]",
    "Q3": (f"SELECT * FROM S WHERE {APP_G_SEQ_Q1} FILTER {APP_G_FILTER_Q1} PARTITION BY [volume] "
           f"WITHIN 30000 [stock_time] CONSUME BY ANY"),
    "Q4": f"SELECT * FROM S WHERE {APP_G_SEQ_Q4} FILTER {APP_G_FILTER_Q1} WITHIN 30000 [stock_time]",
    "Q5": f"SELECT * FROM S WHERE {APP_G_SEQ_Q4} FILTER {APP_G_FILTER_Q2} WITHIN 30000 [stock_time]",
    "Q6": (f"SELECT * FROM S WHERE {APP_G_SEQ_Q4} FILTER {APP_G_FILTER_Q1} PARTITION BY [volume] "
           f"WITHIN 30000 [stock_time] CONSUME BY ANY"),
    "Q7": ("SELECT * FROM S WHERE (SELL as msft; (BUY OR SELL)+ as qqq; SELL as amat) FILTER msft[name = 'MSFT'] "
           "AND qqq[name = 'QQQ'] and qqq[volume=4000] AND amat[name = 'AMAT'] WITHIN 30000 [stock_time]"),
}


@pytest.mark.parametrize("name", sorted(APP_G))
def test_appendix_g_stock_queries(name: str) -> None:
    q = parse(APP_G[name])
    assert q.streams == ("S",) and q.within == Window("attribute", 30000, attribute="stock_time")
    assert isinstance(q.pattern, Filter) and isinstance(q.pattern.condition, And)
    assert all(isinstance(a, On) for a in q.pattern.condition.args)
    assert (q.partition_by, q.consume) == (((("volume",),), "ANY") if name in ("Q3", "Q6") else ((), None))
    assert parse(format(q)) == q
    if name == "Q7":
        assert q.pattern.body == Seq(Seq(In(Atom("SELL"), "msft"), In(Plus(Disj(Atom("BUY"), Atom("SELL"))), "qqq")),
                                     In(Atom("SELL"), "amat"))
        assert on("qqq", "volume", "=", 4000) in q.pattern.condition.args


# The Pn benchmark suite of the CORE paper §5, written as a generator (verbatim apart from formatting).
STOCK_NAMES = ['INTC', 'RIMM', 'QQQ', 'IPIX', 'AMAT', 'CSCO', 'YHOO', 'DELL', 'ORCL', 'MSFT', 'INTC', 'RIMM'] * 2
HOUSEHOLDS = [0, 2, 4, 6, 9, 10, 12, 14, 15, 4, 9, 10] * 2
Z = dict(EHN='East Harlem North', MW='Midwood', GR='Gravesend', WB='West Brighton', LSW='Lincoln Square West',
         SP='Sutton Place/Turtle Bay North', EC='East Concourse/Concourse Village')
_T12 = [('EHN', 'MW'), ('MW', 'GR'), ('GR', 'WB'), ('WB', 'LSW'), ('LSW', 'SP'), ('SP', 'EC'),
        ('EC', 'EHN'), ('EHN', 'EHN'), ('EHN', 'GR'), ('GR', 'MW'), ('MW', 'MW'), ('MW', 'GR')]
TAXI = _T12 + [('GR', 'MW')] + _T12[1:]


def p_query(ds: str, n: int, no_output: bool = False, mult: int = 1) -> str:
    if ds == 'stock':
        ev = [f"{'SELL' if k % 3 == 0 else 'BUY'} as T{k + 1}" for k in range(n)]
        fl = [f"T{k + 1}[name = '{STOCK_NAMES[k]}']" for k in range(n)]
        if no_output:
            ev.append("BUY as NE")
            fl.append("NE[name = 'NotExists']")
        return (f"SELECT * FROM S WHERE ({'; '.join(ev)}) FILTER {' AND '.join(fl)} "
                f"WITHIN {10000 * mult} [stock_time]")
    if ds == 'homes':
        ev = [f"LOAD as L{k + 1}" for k in range(n)]
        fl = ["L[value > 76]"] + [f"L{k + 1}[household_id = {HOUSEHOLDS[k]}]" for k in range(n)]
        if no_output:
            ev.append("LOAD as NE")
            fl.append("NE[household_id = 1000]")
        return (f"SELECT * FROM S WHERE ({'; '.join(ev)}) as L FILTER {' AND '.join(fl)} "
                f"WITHIN {10 * mult} [plug_timestamp]")
    ev = [f"TRIP as loc{k + 1}" for k in range(n)]
    fl = [f"loc{k + 1}[pickup_loc = '{Z[a]}' AND dropoff_loc = '{Z[b]}']" for k, (a, b) in enumerate(TAXI[:n])]
    if no_output:
        ev.append("TRIP as NE")
        fl.append("NE[pickup_loc = 'NotExists']")
    return (f"SELECT * FROM S WHERE ({'; '.join(ev)}) FILTER {' AND '.join(fl)} "
            f"WITHIN {10000 * mult} [dropoff_datetime]")


@pytest.mark.parametrize("ds", ["stock", "homes", "taxi"])
@pytest.mark.parametrize("n", [3, 6, 9, 12, 24])
def test_pn_benchmark_queries(ds: str, n: int) -> None:
    for no_output, mult in ((False, 1), (True, 1), (True, 4)):
        q = parse(p_query(ds, n, no_output, mult))
        assert isinstance(q.pattern, Filter)
        body = q.pattern.body
        if ds == "homes":  # ( ... ) as L: the whole sequence is bound to L, and L[value > 76] filters it
            assert isinstance(body, In) and body.var == "L"
            body = body.body
        steps = 0
        while isinstance(body, Seq):
            steps, body = steps + 1, body.left
        assert steps + 1 == n + no_output
        conds = q.pattern.condition.args  # type: ignore[attr-defined]
        assert len(conds) == n + no_output + (ds == "homes")
        attribute = {"stock": "stock_time", "homes": "plug_timestamp", "taxi": "dropoff_datetime"}[ds]
        assert q.within == Window("attribute", {"homes": 10}.get(ds, 10000) * mult, attribute=attribute)
    taxi1 = parse(p_query("taxi", 3)).pattern.condition.args[0]  # type: ignore[attr-defined]
    if ds == "taxi":
        assert taxi1 == On("loc1", And((Cmp(Attr("pickup_loc"), "=", Const("East Harlem North")),
                                        Cmp(Attr("dropoff_loc"), "=", Const("Midwood")))))


def test_oracle_e5_or_inside_and_outside_the_brackets() -> None:
    inside = where("(B+ as x) FILTER x[v=1 OR v=2]").pattern
    outside = where("(B+ as x) FILTER x[v=1] OR x[v=2]").pattern
    body = In(Plus(B), "x")
    v1, v2 = Cmp(Attr("v"), "=", Const(1)), Cmp(Attr("v"), "=", Const(2))
    assert inside == Filter(body, On("x", Or((v1, v2))))
    assert outside == Filter(body, Or((On("x", v1), On("x", v2))))


# ---------------------------------------------------------------------------------------------- precedence


@pytest.mark.parametrize("text, expected", [
    ("A ; B OR C", Disj(Seq(A, B), C)),                      # oracle E7: OR and ; share one level
    ("A OR B ; C", Seq(Disj(A, B), C)),
    ("A ; (B OR C)", Seq(A, Disj(B, C))),
    ("A : B ; C", Seq(Contig(A, B), C)),
    ("A ; B : C OR A", Disj(Contig(Seq(A, B), C), A)),
    ("H + as hs", In(Plus(Atom("H")), "hs")),               # CORE's grammar: (H+) as hs
    ("A as a+", Plus(In(A, "a"))),
    ("A ; B+", Seq(A, Plus(B))),
    ("A ; B:+ AS b", Seq(A, In(CPlus(B), "b"))),
    ("A AS a ; B AS b FILTER a[x > 1]", Filter(Seq(In(A, "a"), In(B, "b")), on("a", "x", ">", 1))),
    ("(A FILTER A[x > 1]) ; B", Seq(Filter(A, on("A", "x", ">", 1)), B)),
    ("A FILTER A[x > 1] FILTER A[y > 1]", Filter(Filter(A, on("A", "x", ">", 1)), on("A", "y", ">", 1))),
    ("A FILTER A[x > 1] OR A[y > 1] AND A[z > 1]",
     Filter(A, Or((on("A", "x", ">", 1), And((on("A", "y", ">", 1), on("A", "z", ">", 1))))))),
    ("A FILTER (A[x > 1] OR A[y > 1]) AND A[z > 1]",
     Filter(A, And((Or((on("A", "x", ">", 1), on("A", "y", ">", 1))), on("A", "z", ">", 1))))),
    ("S>A", Filter(A, On("A", Cmp(Attr(STREAM_ATTRIBUTE), "=", Const("S"))))),
])
def test_precedence(text: str, expected: object) -> None:
    assert where(text).pattern == expected


@pytest.mark.parametrize("text, formula, outputs", [
    # E7 on the stream A C B: the CEL paper complex events (data sets) ending at positions 0, 1, 2
    ("A;B OR C", Disj(Seq(A, B), C), [set(), {frozenset({1})}, {frozenset({0, 2})}]),
    ("A;(B OR C)", Seq(A, Disj(B, C)), [set(), {frozenset({0, 1})}, {frozenset({0, 2})}]),
])
def test_oracle_e7_precedence_changes_the_output(text: str, formula: object, outputs: list[set]) -> None:
    pattern = where(text).pattern
    assert pattern == formula
    assert [set(x) for x in evaluate_complex_events(pattern, Stream.from_types("A C B"))] == outputs


@pytest.mark.parametrize("text, expected", [
    ("x - y - 1 > 0", Cmp(Arith("-", Arith("-", Attr("x"), Attr("y")), Const(1)), ">", Const(0))),
    ("x - (y - 1) > 0", Cmp(Arith("-", Attr("x"), Arith("-", Attr("y"), Const(1))), ">", Const(0))),
    ("x + y * 2 >= 1", Cmp(Arith("+", Attr("x"), Arith("*", Attr("y"), Const(2))), ">=", Const(1))),
    ("(x + y) / 2 = 1.5", Cmp(Arith("/", Arith("+", Attr("x"), Attr("y")), Const(2)), "=", Const(1.5))),
    ("-x * 2 < -3", Cmp(Arith("*", Arith("-", Const(0), Attr("x")), Const(2)), "<", Const(-3))),
    ("x > -2.5e3", Cmp(Attr("x"), ">", Const(-2500.0))),
    ("x - -1 == +2", Cmp(Arith("-", Attr("x"), Const(-1)), "=", Const(2))),
    ("x <> .5", Cmp(Attr("x"), "!=", Const(0.5))),
    ("name = 'it''s'", Cmp(Attr("name"), "=", Const("it's"))),
    ('name != "a\\"b\\\\"', Cmp(Attr("name"), "!=", Const('a"b\\'))),
    ("'MSFT' = name", Cmp(Const("MSFT"), "=", Attr("name"))),
    ("flag = TRUE AND ok != false", And((Cmp(Attr("flag"), "=", Const(True)), Cmp(Attr("ok"), "!=", Const(False))))),
    ("type = 'BUY'", IsType("BUY")),
    ("type <> 'BUY'", Not(IsType("BUY"))),
    ("name LIKE 'M.*\\d'", Like(Attr("name"), "M.*\\d")),
    ("x IN {1, 2.5, 'a'}", InSet(Attr("x"), frozenset([Const(1), Const(2.5), Const("a")]))),
    ("x NOT IN {'a'}", InSet(Attr("x"), frozenset([Const("a")]), negated=True)),
    ("x IN {-1..5}", InRange(Attr("x"), -1, 5)),
    ("x not in {1.5..}", InRange(Attr("x"), 1.5, None, negated=True)),
    ("x IN {..-2}", InRange(Attr("x"), None, -2)),
    ("NOT x > 1 AND y < 2 OR z = 3", Or((And((Not(Cmp(Attr("x"), ">", Const(1))), Cmp(Attr("y"), "<", Const(2)))),
                                         Cmp(Attr("z"), "=", Const(3))))),
    ("NOT (x > 1 OR y < 2)", Not(Or((Cmp(Attr("x"), ">", Const(1)), Cmp(Attr("y"), "<", Const(2)))))),
    ("`select` >= 1", Cmp(Attr("select"), ">=", Const(1))),
])
def test_expression_syntax(text: str, expected: Predicate) -> None:
    assert cond(text) == expected


# ---------------------------------------------------------------------------------------------- clauses


@pytest.mark.parametrize("text, window", [
    ("WITHIN 1 HOURS 30 MINUTES", Window("time", 5400)),
    ("within 1 hour", Window("time", 3600)),
    ("WITHIN 2 HOURS 5 SECONDS", Window("time", 7205)),
    ("WITHIN 90 seconds", Window("time", 90)),
    ("WITHIN 1.5 SECONDS", Window("time", 1.5)),
    ("WITHIN 10 EVENTS", Window("events", 10)),
    ("WITHIN 10000 [stock_time]", Window("attribute", 10000, attribute="stock_time")),
    ("WITHIN 0.5 [`time`]", Window("attribute", 0.5, attribute="time")),
])
def test_windows(text: str, window: Window) -> None:
    q = parse(f"SELECT * WHERE A {text}")
    assert q.within == window
    assert parse(format(q)) == q


def test_all_clauses_keywords_case_insensitive_and_comments() -> None:
    q = parse("""
        sElEcT next a, b -- a comment
        FrOm S1, S2 /* a block
        comment */ wHeRe A aS a ; b PARTITION by [x, y], [z] within 5 events Consume By partition LiMiT 7
    """)
    assert q == Query(pattern=Seq(In(A, "a"), Atom("b")), strategy="NEXT", select=("a", "b"), streams=("S1", "S2"),
                      partition_by=(("x", "y"), ("z",)), within=Window("events", 5), consume="PARTITION", limit=7)
    assert parse("SELECT ALL * WHERE A") == parse("SELECT * WHERE A")  # ALL is the default
    assert parse("SELECT NONE WHERE A").select == ()
    assert parse("SELECT * WHERE A /* unterminated comment runs to the end").pattern == A
    assert parse("SELECT * WHERE `Event` AS `by`").pattern == In(Atom("Event"), "by")


def test_to_cel_projection_and_strategies() -> None:
    q = parse("SELECT a WHERE A AS a ; B")
    assert q.to_cel() == Proj(Seq(In(A, "a"), B), ("a",))
    assert parse("SELECT NEXT * WHERE A").to_cel(strategy=True) == Select(Strategy.NXT, A)
    assert parse("SELECT LAST a WHERE A AS a").to_cel(strategy=True) == Select(Strategy.LAST,
                                                                                    Proj(In(A, "a"), ("a",)))
    assert parse("SELECT STRICT * WHERE A").to_cel() == A  # the strategy only on request
    with pytest.raises(UnsupportedError):
        parse("SELECT ANY * WHERE A").to_cel(strategy=True)


def test_format_refuses_what_ceql_cannot_write() -> None:
    for q in (Query(pattern=Conj(A, B)),
              Query(pattern=Filter(A, Cmp(Attr("x", "A"), ">", Const(1)))),
              Query(pattern=A, within=Window("events", 3, strict=True)),
              Query(pattern=A, within=Window("time", 3, attribute="ts"))):
        with pytest.raises(UnsupportedError):
            format(q)


def test_query_validates_its_fields() -> None:
    for bad in (dict(strategy="FIRST"), dict(consume="ALL"), dict(limit=-1), dict(partition_by=((),))):
        with pytest.raises(ValueError):
            Query(pattern=A, **bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- declarations


def test_declarations() -> None:
    decls = parse_declarations("""
        CREATE STREAM S { EVENT BUY { name:string, price:double, volume:int }, EVENT SELL { name:STRING } };
        DECLARE STREAM H { EVENT LOAD { plug_timestamp:primary_time, value:double } }
        DECLARE EVENT TRIP(id int, zone string)  -- CORE-paper's older syntax
        DECLARE STREAM T(TRIP)
    """)
    assert decls == [
        StreamDeclaration("S", {"BUY": {"name": "string", "price": "double", "volume": "int"},
                                "SELL": {"name": "string"}}),
        StreamDeclaration("H", {"LOAD": {"plug_timestamp": "primary_time", "value": "double"}}),
        StreamDeclaration("T", {"TRIP": {"id": "int", "zone": "string"}}),
    ]
    assert decls[0].kinds()["BUY"] == {"name": "str", "price": "num", "volume": "num"}
    for d in decls:
        assert parse_declarations(format_declaration(d)) == [d]
    assert parse_declarations("") == []


def test_schema_declares_itself_in_ceql() -> None:
    """A schema (declared or inferred) prints as CORE's ``CREATE STREAM`` and reads back with the same kinds; a
    reserved word as a name is backquoted."""
    schema = Schema({"BUY": {"price": "num", "name": "str"}, "EVENT": {"ok": "bool", "note": None}})
    text = declaration_text(schema, "S")
    assert text == ("CREATE STREAM S { EVENT BUY { name:string, price:double }, "
                    "EVENT `EVENT` { note:string, ok:boolean } }")
    (back,) = parse_declarations(text)
    assert back == declaration_of(schema, "S")
    assert back.kinds() == {"BUY": {"name": "str", "price": "num"}, "EVENT": {"note": "str", "ok": "bool"}}


# ---------------------------------------------------------------------------------------------- errors


def _error(text: str, declarations: bool = False) -> SyntaxErrorCER:
    with pytest.raises(SyntaxErrorCER) as info:
        (parse_declarations if declarations else parse)(text)
    return info.value


@pytest.mark.parametrize("text, line, column, fragments", [
    ("", 1, 1, ["empty input", "SELECT"]),
    ("SELECT", 1, 7, ["end of input", "'*', NONE or the variables"]),
    ("SELECT * FROM S", 1, 16, ["WHERE"]),
    ("SELECT * WHERE A ;", 1, 19, ["a pattern"]),
    ("SELECT * WHERE A B", 1, 18, ["name 'B'", "a pattern operator", "WITHIN"]),
    ("SELECT *\nWHERE A\n  FILTER A[x > 1] ; B", 3, 19, ["';'", "parenthesize a filtered operand"]),
    ("SELECT * WHERE A FILTER A[x", 1, 28, ["a comparison", "LIKE, IN or NOT IN"]),
    ("SELECT * WHERE A FILTER A[x >", 1, 30, ["an attribute", "a number"]),
    ("SELECT * WHERE A AS event", 1, 21, ["keyword event", "write `event`"]),
    ("SELECT * WHERE A WITHIN 3", 1, 26, ["a unit (EVENTS, HOURS, MINUTES, SECONDS)"]),
    ("SELECT * WHERE A WITHIN 2.5 EVENTS", 1, 25, ["whole number"]),
    ("SELECT * WHERE A FILTER A[name = 'MSFT]", 1, 34, ["unterminated string"]),
    ("SELECT * WHERE A FILTER A[s LIKE '(']", 1, 34, ["bad regular expression"]),
    ("SELECT * WHERE A FILTER A['a' = 'b']", 1, 31, ["no attribute"]),
    ("SELECT * WHERE A FILTER A[x + 'a' > 1]", 1, 29, ["arithmetic needs numbers"]),
    ("SELECT c\nWHERE A AS a", 1, 8, ["SELECT names 'c'", "binds A, a"]),
    ("SELECT * WHERE (A AS a ; B)\nFILTER b[x > 1]", 2, 8, ["FILTER names the variable 'b'"]),
    ("SELECT * WHERE A CONSUME BY ALL", 1, 29, ["PARTITION, ANY or NONE"]),
    ("SELECT * WHERE A $", 1, 18, ["unexpected character '$'"]),
    ("SELECT * WHERE `A", 1, 16, ["unterminated backquoted name"]),
])
def test_errors_name_line_column_and_expected(text: str, line: int, column: int, fragments: list[str]) -> None:
    e = _error(text)
    assert (e.line, e.column) == (line, column), str(e)
    for fragment in fragments:
        assert fragment in str(e), str(e)


def test_declaration_errors() -> None:
    e = _error("CREATE STREAM S { EVENT A { x int } }", declarations=True)
    assert (e.line, e.column) == (1, 31) and "expected ':'" in str(e)
    e = _error("DECLARE STREAM S(A)", declarations=True)
    assert "no DECLARE EVENT" in str(e) and e.column == 18
    e = _error("CREATE STREAM S { EVENT A {}, EVENT A {} }", declarations=True)
    assert "declared twice" in str(e)


def test_unchecked_variables_are_allowed_on_request() -> None:
    q = parse("SELECT c WHERE A FILTER b[x > 1]", check_variables=False)
    assert q.select == ("c",) and q.pattern == Filter(A, on("b", "x", ">", 1))


@settings(max_examples=200)
@given(st.text(alphabet="SELECT*WHERAFILTR[]()x>1;:+ORANDNOT'\"`{}.,-\n", max_size=40))
def test_no_lark_exception_escapes(text: str) -> None:
    try:
        parse(text)
    except SyntaxErrorCER as e:
        assert e.line >= 1 and e.column >= 1
