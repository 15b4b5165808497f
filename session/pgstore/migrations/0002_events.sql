-- pgstore schema, version 2: a session's events (what a server did for
-- it: compactions, reminders, usage), numbered per session, so that a
-- client subscribed to any server of a fleet sees the events of writes
-- another server handled (events.go).

-- event_seq is the sequence number of the session's last event.
ALTER TABLE sessions ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;

-- One row per event: seq counts from 1 per session without a gap (the
-- counter above moves in the transaction that inserts the rows); data
-- is the event's JSON as the server wrote it.
CREATE TABLE events (
    tenant     text COLLATE "C" NOT NULL,
    session_id text COLLATE "C" NOT NULL,
    seq        bigint NOT NULL,
    data       bytea  NOT NULL,
    PRIMARY KEY (tenant, session_id, seq),
    FOREIGN KEY (tenant, session_id) REFERENCES sessions (tenant, id) ON DELETE CASCADE
);
