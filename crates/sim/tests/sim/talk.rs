//! Dialogue trees and quests in the sim: conditions shown and hidden, every effect kind, closing
//! reasons, bad answers, and a quest written in the reference format (with the newer dialogue
//! fields) that no bundled content has, played from start to rewards, once.

use std::sync::Arc;

use serde_json::json;
use wayfarer_content::{Content, ManifestSet, QuestStatus, Skill};
use wayfarer_protocol::ws::{codes, DialogueOpen, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack};
use wayfarer_sim::skills::{xp_for_level, Xp};
use wayfarer_sim::{Action, CloseReason, Command, Event, Joining, World};

use crate::t;

/// A town `x 0..=19` (the sage at (5, 5) keeping a store and a tanner's trade, a statue-like rat
/// pen at (15, 15)) and a den area `x 20..=29` the quest asks to visit.
fn content() -> Arc<Content> {
    built(manifests(false))
}

/// The manifests of [`content`]; `pvp_town` makes the town a PvP area (for a death in dialogue).
fn manifests(pvp_town: bool) -> ManifestSet {
    let mut set = ManifestSet::new();
    set.insert(
        "items/misc.json",
        json!([
            {"id": "coins", "name": "Coins", "value": 1, "type": "currency", "stackable": true,
             "maxStackSize": 2147483647},
            {"id": "cowhide", "name": "Cowhide", "value": 1, "type": "resource"},
            {"id": "leather", "name": "Leather", "value": 1, "type": "resource"},
            {"id": "rat_tail", "name": "Rat tail", "value": 1, "type": "resource", "stackable": true,
             "maxStackSize": 100},
            {"id": "charm", "name": "Charm", "value": 1, "type": "misc"},
            {"id": "trophy", "name": "Trophy", "value": 1, "type": "misc"},
            {"id": "xp_lamp_100", "name": "Lamp", "value": 1, "type": "misc",
             "useEffect": {"type": "xp_lamp", "xpAmount": 100, "consumeOnUse": true}}
        ])
        .to_string(),
    );
    set.insert(
        "recipes/tanning.json",
        json!({"recipes": [{"input": "cowhide", "output": "leather", "cost": 2, "name": "Leather"}]})
            .to_string(),
    );
    set.insert(
        "stores.json",
        json!([{"id": "sage_store", "name": "Sage's Sundries", "buyback": false, "buybackRate": 0.5,
                "items": [{"id": "charm", "itemId": "charm", "name": "Charm", "price": 3,
                           "stockQuantity": -1, "restockTime": 0}]}])
        .to_string(),
    );
    set.insert(
        "npcs.json",
        json!([
            {"id": "rat", "name": "Rat", "category": "mob",
             "stats": {"level": 1, "health": 1, "attack": 1, "strength": 1, "defense": 1},
             "combat": {"attackable": true, "retaliates": false, "respawnTicks": 2},
             "movement": {"type": "stationary"}},
            {"id": "sage", "name": "Sage", "category": "neutral", "stats": {"health": 10},
             "dialogue": {
                "entryNodeId": "greeting",
                "questOverrides": {"rat_trouble": {"in_progress": "busy", "ready_to_complete": "ready",
                                                   "completed": "thanks_again"}},
                "nodes": [
                    {"id": "greeting", "text": "Well met.", "responses": [
                        {"text": "Any work?", "nextNodeId": "offer"},
                        {"text": "You look rich.", "nextNodeId": "rich", "condition": "hasItem:coins:100"},
                        {"text": "I am strong.", "nextNodeId": "strong", "condition": "skill:attack:20"},
                        {"text": "No charm on me.", "nextNodeId": "charmless", "condition": "lacksItem:charm"},
                        {"text": "Veteran business.", "nextNodeId": "veteran", "condition": "questPoints:1"},
                        {"text": "Trade?", "nextNodeId": "bye", "effect": "openStore"},
                        {"text": "Tan my hides.", "nextNodeId": "bye", "effect": "openTanner"},
                        {"text": "Bank, please.", "nextNodeId": "bye", "effect": "openBank"},
                        {"text": "Send me to the den.", "nextNodeId": "bye", "effect": "teleport:25:5"},
                        {"text": "Swap my charm for a tail.", "nextNodeId": "bye",
                         "effect": "takeItem:charm&giveItem:rat_tail:2", "condition": "hasItem:charm"},
                        {"text": "Harder work?", "nextNodeId": "bye", "effect": "startQuest:rat_king"}
                    ]},
                    {"id": "offer", "text": "Rats. Two of them.", "responses": [
                        {"text": "I'll do it.", "nextNodeId": "bye", "effect": "startQuest:rat_trouble"},
                        {"text": "No.", "nextNodeId": "bye"}
                    ]},
                    {"id": "accepted", "text": "Take a charm for luck."},
                    {"id": "busy", "text": "Two rats, then look at the den."},
                    {"id": "ready", "text": "Done?", "responses": [
                        {"text": "Here are the tails.", "nextNodeId": "thanks",
                         "condition": "hasItem:rat_tail:2",
                         "effect": "takeItem:rat_tail:2&completeQuest:rat_trouble"},
                        {"text": "Not yet.", "nextNodeId": "bye"}
                    ]},
                    {"id": "thanks", "text": "Splendid.", "effect": "giveItem:coins:1"},
                    {"id": "thanks_again", "text": "My hero.", "responses": [
                        {"text": "Harder work?", "nextNodeId": "bye", "effect": "startQuest:rat_king"}
                    ]},
                    {"id": "rich", "text": "Rich enough."},
                    {"id": "strong", "text": "Strong indeed."},
                    {"id": "charmless", "text": "Buy one."},
                    {"id": "veteran", "text": "A veteran!"},
                    {"id": "bye", "text": "Farewell."}
                ]
             }}
        ])
        .to_string(),
    );
    // The reference format: an object keyed by quest id, dialogue/kill/gather-free stages, onStart
    // items and a start dialogue, rewards with items, XP and quest points.
    set.insert(
        "quests.json",
        json!({"rat_trouble": {
            "id": "rat_trouble", "name": "Rat Trouble", "description": "Rats \u{2014} two.",
            "difficulty": "novice", "questPoints": 1, "replayable": false,
            "requirements": {"quests": [], "skills": {"attack": 1}, "items": []},
            "startNpc": "sage",
            "stages": [
                {"id": "start", "type": "dialogue", "description": "Talk to the sage", "npcId": "sage"},
                {"id": "rats", "type": "kill", "description": "Kill 2 rats", "target": "rat", "count": 2},
                {"id": "den", "type": "travel", "description": "Look at the den", "target": "den"},
                {"id": "return", "type": "dialogue", "description": "Return", "npcId": "sage"}
            ],
            "onStart": {"items": [{"itemId": "charm", "quantity": 1}], "dialogue": "accepted"},
            "rewards": {"questPoints": 1, "items": [{"itemId": "trophy", "quantity": 1},
                                                   {"itemId": "xp_lamp_100", "quantity": 1}],
                        "xp": {"defense": 100}}
        },
        "rat_king": {
            "id": "rat_king", "name": "Rat King", "questPoints": 2, "replayable": true,
            "requirements": {"quests": ["rat_trouble"], "skills": {"attack": 10}, "items": []},
            "startNpc": "sage",
            "stages": [{"id": "king", "type": "kill", "description": "Kill a rat", "target": "rat"}],
            "rewards": {"questPoints": 2, "items": [{"itemId": "coins", "quantity": 7}]}
        }})
        .to_string(),
    );
    set.insert(
        "world-areas.json",
        json!({
            "starterTowns": {"town": {
                "id": "town", "name": "Town",
                "bounds": {"minX": 0, "maxX": 19, "minZ": 0, "maxZ": 19},
                "safeZone": !pvp_town, "pvpEnabled": pvp_town,
                "spawnPoint": {"x": 0, "y": 0, "z": 0},
                "npcs": [{"id": "sage", "type": "talk", "storeId": "sage_store",
                          "position": {"x": 5, "y": 0, "z": 5}}],
                "mobSpawns": [{"mobId": "rat", "position": {"x": 15, "y": 0, "z": 15},
                               "spawnRadius": 0, "maxCount": 1}]
            }},
            "level1Areas": {"den": {
                "id": "den", "name": "Den",
                "bounds": {"minX": 20, "maxX": 29, "minZ": 0, "maxZ": 19},
                "safeZone": false
            }}
        })
        .to_string(),
    );
    set
}

