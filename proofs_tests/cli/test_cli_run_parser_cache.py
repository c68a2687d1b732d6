"""The CEQL parser's table cache (D121): a second process loads Lark's cached LALR tables and parses the same
query to the same tree as the process that built them; a truncated or garbled cache file (a writer in another
process caught half-way) still gives a working parser, silently, and is rewritten."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

_QUERY = "SELECT * FROM S WHERE (T as t; H+ as h) FILTER t[temp > 40] WITHIN 5 EVENTS"
_SCRIPT = f"from cer_theory.formalisms.ceql.parser import parse; print(repr(parse({_QUERY!r})))"


_VERBOSE = "import logging, lark; lark.logger.setLevel(logging.DEBUG); " + _SCRIPT


def _parse_in_new_process(cache_home: Path, script: str = _SCRIPT) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)


def test_parser_cache_gives_same_query_across_processes(tmp_path: Path) -> None:
    outs = [_parse_in_new_process(tmp_path).stdout for _ in range(2)]
    assert outs[0] == outs[1] and outs[0].strip(), outs
    assert len(list((tmp_path / "cer_theory").glob("ceql-lalr-*.lark"))) == 1


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_damaged_parser_cache_is_rebuilt_silently(tmp_path: Path, damage: str) -> None:
    expected = _parse_in_new_process(tmp_path).stdout
    (cache,) = (tmp_path / "cer_theory").glob("ceql-lalr-*.lark")
    whole = cache.read_bytes()
    cache.write_bytes({"truncated": whole[:len(whole) // 2], "garbage": b"\x80\x04not a pickle\n\x00\xff" * 50}[damage])
    again = _parse_in_new_process(tmp_path)
    assert again.stdout == expected, (damage, again.stdout, expected)
    assert again.stderr == "", again.stderr
    # rebuilt and written back whole: the next process loads the tables from it
    log = _parse_in_new_process(tmp_path, _VERBOSE)
    assert log.stdout == expected and "Loading grammar from cache" in log.stderr and "Failed" not in log.stderr, \
        log.stderr


def _group_writable(path: Path) -> None:
    path.chmod(path.stat().st_mode | 0o020)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
@pytest.mark.parametrize("where", ["folder", "file"])
def test_a_parser_cache_others_can_write_is_never_loaded(tmp_path: Path, where: str) -> None:
    """Lark unpickles its cache file: a file, or a folder, that another user could have written is neither read
    nor written (D261); the parser still works, rebuilding its tables."""
    expected = _parse_in_new_process(tmp_path).stdout
    folder = tmp_path / "cer_theory"
    (cache,) = folder.glob("ceql-lalr-*.lark")
    planted = b"\x80\x04not the tables\x00" * 50
    cache.write_bytes(planted)
    _group_writable(folder if where == "folder" else cache)
    log = _parse_in_new_process(tmp_path, _VERBOSE)
    assert log.stdout == expected
    assert "Loading grammar from cache" not in log.stderr and "Failed" not in log.stderr, log.stderr
    assert cache.read_bytes() == planted, "the untrusted cache was neither read nor rewritten"
