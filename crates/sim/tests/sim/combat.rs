//! Combat formulas against hand-computed values, and the hit roll against its closed form.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wayfarer_content::{AttackStyle, Bonuses, NpcStats, Skill, WeaponStats};
use wayfarer_sim::combat::formulas::{
    combat_xp, effective_level, hit_chance, max_hit, max_roll, npc_attack_roll, npc_defence_roll,
    npc_max_hit, roll_attack, roll_damage, rolls_hit, AttackType, CombatStyle, PlayerCombatant,
    PrayerBoosts, StyleBonus, MAX_ATTACK_RANGE_TILES,
};
use wayfarer_sim::skills::Xp;

fn melee(style: CombatStyle, attack: u32, strength: u32, defence: u32) -> PlayerCombatant {
    PlayerCombatant {
        attack_level: attack,
        strength_level: strength,
        defence_level: defence,
        ranged_level: 1,
        prayer: PrayerBoosts::NONE,
        bonuses: Bonuses::default(),
        style,
        attack_type: AttackType::Slash,
    }
}

fn archer(style: CombatStyle, ranged: u32) -> PlayerCombatant {
    PlayerCombatant {
        attack_level: 1,
        strength_level: 1,
        defence_level: 1,
        ranged_level: ranged,
        prayer: PrayerBoosts::NONE,
        bonuses: Bonuses {
            attack_ranged: 20,
            strength_ranged: 10,
            ..Bonuses::default()
        },
        style,
        attack_type: AttackType::Ranged,
    }
}

fn npc(attack: u32, strength: u32, defense: u32, defense_bonus: i32) -> NpcStats {
    NpcStats {
        level: 1,
        health: 10,
        attack,
        strength,
        defense,
        defense_bonus,
        ranged: 1,
        magic: 1,
    }
}

#[test]
fn styles_parse_from_their_contract_names() {
    for name in [
        "accurate",
        "aggressive",
        "defensive",
        "controlled",
        "rapid",
        "longrange",
    ] {
        let style = CombatStyle::parse(name).expect(name);
        assert_eq!(style.as_str(), name);
    }
    assert_eq!(CombatStyle::parse("Accurate"), None);
    assert_eq!(CombatStyle::parse("aggresive"), None);
}

#[test]
fn styles_suit_their_weapon_families() {
    assert!(CombatStyle::Accurate.suits(AttackStyle::Ranged));
    assert!(CombatStyle::Controlled.suits(AttackStyle::Melee));
    assert!(CombatStyle::Aggressive.suits(AttackStyle::Magic));
    assert!(!CombatStyle::Aggressive.suits(AttackStyle::Ranged));
    assert!(CombatStyle::Rapid.suits(AttackStyle::Ranged));
    assert!(!CombatStyle::Longrange.suits(AttackStyle::Melee));
}

#[test]
fn style_bonuses_are_the_classic_invisible_levels() {
    let bonus = |style: CombatStyle, weapon| style.level_bonus(weapon);
    let b = |attack, strength, defence| StyleBonus {
        attack,
        strength,
        defence,
    };
    assert_eq!(bonus(CombatStyle::Accurate, AttackStyle::Melee), b(3, 0, 0));
    assert_eq!(
        bonus(CombatStyle::Aggressive, AttackStyle::Melee),
        b(0, 3, 0)
    );
    assert_eq!(
        bonus(CombatStyle::Defensive, AttackStyle::Melee),
        b(0, 0, 3)
    );
    assert_eq!(
        bonus(CombatStyle::Controlled, AttackStyle::Melee),
        b(1, 1, 1)
    );
    assert_eq!(
        bonus(CombatStyle::Accurate, AttackStyle::Ranged),
        b(3, 3, 0)
    );
    assert_eq!(bonus(CombatStyle::Rapid, AttackStyle::Ranged), b(0, 0, 0));
    assert_eq!(
        bonus(CombatStyle::Longrange, AttackStyle::Ranged),
        b(0, 0, 3)
    );
}

#[test]
fn rapid_is_one_tick_faster_and_longrange_reaches_two_tiles_further() {
    assert_eq!(CombatStyle::Rapid.attack_speed_ticks(4), 3);
    assert_eq!(CombatStyle::Rapid.attack_speed_ticks(1), 1);
    assert_eq!(CombatStyle::Accurate.attack_speed_ticks(4), 4);
    assert_eq!(CombatStyle::Longrange.attack_range_tiles(7), 9);
    assert_eq!(
        CombatStyle::Longrange.attack_range_tiles(9),
        MAX_ATTACK_RANGE_TILES
    );
    assert_eq!(CombatStyle::Rapid.attack_range_tiles(7), 7);
}

