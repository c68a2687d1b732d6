"""CORE's option declaration ``CREATE QUARANTINE { … }`` (docs/decisions.md D104): parsed with the stream
declarations; its words are not reserved; a wrong policy or duration is a syntax error at its place."""

from __future__ import annotations

import pytest

from cer_theory.core.errors import SyntaxErrorCER
from cer_theory.formalisms.ceql.ast import QuarantinePolicy, StreamDeclaration
from cer_theory.formalisms.ceql.declarations import schema_of
from cer_theory.formalisms.ceql.parser import parse, parse_declarations


def test_quarantine_policies_and_stream_declarations_together() -> None:
    decls = parse_declarations("create quarantine { fixed_time 1 minutes 30 seconds { S, T } }\n"
                               "CREATE STREAM S { EVENT direct { fixed_time:int } }")
    assert decls == [QuarantinePolicy("FIXED_TIME", 90, ("S", "T")), StreamDeclaration("S", {"direct": {"fixed_time":
                                                                                                        "int"}})]
    assert schema_of(decls).kinds == {"direct": {"fixed_time": "num"}}
    assert parse("SELECT * WHERE direct ; quarantine").within is None  # the option words stay names


@pytest.mark.parametrize("text,message,column", [
    ("CREATE QUARANTINE { FIXED_TIME {S} }", "FIXED_TIME needs a duration", 21),
    ("CREATE QUARANTINE { BOUNDED_TIME {S} }", "BOUNDED_TIME needs a duration", 21),
    ("CREATE QUARANTINE { DIRECT 2 seconds {S} }", "DIRECT takes no duration", 21),
    ("CREATE QUARANTINE { WAIT 2 seconds {S} }", "unknown quarantine policy 'WAIT'", 21),
    ("CREATE OPTIONS { DIRECT {S} }", "unknown option 'OPTIONS'", 8),
])
def test_bad_quarantine_declarations_name_the_place(text: str, message: str, column: int) -> None:
    with pytest.raises(SyntaxErrorCER, match=message) as info:
        parse_declarations(text)
    assert (info.value.line, info.value.column) == (1, column)
