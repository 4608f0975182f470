//! Fighting in the world: swings at the weapon's speed with hand-computed max hits, XP per damage,
//! ranged ammunition, NPC retaliation, aggression, leashing, death, loot and respawn, PvP areas,
//! flee, stop and follow.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::codes;
use wayfarer_sim::combat::formulas::CombatStyle;
use wayfarer_sim::combat::{aggressive_towards, roll_drops};
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{Action, Command, Event, World};

use crate::arena::{
    act, attack, hits, mob, npc_of, rejections, stack, tick_until, world, Fighter, ARENA_X,
};
use crate::{idle, run, t, walk};

/// The swings `attacker` made in `events`, with the tick (counted from 1 by `ticks`) of each.
fn swings_by(events_per_tick: &[Vec<Event>], attacker: &str) -> Vec<(usize, i64)> {
    events_per_tick
        .iter()
        .enumerate()
        .flat_map(|(tick, events)| {
            hits(events)
                .into_iter()
                .filter(|h| h.attacker_id == attacker)
                .map(move |h| (tick, h.damage))
        })
        .collect()
}

/// Runs `n` ticks, keeping each tick's events apart.
fn ticks(world: &mut World, first: Vec<Command>, n: usize) -> Vec<Vec<Event>> {
    let mut out = vec![world.tick(first)];
    for _ in 1..n {
        out.push(world.tick(vec![]));
    }
    out
}

fn xp(world: &World, id: &str, skill: Skill) -> u32 {
    world.player_skills(id).expect("online").xp(skill).tenths()
}

#[test]
fn melee_swings_every_four_ticks_up_to_the_hand_computed_max_hit_and_earns_four_xp_per_damage() {
    let mut w = world(&[mob("dummy", 10, 10)], 11);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    // Strength 40, aggressive (+3), bronze sword (+4 strength):
    // effective strength 40 + 3 + 8 = 51; max hit ⌊(51 × 68 + 320) / 640⌋ = ⌊3788 / 640⌋ = 5.
    let ada = Fighter::new("ada", t(10, 11))
        .level(Skill::Attack, 40)
        .level(Skill::Strength, 40)
        .wear(EquipSlot::Weapon, "bronze_sword", 1)
        .style(CombatStyle::Aggressive);
    w.tick(vec![ada.join()]);
    let (strength0, constitution0) = (
        xp(&w, "ada", Skill::Strength),
        xp(&w, "ada", Skill::Constitution),
    );
    let per_tick = ticks(&mut w, vec![attack("ada", &dummy)], 240);
    let swings = swings_by(&per_tick, "ada");
    assert_eq!(swings.len(), 60, "a swing every 4 ticks for 240 ticks");
    for pair in swings.windows(2) {
        assert_eq!(pair[1].0 - pair[0].0, 4, "the sword's speed is 4 ticks");
    }
    let max = swings.iter().map(|s| s.1).max().unwrap_or(0);
    assert_eq!(max, 5, "the max hit is reached and never passed");
    assert!(swings.iter().all(|s| (0..=5).contains(&s.1)));
    // 4 strength XP per damage; constitution 4/3 per damage, rounded down to a tenth per hit.
    let total: u32 = swings.iter().map(|s| s.1 as u32).sum();
    let constitution: u32 = swings.iter().map(|s| s.1 as u32 * 40 / 3).sum();
    assert_eq!(xp(&w, "ada", Skill::Strength) - strength0, total * 40);
    assert_eq!(
        xp(&w, "ada", Skill::Constitution) - constitution0,
        constitution
    );
    let attack40 = Xp::from_points(xp_for_level(40)).tenths();
    assert_eq!(
        xp(&w, "ada", Skill::Attack),
        attack40,
        "aggressive trains no attack"
    );
    // The dummy lost exactly the damage dealt, and never fought back.
    let entity = w.entity(&dummy).expect("alive");
    assert_eq!(entity.health, Some(200 - i64::from(total)));
    assert!(swings_by(&per_tick, &dummy).is_empty());
}