fn built(set: ManifestSet) -> Arc<Content> {
    match Content::from_files(&set) {
        Ok((content, report)) => {
            assert_eq!(report.error_count(), 0, "{report}");
            Arc::new(content)
        }
        Err(report) => panic!("talk content is invalid:\n{report}"),
    }
}

fn world() -> World {
    World::new(content(), 5)
}

fn join(id: &str, tile: TilePos, held: &[(&str, u32)], attack: u8) -> Command {
    let mut joining = Joining::new(id, crate::name_of(id), tile);
    joining.inventory = Inventory::from_stacks(held.iter().enumerate().map(|(slot, (i, q))| {
        (
            slot,
            Stack {
                item_id: (*i).into(),
                quantity: *q,
            },
        )
    }))
    .unwrap();
    joining
        .skills
        .set_xp(Skill::Attack, Xp::from_points(xp_for_level(attack)));
    Command::Join(Box::new(joining))
}

fn npc(world: &World, kind: &str) -> String {
    world
        .npcs()
        .into_iter()
        .find(|e| e.type_id.as_deref() == Some(kind))
        .map(|e| e.id)
        .expect("npc")
}

fn talk(world: &mut World, id: &str) -> Vec<Event> {
    let sage = npc(world, "sage");
    let mut events = world.tick(vec![Command::Action {
        id: id.into(),
        action: Action::Interact { target: sage },
        reference: None,
    }]);
    for _ in 0..8 {
        if opened(&events, id).is_some() {
            break;
        }
        events.extend(world.tick(vec![]));
    }
    events
}

