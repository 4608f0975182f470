//! What each player is shown: entering, moving, changing and leaving view, and the crowd caps.

use std::collections::BTreeMap;

use wayfarer_protocol::ws::{EntityKind, RemovedList, TilePos, WorldUpdate};
use wayfarer_sim::{
    chebyshev, Action, Command, Event, Joining, Phase, World, MAX_VISIBLE_GROUND_ITEMS,
    MAX_VISIBLE_NPCS, MAX_VISIBLE_PLAYERS,
};

use crate::arena::stack;

use crate::{added_ids, join, t, views, walk, Field, Mobs};

/// What a client knows, rebuilt from the updates it receives; every update is checked to be
/// consistent with what came before (no duplicate adds, no moves or removals of unknown entities).
#[derive(Debug, Default)]
pub struct Client {
    pub known: BTreeMap<String, (EntityKind, TilePos)>,
}

impl Client {
    pub fn apply(&mut self, update: &WorldUpdate) {
        for id in &update.removed {
            assert!(self.known.remove(&**id).is_some(), "removed unknown {id}");
        }
        for e in &update.added {
            let old = self.known.insert(e.id.clone(), (e.kind, t(e.x, e.z)));
            assert!(old.is_none(), "added {} twice", e.id);
        }
        for m in &update.moved {
            let entry = self.known.get_mut(&*m.id);
            let Some((_, tile)) = entry else {
                panic!("moved unknown {}", m.id)
            };
            *tile = t(m.x, m.z);
        }
        for c in &update.changed {
            assert!(self.known.contains_key(&c.id), "changed unknown {}", c.id);
        }
    }

    pub fn count(&self, kind: EntityKind) -> usize {
        self.known.values().filter(|(k, _)| *k == kind).count()
    }
}

/// Every entity in the world with its tile (players by id from `ids`).
fn truth(world: &World, ids: &[String]) -> BTreeMap<String, (EntityKind, TilePos)> {
    let mut all = BTreeMap::new();
    for id in ids {
        if let Some(tile) = world.player_tile(id) {
            all.insert(id.clone(), (EntityKind::Player, tile));
        }
    }
    for e in world.npcs().into_iter().chain(world.resources()) {
        all.insert(e.id.clone(), (e.kind, t(e.x, e.z)));
    }
    all
}

/// Asserts the client knows exactly the entities within view of `me` (no cap reached), at their tiles.
fn assert_knows_exactly_what_is_in_view(client: &Client, world: &World, me: &str, ids: &[String]) {
    let centre = world.player_tile(me).unwrap();
    let expected: BTreeMap<_, _> = truth(world, ids)
        .into_iter()
        .filter(|(_, (_, tile))| chebyshev(centre, *tile) <= 32)
        .collect();
    assert_eq!(client.known, expected);
}

#[test]
fn the_first_tick_shows_everything_in_view_as_added() {
    let mut field = Field::new(100).rocks([(12, 12), (80, 80)]);
    field.npcs = vec![(8, 8), (90, 90)];
    let mut world = field.world();
    let events = world.tick(vec![join("ada", t(10, 10))]);
    let v = views(&events);
    let update = &v["ada"];
    assert_eq!(update.tick, 1);
    assert!(update.moved.is_empty() && update.removed.is_empty());
    let me = update.added.iter().find(|e| e.id == "ada").expect("self");
    assert_eq!((me.kind, me.x, me.z), (EntityKind::Player, 10, 10));
    assert_eq!(me.name.as_deref(), Some("Ada"));
    assert_eq!((me.health, me.max_health), (Some(10), Some(10)));
    let rock = update
        .added
        .iter()
        .find(|e| e.kind == EntityKind::Resource)
        .expect("the near rock");
    assert_eq!((rock.x, rock.z), (12, 12));
    assert_eq!(rock.resource_type.as_deref(), Some("ore"));
    assert_eq!(rock.depleted, Some(false));
    assert_eq!(rock.type_id.as_deref(), Some("rock_copper"));
    assert_eq!(rock.name.as_deref(), Some("Copper rock"));
    let banker = update
        .added
        .iter()
        .find(|e| e.kind == EntityKind::Npc)
        .expect("the near banker");
    assert_eq!((banker.x, banker.z), (8, 8));
    assert_eq!(banker.name.as_deref(), Some("Banker"));
    assert_eq!(banker.health, Some(10));
    assert_eq!(
        update.added.len(),
        3,
        "the far rock and banker are not shown"
    );
}

