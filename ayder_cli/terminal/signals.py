"""How ayder ends when it is told to: nothing it started outlives it.

main() runs everything inside `ending_cleanly()`. There, SIGTERM and SIGHUP (a
closed terminal) raise Terminated in the main thread (from a callback of the
REPL's event loop, while its prompt runs), which unwinds like Ctrl-C:
run_shell_command stops the process group of the command it is running, and
session.close() stops the background processes, exactly as on a normal exit.
A Terminated that Python drops (raised in a finalizer or an at-fork hook) is
raised again a moment later (_Ending.unraisable).
A run that may start tools calls adopt_orphans(): on Linux ayder becomes a child
subreaper, so a process a command detaches (setsid, a double fork) is re-parented
to ayder instead of init, and on the way out every process still running below
ayder is stopped. Elsewhere (macOS: no subreaper, no /proc) that last step finds nothing.

Nothing heavy is imported here: main() enters this for `--version` too.
"""

from __future__ import annotations

import signal
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from ayder_cli.errors import ExitStatus

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
STATUS = {signal.SIGTERM: ExitStatus.TERMINATED, signal.SIGHUP: ExitStatus.HANGUP}
LOST_AGAIN_S = 0.001  # after Python dropped a Terminated, when it is raised again


class Terminated(SystemExit):
    """SIGTERM or SIGHUP arrived.

    Not an Exception, so no `except Exception` stops it on its way out, and not a
    KeyboardInterrupt, which the loop and the REPL take as "stop this turn and go on".
    A SystemExit because asyncio (the REPL's prompt_toolkit loop) re-raises only
    SystemExit and KeyboardInterrupt from a callback: any other BaseException raised
    while it handles a key would be logged and dropped, leaving ayder running on a
    closed terminal. Its code is the exit status, should anything let it escape.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(int(STATUS[signum]))
        self.signum = signum

    def __str__(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> ExitStatus:
        return STATUS[self.signum]


class _Ending:
    """What ending_cleanly() knows of this process's end."""

    def __init__(self) -> None:
        self.unwinding = False  # cleaning up at the end: a signal is noted, not raised
        self.signum: int | None = None  # the first SIGTERM or SIGHUP received
        self.adopting = False  # adopt_orphans() was called: stop what is left below ayder at the end
        self.scheduled: Terminated | None = None  # handed to an event loop, not raised yet
        self.lost: Terminated | None = None  # raised where Python dropped it (see unraisable), to raise again
        self.alarm_before: Any = None  # SIGALRM's handler before one was needed to raise `lost` again
        self.unraisable_before = sys.unraisablehook

    def exit_status(self, code: int | None) -> int:
        """The status to exit with: a signal received wins over what the run returned."""
        return STATUS[self.signum] if self.signum is not None else int(code or 0)

    def handle(self, signum: int, frame) -> None:
        if self.signum is not None or self.unwinding:
            self.signum = self.signum or signum
            return  # the first signal is already on its way out: cleanup must not be cut short
        self.signum = signum
        loop = _running_event_loop()
        if loop is not None:
            # The REPL's prompt_toolkit loop: raised from inside whatever code it is running, the
            # exception could meet a bare `except:` there (its stdout flush has one) and be lost.
            # Raised from a callback of the loop's own, asyncio lets it out (a SystemExit).
            self.scheduled = Terminated(signum)
            loop.call_soon_threadsafe(self.raise_scheduled)
            return
        raise Terminated(signum)

    def unraisable(self, unraisable) -> None:
        """sys.unraisablehook: Python drops, printing "Exception ignored in", what is raised in a
        finalizer or an at-fork hook (logging has one, run in ayder after every fork that starts a
        command). A Terminated dropped there would leave ayder running on, deaf to SIGTERM: a timer
        raises it again a moment later, in ordinary code (raised from here, it would be dropped too)."""
        if not isinstance(unraisable.exc_value, Terminated) or self.unwinding:
            self.unraisable_before(unraisable)
            return
        self.lost = unraisable.exc_value
        if self.alarm_before is None:
            self.alarm_before = signal.signal(signal.SIGALRM, self.raise_lost)
        signal.setitimer(signal.ITIMER_REAL, LOST_AGAIN_S)

    def raise_lost(self, signum: int, frame) -> None:
        """SIGALRM: raise the Terminated Python dropped (once; dropped again, unraisable() sets another timer)."""
        exc, self.lost = self.lost, None
        if exc is not None and not self.unwinding:
            raise exc

    def end(self) -> None:
        """Put back what ending_cleanly() changed beyond the signal handlers."""
        sys.unraisablehook = self.unraisable_before
        if self.alarm_before is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.alarm_before)

    def raise_scheduled(self) -> None:
        """Raise what handle() gave an event loop; a no-op once raised."""
        exc, self.scheduled = self.scheduled, None
        if exc is not None:
            raise exc


def _running_event_loop():
    """The asyncio loop running in this thread, if any (never imports asyncio: --version stays light)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def raise_if_terminated() -> None:
    """After an event loop has ended (the REPL's prompt returned): the signal it was handed
    and had no time to raise, raised now."""
    if _current is not None:
        _current.raise_scheduled()


_current: _Ending | None = None  # set inside ending_cleanly(): the real process, not a test calling run()


@contextmanager
def ending_cleanly() -> Iterator[_Ending]:
    """Within: SIGTERM and SIGHUP raise Terminated; at the end, adopted processes are stopped."""
    global _current
    ending = _current = _Ending()
    previous = {}
    for signum in STATUS:
        # Ignored already (nohup ayder ...): the user's choice, kept.
        if signal.getsignal(signum) == signal.SIG_DFL:
            previous[signum] = signal.signal(signum, ending.handle)
    sys.unraisablehook = ending.unraisable
    try:
        try:
            yield ending
        finally:
            ending.unwinding = True  # a signal arriving just before this is still caught below
    except Terminated:
        pass  # its status is in ending.exit_status()
    finally:
        try:
            if ending.adopting:
                # Loaded only here: the tools package is not needed for --version.
                from ayder_cli.processes.process_groups import stop_descendants

                try:
                    stop_descendants()
                except KeyboardInterrupt:  # Ctrl-C during the grace period: no more waiting
                    stop_descendants(grace_s=0)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            ending.end()
            _current = None


def adopt_orphans() -> None:
    """From here on tools may run: make what they detach ayder's to stop at the end.

    A no-op outside ending_cleanly() (a test calling run() in its own process keeps its
    own children), and where the platform has no child subreaper.
    """
    if _current is None or _current.adopting:
        return
    _current.adopting = True
    _become_subreaper()


def _become_subreaper() -> bool:
    """prctl(PR_SET_CHILD_SUBREAPER, 1) on Linux; whether it took."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # a few milliseconds, paid only by runs that may start tools

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, one, zero, zero, zero) == 0
    except (OSError, AttributeError):  # no libc to load, or no prctl in it
        return False
