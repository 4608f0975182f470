//! Live content reload: what changed is replaced, what did not stays, players step off new obstacles.

use wayfarer_protocol::ws::{EntityKind, RemovedList};
use wayfarer_sim::{chebyshev, Command, Event};

use crate::arena::stack;
use crate::{added_ids, join, t, views, walk, Field, Mobs};

fn field() -> Field {
    let mut field = Field::new(80).rocks([(5, 5), (6, 6)]);
    field.npcs = vec![(8, 8)];
    field.mobs = vec![Mobs {
        at: (20, 20),
        count: 3,
        radius: 2.0,
        wander: false,
    }];
    field
}

#[test]
fn a_reload_replaces_what_changed_and_keeps_the_rest() {
    let before = field();
    let mut world = before.world();
    world.tick(vec![join("ada", t(10, 10)), join("bob", t(70, 70))]);
    let old_resources = world.resources();
    let old_npcs = world.npcs();
    let banker = old_npcs
        .iter()
        .find(|n| n.name.as_deref() == Some("Banker"))
        .unwrap()
        .clone();

    // The second rock moves onto ada's tile; the banker takes a step and is renamed.
    let mut after = field();
    after.rocks = vec![(5, 5), (10, 10)];
    after.npcs = vec![(9, 8)];
    after.banker_name = "Teller".into();
    world.replace_content(after.content());
    assert!(!world.is_walkable(t(10, 10)));
    assert!(world.is_walkable(t(6, 6)));
    let ada = world.player_tile("ada").unwrap();
    assert_eq!(chebyshev(ada, t(10, 10)), 1, "ada stepped off the new rock");
    assert_eq!(world.player_tile("bob"), Some(t(70, 70)));

    let resources = world.resources();
    assert_eq!(resources.len(), 2);
    assert_eq!(
        resources[0], old_resources[0],
        "the unchanged rock keeps its id"
    );
    assert_ne!(
        resources[1].id, old_resources[1].id,
        "the moved rock is a new entity"
    );
    let mobs_before: Vec<_> = old_npcs
        .iter()
        .filter(|n| n.type_id.as_deref() == Some("statue"))
        .collect();
    let npcs = world.npcs();
    let mobs_after: Vec<_> = npcs
        .iter()
        .filter(|n| n.type_id.as_deref() == Some("statue"))
        .collect();
    assert_eq!(
        mobs_before, mobs_after,
        "an unchanged spawner keeps its mobs"
    );
    let teller = world.entity(&banker.id).expect("the banker keeps its id");
    assert_eq!(
        (teller.x, teller.z, teller.name.as_deref()),
        (9, 8, Some("Teller"))
    );

    let events = world.tick(vec![]);
    assert!(events.contains(&Event::PlayerMoved {
        id: "ada".into(),
        tile: ada
    }));
    let v = views(&events);
    let update = &v["ada"];
    assert_eq!(added_ids(update), vec![resources[1].id.clone()]);
    assert_eq!(
        update.removed,
        RemovedList::from(vec![old_resources[1].id.as_str().into()])
    );
    let mut moved: Vec<_> = update.moved.iter().map(|m| &*m.id).collect();
    moved.sort_unstable();
    assert_eq!(moved, vec!["ada", banker.id.as_str()]);
    assert_eq!(update.changed.len(), 1);
    assert_eq!(update.changed[0].id, banker.id);
    assert_eq!(update.changed[0].name.as_deref(), Some("Teller"));
    assert!(!v.contains_key("bob"), "nothing near bob changed");
}

#[test]
fn a_changed_spawner_respawns_its_mobs_and_walks_replan_around_new_obstacles() {
    let mut world = field().world();
    world.tick(vec![join("ada", t(0, 30))]);
    world.tick(vec![walk("ada", t(30, 30))]);
    let old_mobs: Vec<_> = world
        .npcs()
        .into_iter()
        .filter(|n| n.kind == EntityKind::Npc)
        .collect();
    let mut after = field();
    after.mobs[0].count = 2;
    // A wall across ada's way with a gap at z = 35.
    after.rocks = (20..40).filter(|z| *z != 35).map(|z| (15, z)).collect();
    world.replace_content(after.content());
    let statues = world
        .npcs()
        .into_iter()
        .filter(|n| n.type_id.as_deref() == Some("statue"))
        .collect::<Vec<_>>();
    assert_eq!(statues.len(), 2);
    assert!(statues
        .iter()
        .all(|s| !old_mobs.iter().any(|o| o.id == s.id)));
    for _ in 0..40 {
        world.tick(vec![]);
        assert!(world.is_walkable(world.player_tile("ada").unwrap()));
    }
    assert_eq!(
        world.player_tile("ada"),
        Some(t(30, 30)),
        "re-planned through the gap"
    );
    assert_eq!(world.counts().npcs, 3);
    assert_eq!(world.counts().resources, 19);
}

#[test]
fn items_on_the_ground_stay_in_view_across_a_reload_and_still_expire() {
    let mut world = field().world();
    world.tick(vec![join("ada", t(30, 30))]);
    world.tick(vec![Command::RestoreDeathPile {
        death_id: "d-1".into(),
        owner: "ada".into(),
        tile: t(31, 30),
        items: vec![stack("copper_ore", 2)],
        private_ticks: 0,
    }]);
    let ground = world.ground_items();
    assert_eq!(ground.len(), 2);

    world.replace_content(field().content());
    // Someone arriving after the reload is shown them (the grid was rebuilt with them in it) …
    let events = world.tick(vec![join("bob", t(32, 32))]);
    let seen = added_ids(&views(&events)["bob"]);
    for item in &ground {
        assert!(
            seen.contains(&item.id),
            "{} not shown after the reload",
            item.id
        );
    }
    // … and they leave everyone's view when they expire.
    let now = world.tick_number();
    let mut removed = Vec::new();
    for _ in now..ground[0].despawn_at + 1 {
        if let Some(update) = views(&world.tick(vec![])).get("bob") {
            removed.extend(update.removed.iter().map(|id| id.to_string()));
        }
    }
    assert!(world.ground_items().is_empty());
    for item in &ground {
        assert!(
            removed.contains(&item.id),
            "{} not removed on expiry",
            item.id
        );
    }
}
