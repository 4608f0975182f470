-- Starting grants per client address (issue 50, docs/mechanics.md "Starting grants per address"):
-- one row per character created through a request whose address is known, whether or not it
-- received its starting items and coins. Written in the transaction that inserts the character,
-- so the count of accounts an address gave grants to within the last 24 hours is exact under
-- concurrent creations. `address` is the limit key (an IPv4 address, an IPv6 address's /64
-- network, as text). No foreign keys: the record must outlive a deleted character or account,
-- or deleting them would hand the address its grants back. `granted` is 1 when the character
-- received its grant; `exempt` 1 when the rule did not apply to the request (rate limits off, or
-- a load-test bot), and such a row is not counted. Same text for SQLite and PostgreSQL.
CREATE TABLE address_grants (
    "characterId" TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    granted INTEGER NOT NULL,
    exempt INTEGER NOT NULL,
    coins BIGINT NOT NULL,
    "createdAt" BIGINT NOT NULL
);
CREATE INDEX address_grants_by_address ON address_grants (address, "createdAt");
CREATE INDEX address_grants_by_time ON address_grants ("createdAt");
