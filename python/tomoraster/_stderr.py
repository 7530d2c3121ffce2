"""C++'s stderr (log lines, progress) through Python where Python's stderr is not the process's
(a notebook cell, a captured stream): during a long call file descriptor 2 is a pipe, and a
thread hands each line on — "[info] ..." / "[warn] ..." lines to the logging module (logger
"tomoraster"), progress lines ("label [####....] 5/10  1.2 s  note") to a tqdm.auto bar
(a notebook widget) when tqdm is installed, else to sys.stderr as they are. In a terminal
nothing changes: C++ writes there.
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading

log = logging.getLogger("tomoraster")
log.setLevel(logging.INFO)
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING, "warning": logging.WARNING,
           "error": logging.ERROR}


class _ToStderr(logging.Handler):
    """Shows the records on the current sys.stderr unless the application configured logging."""

    def emit(self, record):
        if logging.getLogger().handlers:
            return  # the root logger's handlers show them (propagation)
        try:
            sys.stderr.write(f"[{record.levelname.lower()}] {record.getMessage()}\n")
        except Exception:  # noqa: BLE001  (a closed stream must not break the run)
            pass


log.addHandler(_ToStderr())


def _needed() -> bool:
    try:
        return sys.stderr.fileno() != 2
    except (AttributeError, OSError, ValueError):
        return True


_PROGRESS = re.compile(r"^(?P<label>.*?) \[[#.]*\] (?P<done>\d+)/(?P<total>\d+)(?:\s+[0-9.]+ s)?\s*(?P<note>.*)$")


class _Bars:
    """One tqdm.auto bar per C++ progress label of a call (None: tqdm is not installed)."""

    def __init__(self):
        try:
            from tqdm.auto import tqdm
            self._tqdm = tqdm
        except ImportError:
            self._tqdm = None
        self._bars = {}

    def show(self, m) -> bool:
        if self._tqdm is None:
            return False
        label, done, total = m["label"], int(m["done"]), int(m["total"])
        bar = self._bars.get(label)
        if bar is None:
            bar = self._bars[label] = self._tqdm(total=total, desc=label)
        bar.update(done - bar.n)
        if m["note"]:
            bar.set_postfix_str(m["note"])
        if done >= total:
            bar.close()
            del self._bars[label]
        return True

    def close(self):
        for bar in self._bars.values():
            bar.close()


def _hand_on(line: str, bars: _Bars | None = None) -> None:
    m = _PROGRESS.match(line)
    if m and bars is not None and bars.show(m):
        return
    if line.startswith("[") and "] " in line:
        tag, text = line[1:].split("] ", 1)
        if tag in _LEVELS:
            log.log(_LEVELS[tag], text)
            return
    if line.strip():
        sys.stderr.write(line + "\n")


def _pump(fd: int) -> None:
    bars = _Bars()
    buf = b""
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while True:
            chunk = pipe.read(4096)
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.replace(b"\r", b"\n").split(b"\n")
            for line in lines:
                _hand_on(line.decode("utf-8", "replace").replace("\x1b[K", ""), bars)
    if buf:
        _hand_on(buf.decode("utf-8", "replace"), bars)
    bars.close()


@contextlib.contextmanager
def through_python():
    """Inside: C++'s stderr goes through Python (see the module's text), when that is needed."""
    if not _needed():
        yield
        return
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    saved = os.dup(2)
    os.dup2(write_fd, 2)
    os.close(write_fd)
    thread = threading.Thread(target=_pump, args=(read_fd,), name="tomoraster-stderr", daemon=True)
    thread.start()
    try:
        yield
    finally:
        os.dup2(saved, 2)  # the pipe's last write end closes: the thread reads to its end
        os.close(saved)
        thread.join(5)