#[test]
fn two_players_approach_and_part_with_the_right_updates_each_tick() {
    let mut world = Field::new(100).world();
    let events = world.tick(vec![join("ada", t(10, 10)), join("bob", t(70, 10))]);
    let v = views(&events);
    assert_eq!(added_ids(&v["ada"]), vec!["ada"]);
    assert_eq!(added_ids(&v["bob"]), vec!["bob"]);

    let ids = vec!["ada".to_string(), "bob".to_string()];
    let mut ada = Client::default();
    let mut bob = Client::default();
    ada.apply(&v["ada"]);
    bob.apply(&v["bob"]);
    let ada_tile = t(10, 10);
    let mut commands = vec![walk("bob", t(20, 10))];
    let mut seen_added = false;
    let mut seen_removed = false;
    for round in 0..2 {
        for _ in 0..40 {
            let before = world.player_tile("bob").unwrap();
            let events = world.tick(std::mem::take(&mut commands));
            let after = world.player_tile("bob").unwrap();
            let v = views(&events);
            let was = chebyshev(before, ada_tile) <= 32;
            let is = chebyshev(after, ada_tile) <= 32;
            let expected_for_ada = match (was, is) {
                (false, true) => Some((vec!["bob".to_string()], vec![], vec![])),
                (true, true) if before != after => Some((vec![], vec!["bob".to_string()], vec![])),
                (true, false) => Some((vec![], vec![], vec!["bob".to_string()])),
                _ => None,
            };
            let got_for_ada = v.get("ada").map(|u| {
                (
                    added_ids(u),
                    u.moved.iter().map(|m| m.id.to_string()).collect::<Vec<_>>(),
                    u.removed
                        .iter()
                        .map(|id| id.to_string())
                        .collect::<Vec<_>>(),
                )
            });
            assert_eq!(got_for_ada, expected_for_ada, "bob {before:?} -> {after:?}");
            if let Some(u) = v.get("ada") {
                ada.apply(u);
                seen_added |= !u.added.is_empty();
                seen_removed |= !u.removed.is_empty();
            }
            if before == after {
                assert!(v.is_empty(), "nothing changed, nothing sent: {v:?}");
            } else {
                let u = &v["bob"];
                assert!(
                    u.moved.iter().any(|m| &*m.id == "bob"),
                    "bob sees himself move"
                );
                bob.apply(u);
            }
            assert_knows_exactly_what_is_in_view(&ada, &world, "ada", &ids);
            assert_knows_exactly_what_is_in_view(&bob, &world, "bob", &ids);
        }
        // Then part again.
        assert_eq!(
            world.player_tile("bob"),
            if round == 0 {
                Some(t(20, 10))
            } else {
                Some(t(80, 10))
            }
        );
        commands = vec![walk("bob", t(80, 10))];
    }
    assert!(seen_added && seen_removed);
}

#[test]
fn nothing_is_sent_when_nothing_in_view_changed() {
    let mut field = Field::new(200);
    field.mobs = vec![Mobs {
        at: (150, 150),
        count: 5,
        radius: 3.0,
        wander: true,
    }];
    let mut world = field.world();
    world.tick(vec![join("ada", t(10, 10)), join("bob", t(12, 12))]);
    // Mobs wander far away; nobody near ada or bob moves.
    for _ in 0..30 {
        let events = world.tick(vec![]);
        assert!(events.is_empty(), "{events:?}");
    }
}

#[test]
fn a_player_leaving_the_world_is_removed_from_views() {
    let mut world = Field::new(50).world();
    world.tick(vec![join("ada", t(10, 10)), join("bob", t(12, 12))]);
    let events = world.tick(vec![Command::Leave { id: "bob".into() }]);
    let v = views(&events);
    assert_eq!(v.len(), 1);
    assert_eq!(v["ada"].removed, RemovedList::from(vec!["bob".into()]));
    assert!(v["ada"].added.is_empty() && v["ada"].moved.is_empty());
    // Joining and leaving within one tick shows nothing at all in the views; the server only
    // learns that cy left (from where).
    let events = world.tick(vec![
        join("cy", t(11, 11)),
        Command::Leave { id: "cy".into() },
    ]);
    assert!(views(&events).is_empty(), "{events:?}");
    assert_eq!(
        events.last(),
        Some(&Event::Left {
            id: "cy".into(),
            tile: t(11, 11)
        })
    );
}

