"""The layer's guarantees, generated over the registry of commands (cli/layer.py; docs/robustness.md, "The
layer"): every test below is built from the commands' declarations, so a new command inherits them.

* every command × every declared output × every declared input × every reading of it (the file itself, ``@FILE``
  or a bare query file name, a symbolic link, ``sub/..``, a hard link, the folder holding it, a place inside the
  input folder): refused before anything is read, exit 2, one line, the input byte for byte as it was and
  nothing written beside it;
* every command's example run, on a full disk (a file-size limit: ``ulimit -f``) and killed by SIGTERM, SIGINT,
  SIGHUP and SIGQUIT at seeded random points: the old outputs or complete new ones, nothing beside them, one
  line and the conventional exit status;
* the outputs' modes are the umask's (022 and 077);
* no module of the package writes a file except the layer's (``core/outputs.py``), by its syntax tree;
* a command registered without a declaration, or writing where it did not declare, is caught.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import multiprocessing
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

import cer_theory
from cer_theory.cli import _run, build_parser, main
from cer_theory.cli.layer import (FILE, FILE_OUTPUT, QUERY, TEXT_OR_FILE, Input, Output, check_registry, commands,
                                  declare, output_file)
from cer_theory.core import outputs
from cer_theory.core.drawing import available_renderers, render_svg
from cer_theory.core.outputs import UndeclaredOutput, write_output
from cer_theory.core.signals import SAID, STOPPING

PARSER = build_parser()
DECLARATIONS = check_registry(PARSER)
COMMANDS = commands(PARSER)
PACKAGE = Path(cer_theory.__file__).parent

PROVED_ELSEWHERE = {"spark": "its JVM takes seconds to start: proofs_tests/spark/test_spark_kills.py kills it and "
                             "proofs_tests/cli/test_cli_outputs.py checks its folders' overlaps"}
"""Commands whose example is not run here, and where their guarantees are tested instead."""


# ---------------------------------------------------------------------------------------------- the registry


def test_every_command_declares_what_it_touches() -> None:
    """Each registered command has a declaration; each one that writes has an example run that the class tests
    below run (or is listed, with where it is tested, in PROVED_ELSEWHERE)."""
    assert set(DECLARATIONS) == set(COMMANDS)
    for name, declaration in DECLARATIONS.items():
        if declaration.outputs:
            assert declaration.example is not None and declaration.example[0] == name, name
    assert set(PROVED_ELSEWHERE) <= {n for n, d in DECLARATIONS.items() if d.outputs}


def _planted(register) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cer-theory")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    return parser


def test_a_command_without_a_declaration_is_caught() -> None:
    """The registry check refuses a command that declares nothing, and one whose --budget is undeclared."""
    def bare(sub):
        p = sub.add_parser("planted")
        p.add_argument("-o", "--output")

    with pytest.raises(TypeError, match="'planted' declares neither its inputs nor its outputs"):
        check_registry(_planted(bare))

    def budget_undeclared(sub):
        p = sub.add_parser("planted")
        p.add_argument("--budget", type=int)
        declare(p)

    with pytest.raises(TypeError, match="has --budget but does not declare budget=True"):
        check_registry(_planted(budget_undeclared))

    def typo(sub):
        p = sub.add_parser("planted")
        declare(p, outputs=[output_file("ouptut")], example=["planted"])

    with pytest.raises(TypeError, match="declares 'ouptut', which is none of its arguments"):
        _planted(typo)


def test_a_write_the_command_did_not_declare_is_refused(tmp_path: Path) -> None:
    """A command that writes a file it did not declare stops with UndeclaredOutput (a bug, found by the first
    test that runs it), and the file is not written."""
    target = tmp_path / "secret.txt"

    def sneaky(args: argparse.Namespace) -> int:
        write_output(target, "x")
        return 0

    def register(sub):
        p = sub.add_parser("planted")
        p.add_argument("-o", "--output")
        declare(p, outputs=[output_file("output")], example=["planted", "-o", "declared.txt"])
        p.set_defaults(func=sneaky)

    args = _planted(register).parse_args(["planted", "-o", str(tmp_path / "declared.txt")])
    with pytest.raises(UndeclaredOutput, match="secret.txt"):
        _run(args, "cer-theory planted", program=False)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------- (a) overlaps


def _readings(given: Input) -> list[str]:
    """How a test spells the input: the file itself (for a text-or-file argument: ``@FILE``; for a query also
    the bare file name), then through the output's other spellings."""
    first = {FILE: ["direct"], TEXT_OR_FILE: ["@"], QUERY: ["direct", "@"]}[given.reading]
    return first + ["symlink", "dotdot", "hardlink", "folder", "inside"]


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction) and a.dest != "_declaration"]


