-- Which world holds each online character (several worlds on one PostgreSQL, issue 19). A row is a
-- lease: taken by one conditional statement (insert, or take over an expired row), renewed by the
-- holder's heartbeat, deleted when the holder's final save is written. "expiresAt" is on the
-- database's clock, so the worlds' clocks never have to agree. Same text for SQLite and PostgreSQL;
-- a single world (no NATS_URL) never writes it.
CREATE TABLE character_leases (
    "characterId" TEXT PRIMARY KEY REFERENCES characters(id) ON DELETE CASCADE,
    "worldId" BIGINT NOT NULL,
    "holder" TEXT NOT NULL,
    "expiresAt" BIGINT NOT NULL
);
CREATE INDEX character_leases_by_world ON character_leases ("worldId");
