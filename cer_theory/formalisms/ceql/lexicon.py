"""The words of CEQL (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2, and CORE's grammar): its reserved
keywords, the attribute that tags an event with its stream, the default timestamp, and the declared datatypes.

They sit below both the AST (:mod:`cer_theory.formalisms.ceql.ast`, which re-exports them) and the printer, which
needs them and which the AST imports for ``str(q)``.
"""

from __future__ import annotations

KEYWORDS = ("SELECT", "FROM", "WHERE", "PARTITION", "BY", "WITHIN", "CONSUME", "LIMIT", "HAVING", "ALL", "ANY", "LAST",
            "MAX", "NEXT", "STRICT", "NONE", "AS", "OR", "AND", "NOT", "FILTER", "IN", "LIKE", "EVENTS", "HOUR",
            "HOURS", "MINUTE", "MINUTES", "SECOND", "SECONDS", "TRUE", "FALSE", "CREATE", "DECLARE", "STREAM",
            "EVENT")
"""Reserved words (case-insensitive). A reserved word is a name only in backquotes: ``event`` written with a
backquote on each side."""

STREAM_ATTRIBUTE = "stream"
"""``S>T`` (an event of type T from stream S) is the formula ``T FILTER T[stream = 'S']``: whoever merges the
streams of a FROM clause tags each event with the name of its stream in this attribute."""

DEFAULT_TIME_ATTRIBUTE = "time"
"""The timestamp attribute a duration window (``WITHIN 10 SECONDS``) reads, unless the caller overrides it."""

DATATYPE_KINDS = {"int": "num", "long": "num", "double": "num", "float": "num", "primary_time": "num",
                  "string": "str", "boolean": "bool", "bool": "bool"}
"""Declared attribute datatypes (CORE's ``int string double long boolean primary_time``) → predicate kinds."""


__all__ = ["KEYWORDS", "STREAM_ATTRIBUTE", "DEFAULT_TIME_ATTRIBUTE", "DATATYPE_KINDS"]
