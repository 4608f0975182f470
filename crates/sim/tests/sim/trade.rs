//! Trading (CONTRACT.md section 5): every state and ending of the state machine, the two-phase
//! completion, refusals while trading, and item conservation.

use std::sync::Arc;

use wayfarer_content::{Content, ManifestSet};
use wayfarer_protocol::ws::codes as ws_codes;
use wayfarer_sim::exchange::{Ending, ExchangeKind, Notice, Side};
use wayfarer_sim::inventory::Inventory;
use wayfarer_sim::{
    Action, Command, Event, Joining, TradeCommand, TradeCommit, World, INACTIVITY_TIMEOUT_TICKS,
    REQUEST_TIMEOUT_TICKS,
};

use crate::t;

fn content() -> Arc<Content> {
    let mut set = ManifestSet::new();
    set.insert(
        "items/misc.json",
        r#"[{"id": "coins", "name": "Coins", "type": "currency", "value": 1, "stackable": true},
            {"id": "sword", "name": "Sword", "type": "weapon", "value": 100},
            {"id": "log", "name": "Log", "type": "resource", "value": 4},
            {"id": "token", "name": "Token", "type": "misc", "value": 0, "tradeable": false}]"#,
    );
    set.insert(
        "world-areas.json",
        r#"{"starterTowns": {"field": {"id": "field", "name": "Field",
            "bounds": {"minX": 0, "maxX": 40, "minZ": 0, "maxZ": 40}, "safeZone": true,
            "spawnPoint": {"x": 0, "y": 0, "z": 0}, "resources": [], "npcs": [], "mobSpawns": []}}}"#,
    );
    match Content::from_files(&set) {
        Ok((content, _)) => Arc::new(content),
        Err(report) => panic!("fixture content is invalid:\n{report}"),
    }
}

/// A world with `a` at (5,5) holding 100 coins and 2 swords, `b` at (6,5) with 50 coins and a
/// log, `c` at (20,20) with nothing.
fn world() -> World {
    let mut world = World::new(content(), 3);
    let mut inv_a = Inventory::new();
    inv_a.add("coins", 100, true).unwrap();
    inv_a.add("sword", 2, false).unwrap();
    inv_a.add("token", 1, false).unwrap();
    let mut inv_b = Inventory::new();
    inv_b.add("coins", 50, true).unwrap();
    inv_b.add("log", 1, false).unwrap();
    let joining = |id: &str, tile, inventory| {
        Command::Join(Box::new(Joining {
            inventory,
            ..Joining::new(id, id.to_uppercase(), tile)
        }))
    };
    world.tick(vec![
        joining("a", t(5, 5), inv_a),
        joining("b", t(6, 5), inv_b),
        joining("c", t(20, 20), Inventory::new()),
    ]);
    world
}

fn cmd(id: &str, command: TradeCommand) -> Command {
    Command::Trade {
        id: id.into(),
        command,
        reference: Some(9),
    }
}

fn request(id: &str, target: &str) -> Command {
    cmd(
        id,
        TradeCommand::Request {
            target: target.into(),
        },
    )
}

fn respond(id: &str, trade: &str, accept: bool) -> Command {
    cmd(
        id,
        TradeCommand::Respond {
            trade_id: trade.into(),
            accept,
        },
    )
}

fn add(id: &str, trade: &str, slot: i64, quantity: Option<i64>) -> Command {
    cmd(
        id,
        TradeCommand::AddItem {
            trade_id: trade.into(),
            slot,
            quantity,
        },
    )
}

fn accept(id: &str, trade: &str) -> Command {
    cmd(
        id,
        TradeCommand::Accept {
            trade_id: trade.into(),
        },
    )
}

fn cancel(id: &str, trade: &str) -> Command {
    cmd(
        id,
        TradeCommand::Cancel {
            trade_id: trade.into(),
        },
    )
}

/// Every trade notice for `to`.
fn messages(events: &[Event], to: &str) -> Vec<Notice> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Exchange {
                to: t,
                kind: ExchangeKind::Trade,
                notice,
                ..
            } if t == to => Some(notice.clone()),
            _ => None,
        })
        .collect()
}

