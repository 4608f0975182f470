//! The built-in planner playing on its own.

use std::time::Duration;

use serde_json::json;
use wayfarer_agent::Brain;

use crate::{goal, holds, level, ticking};

/// Server ticks the climb from level 1 to 5 may take (about 16 logs at level 1–4 rates, the walk
/// to the trees, and slack for bad luck).
const TICKS_TO_LEVEL_5: u64 = 2_500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_takes_a_fresh_character_from_woodcutting_1_to_5_then_banks_when_full() {
    let server = ticking(20).await;
    // Level 7 needs more logs than a starter's free slots hold: the agent must bank on the way.
    let mut agent = server.agent(
        "Woody",
        Some(goal(
            json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 7}}),
        )),
        Brain::Planner,
        None,
    );
    let start = agent.entered().await;
    assert_eq!(level(&start, "woodcutting"), 1);
    let start_tick = start.state["gameState"]["tick"].as_u64().unwrap_or(0);
    let at_5 = agent
        .wait_for(Duration::from_secs(240), "woodcutting level 5", |s| {
            level(s, "woodcutting") >= 5
        })
        .await;
    let ticks = at_5.state["gameState"]["tick"].as_u64().unwrap_or(0) - start_tick;
    assert!(ticks <= TICKS_TO_LEVEL_5, "level 5 took {ticks} ticks");
    let banked = agent
        .wait_for(Duration::from_secs(240), "a bank deposit of logs", |s| {
            s.recent_decisions.iter().any(|d| {
                d.action == "bankDeposit" && d.outcome.as_ref().is_some_and(|o| o.is_success())
            })
        })
        .await;
    assert!(
        holds(&banked, "logs") < 5,
        "the logs went to the bank: {}",
        banked.state["inventory"]
    );
    assert_eq!(
        holds(&banked, "bronze_hatchet"),
        1,
        "the hatchet stays in hand"
    );
    agent.handle.shutdown().await;
    server.stop().await;
}
