"""The front door checks what it is given: every public ``ct.*`` callable (and the verbs of a Formula and a Drawing)
fed a wrong type (None, an int, bytes, a list), a missing path, a folder, or an oversized literal answers with one
of the package's own errors (a ``CerError``) whose message names what was expected, never another exception.

The table of calls is generated over ``ct.__all__``: a public callable added without an entry here fails the first
test, so a new front-door function cannot ship unchecked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cer_theory as ct
from cer_theory.core.errors import CerError
from cer_theory.core.events import MAX_INT_DIGITS
from cer_theory.core.protocols import declared_names

WRONG = [None, 3, b"T", ["T"], 2.5, {"type": "T"}]
"""Values of the wrong kind for any text, path or name parameter."""

HUGE = "9" * (MAX_INT_DIGITS + 1)

SAMPLE = {"cel": "T FILTER T.x > {n}", "ceql": "SELECT * WHERE T FILTER T[x > {n}]", "socel": "T FILTER T.x > {n}",
          "focel": "T AS x FILTER x.v > {n}", "acel": "T FILTER T.x > {n}", "sremo": "<x = {n}>",
          "rpr": "MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS x > {n})"}
"""One formula per registered formalism with a number {n} in it."""


def bad_calls(folder: Path) -> dict[str, list[tuple[str, Callable[[], Any]]]]:
    """For each public name of ``ct``, the hostile calls to try: (label, call)."""
    missing, a_folder = str(folder / "missing.jsonl"), str(folder)
    calls: dict[str, list[tuple[str, Callable[[], Any]]]] = {}
    for logic in declared_names():
        parse = getattr(ct, logic)
        calls[logic] = ([(f"{v!r}", lambda p=parse, v=v: p(v)) for v in WRONG]
                        + [("@missing", lambda p=parse: p("@" + missing)), ("@folder", lambda p=parse: p("@" + a_folder)),
                           ("huge literal", lambda p=parse, t=SAMPLE[logic]: p(t.format(n=HUGE))),
                           ("huge literal @FILE", lambda p=parse, t=SAMPLE[logic]: p("@" + _write(folder, t.format(n=HUGE))))])
    calls["load"] = ([(f"{v!r}", lambda v=v: ct.load(v)) for v in WRONG]
                     + [("missing", lambda: ct.load(missing)), ("folder", lambda: ct.load(a_folder)),
                        ("format", lambda: ct.load(_write(folder, '{"type": "T"}\n'), format=3)),
                        ("unknown format", lambda: ct.load(_write(folder, '{"type": "T"}\n'), format="xls")),
                        ("huge integer", lambda: ct.load(_write(folder, '{"type": "T", "x": ' + HUGE + "}\n")))])
    calls["parser"] = [(f"{v!r}", lambda v=v: ct.parser(v)("T")) for v in WRONG] + [("unknown", lambda: ct.parser("x")("T"))]
    calls["example_path"] = [(f"{v!r}", lambda v=v: ct.example_path(v)) for v in [*WRONG[:2], "nope"]]
    calls["example_stream"] = [(f"{v!r}", lambda v=v: ct.example_stream(v)) for v in [*WRONG[:2], "nope"]]
    calls["fire_stream"] = [("an argument", lambda: ct.fire_stream(3))]
    calls["Event"] = [(f"{v!r}", lambda v=v: ct.Event(v)) for v in WRONG] + [("attributes", lambda: ct.Event("T", 3))]
    calls["Stream"] = [(f"{v!r}", lambda v=v: ct.Stream(v)) for v in [None, 3, [3], ["T"]]]
    calls["Valuation"] = [(f"{v!r}", lambda v=v: ct.Valuation(v)) for v in [None, 3, [3], {"A": 3}]]
    calls["ComplexEvent"] = [(f"{v!r}", lambda v=v: ct.ComplexEvent(v)) for v in [None, 3, 2.5]]
    calls["Engine"] = ([(f"{v!r}", lambda v=v: ct.Engine(v)) for v in WRONG]
                       + [("huge literal", lambda: ct.Engine(SAMPLE["ceql"].format(n=HUGE)))])
    calls["Formula"] = [(f"{v!r}", lambda v=v: ct.Formula(v, None)) for v in WRONG]
    calls["Drawing"] = [(f"{v!r}", lambda v=v: ct.Drawing(v)) for v in WRONG]
    phi = ct.cel("T")
    calls["Formula.evaluate"] = ([(f"{v!r}", lambda v=v: phi.evaluate(v)) for v in [None, 3, b"T", [3]]]
                                 + [("missing", lambda: phi.evaluate(missing)), ("folder", lambda: phi.evaluate(a_folder)),
                                    ("via", lambda: phi.evaluate([], via=3)), ("level", lambda: phi.evaluate([], level=3)),
                                    ("unknown via", lambda: phi.evaluate([], via="x")), ("option", lambda: phi.evaluate([], x=1))])
    calls["Formula.draw"] = ([(f"{v!r}", lambda v=v: phi.draw(v)) for v in [3, b"x.svg", ["x.svg"]]]
                             + [("folder", lambda: phi.draw(a_folder)),
                                ("missing folder", lambda: phi.draw(str(folder / "no" / "x.svg")))])
    return calls


def _write(folder: Path, text: str) -> str:
    path = folder / f"f{abs(hash(text)) % 10**8}.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


NOT_CALLABLE = {"EXAMPLE_STREAMS", "__version__"}


def test_every_public_callable_has_hostile_calls(tmp_path: Path) -> None:
    public = {name for name in ct.__all__ if name not in NOT_CALLABLE}
    assert all(callable(getattr(ct, name)) for name in public)
    missing = public - set(bad_calls(tmp_path))
    assert not missing, f"add hostile calls for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted({n for n in ct.__all__ if n not in NOT_CALLABLE} | {"Formula.evaluate",
                                                                                           "Formula.draw"}))
def test_hostile_arguments_raise_the_packages_own_errors(tmp_path: Path, name: str) -> None:
    for label, call in bad_calls(tmp_path)[name]:
        try:
            call()
        except CerError as e:
            message = str(e)
            assert message and "\n" not in message.split("\n  ", 1)[0], (name, label, message)
            assert len(message.splitlines()[0]) < 400, (name, label, "the first line stays readable")
            continue
        except TypeError as e:
            if name == "fire_stream" and "positional argument" in str(e):
                continue  # Python's own check of the signature: the call is wrong, not a value
            raise AssertionError(f"ct.{name} {label}: {type(e).__name__}: {e}") from e
        except Exception as e:  # noqa: BLE001 - any other exception is the finding
            raise AssertionError(f"ct.{name} {label}: {type(e).__name__}: {e}") from e
        raise AssertionError(f"ct.{name} {label}: accepted")