#[test]
fn effective_level_floors_the_prayer_in_integers() {
    // 60 × 100% + 3 (accurate) + 8 = 71.
    assert_eq!(effective_level(60, 100, 3), 71);
    // ⌊60 × 1.05⌋ = 63; 63 + 3 + 8 = 74.
    assert_eq!(effective_level(60, 105, 3), 74);
    // ⌊20 × 1.15⌋ = 23 (an f64 product is 22.999…, which would floor to 22); 23 + 0 + 8 = 31.
    assert_eq!(effective_level(20, 115, 0), 31);
}

#[test]
fn melee_max_hit_matches_hand_computed_values() {
    // 99 strength, aggressive, no bonus: e = 99 + 3 + 8 = 110; ⌊(110 × 64 + 320) / 640⌋ = ⌊7360 / 640⌋ = 11.
    assert_eq!(max_hit(110, 0), 11);
    // The same with +82 strength (a whip): ⌊(110 × 146 + 320) / 640⌋ = ⌊16380 / 640⌋ = 25.
    assert_eq!(max_hit(110, 82), 25);
    // A new player (strength 1, accurate) with a bronze sword (+4): e = 1 + 0 + 8 = 9;
    // ⌊(9 × 68 + 320) / 640⌋ = ⌊932 / 640⌋ = 1.
    let mut player = melee(CombatStyle::Accurate, 1, 1, 1);
    player.bonuses.strength_melee = 4;
    assert_eq!(player.effective_strength(), 9);
    assert_eq!(player.max_hit(), 1);
    // Strength bonuses below −64 never make a negative hit.
    assert_eq!(max_hit(110, -200), 0);
}

#[test]
fn player_rolls_match_hand_computed_values() {
    // Attack 60 accurate, +5 attack: e = 60 + 3 + 8 = 71; roll = 71 × (5 + 64) = 4,899.
    let mut attacker = melee(CombatStyle::Accurate, 60, 50, 1);
    attacker.bonuses.attack_melee = 5;
    assert_eq!(attacker.effective_attack(), 71);
    assert_eq!(attacker.attack_roll(), 4_899);

    // Defence 40 defensive, +10 slash defence: e = 40 + 3 + 8 = 51; roll = 51 × 74 = 3,774.
    let mut defender = melee(CombatStyle::Defensive, 1, 1, 40);
    defender.bonuses.defense_slash = 10;
    defender.bonuses.defense_stab = -20;
    assert_eq!(defender.defence_roll(AttackType::Slash), 3_774);
    // Against stab: 51 × (−20 + 64) = 2,244.
    assert_eq!(defender.defence_roll(AttackType::Stab), 2_244);

    // Controlled: +1 to each: attack e = 60 + 1 + 8 = 69; strength e = 50 + 1 + 8 = 59.
    attacker.style = CombatStyle::Controlled;
    assert_eq!(attacker.effective_attack(), 69);
    assert_eq!(attacker.effective_strength(), 59);

    // Prayer: ⌊60 × 1.10⌋ = 66 attack → e = 66 + 1 + 8 = 75.
    attacker.prayer.attack_percent = 110;
    assert_eq!(attacker.effective_attack(), 75);

    // Bonuses below −64 make a zero roll, never a negative one.
    assert_eq!(max_roll(71, -100), 0);
}

#[test]
fn ranged_styles_change_accuracy_damage_and_defence() {
    // Accurate, ranged 50: e = 50 + 3 + 8 = 61; roll = 61 × (20 + 64) = 5,124;
    // max hit = ⌊(61 × (10 + 64) + 320) / 640⌋ = ⌊4834 / 640⌋ = 7.
    let accurate = archer(CombatStyle::Accurate, 50);
    assert_eq!(accurate.attack_roll(), 5_124);
    assert_eq!(accurate.max_hit(), 7);
    // Rapid: e = 58; roll = 58 × 84 = 4,872; max hit = ⌊(58 × 74 + 320) / 640⌋ = ⌊4612 / 640⌋ = 7.
    let rapid = archer(CombatStyle::Rapid, 50);
    assert_eq!(rapid.attack_roll(), 4_872);
    assert_eq!(rapid.max_hit(), 7);
    // Longrange: +3 defence: defence 1 → e = 1 + 3 + 8 = 12; against ranged (bonus 0) 12 × 64 = 768.
    let longrange = archer(CombatStyle::Longrange, 50);
    assert_eq!(longrange.effective_defence(), 12);
    assert_eq!(longrange.defence_roll(AttackType::Ranged), 768);
    assert_eq!(rapid.defence_roll(AttackType::Ranged), 9 * 64);
    // Melee prayers do not boost ranged.
    let mut prayed = accurate;
    prayed.prayer.attack_percent = 110;
    prayed.prayer.strength_percent = 110;
    assert_eq!(prayed.attack_roll(), 5_124);
    assert_eq!(prayed.max_hit(), 7);
}

