-- When each character reached its current XP in a skill, for the hiscores' tie-break (equal XP:
-- who reached it first ranks higher). Written with the character's record whenever that skill's
-- XP changed; a character with no row for a skill reached it at creation. Same text for SQLite
-- and PostgreSQL.
CREATE TABLE skill_records (
    "characterId" TEXT NOT NULL REFERENCES characters(id) ON DELETE CASCADE,
    skill TEXT NOT NULL,
    xp BIGINT NOT NULL,
    "reachedAt" BIGINT NOT NULL,
    PRIMARY KEY ("characterId", skill)
);
CREATE INDEX skill_records_by_skill ON skill_records (skill, xp, "reachedAt");