fn respond(world: &mut World, id: &str, index: u32) -> Vec<Event> {
    world.tick(vec![Command::DialogueRespond {
        id: id.into(),
        npc_id: "sage".into(),
        index,
        reference: Some(4),
    }])
}

/// The last `dialogue:open` for `id`.
fn opened(events: &[Event], id: &str) -> Option<DialogueOpen> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::DialogueOpened { to, view } if to == id => Some(view.clone()),
            _ => None,
        })
        .next_back()
}

fn closed(events: &[Event], id: &str) -> Option<CloseReason> {
    events.iter().find_map(|e| match e {
        Event::DialogueClosed { to, reason, .. } if to == id => Some(*reason),
        _ => None,
    })
}

fn shown(view: &DialogueOpen) -> Vec<u32> {
    view.responses.iter().map(|r| r.index).collect()
}

fn held(world: &World, id: &str, item: &str) -> u64 {
    world.player_inventory(id).unwrap().count(item)
}

#[test]
fn responses_show_only_while_their_conditions_hold() {
    let mut world = world();
    world.tick(vec![
        join("poor", t(4, 4), &[], 1),
        join("rich", t(6, 6), &[("coins", 150), ("charm", 1)], 25),
    ]);
    let events = talk(&mut world, "poor");
    let view = opened(&events, "poor").unwrap();
    assert_eq!(view.npc_id, "sage");
    assert_eq!(view.node_id, "greeting");
    assert_eq!(view.text, "Well met.");
    // No coins, attack 1, no charm, no quest points: 0, the charmless line and the services.
    assert_eq!(shown(&view), vec![0, 3, 5, 6, 7, 8, 10]);
    let events = talk(&mut world, "rich");
    // 100 coins and more, attack 25, a charm (so not "no charm"), still no quest points.
    assert_eq!(
        shown(&opened(&events, "rich").unwrap()),
        vec![0, 1, 2, 5, 6, 7, 8, 9, 10]
    );
    // A hidden response cannot be chosen; nothing changes.
    let events = respond(&mut world, "poor", 1);
    assert_eq!(
        crate::arena::rejections(&events, "poor"),
        vec![codes::INVALID_DIALOGUE]
    );
    assert_eq!(world.player_dialogue("poor").unwrap().1, "greeting");
    // Nor an index the node lacks, nor another NPC, nor with nothing open.
    for (npc_id, index) in [("sage", 42), ("rat", 0)] {
        let events = world.tick(vec![Command::DialogueRespond {
            id: "poor".into(),
            npc_id: npc_id.into(),
            index,
            reference: None,
        }]);
        assert_eq!(
            crate::arena::rejections(&events, "poor"),
            vec![codes::INVALID_DIALOGUE]
        );
    }
    // A leaf ends the dialogue; then any answer is refused.
    let events = respond(&mut world, "rich", 2);
    assert_eq!(opened(&events, "rich").unwrap().text, "Strong indeed.");
    assert_eq!(closed(&events, "rich"), Some(CloseReason::End));
    let events = respond(&mut world, "rich", 0);
    assert_eq!(
        crate::arena::rejections(&events, "rich"),
        vec![codes::INVALID_DIALOGUE]
    );
}

