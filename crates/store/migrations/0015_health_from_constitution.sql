-- Health from Constitution (issue 54): a character's maximum health is its Constitution level,
-- and a new character's Constitution XP (1,154, this table's default) is level 10. The schema's
-- health defaults of 100 gave every character created without a template 100/100 until its first
-- stats update; creation now writes both from the level (`NEW_CHARACTER_HEALTH`). This corrects,
-- once, every character saved at 100 maximum health, a level no skill reaches (the table stops at
-- 99): its maximum becomes its Constitution level, from its XP by the classic table (each value is
-- the XP at which the next level is reached, as in `wayfarer_content::levels::XP_TABLE`), and its
-- health at most that. Same text for SQLite and PostgreSQL (a `VALUES` list's column is
-- `column1` in both).
UPDATE characters SET "maxHealth" = 1 + (
    SELECT COUNT(*) FROM (VALUES
        (83), (174), (276), (388), (512), (650), (801), (969), (1154), (1358),
        (1584), (1833), (2107), (2411), (2746), (3115), (3523), (3973), (4470), (5018),
        (5624), (6291), (7028), (7842), (8740), (9730), (10824), (12031), (13363), (14833),
        (16456), (18247), (20224), (22406), (24815), (27473), (30408), (33648), (37224), (41171),
        (45529), (50339), (55649), (61512), (67983), (75127), (83014), (91721), (101333), (111945),
        (123660), (136594), (150872), (166636), (184040), (203254), (224466), (247886), (273742), (302288),
        (333804), (368599), (407015), (449428), (496254), (547953), (605032), (668051), (737627), (814445),
        (899257), (992895), (1096278), (1210421), (1336443), (1475581), (1629200), (1798808), (1986068), (2192818),
        (2421087), (2673114), (2951373), (3258594), (3597792), (3972294), (4385776), (4842295), (5346332), (5902831),
        (6517253), (7195629), (7944614), (8771558), (9684577), (10692629), (11805606), (13034431)
    ) AS xp_table WHERE xp_table.column1 <= characters."constitutionXp"
)
WHERE "maxHealth" = 100;
UPDATE characters SET health = "maxHealth" WHERE health > "maxHealth";
