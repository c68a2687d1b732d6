"""Drawing SRT, unrolled SRA and determinized SRA (the SRT paper's figures: conditions, ``↑•``/``↑⊗``, ``↓W``), and
Alg. 7 as a driver of the one subset step (docs/decisions.md D57)."""

import xml.etree.ElementTree as ET

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cer_theory.automata.determinize.step import subset_moves
from cer_theory.core.drawing import SWITCH, graphviz_available
from cer_theory.core.errors import AutomatonError
from cer_theory.core.predicates.ast import conj, neg
from cer_theory.core.predicates.registers import with_def_flags
from cer_theory.core.predicates.solver import minterms
from cer_theory.formalisms.sremo.compile import compile_automaton
from cer_theory.formalisms.sremo.determinize import complement, determinize_sra, determinize_steps, move_table
from cer_theory.formalisms.sremo.windowed import determinize_windowed
from cer_theory.formalisms.sremo.parser import parse
from cer_theory.formalisms.sremo.srt import SRT, Transition
from cer_theory.formalisms.sremo.windowed import unroll
from cer_theory.testing.strategies.sremo import expressions

E1 = '<type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
THM38 = '[TRUE]* . [type = "B"] -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'
SVG_TAG = "{http://www.w3.org/2000/svg}svg"


def _models() -> dict[str, SRT]:
    t = compile_automaton(parse(E1))
    d = determinize_windowed(parse(f"({THM38}) WITHIN 3"))
    return {"srt": t, "unrolled": unroll(t, 3), "dsra": d, "complement": complement(d)}


@pytest.mark.parametrize("name", ["srt", "unrolled", "dsra", "complement"])
def test_svg_with_the_webassembly_graphviz(name, monkeypatch):
    monkeypatch.setenv(SWITCH, "wasm")
    if not graphviz_available():
        pytest.skip("the WebAssembly Graphviz is not installed")
    bundle = _models()[name]._repr_mimebundle_()
    assert ET.fromstring(bundle["image/svg+xml"].encode("utf-8")).tag == SVG_TAG
    assert bundle["text/plain"].startswith("SRT(")


def test_edges_carry_conditions_outputs_and_writes():
    t = compile_automaton(parse(E1))
    dot = t.to_dot()
    assert 'label="B ↑• ↓r1"' in dot and "S ∧ id=r1.id ↑•" in dot and "⊤ ↑⊗" in dot and 'label="ε"' in dot
    assert dot.count("doublecircle") == len(t.finals)
    text = t.describe()
    assert "--B ↑• ↓r1-->" in text and "start:  0" in text
    assert len(text.splitlines()) == 3 + len(t.transitions)


def test_determinized_states_are_drawn_as_their_subsets():
    d = determinize_sra(unroll(compile_automaton(parse(THM38)), 2))
    assert d.names is not None and d.names[0] == "{0}"
    assert all(n.startswith("{") for n in d.names)
    assert '"0\\n{0}"' in d.to_dot()
    c = complement(d)
    assert c.names[-1] == "∅" and "∅" in c.describe()
    assert d == SRT(d.states, d.start, d.finals, d.transitions, d.registers)  # names are drawn, not compared


def test_parallel_transitions_share_one_edge():
    t = SRT(2, 0, {1}, (Transition(0, parse('<type = "A">').guard, 1, marked=True),
                        Transition(0, parse('[type = "B"] -> r').guard, 1, frozenset({"r"}))))
    dot = t.to_dot()
    assert dot.count("q0 -> q1") == 1 and "A ↑•\\nB ↑⊗ ↓r" in dot


def test_repr_never_raises(monkeypatch):
    t = compile_automaton(parse(E1))
    monkeypatch.setenv(SWITCH, "none")
    assert set(t._repr_mimebundle_()) == {"text/plain"}
    monkeypatch.setenv(SWITCH, "bogus")  # a bad switch: to_svg raises, the mime bundle falls back to text
    assert t._repr_mimebundle_()["text/plain"] == t.describe()
    with pytest.raises(AutomatonError):
        SRT(2, 0, {1}, (), names=("just one",))


# ------------------------------------------------------------------------------------------ the subset step

def _alg7_reference(sra: SRT) -> tuple[dict, set]:
    """Alg. 7 written out with no shared step: subset → its (minterm, target subset, writes) moves."""
    start = frozenset([sra.start])
    seen, todo, moves = {start}, [start], set()
    while todo:
        subset = todo.pop()
        outs = [d for q in sorted(subset) for d in sra.out(q)]
        conds = list(dict.fromkeys(d.guard for d in outs))
        for mt in (minterms([with_def_flags(c) for c in conds]) if conds else ()):
            taken = [d for d in outs if mt.signs[conds.index(d.guard)]]
            if taken:
                target = frozenset(d.target for d in taken)
                guard = conj(*(c if s else neg(c) for c, s in zip(conds, mt.signs)))
                moves.add((subset, guard, target, frozenset(r for d in taken for r in d.writes)))
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
    return seen, moves


def _as_subsets(d: SRT) -> tuple[set, set]:
    subset = {q: frozenset(int(x) for x in d.names[q].strip("{}").split(",")) for q in range(d.states)}
    return (set(subset.values()),
            {(subset[t.source], t.guard, subset[t.target], t.writes) for t in d.transitions})


