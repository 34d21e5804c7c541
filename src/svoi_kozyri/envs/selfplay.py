"""Self-play data: hands between bots written as Parquet, and a loader.

Why this shape: learners want one row per decision (what the player saw, what it
could do, what it did) and one row per hand (how it ended), in a columnar format
every data tool reads.  Work is split into *chunks* of consecutive hands, and
:func:`play_chunk` is a pure function ``(config, seed, chunk) -> ChunkTables``: every
hand's deal and bot seeds derive from ``(seed, hand index)`` alone, so the data set
is the same whichever process, machine or backend (local pool, Ray) plays a chunk
and in whatever order.

Files in the output directory (schema in ``docs/envs.md``):

* ``decisions-NNNNN.parquet``: one row per step-level decision of chunk ``NNNNN``;
* ``hands-NNNNN.parquet``: one row per hand;
* ``meta.json``: the configuration, the observation layout version and sizes.

A bot's move of two cards (beat, then lead) is two decision rows (``step`` 0 and 1
of the turn), each with its own mask, as in the step-level environments.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from ..arena.backends import Backend, make_backend
from ..bots import Agent, make_agent
from ..core import NUM_ACTIONS, Game, Rules, State, blind_owners, observe
from .encoding import OBS_SIZE, encode_state

SCHEMA_VERSION = 1

DECISIONS_SCHEMA = pa.schema(
    [
        ("game_id", pa.int64()),
        ("turn", pa.int32()),
        ("step", pa.int8()),
        ("seat", pa.int8()),
        ("bot", pa.string()),
        ("observation", pa.list_(pa.float32(), OBS_SIZE)),
        ("legal_mask", pa.list_(pa.int8(), NUM_ACTIONS)),
        ("action", pa.int8()),
        ("value", pa.float32()),
    ]
)
HANDS_SCHEMA = pa.schema(
    [
        ("game_id", pa.int64()),
        ("rules", pa.string()),
        ("num_players", pa.int8()),
        ("bots", pa.list_(pa.string())),
        ("owners", pa.list_(pa.int8())),
        ("dealer", pa.int8()),
        ("deck", pa.list_(pa.int8())),
        ("loser", pa.int8()),
        ("reason", pa.string()),
        ("first_out", pa.int8()),
        ("turns", pa.int32()),
        ("decisions", pa.int32()),
        ("returns", pa.list_(pa.float32())),
    ]
)


@dataclass(frozen=True)
class SelfPlayConfig:
    """What to play.  ``bots``: one spec per seat (repeated to fill the seats);
    ``rotate``: seat ``s`` of hand ``h`` is played by ``bots[(s + h) % n]``, so every
    bot plays every seat; ``chunk_size``: hands per chunk (one file pair each)."""

    bots: tuple[str, ...]
    rules: dict[str, Any] = field(default_factory=dict)
    hands: int = 100
    seed: int = 0
    chunk_size: int = 50
    rotate: bool = True
    observations: bool = True

    def __post_init__(self) -> None:
        if not self.bots:
            raise ValueError("name at least one bot")
        if self.hands < 1 or self.chunk_size < 1:
            raise ValueError("hands and chunk_size must be at least 1")
        rules = Rules.from_dict(dict(self.rules))  # validates
        for spec in set(self.bots):
            make_agent(spec, 0)  # ValueError naming a bad bot or option
        object.__setattr__(self, "rules", rules.to_dict(only_changed=True))

    @property
    def num_chunks(self) -> int:
        """How many chunks the hands are split into."""
        return math.ceil(self.hands / self.chunk_size)

    def chunk_hands(self, chunk: int) -> range:
        """The hand indices (game ids) of ``chunk``."""
        return range(chunk * self.chunk_size, min(self.hands, (chunk + 1) * self.chunk_size))

    def to_json(self) -> dict[str, Any]:
        """A JSON-able form (``SelfPlayConfig(**d)`` rebuilds it)."""
        d = asdict(self)
        d["bots"] = list(self.bots)
        return d


@dataclass
class ChunkTables:
    """The two tables of one chunk."""

    decisions: pa.Table
    hands: pa.Table


def hand_seeds(seed: int, hand: int, k: int) -> list[int]:
    """``k`` independent seeds for hand ``hand`` of a run seeded ``seed``."""
    state = np.random.SeedSequence([seed & (2**63 - 1), hand]).generate_state(k, np.uint64)
    return [int(x) for x in state]


def lineup(config: SelfPlayConfig, n: int, hand: int) -> list[str]:
    """The bot spec of each seat in hand ``hand``."""
    full = [config.bots[i % len(config.bots)] for i in range(n)]
    shift = hand % n if config.rotate else 0
    return [full[(s + shift) % n] for s in range(n)]


def play_chunk(config: SelfPlayConfig, seed: int, chunk: int) -> ChunkTables:
    """Play the hands of ``chunk`` (pure: the result depends only on the arguments)."""
    rules = Rules.from_dict(dict(config.rules))
    n = rules.num_players
    base_game = Game(rules)
    agents: dict[str, Agent] = {}
    cols: dict[str, list[Any]] = {name: [] for name in DECISIONS_SCHEMA.names}
    hcols: dict[str, list[Any]] = {name: [] for name in HANDS_SCHEMA.names}
    rules_json = json.dumps(config.rules, sort_keys=True)
    zero_obs = np.zeros(OBS_SIZE, dtype=np.float32)
    for hand in config.chunk_hands(chunk):
        deal_seed, *bot_seeds = hand_seeds(seed, hand, 1 + n)
        specs = lineup(config, n, hand)
        seats: list[Agent] = []
        for s, spec in enumerate(specs):
            key = f"{s}:{spec}"
            agent = agents.get(key)
            if agent is None:
                agent = agents[key] = make_agent(spec, 0)
            agent.reseed(bot_seeds[s])
            seats.append(agent)
        rng = random.Random(deal_seed)
        game = base_game
        if rules.suit_assignment == "blind":
            owners, pairs = blind_owners(rules, rng)
            game = Game(rules, owners, pairs)
        dealer = rng.randrange(n)
        state = game.new_hand(dealer, rng)
        decisions = _play_hand(state, seats, specs, hand, cols, config.observations, zero_obs)
        res = state.outcome
        assert res is not None
        hcols["game_id"].append(hand)
        hcols["rules"].append(rules_json)
        hcols["num_players"].append(n)
        hcols["bots"].append(specs)
        hcols["owners"].append(list(game.owners))
        hcols["dealer"].append(dealer)
        deck = state.origin.deck
        hcols["deck"].append(list(deck) if deck is not None else [])
        hcols["loser"].append(-1 if res.loser is None else res.loser)
        hcols["reason"].append(str(res.termination.value))
        first = state.first_out()
        hcols["first_out"].append(-1 if first is None else first)
        hcols["turns"].append(state.turns)
        hcols["decisions"].append(decisions)
        hcols["returns"].append(list(state.returns()))
    obs = cols.pop("observation")
    masks = cols.pop("legal_mask")
    k = len(cols["game_id"])
    obs_arr = np.array(obs, dtype=np.float32).reshape(k, OBS_SIZE)
    mask_arr = np.array(masks, dtype=np.int8).reshape(k, NUM_ACTIONS)
    arrays = {name: pa.array(cols[name], type=DECISIONS_SCHEMA.field(name).type) for name in cols}
    arrays["observation"] = pa.FixedSizeListArray.from_arrays(
        pa.array(obs_arr.reshape(-1), type=pa.float32()), OBS_SIZE
    )
    arrays["legal_mask"] = pa.FixedSizeListArray.from_arrays(
        pa.array(mask_arr.reshape(-1), type=pa.int8()), NUM_ACTIONS
    )
    decisions_table = pa.table(
        [arrays[name] for name in DECISIONS_SCHEMA.names], schema=DECISIONS_SCHEMA
    )
    hands_table = pa.table(
        [pa.array(hcols[name], type=HANDS_SCHEMA.field(name).type) for name in HANDS_SCHEMA.names],
        schema=HANDS_SCHEMA,
    )
    return ChunkTables(decisions_table, hands_table)


_SHIFTS = np.arange(NUM_ACTIONS, dtype=np.uint64)


def _play_hand(
    state: State,
    seats: Sequence[Agent],
    lineup: Sequence[str],
    game_id: int,
    cols: dict[str, list[Any]],
    with_obs: bool,
    zero_obs: npt.NDArray[np.float32],
) -> int:
    """Play ``state`` to the end, appending one row per step decision; their number."""
    rows = 0
    while not state.is_over:
        seat = state.to_act
        agent = seats[seat]
        move = agent.choose(observe(state, seat))
        value = agent.last_value  # the bot's own estimate, None for bots without one
        turn = state.turns
        for step, action in enumerate(move.steps()):
            mask = state.legal_action_mask()
            cols["game_id"].append(game_id)
            cols["turn"].append(turn)
            cols["step"].append(step)
            cols["seat"].append(seat)
            cols["bot"].append(lineup[seat])
            cols["observation"].append(encode_state(state, seat) if with_obs else zero_obs)
            cols["legal_mask"].append(((np.uint64(mask) >> _SHIFTS) & np.uint64(1)).astype(np.int8))
            cols["action"].append(action)
            cols["value"].append(float("nan") if value is None else float(value))
            state.apply_action(action)
            rows += 1
    return rows


def write_chunk(out: Path, chunk: int, tables: ChunkTables) -> None:
    """Write one chunk's two files into ``out`` (atomically: temp name, then rename)."""
    for name, table in (("decisions", tables.decisions), ("hands", tables.hands)):
        final = out / f"{name}-{chunk:05d}.parquet"
        tmp = final.with_suffix(".tmp")
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, final)


