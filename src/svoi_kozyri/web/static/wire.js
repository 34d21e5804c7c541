// @ts-check
// The client's types of the server's wire messages (docs/protocol.md), as JSDoc
// typedefs checked by `make jstypes` (TypeScript over the client, no build step:
// the browser loads this module, which holds no code).  Written by hand from
// src/svoi_kozyri/server/wire/schemas.py (the socket's Client* and Server*
// models and the views) and server/features/chat.py, session_end.py (the chat's
// and the rematch's messages); the names follow the server's.  A page's socket
// hands each message to its handler in a ServerHandlers table (api.js dispatch).

// ---------------------------------------------------------------- the socket

/** @typedef {{type: "hello", token: string | null}} ClientHello */
/** @typedef {{type: "move", move: string, version?: number}} ClientMove */
/** @typedef {{type: "hint"}} ClientHint */
/** @typedef {{type: "ping"}} ClientPing */
/** @typedef {{type: "chat", text: string}} ClientChat */
/** @typedef {{type: "mute", seat: number, muted: boolean}} ClientMute */
/** @typedef {{type: "chat_history"}} ClientChatHistory */
/** Every message a client sends.
 * @typedef {ClientHello | ClientMove | ClientHint | ClientPing | ClientChat | ClientMute | ClientChatHistory} ClientMessage */

/** What everybody sees about a seat (SeatView).
 * @typedef {object} ViewSeat
 * @property {number} seat
 * @property {string} letter
 * @property {string} name
 * @property {"human" | "bot"} kind
 * @property {string | null} bot
 * @property {boolean} taken
 * @property {boolean} connected
 * @property {boolean} standin a bot is playing for this absent player
 * @property {string} suits owned (trump) suits, e.g. "H" or "SC"
 * @property {number} hand_size
 * @property {string[]} known cards publicly known to be in this hand
 * @property {"lead" | "defence" | null} out
 */

/** One public turn of the current hand (LogEntry).
 * @typedef {{seat: number, move: string, picked: string[], by: "player" | "bot" | "standin" | "timer"}} LogEntry */

/** How a hand ended (ResultView).
 * @typedef {{loser: number | null, reason: string, text: string}} ResultView */

/** The current (or just finished) hand from one viewer's seat (HandView).
 * @typedef {object} HandView
 * @property {number} number
 * @property {number | null} dealer
 * @property {string[]} hand the viewer's own cards, display order
 * @property {Record<string, string[]> | null} open_hands all hands, only in the open Besicovitch variant
 * @property {string[]} pile visible part of the pile, bottom to top
 * @property {number} pile_size
 * @property {boolean} pile_full
 * @property {string | null} top
 * @property {number | null} to_act
 * @property {string | null} mode
 * @property {string[]} legal the viewer's legal moves (empty unless their turn)
 * @property {number} pickup_count
 * @property {LogEntry[]} log
 * @property {number} log_start
 * @property {[string, number, number][]} transfers
 * @property {ResultView | null} result
 * @property {number | null} deadline_s
 * @property {number[]} out_order
 */

/** The score of the session (SessionView).
 * @typedef {object} SessionView
 * @property {string} mode
 * @property {number} target
 * @property {number[]} losses
 * @property {number[]} points
 * @property {ResultView[]} hands
 * @property {number} hands_start
 * @property {number} hands_played
 * @property {boolean} over
 * @property {number[]} winners
 * @property {number | null} durak
 */

/** The table as one seat (or a spectator) may see it (TableView).
 * @typedef {object} TableView
 * @property {string} table_id
 * @property {string} title
 * @property {"waiting" | "playing" | "between_hands" | "finished"} status
 * @property {boolean} [closed] a moderator closed the table (it is finished)
 * @property {number} version
 * @property {number | null} viewer
 * @property {Record<string, unknown>} rules
 * @property {number | null} turn_timer_s
 * @property {number} grace_s
 * @property {number} hand_pause_s
 * @property {boolean} paused
 * @property {ViewSeat[]} seats
 * @property {HandView | null} hand
 * @property {SessionView} session
 * @property {boolean} [_moves] set by the client: this view changed the hand
 * @property {number} [_receivedAt] set by the client: when it was shown
 */

/** How good a hinted move is, as data; the client words it (HintRating).
 * @typedef {"win" | "draw" | "loss"} ValueName */