#[test]
fn every_effect_kind_runs_on_the_server() {
    let mut world = world();
    world.tick(vec![join(
        "a",
        t(4, 4),
        &[
            ("coins", 5),
            ("cowhide", 1),
            ("cowhide", 1),
            ("cowhide", 1),
            ("charm", 1),
        ],
        1,
    )]);
    // openStore: the NPC's own store.
    talk(&mut world, "a");
    let events = respond(&mut world, "a", 5);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ShopOpened { to, view } if to == "a" && view.store_id == "sage_store")));
    assert_eq!(closed(&events, "a"), Some(CloseReason::End));
    // openBank: the bank is sent.
    talk(&mut world, "a");
    let events = respond(&mut world, "a", 7);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Bank { to, .. } if to == "a")));
    // openTanner: the tanning recipes are offered at the sage; making "all" at 2 coins a hide,
    // 5 coins pay for two of the three, each saved at once.
    talk(&mut world, "a");
    let events = respond(&mut world, "a", 6);
    let sage = npc(&world, "sage");
    let offered = events.iter().find_map(|e| match e {
        Event::MakeOptions { to, options } if to == "a" => Some(options.clone()),
        _ => None,
    });
    let offered = offered.expect("the tanner offers tanning");
    assert_eq!(offered.context.target_id.as_deref(), Some(sage.as_str()));
    assert_eq!(offered.context.station_type.as_deref(), Some("tanner"));
    let recipe = offered.options[0].recipe_id.clone();
    assert_eq!(recipe, "tanning:leather");
    assert_eq!(offered.options[0].coins, 2);
    assert_eq!(
        held(&world, "a", "leather"),
        0,
        "nothing is made until chosen"
    );
    let mut events = world.tick(vec![Command::Action {
        id: "a".into(),
        action: Action::Make {
            recipe_id: recipe,
            count: wayfarer_sim::MakeCount::All,
            target: Some(sage),
        },
        reference: None,
    }]);
    events.extend(crate::idle(&mut world, 6));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SaveNow { id } if id == "a")));
    assert_eq!(held(&world, "a", "leather"), 2);
    assert_eq!(held(&world, "a", "cowhide"), 1);
    assert_eq!(held(&world, "a", "coins"), 1);
    // takeItem & giveItem: one transaction.
    talk(&mut world, "a");
    let events = respond(&mut world, "a", 9);
    assert_eq!(held(&world, "a", "charm"), 0);
    assert_eq!(held(&world, "a", "rat_tail"), 2);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SaveNow { id } if id == "a")));
    // teleport: to the den.
    talk(&mut world, "a");
    respond(&mut world, "a", 8);
    assert_eq!(world.player_tile("a"), Some(t(25, 5)));
    assert!(world.player_dialogue("a").is_none());
}

