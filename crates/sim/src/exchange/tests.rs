//! The shared exchange, tested once for both kinds: asking and answering, offers held in escrow
//! (locked in the inventory, never moved before the commit), any change resetting both accepts,
//! two accepts on each screen, a commit that moves exactly what was put up, a cancel, a time-out
//! and a party leaving that leave both inventories as they were. Trade's and duel's own rules are
//! tested in `tests/sim/trade.rs` and `tests/sim/duel.rs`, through the same code.

use std::sync::Arc;

use wayfarer_content::{Content, ManifestSet};

use super::*;
use crate::commands::{Command, Joining};
use crate::duel::Duel;
use crate::trade::Trade;

/// Coins, a sword and an untradeable token, in one safe field `x, z 0..=40`.
fn content() -> Arc<Content> {
    let item = |id: &str, value: u64, extra: serde_json::Value| {
        let mut item = serde_json::json!({"id": id, "name": id, "type": "misc", "value": value});
        item.as_object_mut()
            .expect("an object")
            .extend(extra.as_object().cloned().unwrap_or_default());
        item
    };
    let items = serde_json::json!([
        item("coins", 1, serde_json::json!({"stackable": true})),
        item("sword", 100, serde_json::Value::Null),
        item("token", 0, serde_json::json!({"tradeable": false})),
    ]);
    let field = serde_json::json!({"starterTowns": {"field": {
        "id": "field", "name": "Field", "safeZone": true,
        "bounds": {"minX": 0, "maxX": 40, "minZ": 0, "maxZ": 40},
        "spawnPoint": {"x": 0, "y": 0, "z": 0}, "resources": [], "npcs": [], "mobSpawns": []
    }}});
    let mut set = ManifestSet::new();
    set.insert("items/misc.json", items.to_string());
    set.insert("world-areas.json", field.to_string());
    let (content, _) =
        Content::from_files(&set).unwrap_or_else(|report| panic!("invalid fixture:\n{report}"));
    Arc::new(content)
}

/// `a` at (5,5) with 100 coins (slot 0), a sword (slot 1) and a token (slot 2); `b` beside it
/// with 50 coins (slot 0); `c` far away with nothing.
fn world() -> World {
    let mut world = World::new(content(), 5);
    let mut inv_a = Inventory::new();
    inv_a.add("coins", 100, true).expect("room");
    inv_a.add("sword", 1, false).expect("room");
    inv_a.add("token", 1, false).expect("room");
    let mut inv_b = Inventory::new();
    inv_b.add("coins", 50, true).expect("room");
    let joining = |id: &str, x: i32, inventory: Inventory| {
        Command::Join(Box::new(Joining {
            inventory,
            ..Joining::new(id, id.to_uppercase(), TilePos { x, z: 5 })
        }))
    };
    world.tick(vec![
        joining("a", 5, inv_a),
        joining("b", 6, inv_b),
        joining("c", 30, Inventory::new()),
    ]);
    world
}

/// The notices `to` got.
fn notices<'a>(events: &'a [Event], to: &str) -> Vec<&'a Notice> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Exchange {
                to: t, notice: n, ..
            } if t == to => Some(n),
            _ => None,
        })
        .collect()
}

fn refusals(events: &[Event], to: &str) -> Vec<&'static str> {
    notices(events, to)
        .into_iter()
        .filter_map(|n| match n {
            Notice::Refused { code, .. } => Some(*code),
            _ => None,
        })
        .collect()
}

