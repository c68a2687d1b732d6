"""Selection strategies: the one definition that CEL, CEQL, the selection automata and the engines share.

:class:`Strategy` holds the four strategies of the CEL paper (*A Formal Framework for Complex Event Recognition*,
§7.1): STRICT, NXT, LAST and MAX. It lives in the kernel because the automata layer builds their automata
(Theorem 7.2, :mod:`cer_theory.automata.determinize.selection`) and must not import a formalism.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

from cer_theory.core.errors import UnsupportedError


class Strategy(enum.Enum):
    """Selection strategies of the CEL paper §7.1."""

    STRICT = "STRICT"
    NXT = "NXT"
    LAST = "LAST"
    MAX = "MAX"


# CEQL (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2) writes the CEL paper's strategies as ``SELECT
# <keyword>`` and adds two keywords that select nothing: ``ALL`` (the default) and ``ANY`` (which CORE defers to,
# and the CEL paper does not define); ``NEXT`` is the CEL paper's NXT. Its ``CONSUME BY`` clause takes one of three policies.

CEQL_STRATEGIES: Mapping[str, Strategy | None] = MappingProxyType({
    "ALL": None, "ANY": None, "NEXT": Strategy.NXT, "LAST": Strategy.LAST, "MAX": Strategy.MAX,
    "STRICT": Strategy.STRICT,
})
"""CEQL's ``SELECT <strategy>`` keywords, in the order of CORE's grammar, and the CEL paper §7.1 strategy each one
means; ``ALL`` and ``ANY`` apply none (None)."""

CONSUME_POLICIES: tuple[str, ...] = ("ANY", "PARTITION", "NONE")
"""CEQL's ``CONSUME BY`` policies (the CORE paper §2); no clause consumes nothing, as ``NONE`` does."""


def ceql_strategy(keyword: str) -> Strategy | None:
    """The CEL paper strategy a CEQL keyword means (case-insensitive): ``"next"`` → NXT, ``"ALL"`` → None.

    An unknown keyword is an :class:`~cer_theory.core.errors.UnsupportedError` naming the known ones."""
    try:
        return CEQL_STRATEGIES[keyword.upper()]
    except (KeyError, AttributeError):
        raise UnsupportedError(f"unknown selection strategy {keyword!r}; CEQL has "
                               f"{', '.join(CEQL_STRATEGIES)}") from None


def ceql_keyword(strategy: Strategy | None) -> str:
    """The CEQL keyword of a CEL paper strategy: NXT → ``"NEXT"``, None → ``"ALL"`` (the default)."""
    if strategy is None:
        return "ALL"
    return "NEXT" if strategy is Strategy.NXT else strategy.value


def consume_policy(policy: str | None) -> str | None:
    """A ``CONSUME BY`` policy upper-cased (None stays None); an unknown one is an
    :class:`~cer_theory.core.errors.UnsupportedError`."""
    if policy is None:
        return None
    upper = policy.upper() if isinstance(policy, str) else policy
    if upper not in CONSUME_POLICIES:
        raise UnsupportedError(f"unknown consumption policy {policy!r}; CEQL has CONSUME BY "
                               f"{' | '.join(CONSUME_POLICIES)}")
    return upper


__all__ = ["Strategy", "CEQL_STRATEGIES", "CONSUME_POLICIES", "ceql_strategy", "ceql_keyword", "consume_policy"]