#[test]
fn walking_away_fighting_and_the_client_close_the_dialogue() {
    let mut world = world();
    world.tick(vec![join("a", t(4, 4), &[], 1)]);
    talk(&mut world, "a");
    assert!(world.player_dialogue("a").is_some());
    // Two tiles away is still fine; three is not.
    let mut events = world.tick(vec![crate::walk("a", t(7, 7))]);
    events.extend(crate::idle(&mut world, 3));
    assert_eq!(world.player_tile("a"), Some(t(7, 7)));
    assert_eq!(closed(&events, "a"), None);
    let mut events = world.tick(vec![crate::walk("a", t(8, 8))]);
    events.extend(crate::idle(&mut world, 2));
    assert_eq!(closed(&events, "a"), Some(CloseReason::WalkedAway));
    // The client closes it.
    talk(&mut world, "a");
    let events = world.tick(vec![Command::DialogueClose {
        id: "a".into(),
        npc_id: String::new(),
        reference: None,
    }]);
    assert_eq!(closed(&events, "a"), Some(CloseReason::Client));
    // Fighting closes it.
    talk(&mut world, "a");
    let rat = npc(&world, "rat");
    let events = world.tick(vec![Command::Action {
        id: "a".into(),
        action: Action::Attack { target: rat },
        reference: None,
    }]);
    assert_eq!(closed(&events, "a"), Some(CloseReason::Combat));
}

/// A player killed while talking: the death closes the dialogue (`died`), not the fight. Only a
/// blow that kills in the tick the fight starts gets there first (any later tick, the attack has
/// already closed it as `combat`), so the victim has 1 hitpoint and talks again after each miss.
#[test]
fn a_death_closes_the_dialogue() {
    let mut world = World::new(built(manifests(true)), 5);
    let victim = || {
        let mut joining = Joining::new("a", "A", t(4, 4));
        joining.health = 1;
        Command::Join(Box::new(joining))
    };
    world.tick(vec![victim()]);
    let mut killer = Joining::new("k", "K", t(4, 6));
    killer
        .skills
        .set_xp(Skill::Attack, Xp::from_points(xp_for_level(99)));
    killer
        .skills
        .set_xp(Skill::Strength, Xp::from_points(xp_for_level(99)));
    world.tick(vec![Command::Join(Box::new(killer))]);
    let mut died = None;
    for _ in 0..50 {
        let mut events = talk(&mut world, "a");
        assert!(opened(&events, "a").is_some());
        assert!(world.player_dialogue("a").is_some());
        events = world.tick(vec![crate::arena::attack("k", "a")]);
        // At most a few ticks to walk next to the victim and swing once.
        for _ in 0..4 {
            if closed(&events, "a").is_some() {
                break;
            }
            events.extend(world.tick(vec![]));
        }
        let reason =
            closed(&events, "a").expect("the attack closes the dialogue one way or another");
        world.tick(vec![Command::Stop { id: "k".into() }]);
        if events
            .iter()
            .any(|e| matches!(e, Event::PlayerDied { id, .. } if id == "a"))
        {
            died = Some(reason);
            break;
        }
        assert_eq!(reason, CloseReason::Combat, "a miss closes it as a fight");
        // Back to 1 hitpoint, next to the sage, for another try.
        world.tick(vec![Command::Leave { id: "a".into() }]);
        world.tick(vec![victim()]);
    }
    assert_eq!(died, Some(CloseReason::Died));
    assert!(world.player_dialogue("a").is_none());
}