@settings(max_examples=40, deadline=None)
@given(expressions(4, strategies=False, windows=False), st.integers(1, 3))
def test_alg7_through_the_shared_step_equals_alg7_written_out(e, w):
    """The driver of the one subset step builds the same subsets and moves as Alg. 7 written out."""
    u = unroll(compile_automaton(e), w)
    assert _as_subsets(determinize_sra(u)) == _alg7_reference(u)


def test_move_table_labels_are_writes_and_output():
    u = unroll(compile_automaton(parse(THM38)), 2)
    table = move_table(u)
    assert set(table.labels) == {(t.writes, t.marked) for t in u.transitions}
    assert all(table.marking[L] == L[1] for L in table.labels)
    everything = sum(1 << k for k in range(len(table.predicates)))
    assert subset_moves(table, {u.start}, everything).all == frozenset(t.target for t in u.out(u.start))


def test_steps_grow_to_the_determinized_sra():
    u = unroll(compile_automaton(parse(THM38)), 3)
    stages = list(determinize_steps(u))
    final = determinize_sra(u)
    assert len(stages) == final.states  # one stage per expanded subset
    assert stages[-1] == final and stages[-1].names == final.names
    sizes = [len(s.transitions) for s in stages]
    assert sizes == sorted(sizes) and sizes[0] > 0
    assert all(a.states <= b.states for a, b in zip(stages, stages[1:]))


# ------------------------------------------------------------------------------------------ useless states

FIG12 = '[TRUE]* . [TRUE] -> r1 . [TRUE]* . <type = r1.type>'
E2 = '(<type = "B" AND price < 10> -> r1 | <type = "B" AND price > 500> -> r1) . <type = "S" AND id = r1.id>'
PRODUCT = '(<TRUE> . <TRUE>) & ([TRUE] . <TRUE>)'  # §4.5's intersection: outputs never agree, no final reachable
WITH_EMPTY = 'EMPTY | <type = "B"> -> r1 . [TRUE]* . <type = "S" AND id = r1.id>'


def _figures() -> dict[str, SRT]:
    """The SRT paper's figures (rebuilt from its prose) and two of its constructions with useless states."""
    thm38 = compile_automaton(parse(THM38))
    d = determinize_windowed(parse(f"({THM38}) WITHIN 3"))
    return {"Fig. 1 (eq. 2)": compile_automaton(parse(E1)), "Fig. 3 (eq. 4)": compile_automaton(parse(E2)),
            "Figs. 4 and 13 (Thm 38)": thm38, "Fig. 5 (w = 2)": unroll(thm38, 2), "Fig. 5 (w = 3)": unroll(thm38, 3),
            "Fig. 12 (Thm 35)": compile_automaton(parse(FIG12)), "Thm 41 (dSRA, w = 3)": d,
            "Cor. 43 (complement)": complement(d), "Thm 34 (§4.5 product)": compile_automaton(parse(PRODUCT)),
            "EMPTY in a union": compile_automaton(parse(WITH_EMPTY))}


def _useful(t: SRT) -> set[int]:
    """Written out from Def. 24 with networkx: on a path from q_s to a final state (q_s always drawn)."""
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(t.states))
    g.add_edges_from((d.source, d.target) for d in t.transitions)
    forward = nx.descendants(g, t.start) | {t.start}
    backward = set().union(*(nx.ancestors(g, f) | {f} for f in t.finals))
    return forward & backward | {t.start}


def _drawn(t: SRT, **options) -> tuple[set[int], set[tuple[int, int]]]:
    """The states a drawing shows plainly (by their numbers, the first line of each node; grey ones are the
    useless states, D384) and its plain edges, as states."""
    d = t.diagram(**options)
    number = {n.id: int(n.label.split("\n")[0]) for n in d.nodes if n.label is not None}
    plain = {q for q, n in number.items() if "dashed" not in str(next(x.attrs for x in d.nodes if x.id == q))}
    return ({number[q] for q in plain},
            {(number[e.source], number[e.target]) for e in d.edges if e.source in plain and e.target in plain})


def _every(t: SRT, **options) -> set[int]:
    """Every state a drawing shows, grey or not."""
    return {int(n.label.split("\n")[0]) for n in t.diagram(**options).nodes if n.label is not None}


@pytest.mark.parametrize("name", list(_figures()))
def test_drawings_show_the_useful_states_plainly_and_the_others_grey(name):
    """Every state is drawn with its number (D384); the useful ones plainly, the others grey unless trim=False."""
    t = _figures()[name]
    useful = _useful(t)
    states, edges = _drawn(t)
    assert _every(t) == set(range(t.states))
    assert states == useful, f"{name}: drawn plainly {sorted(states)}, useful {sorted(useful)}"
    assert edges == {(d.source, d.target) for d in t.transitions if d.source in useful and d.target in useful}
    every, all_edges = _drawn(t, trim=False)
    assert every == set(range(t.states)) and all_edges == {(d.source, d.target) for d in t.transitions}
    assert t.to_dot().count("doublecircle") == len(t.finals)  # finals drawn as such, grey when useless


def test_constructions_with_useless_states_are_drawn_grey_with_a_caption():
    """The regression: the product of §4.5 and a union with EMPTY have states no accepting run visits."""
    figures = _figures()
    for name in ("Thm 34 (§4.5 product)", "EMPTY in a union"):
        t = figures[name]
        assert _useful(t) < set(range(t.states)), name
        assert _drawn(t)[0] < _drawn(t, trim=False)[0], name
        assert "grey: states no accepting run visits" in t.to_dot() and "grey:" not in t.to_dot(trim=False)
