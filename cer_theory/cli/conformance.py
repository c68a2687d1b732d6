"""``conformance``: test a CER engine against the reference semantics of CEQL (the CORE paper) on generated or corpus
cases, with declared dialect readings, shrunk findings and a report (docs/conformance.md)."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import shlex
import sys
import time

from cer_theory.cli.layer import declare, file, output_into
from cer_theory.cli.options import seconds, whole_number


class _Bar:
    """A progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, stream=sys.stderr, width: int = 30) -> None:
        self.stream, self.width, self.last, self.t0 = stream, width, 0.0, time.perf_counter()

    def __call__(self, done: int, total: int, summary) -> None:
        now = time.perf_counter()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = self.width * done // max(total, 1)
        c = summary.counts
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}  "
                          f"unexplained {c['unexplained']}, refused {c['refused']}, "
                          f"engine errors {c['engine error']}  "
                          f"{now - self.t0:.0f}s")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def cmd_conformance(args: argparse.Namespace) -> int:
    """Run the cases, print the summary line last; exit 0 iff every case agrees or is explained (nothing
    unexplained, refused or failed)."""
    if args.engine == "flink" and args.metamorphic:  # MATCH_RECOGNIZE's own relations, on its own cases
        return _rpr_metamorphic(args)
    if args.engine == "flink":  # row pattern recognition, not CEQL: its own cases and report
        from cer_theory.conformance.flink import main

        return main(args)
    if args.engine == "flink-cep" and not args.metamorphic:  # its own batched run, model check and report (the
        # relations run one case at a time through its adapter, as every engine's)
        from cer_theory.conformance.flink_cep import main as cep_main

        return cep_main(args, read_case_file(args.replay) if args.replay else None)
    from cer_theory.conformance.adapters import make_adapter
    from cer_theory.conformance.check import run_cases
    from cer_theory.conformance.corpus import corpus_cases
    from cer_theory.conformance.dialects import get_dialect
    from cer_theory.conformance.generate import generate_cases
    from cer_theory.conformance.protocol import ConformanceError, EngineFailure
    from cer_theory.conformance.report import pycer_script, write_report

    dialect = get_dialect(args.dialect)
    if args.metamorphic and args.jobs > 1:
        raise ConformanceError("--metamorphic runs its cases one at a time: leave out --jobs")
    adapter = make_adapter(args.engine, pycer_python=args.pycer_python, timeout=args.timeout)
    skipped = []
    if args.replay:
        cases = [read_case_file(args.replay)]
    elif args.corpus:
        cases, skipped = corpus_cases(args.corpus, per_query=args.cases or 10, seed=args.seed)
    else:
        cases = generate_cases(args.cases or 200, seed=args.seed)
    if args.metamorphic:
        return _metamorphic(args, cases, adapter, dialect)
    closing = ""
    try:
        outcomes, summary = run_cases(cases, adapter, dialect, shrink_findings=not args.no_shrink,
                                      progress=None if args.quiet else _Bar(), jobs=args.jobs)
    finally:
        try:
            adapter.close()
        except EngineFailure as exc:  # (when run_cases raised, its error is the one to see)
            closing = str(exc)
    if args.replay or args.verbose:
        from cer_theory.conformance.check import outcome_text

        for o in outcomes:
            if o.finding or args.replay:
                print(outcome_text(o.minimal or o))
    if args.report:
        options = ["--engine", args.engine, "--dialect", dialect.name]
        if args.pycer_python:
            options += ["--pycer-python", args.pycer_python]
        meta = {"engine": args.engine, "dialect": dialect.name, "seed": args.seed, "corpus": args.corpus,
                "cases": len(cases), "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "command": "cer-theory conformance " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else options)}
        page = write_report(args.report, outcomes, summary, meta=meta, skipped=skipped,
                            replay="cer-theory conformance " + shlex.join(options) + " --replay {file}",
                            reproduction=pycer_script if args.engine == "pycer" else None)
        print(f"report: {page}", file=sys.stderr)
    print(summary.line())
    if closing:
        print(f"engine error: {closing}")
    return 0 if summary.passed and not closing else 1


def _metamorphic(args: argparse.Namespace, cases, adapter, dialect) -> int:
    """``--metamorphic`` on a CEQL engine: the relations of :mod:`cer_theory.conformance.metamorphic` on every
    case; exit 0 iff none is violated."""
    from cer_theory.conformance import metamorphic
    from cer_theory.conformance.dialects import PAPER
    from cer_theory.conformance.report import pycer_script, runs_reproduction

    dialect = dialect or PAPER

    def run(progress):
        return metamorphic.run_relations(cases, adapter, dialect, shrink_violations=not args.no_shrink,
                                         progress=progress)

    return _relations(args, run, adapter.close, metamorphic, len(cases),
                      ["--engine", args.engine, "--dialect", dialect.name, "--metamorphic"],
                      reproduction=runs_reproduction(lambda case, _: pycer_script(case)[1], "repro.py", "#")
                      if args.engine == "pycer" else None)


def _rpr_metamorphic(args: argparse.Namespace) -> int:
    """``--engine flink --metamorphic``: the relations of :mod:`cer_theory.conformance.rpr_metamorphic` on the
    ``flink`` harness's generated groups (or one ``--replay`` case), each relation one Flink job per group."""
    import math

    from cer_theory.conformance import flink, rpr_metamorphic
    from cer_theory.conformance.protocol import ConformanceError, read_text
    from cer_theory.conformance.report import runs_reproduction
    from cer_theory.core.errors import CerError

    if args.replay:  # read before Flink starts: a bad file is one line at once
        text = read_text(args.replay, "--replay")
        try:
            groups = [[flink.Case.from_json(json.loads(text))]]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, CerError) as exc:
            raise ConformanceError(f"--replay {args.replay}: not a MATCH_RECOGNIZE case file (a finding's "
                                   f"case.json): {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    else:
        groups = flink.generate_groups(math.ceil((args.cases or 200) / flink.PER_GROUP), flink.PER_GROUP, args.seed)
    session = flink.open_session()  # first: a missing extra or Java is told in one line before any work
    engine = rpr_metamorphic.FlinkRows(session)

    def run(progress):
        return rpr_metamorphic.run_relations(groups, engine, shrink_violations=not args.no_shrink,
                                             progress=progress)

    return _relations(args, run, session.close, rpr_metamorphic, sum(map(len, groups)),
                      ["--engine", "flink", "--metamorphic"], note=engine.note,
                      reproduction=runs_reproduction(_sql_run, "repro.sql", "--"))


def _sql_run(case, k: int) -> str:
    """Run k of a MATCH_RECOGNIZE relation for Flink's SQL client: its own table and CSV folder, so that the runs
    paste one after the other."""
    from cer_theory.conformance.flink import sql_script

    return sql_script(case, f"/tmp/rpr_case_{k}", f"ev{k}")


def _relations(args: argparse.Namespace, run, close, relations, cases: int, options: list[str], *,
               note=lambda: "", reproduction=None) -> int:
    """Run metamorphic relations (``run(progress)`` gives the checks and counts; ``relations`` the module with
    ``summary_line``, ``findings`` and ``RULES``), then close the engine, write the report (``reproduction``: the
    engine's own scripts of a finding's runs) and print the summary line last; exit 0 iff nothing is violated and
    the engine closed cleanly."""
    from cer_theory.conformance.protocol import EngineFailure
    from cer_theory.conformance.report import write_metamorphic_report

    bar = None if args.quiet else _Bar()

    def progress(done: int, total: int, counts) -> None:
        if bar is not None:
            bar(done, total, _Counts(counts))

    closing = ""
    try:
        checks, counts = run(progress)
    finally:
        try:
            close()
        except EngineFailure as exc:
            closing = str(exc)
    line = relations.summary_line(counts) + note()
    if args.report:
        meta = {"engine": args.engine, "seed": args.seed, "corpus": args.corpus, "cases": cases,
                "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "command": "cer-theory conformance " + shlex.join(sys.argv[2:] if len(sys.argv) > 2 else options)}
        page = write_metamorphic_report(args.report, checks, relations.findings(checks), line, rules=relations.RULES,
                                        meta=meta, reproduction=reproduction,
                                        replay="cer-theory conformance " + shlex.join(options) + " --replay {file}")
        print(f"report: {page}", file=sys.stderr)
    if args.verbose or args.replay:
        for c in checks:
            if c.finding:
                print((c.minimal or c).text())
    print(line)
    if closing:
        print(f"engine error: {closing}")
    return 0 if not any(c.finding for c in checks) and not closing else 1


class _Counts:
    """The progress bar's view of a metamorphic run's counts (violations shown as unexplained)."""

    def __init__(self, counts) -> None:
        from collections import Counter

        self.counts = Counter({"unexplained": sum(n for (r, k), n in counts.items() if k == "violation")})


def read_case_file(path: str):
    """The case of a ``--replay`` file (one request line of the protocol, as a report's findings/NNN.json);
    :class:`~cer_theory.conformance.protocol.ConformanceError` naming the file, line and what is wrong."""
    from cer_theory.conformance.protocol import Case, ConformanceError, read_text
    from cer_theory.core.errors import CerError

    text = read_text(path, "--replay")
    lines = [(k, line) for k, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) != 1:
        raise ConformanceError(f"--replay {path}: expected one case (one JSON line), found {len(lines)} lines")
    number, line = lines[0]
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise TypeError(f"a JSON object, not {type(request).__name__}")
        return Case.from_json(request)
    except json.JSONDecodeError as exc:
        raise ConformanceError(f"--replay {path}, line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
    except KeyError as exc:
        raise ConformanceError(f"--replay {path}, line {number}: field {exc} is missing") from None
    except (TypeError, ValueError, CerError) as exc:
        raise ConformanceError(f"--replay {path}, line {number}: not a case ({exc})") from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("conformance", help="test an engine against the CEQL reference semantics",
                       description=cmd_conformance.__doc__)
    p.add_argument("--engine", required=True,
                   help="reference, engine (the tECS), spark (local), pycer (CORE's C++ engine), command:CMD "
                        "(any program speaking the JSON-lines protocol of docs/conformance.md), or flink (Apache "
                        "Flink's MATCH_RECOGNIZE against the rpr reference; needs cer_theory[flink] and Java 17), or flink-cep "
                        "(Flink's CEP library on CEQL translated to its Pattern API; needs cer_theory[flink] and a "
                        "JDK 17)")
    p.add_argument("--dialect", default=None, help="declared readings that explain differences: core (CORE 0.1.x); "
                                                   "default: none (the paper's semantics)")
    p.add_argument("--cases", type=whole_number(minimum=1, maximum=1_000_000), default=None,
                   help="generated cases (default 200), or streams per query file with --corpus (default 10); "
                        "1 to 1000000 (the cases are generated before the run)")
    p.add_argument("--seed", type=whole_number(), default=0,
                   help="the same seed gives the same cases; any whole number")
    p.add_argument("--corpus", default=None, help="a directory of query files with *.core declarations beside them")
    p.add_argument("--replay", default=None, help="run one case file (a report's findings/NNN.json)")
    p.add_argument("--report", default=None, help="write cases.json, report.md and findings/ into this directory")
    p.add_argument("--pycer-python", default=None,
                   help="the CPython 3.13 interpreter with pycer (default ~/.cache/cer_theory/pycer-py313/bin/python)")
    p.add_argument("--timeout", type=seconds(), default=30.0,
                   help="seconds an external engine may take per case, more than 0 and at most a day (default 30)")
    p.add_argument("--jobs", type=whole_number(minimum=1, maximum=64), default=1,
                   help="cases run at once from a thread pool, 1 to 64 (the spark engine only; each case is a "
                        "Spark job)")
    p.add_argument("--metamorphic", action="store_true",
                   help="check metamorphic relations instead of the reference: a filter split into P and NOT P, a "
                        "law of docs/laws.md, partitions interleaved, a longer window, a prefix of the stream "
                        "(docs/conformance.md); with --engine flink, MATCH_RECOGNIZE's own relations")
    p.add_argument("--no-shrink", action="store_true", help="report findings as found, without shrinking them")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--verbose", action="store_true", help="print every finding's minimal reproduction")
    declare(p, inputs=[file("corpus"), file("replay"), file("pycer_python")], outputs=[output_into("report")],
            example=["conformance", "--engine", "reference", "--cases", "3", "--quiet", "--report", "report"])
    p.set_defaults(func=cmd_conformance)


__all__ = ["cmd_conformance", "register"]
