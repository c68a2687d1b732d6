"""The CEQL parser's table cache (D121): a second process loads Lark's cached LALR tables and parses the same
query to the same tree as the process that built them."""
import subprocess
import sys

_QUERY = "SELECT * FROM S WHERE (T as t; H+ as h) FILTER t[temp > 40] WITHIN 5 EVENTS"
_SCRIPT = f"from cer_theory.formalisms.ceql.parser import parse; print(repr(parse({_QUERY!r})))"


def test_parser_cache_gives_same_query_across_processes() -> None:
    outs = [subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1] and outs[0].strip(), outs
