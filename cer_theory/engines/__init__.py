"""Evaluation engines: the CCES of seed 000 (§9) and CORE's tECS engine of seed 001."""
