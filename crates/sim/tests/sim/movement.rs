//! Movement and pathfinding, stepped tick by tick.

use wayfarer_protocol::ws::{codes, TilePos};
use wayfarer_sim::{chebyshev, Command, Event, World, RUN_TILES_PER_TICK, WALK_TILES_PER_TICK};

use crate::{join, run, t, walk, Field};

/// The tile reported for `id` in this tick's events.
fn moved_to(events: &[Event], id: &str) -> Option<TilePos> {
    events.iter().find_map(|e| match e {
        Event::PlayerMoved { id: who, tile } if &**who == id => Some(*tile),
        _ => None,
    })
}

/// A step is legal when it reaches an adjacent walkable tile without cutting a blocked corner.
fn assert_legal_step(world: &World, from: TilePos, to: TilePos) {
    assert!(
        chebyshev(from, to) == 1,
        "{from:?} -> {to:?} is not one step"
    );
    assert!(world.is_walkable(to), "stepped onto blocked {to:?}");
    if from.x != to.x && from.z != to.z {
        assert!(
            world.is_walkable(t(to.x, from.z)) && world.is_walkable(t(from.x, to.z)),
            "{from:?} -> {to:?} cuts a corner"
        );
    }
}

/// Ticks until `id` stops moving (or `max` ticks), checking each tick's progress. Returns the tiles
/// at the end of each tick in which the player moved.
fn follow(world: &mut World, id: &str, max: usize) -> Vec<TilePos> {
    let mut tiles = Vec::new();
    let mut at = world.player_tile(id).expect("player in world");
    for _ in 0..max {
        let path = world.player_path(id);
        let events = world.tick(vec![]);
        let Some(now) = moved_to(&events, id) else {
            assert!(path.is_empty(), "had a path {path:?} but did not move");
            break;
        };
        // The steps taken this tick are the head of the path held before the tick.
        let mut from = at;
        for step in path.iter().take_while(|s| **s != now) {
            assert_legal_step(world, from, *step);
            from = *step;
        }
        assert_legal_step(world, from, now);
        at = now;
        tiles.push(now);
    }
    tiles
}

#[test]
fn walking_advances_two_tiles_per_tick_and_running_four() {
    let mut world = Field::new(40).world();
    world.tick(vec![join("ada", t(0, 0)), join("bob", t(0, 10))]);
    let events = world.tick(vec![walk("ada", t(20, 0)), run("bob", t(20, 10))]);
    assert_eq!(
        moved_to(&events, "ada"),
        Some(t(WALK_TILES_PER_TICK as i32, 0))
    );
    assert_eq!(
        moved_to(&events, "bob"),
        Some(t(RUN_TILES_PER_TICK as i32, 10))
    );
    let events = world.tick(vec![]);
    assert_eq!(moved_to(&events, "ada"), Some(t(4, 0)));
    assert_eq!(moved_to(&events, "bob"), Some(t(8, 10)));
    crate::idle(&mut world, 10);
    assert_eq!(world.player_tile("ada"), Some(t(20, 0)));
    assert_eq!(world.player_tile("bob"), Some(t(20, 10)));
    assert!(world.player_path("ada").is_empty());
}

#[test]
fn an_odd_path_ends_exactly_on_the_target() {
    let mut world = Field::new(20).world();
    world.tick(vec![join("ada", t(0, 0))]);
    world.tick(vec![walk("ada", t(3, 0))]);
    let events = world.tick(vec![]);
    assert_eq!(moved_to(&events, "ada"), Some(t(3, 0)));
    assert!(moved_to(&world.tick(vec![]), "ada").is_none());
}

#[test]
fn a_wall_is_walked_around_through_its_gap() {
    // A wall of rocks along x = 20 with one gap at z = 30.
    let field = Field::new(40).rocks((0..40).filter(|z| *z != 30).map(|z| (20, z)));
    let mut world = field.world();
    assert!(!world.is_walkable(t(20, 10)));
    world.tick(vec![join("ada", t(10, 10))]);
    world.tick(vec![walk("ada", t(30, 10))]);
    let planned = world.player_path("ada");
    assert!(
        planned.contains(&t(20, 30)),
        "goes through the gap: {planned:?}"
    );
    // 20 tiles up to the gap and 20 back down: at least 40 steps, against 20 in a straight line.
    assert!(planned.len() >= 38, "{planned:?}");
    follow(&mut world, "ada", 100);
    assert_eq!(world.player_tile("ada"), Some(t(30, 10)));
}