fn refusal_texts(events: &[Event], to: &str) -> Vec<String> {
    notices(events, to)
        .into_iter()
        .filter_map(|n| match n {
            Notice::Refused { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn endings(events: &[Event], to: &str) -> Vec<(Ending, Option<String>)> {
    notices(events, to)
        .into_iter()
        .filter_map(|n| match n {
            Notice::Cancelled { reason, by } => Some((*reason, by.clone())),
            _ => None,
        })
        .collect()
}

/// `a` asks `b`, `b` accepts: the exchange's id.
fn opened<K: Kind>(world: &mut World) -> String {
    let mut events = Vec::new();
    world.ask::<K>("a", "b", Some(1), &mut events);
    let id = events
        .iter()
        .find_map(|e| match e {
            Event::Exchange {
                to,
                kind,
                id,
                notice: Notice::Asked { from, from_name },
            } if to == "b" => {
                assert_eq!(
                    (*kind, from.as_str(), from_name.as_str()),
                    (K::KIND, "a", "A")
                );
                id.clone()
            }
            _ => None,
        })
        .expect("b was asked");
    assert!(id.starts_with(K::PREFIX), "{id}");
    world.answer::<K>(Said::new("b", &id, Some(2)), true, &mut Vec::new());
    assert_eq!(K::book(world).by_id[&id].stage, Stage::Screen1);
    id
}

fn stage<K: Kind>(world: &World, id: &str) -> Option<Stage> {
    K::book(world).by_id.get(id).map(|e| e.stage)
}

fn inventory(world: &World, id: &str) -> Inventory {
    world.player_inventory(id).expect("online").clone()
}

/// Both accept the screen shown, `a` first.
fn both_accept<K: Kind>(world: &mut World, id: &str) -> Vec<Event> {
    let mut events = Vec::new();
    world.accept_screen::<K>(Said::new("a", id, None), &mut events);
    world.accept_screen::<K>(Said::new("b", id, None), &mut events);
    events
}

#[test]
fn an_ask_answered_opens_the_screens_and_makes_both_busy() {
    fn check<K: Kind>() {
        let mut world = world();
        let id = opened::<K>(&mut world);
        assert_eq!(K::book(&world).active.len(), 2);
        assert!(world.exchanging("a") && world.exchanging("b"));
        // Busy players cannot be asked into the other kind of exchange either.
        let mut events = Vec::new();
        world.ask::<Trade>("c", "a", None, &mut events);
        world.ask::<Duel>("c", "b", None, &mut events);
        assert_eq!(refusals(&events, "c"), ["player_busy", "player_busy"]);
        // Only the asked may answer, and only once.
        let mut events = Vec::new();
        world.answer::<K>(Said::new("a", &id, None), true, &mut events);
        assert_eq!(refusals(&events, "a"), ["not_on_screen"]);
    }
    check::<Trade>();
    check::<Duel>();
}

#[test]
fn what_is_put_up_stays_in_the_inventory_until_the_commit() {
    fn check<K: Kind>() {
        let mut world = world();
        let before = inventory(&world, "a");
        let id = opened::<K>(&mut world);
        let mut events = Vec::new();
        world.put_up::<K>(Said::new("a", &id, None), 0, Some(60), &mut events);
        world.put_up::<K>(Said::new("a", &id, None), 1, None, &mut events);
        world.put_up::<K>(Said::new("a", &id, None), 2, None, &mut events);
        assert_eq!(refusals(&events, "a"), ["untradeable_item"]);
        let exchange = &K::book(&world).by_id[&id];
        assert!(exchange.offers[0].holds_slot(0) && exchange.offers[0].holds_slot(1));
        assert_eq!(inventory(&world, "a"), before, "escrow moves nothing");
        // Both see it, each from their side.
        let Some(Notice::Screen(seen)) = notices(&events, "b").pop() else {
            panic!("b saw no screen: {events:?}");
        };
        assert_eq!((seen.number, seen.partner.as_str()), (1, "a"));
        assert!(seen.mine.items.is_empty());
        let theirs: Vec<_> = seen
            .theirs
            .items
            .iter()
            .map(|o| (o.slot, o.item_id.as_str(), o.quantity))
            .collect();
        assert_eq!(theirs, [(0, "coins", 60), (1, "sword", 1)]);
    }
    check::<Trade>();
    check::<Duel>();
}

#[test]
fn any_change_resets_both_accepts_and_returns_to_screen_one() {
    fn check<K: Kind>() {
        let mut world = world();
        let id = opened::<K>(&mut world);
        world.put_up::<K>(Said::new("a", &id, None), 1, None, &mut Vec::new());
        both_accept::<K>(&mut world, &id);
        assert_eq!(stage::<K>(&world, &id), Some(Stage::Screen2));
        world.accept_screen::<K>(Said::new("a", &id, None), &mut Vec::new());
        let mut events = Vec::new();
        world.put_up::<K>(Said::new("b", &id, None), 0, Some(5), &mut events);
        let exchange = &K::book(&world).by_id[&id];
        assert_eq!(
            (exchange.stage, exchange.accepted),
            (Stage::Screen1, [false; 2])
        );
        for p in ["a", "b"] {
            assert!(matches!(notices(&events, p).as_slice(),
                [Notice::Screen(s)] if s.number == 1 && !s.mine.accepted && !s.theirs.accepted));
        }
        // Taking back what was never put up changes nothing.
        let mut events = Vec::new();
        world.take_back::<K>(Said::new("b", &id, None), 7, &mut events);
        assert_eq!(refusals(&events, "b"), ["invalid_slot"]);
        // An entry whose slot changed behind the screens follows the inventory: a change too.
        both_accept::<K>(&mut world, &id);
        let index = world.player_index["b"];
        world.players[index].inventory = Inventory::new();
        let mut events = Vec::new();
        world.accept_screen::<K>(Said::new("a", &id, None), &mut events);
        assert_eq!(stage::<K>(&world, &id), Some(Stage::Screen1));
        assert!(K::book(&world).by_id[&id].offers[1].iter().next().is_none());
    }
    check::<Trade>();
    check::<Duel>();
}

#[test]
fn a_cancel_a_time_out_or_a_party_leaving_returns_everything() {
    fn check<K: Kind>() {
        // Cancel on Screen 2.
        let mut world = world();
        let (a, b) = (inventory(&world, "a"), inventory(&world, "b"));
        let id = opened::<K>(&mut world);
        world.put_up::<K>(Said::new("a", &id, None), 0, None, &mut Vec::new());
        world.put_up::<K>(Said::new("b", &id, None), 0, None, &mut Vec::new());
        both_accept::<K>(&mut world, &id);
        let mut events = Vec::new();
        world.cancel_exchange::<K>(Said::new("b", &id, None), &mut events);
        for p in ["a", "b"] {
            assert_eq!(endings(&events, p), [(Ending::Cancelled, Some("b".into()))]);
        }
        assert_eq!(
            (inventory(&world, "a"), inventory(&world, "b")),
            (a.clone(), b.clone())
        );
        assert!(!world.exchanging("a") && K::book(&world).by_id.is_empty());
        // The screens' time-out, told to both; an unanswered ask's, told to the asker only.
        // (Opened between ticks, the clock starts at the next tick: one tick more.)
        let id = opened::<K>(&mut world);
        world.put_up::<K>(Said::new("a", &id, None), 1, None, &mut Vec::new());
        let events: Vec<Event> = (0..=K::SCREEN_TIMEOUT_TICKS)
            .flat_map(|_| world.tick(Vec::new()))
            .collect();
        for p in ["a", "b"] {
            assert_eq!(endings(&events, p), [(Ending::Timeout, None)]);
        }
        world.ask::<K>("a", "b", None, &mut Vec::new());
        let events: Vec<Event> = (0..=K::ASK_TIMEOUT_TICKS)
            .flat_map(|_| world.tick(Vec::new()))
            .collect();
        assert_eq!(endings(&events, "a"), [(Ending::Timeout, None)]);
        assert!(endings(&events, "b").is_empty());
        // The asked player answering it late is told it expired, not that there is none.
        let stale = events
            .iter()
            .find_map(|e| match e {
                Event::Exchange { to, id, .. } if to == "a" => id.clone(),
                _ => None,
            })
            .expect("the ask's id");
        let mut late = Vec::new();
        world.answer::<K>(Said::new("b", &stale, Some(9)), true, &mut late);
        let said = refusal_texts(&late, "b");
        assert_eq!(said, [K::words(Word::Expired)], "{late:?}");
        assert!(said[0].ends_with("expired"));
        let mut other = Vec::new();
        world.answer::<K>(Said::new("b", "nope", Some(9)), true, &mut other);
        assert_eq!(
            refusal_texts(&other, "b"),
            [format!("no such {} of yours", K::NOUN)]
        );
        // A party leaving: the other is told, nothing moved.
        let id = opened::<K>(&mut world);
        world.put_up::<K>(Said::new("b", &id, None), 0, None, &mut Vec::new());
        let mut events = Vec::new();
        world.exchange_party_left::<K>("a", &mut events);
        assert_eq!(endings(&events, "b"), [(Ending::Disconnected, None)]);
        assert!(endings(&events, "a").is_empty());
        assert_eq!((inventory(&world, "a"), inventory(&world, "b")), (a, b));
        assert!(!world.exchanging("b"));
    }
    check::<Trade>();
    check::<Duel>();
}

/// Puts up 60 of a's coins and b's 50, and takes the exchange through both screens to its commit
/// (a duel's fight lost by `b`): the commit's plan.
fn committing<K: Kind>(world: &mut World, settle: fn(&mut World, &str)) -> String {
    let id = opened::<K>(world);
    world.put_up::<K>(Said::new("a", &id, None), 0, Some(60), &mut Vec::new());
    world.put_up::<K>(Said::new("b", &id, None), 0, None, &mut Vec::new());
    both_accept::<K>(world, &id);
    both_accept::<K>(world, &id);
    settle(world, &id);
    assert_eq!(stage::<K>(world, &id), Some(Stage::Committing));
    id
}

fn coins(world: &World) -> [u64; 2] {
    ["a", "b"].map(|p| inventory(world, p).count("coins"))
}

#[test]
fn a_commit_moves_exactly_what_was_put_up_and_only_once_written() {
    fn check<K: Kind>(settle: fn(&mut World, &str), moved: [u64; 2]) {
        let mut world = world();
        let id = committing::<K>(&mut world, settle);
        // Nothing moves, nothing cancels, while the transaction is out.
        assert_eq!(coins(&world), [100, 50]);
        let mut events = Vec::new();
        world.cancel_exchange::<K>(Said::new("a", &id, None), &mut events);
        assert_eq!(refusals(&events, "a"), ["not_on_screen"]);
        // A failed write: nothing moved, both told.
        let mut failed = world_with_commit::<K>(settle);
        let mut events = Vec::new();
        failed
            .0
            .exchange_committed::<K>(&failed.1, false, &mut events);
        assert_eq!(coins(&failed.0), [100, 50]);
        for p in ["a", "b"] {
            assert_eq!(endings(&events, p), [(Ending::ServerError, None)]);
        }
        // Written: exactly the plan, the total kept, and a late repeat does nothing.
        let mut events = Vec::new();
        world.exchange_committed::<K>(&id, true, &mut events);
        assert_eq!(coins(&world), moved);
        assert_eq!(coins(&world).iter().sum::<u64>(), 150);
        assert!(!world.exchanging("a") && !world.exchanging("b"));
        let mut events = Vec::new();
        world.exchange_committed::<K>(&id, true, &mut events);
        assert!(events.is_empty());
        assert_eq!(coins(&world), moved);
    }
    fn world_with_commit<K: Kind>(settle: fn(&mut World, &str)) -> (World, String) {
        let mut world = world();
        let id = committing::<K>(&mut world, settle);
        (world, id)
    }
    // A trade commits as both accept Screen 2: a gives 60, b gives 50.
    check::<Trade>(|_, _| {}, [90, 60]);
    // A duel fights first; b loses and a wins b's 50.
    check::<Duel>(
        |world, id| {
            assert_eq!(stage::<Duel>(world, id), Some(Stage::Underway));
            world.fight_lost(id, "b", &mut Vec::new());
        },
        [150, 0],
    );
}
