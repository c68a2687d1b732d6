"""Reading a class's folder of answers, which is hostile input: the students chose every name and every byte in it.

The folder holds one sub-folder per student and, in it, one file per exercise. :func:`class_answers` walks it
without ever leaving it (docs/decisions.md D340):

* Nothing is followed through a link: a student folder or an answer that is a symbolic link is *refused* (reported
  for that student, never read), wherever it points, inside the class folder or out of it. A link inside would
  let a student hand in another student's file, so refusing every link is both the simpler rule and the fairer.
* Each folder is opened once and everything in it is looked at and opened relative to that open folder (``dir_fd``
  with ``O_NOFOLLOW``), so a folder swapped for a link while the grader runs cannot lead it out either. Where the
  system has no ``dir_fd`` (Windows), every path is also resolved and checked to be inside the class folder.
* An answer must be a regular file with one name: a hard link (a file with several names, possibly outside), a
  FIFO (which would block the reader), a device or a socket is refused; it is opened non-blocking and checked to
  be the file that was looked at.
* At most ``max_bytes`` of an answer are read (:data:`MAX_ANSWER_BYTES` by default): a larger file is refused
  without reading the rest.
* Names are only displayed, never resolved: a name that is not UTF-8 is shown with its bytes escaped (``\\xff``).
  Names starting with a dot (``.git``, ``.DS_Store``) are not answers and are skipped; so are files directly in
  the class folder (a README beside the student folders).

What the answer *says* is for :mod:`cer_theory.exercises.teacher` to grade; this module only hands over bytes, or
why there are none.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from cer_theory.core.errors import ExerciseError

MAX_ANSWER_BYTES = 65_536
"""The default cap on the size of one answer (``grade-answers --max-answer-bytes``): a formula or query is a
line, the largest automaton an exercise asks for a few kilobytes; 64 KiB leaves room for fifty times that."""

TIME_LIMIT = 60.0
"""The default time one answer may take to grade, in seconds (``grade-answers --time-limit``): the work budget
binds the constructions; this binds the rest (a parse, a solver call, a graph isomorphism)."""

_AT = (os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.listdir in os.supports_fd
       and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY"))
"""Whether folders can be opened once and their entries looked at relative to them (POSIX)."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


@dataclass(frozen=True)
class Submission:
    """One answer file of one student (``file``), or a problem with the student's folder itself (``file`` empty);
    ``data`` is what was read, ``refused`` why nothing was (then ``data`` is None)."""

    student: str
    file: str
    data: bytes | None = None
    refused: str | None = None


def shown(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (which the system hands over as lone surrogates) escaped."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class _Folder:
    """A folder opened once: its entries listed, looked at and opened relative to it."""

    def __init__(self, path: str, parent: _Folder | None = None, name: str = "") -> None:
        self.path = path if parent is None else os.path.join(parent.path, name)
        if not _AT:
            self.fd = None
            return
        flags = os.O_RDONLY | os.O_DIRECTORY | (0 if parent is None else os.O_NOFOLLOW)
        # The class folder itself may be reached through a link: the teacher named it. Below it, nothing is.
        self.fd = os.open(name if parent is not None else path, flags,
                          dir_fd=parent.fd if parent is not None else None)

    def names(self) -> list[str]:
        return sorted(os.listdir(self.fd if self.fd is not None else self.path))

    def lstat(self, name: str) -> os.stat_result:
        if self.fd is not None:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        return os.lstat(os.path.join(self.path, name))

    def open_file(self, name: str) -> int:
        if self.fd is not None:
            return os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=self.fd)
        return os.open(os.path.join(self.path, name), os.O_RDONLY | _NOFOLLOW)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def __enter__(self) -> _Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _inside(root: str, path: str) -> bool:
    """Without ``dir_fd``: whether ``path`` resolves to a place inside ``root`` (a resolved path)."""
    real = os.path.realpath(path)
    return os.path.commonpath([root, real]) == root


