"""The course server (the optional ``server`` extra): a class uses the course in a browser, with nothing to install.

Students sign in, open their course's problem sets (bundled exercises, and generated ones of which each student
gets an instance of their own), hand in answers (a formula, a query, an automaton as JSON, a prediction) and get
the grader's feedback at once: the verdict, the stream that separates a wrong answer from the expected one, what
each side outputs there, and the stepped run on that stream. Teachers make courses, set deadlines and attempt
limits, invite students, and read a gradebook, also as CSV. ``cer-theory serve`` runs it (SQLite by default,
PostgreSQL with ``--database postgresql://…``); docs/teaching-server.md is the teachers' guide.

Modules: :mod:`~cer_theory.server.db` (records), :mod:`~cer_theory.server.migrate` (Alembic migrations),
:mod:`~cer_theory.server.security` (passwords, CSRF, rate limits), :mod:`~cer_theory.server.instances` (a
student's instance and what they may see), :mod:`~cer_theory.server.grading` (the pool of grading processes),
:mod:`~cer_theory.server.app` (the routes and pages) and :mod:`~cer_theory.server.serve` (starting it).
"""

from cer_theory.core.lazy import lazy_exports

_EXPORTS = {"create_app": "app", "GradingPool": "grading", "serve": "serve"}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
