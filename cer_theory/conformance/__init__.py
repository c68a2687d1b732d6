"""Differential conformance testing of CER engines against the reference semantics of CEQL (the CORE paper, *CORE*, §2).

An engine sits behind an adapter (:mod:`.adapters`: ``reference``, ``engine``, ``spark``, ``pycer``, or any program
through ``command`` and the JSON-lines protocol of :mod:`.protocol`); cases are generated (:mod:`.generate`) or
read from a corpus (:mod:`.corpus`); :mod:`.check` classifies each case as agree / explained (by a reading of a
:mod:`.dialects` dialect) / unexplained / engine error and shrinks every finding; :mod:`.report` writes the JSON
and Markdown reports. docs/conformance.md is the guide.
"""
