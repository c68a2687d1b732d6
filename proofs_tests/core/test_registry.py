"""The formalism registry (``cer_theory.core.protocols``) and the standard properties of every registered record.

Each formalism of the seed papers registers a :class:`Formalism` record; :func:`harness.properties` turns it into
the round trip ``parse(format(φ)) = φ`` and ``semantics = E`` for every other evaluator E (the compiled automaton,
the engines) on generated (formula, stream) pairs. The first test below runs them for every name the registry
knows, so a new formalism is checked by registering.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from cer_theory.core import protocols
from cer_theory.core.errors import RegistryError, SyntaxErrorCER
from cer_theory.core.events import Stream
from cer_theory.core.protocols import Automaton, Evaluator, get, names, records, register, resolve
from cer_theory.testing.harness import properties

STANDARD = [(name, prop.name) for name in names() for prop in properties(get(name))]


@pytest.mark.parametrize("name, prop", STANDARD, ids=[f"{n}: {p}" for n, p in STANDARD])
def test_standard_properties_of_every_registered_formalism(name: str, prop: str) -> None:
    """Round trip and semantics = every evaluator, for every record (60 generated cases each)."""
    (check,) = [p for p in properties(get(name), max_examples=60) if p.name == prop]
    check.test()


def test_cel_and_ceql_are_registered_with_their_papers_and_evaluators() -> None:
    assert names()[:2] == ["cel", "ceql"] and [r.name for r in records()] == names()
    cel, ceql = get("cel"), get("ceql")
    assert (cel.paper.seed, ceql.paper.seed) == ("000", "001")
    assert list(cel.evaluators) == ["semantics", "cea", "cces"] and cel.default == "cea"
    assert list(ceql.evaluators) == ["semantics", "cea", "engine"] and ceql.default == "engine"
    assert [lv.name for lv in cel.levels] == ["valuations", "complex events"]
    assert [lv.name for lv in ceql.levels] == ["complex events"]


def test_every_record_is_consistent() -> None:
    """Every record: 'semantics' is the reference, every evaluator's level is one of the record's, the automaton
    of a formula satisfies the Automaton protocol, and a syntax error is the project's SyntaxErrorCER."""
    samples = {"cel": "R ; T", "ceql": "SELECT * WHERE R ; T"}
    for record in map(get, names()):
        assert record.evaluators["semantics"].name == "semantics"
        assert {ev.level for ev in record.evaluators.values()} <= {lv.name for lv in record.levels}
        if record.name in samples:
            ast = record.parse(samples[record.name])
            assert isinstance(record.automaton(ast), Automaton)
            stream = Stream.from_types("R T R T")
            assert record.semantics(ast, stream) == record.evaluators["semantics"](ast, stream)
        with pytest.raises(SyntaxErrorCER):
            record.parse("( ; ")


def test_unknown_names_raise_registry_errors_listing_the_choices() -> None:
    with pytest.raises(RegistryError, match=r"unknown logic 'ltl'; choose one of cel, ceql"):
        get("ltl")
    with pytest.raises(RegistryError, match=r"ceql has no evaluator 'cces'; choose one of semantics, cea, engine"):
        get("ceql").evaluator("cces")
    with pytest.raises(RegistryError, match=r"no output level 'valuations'"):
        get("ceql").level("valuations")


def test_a_record_is_validated_on_construction() -> None:
    cel = get("cel")
    with pytest.raises(RegistryError, match="must include 'semantics'"):
        dataclasses.replace(cel, evaluators={"cea": cel.evaluators["cea"]}, default="cea")
    with pytest.raises(RegistryError, match="default evaluator 'engine'"):
        dataclasses.replace(cel, default="engine")
    odd = Evaluator("odd", "outputs a level CEL does not have", "matches", run=cel.semantics)
    with pytest.raises(RegistryError, match="outputs 'matches'"):
        dataclasses.replace(cel, evaluators={**cel.evaluators, "odd": odd})
    with pytest.raises(RegistryError, match="exactly one of run= and compile="):
        Evaluator("none", "neither", "valuations")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cel.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        cel.evaluators["x"] = odd  # type: ignore[index]


def test_references_resolve_lazily_and_bad_ones_are_clear() -> None:
    assert resolve("cer_theory.formalisms.cel.parser:parse") is get("cel").parse
    assert resolve(len) is len
    with pytest.raises(RegistryError, match="expected 'package.module:attribute'"):
        resolve("cer_theory.formalisms.cel.parser.parse")


def test_missing_formalism_modules_are_skipped_but_broken_ones_fail(monkeypatch, tmp_path: Path) -> None:
    """A formalism still being written (its module absent) is not listed; a module that exists but fails to
    import is an error, never silently dropped."""
    (tmp_path / "broken_formalism.py").write_text("import cer_theory_no_such_module\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(protocols, "KNOWN", {**protocols.KNOWN, "absent": "cer_theory.formalisms.absent.formalism"})
    assert "absent" not in names()
    with pytest.raises(RegistryError, match="unknown logic 'absent'"):
        get("absent")
    monkeypatch.setattr(protocols, "KNOWN", {**protocols.KNOWN, "broken": "broken_formalism"})
    with pytest.raises(ModuleNotFoundError, match="cer_theory_no_such_module"):
        names()
    sys.modules.pop("broken_formalism", None)


def test_a_registered_record_gets_the_standard_properties(monkeypatch) -> None:
    """Registering is all a formalism does to be listed and checked: a CEL variant with one more evaluator."""
    cel = get("cel")
    twin = dataclasses.replace(cel, name="cel-twin",
                               evaluators={**cel.evaluators, "again": dataclasses.replace(
                                   cel.evaluators["semantics"], name="again")})
    monkeypatch.setitem(protocols._REGISTRY, "cel-twin", twin)
    assert "cel-twin" in names() and get("cel-twin") is twin
    assert [p.name for p in properties(twin)] == ["round trip", "semantics = cea", "semantics = cces",
                                                  "semantics = again"]
    register(cel)  # re-registering replaces: the record stays the same object the module built
    assert get("cel") is cel


def test_a_wrong_evaluator_fails_its_property_with_the_report() -> None:
    """The differential property can fail: an evaluator that forgets the last position's outputs is caught, and
    the message is the harness report (formula, stream, first differing position, both outputs)."""
    cel = get("cel")
    semantics = cel.evaluators["semantics"]

    def forgetful(phi, stream):
        out = list(semantics(phi, stream))
        return out[:-1] + [frozenset()]

    broken = dataclasses.replace(cel, name="cel-broken", evaluators={
        "semantics": semantics, "forgetful": Evaluator("forgetful", "drops the last outputs", "valuations",
                                                        run=forgetful)}, default="semantics")
    (prop,) = [p for p in properties(broken, max_examples=200) if p.name == "semantics = forgetful"]
    with pytest.raises(AssertionError) as info:
        prop.test()
    text = str(info.value)
    assert "semantics and forgetful disagree on valuations at n = " in text
    assert "formula: " in text and "stream:  0:" in text and "only in semantics:" in text
