//! Dying: everything held and worn but the 3 most valuable items falls at the death tile tagged
//! with the death's id, the player is back at the spawn whole; a gravestone keeps the pile private for 15 minutes outside PvP, a
//! PvP death drops it for the killer or everyone; pickups and expiry of death items are reported,
//! piles can be restored after a restart, and no item is ever made or lost.

use std::collections::BTreeMap;

use wayfarer_content::EquipSlot;
use wayfarer_protocol::ws::{codes, TilePos};
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{
    Command, Event, GroundItemInfo, World, GRAVESTONE_TICKS, GROUND_LIFETIME_TICKS,
    GROUND_PRIVATE_TICKS,
};

use crate::arena::{
    attack, mob, npc_of, pickup, rejections, stack, tick_until, world, Fighter, ARENA_X,
};
use crate::{idle, t, walk};

/// Item counts, by item id.
type Counts = BTreeMap<String, u64>;

fn add(counts: &mut Counts, s: &Stack) {
    *counts.entry(s.item_id.clone()).or_default() += u64::from(s.quantity);
}

/// What a player holds and wears.
fn carried(w: &World, id: &str) -> Counts {
    let mut counts = Counts::new();
    if let Some(inv) = w.player_inventory(id) {
        for (_, s) in inv.stacks() {
            add(&mut counts, s);
        }
    }
    if let Some(eq) = w.player_equipment(id) {
        for (_, s) in eq.iter() {
            add(&mut counts, s);
        }
    }
    counts
}

/// What lies on the ground from death `death_id`.
fn pile(w: &World, death_id: &str) -> Vec<GroundItemInfo> {
    w.ground_items()
        .into_iter()
        .filter(|g| g.death.as_deref() == Some(death_id))
        .collect()
}

/// A `PlayerDied`'s fields: id, death id, tile, items, pvp.
type Death = (String, String, TilePos, Vec<Stack>, bool);

fn died(events: &[Event]) -> Option<Death> {
    events.iter().find_map(|e| match e {
        Event::PlayerDied {
            id,
            death_id,
            tile,
            items,
            pvp,
            ..
        } => Some((id.clone(), death_id.clone(), *tile, items.clone(), *pvp)),
        _ => None,
    })
}

/// Ticks until someone dies; the death and every event up to it.
fn until_death(w: &mut World, limit: usize) -> (Vec<Event>, Death) {
    let events = tick_until(w, limit, |_, e| died(e).is_some());
    let death = died(&events).expect("someone died");
    (events, death)
}

/// Picks up every item of `items` one by one with `who` standing on their tile.
fn pick_all(w: &mut World, who: &str, items: &[GroundItemInfo]) -> Vec<Event> {
    let mut events = Vec::new();
    for g in items {
        events.extend(w.tick(vec![pickup(who, &g.id)]));
        events.extend(idle(w, 2));
    }
    events
}

