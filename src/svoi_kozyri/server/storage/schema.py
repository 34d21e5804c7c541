"""The server's whole database schema: every table, on one SQLAlchemy ``metadata``.

One module owns every table, so ``metadata`` always describes the whole schema
the Alembic revisions build (:mod:`.migrations`), whichever module is imported
first, and nothing has to be imported for its side effect.  The store
(:mod:`.store`), the accounts and ratings (:mod:`..platform`) and the social
features (:mod:`..features`) import the tables they use from here.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

# The game: tables, seats, the event log, and the coordination of processes.
metadata = MetaData()

tables_t = Table(
    "sk_tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("config", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("version", Integer, nullable=False, default=0),
    Column("listed", Integer, nullable=False, default=1),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
)

seats_t = Table(
    "sk_seats",
    metadata,
    Column("table_id", String(32), ForeignKey("sk_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("bot", String(40)),
    Column("name", String(64)),
    Column("token_hash", String(64)),
)

meta_t = Table(
    "sk_meta",
    metadata,
    Column("key", String(40), primary_key=True),
    Column("value", Text, nullable=False),
)

leases_t = Table(
    "sk_leases",
    metadata,
    Column("table_id", String(32), ForeignKey("sk_tables.id"), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("expires", Float, nullable=False),
)

processes_t = Table(
    "sk_processes",
    metadata,
    Column("owner", String(64), primary_key=True),
    Column("expires", Float, nullable=False),
)

presence_t = Table(
    "sk_presence",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("owner", String(64), primary_key=True),
    Column("seats", String(16), nullable=False),
    Column("spectators", Integer, nullable=False, server_default="0"),
)

limits_t = Table(
    "sk_limits",
    metadata,
    Column("bucket", String(120), primary_key=True),
    Column("tokens", Float, nullable=False),
    Column("at", Float, nullable=False),
)
"""Rate-limit token buckets shared by every server process (issue 20, item 5):
one row per (purpose, client address | network | everyone)."""

events_t = Table(
    "sk_events",
    metadata,
    Column("table_id", String(32), ForeignKey("sk_tables.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("data", JSON, nullable=False),
    Column("created", Float, nullable=False),
)


# Accounts, log-in sessions, seat links, log-in throttling, results and ratings
# (revision 0004).
users_t = Table(
    "sk_users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(32), nullable=False),
    Column("username_key", String(32), nullable=False, unique=True),
    Column("password_hash", String(200)),  # None for bot accounts: they never log in
    Column("is_bot", Integer, nullable=False, default=0),
    Column("created", Float, nullable=False),
    Column("last_seen", Float, nullable=False, default=0.0),
)

sessions_t = Table(
    "sk_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("sk_users.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

seat_accounts_t = Table(
    "sk_seat_accounts",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("sk_users.id"), nullable=False, index=True),
    Column("linked", Float, nullable=False),
)

login_events_t = Table(
    "sk_login_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(8), nullable=False),
    Column("key", String(64), nullable=False),
    Column("t", Float, nullable=False),
    Index("ix_sk_login_events_kind_key_t", "kind", "key", "t"),
)

table_meta_t = Table(
    "sk_table_meta",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("rated", Integer, nullable=False, default=0),
    Column("players", Integer, nullable=False),
    Column("state", String(8), nullable=False, default="open"),  # open, done
    Column("created", Float, nullable=False),
    Column("finished", Float),
)

ratings_t = Table(
    "sk_ratings",
    metadata,
    Column("user_id", Integer, primary_key=True),
    Column("players", Integer, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False, default=0),
    Column("arena_hands", Integer, nullable=False, default=0),  # bots: calibration hands
    Column("updated", Float, nullable=False),
)

results_t = Table(
    "sk_game_results",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, nullable=False, index=True),
    Column("players", Integer, nullable=False),
    Column("rated", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("mu_before", Float),
    Column("sigma_before", Float),
    Column("mu_after", Float),
    Column("sigma_after", Float),
    Column("finished", Float, nullable=False),
)


# "Same deal, compared", rematches and table chat (revisions 0005, 0006, 0007).
deals_t = Table(
    "sk_deals",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("deal", Text),  # the hand's deal event (JSON); NULL: an old deal that cannot be played
    Column("dealer", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("rules", Text, nullable=False),
    Column("seats", Text),  # the origin's seats (JSON: kind and bot of each)
    Column("origin", String(32)),
    Column("hand", Integer),  # the origin's hand number
    Column("daily", String(10)),
    Column("created", Float, nullable=False),
)
"""Shared deals (revision 0007): one hand's explicit deal event (dealer, deck
order, suit owners), never a table's seed, which would derive the table's other
hands, the one being played included (issue 20 item 1)."""

plays_t = Table(
    "sk_deal_plays",
    metadata,
    Column("deal_id", String(24), primary_key=True),
    Column("table_id", String(32), primary_key=True, index=True),
    Column("hand", Integer, nullable=False),
    Column("created", Float, nullable=False),
)

rematches_t = Table(
    "sk_rematches",
    metadata,
    Column("old_id", String(32), primary_key=True),
    Column("new_id", String(32), nullable=False),
    Column("created", Float, nullable=False),
)

chat_t = Table(
    "sk_chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),
)
"""Table chat (revision 0006): in the database, so every server process on it
shows the same history, counts the same rate limit and survives a restart."""

chat_mutes_t = Table(
    "sk_chat_mutes",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("other", Integer, primary_key=True),
)
"""Which seats each player of a table has muted (revision 0006)."""


# Quick pairing (revision 0009, issue 22 item 1): the seek pool.
seeks_t = Table(
    "sk_seeks",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("token_hash", String(64), nullable=False),
    Column("user_id", Integer, nullable=True, index=True),
    Column("name", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("rated", Integer, nullable=False),
    Column("preset", String(24), nullable=False),
    Column("rating", Float, nullable=False),
    Column("wait_s", Float, nullable=True),  # None: never fill with bots
    # open, claimed, seated, cancelled, expired
    Column("state", String(12), nullable=False, index=True),
    Column("table_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("created", Float, nullable=False),
    Column("seen", Float, nullable=False),  # the seeker's last poll: gone when it stops
    Column("claimed", Float, nullable=True),
)
"""One row per player waiting to be paired; the seat they get is claimed by the
hash of the secret their browser holds (``token_hash``)."""


# Friends, follows, blocks and challenges (revision 0010, issue 22 item 2).
follows_t = Table(
    "sk_follows",
    metadata,
    Column("follower", Integer, primary_key=True),
    Column("followee", Integer, primary_key=True, index=True),
    Column("created", Float, nullable=False),
)
"""Who follows whom (one-way, like a bookmark: no consent needed, a block ends it)."""

blocks_t = Table(
    "sk_blocks",
    metadata,
    Column("blocker", Integer, primary_key=True),
    Column("blocked", Integer, primary_key=True, index=True),
    Column("created", Float, nullable=False),
)
"""Who blocks whom: no follow, challenge, shared table or chat between the two."""

challenges_t = Table(
    "sk_challenges",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("from_user", Integer, nullable=False, index=True),
    Column("to_user", Integer, nullable=False, index=True),
    Column("config", Text, nullable=False),  # the table's TableConfig (JSON)
    Column("token_hash", String(64), nullable=False),  # the challenger's secret, hashed
    # open, accepted, declined, cancelled, expired, failed
    Column("state", String(12), nullable=False, index=True),
    Column("table_id", String(32), nullable=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("decided", Float, nullable=True),
)
"""Direct challenges: open for two minutes, claimed once by a conditional UPDATE;
the challenger's seat is claimed with the hash of the secret given to their
browser when the challenge was made."""


# Tournaments (revision 0011, issue 22 item 3).
tournaments_t = Table(
    "sk_tournaments",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("kind", String(8), nullable=False),  # arena, swiss
    Column("players", Integer, nullable=False),  # seats per table
    Column("rated", Integer, nullable=False),
    Column("preset", String(24), nullable=False),
    Column("starts", Float, nullable=False, index=True),
    Column("ends", Float),  # arena: no new pairing after this
    Column("rounds", Integer),  # swiss
    Column("round", Integer, nullable=False, default=0),
    Column("state", String(10), nullable=False, index=True),  # scheduled, running, finished
    Column("max_entries", Integer, nullable=False),
    Column("creator_id", Integer),  # None: a built-in scheduled tournament
    Column("schedule", String(60), unique=True),  # the built-in slot, e.g. arena:hourly:4p@<t>
    Column("created", Float, nullable=False),
    Column("finished", Float),
    Column("owner", String(64)),  # the director's lease: the process directing it ...
    Column("expires", Float, nullable=False, default=0.0),  # ... until then
)
"""One row per tournament, with the lease of the process directing it."""

tournament_entries_t = Table(
    "sk_tournament_entries",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("tournament_id", String(24), nullable=False, index=True),
    Column("user_id", Integer, nullable=False),
    Column("name", String(40), nullable=False),
    Column("bot", String(40)),  # a bot entrant (invited by the creator)
    Column("token_hash", String(64)),  # the entry's secret (None for a bot)
    Column("state", String(10), nullable=False),  # active, withdrawn
    Column("score", Integer, nullable=False, default=0),
    Column("games", Integer, nullable=False, default=0),
    Column("wins", Integer, nullable=False, default=0),
    Column("streak", Integer, nullable=False, default=0),  # wins in a row
    Column("game_id", String(24)),  # the game being played (None: free)
    Column("joined", Float, nullable=False),
    Column("seen", Float, nullable=False),  # the entrant's last look at the tournament
    Column("free_since", Float, nullable=False),
    Index("ux_sk_tournament_entries_user", "tournament_id", "user_id", unique=True),
)
"""The entrants and their running standings (recomputable from the games)."""

tournament_games_t = Table(
    "sk_tournament_games",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("tournament_id", String(24), nullable=False, index=True),
    Column("round", Integer, nullable=False),
    Column("seq", Integer, nullable=False),  # the order games were made in
    Column("table_id", String(32), index=True),
    Column("state", String(10), nullable=False),  # seating, playing, done, void, bye
    Column("created", Float, nullable=False),
    Column("finished", Float),
)

tournament_seats_t = Table(
    "sk_tournament_seats",
    metadata,
    Column("game_id", String(24), primary_key=True),
    Column("entry_id", String(24), primary_key=True, index=True),
    Column("seat", Integer),  # None for a bye
    Column("points", Integer),  # awarded once the game is settled
)
"""Who played which tournament game at which seat, and what it earned."""


# Per-account preferences (revision 0012, issue 22 item 6).
account_prefs_t = Table(
    "sk_account_prefs",
    metadata,
    Column("user_id", Integer, ForeignKey("sk_users.id"), primary_key=True),
    Column("deck", String(12), nullable=True),  # NULL: not chosen, the browser's stands
    Column("letters", String(8), nullable=True),
    Column("table_colour", String(8), nullable=True),
    Column("notify", Integer, nullable=True),
    Column("lang", String(8), nullable=True),
    Column("updated", Float, nullable=False),
)
"""The look of the game an account chose (platform/prefs.py): one column per
preference, so two devices changing different ones never overwrite each other."""


# Moderation (revision 0013, issue 26 item 5).
roles_t = Table(
    "sk_roles",
    metadata,
    Column("user_id", Integer, ForeignKey("sk_users.id"), primary_key=True),
    Column("role", String(12), nullable=False),  # admin, moderator
    Column("granted", Float, nullable=False),
    Column("granted_by", Integer, nullable=True),  # NULL: the operator's command line
)
"""Who may moderate (platform/moderation.py); an account without a row has no role."""

sanctions_t = Table(
    "sk_sanctions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("sk_users.id"), nullable=False, index=True),
    Column("kind", String(8), nullable=False),  # ban, mute
    Column("reason", String(300), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=True),  # NULL: until lifted
    Column("by_id", Integer, nullable=True),  # NULL: the operator's command line
    Column("lifted", Float, nullable=True),
    Column("lifted_by", Integer, nullable=True),
)
"""Bans and mutes: in force while not lifted and not expired (every process reads them)."""

reports_t = Table(
    "sk_reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter_id", Integer, ForeignKey("sk_users.id"), nullable=False),
    Column("target_id", Integer, nullable=True),  # NULL: a guest at the table
    Column("target_name", String(64), nullable=False),
    Column("table_id", String(32), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("chat_id", Integer, nullable=True),  # the reported chat line, if any
    Column("chat_text", Text, nullable=True),  # its text when reported (it may be removed)
    Column("reason", String(300), nullable=False),
    Column("state", String(10), nullable=False, index=True),  # open, resolved
    Column("created", Float, nullable=False),
    Column("resolved", Float, nullable=True),
    Column("resolver_id", Integer, nullable=True),
    Column("resolution", String(16), nullable=True),
)
"""Players' reports of a player or a chat line, and how a moderator settled each."""

audit_t = Table(
    "sk_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("actor_id", Integer, nullable=True),  # NULL: the operator's command line
    Column("actor_name", String(64), nullable=False),
    Column("action", String(24), nullable=False),
    Column("target", String(80), nullable=False),
    Column("details", String(400), nullable=False),
    Column("at", Float, nullable=False, index=True),
)
"""Every moderator action, append-only (never a secret, token or card in it)."""