#[test]
fn joining_again_shows_everything_anew_and_reports_changed_fields() {
    let mut world = Field::new(50).rocks([(15, 15)]).world();
    world.tick(vec![join("ada", t(10, 10)), join("bob", t(12, 12))]);
    world.tick(vec![]);
    let events = world.tick(vec![Command::Join(Box::new(Joining {
        health: 7,
        ignored: vec![],
        ..Joining::new("bob", "Bob", t(12, 12))
    }))]);
    let v = views(&events);
    assert_eq!(added_ids(&v["bob"]).len(), 3, "self, ada and the rock");
    let change = &v["ada"].changed;
    assert_eq!(change.len(), 1);
    assert_eq!((change[0].id.as_str(), change[0].health), ("bob", Some(7)));
    assert_eq!(change[0].max_health, None, "only what changed");
    assert_eq!(world.players_online(), 2);
}

#[test]
fn a_crowd_shows_at_most_255_other_players_the_nearest() {
    let mut world = Field::new(100).world();
    let mut commands = vec![join("ada", t(50, 50))];
    let mut ids = vec!["ada".to_string()];
    for i in 0..400 {
        let id = format!("p{i}");
        // A 20×20 block around ada: every one of them is within view.
        commands.push(join(&id, t(40 + i % 20, 40 + i / 20)));
        ids.push(id);
    }
    let events = world.tick(commands);
    let v = views(&events);
    let update = &v["ada"];
    let shown: Vec<_> = update
        .added
        .iter()
        .filter(|e| e.kind == EntityKind::Player && e.id != "ada")
        .collect();
    assert_eq!(shown.len(), MAX_VISIBLE_PLAYERS);
    let centre = t(50, 50);
    let farthest_shown = shown
        .iter()
        .map(|e| chebyshev(centre, t(e.x, e.z)))
        .max()
        .unwrap();
    let shown_ids: Vec<&str> = shown.iter().map(|e| e.id.as_str()).collect();
    for id in &ids[1..] {
        let d = chebyshev(centre, world.player_tile(id).unwrap());
        if d < farthest_shown {
            assert!(
                shown_ids.contains(&id.as_str()),
                "{id} at {d} is nearer than one shown"
            );
        }
    }

    // The crowd mills about; the cap holds and the client's picture stays consistent.
    let mut client = Client::default();
    client.apply(update);
    for round in 0..6 {
        let moves = ids[1..]
            .iter()
            .enumerate()
            .map(|(i, id)| {
                walk(
                    id,
                    t(
                        30 + ((i * 7 + round * 13) % 40) as i32,
                        30 + ((i * 11 + round * 5) % 40) as i32,
                    ),
                )
            })
            .collect();
        for commands in [moves, vec![], vec![]] {
            let events = world.tick(commands);
            if let Some(u) = views(&events).get("ada") {
                client.apply(u);
            }
            assert!(client.count(EntityKind::Player) <= MAX_VISIBLE_PLAYERS + 1);
            for (id, (_, tile)) in &client.known {
                assert_eq!(world.player_tile(id), Some(*tile), "{id} shown where it is");
            }
        }
    }
}

#[test]
fn at_most_255_npcs_are_shown() {
    let mut field = Field::new(60);
    field.mobs = vec![Mobs {
        at: (30, 30),
        count: 400,
        radius: 20.0,
        wander: false,
    }];
    let mut world = field.world();
    assert_eq!(world.counts().npcs, 400);
    let events = world.tick(vec![join("ada", t(30, 30))]);
    let update = &views(&events)["ada"];
    let npcs = update
        .added
        .iter()
        .filter(|e| e.kind == EntityKind::Npc)
        .count();
    assert_eq!(npcs, MAX_VISIBLE_NPCS);
}

/// Puts `per_tile` unstackable ores (one ground item each) on each of `tiles`, public at once;
/// the tick's events.
fn pile_ore(world: &mut World, tiles: &[TilePos], per_tile: u32) -> Vec<Event> {
    let piles = tiles
        .iter()
        .enumerate()
        .map(|(i, tile)| Command::RestoreDeathPile {
            death_id: format!("pile-{i}"),
            owner: "nobody".into(),
            tile: *tile,
            items: vec![stack("copper_ore", per_tile)],
            private_ticks: 0,
        })
        .collect();
    world.tick(piles)
}

fn ground_shown(client: &Client, centre: TilePos) -> Vec<(u32, String)> {
    let mut shown: Vec<(u32, String)> = client
        .known
        .iter()
        .filter(|(_, (kind, _))| *kind == EntityKind::GroundItem)
        .map(|(id, (_, tile))| (chebyshev(centre, *tile), id.clone()))
        .collect();
    shown.sort();
    shown
}

