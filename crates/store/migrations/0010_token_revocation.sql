-- Logging out (docs/protocol.md, "Authentication and limits"). A token revoked on its own is kept
-- here by its id (the token's `jti`, or a digest of a token without one) only until the token
-- itself expires, when it could not be used anyway: the table never grows beyond the tokens still
-- alive. "Log out everywhere" is one time per account, "tokensValidAfter" (epoch milliseconds):
-- every token of the account issued before it is refused. It is on the account row, which every
-- authenticated request reads already. Same text for SQLite and PostgreSQL.
ALTER TABLE users ADD COLUMN "tokensValidAfter" BIGINT;
CREATE INDEX users_tokens_valid_after ON users ("tokensValidAfter") WHERE "tokensValidAfter" IS NOT NULL;
CREATE TABLE revoked_tokens (
    "tokenId" TEXT PRIMARY KEY,
    "accountId" TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    "expiresAt" BIGINT NOT NULL,
    "revokedAt" BIGINT NOT NULL
);
CREATE INDEX revoked_tokens_expiry ON revoked_tokens ("expiresAt");
CREATE INDEX revoked_tokens_revoked_at ON revoked_tokens ("revokedAt");