/// The trade id of the first trade notice for `to`.
fn trade_id(events: &[Event], to: &str) -> String {
    events
        .iter()
        .find_map(|e| match e {
            Event::Exchange {
                to: t,
                kind: ExchangeKind::Trade,
                id,
                ..
            } if t == to => id.clone(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no trade notice with an id for {to}: {events:?}"))
}

fn error_codes(events: &[Event], to: &str) -> Vec<String> {
    messages(events, to)
        .into_iter()
        .filter_map(|m| match m {
            Notice::Refused { code, .. } => Some(code.to_owned()),
            _ => None,
        })
        .collect()
}

fn cancels(events: &[Event], to: &str) -> Vec<(Ending, Option<String>)> {
    messages(events, to)
        .into_iter()
        .filter_map(|m| match m {
            Notice::Cancelled { reason, by } => Some((reason, by)),
            _ => None,
        })
        .collect()
}

fn commit_of(events: &[Event]) -> Option<TradeCommit> {
    events.iter().find_map(|e| match e {
        Event::TradeCommit(c) => Some((**c).clone()),
        _ => None,
    })
}

/// Requests and accepts; returns the trade id.
fn started(world: &mut World) -> String {
    let events = world.tick(vec![request("a", "b")]);
    match messages(&events, "b").as_slice() {
        [Notice::Asked { from, from_name }] => {
            assert_eq!(from, "a");
            assert_eq!(from_name, "A");
        }
        other => panic!("expected tradeIncoming, got {other:?}"),
    }
    let id = trade_id(&events, "b");
    let events = world.tick(vec![respond("b", &id, true)]);
    for (me, partner) in [("a", "b"), ("b", "a")] {
        match messages(&events, me).as_slice() {
            [Notice::Opened { partner: p, .. }] => {
                assert_eq!(trade_id(&events, me), id);
                assert_eq!(p, partner);
            }
            other => panic!("expected tradeStarted for {me}, got {other:?}"),
        }
    }
    assert!(world.in_trade("a") && world.in_trade("b"));
    id
}

fn total(world: &World, item: &str) -> u64 {
    ["a", "b", "c"]
        .iter()
        .map(|p| world.player_inventory(p).map_or(0, |i| i.count(item)))
        .sum()
}

#[test]
fn a_whole_trade_commits_only_when_the_database_says_so() {
    let mut world = world();
    let id = started(&mut world);
    // a offers 60 coins (slot 0) and a sword (slot 1); b offers its log (slot 1).
    let events = world.tick(vec![
        add("a", &id, 0, Some(60)),
        add("a", &id, 1, None),
        add("b", &id, 1, None),
    ]);
    let last = messages(&events, "b").pop();
    match last {
        Some(Notice::Screen(u)) if u.number == 1 => {
            assert_eq!(u.mine.items.len(), 1);
            assert_eq!(u.theirs.items.len(), 2);
            assert_eq!(u.theirs.items[0].quantity, 60);
            assert_eq!(u.theirs.items[0].item_id, "coins");
        }
        other => panic!("expected tradeUpdated, got {other:?}"),
    }
    let events = world.tick(vec![accept("a", &id)]);
    match messages(&events, "b").as_slice() {
        [Notice::Screen(u)] if u.number == 1 => {
            assert!(u.theirs.accepted && !u.mine.accepted)
        }
        other => panic!("{other:?}"),
    }
    let events = world.tick(vec![accept("b", &id)]);
    match messages(&events, "a").as_slice() {
        [Notice::Screen(c)] if c.number == 2 => {
            // What the sides are worth (160 and 4) is the wire's: world_thread/messages.rs.
            let mine: Vec<_> = c
                .mine
                .items
                .iter()
                .map(|o| (o.item_id.as_str(), o.quantity))
                .collect();
            assert_eq!(mine, [("coins", 60), ("sword", 1)]);
            assert_eq!(c.theirs.items[0].item_id, "log");
            assert!(!c.mine.accepted && !c.theirs.accepted);
        }
        other => panic!("expected tradeConfirmScreen, got {other:?}"),
    }
    world.tick(vec![accept("a", &id)]);
    let events = world.tick(vec![accept("b", &id)]);
    let commit = commit_of(&events).expect("a commit");
    assert_eq!(commit.players, ["a".to_string(), "b".to_string()]);
    assert_eq!(commit.after[1].count("coins"), 110);
    assert_eq!(commit.after[0].count("log"), 1);
    // Nothing moved yet; the trade cannot be cancelled or changed while committing.
    assert_eq!(world.player_inventory("a").unwrap().count("coins"), 100);
    let events = world.tick(vec![cancel("a", &id), add("b", &id, 0, None), walk("a")]);
    assert_eq!(error_codes(&events, "a"), vec!["not_on_screen"]);
    assert_eq!(error_codes(&events, "b"), vec!["not_on_screen"]);
    assert!(rejected(&events, "a", "in_trade"));
    assert!(world.trade_committing("a"));
    // Many ticks later it is still waiting (no timeout while committing).
    crate::idle(&mut world, INACTIVITY_TIMEOUT_TICKS as usize + 5);
    assert!(world.trade_committing("b"));
    let events = world.tick(vec![Command::TradeCommitted {
        trade_id: id.clone(),
        ok: true,
    }]);
    for (who, item, n) in [("a", "log", 1), ("b", "coins", 60)] {
        match messages(&events, who).as_slice() {
            [Notice::Traded { received }] => {
                assert!(received
                    .iter()
                    .any(|r| r.item_id == item && r.quantity == n));
            }
            other => panic!("expected tradeCompleted for {who}, got {other:?}"),
        }
    }
    assert_eq!(world.player_inventory("a").unwrap(), &commit.after[0]);
    assert_eq!(world.player_inventory("b").unwrap(), &commit.after[1]);
    // Stackables merged into b's existing stack.
    let b = world.player_inventory("b").unwrap();
    assert_eq!(b.stacks().filter(|(_, s)| s.item_id == "coins").count(), 1);
    assert_eq!(b.count("coins"), 110);
    assert_eq!(total(&world, "coins"), 150);
    assert_eq!(total(&world, "sword"), 2);
    assert!(!world.in_trade("a") && !world.in_trade("b"));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Inventory { to, .. } if to == "a")));
}

