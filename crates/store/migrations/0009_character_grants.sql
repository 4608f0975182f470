-- How many characters of an account have received creation grants (the starter kit's or a
-- template's items and coins) over the account's whole life. Deleting a character does not give
-- its grant back, so creating, emptying and deleting characters cannot mint more than the first
-- few characters an account may hold (docs/mechanics.md, "Starting items and character churn").
-- Taken with the account row locked, in the transaction that inserts the character. Existing
-- characters already received theirs, so each account starts at its present character count.
-- Same text for SQLite and PostgreSQL.
ALTER TABLE users ADD COLUMN "characterGrants" BIGINT NOT NULL DEFAULT 0;
UPDATE users SET "characterGrants" = (
    SELECT COUNT(*) FROM characters WHERE characters."accountId" = users.id
);
