//! What others see a player wear (`worn` on the player's entity and in `changed`): told to those
//! in view when it changes (equip, unequip, death), shown to newcomers in `added`, and not told
//! when nothing visible changed (an arrow fired).

use std::sync::Arc;

use wayfarer_content::{EquipSlot, Skill};
use wayfarer_protocol::ws::Worn;
use wayfarer_sim::{Action, Event, World};

use crate::arena::{act, attack, mob, npc_of, tick_until, world, Fighter};
use crate::{t, views};

/// Each `worn` told to `viewer` about `id` in `events`, in order.
fn worn_told(events: &[Event], viewer: &str, id: &str) -> Vec<Arc<Worn>> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::View { to, update } if &**to == viewer => Some(update),
            _ => None,
        })
        .flat_map(|u| u.changed.iter())
        .filter(|c| c.id == id)
        .filter_map(|c| c.worn.clone())
        .collect()
}

fn worn(pairs: &[(&str, &str)]) -> Worn {
    pairs
        .iter()
        .map(|(s, i)| ((*s).to_owned(), (*i).to_owned()))
        .collect()
}

/// The slot of `item` in `id`'s inventory.
fn slot_of(w: &World, id: &str, item: &str) -> usize {
    w.player_inventory(id)
        .and_then(|inv| {
            inv.stacks()
                .find(|(_, s)| s.item_id == item)
                .map(|(n, _)| n)
        })
        .expect("held")
}

#[test]
fn others_see_a_sword_wielded_and_put_away_and_newcomers_see_it_at_once() {
    let mut w = world(&[], 41);
    let ada = Fighter::new("ada", t(3, 3)).hold(&[("bronze_sword", 1)]);
    let bob = Fighter::new("bob", t(5, 5));
    w.tick(vec![ada.join(), bob.join()]);
    let ada_entity = |w: &World| w.entity("ada").expect("ada in the world");
    assert_eq!(ada_entity(&w).worn, None, "nothing worn, nothing said");

    let slot = slot_of(&w, "ada", "bronze_sword");
    let events = w.tick(vec![act("ada", Action::Equip { slot })]);
    let sword = worn(&[("weapon", "bronze_sword")]);
    assert_eq!(worn_told(&events, "bob", "ada"), [Arc::new(sword.clone())]);
    assert_eq!(
        worn_told(&events, "ada", "ada"),
        [Arc::new(sword.clone())],
        "and to the player themselves"
    );
    // One map for the tick, shared by every viewer's update and the entity.
    let to_bob = &worn_told(&events, "bob", "ada")[0];
    assert!(Arc::ptr_eq(to_bob, &worn_told(&events, "ada", "ada")[0]));
    assert!(Arc::ptr_eq(
        to_bob,
        ada_entity(&w).worn.as_ref().expect("worn")
    ));

    // A newcomer's first view shows the sword on ada.
    let events = w.tick(vec![Fighter::new("cy", t(6, 6)).join()]);
    let added = views(&events)
        .remove("cy")
        .expect("cy's first view")
        .added
        .into_iter()
        .find(|e| e.id == "ada")
        .expect("ada among cy's added");
    assert_eq!(added.worn.as_deref(), Some(&sword));

    // Put away: an empty map tells those looking; the entity says nothing again.
    let events = w.tick(vec![act(
        "ada",
        Action::Unequip {
            slot: EquipSlot::Weapon,
        },
    )]);
    for viewer in ["bob", "cy", "ada"] {
        assert_eq!(
            worn_told(&events, viewer, "ada"),
            [Arc::new(Worn::new())],
            "{viewer}"
        );
    }
    assert_eq!(ada_entity(&w).worn, None);
    let events = w.tick(vec![]);
    assert!(worn_told(&events, "bob", "ada").is_empty(), "told once");
}

#[test]
fn a_death_takes_the_worn_items_off_the_figure() {
    // The reaper (aggressive within 2 tiles, max hit 21) kills a level-1 player.
    let mut w = world(&[mob("reaper", 5, 5)], 42);
    let reaper = npc_of(&w, "reaper").expect("reaper");
    let ada = Fighter::new("ada", t(5, 6))
        .wear(EquipSlot::Weapon, "bronze_sword", 1)
        .wear(EquipSlot::Helmet, "bronze_helmet", 1)
        .level(Skill::Constitution, 10);
    // bob watches from between the fight and the spawn, within view of both.
    w.tick(vec![ada.join(), Fighter::new("bob", t(2, 2)).join()]);
    w.tick(vec![attack("ada", &reaper)]);
    let events = tick_until(&mut w, 200, |_, e| {
        e.iter().any(|e| matches!(e, Event::PlayerDied { .. }))
    });
    let told = worn_told(&events, "bob", "ada");
    assert_eq!(told, [Arc::new(Worn::new())], "told once, at the death");
}

#[test]
fn an_arrow_fired_changes_nothing_anyone_sees() {
    let mut w = world(&[mob("dummy", 8, 3)], 43);
    let dummy = npc_of(&w, "dummy").expect("dummy");
    let ada = Fighter::new("ada", t(3, 3))
        .wear(EquipSlot::TwoHanded, "shortbow", 1)
        .wear(EquipSlot::Arrows, "bronze_arrow", 50);
    let events = w.tick(vec![ada.join(), Fighter::new("bob", t(4, 4)).join()]);
    let seen = views(&events)
        .remove("bob")
        .expect("bob's first view")
        .added
        .into_iter()
        .find(|e| e.id == "ada")
        .expect("ada in bob's view");
    // The bow is the weapon; arrows are not seen.
    assert_eq!(seen.worn.as_deref(), Some(&worn(&[("weapon", "shortbow")])));
    w.tick(vec![attack("ada", &dummy)]);
    let events = tick_until(&mut w, 20, |w, _| {
        w.player_equipment("ada")
            .and_then(|e| e.get(EquipSlot::Arrows).map(|s| s.quantity))
            .is_some_and(|n| n <= 48)
    });
    assert!(
        events.iter().any(|e| matches!(e, Event::Equipment { .. })),
        "arrows were fired"
    );
    assert!(worn_told(&events, "bob", "ada").is_empty());
}
