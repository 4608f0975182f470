-- Initial schema: every entity of specification sections 2.4 and 2.5, plus the tables later features need.
-- One text serves SQLite and PostgreSQL: ids are text, times are BIGINT milliseconds since the Unix epoch,
-- flags are INTEGER 0/1, and quoted camelCase names keep the column names of the specification exactly.

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    "identityId" TEXT UNIQUE,
    roles TEXT NOT NULL DEFAULT '',
    "activeCharacterId" TEXT,
    "createdAt" BIGINT NOT NULL,
    "lastLoginAt" BIGINT
);

CREATE TABLE characters (
    id TEXT PRIMARY KEY,
    "accountId" TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    "combatLevel" INTEGER NOT NULL DEFAULT 3,
    "attackLevel" INTEGER NOT NULL DEFAULT 1,
    "strengthLevel" INTEGER NOT NULL DEFAULT 1,
    "defenseLevel" INTEGER NOT NULL DEFAULT 1,
    "constitutionLevel" INTEGER NOT NULL DEFAULT 10,
    "rangedLevel" INTEGER NOT NULL DEFAULT 1,
    "magicLevel" INTEGER NOT NULL DEFAULT 1,
    "prayerLevel" INTEGER NOT NULL DEFAULT 1,
    "woodcuttingLevel" INTEGER NOT NULL DEFAULT 1,
    "fishingLevel" INTEGER NOT NULL DEFAULT 1,
    "firemakingLevel" INTEGER NOT NULL DEFAULT 1,
    "cookingLevel" INTEGER NOT NULL DEFAULT 1,
    "miningLevel" INTEGER NOT NULL DEFAULT 1,
    "smithingLevel" INTEGER NOT NULL DEFAULT 1,
    "agilityLevel" INTEGER NOT NULL DEFAULT 1,
    "craftingLevel" INTEGER NOT NULL DEFAULT 1,
    "fletchingLevel" INTEGER NOT NULL DEFAULT 1,
    "runecraftingLevel" INTEGER NOT NULL DEFAULT 1,
    "attackXp" BIGINT NOT NULL DEFAULT 0,
    "strengthXp" BIGINT NOT NULL DEFAULT 0,
    "defenseXp" BIGINT NOT NULL DEFAULT 0,
    "constitutionXp" BIGINT NOT NULL DEFAULT 1154,
    "rangedXp" BIGINT NOT NULL DEFAULT 0,
    "magicXp" BIGINT NOT NULL DEFAULT 0,
    "prayerXp" BIGINT NOT NULL DEFAULT 0,
    "woodcuttingXp" BIGINT NOT NULL DEFAULT 0,
    "fishingXp" BIGINT NOT NULL DEFAULT 0,
    "firemakingXp" BIGINT NOT NULL DEFAULT 0,
    "cookingXp" BIGINT NOT NULL DEFAULT 0,
    "miningXp" BIGINT NOT NULL DEFAULT 0,
    "smithingXp" BIGINT NOT NULL DEFAULT 0,
    "agilityXp" BIGINT NOT NULL DEFAULT 0,
    "craftingXp" BIGINT NOT NULL DEFAULT 0,
    "fletchingXp" BIGINT NOT NULL DEFAULT 0,
    "runecraftingXp" BIGINT NOT NULL DEFAULT 0,
    health INTEGER NOT NULL DEFAULT 100,
    "maxHealth" INTEGER NOT NULL DEFAULT 100,
    coins BIGINT NOT NULL DEFAULT 0 CHECK (coins >= 0),
    "positionX" REAL NOT NULL DEFAULT 0,
    "positionY" REAL NOT NULL DEFAULT 10,
    "positionZ" REAL NOT NULL DEFAULT 0,
    "combatStyle" TEXT NOT NULL DEFAULT 'accurate',
    "createdAt" BIGINT NOT NULL,
    "lastLoginAt" BIGINT
);
CREATE UNIQUE INDEX characters_name_unique ON characters (lower(name));
CREATE INDEX characters_account ON characters ("accountId");

