//! `wayfarer bench-agents` (CONTRACT.md section 12): the same seed and the planner give the same
//! report every run, and the report has the contract's shape.

use wayfarer_agent::BrainChoice;
use wayfarer_server::bench_agents::{run, BenchOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_of_one_seed_with_the_planner_give_identical_json() {
    // Short tasks of each kind of check: making, cooking (fires, burns: the dice), the owner's
    // stop, command and resume over the control plane.
    let options = BenchOptions {
        tasks: vec![
            "make-bronze-dagger".into(),
            "cook-10-shrimp".into(),
            "owner-control".into(),
        ],
        seeds: vec![1],
        brain: BrainChoice::Planner,
        model: None,
    };
    let first = serde_json::to_value(run(&options).await.expect("the bench runs")).unwrap();
    let second = serde_json::to_value(run(&options).await.expect("the bench runs")).unwrap();
    assert_eq!(first, second);
    assert_eq!(first["seeds"], serde_json::json!([1]));
    assert_eq!(first["version"], 1);
    let tasks = first["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    for task in tasks {
        for field in [
            "id", "success", "progress", "ticks", "deaths", "refused", "tokens",
        ] {
            assert!(!task[field].is_null(), "{field} in {task}");
        }
    }
    assert!(first["score"]
        .as_f64()
        .is_some_and(|s| (0.0..=100.0).contains(&s)));
}

/// The planner's behaviours, each on the task that needs it, on a real server in lockstep: the
/// tool withdrawn from the bank, a tool bought at the shop (its dialogue answered), a full bag
/// sold for coins, food taken from the bank before fighting (the sword worn), a chosen item made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_withdraws_buys_sells_and_feeds_itself_from_the_bank() {
    let tasks = [
        "hatchet-from-bank",
        "buy-a-hatchet",
        "earn-100-coins",
        "goblins-food-in-bank",
        "bank-50-logs",
    ];
    let options = BenchOptions {
        tasks: tasks.iter().map(|t| (*t).to_owned()).collect(),
        seeds: vec![1],
        brain: BrainChoice::Planner,
        model: None,
    };
    let report = run(&options).await.expect("the bench runs");
    for task in &report.tasks {
        assert_eq!(task.success, 1.0, "{task:?}");
        assert_eq!(task.deaths, 0, "{task:?}");
    }
}
