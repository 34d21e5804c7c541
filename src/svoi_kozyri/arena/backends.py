"""Where the arena's (and self-play's) jobs run: this process, local worker
processes, or a Ray cluster.

Why a seam here: every job is a pure function of its arguments (the deals, the
line-up and the seed fix every card and every bot's random stream), and results
are sorted before anything is counted.  So the backend only decides *where* jobs
run and in what order they finish; it cannot change a single result.  That is
what makes ``--backend ray`` give exactly the local figures for one seed.

* ``local``: ``workers`` processes (:class:`~concurrent.futures.ProcessPoolExecutor`);
  ``workers=1`` runs the jobs in this process.
* ``ray``: one Ray task per job.  With ``address`` it joins an existing cluster
  (``"auto"``, ``"ray://head:10001"``, ``"10.0.0.5:6379"``); without, it starts a
  local Ray with ``num_cpus`` CPUs (default: all cores) for the life of this
  process.  Ray is the optional extra ``svoi-kozyri[ray]``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..core import SvoiKozyriError

R = TypeVar("R")


class BackendError(SvoiKozyriError, ValueError):
    """A backend that cannot be used: unknown name, Ray missing, cluster unreachable."""


BACKENDS = ("local", "ray")


class Backend(Protocol):
    """Runs jobs and yields their results as they finish (any order)."""

    name: str

    @property
    def workers(self) -> int:
        """How many jobs can run at once (for reports)."""
        ...

    def run(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> Iterator[R]:
        """``fn(*job)`` for every job, yielded as each finishes."""
        ...


@dataclass
class LocalBackend:
    """Worker processes on this machine (``workers=1``: this process)."""

    processes: int | None = None
    name: str = "local"

    @property
    def workers(self) -> int:
        """The number of worker processes (default: all CPU cores)."""
        return (os.cpu_count() or 1) if self.processes is None else self.processes

    def run(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> Iterator[R]:
        """Run the jobs; results as they finish."""
        if self.workers < 1:
            raise ValueError("workers must be at least 1")
        if self.workers == 1:
            for job in jobs:
                yield fn(*job)
            return
        with ProcessPoolExecutor(max_workers=self.workers) as pool:
            futures = [pool.submit(fn, *job) for job in jobs]
            for fut in as_completed(futures):
                yield fut.result()


@dataclass
class RayBackend:
    """Ray tasks on an existing cluster (``address``) or on a local Ray."""

    address: str | None = None
    num_cpus: int | None = None
    name: str = "ray"

    def _init(self) -> Any:
        try:
            import ray
        except ImportError:
            raise ValueError("the ray backend needs Ray: pip install 'svoi-kozyri[ray]'") from None
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "configure_logging": False,
            }
            if self.address is not None:
                kwargs["address"] = self.address
            else:
                kwargs["num_cpus"] = self.num_cpus
            try:
                ray.init(**kwargs)
            except ConnectionError as e:
                raise BackendError(
                    f"cannot reach the Ray cluster at {self.address!r}: {e}"
                ) from None
        return ray

    @property
    def workers(self) -> int:
        """CPUs of the cluster (0 before it is started)."""
        try:
            import ray
        except ImportError:
            return 0
        if not ray.is_initialized():
            return 0
        untyped: Any = ray
        return int(untyped.cluster_resources().get("CPU", 0))

    def run(self, fn: Callable[..., R], jobs: Sequence[tuple[Any, ...]]) -> Iterator[R]:
        """One Ray task per job; results as they finish."""
        ray = self._init()
        task = ray.remote(num_cpus=1, max_retries=0)(fn)
        pending = [task.remote(*job) for job in jobs]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield ray.get(ref)
        finally:
            for ref in pending:  # a failed job: do not leave the others running
                ray.cancel(ref, force=True)


def make_backend(
    name: str | Backend = "local",
    *,
    workers: int | None = None,
    address: str | None = None,
) -> Backend:
    """A backend by name: ``local`` (``workers`` processes) or ``ray`` (``address``
    of a cluster; ``workers`` caps a local Ray's CPUs)."""
    if not isinstance(name, str):
        return name
    key = name.strip().lower()
    if key == "local":
        if address is not None:
            raise BackendError("--address is only for --backend ray")
        if workers is not None and workers < 1:
            raise BackendError("workers must be at least 1")
        return LocalBackend(workers)
    if key == "ray":
        return RayBackend(address, workers)
    raise BackendError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")


def _indexed(fn: Callable[..., R], index: int, *args: Any) -> tuple[int, R]:
    return index, fn(*args)


def map_jobs(
    fn: Callable[..., R],
    jobs: Sequence[tuple[Any, ...]],
    *,
    backend: str | Backend = "local",
    workers: int | None = None,
    address: str | None = None,
    progress: Callable[[R], None] | None = None,
) -> list[R]:
    """``[fn(*job) for job in jobs]`` on a backend, in job order whatever order the
    jobs finish in (so output files and reports do not depend on the backend).
    ``fn`` must be a module-level function (it is pickled); ``progress`` sees each
    result as it arrives (for a progress bar).  Self-play and other batch jobs use
    this; the arena sorts its hands itself."""
    runner = make_backend(backend, workers=workers, address=address)
    out: dict[int, R] = {}
    for index, result in runner.run(_indexed, [(fn, i, *job) for i, job in enumerate(jobs)]):
        out[index] = result
        if progress is not None:
            progress(result)
    return [out[i] for i in range(len(jobs))]