fn walk(id: &str) -> Command {
    Command::Move {
        id: id.into(),
        x: 10,
        z: 10,
        run: false,
        reference: Some(1),
    }
}

fn rejected(events: &[Event], to: &str, code: &str) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::Rejected { to: t, code: c, .. } if t == to && *c == code))
}

fn to_screen_two_and_commit(world: &mut World, id: &str) -> Vec<Event> {
    world.tick(vec![accept("a", id), accept("b", id)]);
    world.tick(vec![accept("a", id), accept("b", id)])
}

#[test]
fn a_failed_transaction_changes_nothing_and_cancels_with_server_error() {
    let mut world = world();
    let id = started(&mut world);
    world.tick(vec![add("a", &id, 0, None)]);
    let before_a = world.player_inventory("a").unwrap().clone();
    let before_b = world.player_inventory("b").unwrap().clone();
    let events = to_screen_two_and_commit(&mut world, &id);
    assert!(commit_of(&events).is_some());
    let events = world.tick(vec![Command::TradeCommitted {
        trade_id: id.clone(),
        ok: false,
    }]);
    for p in ["a", "b"] {
        assert_eq!(cancels(&events, p), vec![(Ending::ServerError, None)]);
    }
    assert_eq!(world.player_inventory("a").unwrap(), &before_a);
    assert_eq!(world.player_inventory("b").unwrap(), &before_b);
    assert!(!world.in_trade("a"));
    // A late or repeated answer does nothing.
    let events = world.tick(vec![Command::TradeCommitted {
        trade_id: id,
        ok: true,
    }]);
    assert!(messages(&events, "a").is_empty());
    assert_eq!(world.player_inventory("a").unwrap(), &before_a);
}

