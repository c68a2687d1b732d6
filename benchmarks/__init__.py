"""Throughput and memory benchmarks of the CORE engine (the CORE paper, §5) against peers; see benchmarks/README.md.

Nothing here imports ``cer_theory`` at module level: ``stock``, ``suite`` and ``worker`` also run under the
CPython 3.13 interpreter of the pycer peer, which does not have the package installed.
"""
