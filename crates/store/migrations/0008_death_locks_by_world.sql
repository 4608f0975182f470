-- Several worlds share one database (WORLD_ID, NATS_URL): a death pile lies on one world's ground,
-- so its lock belongs to that world. Each world restores only its own open locks at start (every
-- world restoring every lock would show one pile in several worlds) and takes only from its own.
-- Existing rows belong to world 1, the single world's id (WORLD_ID's default), as for worldChunks.
-- Same text for SQLite and PostgreSQL.
ALTER TABLE "playerDeaths" ADD COLUMN "worldId" BIGINT NOT NULL DEFAULT 1;
CREATE INDEX player_deaths_locked_by_world ON "playerDeaths" ("worldId") WHERE status = 'locked';
