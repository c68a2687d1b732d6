"""A folder output written aside and renamed into place (docs/decisions.md D300): the old folder or the new one,
never a mixture, and no temporary folder left; a signal during the swap waits until it is done."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from cer_theory.core.errors import CerError
from cer_theory.streams.writers import OutputFolder, signals_held


def _fill(folder: Path, text: str) -> None:
    (folder / "part-0").write_text(text, encoding="utf-8")


def test_commit_replaces_the_old_folder_whole_and_leaves_nothing_aside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    _fill(out, "old")
    (out / "stale").write_text("gone with the old folder", encoding="utf-8")
    folder = OutputFolder(out, replace=True)
    assert folder.partial is not None and folder.partial.parent == tmp_path and folder.partial.name.startswith(".out.")
    _fill(folder.partial, "new")
    assert (out / "part-0").read_text(encoding="utf-8") == "old"  # (nothing visible before the commit)
    folder.commit()
    assert sorted(p.name for p in out.iterdir()) == ["part-0"] and (out / "part-0").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("end", ["discard", "commit without replace"])
def test_an_output_given_up_or_refused_leaves_the_old_folder_and_no_temporary_one(tmp_path: Path, end: str
                                                                                  ) -> None:
    out = tmp_path / "out"
    out.mkdir()
    _fill(out, "old")
    folder = OutputFolder(out, replace=end == "discard")
    _fill(folder.partial, "new")  # type: ignore[arg-type]
    if end == "discard":
        folder.discard()
        folder.discard()  # (idempotent)
    else:
        with pytest.raises(CerError, match="exists"):
            folder.commit()
    assert (out / "part-0").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_new_folder_gets_an_ordinary_folders_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    folder = OutputFolder(tmp_path / "out", replace=False)
    folder.commit()
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o777 & ~umask


def test_a_signal_during_the_swap_is_delivered_after_it() -> None:
    """SIGINT raised inside :func:`signals_held` waits for the block's end: the swap is done, then Ctrl-C's
    KeyboardInterrupt comes."""
    done = []
    handler = signal.getsignal(signal.SIGINT)  # (PySpark's, when a Spark test ran earlier in this process)
    with pytest.raises(KeyboardInterrupt):
        with signals_held():
            signal.raise_signal(signal.SIGINT)
            done.append("swap")
    assert done == ["swap"]
    assert signal.getsignal(signal.SIGINT) is handler
