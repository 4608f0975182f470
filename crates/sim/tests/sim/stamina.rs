//! Run energy: drained by running, regained walking or standing, and a run goes on as a walk
//! once it is gone.

use wayfarer_sim::{
    drain_per_tick, regen_per_tick, RUN_ENERGY_PER_PERCENT, RUN_TILES_PER_TICK, WALK_TILES_PER_TICK,
};

use crate::{join, run, t, views, walk, Field};

#[test]
fn running_drains_energy_by_the_classic_rate_and_reports_it_in_world_updates() {
    let mut world = Field::new(200).world();
    world.tick(vec![join("ada", t(0, 0))]);
    assert_eq!(world.player_run_energy("ada"), Some(100));
    world.tick(vec![run("ada", t(190, 0))]);
    // One tick of running with nothing carried: 64 of 10,000 units, shown as 99%.
    assert_eq!(world.player_run_energy("ada"), Some(99));
    let mut reported = None;
    for _ in 0..20 {
        let events = world.tick(vec![]);
        if let Some(stamina) = views(&events).get("ada").and_then(|u| u.stamina) {
            reported = Some(stamina);
        }
    }
    let expected = (10_000 - 21 * drain_per_tick(0.0)) / RUN_ENERGY_PER_PERCENT;
    assert_eq!(world.player_run_energy("ada"), Some(expected));
    assert_eq!(
        reported,
        Some(expected),
        "the last change reached the client"
    );
}

#[test]
fn walking_and_standing_regenerate_and_a_rested_player_sends_nothing() {
    let mut world = Field::new(60).world();
    world.tick(vec![join("ada", t(0, 0)), join("bob", t(5, 5))]);
    world.set_run_energy_units("ada", 5_000);
    // Standing: agility 1 regains 8 units a tick, so 50% becomes 51% after 13 ticks.
    let ticks_per_percent = RUN_ENERGY_PER_PERCENT.div_ceil(regen_per_tick(1));
    let mut seen = Vec::new();
    for _ in 0..ticks_per_percent {
        let events = world.tick(vec![]);
        let views = views(&events);
        assert!(
            views.get("bob").and_then(|u| u.stamina).is_none(),
            "bob is rested: nothing to report"
        );
        seen.extend(views.get("ada").and_then(|u| u.stamina));
    }
    // The first tick tells the client of the drop to 50%, the last of the percent regained.
    assert_eq!(seen, vec![50, 51]);
    // Walking regenerates too.
    world.tick(vec![walk("ada", t(40, 0))]);
    crate::idle(&mut world, 13);
    assert_eq!(world.player_run_energy("ada"), Some(52));
}

#[test]
fn out_of_energy_a_run_goes_on_as_a_walk() {
    let mut world = Field::new(100).world();
    world.tick(vec![join("ada", t(0, 0))]);
    world.set_run_energy_units("ada", 150);
    world.tick(vec![run("ada", t(80, 0))]);
    assert_eq!(
        world.player_tile("ada"),
        Some(t(RUN_TILES_PER_TICK as i32, 0))
    );
    // 150 - 64 = 86 units: under one percent, so the next tick is a walk (and regains).
    assert_eq!(world.player_run_energy("ada"), Some(0));
    world.tick(vec![]);
    assert_eq!(
        world.player_tile("ada"),
        Some(t((RUN_TILES_PER_TICK + WALK_TILES_PER_TICK) as i32, 0))
    );
    assert_eq!(world.player_run_energy("ada"), Some(0));
}

#[test]
fn a_sync_reads_tile_and_run_energy_in_one_lookup_as_it_did_in_two() {
    let mut world = Field::new(200).world();
    world.tick(vec![join("ada", t(0, 0)), join("bob", t(5, 5))]);
    world.tick(vec![run("ada", t(190, 0))]);
    for _ in 0..5 {
        world.tick(vec![]);
        for id in ["ada", "bob"] {
            let both = world.player_tile_and_run_energy(id).unwrap();
            assert_eq!(both.0, world.player_tile(id));
            assert_eq!(Some(both.1), world.player_run_energy(id));
        }
    }
    assert!(world.player_run_energy("ada") < Some(100), "ada ran");
    assert_eq!(world.player_tile_and_run_energy("nobody"), None);
}

#[test]
fn what_a_runner_is_given_weighs_on_the_drain_from_that_very_tick() {
    // The field's ore weighs 10 kg here; the weight a runner carries is kept between ticks
    // and must follow each change to the inventory.
    let mut manifests = Field::new(200).manifests();
    manifests.insert(
        "items/resources.json",
        r#"[{"id": "copper_ore", "name": "Copper ore", "type": "resource", "value": 5, "weight": 10}]"#,
    );
    let content = match wayfarer_content::Content::from_files(&manifests) {
        Ok((content, _)) => std::sync::Arc::new(content),
        Err(report) => panic!("fixture content is invalid:\n{report}"),
    };
    let mut world = wayfarer_sim::World::new(content, 7);
    world.tick(vec![join("ada", t(0, 0))]);
    let give = |quantity| wayfarer_sim::Command::Give {
        id: "ada".into(),
        item_id: "copper_ore".into(),
        quantity,
    };
    // Ten ticks of running from full energy with `first` applied in the first of them: the
    // percent left.
    let mut ten_ticks_running = |first: wayfarer_sim::Command| {
        world.set_run_energy_units("ada", 10_000);
        world.tick(vec![first]);
        crate::idle(&mut world, 9);
        world.player_run_energy("ada")
    };
    let percent_after = |kg: f64| Some((10_000 - 10 * drain_per_tick(kg)) / RUN_ENERGY_PER_PERCENT);
    assert_eq!(ten_ticks_running(run("ada", t(190, 0))), percent_after(0.0));
    // Given while running, in the tick's commands: that tick's drain counts them already.
    assert_eq!(ten_ticks_running(give(3)), percent_after(30.0));
    assert_eq!(ten_ticks_running(give(3)), percent_after(60.0));
    assert_eq!(
        world.player_tile("ada").map(|tile| tile.x),
        Some(30 * RUN_TILES_PER_TICK as i32),
        "ran every tick"
    );
}