CREATE TABLE inventory (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    slot INTEGER NOT NULL CHECK (slot >= 0 AND slot < 28),
    "itemId" TEXT NOT NULL,
    quantity BIGINT NOT NULL CHECK (quantity > 0),
    PRIMARY KEY ("characterId", slot)
);

CREATE TABLE equipment (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "slotType" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    quantity BIGINT NOT NULL DEFAULT 1 CHECK (quantity > 0),
    PRIMARY KEY ("characterId", "slotType")
);

CREATE TABLE items (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    value BIGINT NOT NULL DEFAULT 0,
    stackable INTEGER NOT NULL DEFAULT 0,
    tradeable INTEGER NOT NULL DEFAULT 1,
    data TEXT NOT NULL DEFAULT '{}',
    "updatedAt" BIGINT NOT NULL
);

CREATE TABLE "worldChunks" (
    "chunkX" INTEGER NOT NULL,
    "chunkZ" INTEGER NOT NULL,
    data TEXT NOT NULL,
    "updatedAt" BIGINT NOT NULL,
    PRIMARY KEY ("chunkX", "chunkZ")
);

CREATE TABLE "playerSessions" (
    id TEXT PRIMARY KEY,
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "accountId" TEXT NOT NULL,
    address TEXT,
    "loginAt" BIGINT NOT NULL,
    "logoutAt" BIGINT,
    "closeReason" TEXT
);
CREATE INDEX player_sessions_open ON "playerSessions" ("characterId") WHERE "logoutAt" IS NULL;

CREATE TABLE "playerDeaths" (
    id TEXT PRIMARY KEY,
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "diedAt" BIGINT NOT NULL,
    "tileX" INTEGER NOT NULL,
    "tileZ" INTEGER NOT NULL,
    "areaId" TEXT,
    items TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'locked',
    "releasedAt" BIGINT
);
CREATE INDEX player_deaths_locked ON "playerDeaths" ("characterId") WHERE status = 'locked';

CREATE TABLE "npcKills" (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "npcId" TEXT NOT NULL,
    count BIGINT NOT NULL DEFAULT 0,
    "lastKillAt" BIGINT NOT NULL,
    PRIMARY KEY ("characterId", "npcId")
);

-- Friendships are bidirectional: one row per direction, written and removed together.
CREATE TABLE friendships (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "friendId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "createdAt" BIGINT NOT NULL,
    PRIMARY KEY ("characterId", "friendId")
);

CREATE TABLE friend_requests (
    "fromId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "toId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "createdAt" BIGINT NOT NULL,
    PRIMARY KEY ("fromId", "toId")
);

CREATE TABLE ignore_lists (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "ignoredId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "createdAt" BIGINT NOT NULL,
    PRIMARY KEY ("characterId", "ignoredId")
);

CREATE TABLE bank (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "itemId" TEXT NOT NULL,
    quantity BIGINT NOT NULL CHECK (quantity > 0),
    position INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY ("characterId", "itemId")
);

-- Audit of completed trades; items are JSON arrays of {itemId, quantity}.
CREATE TABLE trades (
    id TEXT PRIMARY KEY,
    "playerA" TEXT NOT NULL,
    "playerB" TEXT NOT NULL,
    "itemsAToB" TEXT NOT NULL,
    "itemsBToA" TEXT NOT NULL,
    "completedAt" BIGINT NOT NULL
);
CREATE INDEX trades_player_a ON trades ("playerA");
CREATE INDEX trades_player_b ON trades ("playerB");

CREATE TABLE quest_progress (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    "questId" TEXT NOT NULL,
    status TEXT NOT NULL,
    stage TEXT,
    data TEXT NOT NULL DEFAULT '{}',
    "updatedAt" BIGINT NOT NULL,
    PRIMARY KEY ("characterId", "questId")
);

CREATE TABLE user_bans (
    id TEXT PRIMARY KEY,
    "accountId" TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    "bannedBy" TEXT,
    "createdAt" BIGINT NOT NULL,
    "expiresAt" BIGINT,
    "liftedAt" BIGINT
);
CREATE INDEX user_bans_account ON user_bans ("accountId");

CREATE TABLE agent_mappings (
    "agentId" TEXT PRIMARY KEY,
    "accountId" TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL
);
