-- pgstore schema, version 1. Applied by migrate.go in one transaction,
-- with search_path set to the store's schema: no name here is qualified.

-- One row per session: its metadata (session.Session), what appending
-- needs (size, last_uuid) and the writer lease.
CREATE TABLE sessions (
    tenant        text COLLATE "C" NOT NULL,
    id            text COLLATE "C" NOT NULL,
    project       text COLLATE "C" NOT NULL,
    title         text        NOT NULL DEFAULT '',
    created       timestamptz NOT NULL,
    last_activity timestamptz NOT NULL,
    git_branch    text        NOT NULL DEFAULT '',
    model         text        NOT NULL DEFAULT '',
    entry_count   bigint      NOT NULL DEFAULT 0,
    message_count bigint      NOT NULL DEFAULT 0,
    prompt_tokens bigint      NOT NULL DEFAULT 0,
    compactions   bigint      NOT NULL DEFAULT 0,
    origin        text        NOT NULL DEFAULT '',
    metadata      jsonb,
    -- size is the byte length of the session as a JSONL file (every
    -- line plus its newline): the offset of the next line.
    size          bigint      NOT NULL DEFAULT 0,
    -- last_uuid is the uuid of the last entry with one (not a side
    -- chain): the parent of the next entry.
    last_uuid     text        NOT NULL DEFAULT '',
    -- The writer lease: the Store (owner) that may append, until
    -- lease_expires (the database's clock).
    lease_owner   uuid,
    lease_expires timestamptz,
    PRIMARY KEY (tenant, id)
);
CREATE INDEX sessions_activity ON sessions (tenant, last_activity DESC, id DESC);
CREATE INDEX sessions_project ON sessions (tenant, project, last_activity DESC, id DESC);
CREATE INDEX sessions_lease ON sessions (lease_owner) WHERE lease_owner IS NOT NULL;

-- One row per transcript line, in order: seq is the 1-based line
-- number, off the line's byte offset in the JSONL form. line holds the
-- exact bytes (export is byte-identical to a JSONL file); entry is the
-- same line as jsonb for queries, NULL when PostgreSQL's jsonb cannot
-- hold it (a \u0000 escape, invalid UTF-8).
CREATE TABLE entries (
    tenant     text COLLATE "C" NOT NULL,
    session_id text COLLATE "C" NOT NULL,
    seq        bigint  NOT NULL,
    off        bigint  NOT NULL,
    uuid       text    NOT NULL DEFAULT '',
    boundary   boolean NOT NULL DEFAULT false,
    entry      jsonb,
    line       bytea   NOT NULL,
    PRIMARY KEY (tenant, session_id, seq),
    FOREIGN KEY (tenant, session_id) REFERENCES sessions (tenant, id) ON DELETE CASCADE
);
CREATE INDEX entries_boundary ON entries (tenant, session_id, seq) WHERE boundary;
