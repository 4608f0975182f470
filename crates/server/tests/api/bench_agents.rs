//! `wayfarer bench-agents` (CONTRACT.md section 12): the same seed and the planner give the same
//! report every run, and the report has the contract's shape.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use wayfarer_agent::brain::tape::{Tape, TapeMode};
use wayfarer_agent::brain::{LlmConfig, Provider};
use wayfarer_agent::Brain;
use wayfarer_server::bench_agents::{replay_brain, run, BenchOptions};

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
        brain: Brain::Planner,
        tape: None,
    };
    let first = serde_json::to_value(run(&options).await.expect("the bench runs")).unwrap();
    let second = serde_json::to_value(run(&options).await.expect("the bench runs")).unwrap();
    assert_eq!(first, second);
    assert_eq!(first["seeds"], serde_json::json!([1]));
    assert_eq!(first["version"], 3);
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

/// Runs `task` on `seeds` with the planner twice: the same runs both times; the first report.
async fn twice_the_same(task: &str, seeds: &[u64]) -> wayfarer_server::bench_agents::Report {
    let options = BenchOptions {
        tasks: vec![task.to_owned()],
        seeds: seeds.to_vec(),
        brain: Brain::Planner,
        tape: None,
    };
    let first = run(&options).await.expect("the bench runs");
    let second = run(&options).await.expect("the bench runs");
    assert_eq!(
        serde_json::to_value(&first.runs).unwrap(),
        serde_json::to_value(&second.runs).unwrap()
    );
    first
}

/// Ten agents on shared trees (node and place claims shared, others at a node counted as taken,
/// homes settled eight and two over the map's two places of trees): the same report on two runs
/// (the agents enter one at a time, so the world's order of them does not depend on which socket
/// was quicker), and their XP spread well above the 82% of herding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_agents_on_shared_trees_spread_out_and_give_the_same_report_twice() {
    let first = twice_the_same("shared-trees", &[1]).await;
    assert!(first.tasks[0].progress >= 90.0, "{:?}", first.tasks[0]);
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
        brain: Brain::Planner,
        tape: None,
    };
    let report = run(&options).await.expect("the bench runs");
    for task in &report.tasks {
        assert_eq!(task.success, 1.0, "{task:?}");
        assert_eq!(task.deaths, 0, "{task:?}");
    }
}

/// The planner's fights, quests and spells, each on its task on a real server in lockstep: ten
/// chickens from a fresh character without a death (the sword worn from the bag, food eaten,
/// then bought, looted and cooked, out of the fight to rest when none is left), First Catch done
/// (talk to Old Marta, catch, cook, hand in), a spell cast from the runes in the bag.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_kills_ten_chickens_without_dying_finishes_first_catch_and_casts_a_spell() {
    let tasks = ["kill-10-chickens", "quest-first-catch", "cast-a-spell"];
    let options = BenchOptions {
        tasks: tasks.iter().map(|t| (*t).to_owned()).collect(),
        seeds: vec![1, 2],
        brain: Brain::Planner,
        tape: None,
    };
    let report = run(&options).await.expect("the bench runs");
    assert_eq!(report.tasks.len(), 3);
    for task in &report.tasks {
        assert_eq!(task.success, 1.0, "{task:?}");
        assert_eq!(task.deaths, 0, "{task:?}");
    }
}

/// A duel won on a real server in lockstep: the planner wears its gear, walks up to the bench's
/// scripted opponent (Sparrer, unarmed), challenges, accepts both screens with nothing staked and
/// fights to the result, which the store's duel audit records; the same report twice (a manual
/// tick waits for the duel's commit, so its tick does not depend on the database's speed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_challenges_the_scripted_opponent_and_wins_the_duel_the_same_way_twice() {
    let first = twice_the_same("win-a-duel", &[1, 2]).await;
    let task = &first.tasks[0];
    assert_eq!(task.success, 1.0, "{task:?}");
    assert_eq!((task.deaths, task.refused), (0, 0.0), "{task:?}");
}

/// A mock model (OpenAI's chat completions): it makes the dagger when the state says makeItem
/// is possible now, else idles; always through the one tool, `act`.
async fn answer(State(calls): State<Arc<AtomicUsize>>, Json(request): Json<Value>) -> Json<Value> {
    calls.fetch_add(1, Ordering::SeqCst);
    let tools: Vec<&str> = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .collect();
    assert_eq!(tools, ["act"]);
    let state = request
        .pointer("/messages/1/content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let now = state
        .lines()
        .find_map(|l| l.strip_prefix("Now: "))
        .unwrap_or_default();
    let arguments = if now.split(' ').any(|a| a.starts_with("makeItem")) {
        json!({"action": "makeItem", "params": {"recipeId": "smithing:bronze_dagger"}})
    } else {
        json!({"action": "idle", "params": {"ticks": 5}})
    };
    Json(json!({
        "choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "act", "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 12}
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_model_run_replays_without_a_key_or_a_request() {
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/chat/completions", post(answer))
        .with_state(Arc::clone(&calls));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let dir = tempfile::tempdir().unwrap();
    let model = LlmConfig {
        provider: Provider::OpenAi,
        api_key: "test-key".into(),
        base_url: format!("http://{addr}"),
        model: "mock-model".into(),
        timeout: std::time::Duration::from_secs(10),
        calls_per_minute: 20,
        tokens_per_hour: 200_000,
        breaker_failures: 3,
        breaker_open: std::time::Duration::from_secs(60),
        tape: None,
    };
    let tasks = vec!["make-bronze-dagger".to_owned()];
    let recorded = run(&BenchOptions {
        tasks: tasks.clone(),
        seeds: vec![1],
        brain: Brain::Llm(model),
        tape: Some(Tape {
            dir: dir.path().to_path_buf(),
            mode: TapeMode::Record,
        }),
    })
    .await
    .expect("the recorded run");
    let asked = calls.load(Ordering::SeqCst);
    assert!(asked >= 1, "the model was asked");
    assert_eq!(recorded.tasks[0].success, 1.0, "{:?}", recorded.tasks);
    assert!(recorded.tasks[0].tokens >= 900.0, "{:?}", recorded.tasks);

    let (brain, tape) = replay_brain(dir.path().to_path_buf());
    let replayed = run(&BenchOptions {
        tasks,
        seeds: vec![1],
        brain,
        tape: Some(tape),
    })
    .await
    .expect("the replayed run");
    assert_eq!(calls.load(Ordering::SeqCst), asked, "no request on replay");
    assert_eq!(
        serde_json::to_value(&replayed.tasks).unwrap(),
        serde_json::to_value(&recorded.tasks).unwrap()
    );
    assert_eq!(
        serde_json::to_value(&replayed.runs).unwrap(),
        serde_json::to_value(&recorded.runs).unwrap()
    );
}
