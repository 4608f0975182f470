-- Prayer points left (prayer drains them; an altar restores them to the Prayer level). NULL means
-- full, which is what every character saved before prayer existed has. Same text for SQLite and
-- PostgreSQL.
ALTER TABLE characters ADD COLUMN "prayerPoints" INTEGER;