/**
 * @typedef {object} HintRating
 * @property {"proven" | "estimated" | "unrated"} kind
 * @property {ValueName | null} [value]
 * @property {number} score
 * @property {number} low
 * @property {number} high
 * @property {number} samples
 * @property {string} source
 * @property {ValueName | null} [at_least]
 * @property {ValueName | null} [at_best]
 */

/** A message of the table chat.
 * `id` names the line (to report it); `removed`: a moderator removed line `id`.
 * @typedef {{seat: number, name: string, text: string, at: number, id?: number | null, removed?: boolean}} ChatLine */

/** @typedef {{type: "welcome", table_id: string, seat: number | null, name: string | null}} ServerWelcome */
/** @typedef {{type: "state", view: TableView}} ServerState */
/** @typedef {{type: "error", code: string, message: string}} ServerError */
/** @typedef {{type: "hint", move: string, bot: string, rating?: HintRating | null}} ServerHint */
/** @typedef {{type: "pong"}} ServerPong */
/** @typedef {{type: "chat"} & ChatLine} ServerChat */
/** @typedef {{type: "chat_history", messages: ChatLine[], muted: number[]}} ServerChatHistory */
/** @typedef {{type: "chat_mutes", muted: number[]}} ServerChatMutes */
/** @typedef {{type: "rematch", table_id: string, by: number}} ServerRematch */
/** Every message the server sends on a table's socket.
 * @typedef {ServerWelcome | ServerState | ServerError | ServerHint | ServerPong | ServerChat | ServerChatHistory | ServerChatMutes | ServerRematch} ServerMessage */

/** A handler table: for each message type, what to do with it.
 * @typedef {{[K in ServerMessage["type"]]?: (msg: Extract<ServerMessage, {type: K}>) => void}} ServerHandlers */

// ---------------------------------------------------------------- HTTP

/** @typedef {{username: string, bot: boolean, created: number}} AccountUser */
/** @typedef {{user: AccountUser, claimed?: {table_id: string, seat: number}[]}} AccountReply */

/** @typedef {{t: number, rating: number, display?: number}} RatingPoint */
/**
 * @typedef {object} ProfileRating
 * @property {number} players
 * @property {number} rating
 * @property {number} [display]
 * @property {boolean} provisional
 * @property {number} mu
 * @property {number} sigma
 * @property {number} games
 * @property {number} [arena_hands]
 */
/**
 * @typedef {object} Profile
 * @property {string} username
 * @property {boolean} bot
 * @property {boolean} online
 * @property {boolean} me
 * @property {number} created
 * @property {number} wins
 * @property {number} games
 * @property {number} [provisional_games]
 * @property {ProfileRating[]} ratings
 * @property {Record<string, RatingPoint[]>} history
 */
/**
 * @typedef {object} LineupSeat
 * @property {string} seat
 * @property {"human" | "bot"} kind
 * @property {string} [bot]
 * @property {string | null} [name]
 * @property {string | null} [account]
 * @property {boolean} [you]
 */
/**
 * @typedef {object} ProfileGame
 * @property {string} table_id
 * @property {string} title
 * @property {string} replay
 * @property {number} created
 * @property {number | null} [finished]
 * @property {number} players
 * @property {boolean} rated
 * @property {"won" | "lost" | "draw" | null} [outcome]
 * @property {number | null} [place]
 * @property {number | null} [display_change]
 * @property {LineupSeat[]} [lineup]
 */
/** @typedef {{games: ProfileGame[], total: number}} GamesPage */

/**
 * @typedef {object} LobbySeat
 * @property {string} letter
 * @property {string | null} [account]
 * @property {string | null} [bot]
 * @property {string} label
 * @property {boolean} taken
 * @property {boolean} connected
 */
/**
 * @typedef {object} LobbyTable
 * @property {string} table_id
 * @property {string} title
 * @property {number} players
 * @property {string} status
 * @property {number} [hand]
 * @property {boolean} rated
 * @property {number} spectators
 * @property {number} free_seats
 * @property {LobbySeat[]} seats
 */
/**
 * @typedef {object} LobbyPage
 * @property {LobbyTable[]} tables
 * @property {number} total
 * @property {{accounts: string[], guests: number, spectators: number, tables: number}} online
 */
/** @typedef {{players: number, ratings: {username: string, rating: number, display?: number, provisional?: boolean}[]}} RatingsPage */

export {};
