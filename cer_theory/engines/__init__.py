"""Evaluation engines: the CCES of the CEL paper (§9) and CORE's tECS engine of the CORE paper."""