#[test]
fn diagonal_steps_never_cut_a_blocked_corner() {
    // Two rocks touching at a corner; the straight diagonal from (4,4) to (5,5) would squeeze between.
    let field = Field::new(12).rocks([(5, 4), (4, 5)]);
    let mut world = field.world();
    world.tick(vec![join("ada", t(4, 4))]);
    world.tick(vec![walk("ada", t(5, 5))]);
    // The move tick took two steps already; the detour around the rocks takes six in all.
    let taken = world.player_tile("ada").unwrap();
    assert!(chebyshev(taken, t(4, 4)) <= 2 && world.is_walkable(taken));
    let path = world.player_path("ada");
    assert_eq!(path.len(), 4, "{taken:?} then {path:?}");
    let mut at = taken;
    for step in &path {
        assert_legal_step(&world, at, *step);
        at = *step;
    }
    follow(&mut world, "ada", 20);
    assert_eq!(world.player_tile("ada"), Some(t(5, 5)));
}

#[test]
fn a_move_of_200_tiles_passes_and_201_is_rejected_with_move_too_far() {
    let mut world = Field::new(410).world();
    world.tick(vec![join("ada", t(5, 5))]);
    let events = world.tick(vec![Command::Move {
        id: "ada".into(),
        x: 206,
        z: 5,
        run: false,
        reference: Some(41),
    }]);
    assert!(events.contains(&Event::Rejected {
        to: "ada".into(),
        code: codes::MOVE_TOO_FAR,
        message: "the target is 201 tiles away; a move may go at most 200".into(),
        reference: Some(41),
    }));
    assert_eq!(
        world.player_tile("ada"),
        Some(t(5, 5)),
        "a rejected move changes nothing"
    );
    let events = world.tick(vec![walk("ada", t(205, 205))]);
    assert!(!events.iter().any(|e| matches!(e, Event::Rejected { .. })));
    assert_eq!(world.player_path("ada").last(), Some(&t(205, 205)));
    let events = world.tick(vec![walk("ada", t(7, 207))]);
    assert!(!events.iter().any(|e| matches!(e, Event::Rejected { .. })));
}

#[test]
fn an_unreachable_target_walks_to_the_closest_reachable_tile() {
    // A ring of rocks around (20, 20); the centre is open but enclosed.
    let ring = (19..=21)
        .flat_map(|x| (19..=21).map(move |z| (x, z)))
        .filter(|&(x, z)| (x, z) != (20, 20));
    let mut world = Field::new(30).rocks(ring).world();
    world.tick(vec![join("ada", t(5, 20))]);
    world.tick(vec![walk("ada", t(20, 20))]);
    assert_eq!(world.player_path("ada").last(), Some(&t(18, 20)));
    follow(&mut world, "ada", 20);
    assert_eq!(world.player_tile("ada"), Some(t(18, 20)));
}

#[test]
fn a_target_off_the_map_walks_to_the_closest_reachable_tile() {
    let mut world = Field::new(10).world();
    world.tick(vec![join("ada", t(5, 5))]);
    world.tick(vec![walk("ada", t(5, 60))]);
    follow(&mut world, "ada", 20);
    assert_eq!(world.player_tile("ada"), Some(t(5, 9)));
}

#[test]
fn a_new_move_replaces_the_old_path() {
    let mut world = Field::new(30).world();
    world.tick(vec![join("ada", t(0, 0))]);
    world.tick(vec![walk("ada", t(20, 0))]);
    assert_eq!(world.player_tile("ada"), Some(t(2, 0)));
    let events = world.tick(vec![walk("ada", t(2, 10))]);
    assert_eq!(moved_to(&events, "ada"), Some(t(2, 2)));
    follow(&mut world, "ada", 20);
    assert_eq!(world.player_tile("ada"), Some(t(2, 10)));
}

#[test]
fn stop_ends_the_walk_where_the_player_stands() {
    let mut world = Field::new(30).world();
    world.tick(vec![join("ada", t(0, 0))]);
    world.tick(vec![walk("ada", t(20, 0))]);
    let events = world.tick(vec![Command::Stop { id: "ada".into() }]);
    assert!(moved_to(&events, "ada").is_none());
    assert!(world.player_path("ada").is_empty());
    crate::idle(&mut world, 3);
    assert_eq!(world.player_tile("ada"), Some(t(2, 0)));
}