#[test]
fn controlled_splits_xp_and_unarmed_fists_swing_every_four_ticks() {
    let mut w = world(&[mob("dummy", 10, 10)], 12);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    let ada = Fighter::new("ada", t(10, 11))
        .level(Skill::Attack, 30)
        .level(Skill::Strength, 30)
        .style(CombatStyle::Controlled);
    w.tick(vec![ada.join()]);
    let before: Vec<u32> = [Skill::Attack, Skill::Strength, Skill::Defense]
        .iter()
        .map(|s| xp(&w, "ada", *s))
        .collect();
    let per_tick = ticks(&mut w, vec![attack("ada", &dummy)], 80);
    let swings = swings_by(&per_tick, "ada");
    assert_eq!(swings.len(), 20);
    assert!(swings.windows(2).all(|p| p[1].0 - p[0].0 == 4));
    // Unarmed, controlled: effective strength 30 + 1 + 8 = 39; ⌊(39 × 64 + 320) / 640⌋ = 4.
    assert_eq!(swings.iter().map(|s| s.1).max(), Some(4));
    let split: u32 = swings.iter().map(|s| s.1 as u32 * 40 / 3).sum();
    for (skill, before) in [Skill::Attack, Skill::Strength, Skill::Defense]
        .into_iter()
        .zip(before)
    {
        assert_eq!(xp(&w, "ada", skill) - before, split, "{skill:?}");
    }
}

#[test]
fn ranged_consumes_one_arrow_per_shot_from_range_and_stops_when_the_quiver_is_empty() {
    let mut w = world(&[mob("dummy", 10, 10)], 13);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    // Ranged 1, rapid: effective ranged strength 1 + 0 + 8 = 9; ⌊(9 × 71 + 320) / 640⌋ = 1;
    // the shortbow's 4 ticks less one for rapid: 3.
    let ada = Fighter::new("ada", t(10, 16))
        .wear(EquipSlot::Weapon, "shortbow", 1)
        .wear(EquipSlot::Arrows, "bronze_arrow", 5)
        .style(CombatStyle::Rapid);
    w.tick(vec![ada.join()]);
    let per_tick = ticks(&mut w, vec![attack("ada", &dummy)], 30);
    let swings = swings_by(&per_tick, "ada");
    assert_eq!(swings.len(), 5, "one shot per arrow");
    assert!(swings.windows(2).all(|p| p[1].0 - p[0].0 == 3));
    assert!(swings.iter().all(|s| s.1 <= 1));
    assert_eq!(
        w.player_tile("ada"),
        Some(t(10, 16)),
        "shot from 6 tiles away"
    );
    assert!(w
        .player_equipment("ada")
        .expect("online")
        .get(EquipSlot::Arrows)
        .is_none());
    let all: Vec<&Event> = per_tick.iter().flatten().collect();
    assert!(all.iter().any(|e| matches!(e, Event::Chat { to, message } if to.len() == 1 && &*to[0] == "ada" && message.text.contains("no arrows"))));
    assert!(!w.player_is_busy("ada"), "the attack ended");
    let equipment_reports = all
        .iter()
        .filter(|e| matches!(e, Event::Equipment { to, .. } if to == "ada"))
        .count();
    assert_eq!(
        equipment_reports, 5,
        "the quiver is reported after every shot"
    );
}

#[test]
fn a_weak_mob_fights_back_dies_drops_loot_for_its_killer_and_respawns_on_time() {
    let mut w = world(&[mob("weakling", 10, 10)], 14);
    let weakling = npc_of(&w, "weakling").expect("weakling");
    // Bare fists, attack and strength 1: the weakling (2 hp) needs two hits of 1.
    w.tick(vec![Fighter::new("ada", t(10, 11)).join()]);
    let mut events = w.tick(vec![attack("ada", &weakling)]);
    events.extend(tick_until(&mut w, 400, |_, e| {
        e.iter().any(|e| matches!(e, Event::NpcKilled { .. }))
    }));
    assert!(
        hits(&events)
            .iter()
            .any(|h| h.attacker_id == weakling && h.target_id == "ada"),
        "the weakling fought back"
    );
    let killed: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::NpcKilled { .. }))
        .collect();
    assert_eq!(
        killed,
        vec![&Event::NpcKilled {
            killer: "ada".into(),
            npc_id: "weakling".into()
        }]
    );
    let died_at = w.tick_number();
    assert!(w.entity(&weakling).is_none() && npc_of(&w, "weakling").is_none());
    // Viewers saw its health drop, then saw it go.
    let kill = events
        .iter()
        .position(|e| matches!(e, Event::NpcKilled { .. }))
        .expect("killed");
    // The kill is the last tick's; its views follow it.
    let seen = crate::views(&events[kill..]);
    assert!(
        seen["ada"].removed.iter().any(|id| **id == *weakling),
        "removed from view at death"
    );
    let changed: Vec<Option<i64>> = events
        .iter()
        .filter_map(|e| match e {
            Event::View { to, update } if &**to == "ada" => Some(update),
            _ => None,
        })
        .flat_map(|u| u.changed.iter())
        .filter(|c| c.id == weakling)
        .map(|c| c.health)
        .collect();
    assert!(
        changed.contains(&Some(1)),
        "its wound was shown: {changed:?}"
    );
    let loot = w.ground_items();
    assert!(loot
        .iter()
        .any(|g| g.stack == stack("bones", 1) && g.tile == t(10, 10)));
    for g in &loot {
        assert_eq!(g.owner.as_deref(), Some("ada"));
        assert_eq!(g.public_at, died_at + wayfarer_sim::GROUND_PRIVATE_TICKS);
        assert_eq!(g.death, None);
    }
    // Respawn after exactly 10 ticks, at its spawn, whole, with a new id.
    idle(&mut w, 9);
    assert!(npc_of(&w, "weakling").is_none());
    idle(&mut w, 1);
    let again = npc_of(&w, "weakling").expect("respawned");
    assert_ne!(again, weakling);
    let entity = w.entity(&again).expect("alive");
    assert_eq!((entity.x, entity.z, entity.health), (10, 10, Some(2)));
}