def _config(config_json: dict[str, Any]) -> SelfPlayConfig:
    return SelfPlayConfig(**{**config_json, "bots": tuple(config_json["bots"])})


def _job(config_json: dict[str, Any], chunk: int, out: str) -> int:
    """A local worker's job: play one chunk and write its files itself."""
    config = _config(config_json)
    tables = play_chunk(config, config.seed, chunk)
    write_chunk(Path(out), chunk, tables)
    return len(config.chunk_hands(chunk))


def play_chunk_job(config_json: dict[str, Any], chunk: int) -> tuple[int, ChunkTables]:
    """A remote job (Ray): play one chunk and return its tables, which the driver
    writes, so that a cluster's workers need no shared file system."""
    config = _config(config_json)
    return chunk, play_chunk(config, config.seed, chunk)


def run_selfplay(
    config: SelfPlayConfig,
    out: Path | str,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    backend: str | Backend = "local",
    address: str | None = None,
) -> Path:
    """Play every chunk of ``config`` and write them into ``out``; ``progress(k)``
    is called as hands finish.  ``backend="local"``: ``workers`` processes (default:
    all cores); ``backend="ray"``: one Ray task per chunk on the cluster at
    ``address`` (or a local Ray with ``workers`` CPUs), its tables written here.
    Every chunk is a pure function of the configuration, so the files are the
    same byte for byte of data on every backend."""
    runner = make_backend(backend, workers=workers, address=address)  # errors before any file
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    for old in [*path.glob("decisions-*.parquet"), *path.glob("hands-*.parquet")]:
        old.unlink()
    meta = {
        "schema_version": SCHEMA_VERSION,
        "observation_size": OBS_SIZE,
        "num_actions": NUM_ACTIONS,
        "config": config.to_json(),
    }
    (path / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    cj = config.to_json()
    chunks = range(config.num_chunks)
    if runner.name != "local":
        for chunk, tables in runner.run(play_chunk_job, [(cj, c) for c in chunks]):
            write_chunk(path, chunk, tables)
            if progress is not None:
                progress(len(config.chunk_hands(chunk)))
        return path
    workers = runner.workers
    if workers == 1 or config.num_chunks == 1:
        for c in chunks:
            done = _job(cj, c, str(path))
            if progress is not None:
                progress(done)
        return path
    with ProcessPoolExecutor(max_workers=min(workers, config.num_chunks)) as pool:
        futures = [pool.submit(_job, cj, c, str(path)) for c in chunks]
        for fut in as_completed(futures):
            done = fut.result()
            if progress is not None:
                progress(done)
    return path


def load(path: Path | str) -> dict[str, npt.NDArray[Any]]:
    """The data set in ``path`` as numpy arrays, in game-id order: ``observation``
    (N, OBS_SIZE) float32, ``legal_mask`` (N, 41) int8, ``action``, ``seat``,
    ``game_id``, ``turn``, ``step``, ``value`` (NaN: the bot gave none), ``bot``;
    and per hand ``hand_game_id``, ``hand_loser`` (-1: draw), ``hand_reason``,
    ``hand_returns`` (H, n), ``hand_turns``."""
    p = Path(path)
    dec_files = sorted(p.glob("decisions-*.parquet"))
    hand_files = sorted(p.glob("hands-*.parquet"))
    if not dec_files or not hand_files:
        raise FileNotFoundError(f"no self-play data in {p}")
    dec = pa.concat_tables([pq.read_table(f) for f in dec_files])
    hands = pa.concat_tables([pq.read_table(f) for f in hand_files])
    obs_col = dec.column("observation").combine_chunks()
    mask_col = dec.column("legal_mask").combine_chunks()
    n = dec.num_rows
    out: dict[str, npt.NDArray[Any]] = {
        "observation": obs_col.values.to_numpy(zero_copy_only=False).reshape(n, OBS_SIZE),
        "legal_mask": mask_col.values.to_numpy(zero_copy_only=False).reshape(n, NUM_ACTIONS),
    }
    for name in ("game_id", "turn", "step", "seat", "action", "value"):
        out[name] = dec.column(name).to_numpy()
    out["bot"] = np.array(dec.column("bot").to_pylist(), dtype=object)
    out["hand_game_id"] = hands.column("game_id").to_numpy()
    out["hand_loser"] = hands.column("loser").to_numpy()
    out["hand_reason"] = np.array(hands.column("reason").to_pylist(), dtype=object)
    out["hand_turns"] = hands.column("turns").to_numpy()
    out["hand_returns"] = np.array(hands.column("returns").to_pylist(), dtype=np.float32)
    return out
