"""The exceptions of cer_theory: every bad input is reported with one of these.

Each error says *where* (line, column, field, transition) and *what was expected*, so that a student can
fix the input without reading a traceback. All derive from :class:`CerError`.
"""

from __future__ import annotations


class CerError(Exception):
    """Base class of every error raised on purpose by cer_theory."""


class StreamFormatError(CerError, ValueError):
    """A malformed event or stream file: names the source, line and field."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.source, self.line, self.field = source, line, field
        where = []
        if source:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class SyntaxErrorCER(CerError, ValueError):
    """A query or formula that does not parse: names line, column and what was expected."""

    def __init__(self, message: str, *, line: int, column: int, text: str = "",
                 expected: tuple[str, ...] = ()) -> None:
        self.line, self.column, self.text, self.expected = line, column, text, expected
        pointer = ""
        if text:
            source_line = text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""
            shown, caret = _excerpt(source_line, column - 1)
            pointer = f"\n  {shown}\n  {' ' * caret}^"
        super().__init__(f"line {line}, column {column}: {message}{pointer}")


EXCERPT = 100
"""The most characters of a source line a syntax error shows around its column (a 5,000-digit literal is shown by
its ends, not printed whole)."""


def _excerpt(source_line: str, offset: int) -> tuple[str, int]:
    """The part of ``source_line`` a message shows around character ``offset``, and the caret's offset in it."""
    if len(source_line) <= EXCERPT:
        return source_line, offset
    start = max(0, min(offset - EXCERPT // 2, len(source_line) - EXCERPT))
    shown = source_line[start:start + EXCERPT]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + EXCERPT < len(source_line) else ""
    return prefix + shown + suffix, offset - start + len(prefix)


class FormulaTooDeep(SyntaxErrorCER):
    """A formula or query nested deeper than the toolkit's limit (``core.tree.MAX_NESTING``): rejected by the
    parser, since evaluating, printing or hashing it would exhaust Python's call stack (docs/robustness.md)."""

    def __init__(self, what: str, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the {what} nests more than {limit} levels deep (operators inside operators, FILTER "
                         f"conditions and their terms included); at most {limit} are supported: split it into "
                         f"smaller formulas or flatten it", line=1, column=1)


class ArgumentError(CerError, TypeError):
    """A value of the wrong kind given to a public function (``ct.cel(None)``, ``ct.load(3)``): names the parameter,
    what it takes and what it got (:func:`wrong_kind`)."""


class FileError(CerError, OSError):
    """A file or folder that cannot be read or written as asked: missing, a folder where a file is expected, no
    permission, too large, not UTF-8 text. The message names the path."""


def kind_of(value: object) -> str:
    """How a message names what a caller gave: the type, and the value when short (``None``, ``int 3``)."""
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text}" if len(text) <= 40 else f"a {type(value).__name__}"


def wrong_kind(what: str, expected: str, value: object) -> ArgumentError:
    """The :class:`ArgumentError` for parameter ``what`` given ``value`` where it takes ``expected``."""
    return ArgumentError(f"{what} takes {expected}, got {kind_of(value)}")


class NotUnaryError(CerError, ValueError):
    """A formula with an n-ary filter given to a construction that needs unary CEL (the CEL paper, Def. 4.1)."""


class UnsupportedError(CerError, ValueError):
    """An operator or input a construction does not handle; the message says which and why."""


class AutomatonError(CerError, ValueError):
    """An automaton that violates its definition (unknown state, bad label, ...)."""


DEFAULT_BUDGET = 20_000
"""The one size budget of every exponential construction (states built before :class:`SizeBudgetExceeded`)."""


class SizeBudgetExceeded(CerError, RuntimeError):
    """An exponential construction grew past its size budget."""

    def __init__(self, construction: str, budget: int, reached: int, *, unit: str = "states") -> None:
        self.construction, self.budget, self.reached, self.unit = construction, budget, reached, unit
        super().__init__(f"{construction}: size budget of {budget} {unit} exceeded (reached {reached}); "
                         f"pass a larger budget= if this is intended")

    def for_command_line(self, option: str | None = "--budget") -> str:
        """The same report in the terms of a command whose ``option`` set the budget; ``None`` for a command
        without one (its bound is fixed: the message must not name an option the command lacks)."""
        if option is None:
            return (f"{self.construction} stopped after {self.reached} {self.unit}, past its fixed bound of "
                    f"{self.budget}; the input is too large for this command")
        return (f"{self.construction} stopped after {self.reached} {self.unit}, past {option} {self.budget}; "
                f"give a larger {option} to go further")


class PredicateError(CerError, ValueError):
    """A predicate that cannot be built, evaluated or translated as asked."""


class RegistryError(CerError, LookupError):
    """An unknown formalism or evaluator name (``--logic``, ``--via``); the message lists the known ones."""


class AggregateError(CerError, ValueError):
    """An aggregate that cannot be computed: an unknown aggregate function, or values of the wrong kind (the sum
    of strings). Aggregation paper (the ACEL paper), §4: aggregate functions over bags of data values."""


class ExerciseError(CerError, ValueError):
    """A malformed exercise file (TOML syntax, a missing or ill-typed field, a reference formula that does not
    parse or leaves the exercise's schema): names the file and the field."""