#[test]
fn requests_are_refused_with_the_right_codes() {
    let mut world = world();
    let events = world.tick(vec![
        request("a", "a"),
        request("a", "nobody"),
        request("a", "c"),
    ]);
    assert_eq!(
        error_codes(&events, "a"),
        vec!["self_trade", "player_offline", "too_far"]
    );
    let id = started(&mut world);
    world.tick(vec![Command::Teleport {
        id: "c".into(),
        tile: t(5, 6),
    }]);
    let events = world.tick(vec![request("c", "a"), request("a", "c")]);
    assert_eq!(error_codes(&events, "c"), vec!["player_busy"]);
    assert_eq!(error_codes(&events, "a"), vec!["player_busy"]);
    // Messages about a trade one is not in.
    let events = world.tick(vec![accept("c", &id), cancel("c", "trade-999")]);
    assert_eq!(
        error_codes(&events, "c"),
        vec!["invalid_trade", "invalid_trade"]
    );
}

#[test]
fn a_decline_tells_the_requester_and_a_counter_request_accepts() {
    let mut world = world();
    let events = world.tick(vec![request("a", "b")]);
    let id = match messages(&events, "b").as_slice() {
        [Notice::Asked { .. }] => trade_id(&events, "b"),
        other => panic!("{other:?}"),
    };
    // The requester cannot answer its own request.
    let events = world.tick(vec![respond("a", &id, true)]);
    assert_eq!(error_codes(&events, "a"), vec!["not_on_screen"]);
    let events = world.tick(vec![respond("b", &id, false)]);
    assert_eq!(cancels(&events, "a"), vec![(Ending::Declined, None)]);
    assert!(cancels(&events, "b").is_empty());
    assert_eq!(world.open_trades(), 0);
    // b asks a; a asking b back starts the trade.
    world.tick(vec![request("b", "a")]);
    let events = world.tick(vec![request("a", "b")]);
    assert!(matches!(
        messages(&events, "a").as_slice(),
        [Notice::Opened { .. }]
    ));
    assert!(world.in_trade("a") && world.in_trade("b"));
    assert_eq!(world.open_trades(), 1);
}

#[test]
fn a_new_request_replaces_the_old_and_requests_expire() {
    let mut world = world();
    world.tick(vec![Command::Teleport {
        id: "c".into(),
        tile: t(4, 5),
    }]);
    let first = world.tick(vec![request("a", "b")]);
    let first_id = match messages(&first, "b").as_slice() {
        [Notice::Asked { .. }] => trade_id(&first, "b"),
        other => panic!("{other:?}"),
    };
    world.tick(vec![request("a", "c")]);
    assert_eq!(world.open_trades(), 1);
    let events = world.tick(vec![respond("b", &first_id, true)]);
    assert_eq!(error_codes(&events, "b"), vec!["invalid_trade"]);
    let events = crate::idle(&mut world, REQUEST_TIMEOUT_TICKS as usize);
    assert_eq!(cancels(&events, "a"), vec![(Ending::Timeout, None)]);
    assert!(cancels(&events, "c").is_empty());
    assert_eq!(world.open_trades(), 0);
}

#[test]
fn cancel_from_every_state_tells_each_participant_once() {
    // Requested.
    let mut world = world();
    let events = world.tick(vec![request("a", "b")]);
    let id = match messages(&events, "b").as_slice() {
        [Notice::Asked { .. }] => trade_id(&events, "b"),
        other => panic!("{other:?}"),
    };
    let events = world.tick(vec![cancel("b", &id), cancel("a", &id)]);
    let by_b = vec![(Ending::Cancelled, Some("b".to_string()))];
    assert_eq!(cancels(&events, "a"), by_b);
    assert_eq!(cancels(&events, "b"), by_b);
    assert_eq!(error_codes(&events, "a"), vec!["invalid_trade"]);
    // Screen 1.
    let id = started(&mut world);
    let events = world.tick(vec![cancel("a", &id)]);
    let by_a = vec![(Ending::Cancelled, Some("a".to_string()))];
    assert_eq!(cancels(&events, "a"), by_a);
    assert_eq!(cancels(&events, "b"), by_a);
    assert!(!world.in_trade("a") && !world.in_trade("b"));
    // Screen 2.
    let id = started(&mut world);
    world.tick(vec![accept("a", &id), accept("b", &id)]);
    let events = world.tick(vec![cancel("b", &id)]);
    assert_eq!(cancels(&events, "a"), by_b);
    assert_eq!(cancels(&events, "b"), by_b);
}

