-- Several worlds share one database (WORLD_ID, NATS_URL): each world's ground and depleted
-- resources are its own, so a chunk row belongs to a world. The table held nothing before the
-- chunk persistence that comes with this migration, so it is recreated rather than altered
-- (SQLite cannot change a primary key in place). A single world is world 1 (WORLD_ID's default).
DROP TABLE "worldChunks";

CREATE TABLE "worldChunks" (
    "worldId" INTEGER NOT NULL,
    "chunkX" INTEGER NOT NULL,
    "chunkZ" INTEGER NOT NULL,
    data TEXT NOT NULL,
    "updatedAt" BIGINT NOT NULL,
    PRIMARY KEY ("worldId", "chunkX", "chunkZ")
);