#[test]
fn loot_tables_roll_each_line_against_its_chance() {
    let content = crate::arena::content(&[]);
    let weakling = content.npcs.get("weakling").expect("weakling");
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let rolls = 20_000;
    let (mut coins, mut helmets, mut coin_total) = (0u32, 0u32, 0u64);
    for _ in 0..rolls {
        let loot = roll_drops(weakling, &mut rng);
        assert_eq!(
            loot[0],
            stack("bones", 1),
            "the default drop comes every time"
        );
        for s in &loot[1..] {
            match s.item_id.as_str() {
                "coins" => {
                    assert!((5..=15).contains(&s.quantity));
                    coins += 1;
                    coin_total += u64::from(s.quantity);
                }
                "bronze_helmet" => helmets += 1,
                other => panic!("unexpected drop {other}"),
            }
        }
    }
    // Binomial bounds of about five standard deviations.
    let coin_rate = f64::from(coins) / f64::from(rolls);
    let helmet_rate = f64::from(helmets) / f64::from(rolls);
    assert!((0.48..=0.52).contains(&coin_rate), "{coin_rate}");
    assert!((0.09..=0.11).contains(&helmet_rate), "{helmet_rate}");
    let mean = coin_total as f64 / f64::from(coins);
    assert!((9.8..=10.2).contains(&mean), "{mean}");
}

#[test]
fn kills_in_the_world_drop_bones_every_time_and_coins_about_half_the_time() {
    let mut w = world(&[mob("weakling", 10, 10)], 15);
    let hero = Fighter::new("ada", t(10, 11))
        .level(Skill::Attack, 99)
        .level(Skill::Strength, 99)
        .level(Skill::Defense, 99)
        .level(Skill::Constitution, 99);
    w.tick(vec![hero.join()]);
    let kills = 40;
    let (mut bones, mut coins) = (0, 0);
    for _ in 0..kills {
        let target = loop {
            if let Some(id) = npc_of(&w, "weakling") {
                break id;
            }
            w.tick(vec![]);
        };
        let mut commands = vec![attack("ada", &target)];
        for _ in 0..200 {
            if w.entity(&target).is_none() {
                break;
            }
            w.tick(std::mem::take(&mut commands));
        }
        assert!(w.entity(&target).is_none(), "the weakling died");
        // This kill's loot: what became the killer's in this very tick.
        let private_until = w.tick_number() + wayfarer_sim::GROUND_PRIVATE_TICKS;
        for g in w
            .ground_items()
            .iter()
            .filter(|g| g.public_at == private_until)
        {
            assert_eq!(g.owner.as_deref(), Some("ada"));
            match g.stack.item_id.as_str() {
                "bones" => bones += 1,
                "coins" => coins += 1,
                _ => {}
            }
        }
    }
    assert_eq!(bones, kills, "bones on every kill");
    // Binomial(40, 0.5): mean 20, sd 3.2.
    assert!(
        (8..=32).contains(&coins),
        "{coins} coin drops in {kills} kills"
    );
}

