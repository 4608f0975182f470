-- The agent control plane (docs/agent-control.md): one agent per character, the id of the token
-- currently valid for it (registering again rotates it, so older tokens are refused), the goal the
-- owner or the agent set (JSON, NULL: none) and whether the owner paused it. Goal and pause survive
-- the agent reconnecting and the server restarting. Same text for SQLite and PostgreSQL.
ALTER TABLE agent_mappings ADD COLUMN "tokenId" TEXT NOT NULL DEFAULT '';
ALTER TABLE agent_mappings ADD COLUMN goal TEXT;
ALTER TABLE agent_mappings ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_mappings ADD COLUMN "updatedAt" BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX agent_mappings_character ON agent_mappings ("characterId");
CREATE INDEX agent_mappings_account ON agent_mappings ("accountId");
