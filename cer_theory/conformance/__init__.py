"""Differential conformance testing of CER engines against the reference semantics of CEQL (the CORE paper, *CORE*, §2).

An engine sits behind an adapter (:mod:`.adapters`: ``reference``, ``engine``, ``spark``, ``pycer``, or any program
through ``command`` and the JSON-lines protocol of :mod:`.protocol`); cases are generated (:mod:`.generate`) or
read from a corpus (:mod:`.corpus`); :mod:`.check` classifies each case as agree / explained (by a reading of a
:mod:`.dialects` dialect, an executable model of the engine's reading) / unexplained / engine error, reduces every
failing case to a canonical form and groups them into findings (:mod:`cer_theory.testing.findings`: one bug, one
finding); :mod:`.metamorphic` checks relations that need no reference; :mod:`.flink` and :mod:`.flink_model` test
Flink's ``MATCH_RECOGNIZE``; :mod:`.report` writes the JSON and Markdown reports and a folder per finding.
docs/conformance.md is the guide.
"""
