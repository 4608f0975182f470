//! Embedded agents (`EMBEDDED_AGENTS`, `serve --agents N`): the server plays N built-in-planner
//! agents over sockets to itself; they gain XP, and a restart plays the same characters. On the
//! manual clock: the embedded agents step in lockstep with the world
//! (`TestApp::tick_with_agents`), so their play is counted in ticks.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use wayfarer_server::agents::embedded::SERVER_IDENTITY;

use crate::support::{AppOptions, TestApp};

const AGENTS: usize = 20;
/// Ticks every agent has to gain XP in (walking to trees, rocks, spots and chickens included):
/// the 150 s the wall-clock version of this test allowed at 100 ms a tick.
const XP_TICKS: u64 = 1_500;
/// Ticks between two looks at the agents' XP (a look is a REST request per agent).
const LOOK_EVERY_TICKS: u64 = 10;
/// How long the agents may take to log in and enter (wall time: their logins and the ramp of
/// `STARTS_PER_TICK`, not the game).
const ENTER_WAIT: Duration = Duration::from_secs(60);

fn options(world_dir: Option<PathBuf>, database_url: Option<String>) -> AppOptions {
    AppOptions {
        env: vec![("EMBEDDED_AGENTS", AGENTS.to_string())],
        world_dir,
        database_url,
        ..AppOptions::default()
    }
}

/// The names of the players online, sorted.
async fn online_names(app: &TestApp) -> Vec<String> {
    let page: Value = app
        .get("/api/player/online?limit=100")
        .await
        .json()
        .await
        .unwrap();
    let mut names: Vec<String> = page["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// Waits until `/status` shows `AGENTS` players online and returns their names, stepping the
/// world with the agents meanwhile (the online list is booked by a tick).
async fn all_in(app: &TestApp) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + ENTER_WAIT;
    loop {
        let status: Value = app.get("/status").await.json().await.unwrap();
        if status["playersOnline"] == AGENTS {
            return online_names(app).await;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not all {AGENTS} embedded agents entered within {ENTER_WAIT:?}: {status}"
        );
        app.tick_with_agents().await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A player's XP over all skills, live while online.
async fn total_xp(app: &TestApp, name: &str) -> i64 {
    let hiscores: Value = app
        .get(&format!("/api/player/{name}/hiscores"))
        .await
        .json()
        .await
        .unwrap();
    hiscores["skills"]
        .as_object()
        .unwrap_or_else(|| panic!("{name}: {hiscores}"))
        .values()
        .map(|s| s["xp"].as_i64().unwrap())
        .sum()
}

async fn xp_of(app: &TestApp, names: &[String]) -> BTreeMap<String, i64> {
    let mut xp = BTreeMap::new();
    for name in names {
        xp.insert(name.clone(), total_xp(app, name).await);
    }
    xp
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_embedded_agents_gain_xp_and_play_the_same_characters_after_a_restart() {
    let app = TestApp::spawn_with(options(None, None)).await;
    let names = all_in(&app).await;
    let expected: Vec<String> = {
        let mut n: Vec<String> = (1..=AGENTS).map(|n| format!("Wanderer{n}")).collect();
        n.sort();
        n
    };
    assert_eq!(names, expected);

    // Every agent works at something (woodcutting, fishing, mining, fighting, firemaking) and
    // so gains XP.
    let start = xp_of(&app, &names).await;
    let mut ticks = 0;
    let mut last = loop {
        let now = xp_of(&app, &names).await;
        let idle: Vec<&String> = names.iter().filter(|n| now[*n] <= start[*n]).collect();
        if idle.is_empty() {
            break now;
        }
        assert!(
            ticks < XP_TICKS,
            "embedded agents without XP after {ticks} ticks: {idle:?} (XP at start {start:?}, now {now:?})"
        );
        for _ in 0..LOOK_EVERY_TICKS {
            app.tick_with_agents().await;
        }
        ticks += LOOK_EVERY_TICKS;
    };
    let account = app
        .store()
        .users()
        .find_by_identity(SERVER_IDENTITY)
        .await
        .unwrap()
        .expect("the server's account");
    let ids = |characters: Vec<wayfarer_store::Character>| -> BTreeMap<String, String> {
        characters.into_iter().map(|c| (c.name, c.id)).collect()
    };
    let before = ids(app
        .store()
        .characters()
        .list_for_account(&account.id)
        .await
        .unwrap());
    assert_eq!(before.len(), AGENTS);
    // What the players were at just before the stop: the final save keeps at least this much.
    for (name, xp) in xp_of(&app, &names).await {
        last.insert(name, xp);
    }

    let stopped = app.stop().await;
    let app = TestApp::spawn_with(options(
        Some(stopped.world_dir.clone()),
        Some(stopped.database_url.clone()),
    ))
    .await;
    assert_eq!(all_in(&app).await, expected);
    let after = ids(app
        .store()
        .characters()
        .list_for_account(&account.id)
        .await
        .unwrap());
    assert_eq!(after, before, "the same characters, none new");
    let mappings = app
        .store()
        .agents()
        .list_for_account(&account.id)
        .await
        .unwrap();
    assert_eq!(mappings.len(), AGENTS, "one agent per character, reused");
    let kept = xp_of(&app, &names).await;
    for name in &names {
        assert!(
            kept[name] >= last[name],
            "{name}: XP {} after the restart, {} before the stop: the shutdown save lost some",
            kept[name],
            last[name]
        );
    }
    app.stop().await;
}
