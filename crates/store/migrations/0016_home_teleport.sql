-- Home teleport (issue 54, CONTRACT §14): when the character may cast it again, in milliseconds
-- since the Unix epoch (wall time, so its 30 minutes run while the character is offline too).
-- NULL: never cast, ready. Same text for SQLite and PostgreSQL.
ALTER TABLE characters ADD COLUMN "homeTeleportReadyAt" BIGINT;