#[test]
fn npc_rolls_use_level_plus_nine() {
    // Goblin: attack, strength, defence 2, no bonus. Attack roll (2 + 9) × 64 = 704;
    // max hit ⌊(11 × 64 + 320) / 640⌋ = ⌊1024 / 640⌋ = 1; defence roll 704.
    let goblin = npc(2, 2, 2, 0);
    assert_eq!(npc_attack_roll(&goblin), 704);
    assert_eq!(npc_max_hit(&goblin), 1);
    assert_eq!(npc_defence_roll(&goblin), 704);
    // Defence 30 with +15: (30 + 9) × (15 + 64) = 39 × 79 = 3,081.
    assert_eq!(npc_defence_roll(&npc(1, 1, 30, 15)), 3_081);
    // Strength 50: ⌊(59 × 64 + 320) / 640⌋ = ⌊4096 / 640⌋ = 6.
    assert_eq!(npc_max_hit(&npc(1, 50, 1, 0)), 6);
}

#[test]
fn hit_chance_matches_hand_computed_values() {
    // A = 4,899 > D = 3,774: 1 − (3,774 + 2) / (2 × 4,900) = 1 − 3,776 / 9,800 = 0.614693…
    assert!((hit_chance(4_899, 3_774) - (1.0 - 3_776.0 / 9_800.0)).abs() < 1e-12);
    assert!((hit_chance(4_899, 3_774) - 0.614_693_877_551).abs() < 1e-9);
    // A = 100 <= D = 300: 100 / (2 × 301) = 0.166112…
    assert!((hit_chance(100, 300) - 100.0 / 602.0).abs() < 1e-12);
    // Equal rolls: A / (2(A + 1)), just under a half.
    assert!((hit_chance(704, 704) - 704.0 / 1_410.0).abs() < 1e-12);
    assert_eq!(hit_chance(0, 500), 0.0);
    // No defence: 1 − 2 / (2(A + 1)) = A / (A + 1).
    assert!((hit_chance(9, 0) - 0.9).abs() < 1e-12);
}

#[test]
fn observed_hit_rate_over_100000_rolls_is_within_one_percent_of_the_formula() {
    const ROLLS: u32 = 100_000;
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    for (attack, defence) in [
        (4_899u64, 3_774u64),
        (100, 300),
        (704, 704),
        (20_000, 1_000),
        (576, 11_000),
    ] {
        let hits = (0..ROLLS)
            .filter(|_| rolls_hit(&mut rng, attack, defence))
            .count();
        let observed = hits as f64 / f64::from(ROLLS);
        let expected = hit_chance(attack, defence);
        assert!(
            (observed - expected).abs() < 0.01,
            "A={attack} D={defence}: observed {observed}, formula {expected}"
        );
    }
}

#[test]
fn damage_is_uniform_from_zero_to_the_max_hit() {
    const ROLLS: usize = 110_000;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut seen = [0usize; 11];
    for _ in 0..ROLLS {
        seen[roll_damage(&mut rng, 10) as usize] += 1;
    }
    // Each of the 11 values expects 10,000; allow 5% either way.
    for (damage, count) in seen.iter().enumerate() {
        assert!(
            (9_500..=10_500).contains(count),
            "{damage} rolled {count} times"
        );
    }
    assert_eq!(roll_damage(&mut rng, 0), 0);
    // An attack roll of 0 never lands.
    assert!((0..1_000).all(|_| roll_attack(&mut rng, 0, 50, 10) == 0));
}

