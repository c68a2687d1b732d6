"""``python -m cer_theory.cli``: the ``cer-theory`` command."""

import sys

from cer_theory.cli import main

sys.exit(main())