#[test]
fn a_death_in_a_safe_area_leaves_a_gravestone_private_for_fifteen_minutes_then_public() {
    // The reaper (aggressive within 2 tiles, max hit 21) ignores heroes unless attacked.
    let mut w = world(&[mob("reaper", 5, 5)], 31);
    let reaper = npc_of(&w, "reaper").expect("reaper");
    let ada = Fighter::hero("ada", t(5, 6))
        .wear(EquipSlot::Weapon, "bronze_sword", 1)
        .wear(EquipSlot::Helmet, "bronze_helmet", 1)
        .hold(&[("coins", 100), ("shrimp", 1), ("shrimp", 1), ("bones", 1)]);
    w.tick(vec![ada.join(), Fighter::hero("bob", t(8, 8)).join()]);
    let before = carried(&w, "ada");
    assert_eq!(before.values().sum::<u64>(), 105);
    w.tick(vec![attack("ada", &reaper)]);
    let (events, (id, death_id, tile, items, pvp)) = until_death(&mut w, 200);
    let now = w.tick_number();
    assert_eq!(id, "ada");
    assert_eq!(death_id, format!("ada-{now}"));
    assert!(!pvp);
    // Every item here is worth 1: the three kept are the first three single items, 3 of the
    // coins (ties go to the earlier stack).
    let kept = Counts::from([("coins".to_owned(), 3)]);
    let mut lost = before.clone();
    *lost.get_mut("coins").unwrap() -= 3;
    let mut dropped = Counts::new();
    items.iter().for_each(|s| add(&mut dropped, s));
    assert_eq!(dropped, lost, "everything held and worn but the three kept");
    // Back at the spawn, whole, with the three kept; told so.
    assert_eq!(w.player_tile("ada"), Some(w.spawn_tile()));
    assert_eq!(w.player_health_of("ada"), Some((99, 99)));
    assert_eq!(carried(&w, "ada"), kept);
    assert!(!w.player_is_busy("ada"));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Inventory { to, slots } if to == "ada" && slots.len() == 1)));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Equipment { to, worn } if to == "ada" && worn.is_empty())));
    // The gravestone: every item at the death tile, ada's alone for 1,500 ticks.
    let grave = pile(&w, &death_id);
    let mut on_ground = Counts::new();
    grave.iter().for_each(|g| add(&mut on_ground, &g.stack));
    assert_eq!(on_ground, lost);
    for g in &grave {
        assert_eq!(g.tile, tile);
        assert_eq!(g.owner.as_deref(), Some("ada"));
        assert_eq!(g.public_at, now + GRAVESTONE_TICKS);
        assert_eq!(g.despawn_at, now + GRAVESTONE_TICKS + GROUND_LIFETIME_TICKS);
    }
    // The reaper forgot her: no blows after the death.
    assert!(crate::arena::hits(&idle(&mut w, 10)).is_empty());
    // Bob may not take it yet.
    w.tick(vec![walk("bob", tile)]);
    idle(&mut w, 10);
    let coins = grave
        .iter()
        .find(|g| g.stack.item_id == "coins")
        .expect("coins")
        .clone();
    let mut events = w.tick(vec![pickup("bob", &coins.id)]);
    events.extend(idle(&mut w, 2));
    assert_eq!(rejections(&events, "bob"), vec![codes::CANNOT_DO]);
    // Ada takes the coins back herself.
    w.tick(vec![walk("ada", tile)]);
    idle(&mut w, 10);
    let events = pick_all(&mut w, "ada", std::slice::from_ref(&coins));
    assert!(events.contains(&Event::DeathItemTaken {
        death_id: death_id.clone(),
        by: "ada".into(),
        stack: stack("coins", 97),
    }));
    // After 15 minutes Bob may take the rest.
    let wait = (now + GRAVESTONE_TICKS).saturating_sub(w.tick_number());
    idle(&mut w, wait as usize);
    let rest = pile(&w, &death_id);
    assert_eq!(rest.len(), grave.len() - 1);
    let helmet = rest
        .iter()
        .find(|g| g.stack.item_id == "bronze_helmet")
        .expect("helmet")
        .clone();
    let events = pick_all(&mut w, "bob", &[helmet]);
    assert!(events.contains(&Event::DeathItemTaken {
        death_id: death_id.clone(),
        by: "bob".into(),
        stack: stack("bronze_helmet", 1),
    }));
    // The rest vanishes 3 minutes after it became public, each pile reported.
    let events = idle(&mut w, GROUND_LIFETIME_TICKS as usize);
    let mut expired = Counts::new();
    for e in &events {
        if let Event::DeathItemExpired { death_id: d, stack } = e {
            assert_eq!(d, &death_id);
            add(&mut expired, stack);
        }
    }
    assert!(pile(&w, &death_id).is_empty());
    // Conservation: carried before = picked up + expired.
    let mut after = carried(&w, "ada");
    for (k, v) in carried(&w, "bob") {
        *after.entry(k).or_default() += v;
    }
    for (k, v) in expired {
        *after.entry(k).or_default() += v;
    }
    assert_eq!(after, before);
}