#[test]
fn a_mob_that_does_not_retaliate_never_hits_back() {
    let mut w = world(&[mob("dummy", 10, 10)], 16);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![Fighter::new("ada", t(10, 11)).join()]);
    let per_tick = ticks(&mut w, vec![attack("ada", &dummy)], 30);
    assert!(!swings_by(&per_tick, "ada").is_empty());
    assert!(swings_by(&per_tick, &dummy).is_empty());
    assert_eq!(w.player_health_of("ada"), Some((10, 10)));
}

#[test]
fn aggressive_mobs_attack_within_their_range_not_beyond_and_not_players_twice_their_level() {
    assert!(aggressive_towards(10, 20));
    assert!(!aggressive_towards(10, 21));
    let mut w = world(&[mob("brute", 10, 10)], 17);
    let brute = npc_of(&w, "brute").expect("brute");
    // The brute wanders at most 2 tiles from (10, 10): (10, 16) stays 4 tiles away, beyond 3.
    w.tick(vec![Fighter::new("ada", t(10, 16)).join()]);
    let quiet = idle(&mut w, 60);
    assert!(
        hits(&quiet).is_empty(),
        "nobody attacked beyond the aggro range"
    );
    // Within range it comes for her.
    w.tick(vec![walk("ada", t(10, 12))]);
    let events = tick_until(&mut w, 40, |_, e| {
        hits(e).iter().any(|h| h.attacker_id == brute)
    });
    assert!(hits(&events)
        .iter()
        .any(|h| h.attacker_id == brute && h.target_id == "ada"));

    // A player of combat level 126 (> 2 × 10) walks past untouched.
    let mut w = world(&[mob("brute", 10, 10)], 17);
    let hero = Fighter::hero("bob", t(10, 11));
    w.tick(vec![hero.join()]);
    assert_eq!(w.player_skills("bob").map(|s| s.combat_level()), Some(126));
    assert!(hits(&idle(&mut w, 60)).is_empty());
}

#[test]
fn a_mob_pulled_past_its_leash_heals_walks_home_and_wanders_again() {
    let mut w = world(&[mob("brute", 10, 10)], 18);
    let brute = npc_of(&w, "brute").expect("brute");
    let ada = Fighter::new("ada", t(10, 12))
        .level(Skill::Attack, 40)
        .level(Skill::Strength, 40)
        .level(Skill::Constitution, 40)
        .wear(EquipSlot::Weapon, "bronze_sword", 1);
    w.tick(vec![ada.join(), attack("ada", &brute)]);
    let events = tick_until(&mut w, 40, |w, _| {
        w.entity(&brute).and_then(|e| e.health) < Some(50)
    });
    assert!(hits(&events)
        .iter()
        .any(|h| h.attacker_id == "ada" && h.damage > 0));
    // Run east; the brute follows until it is more than 5 tiles from home.
    w.tick(vec![run("ada", t(28, 12))]);
    let (mut farthest, mut healed_at, mut home_at) = (0, None, None);
    for tick in 0..40 {
        w.tick(vec![]);
        let e = w.entity(&brute).expect("alive");
        farthest = farthest.max(e.x - 10);
        if healed_at.is_none() && e.health == Some(50) {
            healed_at = Some(tick);
        }
        if healed_at.is_some() && home_at.is_none() && (e.x, e.z) == (10, 10) {
            home_at = Some(tick);
        }
    }
    assert_eq!(farthest, 6, "pulled one tile past the leash, then let go");
    assert!(healed_at.is_some(), "healed when it gave up");
    assert!(home_at.is_some(), "walked back home");
    assert!(
        hits(&idle(&mut w, 20)).is_empty(),
        "the fight is over: no more blows either way"
    );
    // Wandering resumes: it moves again within a while, near home.
    let mut moved = false;
    for _ in 0..100 {
        w.tick(vec![]);
        let e = w.entity(&brute).expect("alive");
        moved |= (e.x, e.z) != (10, 10);
        assert!((e.x - 10).abs() <= 2 && (e.z - 10).abs() <= 2);
    }
    assert!(moved);
}

