//! XP table, XP gains and the combat level, against hand-computed values.

use wayfarer_content::Skill;
use wayfarer_sim::skills::{
    add_xp, combat_level, level_for_xp, xp_for_level, CombatSkillLevels, Skills, Xp, MAX_LEVEL,
    MAX_XP,
};

#[test]
fn levels_change_exactly_at_the_table_boundaries() {
    assert_eq!(level_for_xp(0), 1);
    assert_eq!(level_for_xp(82), 1);
    assert_eq!(level_for_xp(83), 2);
    assert_eq!(level_for_xp(1_153), 9);
    assert_eq!(level_for_xp(1_154), 10);
    assert_eq!(level_for_xp(13_034_430), 98);
    assert_eq!(level_for_xp(13_034_431), 99);
    assert_eq!(level_for_xp(MAX_XP), 99);
    assert_eq!(level_for_xp(u32::MAX), 99);
}

#[test]
fn xp_for_level_reads_the_table_and_clamps_out_of_range_levels() {
    assert_eq!(xp_for_level(1), 0);
    assert_eq!(xp_for_level(2), 83);
    assert_eq!(xp_for_level(10), 1_154);
    assert_eq!(xp_for_level(99), 13_034_431);
    assert_eq!(xp_for_level(0), 0);
    assert_eq!(xp_for_level(100), 13_034_431);
}

#[test]
fn every_level_starts_at_its_table_entry_and_not_one_point_before() {
    for level in 1..=MAX_LEVEL {
        let xp = xp_for_level(level);
        assert_eq!(level_for_xp(xp), level);
        if level > 1 {
            assert_eq!(level_for_xp(xp - 1), level - 1);
        }
    }
}

#[test]
fn xp_gain_reports_a_level_up_only_when_the_level_rises() {
    let gain = add_xp(Xp::from_points(82), Xp::from_points(1));
    assert_eq!(
        (gain.previous_level, gain.level, gain.leveled_up),
        (1, 2, true)
    );
    assert_eq!(gain.xp, Xp::from_points(83));
    assert_eq!(gain.gained, Xp::from_points(1));

    let gain = add_xp(Xp::from_points(83), Xp::from_points(90));
    // 173 XP is still level 2 (level 3 needs 174).
    assert_eq!((gain.level, gain.leveled_up), (2, false));

    // Several levels at once: 0 + 1,154 is level 10.
    let gain = add_xp(Xp::ZERO, Xp::from_points(1_154));
    assert_eq!(
        (gain.previous_level, gain.level, gain.leveled_up),
        (1, 10, true)
    );
}

#[test]
fn xp_is_capped_at_two_hundred_million() {
    let gain = add_xp(Xp::from_points(199_999_990), Xp::from_points(25));
    assert_eq!(gain.xp, Xp::MAX);
    assert_eq!(gain.xp.points(), 200_000_000);
    assert_eq!(gain.gained, Xp::from_points(10));
    assert!(!gain.leveled_up);

    let gain = add_xp(Xp::MAX, Xp::from_points(1));
    assert_eq!((gain.xp, gain.gained), (Xp::MAX, Xp::ZERO));

    assert_eq!(Xp::from_points(u32::MAX), Xp::MAX);
    assert_eq!(Xp::from_tenths(u32::MAX), Xp::MAX);
    assert_eq!(Xp::MAX.saturating_add(Xp::MAX), Xp::MAX);
}

#[test]
fn fractional_content_xp_is_kept_to_a_tenth() {
    let ore = Xp::from_f64(17.5);
    assert_eq!(ore.tenths(), 175);
    assert_eq!(ore.points(), 17);
    assert_eq!(ore.to_string(), "17.5");
    // Two ores are 35 whole points, not 34.
    assert_eq!(ore.saturating_add(ore).points(), 35);
    assert_eq!(Xp::from_points(35).to_string(), "35");
    // 1.33 rounds to the nearest tenth.
    assert_eq!(Xp::from_f64(1.33).tenths(), 13);
    assert_eq!(Xp::from_f64(-4.0), Xp::ZERO);
    assert_eq!(Xp::from_f64(f64::NAN), Xp::ZERO);
    assert_eq!(Xp::from_f64(1e12), Xp::MAX);
}

#[test]
fn a_new_character_is_combat_level_three() {
    let skills = Skills::new();
    assert_eq!(skills.level(Skill::Constitution), 10);
    assert_eq!(skills.xp(Skill::Constitution), Xp::from_points(1_154));
    assert_eq!(skills.level(Skill::Attack), 1);
    assert_eq!(skills.level(Skill::Woodcutting), 1);
    // base = 0.25 × (1 + 10 + ⌊1/2⌋) = 2.75; melee = 0.325 × (1 + 1) = 0.65; ⌊3.4⌋ = 3.
    assert_eq!(skills.combat_level(), 3);
}

fn levels(
    attack: u8,
    strength: u8,
    defence: u8,
    constitution: u8,
    ranged: u8,
    magic: u8,
    prayer: u8,
) -> CombatSkillLevels {
    CombatSkillLevels {
        attack,
        strength,
        defence,
        constitution,
        ranged,
        magic,
        prayer,
    }
}

#[test]
fn combat_level_matches_hand_computed_values() {
    // base = 0.25 × (99 + 99 + 49) = 61.75; melee = 0.325 × 198 = 64.35; ⌊126.1⌋ = 126.
    assert_eq!(combat_level(levels(99, 99, 99, 99, 99, 99, 99)), 126);
    // base = 0.25 × (50 + 60 + 21) = 32.75; melee = 0.325 × 130 = 42.25; exactly 75.
    assert_eq!(combat_level(levels(60, 70, 50, 60, 1, 1, 43)), 75);
    // Ranger: base = 0.25 × (1 + 10 + 0) = 2.75; range = 0.325 × ⌊148.5⌋ = 48.1; ⌊50.85⌋ = 50.
    assert_eq!(combat_level(levels(1, 1, 1, 10, 99, 1, 1)), 50);
    // Mage, the same arithmetic with magic.
    assert_eq!(combat_level(levels(1, 1, 1, 10, 1, 99, 1)), 50);
    // Odd prayer is halved down: ⌊0.25 × (40 + 40 + 22) + 0.325 × 80⌋ = ⌊25.5 + 26⌋ = 51.
    assert_eq!(combat_level(levels(40, 40, 40, 40, 1, 1, 45)), 51);
}

#[test]
fn skills_add_xp_updates_the_skill_and_the_combat_level() {
    let mut skills = Skills::new();
    let gain = skills.add_xp(Skill::Attack, Xp::from_points(13_034_431));
    assert!(gain.leveled_up);
    assert_eq!(skills.level(Skill::Attack), 99);
    // base 2.75 + melee 0.325 × (99 + 1) = 32.5 → ⌊35.25⌋ = 35.
    assert_eq!(skills.combat_level(), 35);
    skills.set_xp(Skill::Attack, Xp::ZERO);
    assert_eq!(skills.combat_level(), 3);
}
