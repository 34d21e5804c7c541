"""The one bot catalogue: every bot kind and level by name, in strength order.

Why one place: the terminal game, the web server and the arena must agree on
what a name such as ``hard`` means, which bot is the default, which bots are
cheap enough to move on a server's event loop, and how a comma list of specs
(``--seats ismcts:iterations=200,c=1.4,random``) is cut into one spec per
seat.  Each of them used to keep its own copy of these lists; now they read
this module, and registering a new kind or level is one :func:`register` call
(or one entry in :data:`_BUILTIN`).

A *spec* is ``name`` or ``name:options``.  For most kinds the options are
``key=value`` pairs separated by commas (``ismcts:iterations=2000,c=1.4``).  A
kind registered with ``free_argument=True`` (an external engine, say) takes
the whole text after the colon as one argument instead, commas included.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..core import SvoiKozyriError
from .base import Agent


class BotSpecError(SvoiKozyriError, ValueError):
    """A bot spec names no known bot, or gives options that bot does not accept."""


@dataclass(frozen=True)
class BotKind:
    """One name that :func:`make_agent` accepts.

    ``target`` is ``"module:attribute"`` relative to :mod:`svoi_kozyri.bots` (or an
    absolute module path starting ``svoi_kozyri.``; imported only when the bot is
    first built, so a catalogue entry costs nothing), or the factory itself, called as
    ``factory(seed=..., **options)``, or ``factory(argument, seed=...)`` for a
    ``free_argument`` kind.  ``strength`` puts
    the difficulty levels in order (1 = weakest; ``None`` for kinds that are not
    levels).  ``cheap`` bots answer in well under a millisecond, so a server may run
    them on its event loop.  ``listed`` kinds are offered in menus without options.
    ``validate`` checks an argument or options without building the bot (for kinds
    whose construction is costly or has effects, such as starting a process); by
    default validation builds the bot once and drops it.
    """

    name: str
    target: str | Callable[..., Agent]
    description: str
    strength: int | None = None
    cheap: bool = False
    listed: bool = True
    free_argument: bool = False
    validate: Callable[[str], None] | None = None


_BUILTIN: tuple[BotKind, ...] = (
    BotKind("random", "base:RandomAgent", "uniformly random legal moves", cheap=True),
    BotKind(
        "greedy",
        "basic:GreedyAgent",
        "beats with the cheapest card, leads the cheapest",
        cheap=True,
    ),
    BotKind(
        "heuristic",
        "heuristic:HeuristicAgent",
        "card counting and rules of thumb",
        cheap=True,
    ),
    BotKind(
        "pimc",
        "search.pimc:PIMCAgent",
        "perfect-information Monte Carlo over sampled deals (give iterations= or ms=)",
        listed=False,
    ),
    BotKind(
        "ismcts",
        "search.ismcts:ISMCTSAgent",
        "information-set Monte Carlo tree search (give iterations= or ms=)",
        listed=False,
    ),
    BotKind("easy", "levels:easy", "easy: the greedy bot", strength=1, cheap=True),
    BotKind("medium", "levels:medium", "medium: the heuristic bot", strength=2, cheap=True),
    BotKind(
        "hard",
        "levels:hard",
        "hard: PIMC, 150 rollouts a move (about 5-30 ms)",
        strength=3,
    ),
    BotKind(
        "expert",
        "levels:expert",
        "expert: ISMCTS, 900 ms a move",
        strength=4,
    ),
)


def _validate_engine(argument: str) -> None:
    """``engine:ARGUMENT``: the limits are well formed and the program exists
    (nothing is started)."""
    from .external import ENGINE_PREFIX, make_external

    make_external(ENGINE_PREFIX + argument)


_BUILTIN += (
    BotKind(
        "engine",
        "external:engine_agent",
        "an external engine over the engine protocol: engine:COMMAND (docs/engine-protocol.md)",
        listed=False,
        free_argument=True,
        validate=_validate_engine,
    ),
)

KINDS: dict[str, BotKind] = {}
"""Every registered kind by name, in registration order."""


def register(kind: BotKind) -> None:
    """Add (or replace) a bot kind or level; every surface picks it up at once."""
    name = kind.name.strip().lower()
    if not name or any(ch in name for ch in ":,= "):
        raise ValueError(f"bad bot name {kind.name!r}: no spaces, ':', ',' or '='")
    KINDS[name] = kind


def unregister(name: str) -> None:
    """Remove a registered kind (tests register throw-away kinds)."""
    KINDS.pop(name.lower(), None)


for _kind in _BUILTIN:
    register(_kind)

#: People's seats in the terminal game: ``human`` and its short forms.
HUMAN_NAMES = ("human", "h", "me", "you")

#: The bot the web game seats and asks for hints when none is named: a fair opponent
#: for a newcomer that answers at once.
DEFAULT_BOT = "medium"


def _resolve(kind: BotKind) -> Any:
    if not isinstance(kind.target, str):
        return kind.target
    mod_name, _, attr = kind.target.partition(":")
    if not mod_name.startswith("svoi_kozyri."):
        mod_name = f"{__package__}.{mod_name}"
    return getattr(importlib.import_module(mod_name), attr)


def is_installed(name: str) -> bool:
    """True when ``name`` is registered and its implementation can be imported."""
    kind = KINDS.get(name.lower())
    if kind is None:
        return False
    try:
        _resolve(kind)
    except (ImportError, AttributeError):
        return False
    return True


def available_agents() -> list[str]:
    """Every registered name whose implementation is installed, in registration order."""
    return [name for name in KINDS if is_installed(name)]


def levels() -> list[str]:
    """The difficulty levels, weakest first (installed or not)."""
    ranked = [k for k in KINDS.values() if k.strength is not None]
    return [k.name for k in sorted(ranked, key=lambda k: k.strength or 0)]


def strength_order() -> list[str]:
    """Installed bots a menu offers, strongest first: the levels, then the listed
    kinds that are not levels (heuristic, greedy, random)."""
    have = available_agents()
    lv = [n for n in reversed(levels()) if n in have]
    plain = [n for n in reversed(have) if n not in lv and KINDS[n].listed]
    return lv + [n for n in plain if KINDS[n].strength is None]


def strongest_bot() -> str:
    """The strongest installed level (``random`` if somehow none is)."""
    order = strength_order()
    return order[0] if order else "random"


def default_bot() -> str:
    """:data:`DEFAULT_BOT` when installed, else the strongest cheaper bot that is."""
    have = set(available_agents())
    if DEFAULT_BOT in have:
        return DEFAULT_BOT
    return next((n for n in strength_order() if KINDS[n].cheap), "random")


def cheap_bots() -> frozenset[str]:
    """Names of the bots fast enough for an event loop (every kind flagged ``cheap``)."""
    return frozenset(n for n, k in KINDS.items() if k.cheap)


def is_cheap(spec: str) -> bool:
    """Whether the bot of ``spec`` is a cheap one (options do not change that)."""
    kind = KINDS.get(spec_name(spec))
    return kind is not None and kind.cheap


def describe() -> list[tuple[str, str]]:
    """``(name, description)`` of every installed listed bot, strongest first, for UIs."""
    return [(n, KINDS[n].description) for n in strength_order()]


def spec_name(spec: str) -> str:
    """The bot name of a spec, lower case: ``Hard:ms=50`` -> ``hard``."""
    return spec.strip().partition(":")[0].strip().lower()


def split_specs(text: str, *, extra_names: Iterable[str] = ()) -> list[str]:
    """Cut a comma list of specs into one spec per seat, keeping options with their bot.

    A comma part continues the previous spec when it has ``=`` but no ``:``
    (``ismcts:iterations=200,c=1.4,random`` -> ``["ismcts:iterations=200,c=1.4",
    "random"]``), or when the previous spec's kind takes a free argument and the part
    does not start a new spec (``engine:./bot --x a,b,medium`` -> ``["engine:./bot --x
    a,b", "medium"]``).  A part starts a new spec when its name is a registered kind or
    one of ``extra_names`` (the terminal adds ``human``).  Empty parts are an error.
    """
    starters = set(KINDS) | {n.lower() for n in extra_names}
    out: list[str] = []
    free = False  # the spec being built takes a free argument
    for raw in text.split(","):
        part = raw.strip()
        name = spec_name(part)
        if out and free and name not in starters:
            out[-1] += "," + raw
            continue
        if not part:
            raise BotSpecError(f"empty bot name in {text!r}")
        if out and "=" in part and ":" not in part:
            out[-1] += "," + part
            continue
        out.append(part)
        kind = KINDS.get(name)
        free = kind is not None and kind.free_argument and ":" in part
    return [spec.strip() for spec in out]


def parse_spec(spec: str) -> tuple[BotKind, dict[str, Any] | str]:
    """The kind of a spec and its options (a dict, or the argument text of a
    ``free_argument`` kind); :class:`BotSpecError` names what is wrong."""
    name, _, opts = spec.strip().partition(":")
    name = name.strip().lower()
    kind = KINDS.get(name)
    if kind is None:
        hint = f" (choose from {', '.join(available_agents())})" if name else ""
        what = f"unknown bot {name!r}" if name else f"empty bot name in {spec!r}"
        raise BotSpecError(what + hint)
    if kind.free_argument:
        arg = opts.strip()
        if not arg:
            raise BotSpecError(f"bot {name!r} needs an argument: {name}:ARGUMENT")
        return kind, arg
    kwargs: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in opts.split(","))):
        key, eq, val = part.partition("=")
        if not eq or not key.strip():
            raise BotSpecError(f"bad bot option {part!r} in {spec!r}: expected key=value")
        kwargs[key.strip()] = _convert(val.strip())
    return kind, kwargs


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from ``name`` or ``name:key=value,key=value``
    (e.g. ``ismcts:iterations=2000``).  Unknown names and bad options raise
    :class:`BotSpecError` (a ``ValueError``) with a message naming them."""
    kind, options = parse_spec(spec)
    try:
        factory = _resolve(kind)
    except (ImportError, AttributeError) as e:
        raise BotSpecError(f"bot {kind.name!r} is not available: {e}") from None
    try:
        if isinstance(options, str):
            agent = factory(options, seed=seed)
        else:
            agent = factory(seed=seed, **options)
    except TypeError as e:  # an option the bot's constructor does not take
        raise BotSpecError(f"bad options in bot spec {spec!r}: {e}") from None
    except BotSpecError:
        raise
    except ValueError as e:  # a bad option value, named by the bot's message
        raise BotSpecError(str(e)) from None
    if not isinstance(agent, Agent):
        raise TypeError(f"{spec!r} did not build an Agent")
    return agent


def validate_spec(spec: str) -> str:
    """Check a spec before play starts (so a bad one fails at once, not mid-hand);
    returns it stripped.  Raises :class:`BotSpecError` naming what is wrong."""
    kind, options = parse_spec(spec)
    if kind.validate is not None:
        try:
            kind.validate(options if isinstance(options, str) else spec.partition(":")[2])
        except BotSpecError:
            raise
        except ValueError as e:
            raise BotSpecError(str(e)) from None
    else:
        make_agent(spec, seed=0)
    return spec.strip()


def _convert(val: str) -> Any:
    for conv in (int, float):
        try:
            return conv(val)
        except ValueError:
            pass
    if val.lower() in ("true", "false"):
        return val.lower() == "true"
    return val