#[test]
fn players_never_block_each_other() {
    let mut world = Field::new(10).world();
    world.tick(vec![join("ada", t(3, 3)), join("bob", t(3, 3))]);
    assert_eq!(world.player_tile("ada"), Some(t(3, 3)));
    assert_eq!(world.player_tile("bob"), Some(t(3, 3)));
    world.tick(vec![walk("ada", t(5, 3)), walk("bob", t(3, 3))]);
    world.tick(vec![walk("bob", t(5, 3))]);
    assert_eq!(world.player_tile("bob"), Some(t(5, 3)));
    assert_eq!(world.player_tile("ada"), Some(t(5, 3)));
}

#[test]
fn joining_on_a_blocked_tile_places_the_player_nearby_and_reports_it() {
    let mut world = Field::new(10).rocks([(4, 4)]).world();
    let events = world.tick(vec![join("ada", t(4, 4)), join("bob", t(-50, 3))]);
    let ada = world.player_tile("ada").unwrap();
    assert!(world.is_walkable(ada) && chebyshev(ada, t(4, 4)) == 1);
    assert_eq!(moved_to(&events, "ada"), Some(ada));
    assert_eq!(world.player_tile("bob"), Some(t(0, 3)));
    assert_eq!(moved_to(&events, "bob"), Some(t(0, 3)));
}

#[test]
fn teleport_lands_on_the_nearest_walkable_tile_and_ends_the_walk() {
    let mut world = Field::new(20).rocks([(10, 10)]).world();
    world.tick(vec![join("ada", t(0, 0))]);
    world.tick(vec![walk("ada", t(15, 0))]);
    let events = world.tick(vec![Command::Teleport {
        id: "ada".into(),
        tile: t(10, 10),
    }]);
    let tile = world.player_tile("ada").unwrap();
    assert_eq!(chebyshev(tile, t(10, 10)), 1);
    assert_eq!(moved_to(&events, "ada"), Some(tile));
    assert!(world.player_path("ada").is_empty());
    world.tick(vec![Command::Teleport {
        id: "ada".into(),
        tile: t(5000, -5000),
    }]);
    assert_eq!(world.player_tile("ada"), Some(t(19, 0)));
}

#[test]
fn player_moved_is_reported_once_per_tick_with_the_final_tile() {
    let mut world = Field::new(20).world();
    let events = world.tick(vec![join("ada", t(0, 0))]);
    assert!(
        moved_to(&events, "ada").is_none(),
        "joining where saved is no move"
    );
    let events = world.tick(vec![
        Command::Teleport {
            id: "ada".into(),
            tile: t(5, 5),
        },
        run("ada", t(5, 15)),
    ]);
    let reports: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::PlayerMoved { .. }))
        .collect();
    assert_eq!(
        reports,
        vec![&Event::PlayerMoved {
            id: "ada".into(),
            tile: t(5, 9)
        }]
    );
}

#[test]
fn commands_for_players_not_in_the_world_are_ignored() {
    let mut world = Field::new(10).world();
    world.tick(vec![join("ada", t(1, 1))]);
    let events = world.tick(vec![
        Command::Leave { id: "ada".into() },
        walk("ada", t(5, 5)),
        Command::Stop { id: "ghost".into() },
        Command::Teleport {
            id: "ghost".into(),
            tile: t(2, 2),
        },
        Command::Chat {
            id: "ghost".into(),
            channel: wayfarer_protocol::ws::ChatChannel::Global,
            text: "boo".into(),
            to: None,
            reference: None,
        },
        Command::Leave { id: "ghost".into() },
    ]);
    // Only ada's leaving is reported: nothing for her after it, nothing for the ghost.
    assert_eq!(
        events,
        vec![Event::Left {
            id: "ada".into(),
            tile: t(1, 1)
        }]
    );
    assert_eq!(world.players_online(), 0);
    assert_eq!(world.player_tile("ada"), None);
}

#[test]
fn only_the_last_move_of_a_tick_counts() {
    let mut world = Field::new(30).world();
    world.tick(vec![join("ada", t(0, 0))]);
    let events = world.tick(vec![
        walk("ada", t(20, 0)),
        run("ada", t(20, 20)),
        walk("ada", t(0, 20)),
    ]);
    assert_eq!(moved_to(&events, "ada"), Some(t(0, 2)));
    let events = world.tick(vec![
        walk("ada", t(20, 2)),
        Command::Stop { id: "ada".into() },
    ]);
    assert!(
        moved_to(&events, "ada").is_none(),
        "a stop after a move wins"
    );
}
