"""The optional compiled hot loop (docs/decisions.md D420–D424): ``cer_theory/engines/core/tecs_compiled.pyx`` and
``evaluator_compiled.pyx``, the JSON Lines of ``cer-theory run``'s output (``output_compiled.pyx``, D455) and the
per-row work of the columnar inputs (``rows_compiled.pyx``, D450, D452) are compiled by Cython (a build requirement
in pyproject.toml) when the build finds a C compiler; without Cython or a compiler, or if compiling fails, the
package is installed without them and the engine runs the readable loop (:mod:`cer_theory.engines.core.compiled`).
Everything else is in pyproject.toml."""

from setuptools import setup
from setuptools.command.build_ext import build_ext

MODULES = ("tecs_compiled", "evaluator_compiled", "output_compiled", "rows_compiled")
"""(evaluator_compiled cimports tecs_compiled.pxd)"""


class OptionalBuildExt(build_ext):
    """build_ext whose failure leaves the pure-Python package installed (one line says why)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any compiler failure means "no compiled path"
            print(f"cer_theory: the compiled hot loop was not built ({error}); the readable loop will run")

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            print(f"cer_theory: the compiled hot loop was not built ({error}); the readable loop will run")


def extensions() -> list:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("cer_theory: Cython is absent; the compiled hot loop is not built (the readable loop will run)")
        return []
    from setuptools import Extension
    return cythonize([Extension(f"cer_theory.engines.core.{m}", [f"cer_theory/engines/core/{m}.pyx"])
                      for m in MODULES], quiet=True, compiler_directives={"language_level": 3})


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
