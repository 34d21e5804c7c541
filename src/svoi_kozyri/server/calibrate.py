"""``python -m svoi_kozyri.server.calibrate``: rate the bots' accounts of a server
database from an arena round robin, so that a newcomer sees how strong each
level is before anybody has played it (see
:meth:`~.ratings_service.RatingService.calibrate_bots`).

    python -m svoi_kozyri.server.calibrate --database sqlite:///web.db \\
        --bots random,greedy,heuristic,easy,medium --players 2,3,4 --hands 200
"""

from __future__ import annotations

import argparse

from .accounts import AccountService
from .db import Store
from .ratings_service import RatingService, ordinal


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, play the round robins and print the ratings written."""
    p = argparse.ArgumentParser(prog="python -m svoi_kozyri.server.calibrate")
    p.add_argument("--database", required=True, help="the server's SQLAlchemy URL")
    p.add_argument("--bots", default="random,greedy,heuristic,easy,medium")
    p.add_argument("--players", default="2,3,4", help="player counts, comma-separated")
    p.add_argument("--hands", type=int, default=200, help="hands per round-robin table")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--force", action="store_true", help="also overwrite bots with web games")
    args = p.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    try:
        counts = [int(x) for x in args.players.split(",")]
    except ValueError:
        p.error("--players takes numbers such as 2,3,4")
    if any(n not in (2, 3, 4) for n in counts) or args.hands < 1:
        p.error("player counts are 2, 3 or 4 and --hands at least 1")
    store = Store(args.database)
    try:
        service = RatingService(store, AccountService(store.engine))
        for n in counts:
            written = service.calibrate_bots(
                bots, n, args.hands, seed=args.seed, workers=args.workers, force=args.force
            )
            for name, (mu, sigma) in sorted(written.items(), key=lambda kv: -ordinal(*kv[1])):
                print(
                    f"{n} players  {name:<10} rating {ordinal(mu, sigma):6.2f}  "
                    f"(mu {mu:.2f}, sigma {sigma:.2f})"
                )
    finally:
        store.close()


if __name__ == "__main__":
    main()
