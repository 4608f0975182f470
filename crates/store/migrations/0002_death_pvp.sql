-- Whether a death happened in a PvP area: its items were public at once rather than the owner's
-- for 15 minutes, which a restart must restore the same way. Same text for SQLite and PostgreSQL.
ALTER TABLE "playerDeaths" ADD COLUMN pvp INTEGER NOT NULL DEFAULT 0;