#[test]
fn at_most_255_ground_items_are_shown_the_nearest_and_a_taken_one_makes_room() {
    let mut world = Field::new(100).world();
    let centre = t(50, 50);
    let mut client = Client::default();
    client.apply(&views(&world.tick(vec![join("ada", centre), join("bob", centre)]))["ada"]);
    // 20 ores on each of 20 tiles going east from ada's: 400 items, all within view.
    let tiles: Vec<TilePos> = (0..20).map(|i| t(50 + i, 50)).collect();
    let events = pile_ore(&mut world, &tiles, 20);
    assert_eq!(world.ground_items().len(), 400);
    client.apply(&views(&events)["ada"]);
    let shown = ground_shown(&client, centre);
    assert_eq!(shown.len(), MAX_VISIBLE_GROUND_ITEMS);
    // The nearest: every item within 11 tiles (12 tiles of 20), and 15 of the 20 at 12 tiles.
    assert!(shown.iter().all(|(d, _)| *d <= 12), "{shown:?}");
    assert_eq!(shown.iter().filter(|(d, _)| *d < 12).count(), 240);

    // Bob takes one under their feet: ada is told it is gone and is shown one more at 12 tiles.
    let taken = shown[0].1.clone();
    let events = world.tick(vec![Command::Action {
        id: "bob".into(),
        action: Action::Pickup {
            target: taken.clone(),
        },
        reference: None,
    }]);
    let update = &views(&events)["ada"];
    assert_eq!(
        update.removed.iter().map(|id| &**id).collect::<Vec<_>>(),
        [taken.as_str()]
    );
    assert_eq!(update.added.len(), 1);
    let added = update.added.get(0).expect("one added");
    assert_eq!(chebyshev(centre, t(added.x, added.z)), 12);
    client.apply(update);
    assert_eq!(
        ground_shown(&client, centre).len(),
        MAX_VISIBLE_GROUND_ITEMS
    );

    // Walking into the far end of the pile brings its nearest into view instead.
    for i in 0..30 {
        let commands = if i == 0 {
            vec![walk("ada", t(69, 50))]
        } else {
            vec![]
        };
        let events = world.tick(commands);
        if let Some(u) = views(&events).get("ada") {
            client.apply(u);
        }
    }
    let here = world.player_tile("ada").unwrap();
    assert_eq!(here, t(69, 50));
    let shown = ground_shown(&client, here);
    assert_eq!(shown.len(), MAX_VISIBLE_GROUND_ITEMS);
    assert!(shown.iter().all(|(d, _)| *d <= 12), "{shown:?}");
}

#[test]
fn wandering_mobs_are_seen_moving_and_stay_near_home() {
    let mut field = Field::new(60);
    field.mobs = vec![Mobs {
        at: (30, 30),
        count: 6,
        radius: 2.0,
        wander: true,
    }];
    let mut world = field.world();
    let ids = vec!["ada".to_string()];
    let mut client = Client::default();
    let mut npc_moves = 0;
    for tick in 0..80 {
        let commands = if tick == 0 {
            vec![join("ada", t(30, 20))]
        } else {
            vec![]
        };
        let events = world.tick(commands);
        if let Some(u) = views(&events).get("ada") {
            npc_moves += u.moved.len();
            client.apply(u);
        }
        assert_knows_exactly_what_is_in_view(&client, &world, "ada", &ids);
        for npc in world.npcs() {
            assert!(world.is_walkable(t(npc.x, npc.z)));
            // Spawned within 2 of (30, 30), wandering within 4 of where it spawned.
            assert!(chebyshev(t(npc.x, npc.z), t(30, 30)) <= 6, "{npc:?}");
        }
    }
    assert!(npc_moves > 0, "mobs wander");
}

#[test]
fn phases_are_observed_in_order() {
    let mut world = Field::new(10).world();
    let mut seen = Vec::new();
    let events = world.tick_observed(vec![join("ada", t(1, 1))], &mut |p| seen.push(p));
    assert_eq!(seen, Phase::ALL.to_vec());
    // A joining player learns their derived stats (for the record), sees the world, then learns
    // the area they stand in, their prayer points and quests; a newcomer is welcomed last.
    assert!(
        matches!(
            &events[..],
            [
                Event::Stats { .. },
                Event::View { .. },
                Event::Zone { .. },
                Event::Prayer { .. },
                Event::QuestList { .. },
                Event::Chat { message, .. },
            ] if message.text.starts_with("Welcome to ")
        ),
        "{events:?}"
    );
    assert_eq!(world.tick_number(), 1);
}