def _argv(name: str, values: dict[str, str], elsewhere: Path) -> list[str]:
    """The command's arguments: ``values`` for the destinations given, a harmless value for every other
    required argument (a choice, a file elsewhere, a word)."""
    parser = COMMANDS[name]
    declared_inputs = {i.dest for i in DECLARATIONS[name].inputs}
    positional, options = [], []
    for action in _actions(parser):
        value = values.get(action.dest)
        if value is None:
            required = action.required if action.option_strings else action.nargs not in ("?", "*")
            if not required:
                continue
            if action.choices:
                value = str(next(iter(action.choices)))
            elif action.dest in declared_inputs:
                value = str(elsewhere / "other.txt")
            else:
                value = "A ; B"
        if action.option_strings:
            options += [action.option_strings[-1], value]
        else:
            positional.append(value)
    return [name, *positional, *options]


OVERLAPS = [(name, output.dest, given.dest, reading)
            for name, declaration in DECLARATIONS.items() for output in declaration.outputs
            for given in declaration.inputs for reading in _readings(given)]


@pytest.mark.parametrize("name, output, given, reading", OVERLAPS)
def test_no_output_may_be_an_input(capsys, tmp_path: Path, name: str, output: str, given: str, reading: str) -> None:
    """Refused before anything is read: exit 2, one line saying so, the input as it was, nothing beside it."""
    folder, elsewhere = tmp_path / "in", tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "sub").mkdir()
    elsewhere.mkdir()
    (elsewhere / "other.txt").write_text("A ; B\n", encoding="utf-8")
    victim = folder / "victim.txt"
    victim.write_text("SELECT * WHERE A ; B\n", encoding="utf-8")
    spelled = {"direct": victim, "@": victim, "dotdot": folder / "sub" / ".." / victim.name,
               "symlink": tmp_path / "link.txt", "hardlink": tmp_path / "hard.txt", "folder": folder,
               "inside": folder / "sub" / "new.txt"}[reading]
    if reading == "symlink":
        spelled.symlink_to(victim)
    elif reading == "hardlink":
        os.link(victim, spelled)
    read = folder if reading == "inside" else victim  # (inside: the input is a folder, the output in it)
    kind = next(i.reading for i in DECLARATIONS[name].inputs if i.dest == given)
    as_input = f"@{read}" if reading == "@" or kind == TEXT_OR_FILE else str(read)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code = main(_argv(name, {given: as_input, output: str(spelled)}, elsewhere))
    err = capsys.readouterr().err
    assert code == 2, (name, output, given, reading, err)
    assert "overlaps the input" in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert victim.read_text(encoding="utf-8") == "SELECT * WHERE A ; B\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_the_default_late_file_is_checked_too(capsys, tmp_path: Path) -> None:
    """``run --lateness`` without ``--late`` writes STREAM.late.jsonl: when that name is a link to the query
    file, the run is refused before anything is read."""
    (tmp_path / "s.jsonl").write_text('{"type": "A", "time": 1}\n', encoding="utf-8")
    query = tmp_path / "q.ceql"
    query.write_text("SELECT * WHERE A ; B\n", encoding="utf-8")
    (tmp_path / "s.jsonl.late.jsonl").symlink_to(query)
    code = main(["run", "--query", str(query), "--stream", str(tmp_path / "s.jsonl"), "--lateness", "1"])
    assert code == 2 and "--late" in capsys.readouterr().err
    assert query.read_text(encoding="utf-8") == "SELECT * WHERE A ; B\n"


# ---------------------------------------------------------------------------------------------- the examples


EXAMPLES = sorted(name for name, d in DECLARATIONS.items() if d.outputs and name not in PROVED_ELSEWHERE)