#[test]
fn offer_changes_reset_acceptance_and_return_to_screen_one() {
    let mut world = world();
    let id = started(&mut world);
    world.tick(vec![add("a", &id, 0, Some(10))]);
    world.tick(vec![accept("a", &id), accept("b", &id)]);
    world.tick(vec![accept("a", &id)]);
    let events = world.tick(vec![add("b", &id, 0, Some(5))]);
    for p in ["a", "b"] {
        match messages(&events, p).as_slice() {
            [Notice::Screen(u)] if u.number == 1 => {
                assert!(!u.mine.accepted && !u.theirs.accepted)
            }
            other => panic!("expected tradeUpdated (Screen 1), got {other:?}"),
        }
    }
    // Back on Screen 1: both must accept twice again.
    let events = world.tick(vec![accept("a", &id), accept("b", &id)]);
    assert!(messages(&events, "a")
        .iter()
        .any(|m| matches!(m, Notice::Screen(s) if s.number == 2)));
    assert!(commit_of(&events).is_none());
    // Removing an item not offered, and the other errors of an add.
    let events = world.tick(vec![
        cmd(
            "a",
            TradeCommand::RemoveItem {
                trade_id: id.clone(),
                slot: 5,
            },
        ),
        add("a", &id, 3, None),
        add("a", &id, 27, None),
        add("a", &id, 28, None),
        add("a", &id, -1, None),
        add("a", &id, 0, Some(0)),
        add("a", &id, 0, Some(-4)),
    ]);
    assert_eq!(
        error_codes(&events, "a"),
        vec![
            "invalid_slot",
            "untradeable_item",
            "invalid_slot",
            "invalid_slot",
            "invalid_slot",
            "invalid_quantity",
            "invalid_quantity"
        ]
    );
    // A quantity above the stack is capped; removal works.
    let events = world.tick(vec![add("a", &id, 0, Some(1_000_000))]);
    match messages(&events, "a").last() {
        Some(Notice::Screen(u)) => assert_eq!(u.mine.items[0].quantity, 100),
        other => panic!("{other:?}"),
    }
    let events = world.tick(vec![cmd(
        "a",
        TradeCommand::RemoveItem {
            trade_id: id.clone(),
            slot: 0,
        },
    )]);
    match messages(&events, "b").last() {
        Some(Notice::Screen(u)) => assert_eq!(u.theirs, Side::default()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn final_acceptance_is_refused_when_an_inventory_is_full() {
    let mut world = world();
    // c has a full inventory of logs.
    let mut full = Inventory::new();
    full.add("log", 28, false).unwrap();
    world.tick(vec![Command::Join(Box::new(Joining {
        inventory: full,
        ..Joining::new("c", "C", t(5, 6))
    }))]);
    world.tick(vec![request("a", "c")]);
    let events = world.tick(vec![request("c", "a")]);
    let id = match messages(&events, "c").as_slice() {
        [Notice::Opened { .. }] => trade_id(&events, "c"),
        other => panic!("{other:?}"),
    };
    // a offers a sword (c has no room); c offers nothing.
    world.tick(vec![add("a", &id, 1, None)]);
    world.tick(vec![accept("a", &id), accept("c", &id)]);
    let events = world.tick(vec![accept("a", &id), accept("c", &id)]);
    assert!(commit_of(&events).is_none());
    assert_eq!(error_codes(&events, "a"), vec!["inventory_full"]);
    assert_eq!(error_codes(&events, "c"), vec!["inventory_full"]);
    assert!(!world.trade_committing("a"));
    // c offers a log too: now there is room.
    world.tick(vec![add("c", &id, 0, None)]);
    world.tick(vec![accept("a", &id), accept("c", &id)]);
    let events = world.tick(vec![accept("a", &id), accept("c", &id)]);
    assert!(commit_of(&events).is_some());
}

#[test]
fn trading_players_cannot_move_act_or_use_items() {
    let mut world = world();
    let _id = started(&mut world);
    let events = world.tick(vec![
        walk("a"),
        Command::Action {
            id: "b".into(),
            action: Action::Drop { slot: 0 },
            reference: Some(3),
        },
        Command::UseItem {
            id: "a".into(),
            slot: 0,
            target_slot: None,
            target_id: None,
            reference: None,
        },
    ]);
    assert!(rejected(&events, "a", "in_trade"));
    assert!(rejected(&events, "b", "in_trade"));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Rejected { code, .. } if *code == "in_trade"))
            .count(),
        3
    );
    assert_eq!(world.player_path("a"), vec![]);
    assert_eq!(world.player_inventory("b").unwrap().count("coins"), 50);
    let _ = ws_codes::CANNOT_DO;
}