#[test]
fn a_death_outside_pvp_keeps_the_three_most_valuable_items_and_says_which() {
    let mut w = world(&[mob("reaper", 5, 5)], 33);
    let reaper = npc_of(&w, "reaper").expect("reaper");
    // Worth 1,500, 300 and 150 worn; 1 each held.
    let ada = Fighter::hero("ada", t(5, 6))
        .wear(EquipSlot::Weapon, "staff_of_air", 1)
        .wear(EquipSlot::Amulet, "holy_symbol", 1)
        .wear(EquipSlot::Helmet, "wizard_hat", 1)
        .hold(&[("coins", 50), ("bones", 1)]);
    w.tick(vec![ada.join()]);
    let before = carried(&w, "ada");
    w.tick(vec![attack("ada", &reaper)]);
    let events = tick_until(&mut w, 200, |_, e| died(e).is_some());
    let kept = events
        .iter()
        .find_map(|e| match e {
            Event::PlayerDied { kept, pvp, .. } => {
                assert!(!pvp);
                Some(kept.clone())
            }
            _ => None,
        })
        .expect("ada died");
    assert_eq!(
        kept,
        vec![
            stack("staff_of_air", 1),
            stack("wizard_hat", 1),
            stack("holy_symbol", 1)
        ],
        "the three worth most, in the order they were carried"
    );
    let (_, death_id, ..) = died(&events).unwrap();
    // The three are back in the inventory (not worn); the rest lies in the gravestone.
    let mut now_held = carried(&w, "ada");
    assert_eq!(
        now_held,
        Counts::from([
            ("holy_symbol".to_owned(), 1),
            ("staff_of_air".to_owned(), 1),
            ("wizard_hat".to_owned(), 1)
        ])
    );
    assert!(w.player_equipment("ada").unwrap().iter().next().is_none());
    for g in pile(&w, &death_id) {
        assert_eq!(g.owner.as_deref(), Some("ada"));
        add(&mut now_held, &g.stack);
    }
    assert_eq!(now_held, before, "every item exactly once");
    // The death screen's line.
    let told: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Chat { to, message } if to.iter().any(|t| t.as_ref() == "ada") => {
                Some(message.text.as_str())
            }
            _ => None,
        })
        .collect();
    assert!(
        told.contains(&"You keep a staff of air, a wizard hat and a holy symbol."),
        "{told:?}"
    );
}

#[test]
fn a_pvp_death_drops_for_the_killer_first_and_an_npc_kill_in_pvp_drops_for_everyone() {
    let mut w = world(&[], 32);
    let killer = Fighter::hero("ada", t(ARENA_X + 2, 5)).wear(EquipSlot::Weapon, "bronze_sword", 1);
    let victim = Fighter::new("cy", t(ARENA_X + 3, 5))
        .wear(EquipSlot::Helmet, "bronze_helmet", 1)
        .hold(&[("coins", 50)]);
    w.tick(vec![killer.join(), victim.join()]);
    w.tick(vec![attack("ada", "cy")]);
    let (events, (id, death_id, tile, items, pvp)) = until_death(&mut w, 200);
    let now = w.tick_number();
    assert_eq!(id, "cy");
    assert!(pvp);
    assert!(events.iter().any(|e| matches!(e, Event::CombatHit { hit, .. } if hit.target_id == "cy" && hit.target_health == 0)));
    // The 3 most valuable items are kept (every item here is worth 1: the first three, coins).
    assert_eq!(items, vec![stack("coins", 47), stack("bronze_helmet", 1)]);
    let drop = pile(&w, &death_id);
    assert_eq!(drop.len(), 2);
    for g in &drop {
        assert_eq!(g.tile, tile);
        assert_eq!(g.owner.as_deref(), Some("ada"), "the killer's first");
        assert_eq!(g.public_at, now + GROUND_PRIVATE_TICKS);
        assert_eq!(g.despawn_at, now + GROUND_LIFETIME_TICKS);
    }
    assert!(!w.player_is_busy("ada"), "the killer's attack ended");
    assert_eq!(w.player_tile("cy"), Some(w.spawn_tile()));

    // Killed by a mob in the arena: public at once.
    let mut w = world(&[mob("reaper", ARENA_X + 5, 5)], 33);
    let victim = Fighter::new("cy", t(ARENA_X + 5, 6)).hold(&[("coins", 7)]);
    w.tick(vec![victim.join()]);
    let (_, (_, death_id, _, items, pvp)) = until_death(&mut w, 200);
    let now = w.tick_number();
    assert!(pvp);
    assert_eq!(items, vec![stack("coins", 4)], "3 coins kept");
    let drop = pile(&w, &death_id);
    assert_eq!(drop.len(), 1);
    assert_eq!(drop[0].owner, None);
    assert_eq!(drop[0].public_at, now);
}