def _fixtures(folder: Path) -> None:
    """What the examples read: ``s.jsonl`` (A, B and C events) and ``answers/`` (one student's answer)."""
    from cer_theory.exercises.checker import bundled_exercises

    folder.mkdir(parents=True, exist_ok=True)
    events = [{"type": "ABC"[k % 3], "x": k % 5, "time": k} for k in range(60)]
    (folder / "s.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (folder / "answers" / "alice").mkdir(parents=True)
    (folder / "answers" / "alice" / f"{bundled_exercises()[0].name}.txt").write_text("A ; B\n", encoding="utf-8")


def _outputs(name: str, folder: Path) -> list[tuple[Output, Path]]:
    """The places the example of ``name`` writes, run in ``folder``."""
    declaration = DECLARATIONS[name]
    args = PARSER.parse_args(list(declaration.example))
    found = []
    for output in declaration.outputs:
        path = output.path(args)
        if path is not None:
            found.append((output, folder / path))
    return found


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder`` (relative name → bytes; None for a folder), dates blanked."""
    found: dict[str, bytes | None] = {}
    for p in sorted(folder.rglob("*")):
        key = str(p.relative_to(folder))
        if key.split(os.sep)[0] == ".hypothesis":
            continue  # (Hypothesis's own cache of the constants it found, made where the conformance cases are)
        found[key] = None if p.is_dir() else re.sub(rb"\d{4}-\d\d-\d\d \d\d:\d\d UTC", b"DATE", p.read_bytes())
    return found


# Each example runs in a child process forked from a server that has loaded the command line and nothing else
# (no renderer, no thread): a fresh interpreter per run would spend seconds importing; a fork of the test process
# would inherit whatever earlier tests started.
_CHILDREN = multiprocessing.get_context("forkserver")
_CHILDREN.set_forkserver_preload(["cer_theory.cli", "cer_theory.formalisms.cel.parser",
                                  "cer_theory.core.predicates.printing", "cer_theory.formalisms.ceql.parser",
                                  "cer_theory.engines.core.run"])
CACHE = Path(tempfile.mkdtemp(prefix="cer-theory-layer-cache-"))
"""The parser tables' cache the children share (each would rebuild them in a cache of its own)."""


def _command(argv: list[str], folder: str, answer: Connection, limit: int | None, mask: int | None,
             env: dict[str, str]) -> None:
    """In the child: run the command in ``folder`` with ``mask`` as umask and files limited to ``limit`` bytes
    (``ulimit -f``: a write past it fails with EFBIG, SIGXFSZ ignored), send what it printed on stderr, and
    end with its exit status."""
    os.chdir(folder)
    os.environ.update(env, XDG_CACHE_HOME=str(CACHE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # (SIGQUIT's default action dumps none)
    if mask is not None:
        os.umask(mask)
    if limit is not None:
        # (Graphviz in WebAssembly started first: under a file-size limit it cannot start at all, a matter of the
        # renderer's robustness, not of writing outputs)
        if available_renderers("svg") == ["wasm"]:
            render_svg("digraph { a }")
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        code = main(argv)
        signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    except KeyboardInterrupt:  # (a signal just after the command ended: its outputs complete)
        code = ENDED
    answer.send(sys.stderr.getvalue())
    os._exit(code)


ENDED = 97
"""The status of a child whose signal came after its command had ended."""


class Child:
    """An example running in a child process: :meth:`signal` it, :meth:`result` its status and stderr."""

    def __init__(self, argv: list[str], folder: Path, *, limit: int | None = None, mask: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self._read, write = _CHILDREN.Pipe(duplex=False)
        self.process = _CHILDREN.Process(target=_command, args=(argv, str(folder), write, limit, mask, env or {}))
        self.process.start()
        write.close()

    def handlers_installed(self, timeout: float = 120.0) -> bool:
        """Wait until the command handles SIGHUP and SIGQUIT (Linux: SigCgt in /proc/PID/status): the layer's
        handlers are in place. False when it ended first."""
        wanted = (1 << (signal.SIGHUP - 1)) | (1 << (signal.SIGQUIT - 1))
        deadline = time.monotonic() + timeout
        while self.process.is_alive() and time.monotonic() < deadline:
            try:
                status = Path(f"/proc/{self.process.pid}/status").read_text()
            except OSError:
                break
            if int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M).group(1), 16) & wanted == wanted:
                return True
            time.sleep(0.002)
        return False

    def signal(self, sig: signal.Signals) -> None:
        try:
            os.kill(self.process.pid, sig)
        except ProcessLookupError:  # it ended first: its outputs are then complete, one of the two outcomes allowed
            pass

    def result(self) -> tuple[int, str]:
        """The exit status (−N: killed by signal N's default action) and what it printed on stderr."""
        err = ""
        try:
            if self._read.poll(300):
                err = self._read.recv()
        except EOFError:  # (killed before it could send)
            pass
        self.process.join(300)
        assert self.process.exitcode is not None, "the command did not end"
        return self.process.exitcode, err


def _run_example(name: str, folder: Path, **limits: Any) -> tuple[int, str]:
    return Child(list(DECLARATIONS[name].example), folder, **limits).result()


def _mode(p: Path, mask: int) -> int:
    """The mode ``mask`` gives a new file or folder."""
    return (0o666 if p.is_file() else 0o777) & ~mask


def _wrong_modes(name: str, folder: Path, mask: int) -> dict[str, str]:
    """The files and folders the example wrote whose mode is not the one ``mask`` gives."""
    wrong = {}
    for output, path in _outputs(name, folder):
        for p in [path] if output.kind == FILE_OUTPUT else [path, *path.rglob("*")]:
            if p.exists() and p.stat().st_mode & 0o777 != _mode(p, mask):
                wrong[str(p.relative_to(folder))] = oct(p.stat().st_mode & 0o777)
    return wrong


UMASKS = (0o022, 0o077)
"""The umasks of the examples' reference runs, in turn."""


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, dict[str, bytes | None]]]:
    """Each example run once to the end, under umask 022 or 077 in turn: its exit status and every file
    afterwards; and (c) what its outputs' modes are not (empty: each the mode its umask gives)."""
    results = {}
    for k, name in enumerate(EXAMPLES):
        folder = tmp_path_factory.mktemp(name)
        _fixtures(folder)
        mask = UMASKS[k % len(UMASKS)]
        code, err = _run_example(name, folder, mask=mask)
        assert code in (0, 1), (name, code, err)  # (equiv: 1, the formulas differ)
        for _, path in _outputs(name, folder):
            assert path.exists() or "late" in path.name, (name, path)  # (no late event in s.jsonl)
        results[name] = (code, _snapshot(folder), mask, _wrong_modes(name, folder, mask))
    return results