#[test]
fn a_reference_format_quest_plays_from_start_to_rewards_once() {
    let mut world = world();
    world.tick(vec![join("a", t(4, 4), &[], 1)]);
    let events = talk(&mut world, "a");
    assert!(
        events.iter().any(
            |e| matches!(e, Event::QuestList { to, quests, quest_points: 0 }
        if to == "a" && quests.len() == 1 && quests[0].2.is_none())
        ) || world.player_quests("a") == Some(vec![])
    );
    respond(&mut world, "a", 0);
    // "I'll do it.": started, the charm given with it, the start dialogue shown.
    let events = respond(&mut world, "a", 0);
    assert_eq!(opened(&events, "a").unwrap().node_id, "accepted");
    assert_eq!(held(&world, "a", "charm"), 1);
    let update = events
        .iter()
        .find_map(|e| match e {
            Event::QuestUpdated { to, record, count } if to == "a" => {
                Some((record.clone(), *count))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(update.0.status, QuestStatus::InProgress);
    assert_eq!(update.0.stage_id.as_deref(), Some("rats"));
    assert_eq!(update.1, 2);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SaveNow { id } if id == "a")));
    // In progress: the override node.
    let events = talk(&mut world, "a");
    assert_eq!(opened(&events, "a").unwrap().node_id, "busy");
    // Kill the rat twice (it respawns after 2 ticks).
    let mut progress = Vec::new();
    for _ in 0..2 {
        let rat = npc(&world, "rat");
        world.tick(vec![Command::Action {
            id: "a".into(),
            action: Action::Attack { target: rat },
            reference: None,
        }]);
        for _ in 0..200 {
            let events = world.tick(vec![]);
            let killed = events.iter().any(|e| matches!(e, Event::NpcKilled { .. }));
            progress.extend(events.into_iter().filter_map(|e| match e {
                Event::QuestUpdated { record, .. } => Some((record.stage_id, record.progress)),
                _ => None,
            }));
            if killed {
                break;
            }
        }
        crate::idle(&mut world, 3);
    }
    assert_eq!(
        progress,
        vec![(Some("rats".to_string()), 1), (Some("den".to_string()), 0)]
    );
    // Travel: walk into the den.
    world.tick(vec![crate::run("a", t(22, 10))]);
    let events = crate::idle(&mut world, 10);
    assert!(events.iter().any(|e| matches!(e, Event::QuestUpdated { record, .. }
        if record.stage_id.as_deref() == Some("return") && record.status == QuestStatus::ReadyToComplete)));
    // Back to the sage: ready, but without the tails the answer is hidden.
    world.tick(vec![crate::run("a", t(4, 4))]);
    crate::idle(&mut world, 10);
    let events = talk(&mut world, "a");
    let view = opened(&events, "a").unwrap();
    assert_eq!(view.node_id, "ready");
    assert_eq!(shown(&view), vec![1]);
    world.tick(vec![Command::Give {
        id: "a".into(),
        item_id: "rat_tail".into(),
        quantity: 2,
    }]);
    let events = talk(&mut world, "a");
    assert_eq!(shown(&opened(&events, "a").unwrap()), vec![0, 1]);
    let events = respond(&mut world, "a", 0);
    let rewards = events
        .iter()
        .find_map(|e| match e {
            Event::QuestCompleted {
                to,
                rewards,
                quest_points,
                ..
            } if to == "a" => Some((rewards.clone(), *quest_points)),
            _ => None,
        })
        .expect("quest:complete");
    assert_eq!(rewards.1, 1);
    assert_eq!(rewards.0.quest_points, 1);
    assert_eq!(held(&world, "a", "trophy"), 1);
    assert_eq!(held(&world, "a", "xp_lamp_100"), 1);
    assert_eq!(held(&world, "a", "rat_tail"), 0);
    // The thanks node's own effect ran as it was shown.
    assert_eq!(held(&world, "a", "coins"), 1);
    assert_eq!(
        world
            .player_skills("a")
            .unwrap()
            .xp(Skill::Defense)
            .points(),
        100
    );
    assert_eq!(world.player_quest_points("a"), Some(1));
    // Once: the quest cannot be completed or started again, and the veteran line now shows.
    let events = talk(&mut world, "a");
    let view = opened(&events, "a").unwrap();
    assert_eq!(view.node_id, "thanks_again");
    world.tick(vec![Command::DialogueClose {
        id: "a".into(),
        npc_id: "sage".into(),
        reference: None,
    }]);
    assert_eq!(held(&world, "a", "trophy"), 1);
    // The lamp: 100 XP on a chosen skill, used up.
    let slot = world
        .player_inventory("a")
        .unwrap()
        .stacks()
        .find(|(_, s)| s.item_id == "xp_lamp_100")
        .map(|(slot, _)| slot)
        .unwrap();
    let events = world.tick(vec![Command::RubLamp {
        id: "a".into(),
        slot,
        skill: Skill::Woodcutting,
        reference: None,
    }]);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Xp {
            skill: Skill::Woodcutting,
            ..
        }
    )));
    assert_eq!(held(&world, "a", "xp_lamp_100"), 0);
}

