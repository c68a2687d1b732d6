"""The CEQL parser's table cache (D121, D200): a second process loads the cached LALR tables and parses the same
query to the same tree as the process that built them; a truncated or garbled cache file (a writer in another
process caught half-way) still gives a working parser, silently, and is rewritten. The file is JSON, never
unpickled: a pickle planted where the cache lives (Lark's own format, which runs code on loading) is never run,
and a cache folder or file that another user could have written is not read."""
import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import lark
import pytest
from lark import Lark

from cer_theory.core.conditions import IMPORT_PATH
from cer_theory.formalisms.ceql.parser import GRAMMAR_PATH

_QUERY = "SELECT * FROM S WHERE (T as t; H+ as h) FILTER t[temp > 40] WITHIN 5 EVENTS"
_SCRIPT = f"from cer_theory.formalisms.ceql.parser import parse; print(repr(parse({_QUERY!r})))"
_VERBOSE = ("import logging, sys; logging.basicConfig(stream=sys.stderr, level=logging.DEBUG, format='%(message)s'); "
            + _SCRIPT)


def _parse_in_new_process(cache_home: Path, script: str = _SCRIPT) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)


def _cache_file(cache_home: Path) -> Path:
    (cache,) = (cache_home / "cer_theory").glob("ceql-lalr-*.json")
    return cache


def test_parser_cache_gives_same_query_across_processes(tmp_path: Path) -> None:
    outs = [_parse_in_new_process(tmp_path).stdout for _ in range(2)]
    assert outs[0] == outs[1] and outs[0].strip(), outs
    _cache_file(tmp_path)
    log = _parse_in_new_process(tmp_path, _VERBOSE)
    assert log.stdout == outs[0] and "loaded parser tables" in log.stderr, log.stderr


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_damaged_parser_cache_is_rebuilt_silently(tmp_path: Path, damage: str) -> None:
    expected = _parse_in_new_process(tmp_path).stdout
    cache = _cache_file(tmp_path)
    whole = cache.read_bytes()
    cache.write_bytes({"truncated": whole[:len(whole) // 2], "garbage": b"\x80\x04not a pickle\n\x00\xff" * 50}[damage])
    again = _parse_in_new_process(tmp_path)
    assert again.stdout == expected, (damage, again.stdout, expected)
    assert again.stderr == "", again.stderr
    # rebuilt and written back whole: the next process loads the tables from it
    log = _parse_in_new_process(tmp_path, _VERBOSE)
    assert log.stdout == expected and "loaded parser tables" in log.stderr, log.stderr


class _Payload:
    """A pickle that, when unpickled, writes a marker file: what a hostile local user would plant."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


_OPTIONS = dict(parser="lalr", lexer="basic", start=["query_start", "declarations_start"], maybe_placeholders=False,
                import_paths=[IMPORT_PATH])  # CEQL's grammar imports the one condition grammar


def _lark_header(tmp_path: Path) -> bytes:
    """The first line Lark's own cache file starts with for the CEQL grammar (its hash of grammar and options):
    with it, Lark unpickles what follows."""
    probe = tmp_path / "probe.lark"
    Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), cache=str(probe), **_OPTIONS)
    return probe.read_bytes().split(b"\n", 1)[0] + b"\n"


def _plant(cache_home: Path, header: bytes, marker: Path) -> list[Path]:
    """The payload, behind a header Lark accepts, under every name the cache could be read from: this version's
    files and the name the pickled cache had (``ceql-lalr-<hash of grammar, Lark, Python>.lark``)."""
    folder = cache_home / "cer_theory"
    folder.mkdir(parents=True, exist_ok=True)
    grammar = GRAMMAR_PATH.read_text(encoding="utf-8")
    old = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}".encode()).hexdigest()[:20]
    planted = list(folder.glob("ceql-lalr-*.json")) + [folder / f"ceql-lalr-{old}.lark"]
    for p in planted:
        p.write_bytes(header + pickle.dumps(_Payload(marker)))
    return planted


def test_planted_pickle_in_the_cache_never_runs(tmp_path: Path) -> None:
    expected = _parse_in_new_process(tmp_path / "clean").stdout
    marker = tmp_path / "pwned"
    header = _lark_header(tmp_path)
    _parse_in_new_process(tmp_path / "home")  # the real cache file exists: overwrite it with the payload
    planted = _plant(tmp_path / "home", header, marker)
    again = _parse_in_new_process(tmp_path / "home")
    assert again.stdout == expected and not marker.exists(), (again.stdout, again.stderr)
    # the payload is real: Lark's own (pickled) cache loader runs it
    Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), cache=str(planted[-1]), **_OPTIONS)
    assert marker.exists()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_cache_folder_writable_by_others_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "cer_theory"
    folder.mkdir()
    folder.chmod(0o777)  # a shared home, a umask of 000: another user could write the tables
    out = _parse_in_new_process(tmp_path, _VERBOSE)
    assert out.stdout.strip() and not list(folder.iterdir()) and "loaded parser tables" not in out.stderr


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
@pytest.mark.parametrize("how", ["writable by others", "another user's"])
def test_cache_file_another_user_could_write_is_not_read(tmp_path: Path, how: str) -> None:
    expected = _parse_in_new_process(tmp_path).stdout
    cache = _cache_file(tmp_path)
    if how == "writable by others":
        cache.chmod(0o666)
    else:
        if os.getuid() != 0:
            pytest.skip("giving a file to another user needs root")
        os.chown(cache, 12345, -1)
    out = _parse_in_new_process(tmp_path, _VERBOSE)
    assert out.stdout == expected and "ignoring parser tables" in out.stderr, out.stderr
    assert "loaded parser tables" not in out.stderr