def _copy(name: str, reference, folder: Path) -> dict[str, bytes | None]:
    """The example's folder with an old version of each output file (what a run must not destroy), of mode 0666:
    returns its snapshot."""
    _fixtures(folder)
    for key, data in reference[name][1].items():
        if data is None:
            (folder / key).mkdir(parents=True, exist_ok=True)
        elif not (folder / key).exists():
            (folder / key).parent.mkdir(parents=True, exist_ok=True)
            (folder / key).write_bytes(b"old " + key.encode() + b"\n")
            (folder / key).chmod(0o666)
    return _snapshot(folder)


def _new_or_old(name: str, reference, folder: Path, before: dict[str, bytes | None], mask: int) -> None:
    """Every file the old one or the complete new one, a new one with the mode ``mask`` gives (not the old
    file's), and nothing else in the folder (no temporary file)."""
    after, new = _snapshot(folder), reference[name][1]
    assert set(after) <= set(before) | set(new), (name, sorted(set(after) - set(before) - set(new)))
    for key, data in after.items():
        assert data in (before.get(key), new.get(key)), (name, key, data[:80] if data else data)
        if data is not None and data != before.get(key):
            assert (folder / key).stat().st_mode & 0o777 == _mode(folder / key, mask), (name, key)


# ---------------------------------------------------------------------------------------------- (b) full disk


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_full_disk_leaves_the_old_outputs(tmp_path: Path, reference, name: str) -> None:
    """Each example where no file may grow past 16 bytes: exit 2, its last line on stderr saying which file it
    could not write, no traceback, each old output as it was, no temporary file left."""
    folder = tmp_path / "work"
    before = _copy(name, reference, folder)
    code, err = _run_example(name, folder, limit=16)
    assert code == 2, (name, code, err)
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"cer-theory {name}: ") and "cannot write" in last and "Traceback" not in err, err
    assert _snapshot(folder) == before


# ---------------------------------------------------------------------------------------------- (b) signals


def _kills() -> Iterator[tuple[str, signal.Signals, float]]:
    """Each example with each of the four stopping signals, after a seeded random delay."""
    rng = random.Random("layer kills")
    for name in EXAMPLES:
        for sig in STOPPING:
            yield name, sig, round(rng.uniform(0.0, 0.3), 3)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the handlers installed")