#[test]
fn disconnect_death_and_inactivity_end_a_trade() {
    // Disconnect.
    let mut world = world();
    let id = started(&mut world);
    let events = world.tick(vec![Command::Leave { id: "a".into() }]);
    assert_eq!(cancels(&events, "b"), vec![(Ending::Disconnected, None)]);
    assert!(!world.in_trade("b"));
    let _ = id;
    // Inactivity.
    let mut world = self::world();
    let _id = started(&mut world);
    let events = crate::idle(&mut world, INACTIVITY_TIMEOUT_TICKS as usize);
    for p in ["a", "b"] {
        assert_eq!(cancels(&events, p), vec![(Ending::Timeout, None)]);
    }
    assert!(!world.in_trade("a"));
}

#[test]
fn a_participant_leaving_while_committing_does_not_stop_the_commit() {
    let mut world = world();
    let id = started(&mut world);
    world.tick(vec![add("a", &id, 0, None), add("b", &id, 1, None)]);
    let events = to_screen_two_and_commit(&mut world, &id);
    let commit = commit_of(&events).expect("commit");
    let events = world.tick(vec![Command::Leave { id: "a".into() }]);
    assert!(cancels(&events, "b").is_empty());
    assert!(world.trade_committing("b"));
    let events = world.tick(vec![Command::TradeCommitted {
        trade_id: id,
        ok: true,
    }]);
    assert!(matches!(
        messages(&events, "b").as_slice(),
        [Notice::Traded { .. }]
    ));
    assert_eq!(world.player_inventory("b").unwrap(), &commit.after[1]);
    assert!(!world.in_trade("b"));
}

#[test]
fn an_offered_slot_whose_item_changed_is_dropped_from_the_offer() {
    let mut world = world();
    let id = started(&mut world);
    world.tick(vec![add("a", &id, 1, None), add("a", &id, 0, Some(80))]);
    world.tick(vec![accept("a", &id), accept("b", &id)]);
    // An admin (the only other way) cannot give to a trading player either.
    let events = world.tick(vec![Command::Give {
        id: "a".into(),
        item_id: "coins".into(),
        quantity: 5,
    }]);
    assert!(rejected(&events, "a", "in_trade"));
    // Simulate an inventory change behind the trade's back: a rejoin in place with fewer coins.
    let mut fewer = Inventory::new();
    fewer.add("coins", 30, true).unwrap();
    let events = world.tick(vec![Command::Join(Box::new(Joining {
        inventory: fewer,
        ..Joining::new("a", "A", t(5, 5))
    }))]);
    match messages(&events, "b").last() {
        Some(Notice::Screen(u)) if u.number == 1 => {
            assert_eq!(u.theirs.items.len(), 1);
            assert_eq!(u.theirs.items[0].quantity, 30);
        }
        other => panic!("expected the offer refreshed, got {other:?}"),
    }
}