#[test]
fn players_fight_each_other_only_when_both_stand_in_a_pvp_area() {
    let mut w = world(&[], 19);
    w.tick(vec![
        Fighter::new("ada", t(5, 5)).join(),
        Fighter::new("bob", t(6, 5)).join(),
        Fighter::new("cy", t(ARENA_X, 5)).join(),
        Fighter::new("dee", t(ARENA_X + 1, 5)).join(),
    ]);
    assert!(!w.is_pvp_tile(t(ARENA_X - 1, 5)) && w.is_pvp_tile(t(ARENA_X, 5)));
    let events = w.tick(vec![attack("ada", "bob")]);
    assert_eq!(rejections(&events, "ada"), vec![codes::CANNOT_DO]);
    assert!(!w.player_is_busy("ada"));
    // Across the border: still refused.
    w.tick(vec![Command::Teleport {
        id: "bob".into(),
        tile: t(ARENA_X - 1, 5),
    }]);
    let events = w.tick(vec![attack("cy", "bob")]);
    assert_eq!(rejections(&events, "cy"), vec![codes::CANNOT_DO]);
    // Both inside: blows land.
    let mut events = w.tick(vec![attack("cy", "dee")]);
    events.extend(idle(&mut w, 8));
    assert!(rejections(&events, "cy").is_empty());
    assert!(hits(&events)
        .iter()
        .any(|h| h.attacker_id == "cy" && h.target_id == "dee"));
    // Attacking a non-combat NPC is refused too.
    let sage = w
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some("sage"))
        .map(|n| n.id)
        .expect("sage");
    let events = w.tick(vec![attack("ada", &sage)]);
    assert_eq!(rejections(&events, "ada"), vec![codes::CANNOT_DO]);
}

#[test]
fn hits_go_to_every_player_in_view_of_the_target_and_nobody_else() {
    let mut w = world(&[mob("dummy", 10, 10)], 20);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![
        Fighter::new("ada", t(10, 11)).join(),
        Fighter::new("bob", t(29, 29)).join(),
    ]);
    let mut events = w.tick(vec![attack("ada", &dummy)]);
    events.extend(idle(&mut w, 3));
    let to: Vec<&Vec<String>> = events
        .iter()
        .filter_map(|e| match e {
            Event::CombatHit { to, .. } => Some(to),
            _ => None,
        })
        .collect();
    assert!(!to.is_empty());
    for receivers in to {
        assert_eq!(receivers, &vec!["ada".to_string(), "bob".to_string()]);
    }
    // Far away (beyond 32 tiles) nobody else hears of it.
    let mut w = world(&[mob("dummy", 10, 10)], 20);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![
        Fighter::new("ada", t(10, 11)).join(),
        Fighter::new("bob", t(50, 29)).join(),
    ]);
    let mut events = w.tick(vec![attack("ada", &dummy)]);
    events.extend(idle(&mut w, 3));
    for e in &events {
        if let Event::CombatHit { to, .. } = e {
            assert_eq!(to, &vec!["ada".to_string()]);
        }
    }
}

#[test]
fn flee_runs_away_from_the_attacker_and_is_refused_when_nobody_attacks() {
    let mut w = world(&[mob("brute", 10, 10)], 21);
    let brute = npc_of(&w, "brute").expect("brute");
    w.tick(vec![Fighter::new("ada", t(3, 3)).join()]);
    let events = w.tick(vec![act("ada", Action::Flee)]);
    assert_eq!(rejections(&events, "ada"), vec![codes::CANNOT_DO]);
    // Attack the brute, then flee.
    w.tick(vec![attack("ada", &brute)]);
    tick_until(&mut w, 40, |w, _| {
        w.player_tile("ada").is_some_and(|p| {
            w.entity(&brute)
                .is_some_and(|b| (b.x - p.x).abs() <= 1 && (b.z - p.z).abs() <= 1)
        })
    });
    let start = w.player_tile("ada").expect("online");
    let b = w.entity(&brute).expect("alive");
    let events = w.tick(vec![act("ada", Action::Flee)]);
    assert!(rejections(&events, "ada").is_empty());
    assert!(!w.player_is_busy("ada"), "the attack is over");
    let after = w.player_tile("ada").expect("online");
    let d = |p: wayfarer_protocol::ws::TilePos| (p.x - b.x).abs().max((p.z - b.z).abs());
    assert!(d(after) > d(start), "moved away");
    assert!(
        (after.x - start.x).abs().max((after.z - start.z).abs()) > 2,
        "running: more than the 2 tiles of a walk in one tick"
    );
}

#[test]
fn stop_ends_an_attack() {
    let mut w = world(&[mob("dummy", 10, 10)], 22);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![Fighter::new("ada", t(10, 11)).join()]);
    let mut events = w.tick(vec![attack("ada", &dummy)]);
    events.extend(idle(&mut w, 2));
    assert!(!hits(&events).is_empty());
    w.tick(vec![act("ada", Action::Stop)]);
    assert!(hits(&idle(&mut w, 20)).is_empty());
}