def _refusal(st: os.stat_result, what: str) -> str | None:
    """Why an entry is not read, from its own (not followed) status; None for a regular file of one name."""
    if stat.S_ISLNK(st.st_mode):
        return f"{what} is a symbolic link; links are not followed out of (or around) the class folder"
    if stat.S_ISDIR(st.st_mode):
        return f"{what} is a folder, not an answer file"
    if not stat.S_ISREG(st.st_mode):
        return f"{what} is not a regular file (a FIFO, device or socket)"
    if st.st_nlink > 1:
        return f"{what} is a hard link (a file with {st.st_nlink} names); answers must be files of their own"
    return None


def _read(folder: _Folder, name: str, seen: os.stat_result, max_bytes: int, what: str) -> bytes | str:
    """The bytes of the answer ``name`` (at most ``max_bytes``), or why it is refused."""
    try:
        fd = folder.open_file(name)
    except OSError as e:
        return f"{what} cannot be read ({e.strerror or e})"
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino) or _refusal(st, what):
            return f"{what} changed while the class folder was read"
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(max_bytes + 1 - size, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            return (f"{what} is larger than {max_bytes:,} bytes (the most an answer may hold; "
                    f"--max-answer-bytes changes it)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _student(folder: _Folder, student: str, names: list[str], max_bytes: int, root: str) -> Iterator[Submission]:
    found = False
    for name in names:
        if name.startswith("."):
            continue
        found = True
        what = shown(os.path.join(folder.path, name))
        try:
            seen = folder.lstat(name)
        except OSError as e:
            yield Submission(shown(student), shown(name), refused=f"{what} cannot be read ({e.strerror or e})")
            continue
        why = _refusal(seen, what)
        if why is None and folder.fd is None and not _inside(root, os.path.join(folder.path, name)):
            why = f"{what} lies outside the class folder"
        got = _read(folder, name, seen, max_bytes, what) if why is None else why
        if isinstance(got, bytes):
            yield Submission(shown(student), shown(name), data=got)
        else:
            yield Submission(shown(student), shown(name), refused=got)
    if not found:
        yield Submission(shown(student), "", refused=None)


def class_answers(folder: str, max_bytes: int = MAX_ANSWER_BYTES) -> Iterator[Submission]:
    """Every answer of every student folder of ``folder``, by student then file name (see the module's
    docstring); a student folder without answers gives one :class:`Submission` with no file and no refusal."""
    if max_bytes < 1:
        raise ExerciseError(f"the answer size cap must be at least 1 byte, got {max_bytes}")
    try:
        classroom = _Folder(folder)
    except OSError as e:
        raise ExerciseError(f"{folder}: not a folder of answers (one sub-folder per student): "
                            f"{e.strerror or e}") from None
    root = os.path.realpath(folder)
    with classroom:
        for name in classroom.names():
            if not name.startswith("."):
                yield from _class_entry(classroom, folder, name, max_bytes, root)


def _class_entry(classroom: _Folder, folder: str, name: str, max_bytes: int, root: str) -> Iterator[Submission]:
    """The answers of the entry ``name`` of the class folder: a student's folder, else a refusal or nothing."""
    where = f"the student folder {shown(os.path.join(folder, name))}"
    try:
        st = classroom.lstat(name)
    except OSError as e:
        yield Submission(shown(name), "", refused=f"{where} cannot be read ({e.strerror or e})")
        return
    if stat.S_ISLNK(st.st_mode):
        yield Submission(shown(name), "", refused=f"{where} is a symbolic link; links are not followed out of (or "
                                                  f"around) the class folder")
        return
    if not stat.S_ISDIR(st.st_mode):
        return  # a file beside the student folders (a README, the sheet) is no student
    if classroom.fd is None and not _inside(root, os.path.join(classroom.path, name)):
        yield Submission(shown(name), "", refused=f"{where} lies outside the class folder")
        return
    try:
        student = _Folder(folder, classroom, name)
    except OSError as e:  # a link put in its place since lstat: O_NOFOLLOW refuses it here
        yield Submission(shown(name), "", refused=f"{where} cannot be read ({e.strerror or e})")
        return
    with student:
        try:
            names = student.names()
        except OSError as e:
            yield Submission(shown(name), "", refused=f"{where} cannot be read ({e.strerror or e})")
            return
        yield from _student(student, name, names, max_bytes, root)


__all__ = ["MAX_ANSWER_BYTES", "TIME_LIMIT", "Submission", "class_answers", "shown"]
