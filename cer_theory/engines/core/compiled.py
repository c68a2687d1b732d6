"""Which evaluator the engine runs: the compiled hot loop of Algorithm 1 when it was built, else the readable one
(docs/decisions.md D420–D424).

:mod:`~cer_theory.engines.core.tecs_compiled` and :mod:`~cer_theory.engines.core.evaluator_compiled` (Cython,
built by the ordinary install where Cython and a C compiler are found: ``setup.py``) are a second, typed source of
the tECS (:mod:`~cer_theory.engines.core.tecs`) and of the evaluator's per-event path, the update phase and the
enumeration (:class:`~cer_theory.engines.core.evaluator.Evaluator`); ``rows_compiled.pyx`` is that of the Matches of
a columnar batch (:meth:`EngineState.matches <cer_theory.engines.core.state.EngineState.matches>`, D450) and of
the check of a batch of dicts (:func:`cer_theory.streams.convert.clean_columns`, D452). The
readable modules are the reference and the fallback.

The compiled evaluator is used for the plain Evaluator of a query plan without debug mode or instrumentation
(which run the readable code, whose checks and counts read the Python structures; D422). ``CER_THEORY_PURE=1`` in the
environment forces the readable loop (read when a plan makes an evaluator, so a test can switch it).
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from cer_theory.core.lazy import resolve
from cer_theory.engines.core.evaluator import Evaluator

PURE_VARIABLE = "CER_THEORY_PURE"
"""The environment variable that, set to anything but ``""`` or ``0``, forces the readable loop."""

MODULES = ("tecs_compiled", "evaluator_compiled", "rows_compiled")
"""The compiled modules (``setup.py`` builds them from the ``.pyx``/``.pxd`` sources beside them)."""


def stale(built: Iterable[Path], sources: Iterable[Path]) -> bool:
    """Whether a built module is older than a Cython source beside it: a working tree or an editable install whose
    sources changed since the build (``git pull``, an edit without ``make``). An installed wheel has no sources."""
    times = [p.stat().st_mtime for p in sources]
    return bool(times) and max(times) > min(p.stat().st_mtime for p in built)


def current(modules: Sequence[str], what: str) -> bool:
    """Whether the compiled ``modules`` (of this package) are all built for this interpreter and current: not older
    than their sources, since a stale module runs the code of its older source or, across modules, calls
    functions of a changed layout. A warning names ``what`` runs instead when they are built but stale."""
    specs = [importlib.util.find_spec(f"{__package__}.{m}") for m in modules]
    built = [Path(spec.origin) for spec in specs if spec is not None and spec.origin is not None]
    if len(built) < len(modules):
        return False  # not built (no C compiler or no Cython at install time), or not for this interpreter's ABI
    here = Path(__file__).parent
    sources = [here / f"{m}.{ext}" for m in modules for ext in ("pyx", "pxd")]
    if stale(built, [p for p in sources if p.exists()]):
        warnings.warn(f"cer_theory: the compiled {what} is older than its sources (rebuild it: `make`, or "
                      f"`pip install -e .`); the readable one runs", RuntimeWarning, stacklevel=2)
        return False
    return True


CompiledEvaluator: type[Evaluator] | None = None
if current(MODULES, "hot loop"):
    try:
        from cer_theory.engines.core.evaluator_compiled import EvaluatorKernel  # type: ignore[import-not-found]
        from cer_theory.engines.core.tecs_compiled import CTecs  # type: ignore[import-not-found]
    except Exception as error:  # noqa: BLE001 - a built module that fails to load must not take the engine down
        # (a stale build importing a name of the readable modules since renamed, a binary mismatch)
        warnings.warn(f"cer_theory: the compiled hot loop does not load ({type(error).__name__}: {error}); the "
                      f"readable loop runs", RuntimeWarning, stacklevel=2)
    else:
        class CompiledEvaluator(EvaluatorKernel, Evaluator):  # type: ignore[no-redef,misc]
            """:class:`Evaluator` whose per-event methods (``advance``, ``_advance``, ``_update``, ``_output``) and
            tECS are the compiled ones; its other methods are Evaluator's, reading the same state."""

            tecs_class = CTecs

            def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
                if kwargs.get("debug") or kwargs.get("instrument") or kwargs.get("keep_per_event"):
                    raise ValueError("the compiled evaluator has no debug mode or instrumentation: use Evaluator")
                Evaluator.__init__(self, *args, **kwargs)


def compiled_available() -> bool:
    """Whether the compiled hot loop was built."""
    return CompiledEvaluator is not None


def pure_forced() -> bool:
    """Whether ``CER_THEORY_PURE`` asks for the readable loop."""
    return os.environ.get(PURE_VARIABLE, "") not in ("", "0")


_ROWS: dict[str, Callable[..., Any] | None] = {}
"""The functions of ``rows_compiled``, loaded on first use: it imports the columnar modules, and with them numpy,
which a run on Events read one at a time never needs (``cer-theory run`` on a JSON Lines file starts without)."""


def _rows_function(name: str) -> Callable[..., Any] | None:
    if CompiledEvaluator is None or pure_forced():
        return None
    if name not in _ROWS:
        try:
            _ROWS[name] = resolve(f"{__package__}.rows_compiled:{name}")
        except Exception as error:  # noqa: BLE001 - as for the hot loop's modules above: the readable code runs
            _ROWS[name] = None
            warnings.warn(f"cer_theory: the compiled batch code does not load ({type(error).__name__}: {error}); "
                          f"the readable code runs", RuntimeWarning, stacklevel=3)
    return _ROWS[name]


def batch_matches() -> Callable[..., list] | None:
    """The compiled form of the batch branch of :meth:`EngineState.matches
    <cer_theory.engines.core.state.EngineState.matches>` (``rows_compiled.batch_matches(ces, partition, rows,
    buffer)``, D450), or None where the readable one runs: not built, or ``CER_THEORY_PURE`` set."""
    return _rows_function("batch_matches")


def clean_columns() -> Callable[[list], dict | None] | None:
    """The compiled check of a batch of dicts (``rows_compiled.clean_columns``, D452: the readable one is
    :func:`cer_theory.streams.convert.clean_columns`), or None where the readable one runs."""
    return _rows_function("clean_columns")


def evaluator_class(debug: bool, instrument: bool) -> type[Evaluator]:
    """The class of a plain evaluator: the compiled one when built, not forced off, without debug mode or
    instrumentation; else the readable :class:`Evaluator`."""
    if CompiledEvaluator is None or debug or instrument or pure_forced():
        return Evaluator
    return CompiledEvaluator


__all__ = ["CompiledEvaluator", "MODULES", "PURE_VARIABLE", "batch_matches", "clean_columns", "compiled_available",
           "current", "evaluator_class", "pure_forced", "stale"]
