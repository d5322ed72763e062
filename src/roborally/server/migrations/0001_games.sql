-- The games, their actions, rematches and the running games' runtime state (docs/server.md,
-- "Storage"). Applied once, in a transaction, by roborally.server.store_postgres.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    status TEXT NOT NULL,
    settings TEXT NOT NULL,   -- JSON: GameSettings.to_json(), the secret seed included
    seats TEXT NOT NULL,      -- JSON: each seat's kind, bot, name, token hash (SHA-256), taken
    host_hash TEXT NOT NULL,  -- SHA-256 of the host token
    result TEXT,
    record TEXT
);
CREATE INDEX games_status ON games (status, updated);

CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    decision_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    choice TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, n)
);

CREATE TABLE rematches (
    game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    rematch_id TEXT NOT NULL
);

CREATE TABLE runtime (
    game_id TEXT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    data TEXT NOT NULL,       -- JSON: deadlines (wall clock), drafts, presets, auto-play
    at DOUBLE PRECISION NOT NULL
);
