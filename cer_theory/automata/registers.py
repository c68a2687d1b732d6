"""Register stores: the valuations of the SRT paper (Alevizos, Artikis, Paliouras, *Complex Event Recognition with
Symbolic Register Transducers*, §3.2, Def. 12), shared by every register-reading automaton.

A valuation is a *partial* map ``v: R ⇀ U`` from register names to events; an undefined register is the
paper's ``#`` and the all-empty valuation is also written ``#`` (:data:`EMPTY`). ``v[W ← u]`` writes the event
``u`` into every register of ``W`` (:meth:`Valuation.write`). Valuations are immutable and hashable, so runs and
derivations can be collected in sets (matches are sets, the SRT paper Def. 26).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from cer_theory.core.events import Event


class Valuation(Mapping[str, Event]):
    """An immutable partial map register → event (the SRT paper, Def. 12).

    >>> v = EMPTY.write(["r1"], Event("B", id=1))
    >>> v.get("r1"), v.get("r2")
    (B(id=1), None)
    """

    __slots__ = ("_items", "_map", "_hash")
    _items: tuple[tuple[str, Event], ...]
    _map: dict[str, Event]  # the same pairs, for O(1) reads; never mutated

    def __init__(self, items: Mapping[str, Event] | Iterable[tuple[str, Event]] = ()) -> None:
        pairs = dict(items.items() if isinstance(items, Mapping) else items)
        for name, event in pairs.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"a register name is a non-empty string, got {name!r}")
            if not isinstance(event, Event):
                raise TypeError(f"register {name} holds an event, got {event!r}")
        object.__setattr__(self, "_items", tuple(sorted(pairs.items())))
        object.__setattr__(self, "_map", dict(self._items))
        object.__setattr__(self, "_hash", hash(self._items))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Valuation is immutable")

    def __getitem__(self, register: str) -> Event:
        return self._map[register]

    def get(self, register: str, default: Event | None = None) -> Event | None:  # type: ignore[override]
        return self._map.get(register, default)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Valuation):
            return self._items == other._items
        return NotImplemented

    def defined(self, register: str) -> bool:
        """Is ``register`` holding an event (not ``#``)?"""
        return register in self._map

    def write(self, registers: Iterable[str], event: Event) -> Valuation:
        """``v[W ← u]`` (the SRT paper, Def. 12): every register of ``W`` now holds ``event``; ``v`` is unchanged."""
        regs = tuple(registers)
        if not regs:
            return self
        out = dict(self._map)
        for r in regs:
            out[r] = event
        return Valuation(out)

    def restrict(self, registers: Iterable[str]) -> Valuation:
        """The valuation on ``registers`` only (the others become ``#``)."""
        keep = set(registers)
        return Valuation((n, e) for n, e in self._items if n in keep)

    def __repr__(self) -> str:
        if not self._items:
            return "#"
        return "{" + ", ".join(f"{n}: {e!r}" for n, e in self._items) + "}"


EMPTY = Valuation()
"""The all-empty valuation ``#`` (the SRT paper, Def. 12), the registers of every initial configuration."""
