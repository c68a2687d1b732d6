"""One package per formalism of the seed papers: ``cel`` (seed 000) and ``ceql`` (seed 001)."""