#[test]
fn a_death_ends_the_trade_with_player_died() {
    use crate::arena::{mob, world as arena, Fighter};
    use wayfarer_content::Skill;
    // The reaper attacks weak players within 2 tiles; ada (weak, but many hit points) trades next
    // to it with bob and dies mid-trade.
    let mut w = arena(&[mob("reaper", 5, 5)], 31);
    let ada = Fighter::new("ada", t(5, 7))
        .level(Skill::Constitution, 40)
        .hold(&[("coins", 10)]);
    let bob = Fighter::new("bob", t(6, 7)).level(Skill::Constitution, 99);
    w.tick(vec![ada.join(), bob.join()]);
    let events = w.tick(vec![request("ada", "bob")]);
    let id = match messages(&events, "bob").as_slice() {
        [Notice::Asked { .. }] => trade_id(&events, "bob"),
        other => panic!("{other:?}"),
    };
    w.tick(vec![respond("bob", &id, true)]);
    assert!(w.in_trade("ada"), "the trade started before the death");
    let mut ended = Vec::new();
    for _ in 0..400 {
        let events = w.tick(vec![]);
        if events
            .iter()
            .any(|e| matches!(e, Event::PlayerDied { id, .. } if id == "ada"))
        {
            ended = events;
            break;
        }
    }
    assert!(!ended.is_empty(), "ada never died");
    for p in ["ada", "bob"] {
        assert_eq!(cancels(&ended, p), vec![(Ending::PlayerDied, None)]);
    }
    assert!(!w.in_trade("ada") && !w.in_trade("bob"));
}

#[test]
fn a_player_cannot_die_while_their_trade_commits() {
    use crate::arena::{mob, world as arena, Fighter};
    use wayfarer_content::Skill;
    let mut w = arena(&[mob("reaper", 5, 5)], 31);
    let ada = Fighter::new("ada", t(5, 7))
        .level(Skill::Constitution, 60)
        .hold(&[("coins", 10)]);
    let bob = Fighter::new("bob", t(6, 7)).level(Skill::Constitution, 99);
    w.tick(vec![ada.join(), bob.join()]);
    w.tick(vec![request("ada", "bob")]);
    w.tick(vec![request("bob", "ada")]);
    let id = w.trade_of("ada").expect("started").to_owned();
    w.tick(vec![add("ada", &id, 0, None)]);
    w.tick(vec![accept("ada", &id), accept("bob", &id)]);
    let events = w.tick(vec![accept("ada", &id), accept("bob", &id)]);
    let commit = commit_of(&events).expect("committing before the reaper won");
    // The reaper keeps hitting; ada stays alive while the transaction is out.
    let mut hit = 0;
    for _ in 0..300 {
        let events = w.tick(vec![]);
        hit += events
            .iter()
            .filter(|e| matches!(e, Event::CombatHit { hit, .. } if hit.target_id == "ada" && hit.damage > 0))
            .count();
        assert!(
            !events.iter().any(|e| matches!(e, Event::PlayerDied { .. })),
            "died while committing"
        );
    }
    assert!(hit > 10, "the reaper kept hitting ada ({hit} hits)");
    assert!(w.player_health_of("ada").unwrap().0 >= 1);
    w.tick(vec![Command::TradeCommitted {
        trade_id: id,
        ok: true,
    }]);
    assert_eq!(w.player_inventory("bob").unwrap(), &commit.after[1]);
    assert_eq!(w.player_inventory("bob").unwrap().count("coins"), 10);
}

#[test]
fn a_trade_request_from_someone_ignored_goes_nowhere_and_times_out() {
    let mut world = world();
    // B ignores A (names are lower-cased ids' upper-case display names: "A").
    world.tick(vec![Command::SetIgnored {
        id: "b".into(),
        ignored: vec!["a".into()],
    }]);
    let events = world.tick(vec![request("a", "b")]);
    assert!(
        messages(&events, "b").is_empty(),
        "B never hears of it: {events:?}"
    );
    assert!(
        messages(&events, "a")
            .iter()
            .all(|m| !matches!(m, Notice::Refused { .. })),
        "A is not told why"
    );
    // B asking A in turn is a new request, not an acceptance of the one B never saw.
    let events = world.tick(vec![request("b", "a")]);
    assert!(messages(&events, "b")
        .iter()
        .all(|m| !matches!(m, Notice::Opened { .. })));
    assert!(messages(&events, "a")
        .iter()
        .any(|m| matches!(m, Notice::Asked { .. })));
    // A's silenced request expires like any other.
    let events = crate::idle(&mut world, REQUEST_TIMEOUT_TICKS as usize);
    assert!(messages(&events, "a").iter().any(|m| matches!(
        m,
        Notice::Cancelled {
            reason: Ending::Timeout,
            ..
        }
    )));
}
