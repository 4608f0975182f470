-- Audit of finished duels (CONTRACT §11), written in the same transaction as both duelists'
-- records after the result, like a trade's row. Items are JSON arrays of {itemId, quantity}:
-- "itemsWon" moved from the loser to the winner, "winnerStake" stayed with the winner; "rules" is
-- a JSON array of rule names. Same text for SQLite and PostgreSQL.
CREATE TABLE duels (
    id TEXT PRIMARY KEY,
    "winnerId" TEXT NOT NULL,
    "loserId" TEXT NOT NULL,
    "itemsWon" TEXT NOT NULL,
    "winnerStake" TEXT NOT NULL,
    rules TEXT NOT NULL,
    "completedAt" BIGINT NOT NULL
);
CREATE INDEX duels_winner ON duels ("winnerId");
CREATE INDEX duels_loser ON duels ("loserId");