#[test]
fn requirements_refuse_a_start() {
    let mut world = world();
    // Rat King needs Rat Trouble done and Attack 10.
    world.tick(vec![
        join("weak", t(4, 4), &[], 1),
        join("strong", t(6, 6), &[], 10),
    ]);
    for id in ["weak", "strong"] {
        talk(&mut world, id);
        let events = respond(&mut world, id, 10);
        assert_eq!(closed(&events, id), Some(CloseReason::End));
        assert_eq!(world.player_quests(id), Some(vec![]));
    }
    // The quest needs Attack 1 — met by everyone; make one that is not: a full inventory cannot
    // take the start items, so the start is refused whole.
    let full: Vec<(&str, u32)> = (0..28).map(|_| ("cowhide", 1)).collect();
    world.tick(vec![join("a", t(4, 4), &full, 1)]);
    talk(&mut world, "a");
    respond(&mut world, "a", 0);
    let events = respond(&mut world, "a", 0);
    assert_eq!(closed(&events, "a"), Some(CloseReason::End));
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::QuestUpdated { .. })));
    assert_eq!(world.player_quests("a"), Some(vec![]));
    assert_eq!(held(&world, "a", "charm"), 0);
}

#[test]
fn a_replayable_quest_can_be_done_again_and_its_points_count_once() {
    let mut world = world();
    // Rat Trouble done; Attack 10 for Rat King (replayable, its only stage a kill).
    let mut joining = Joining::new("a", "A", t(4, 4));
    joining
        .skills
        .set_xp(Skill::Attack, Xp::from_points(xp_for_level(10)));
    joining
        .skills
        .set_xp(Skill::Strength, Xp::from_points(xp_for_level(30)));
    joining.quests = vec![wayfarer_sim::QuestRecord {
        quest_id: "rat_trouble".into(),
        status: QuestStatus::Completed,
        stage_id: None,
        progress: 0,
        completions: 1,
    }];
    world.tick(vec![Command::Join(Box::new(joining))]);
    assert_eq!(world.player_quest_points("a"), Some(1));
    let mut paid = Vec::new();
    for round in 0..2 {
        // Rat Trouble done: the sage's "completed" node offers the harder work.
        let events = talk(&mut world, "a");
        assert_eq!(opened(&events, "a").unwrap().node_id, "thanks_again");
        let events = respond(&mut world, "a", 0);
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::QuestUpdated { record, .. }
                if record.quest_id == "rat_king" && record.status == QuestStatus::InProgress)),
            "round {round}: started"
        );
        let rat = npc(&world, "rat");
        world.tick(vec![Command::Action {
            id: "a".into(),
            action: Action::Attack { target: rat },
            reference: None,
        }]);
        for _ in 0..200 {
            let events = world.tick(vec![]);
            if let Some(rewards) = events.iter().find_map(|e| match e {
                Event::QuestCompleted { rewards, .. } => Some(rewards.clone()),
                _ => None,
            }) {
                paid.push(rewards.quest_points);
                break;
            }
        }
        crate::idle(&mut world, 3);
    }
    // Points the first time only; the coins both times.
    assert_eq!(paid, vec![2, 0]);
    assert_eq!(world.player_quest_points("a"), Some(3));
    assert_eq!(held(&world, "a", "coins"), 14);
    let king = world
        .player_quests("a")
        .unwrap()
        .into_iter()
        .find(|q| q.quest_id == "rat_king")
        .unwrap();
    assert_eq!((king.status, king.completions), (QuestStatus::Completed, 2));
}