@pytest.mark.parametrize("name, sig, delay", list(_kills()))
def test_a_stopping_signal_leaves_old_or_complete_outputs(tmp_path: Path, reference, name: str,
                                                          sig: signal.Signals, delay: float) -> None:
    """The example stopped by ``sig`` ``delay`` seconds after its handlers are in place: the status 128 + the
    signal's number with one line (or, when it finished first, its own status), every output the old one or
    the complete new one, nothing beside them."""
    folder = tmp_path / "work"
    before = _copy(name, reference, folder)
    child = Child(list(DECLARATIONS[name].example), folder, mask=0o022)
    if child.handlers_installed():
        time.sleep(delay)
        child.signal(sig)
    code, err = child.result()
    if code == 128 + sig:
        assert err.strip().splitlines()[-1] == f"cer-theory {name}: {SAID[sig.name]}", err
        assert "Traceback" not in err, err
    else:  # (it ended first; a signal in its last moments kills it by the default action)
        assert code in (reference[name][0], ENDED), (name, sig, code, err)
    _new_or_old(name, reference, folder, before, 0o022)


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGQUIT])
def test_run_hung_up_or_quit_while_writing_parquet(tmp_path: Path, sig: signal.Signals) -> None:
    """The issue's case, as a program: SIGHUP or SIGQUIT while ``cer-theory run --output o.parquet`` writes
    (after its first progress line): exit 129 or 131 with one line, the old file as it was, no
    ``.o.parquet.*.partial`` left."""
    stream = tmp_path / "s.jsonl"
    stream.write_text("".join(json.dumps({"type": "AB"[k % 2], "time": k}) + "\n" for k in range(40_000)),
                      encoding="utf-8")
    out = tmp_path / "o.parquet"
    out.write_bytes(b"old")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "cer_theory.cli", "run", "--query",
                             "SELECT * WHERE A ; B WITHIN 6 EVENTS", "--stream", str(stream), "--output", str(out),
                             "--output-format", "parquet", "--progress", "0.05"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
    first = proc.stderr.readline()  # (a progress line: the run is under way)
    time.sleep(random.Random(f"parquet {sig}").uniform(0.0, 0.3))
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    err = first + err
    if " complex events in " not in err:  # (not finished first)
        assert proc.returncode == 128 + sig, (proc.returncode, err)
        assert err.strip().splitlines()[-1] == f"cer-theory run: {SAID[sig.name]}" and "Traceback" not in err, err
        assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "o.parquet", "s.jsonl"]


@pytest.mark.parametrize("folder", [False, True])
def test_a_signal_as_a_temporary_output_is_made_leaves_nothing(monkeypatch, tmp_path: Path, folder: bool) -> None:
    """A Ctrl-C delivered the moment the temporary file (or folder) of an output exists, before it is known to be
    one (a run of the stopping-signal test left ``.cces.dot.….partial`` that way): the signal, held while the file is
    made and registered, raises once it is, and the file is removed. The signal is raised inside ``tempfile``'s call, where a real one can land."""
    made = tempfile.mkdtemp if folder else tempfile.mkstemp

    def made_then_interrupted(**where: Any) -> Any:
        result = made(**where)
        signal.raise_signal(signal.SIGINT)
        return result

    monkeypatch.setattr(tempfile, "mkdtemp" if folder else "mkstemp", made_then_interrupted)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # (Ctrl-C raises, as in a command)
    try:
        with pytest.raises(KeyboardInterrupt):
            outputs.Aside(tmp_path / "o", folder=folder)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert list(tmp_path.iterdir()) == []  # (removed by the Aside itself: also when called from Python)


# ---------------------------------------------------------------------------------------------- (c) modes


@pytest.mark.parametrize("name", EXAMPLES)
def test_outputs_get_the_mode_the_umask_gives(reference, name: str) -> None:
    """The example's reference run (umask 022 or 077, in turn over the examples) gave each output file
    ``0o666 & ~umask`` and each folder ``0o777 & ~umask``: the umask's, not mkstemp's private 0600. (Replacing
    an old file of another mode gives the same: the stopping-signal test checks each new file it finds.)"""
    _, _, mask, wrong = reference[name]
    assert not wrong, (name, oct(mask), wrong)


