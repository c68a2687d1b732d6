"""The ``cer-theory`` command line.

``eval``    evaluate a CEL formula on a stream file, one JSON object per output position;
``draw``    draw the CEA of a unary CEL formula (Theorem 6.2) as SVG, PNG, PDF or DOT;
``demo``    the running example of seed 000: φ1–φ4 on S_fire, semantics and automaton side by side;
``figures`` regenerate every drawing in ``figures/``.

Exit status: 0 on success, 2 on bad input (a formula that does not parse, a malformed stream, a formula
the requested evaluator cannot handle), with a message on stderr naming where the problem is.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .errors import CerError
from .events import Stream


def _read_formula(text: str):
    from .syntax.cel_parser import parse

    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    return parse(text)


def _evaluate(phi, stream: Stream, via: str) -> list[frozenset]:
    from .testing.differential import EVALUATORS

    return EVALUATORS[via](phi, stream)


def cmd_eval(args: argparse.Namespace) -> int:
    phi = _read_formula(args.formula)
    stream = Stream.load(args.stream)
    outputs = _evaluate(phi, stream, args.via)
    out = sys.stdout
    for n, vals in enumerate(outputs):
        if not vals:
            continue
        if args.valuations:
            body = sorted(vals, key=lambda m: m.sort_key())
            out.write(json.dumps({"n": n, "valuations": [m.to_json() for m in body]}) + "\n")
        else:
            ces = sorted({tuple(sorted(m.support())) for m in vals})
            out.write(json.dumps({"n": n, "complex_events": [list(c) for c in ces]}) + "\n")
    return 0


def _compile(phi, *, trim: bool = False):
    from .constructions.cel_to_cea import compile_cel

    return compile_cel(phi, trim=trim)


def cmd_draw(args: argparse.Namespace) -> int:
    from .viz.dot import write_drawing

    phi = _read_formula(args.formula)
    cea = _compile(phi, trim=args.trim)
    dot = cea.to_dot(title=args.title or str(phi))
    if args.output in (None, "-"):
        sys.stdout.write(dot)
    else:
        write_drawing(dot, args.output)
        print(f"wrote {args.output} ({len(cea.states)} states, {len(cea.transitions)} transitions)", file=sys.stderr)
    return 0


def _fmt(ces: frozenset) -> str:
    return "{" + ", ".join("{" + ",".join(map(str, c)) + "}" for c in sorted(tuple(sorted(c)) for c in ces)) + "}"


def cmd_demo(args: argparse.Namespace) -> int:
    from .examples import FORMULAS, fire_stream
    from .semantics.cel import run_complex_events
    from .syntax.cel_parser import parse
    from .viz.dot import write_drawing

    t0 = time.perf_counter()
    stream = fire_stream()
    print("S_fire (seed 000, Fig. 1):")
    for k, e in enumerate(stream):
        print(f"  {k}: {e!r}")
    all_agree = True
    for name in ("φ1", "φ2", "φ3", "φ4"):
        phi = parse(FORMULAS[name])
        cea = _compile(phi)
        by_sem = run_complex_events(phi, stream)
        by_cea = cea.run_complex_events(stream)
        print(f"\n{name} = {phi}")
        print(f"  CEA (Theorem 6.2): {len(cea.states)} states, {len(cea.transitions)} transitions")
        print(f"  {'n':>3}  {'semantics (Fig. 3)':<28} {'automaton (Def. 5.2)':<28}")
        for n in range(len(stream)):
            if by_sem[n] or by_cea[n]:
                mark = "=" if by_sem[n] == by_cea[n] else "≠"
                print(f"  {n:>3}  {_fmt(by_sem[n]):<28} {_fmt(by_cea[n]):<28} {mark}")
        all_agree &= by_sem == by_cea
    out_dir = Path(args.figures)
    out_dir.mkdir(parents=True, exist_ok=True)
    phi3 = parse(FORMULAS["φ3"])
    dot = _compile(phi3).to_dot(title="CEA of φ3 (Theorem 6.2)")
    (out_dir / "phi3_cea.dot").write_text(dot, encoding="utf-8")
    write_drawing(dot, str(out_dir / "phi3_cea.svg"))
    print(f"\nwrote {out_dir / 'phi3_cea.svg'} and {out_dir / 'phi3_cea.dot'}")
    print(f"semantics and automata {'agree' if all_agree else 'DISAGREE'} on every position "
          f"({time.perf_counter() - t0:.2f} s)")
    return 0 if all_agree else 1


def cmd_figures(args: argparse.Namespace) -> int:
    from .figures import write_all

    for path in write_all(Path(args.output)):
        print(f"wrote {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cer-theory", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("eval", help="evaluate a CEL formula on a stream (JSON Lines out)")
    e.add_argument("formula", help="CEL text, or @FILE to read it from a file")
    e.add_argument("--stream", required=True, help="stream file: .csv (with a type column) or JSON Lines")
    e.add_argument("--via", choices=["semantics", "cea"], default="semantics",
                   help="reference semantics (default) or the compiled automaton of Theorem 6.2")
    e.add_argument("--valuations", action="store_true", help="print valuations instead of complex events")
    e.set_defaults(func=cmd_eval)

    d = sub.add_parser("draw", help="draw the CEA of a unary CEL formula")
    d.add_argument("formula", help="CEL text, or @FILE")
    d.add_argument("-o", "--output", help="file to write; the extension picks the format (svg, png, pdf, dot); "
                                          "DOT on stdout when omitted")
    d.add_argument("--title", help="caption (default: the formula)")
    d.add_argument("--trim", action="store_true", help="drop states that no accepting run visits")
    d.set_defaults(func=cmd_draw)

    m = sub.add_parser("demo", help="the running example of seed 000, semantics vs automaton")
    m.add_argument("--figures", default="figures", help="where to write the φ3 automaton (default: figures/)")
    m.set_defaults(func=cmd_demo)

    f = sub.add_parser("figures", help="regenerate the drawings in figures/")
    f.add_argument("-o", "--output", default="figures")
    f.set_defaults(func=cmd_figures)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CerError as exc:
        print(f"cer-theory {args.command}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cer-theory {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