#[test]
fn a_second_death_drops_only_what_the_player_holds_then() {
    let mut w = world(&[mob("reaper", 8, 8)], 34);
    let victim = Fighter::new("cy", t(8, 9)).hold(&[("coins", 30), ("shrimp", 1)]);
    w.tick(vec![victim.join()]);
    let (_, (_, first, tile1, items1, _)) = until_death(&mut w, 200);
    // The 3 kept (all worth 1: the first three single items, coins) are back in hand.
    assert_eq!(items1, vec![stack("coins", 27), stack("shrimp", 1)]);
    // Given a little, back to the reaper, dead again.
    w.tick(vec![Command::Give {
        id: "cy".into(),
        item_id: "coins".into(),
        quantity: 4,
    }]);
    w.tick(vec![walk("cy", t(8, 10))]);
    let (_, (_, second, _, items2, _)) = until_death(&mut w, 200);
    assert_ne!(first, second);
    // 3 kept and 4 given make 7: 3 kept again, 4 fall.
    assert_eq!(items2, vec![stack("coins", 4)]);
    let first_pile = pile(&w, &first);
    let second_pile = pile(&w, &second);
    assert_eq!(first_pile.len(), 2);
    assert!(first_pile.iter().all(|g| g.tile == tile1));
    assert_eq!(second_pile.len(), 1);
    assert_eq!(second_pile[0].stack, stack("coins", 4));
    let total: u64 = w
        .ground_items()
        .iter()
        .filter(|g| g.stack.item_id == "coins")
        .map(|g| u64::from(g.stack.quantity))
        .sum();
    assert_eq!(total, 27 + 4, "nothing duplicated");
    assert_eq!(carried(&w, "cy"), Counts::from([("coins".to_owned(), 3)]));
}

#[test]
fn a_restored_death_pile_keeps_its_id_owner_and_timers() {
    let mut w = world(&[], 35);
    w.tick(vec![
        Fighter::new("ada", t(2, 2)).join(),
        Fighter::new("bob", t(3, 2)).join(),
    ]);
    let events = w.tick(vec![Command::RestoreDeathPile {
        death_id: "ada-77".into(),
        owner: "ada".into(),
        tile: t(4, 4),
        items: vec![
            stack("coins", 12),
            stack("bones", 2),
            stack("dragon_scimitar", 1),
        ],
        private_ticks: 50,
    }]);
    let now = w.tick_number();
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::DeathItemExpired { .. }))
            .collect::<Vec<_>>(),
        vec![&Event::DeathItemExpired {
            death_id: "ada-77".into(),
            stack: stack("dragon_scimitar", 1),
        }],
        "an item content no longer has is reported gone at once"
    );
    let restored = pile(&w, "ada-77");
    assert_eq!(restored.len(), 3, "coins as one stack, each bone apart");
    for g in &restored {
        assert_eq!(g.tile, t(4, 4));
        assert_eq!(g.owner.as_deref(), Some("ada"));
        assert_eq!(g.public_at, now + 50);
        assert_eq!(g.despawn_at, now + 50 + GROUND_LIFETIME_TICKS);
    }
    // Bob is refused, Ada takes a bone (reported), the rest expires (reported).
    let bone = restored
        .iter()
        .find(|g| g.stack.item_id == "bones")
        .expect("bone")
        .clone();
    let mut events = w.tick(vec![pickup("bob", &bone.id)]);
    events.extend(idle(&mut w, 3));
    assert_eq!(rejections(&events, "bob"), vec![codes::CANNOT_DO]);
    let events = pick_all(&mut w, "ada", &[bone]);
    assert!(events.contains(&Event::DeathItemTaken {
        death_id: "ada-77".into(),
        by: "ada".into(),
        stack: stack("bones", 1),
    }));
    let events = idle(&mut w, (50 + GROUND_LIFETIME_TICKS) as usize);
    let mut expired: Vec<Stack> = events
        .iter()
        .filter_map(|e| match e {
            Event::DeathItemExpired { stack, .. } => Some(stack.clone()),
            _ => None,
        })
        .collect();
    expired.sort_by(|a, b| a.item_id.cmp(&b.item_id));
    assert_eq!(expired, vec![stack("bones", 1), stack("coins", 12)]);
    assert!(pile(&w, "ada-77").is_empty());
}

#[test]
fn a_pile_restored_on_a_blocked_tile_lies_on_the_nearest_walkable_one_and_empty_stacks_are_skipped()
{
    let mut w = world(&[], 36);
    w.tick(vec![Command::RestoreDeathPile {
        death_id: "x-1".into(),
        owner: "x".into(),
        tile: t(-50, 3),
        items: vec![stack("coins", 0), stack("coins", 3)],
        private_ticks: u64::MAX,
    }]);
    let restored = pile(&w, "x-1");
    assert_eq!(restored.len(), 1);
    assert!(w.is_walkable(restored[0].tile));
    assert_eq!(restored[0].stack, stack("coins", 3));
    assert_eq!(
        restored[0].public_at,
        w.tick_number() + GRAVESTONE_TICKS,
        "private at most as long as a gravestone"
    );
}
