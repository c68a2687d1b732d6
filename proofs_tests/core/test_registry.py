"""The formalism registry (``cer_theory.core.protocols``) and the standard properties of every registered record.

Each formalism of the papers registers a :class:`Formalism` record; :func:`harness.properties` turns it into
the round trip ``parse(format(φ)) = φ`` and ``semantics = E`` for every other evaluator E (the compiled automaton,
the engines) on generated (formula, stream) pairs. The first test below runs them for every name the registry
knows, so a new formalism is checked by registering.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
import types
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from cer_theory.core import protocols
from cer_theory.core.errors import RegistryError, SyntaxErrorCER, UnsupportedError
from cer_theory.core.events import Stream
from cer_theory.core.protocols import (CONSTRUCTIONS, Automaton, Evaluator, Formalism, Unsupported, get, names, records,
                                       register, resolve)
from cer_theory.testing.harness import properties

PACKAGE = Path(__file__).resolve().parents[2] / "cer_theory"
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
    assert resolve("cer_theory.formalisms.cel.printer:format") is get("cel").format
    assert resolve(len) is len
    with pytest.raises(RegistryError, match="expected 'package.module:attribute'"):
        resolve("cer_theory.formalisms.cel.parser.parse")


def test_the_user_facing_parse_is_the_records() -> None:
    """CEL's record parses as the command line does: a FILTER on a variable its formula never binds is refused
    (D95), while the library's parse keeps accepting it (the CEL paper §4 defines it)."""
    from cer_theory.formalisms.cel.parser import parse

    assert parse("R FILTER T.x > 1") is not None
    with pytest.raises(SyntaxErrorCER, match="never binds"):
        get("cel").parse("R FILTER T.x > 1")


def _entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name, value, protocols.ENTRY_POINTS)


def test_formalisms_are_found_by_entry_points_and_broken_ones_fail(monkeypatch, tmp_path: Path) -> None:
    """The kernel lists no formalism: the registry reads the entry points of ``cer_theory.formalisms``. A declared
    record is found by registering nothing else; a module that fails to import is an error, never a formalism
    silently missing; an entry point that names something else than the record of its name is refused."""
    assert not hasattr(protocols, "KNOWN")
    (tmp_path / "twin_formalism.py").write_text(
        "import dataclasses\nfrom cer_theory.formalisms.cel.formalism import CEL\n"
        "TWIN = dataclasses.replace(CEL, name='twin')\n")
    (tmp_path / "broken_formalism.py").write_text("import cer_theory_no_such_module\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    declared = dict(protocols._declared())
    monkeypatch.setattr(protocols, "_declared", lambda: {**declared, "twin": _entry("twin", "twin_formalism:TWIN")})
    monkeypatch.setattr(protocols, "_REGISTRY", dict(protocols._REGISTRY))
    assert "twin" in names() and get("twin").name == "twin"
    for name, value, error, message in [("broken", "broken_formalism:X", ModuleNotFoundError, "cer_theory_no_such"),
                                        ("other", "twin_formalism:TWIN", RegistryError, "not the Formalism record")]:
        monkeypatch.setattr(protocols, "_declared", lambda: {**declared, name: _entry(name, value)})
        with pytest.raises(error, match=message):
            names()
    for module in ("twin_formalism", "broken_formalism"):
        sys.modules.pop(module, None)


def _records_in(path: Path) -> list[Formalism]:
    module = importlib.import_module(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
    return [v for v in vars(module).values() if isinstance(v, Formalism)]


FORMALISM_MODULES = sorted((PACKAGE / "formalisms").glob("*/formalism.py"))


@pytest.mark.parametrize("path", FORMALISM_MODULES, ids=[p.parent.name for p in FORMALISM_MODULES])
def test_every_record_of_the_package_is_declared(path: Path) -> None:
    """No record is forgotten in pyproject.toml's entry points: each one a ``formalism.py`` builds is the one the
    registry gives for its name."""
    found = _records_in(path)
    assert found, f"{path} builds no Formalism record"
    for record in found:
        assert record.name in names() and get(record.name) is record, f"{record.name} is not declared"


@pytest.mark.parametrize("name", names())
def test_every_record_declares_every_construction(name: str) -> None:
    """Each construction is a callable (or a reference that resolves to one) or Unsupported with a reason; asking
    for an unsupported one raises UnsupportedError naming the formalism, the reason and who has it."""
    record = get(name)
    assert set(record.constructions) == set(CONSTRUCTIONS)
    for construction, target in record.constructions.items():
        if isinstance(target, Unsupported):
            assert len(target.reason) > 20, f"{name}: {construction} needs a reason"
            with pytest.raises(UnsupportedError, match=rf"--logic {name}: {construction} is not available"):
                record.construction(construction)
        else:
            assert callable(record.construction(construction)), f"{name}: {construction}"


def test_a_record_must_declare_its_constructions() -> None:
    cel = get("cel")
    fewer = {k: v for k, v in cel.constructions.items() if k != "complement"}
    with pytest.raises(RegistryError, match="missing: complement"):
        dataclasses.replace(cel, constructions=fewer)
    with pytest.raises(RegistryError, match="unknown: minimize"):
        dataclasses.replace(cel, constructions={**cel.constructions, "minimize": Unsupported("not yet")})
    with pytest.raises(RegistryError, match="no construction 'minimize'"):
        cel.construction("minimize")


FRONT_DOOR = ("parse", "format", "evaluate")
"""What every formalism package exports (D52), and ``compile_automaton`` when the formalism has an automaton."""


@pytest.mark.parametrize("name", names())
def test_every_formalism_has_the_same_front_door(name: str) -> None:
    """The package of every registered record lists ``__all__`` (sorted, without duplicates), every listed name
    loads and is not shadowed by a submodule of the same name, and the common names are there."""
    record = get(name)
    package = importlib.import_module(protocols._declared()[name].module.rpartition(".")[0])
    exported = package.__all__
    assert exported == sorted(set(exported)), f"{package.__name__}.__all__ is not sorted and unique"
    for sub in (PACKAGE.parent / package.__name__.replace(".", "/")).glob("*.py"):
        importlib.import_module(f"{package.__name__}.{sub.stem}")  # a loaded submodule may shadow an export
    for export in exported:
        assert not isinstance(getattr(package, export), types.ModuleType), f"{package.__name__}.{export}"
    expected = FRONT_DOOR + (("compile_automaton",) if record.compile is not None else ())
    assert set(expected) <= set(exported), f"{package.__name__} lacks {sorted(set(expected) - set(exported))}"


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


STREAMING = [(name, ev) for name in names() for ev, evaluator in get(name).evaluators.items()
             if evaluator.iterate is not None]


@pytest.mark.parametrize("name, via", STREAMING, ids=[f"{n}: {v}" for n, v in STREAMING])
def test_a_streaming_evaluator_gives_its_whole_stream_outputs(name: str, via: str) -> None:
    """The fast path is checked against the plain one: ``iterate`` (what ``eval`` prints from, one event at a
    time) yields exactly the positions with outputs of the evaluator's ``run``, in order, with the same sets."""
    from hypothesis import given, settings

    record = get(name)
    evaluator = record.evaluators[via]

    @settings(max_examples=40)
    @given(ast=record.formulas().filter(evaluator.handles), stream=record.streams())
    def check(ast, stream) -> None:
        whole = [(n, out) for n, out in enumerate(evaluator(ast, stream)) if out]
        streamed = list(evaluator.stream(ast, iter(stream)))
        assert streamed == whole, f"{record.format(ast)} on {stream!r}:\n streamed {streamed}\n whole    {whole}"

    check()
