"""Rate the bots' accounts of a server database from an arena round robin, so that
a newcomer sees how strong each level is before anybody has played it
(``svoi-kozyri calibrate-bots``; see
:meth:`~.ratings_service.RatingService.calibrate_bots`)."""

from __future__ import annotations

from collections.abc import Iterator

from ...bots import make_agent
from ..storage.store import Store
from .accounts import AccountService
from .ratings_service import RatingService, ordinal


class CalibrationError(ValueError):
    """Bad arguments (bots, player counts) or a database that cannot be used."""


def calibrate(
    database: str,
    bots: list[str],
    players: str,
    hands: int,
    *,
    seed: int = 0,
    workers: int | None = None,
    force: bool = False,
) -> Iterator[str]:
    """Play the round robins and yield one line per rating written."""
    try:
        counts = [int(x) for x in players.split(",")]
    except ValueError:
        raise CalibrationError("player counts are numbers such as 2,3,4") from None
    if not counts or any(n not in (2, 3, 4) for n in counts):
        raise CalibrationError("player counts are 2, 3 or 4")
    if len(set(bots)) < 2:
        raise CalibrationError("name at least two different bots")
    for b in bots:
        try:
            make_agent(b)
        except ValueError as e:
            raise CalibrationError(f"bot {b!r}: {e}") from None
    try:
        store = Store(database)
    except Exception as e:  # unreadable URL, unmigrated or unreachable database
        raise CalibrationError(str(e).splitlines()[0]) from None
    try:
        service = RatingService(store, AccountService(store.engine))
        for n in counts:
            written = service.calibrate_bots(
                bots, n, hands, seed=seed, workers=workers, force=force
            )
            for name, (mu, sigma) in sorted(written.items(), key=lambda kv: -ordinal(*kv[1])):
                yield (
                    f"{n} players  {name:<10} rating {ordinal(mu, sigma):6.2f}  "
                    f"(mu {mu:.2f}, sigma {sigma:.2f})"
                )
    finally:
        store.close()
