-- The arena's ladder (issue 55, CONTRACT §15, store::repo::arena). `arena_ratings`: one row per
-- character that finished a ladder fight, its Glicko-2 rating, deviation and volatility and its
-- wins and losses. `arena_fights`: one row per finished ladder fight (its id is the fight id the
-- sim gave it, so a wager can reference it), with both fighters' ratings before and after. Both
-- are written in the transaction that writes the fight's duel result (the `duels` row and both
-- records), exactly once: a second write of the same fight is refused by the primary key, whole.
-- Numbered 0017, not 0016, to leave 0016 to work done beside this. Same text for SQLite and
-- PostgreSQL.
CREATE TABLE arena_ratings (
    "characterId" TEXT PRIMARY KEY,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    wins BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    "updatedAt" BIGINT NOT NULL
);
CREATE INDEX arena_ratings_rating ON arena_ratings (rating);
CREATE TABLE arena_fights (
    id TEXT PRIMARY KEY,
    "duelId" TEXT NOT NULL,
    "aId" TEXT NOT NULL,
    "aName" TEXT NOT NULL,
    "bId" TEXT NOT NULL,
    "bName" TEXT NOT NULL,
    "winnerId" TEXT NOT NULL,
    "loserId" TEXT NOT NULL,
    "aBefore" DOUBLE PRECISION NOT NULL,
    "aAfter" DOUBLE PRECISION NOT NULL,
    "bBefore" DOUBLE PRECISION NOT NULL,
    "bAfter" DOUBLE PRECISION NOT NULL,
    pit BIGINT NOT NULL,
    "startedAt" BIGINT NOT NULL,
    "endedAt" BIGINT NOT NULL
);
CREATE INDEX arena_fights_ended ON arena_fights ("endedAt");
