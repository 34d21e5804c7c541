"""The ``selfplay`` command: hands between bots written as Parquet training data."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TextIO

import typer

from ..core import RulesError
from .arena_cmds import AddressOption, BackendOption

#: Off a terminal, a plain progress line at least every this many seconds ...
PLAIN_PROGRESS_SECONDS = 10.0
#: ... and one each time another tenth of the hands is done.
PLAIN_PROGRESS_STEPS = 10


class PlainProgress:
    """Progress as plain lines (``selfplay: 40/100 hands (40 %), 12 s``), for a
    stderr that is not a terminal (a log file, a batch job), where the progress bar
    would print nothing: a line each time another tenth of ``total`` is done, one
    when ``interval`` seconds passed without a line (a background thread), and a
    final line.

    Why a class and not the bar: a bar redraws one line in place, which only a
    terminal can show; a log needs whole lines, few of them."""

    def __init__(
        self,
        total: int,
        write: Callable[[str], None],
        interval: float = PLAIN_PROGRESS_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.done = 0
        self.write = write
        self.interval = interval
        self.clock = clock
        self.step = max(1, -(-total // PLAIN_PROGRESS_STEPS))
        self._next = self.step
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._t0 = self._last = clock()
        self._ticker: threading.Thread | None = None

    def advance(self, k: int) -> None:
        """``k`` more hands are done: a line when another step is complete."""
        with self._lock:
            self.done += k
            if self.done >= self._next and self.done < self.total:
                self._next = (self.done // self.step + 1) * self.step
                self._line()

    def _line(self) -> None:
        pct = 100 * self.done // max(1, self.total)
        elapsed = self.clock() - self._t0
        self.write(f"selfplay: {self.done}/{self.total} hands ({pct} %), {elapsed:.0f} s")
        self._last = self.clock()

    def _tick(self) -> None:
        """The background thread: a line after ``interval`` seconds without one."""
        while not self._finished.wait(max(0.05, self._last + self.interval - self.clock())):
            with self._lock:
                if self.clock() - self._last >= self.interval and not self._finished.is_set():
                    self._line()

    def start(self) -> None:
        """Start the thread that writes a line every ``interval`` seconds."""
        self._ticker = threading.Thread(target=self._tick, name="selfplay-progress", daemon=True)
        self._ticker.start()

    def finish(self, ok: bool) -> None:
        """Stop the thread; when the run succeeded, write the final line."""
        self._finished.set()
        if self._ticker is not None:
            self._ticker.join()
        if ok:
            elapsed = self.clock() - self._t0
            rate = self.done / elapsed if elapsed > 0 else 0.0
            self.write(
                f"selfplay: {self.done}/{self.total} hands done in {elapsed:.1f} s "
                f"({rate:.1f} hands/s)"
            )


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


@contextmanager
def plain_progress(total: int) -> Iterator[Callable[[int], None]]:
    """:class:`PlainProgress` on stderr, yielding its ``advance``."""
    progress = PlainProgress(total, lambda line: typer.echo(line, err=True))
    progress.start()
    ok = False
    try:
        yield progress.advance
        ok = True
    finally:
        progress.finish(ok)


def register(app: typer.Typer) -> None:
    """Add the ``selfplay`` command to ``app``."""
    app.command("selfplay")(selfplay)


def selfplay(
    bots: Annotated[
        str,
        typer.Option(
            help="comma list of bot specs, one per seat (repeated to fill the seats), "
            "e.g. heuristic,greedy or ismcts:iterations=200,c=1.4,medium"
        ),
    ],
    out: Annotated[Path, typer.Option(help="output directory (Parquet files, meta.json)")],
    hands: Annotated[int, typer.Option(min=1, help="hands to play")] = 100,
    players: Annotated[int, typer.Option(min=2, max=4, help="number of players")] = 4,
    seed: Annotated[int, typer.Option(help="seed of the deals and the bots")] = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help="worker processes (default: all CPU cores)")
    ] = None,
    chunk_size: Annotated[int, typer.Option(min=1, help="hands per file pair")] = 50,
    rotate: Annotated[
        bool, typer.Option(help="rotate the bots over the seats from hand to hand")
    ] = True,
    observations: Annotated[
        bool, typer.Option(help="store the observation tensors (else zeros)")
    ] = True,
    rule: Annotated[
        list[str] | None,
        typer.Option(help="any SPEC C9 option as key=value (repeatable)"),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="no progress (a bar on a terminal, else a line now and then)"
        ),
    ] = False,
    backend: BackendOption = "local",
    address: AddressOption = None,
) -> None:
    """Play HANDS hands between BOTS on all cores (or a Ray cluster) and write one
    Parquet row per decision and one per hand into OUT (see docs/envs.md);
    deterministic for a seed, whatever the backend."""
    from rich.console import Console

    from ..arena import split_bot_list
    from .arena_cmds import build_rules, hand_progress

    err = Console(stderr=True)
    try:
        from ..envs.selfplay import SelfPlayConfig, run_selfplay
    except ImportError as e:  # the optional extra is missing
        err.print(f"[red]error:[/] selfplay needs the [envs] extra ({e.name} is missing)")
        raise typer.Exit(2) from None
    if out.exists() and not out.is_dir():
        typer.echo(f"error: --out {out}: not a directory (an existing file)", err=True)
        raise typer.Exit(2)
    if not out.exists() and not out.absolute().parent.is_dir():
        typer.echo(
            f"error: --out {out}: the folder {out.absolute().parent} does not exist", err=True
        )
        raise typer.Exit(2)
    try:
        rules = build_rules(players, None, False, None, rule)
        config = SelfPlayConfig(
            bots=tuple(split_bot_list(bots)),
            rules=rules.to_dict(only_changed=True),
            hands=hands,
            seed=seed,
            chunk_size=chunk_size,
            rotate=rotate,
            observations=observations,
        )
        progress = (
            plain_progress(hands)
            if not quiet and not _is_terminal(sys.stderr)
            else hand_progress(err, hands, quiet)
        )
        with progress as advance:
            path = run_selfplay(
                config,
                out,
                workers,
                progress=advance,
                backend=backend,
                address=address,
            )
    except (ValueError, RulesError) as e:
        # one unwrapped line, like every command's errors (cli/main.py)
        typer.echo(f"error: {' '.join(str(e).split())}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"wrote {hands} hands in {config.num_chunks} chunk(s) to {path}")
