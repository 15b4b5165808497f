-- Version 1: sessions and their entries.
--
-- sessions holds each session's metadata (session.Session), what
-- appending needs (size, last_uuid) and its writer lease. Times are Unix
-- nanoseconds, UTC.
CREATE TABLE sessions (
	id            TEXT    PRIMARY KEY,
	project       TEXT    NOT NULL,
	title         TEXT    NOT NULL DEFAULT '',
	created       INTEGER NOT NULL,
	last_activity INTEGER NOT NULL,
	git_branch    TEXT    NOT NULL DEFAULT '',
	model         TEXT    NOT NULL DEFAULT '',
	entries       INTEGER NOT NULL DEFAULT 0,
	messages      INTEGER NOT NULL DEFAULT 0,
	prompt_tokens INTEGER NOT NULL DEFAULT 0,
	compactions   INTEGER NOT NULL DEFAULT 0,
	origin        TEXT    NOT NULL DEFAULT '',
	metadata      TEXT,
	-- size is the byte length of the session's JSONL form (every line and
	-- its newline): the offset of the next entry.
	size          INTEGER NOT NULL DEFAULT 0,
	-- last_uuid is the uuid of the last entry with one, not a side chain:
	-- the parent of the next.
	last_uuid     TEXT    NOT NULL DEFAULT '',
	-- lease_owner is the Store instance writing the session (NULL: none);
	-- its lease ends at lease_expires (Unix milliseconds) unless renewed.
	lease_owner   TEXT,
	lease_expires INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX sessions_activity ON sessions (last_activity DESC, id DESC);
CREATE INDEX sessions_project ON sessions (project, last_activity DESC, id DESC);
CREATE INDEX sessions_lease ON sessions (lease_owner) WHERE lease_owner IS NOT NULL;

-- entries holds each session's lines: line is the entry's JSONL line
-- without its newline, byte for byte what package jsonlstore writes; seq
-- is its 0-based line number and off its byte offset in the JSONL form.
-- uuid, type and boundary are copies for queries: boundary marks a
-- compact boundary, where loading the live part starts.
CREATE TABLE entries (
	session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	off        INTEGER NOT NULL,
	uuid       TEXT    NOT NULL DEFAULT '',
	type       TEXT    NOT NULL,
	boundary   INTEGER NOT NULL DEFAULT 0,
	line       BLOB    NOT NULL,
	PRIMARY KEY (session_id, seq)
) STRICT;

CREATE INDEX entries_boundary ON entries (session_id, seq) WHERE boundary = 1;
