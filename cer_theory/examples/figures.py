"""Regenerate ``figures/`` from the code: every drawing there comes from here, never by hand."""

from __future__ import annotations

from pathlib import Path

from cer_theory.automata.cea import CEA
from cer_theory.core.drawing import write_drawing
from cer_theory.examples.running_example import FORMULAS, example_5_3_cea, fig8_cea
from cer_theory.formalisms.cel.compile import compile_automaton
from cer_theory.formalisms.cel.parser import parse
from cer_theory.formalisms.cel.selection import compile_with_selection


def _write(cea: CEA, title: str, stem: str, out_dir: Path) -> list[Path]:
    """The DOT source beside its SVG drawing (the dot program's or the WebAssembly Graphviz's)."""
    dot = cea.to_dot(title=title)
    paths = [out_dir / f"{stem}.dot", out_dir / f"{stem}.svg"]
    for path in paths:
        write_drawing(dot, path)
    return paths


def write_all(out_dir: Path) -> list[Path]:
    """Write all figures to ``out_dir`` and return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = _write(example_5_3_cea(), "The CEL paper, Fig. 4 (Example 5.3)", "fig4_example_5_3", out_dir)
    written += _write(compile_automaton(parse("R")), "The CEL paper, Fig. 5: the CEA of the atom R", "fig5_atom_R", out_dir)
    written += _write(fig8_cea(), "The CEL paper, Fig. 8: a CEA in normal form", "fig8_normal_form", out_dir)
    for name, stem in (("φ1", "phi1"), ("φ2", "phi2"), ("φ3", "phi3"), ("φ4", "phi4")):
        phi = parse(FORMULAS[name])
        written += _write(compile_automaton(phi), f"CEA of {name} (Theorem 6.2)", f"{stem}_cea", out_dir)
    for strategy in ("STRICT", "NXT", "LAST", "MAX"):
        cea = compile_with_selection(parse(f"{strategy}({FORMULAS['φ1']})")).trim().relabel_states()
        written += _write(cea, f"{strategy}(φ1): Theorem 7.2, trimmed", f"phi1_{strategy.lower()}_cea", out_dir)
    return written