def test_both_umasks_are_tried() -> None:
    assert {UMASKS[k % len(UMASKS)] for k in range(len(EXAMPLES))} == {0o022, 0o077}


# ---------------------------------------------------------------------------------------------- (d) no direct writes


LAYER_MODULES = {"core/outputs.py"}
"""The only modules that may open a file for writing, rename one into place or make a temporary file."""

_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
_WRITING_CALLS = {("shutil", "copy"), ("shutil", "copy2"), ("shutil", "copyfile"), ("shutil", "copytree"),
                  ("shutil", "move"), ("os", "replace"), ("os", "rename"), ("os", "renames"), ("os", "link"),
                  ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile")}


def _writing_mode(node: ast.Call, position: int) -> bool:
    modes = [k.value for k in node.keywords if k.arg == "mode"]
    if len(node.args) > position:
        modes.append(node.args[position])
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+")
               for m in modes)


def direct_writes(source: str) -> list[str]:
    """The calls in ``source`` that write a file other than through the layer: ``open``/``Path.open`` in a
    writing mode, ``write_text``/``write_bytes``, ``os.open`` with a writing flag, the copying, moving, renaming
    and temporary-file functions of shutil, os and tempfile."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        where = f"line {node.lineno}: {ast.unparse(node)[:80]}"
        if isinstance(f, ast.Name) and f.id == "open" and _writing_mode(node, 1):
            found.append(where)
        elif isinstance(f, ast.Attribute):
            owner = f.value.id if isinstance(f.value, ast.Name) else None
            if f.attr in ("write_text", "write_bytes"):
                found.append(where)
            elif f.attr == "open" and owner == "os":
                if any(isinstance(n, ast.Attribute) and n.attr in _WRITE_FLAGS for a in node.args for n in ast.walk(a)):
                    found.append(where)
            elif f.attr == "open" and _writing_mode(node, 1 if owner in ("io", "codecs") else 0):
                found.append(where)
            elif (owner, f.attr) in _WRITING_CALLS:
                found.append(where)
    return found


def test_the_checker_sees_each_kind_of_direct_write() -> None:
    """Planted writes, each caught; reads are not."""
    planted = ['open(p, "w")', 'open(p, mode="ab")', 'Path(p).write_text("x")', 'p.write_bytes(b"")',
               'p.open("x")', 'io.open(p, "w+")', 'os.open(p, os.O_WRONLY | os.O_CREAT)', 'shutil.copy(a, b)',
               'os.replace(a, b)', 'tempfile.mkstemp(dir=d)']
    for line in planted:
        assert direct_writes(line), line
    assert not direct_writes('open(p)\nopen(p, "rb")\np.open()\nos.open(p, os.O_RDONLY)\np.read_text()')


def test_nothing_writes_a_file_except_the_layer() -> None:
    """No module of the package (cli/ included) opens a file for writing, renames or copies one, or makes a
    temporary file itself: every write goes through core/outputs.py (aside, renamed into place, the umask's
    mode, only where the command declared)."""
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in LAYER_MODULES:
            continue
        found = direct_writes(path.read_text(encoding="utf-8"))
        if found:
            offenders[relative] = found
    assert not offenders, offenders


# ---------------------------------------------------------------------------------------------- the small items


def test_a_declared_budget_binds_the_whole_command(capsys) -> None:
    """A command declaring ``budget=True`` gets ``--budget`` and runs whole under it: work charged anywhere in
    it (here, outside any construction's own budget) stops it with exit 2 past the bound."""
    from cer_theory.core.budget import charge

    def work(args: argparse.Namespace) -> int:
        for _ in range(1000):
            charge("the planted command's loop")
        return 0

    def register(sub):
        p = sub.add_parser("planted")
        declare(p, budget=True)
        p.set_defaults(func=work)

    parser = _planted(register)
    assert _run(parser.parse_args(["planted", "--budget", "1000"]), "cer-theory planted", program=False) == 0
    assert _run(parser.parse_args(["planted", "--budget", "999"]), "cer-theory planted", program=False) == 2
    assert "the planted command's loop" in capsys.readouterr().err


def test_a_command_that_fails_after_making_its_output_leaves_no_temporary_file(capsys, tmp_path: Path) -> None:
    """``run`` with a lateness reads its whole stream before the run proper, after its output's temporary file is
    made: bad input found there is one line (exit 2), the old output kept, and nothing beside it. The layer removes
    every uncommitted temporary output of a command that fails, wherever it failed."""
    stream = tmp_path / "s.jsonl"
    stream.write_text('{"type": "A", "time": 1}\n{not json\n', encoding="utf-8")
    out = tmp_path / "o.jsonl"
    out.write_bytes(b"old")
    code = main(["run", "--query", "SELECT * WHERE A ; B", "--stream", str(stream), "--lateness", "1",
                 "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and str(stream) in err, err
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.jsonl", "s.jsonl"]


class _InterruptedWhileNamed:
    """A descriptor that Ctrl-C interrupts while a class is made: Python 3.11 hands the KeyboardInterrupt of its
    ``__set_name__`` on as a RuntimeError, as it did in a dataclass of a module a command imported (a run of
    the stopping-signal test saw ``grade-answers`` end with a traceback and status 1)."""

    def __set_name__(self, owner: type, name: str) -> None:
        signal.raise_signal(signal.SIGINT)


class _Unwinding(BaseException):
    """Raised while a Ctrl-C unwinds, and no :class:`Exception` (as the grader's time limit is not one)."""


@pytest.mark.parametrize("where", ["class", "grader", "unwinding"])
def test_an_interrupt_handed_on_wrapped_stops_the_command(capsys, tmp_path: Path, where: str) -> None:
    """A Ctrl-C some code wraps in another exception, or during whose unwinding another is raised, is the
    interrupt all the same: status 130 and one line, not a traceback (status 1), nor, in the grader, an answer
    "not graded"."""
    def make_a_class(args: argparse.Namespace) -> int:
        type("Named", (), {"field": _InterruptedWhileNamed()})
        return 0

    def unwinding(args: argparse.Namespace) -> int:
        try:
            signal.raise_signal(signal.SIGINT)
        finally:
            raise _Unwinding

    def grade(args: argparse.Namespace) -> int:
        from cer_theory.exercises import teacher

        exercise = teacher.load_bundled(teacher.bundled_names()[0])
        original = teacher.check

        def check(*given: Any) -> Any:
            make_a_class(args)
            return original(*given)

        teacher.check = check
        try:
            teacher.grade_answer(exercise, "A ; B")
        finally:
            teacher.check = original
        return 0

    def register(sub):
        p = sub.add_parser("planted")
        declare(p)
        p.set_defaults(func={"class": make_a_class, "grader": grade, "unwinding": unwinding}[where])

    parser = _planted(register)
    previous = {s: signal.getsignal(s) for s in STOPPING}  # (the stopped command ignores them all: put back)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = _run(parser.parse_args(["planted"]), "cer-theory planted", program=False)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    err = capsys.readouterr().err
    assert code == 130 and err.strip().splitlines() == ["cer-theory planted: interrupted"], (code, err)


@pytest.mark.parametrize("argv", [["draw", "A ; B", "-o", "{out}"], ["determinize", "A ; B", "--dot", "{out}"],
                                  ["cces", "A ; B", "--stream", "missing.jsonl", "--dot", "{out}"]])
def test_unknown_drawing_formats_are_refused_before_anything_is_read(capsys, tmp_path: Path, argv: list[str]) -> None:
    """``-o x.exe`` names no format: refused with the known ones (not "install Graphviz"), nothing written."""
    code = main([a.format(out=tmp_path / "x.exe") for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and "unknown format 'exe'" in err and "svg" in err and "Graphviz" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_to_cel_draws_what_it_was_asked_to(capsys, tmp_path: Path) -> None:
    """``to-cel --dot FILE`` writes the automaton it translated back (it used to exit 0 writing nothing)."""
    assert main(["to-cel", "A ; B", "--dot", str(tmp_path / "a.dot")]) == 0
    assert (tmp_path / "a.dot").read_text(encoding="utf-8").startswith("digraph")


@pytest.mark.parametrize("seed", ["-1", "1000000001", "1e3"])
def test_a_sheet_seed_out_of_range_is_refused(capsys, seed: str) -> None:
    """A sheet's seed names its exercises (``gen_formula_1_<seed>``), which the grader reads back: a negative or
    oversized seed would ask students for files the grader cannot find."""
    with pytest.raises(SystemExit) as stopped:
        main(["exercise-sheet", "--seed", seed])
    assert stopped.value.code == 2
    assert "expected a whole number from 0 to 1000000000" in capsys.readouterr().err
