//! The built-in planner playing on its own.

use serde_json::json;
use wayfarer_agent::Brain;

use crate::{goal, holds, level, Clock, TestApp};

/// Server ticks the climb from level 1 to 5 may take: about 16 logs at level 1–4 rates and the
/// walk to the trees, some 250 ticks in stepped runs, and four times that for bad luck with the
/// dice (they are seeded fresh each start). The agent never lags the stepped world, so the
/// machine's speed is not part of the count.
const TICKS_TO_LEVEL_5: u64 = 1_000;
/// Server ticks from level 5 to a deposit of logs at the bank (filling the free slots, the walk
/// there): some 50 in stepped runs.
const TICKS_TO_BANK: u64 = 500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_takes_a_fresh_character_from_woodcutting_1_to_5_then_banks_when_full() {
    // The world ticks in time with the agent: each tick runs once the agent has answered the
    // last, so the ticks counted are the game's, not the machine's speed.
    let server = TestApp::for_agents(Clock::Manual).await;
    // Level 7 needs more logs than a starter's free slots hold: the agent must bank on the way.
    let agent = server.agent(
        "Woody",
        Some(goal(
            json!({"kind": "skill", "target": {"skill": "woodcutting", "level": 7}}),
        )),
        Brain::Planner,
        None,
    );
    let start = agent.entered().await;
    assert_eq!(level(&start, "woodcutting"), 1);
    let (at_5, ticks) = agent
        .run_until(TICKS_TO_LEVEL_5, "woodcutting level 5", |s| {
            level(s, "woodcutting") >= 5
        })
        .await;
    assert!(level(&at_5, "woodcutting") >= 5, "after {ticks} ticks");
    println!("woodcutting 1 to 5 in {ticks} ticks");
    let (banked, ticks) = agent
        .run_until(TICKS_TO_BANK, "a bank deposit of logs", |s| {
            s.recent_decisions.iter().any(|d| {
                d.action == "bankDeposit" && d.outcome.as_ref().is_some_and(|o| o.is_success())
            })
        })
        .await;
    println!("to the bank in {ticks} more ticks");
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
