-- Auto-retaliate (issue 30): whether an attack on the idle character is answered, 1 (on, what
-- every character saved before it existed gets) or 0. An integer rather than a boolean: one
-- column type and one read for both engines. Same text for SQLite and PostgreSQL.
ALTER TABLE characters ADD COLUMN "autoRetaliate" INTEGER NOT NULL DEFAULT 1;