#[test]
fn melee_styles_grant_four_xp_per_damage_and_constitution_one_and_a_third() {
    // Accurate, 10 damage: attack 4 × 10 = 40; constitution ⌊10 × 4/3, in tenths⌋ = 13.3.
    let xp = combat_xp(CombatStyle::Accurate, AttackStyle::Melee, 10);
    assert_eq!(xp.get(Skill::Attack), Xp::from_points(40));
    assert_eq!(xp.get(Skill::Constitution), Xp::from_tenths(133));
    assert_eq!(xp.iter().count(), 2);
    let xp = combat_xp(CombatStyle::Aggressive, AttackStyle::Melee, 3);
    assert_eq!(xp.get(Skill::Strength), Xp::from_points(12));
    assert_eq!(xp.get(Skill::Attack), Xp::ZERO);
    let xp = combat_xp(CombatStyle::Defensive, AttackStyle::Melee, 1);
    assert_eq!(xp.get(Skill::Defense), Xp::from_points(4));
    assert_eq!(xp.get(Skill::Constitution), Xp::from_tenths(13));
}

#[test]
fn controlled_splits_xp_over_attack_strength_and_defence() {
    // 3 damage: 4/3 × 3 = 4 XP each, and 4 constitution.
    let xp = combat_xp(CombatStyle::Controlled, AttackStyle::Melee, 3);
    let skills: Vec<(Skill, Xp)> = xp.iter().collect();
    assert_eq!(
        skills,
        vec![
            (Skill::Attack, Xp::from_points(4)),
            (Skill::Strength, Xp::from_points(4)),
            (Skill::Defense, Xp::from_points(4)),
            (Skill::Constitution, Xp::from_points(4)),
        ]
    );
    // 1 damage: 1.3 each (4/3 rounded down to a tenth).
    let xp = combat_xp(CombatStyle::Controlled, AttackStyle::Melee, 1);
    assert_eq!(xp.get(Skill::Strength), Xp::from_tenths(13));
}

#[test]
fn ranged_styles_grant_ranged_xp_and_longrange_splits_with_defence() {
    let xp = combat_xp(CombatStyle::Accurate, AttackStyle::Ranged, 5);
    assert_eq!(xp.get(Skill::Ranged), Xp::from_points(20));
    assert_eq!(xp.get(Skill::Attack), Xp::ZERO);
    let xp = combat_xp(CombatStyle::Rapid, AttackStyle::Ranged, 5);
    assert_eq!(xp.get(Skill::Ranged), Xp::from_points(20));
    // Longrange, 5 damage: 2 × 5 = 10 ranged, 10 defence; constitution ⌊5 × 40 / 3⌋ = 66 tenths.
    let xp = combat_xp(CombatStyle::Longrange, AttackStyle::Ranged, 5);
    assert_eq!(xp.get(Skill::Ranged), Xp::from_points(10));
    assert_eq!(xp.get(Skill::Defense), Xp::from_points(10));
    assert_eq!(xp.get(Skill::Constitution), Xp::from_tenths(66));
}

#[test]
fn a_hit_of_zero_grants_no_xp() {
    for style in CombatStyle::ALL {
        assert_eq!(
            combat_xp(style, AttackStyle::Melee, 0).iter().count(),
            0,
            "{style:?}"
        );
    }
}

#[test]
fn weapons_attack_with_the_type_of_their_family() {
    let weapon = |weapon_type: &str, attack_style| WeaponStats {
        weapon_type: weapon_type.to_owned(),
        attack_style,
        attack_speed_ticks: 4,
        attack_range: 1,
    };
    assert_eq!(AttackType::of_weapon(None), AttackType::Crush);
    assert_eq!(
        AttackType::of_weapon(Some(&weapon("DAGGER", AttackStyle::Melee))),
        AttackType::Stab
    );
    assert_eq!(
        AttackType::of_weapon(Some(&weapon("SWORD", AttackStyle::Melee))),
        AttackType::Slash
    );
    assert_eq!(
        AttackType::of_weapon(Some(&weapon("STAFF", AttackStyle::Magic))),
        AttackType::Crush
    );
    assert_eq!(
        AttackType::of_weapon(Some(&weapon("BOW", AttackStyle::Ranged))),
        AttackType::Ranged
    );
}

#[test]
fn prayer_boosts_come_from_content_multipliers() {
    let content = wayfarer_content::load_bundled();
    let active = ["hawk_eye", "titan_might", "stone_skin"]
        .map(|id| content.prayers.get(id).expect("bundled prayer"));
    let boosts = PrayerBoosts::of(active);
    assert_eq!(
        (
            boosts.attack_percent,
            boosts.strength_percent,
            boosts.defence_percent
        ),
        (110, 110, 105)
    );
    assert_eq!(PrayerBoosts::of([]), PrayerBoosts::NONE);
}
