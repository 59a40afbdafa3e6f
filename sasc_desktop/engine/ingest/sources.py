"""Sources of raw messages: mbox files, maildirs, folders of message files, single files, PST.

Sources are only ever read (opened read-only; never locked, rewritten or moved).
"""
from __future__ import annotations

import mmap
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import InputError
from ..project.layout import MARKER

# What a SASC project folder holds besides mail: never read as mail (Whoosh's index/MAIN_*.pst
# are not Outlook files), skipped with a reason saying what they are.
PROJECT_INTERNALS = {"index": "its search index", "models": "its models", "exports": "its exports",
                     "project.sqlite": "its database", "project.sqlite-wal": "its database",
                     "project.sqlite-shm": "its database", "project.sqlite-journal": "its database",
                     MARKER: "its project file"}
PST_SIGNATURE = b"!BDN"  # the first bytes of every Outlook PST (and OST) file

# What may come before an mbox's first "From " line: a UTF-8 byte order mark, blank lines.
_LEAD = re.compile(rb"(?:\xef\xbb\xbf)?(?:\r?\n)*")
# A strict From_ line: 'From <address or -> <weekday> <month> <day> <hh:mm[:ss]> [zone] <yyyy>'.
_STRICT_FROM = (rb"From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) +(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                rb" +\d{1,2} +\d{1,2}:\d\d(?::\d\d)? +(?:[A-Za-z+-][A-Za-z0-9+-]* +)?\d{4}[ \t\r]*\n")
_STRICT = re.compile(_STRICT_FROM)
# An mbox separator (group 1 or 2): "From " at the start of the file (after a byte order mark
# and blank lines) or after an empty line; or a strict From_ line after any line (mailboxes
# whose writer put no blank line between messages; a body line "From here on..." is none).
# A byte order mark may come before a later separator too: mailboxes saved with one and joined
# (cat a.mbox b.mbox) have one at the start of each.
_SEPARATOR = re.compile(rb"(?:\A(?:\xef\xbb\xbf)?(?:\r?\n)*|(?:(?<=\n\n)|(?<=\n\r\n))(?:\xef\xbb\xbf)?)(From [^\n]*\n)"
                        rb"|(?<=\n)(?:\xef\xbb\xbf)?(" + _STRICT_FROM + rb")")
_QUOTED_FROM = re.compile(rb"^>(>*From )", re.M)
# Apple Mail's .emlx: a line with the message's length in bytes, the message, an XML plist.
_EMLX_LENGTH = re.compile(rb"[ \t]*(\d{1,12})[ \t]*\r?\n")
# Files a system writes beside mail (Finder's folder settings, AppleDouble resource forks,
# Thunderbird's .msf folder summaries): passed over without a word.
_SYSTEM_FILES = re.compile(r"\.DS_Store\Z|\._|.*\.msf\Z")
# Hidden folders that hold no mail (version control, file system bookkeeping): one skip each.
_NOT_MAIL_FOLDERS = {".git": "a Git repository's data", ".svn": "a Subversion working copy's data",
                     ".hg": "a Mercurial repository's data", ".bzr": "a Bazaar repository's data",
                     ".Spotlight-V100": "the Spotlight index", ".fseventsd": "file system event logs",
                     ".TemporaryItems": "temporary files", ".DocumentRevisions-V100": "document versions"}
SYMLINK = "symbolic link, not followed (it may lead outside the source, or in a loop)"


def starts_mbox(head: bytes) -> bool:
    """Whether a file beginning with ``head`` is an mbox: "From " first, after a UTF-8 byte
    order mark and blank lines if any."""
    return head[_LEAD.match(head).end():].startswith(b"From ")


def _head(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(4096)


def project_root_of(folder: Path) -> Path | None:
    """``folder`` when it is a SASC project folder (it has the project file)."""
    return folder if (folder / MARKER).is_file() else None


def internal_reason(path: Path, root: Path) -> str:
    """Why ``path`` (an entry at the top of the project folder ``root``) is not read as mail."""
    return f"part of the SASC project at {root} ({PROJECT_INTERNALS[path.name]}); not mail"


def path_text(path) -> str:
    """A path (or a name, or a location made of one) as text that can be stored and shown: as
    it is when it is valid Unicode. A file or folder name whose bytes are not valid UTF-8
    (a Latin-1 'r\xe9sum\xe9.eml' written by an old system) comes from os.walk with those
    bytes as lone surrogates, which SQLite (and UTF-8) cannot hold: each such byte is written
    as an escape, 'r\\xe9sum\\xe9.eml'. The same name always gives the same text (a re-import
    finds its copies again). Only what is stored and shown is so: files are read through their
    real path."""
    text = os.fspath(path)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class RawItem:
    location: str   # path, plus "#N" (1-based) for the N-th message of an mbox (text: :func:`path_text`)
    folder: str     # the folder the message came from (relative to the source), for dedup and display
    data: bytes | None  # None when the item could not be read (error says why)
    error: str = ""

    def __post_init__(self):
        # Names that are not valid UTF-8 (surrogate escapes from os.walk) as storable text.
        for name in ("location", "folder", "error"):
            value = getattr(self, name)
            if not value.isascii():
                object.__setattr__(self, name, path_text(value))


def source_kind(path: Path) -> str:
    """mbox | maildir | folder | message | pst."""
    if path.is_dir():
        return "maildir" if _is_maildir(path) else "folder"
    if path.suffix.lower() == ".pst":
        return "pst"
    if path.is_file():
        return "mbox" if starts_mbox(_head(path)) else "message"
    raise InputError(f"{path}: no such file or folder")


def checked_source_kind(path: Path) -> str:
    """:func:`source_kind`, for a source given to an import, checked before anything is
    written: a missing path, a ``.pst`` file that is no PST, or a PST while ``readpst`` is not
    installed is an InputError naming the file, so the whole import is refused rather than
    stopped part-way (a PST inside a folder is skipped with a recorded reason instead)."""
    kind = source_kind(path)
    if kind == "pst":
        problem = pst_problem(path)
        if problem:
            raise InputError(f"{path}: {problem}")
    return kind


def _is_maildir(path: Path) -> bool:
    """A maildir: it has cur/, or new/ and tmp/ (an archive or a copy may have lost an empty
    one: zip and git keep no empty folders)."""
    return (path / "cur").is_dir() or ((path / "new").is_dir() and (path / "tmp").is_dir())


def count_messages(path: Path) -> int:
    """A quick count for progress bars (mbox separators and files; no parsing)."""
    kind = source_kind(path)
    if kind == "mbox":
        return _count_mbox(path)
    if kind in ("maildir", "folder"):
        return sum(_count_mbox(p) if k == "mbox" else 1 for p, k, _ in _walk_files(path))
    return 1  # (a PST: its messages are not known until readpst has read it)


def _count_mbox(path: Path) -> int:
    if path.stat().st_size == 0:
        return 0
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        return len(_separators(mm))


def _separators(mm) -> list[tuple[int, int]]:
    """(start, end) of every mbox separator line, up to and including its newline: "From " at
    the start of the file (after a byte order mark and blank lines) or after an empty line, or
    a strict From_ line after any line; either with a byte order mark before it (joined files). Same matches as _SEPARATOR, found with find() (C
    speed) instead of a regex tried at every byte."""
    found = []
    size = len(mm)

    def line(start: int) -> None:
        nl = mm.find(b"\n", start)
        if nl >= 0:
            found.append((start, nl + 1))

    pos = _LEAD.match(mm).end()
    if mm[pos:pos + 5] == b"From ":
        line(pos)
    for marker, pos in ((b"\nFrom ", pos), (b"\n\xef\xbb\xbfFrom ", 0)):   # (the second: joined mailboxes)
        at = len(marker) - 5   # where "From" starts, after the newline
        while True:
            i = mm.find(marker, pos)
            if i < 0:
                break
            if (i >= 1 and mm[i - 1] == 10) or (i >= 2 and mm[i - 2:i] == b"\n\r") or _STRICT.match(mm, i + at):
                line(i + at)
            pos = i + 1
            if pos >= size:
                break
    found.sort()
    return found


def iter_mbox(path: Path, folder: str, start: int = 0, single: str | None = None) -> Iterator[RawItem]:
    """Messages of an mbox (mboxrd unquoting: one '>' is removed from '>From ' lines), in
    ``folder``, or in ``single`` (when given) if the file holds one message only."""
    if path.stat().st_size == 0:
        return
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        found = _separators(mm)
        if single is not None and len(found) <= 1:
            folder = single
        starts = [e for _, e in found]
        ends = [s for s, _ in found][1:] + [len(mm)]
        for n, (a, b) in enumerate(zip(starts, ends), 1):
            if n <= start:
                continue
            data = mm[a:b]
            if data.endswith(b"\xef\xbb\xbf"):   # (the next mailbox's byte order mark, joined after this one)
                data = data[:-3]
            if data.endswith(b"\n\n"):
                data = data[:-1]
            elif data.endswith(b"\r\n\r\n"):
                data = data[:-2]
            if b">From " in data:
                data = _QUOTED_FROM.sub(rb"\1", data)
            yield RawItem(f"{path}#{n}", folder, data)


def _walk_files(root: Path) -> Iterator[tuple[Path, str, str]]:
    """(path, kind, folder) for every message-bearing file under root, in a stable order.
    Maildir 'tmp' folders (messages still being delivered), Finder's .DS_Store and AppleDouble
    '._' files are passed over; hidden folders and files are read like any other. What is not
    read is one entry each, skipped with a reason, never read as mail: a SASC project's own
    files and folders (:data:`PROJECT_INTERNALS`, kind "internal"), a ".pst" file without the
    PST signature ("not-pst"), a symbolic link ("symlink": never followed, it may leave the
    source or loop), a hidden folder of version control or file system data ("not-mail",
    :data:`_NOT_MAIL_FOLDERS`) and anything else that is no regular file ("special")."""
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        rel = here.relative_to(root)
        folder = str(rel.parent if here.name in ("cur", "new") and _is_maildir(here.parent) else rel)
        folder = "" if folder == "." else folder
        internal: set[str] = set()
        if project_root_of(here) is not None:
            internal = {n for n in PROJECT_INTERNALS if n in dirnames or n in filenames}
        passed: dict[str, str] = {}  # folders not descended into -> their kind
        for d in dirnames:
            if d in internal:
                continue
            if (here / d).is_symlink():
                passed[d] = "symlink"
            elif d in _NOT_MAIL_FOLDERS:
                passed[d] = "not-mail"
        if _is_maildir(here) and "tmp" in dirnames:
            dirnames.remove("tmp")
        dirnames[:] = sorted(d for d in dirnames if d not in internal and d not in passed)
        for name in sorted(set(filenames) | internal | set(passed)):
            p = here / name
            if name in internal:
                yield p, "internal", folder
                continue
            if name in passed:
                yield p, passed[name], folder
                continue
            if _SYSTEM_FILES.match(name):
                continue
            if p.is_symlink():
                yield p, "symlink", folder
                continue
            if not p.is_file():
                yield p, "special", folder
                continue
            if name.lower().endswith(".pst"):
                yield p, "pst" if _has_pst_signature(p) else "not-pst", folder
                continue
            try:
                head = _head(p)
            except OSError:
                head = b""
            yield p, ("mbox" if starts_mbox(head) else "message"), folder


def _read(path: Path, folder: str) -> RawItem:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return RawItem(str(path), folder, None, f"unreadable file: {exc.strerror or exc}")
    emlx = _EMLX_LENGTH.match(data)
    if emlx:  # Apple Mail's .emlx: the message is the given number of bytes after that line
        data = data[emlx.end():emlx.end() + int(emlx.group(1))]
    return RawItem(str(path), folder, data)


def iter_source(path: Path) -> Iterator[RawItem]:
    """Every raw message of a source, in a stable order. In a folder, what cannot be read as
    mail (a project's own files, a '.pst' that is no PST, a PST that cannot be read) is an item
    without data whose error says why: the import records it as skipped and goes on."""
    path = Path(path)
    kind = source_kind(path)
    if kind == "mbox":
        own = _own_mailbox(path)
        yield from iter_mbox(path, own or path.stem, single=None if own else path.parent.name)
    elif kind == "message":
        yield _read(path, path.parent.name)
    elif kind == "pst":
        yield from iter_pst(path)
    else:
        base = path.name
        for p, k, folder in _walk_files(path):
            folder = f"{base}/{folder}" if folder else base
            if k == "mbox":
                own = _own_mailbox(p)
                yield from iter_mbox(p, f"{folder}/{own or p.stem}", single=None if own else folder)
            elif k == "internal":
                yield RawItem(str(p), folder, None, internal_reason(p, p.parent))
            elif k == "symlink":
                yield RawItem(str(p), folder, None, SYMLINK)
            elif k == "not-mail":
                yield RawItem(str(p), folder, None, f"hidden folder of {_NOT_MAIL_FOLDERS[p.name]}; not mail, not read")
            elif k == "special":
                yield RawItem(str(p), folder, None, "not a regular file (a device, pipe or socket); not read")
            elif k == "not-pst":
                yield RawItem(str(p), folder, None, NOT_PST)
            elif k == "pst":
                try:
                    yield from iter_pst(p)
                except InputError as exc:  # no readpst, or it cannot read this one: skip it
                    yield RawItem(str(p), folder, None, str(exc).removeprefix(f"{p}: "))
            else:
                yield _read(p, folder)


# Suffixes of files holding one message (a saved message, a corpus file): never a Thunderbird
# folder unless its summary file says so.
_MESSAGE_SUFFIXES = (".eml", ".emlx", ".txt")
# An MH folder's message: a file named by its number (Enron's maildir names them '1.', '2.').
_MH_MESSAGE = re.compile(r"\d+\.?\Z")


def _own_mailbox(path: Path) -> str:
    """The name of the mailbox ``path`` is, when it is a mailbox of its own (a folder named
    after it) whatever it holds, even one message; else "" (a file holding one message is then
    in the folder it is in, one holding several is a folder named after its stem).

    A mailbox of its own is: a file named .mbox or .mbx (named without that suffix); a
    Thunderbird folder, a file with a '<name>.msf' summary beside it, or one inside a
    '<parent>.sbd' subfolder folder not named as a message file is (.eml, .emlx, .txt), named
    in full ('Work.2001' is a folder's name there, not a name and a suffix); any other file
    without a suffix ('Trash', mutt's 'sent-mail'), except one named by a number: an MH
    folder's message ('1', '2'; Enron's '1.'). A file with a suffix (a saved '.eml', a
    SpamAssassin corpus file '00039.abc123') holding one message is not a mailbox of its own."""
    if path.suffix.lower() in (".mbox", ".mbx"):
        return path.stem
    if path.with_name(path.name + ".msf").is_file() or (
            path.parent.name.lower().endswith(".sbd") and path.suffix.lower() not in _MESSAGE_SUFFIXES):
        return path.name
    if not path.suffix and not _MH_MESSAGE.match(path.name):
        return path.name
    return ""


NOT_PST = "named .pst but not an Outlook PST file (it does not start with the PST signature)"


def _has_pst_signature(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(PST_SIGNATURE)) == PST_SIGNATURE
    except OSError:
        return True  # (unreadable: reading it says so)


NO_READPST = ("reading PST files needs the 'readpst' program (libpst), which is not installed. "
              "Install it (Debian/Ubuntu: 'apt-get install pst-utils'; macOS: 'brew install libpst') "
              "or export the PST to mbox from Outlook first.")


def pst_problem(path: Path) -> str:
    """Why the PST file ``path`` cannot be read before trying (no PST signature, or no
    ``readpst`` on PATH), or "" when readpst can be asked to read it."""
    if not _has_pst_signature(path):
        return NOT_PST
    if not shutil.which("readpst"):
        return NO_READPST
    return ""


def iter_pst(path: Path) -> Iterator[RawItem]:
    """PST through libpst's ``readpst`` (converted to mbox files in a temporary folder)."""
    if not _has_pst_signature(path):
        raise InputError(f"{path}: {NOT_PST}")
    readpst = shutil.which("readpst")
    if not readpst:
        raise InputError(f"{path}: {NO_READPST}")
    with tempfile.TemporaryDirectory(prefix="sasc-pst-") as tmp:
        result = subprocess.run([readpst, "-q", "-r", "-o", tmp, str(path)], capture_output=True, text=True)
        if result.returncode != 0:
            raise InputError(f"{path}: readpst could not read it: {result.stderr.strip()[:300]}")
        for p, k, folder in _walk_files(Path(tmp)):
            items = iter_mbox(p, folder or p.stem) if k == "mbox" else iter([_read(p, folder)])
            for item in items:
                local = item.location.replace(path_text(p), f"{path}!{p.relative_to(tmp)}")
                yield RawItem(local, item.folder, item.data, item.error)