#[test]
fn accepting_a_trade_closes_the_dialogue() {
    let mut world = world();
    world.tick(vec![join("a", t(4, 4), &[], 1), join("b", t(6, 4), &[], 1)]);
    talk(&mut world, "a");
    let events = world.tick(vec![Command::Trade {
        id: "b".into(),
        command: wayfarer_sim::TradeCommand::Request { target: "a".into() },
        reference: None,
    }]);
    // Asked, not yet trading: still talking.
    assert_eq!(closed(&events, "a"), None);
    let trade_id = events
        .iter()
        .find_map(|e| match e {
            Event::Exchange {
                to,
                id,
                notice: wayfarer_sim::exchange::Notice::Asked { .. },
                ..
            } if to == "a" => id.clone(),
            _ => None,
        })
        .expect("tradeIncoming");
    let events = world.tick(vec![Command::Trade {
        id: "a".into(),
        command: wayfarer_sim::TradeCommand::Respond {
            trade_id,
            accept: true,
        },
        reference: None,
    }]);
    assert_eq!(closed(&events, "a"), Some(CloseReason::Trade));
}

#[test]
fn abandoning_a_quest_puts_it_back_to_not_started_and_takes_its_items_back() {
    let mut world = world();
    world.tick(vec![join("a", t(4, 4), &[], 1)]);
    let abandon = |quest: &str| Command::QuestAbandon {
        id: "a".into(),
        quest_id: quest.into(),
        reference: Some(8),
    };
    // Not started: nothing to abandon.
    let events = world.tick(vec![abandon("rat_trouble")]);
    assert!(events.iter().any(|e| matches!(e,
        Event::Rejected { to, code, .. } if to == "a" && *code == codes::INVALID_ACTION)));
    talk(&mut world, "a");
    respond(&mut world, "a", 0);
    respond(&mut world, "a", 0);
    assert_eq!(held(&world, "a", "charm"), 1, "started, the charm given");
    let events = world.tick(vec![abandon("rat_trouble")]);
    let update = events
        .iter()
        .find_map(|e| match e {
            Event::QuestUpdated { to, record, .. } if to == "a" => Some(record.clone()),
            _ => None,
        })
        .expect("quest:update");
    assert_eq!(update.status, QuestStatus::NotStarted);
    assert_eq!(update.stage_id, None);
    assert_eq!(
        held(&world, "a", "charm"),
        0,
        "the quest's charm taken back"
    );
    assert_eq!(world.player_quests("a"), Some(vec![]));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SaveNow { id } if id == "a")));
    // It can be started again, from the start.
    talk(&mut world, "a");
    respond(&mut world, "a", 0);
    let events = respond(&mut world, "a", 0);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::QuestUpdated { record, .. }
        if record.status == QuestStatus::InProgress && record.stage_id.as_deref() == Some("rats")))
    );
    assert_eq!(held(&world, "a", "charm"), 1);
}

/// A walk to talk ends beside the NPC, never on its tile, from whatever side and distance (two
/// tiles a tick from an even distance used to land on it).
#[test]
fn talking_stops_beside_the_npc_not_on_its_tile() {
    for (n, start) in [t(5, 9), t(9, 5), t(1, 1), t(9, 9), t(5, 8)]
        .into_iter()
        .enumerate()
    {
        let mut world = world();
        let id = format!("p{n}");
        world.tick(vec![join(&id, start, &[], 1)]);
        let sage = world
            .npcs()
            .into_iter()
            .find(|e| e.type_id.as_deref() == Some("sage"))
            .expect("the sage");
        let events = talk(&mut world, &id);
        assert!(opened(&events, &id).is_some(), "from {start:?}");
        let at = world.player_tile(&id).expect("in the world");
        assert_eq!(
            wayfarer_sim::chebyshev(at, t(sage.x, sage.z)),
            1,
            "from {start:?} the talk ends at {at:?}, beside the sage at ({}, {})",
            sage.x,
            sage.z
        );
    }
}