#[test]
fn a_follower_keeps_re_pathing_behind_a_moving_player() {
    let mut w = world(&[], 23);
    w.tick(vec![
        Fighter::new("ada", t(5, 5)).join(),
        Fighter::new("bob", t(2, 2)).join(),
    ]);
    w.tick(vec![act(
        "bob",
        Action::Follow {
            target: "ada".into(),
        },
    )]);
    for goal in [t(20, 5), t(20, 20), t(5, 20)] {
        w.tick(vec![walk("ada", goal)]);
        for _ in 0..30 {
            w.tick(vec![]);
            let (a, b) = (w.player_tile("ada").unwrap(), w.player_tile("bob").unwrap());
            assert!(
                (a.x - b.x).abs().max((a.z - b.z).abs()) <= 4,
                "never far behind"
            );
        }
        let (a, b) = (w.player_tile("ada").unwrap(), w.player_tile("bob").unwrap());
        assert_eq!(a, goal);
        assert!(
            (a.x - b.x).abs().max((a.z - b.z).abs()) <= 1,
            "right behind at {goal:?}"
        );
        assert!(w.player_is_busy("bob"), "still following");
    }
}

#[test]
fn a_bow_without_arrows_does_not_shoot() {
    let mut w = world(&[mob("dummy", 10, 10)], 24);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    w.tick(vec![Fighter::new("ada", t(10, 14))
        .wear(EquipSlot::Weapon, "shortbow", 1)
        .join()]);
    let mut events = w.tick(vec![attack("ada", &dummy)]);
    events.extend(idle(&mut w, 5));
    assert!(hits(&events).is_empty());
    assert!(events.iter().any(
        |e| matches!(e, Event::Chat { to, message } if to.len() == 1 && &*to[0] == "ada" && message.text.contains("no arrows"))
    ));
    assert!(!w.player_is_busy("ada"));
}

#[test]
fn a_mob_whose_target_leaves_walks_home_and_dead_mobs_survive_a_content_reload() {
    let mut w = world(&[mob("brute", 10, 10), mob("weakling", 20, 20)], 25);
    let brute = npc_of(&w, "brute").expect("brute");
    w.tick(vec![Fighter::new("ada", t(10, 12)).join()]);
    tick_until(&mut w, 40, |_, e| {
        hits(e).iter().any(|h| h.attacker_id == brute)
    });
    w.tick(vec![Command::Leave { id: "ada".into() }]);
    idle(&mut w, 20);
    let e = w.entity(&brute).expect("alive");
    assert!(
        (e.x - 10).abs() <= 2 && (e.z - 10).abs() <= 2,
        "back near home"
    );

    // Kill the weakling, reload the same content while it is dead: it still respawns once.
    let weakling = npc_of(&w, "weakling").expect("weakling");
    let hero = Fighter::new("bob", t(20, 21))
        .level(Skill::Attack, 99)
        .level(Skill::Strength, 99);
    w.tick(vec![hero.join(), attack("bob", &weakling)]);
    tick_until(&mut w, 50, |w, _| w.entity(&weakling).is_none());
    assert!(npc_of(&w, "weakling").is_none());
    let content = w.content().clone();
    w.replace_content(content);
    idle(&mut w, 12);
    let weaklings = w
        .npcs()
        .into_iter()
        .filter(|n| n.type_id.as_deref() == Some("weakling"))
        .count();
    assert_eq!(weaklings, 1);
}

#[test]
fn the_same_seed_and_commands_give_the_same_fight() {
    let run_once = || {
        let mut w = world(&[mob("brute", 10, 10), mob("weakling", 14, 10)], 26);
        let weakling = npc_of(&w, "weakling").expect("weakling");
        let mut events = w.tick(vec![
            Fighter::new("ada", t(10, 12)).join(),
            Fighter::new("bob", t(14, 11))
                .wear(EquipSlot::Weapon, "shortbow", 1)
                .wear(EquipSlot::Arrows, "bronze_arrow", 20)
                .join(),
        ]);
        events.extend(w.tick(vec![attack("bob", &weakling)]));
        events.extend(idle(&mut w, 120));
        events
    };
    let first = run_once();
    assert!(!hits(&first).is_empty());
    assert_eq!(first, run_once());
}
