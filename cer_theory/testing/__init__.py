"""Testing support, public API: ``strategies`` (hypothesis strategies per formalism) and ``harness`` (the
differential checks of every registered formalism, the one failure report, and checks of external engines)."""
