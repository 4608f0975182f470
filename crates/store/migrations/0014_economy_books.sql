-- The economy's durable books (issue 50, store::repo::economy): per item, direction ('entered'
-- or 'left') and reason, the units that came into and went out of the world over the database's
-- whole life. Each change is written in the transaction that changes the holdings it accounts
-- for (a save batch, a character's creation or deletion), so in every committed state the units
-- held (inventories, worn, banks, open death locks, world chunks' ground) equal entered − left,
-- whatever crashes. `economy_books` has one row once the books are open: a database that held
-- items before this migration enters them as 'opening' when the store first opens the books
-- (after the migrations, in Rust: death locks and chunks hold their items as JSON). Same text for
-- SQLite and PostgreSQL.
CREATE TABLE economy_flows (
    "itemId" TEXT NOT NULL,
    direction TEXT NOT NULL,
    reason TEXT NOT NULL,
    units BIGINT NOT NULL,
    PRIMARY KEY ("itemId", direction, reason)
);
CREATE TABLE economy_books (
    id INTEGER PRIMARY KEY,
    "openedAt" BIGINT NOT NULL
);
