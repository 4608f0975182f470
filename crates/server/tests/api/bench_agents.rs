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
use wayfarer_server::bench_agents::{replay_brain, run, BenchOptions, Split};

/// The options of a dev-split run without trajectories.
fn options(tasks: &[&str], seeds: &[u64], brain: Brain, tape: Option<Tape>) -> BenchOptions {
    BenchOptions {
        tasks: tasks.iter().map(|t| (*t).to_owned()).collect(),
        seeds: seeds.to_vec(),
        brain,
        tape,
        split: Split::Dev,
        trajectories: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_of_one_seed_with_the_planner_give_identical_json() {
    // Short tasks of each kind of check: making, cooking (fires, burns: the dice), the owner's
    // stop, command and resume over the control plane.
    let options = options(
        &["make-bronze-dagger", "cook-10-shrimp", "owner-control"],
        &[1],
        Brain::Planner,
        None,
    );
    let first = serde_json::to_value(run(&options).await.expect("the bench runs")).unwrap();
    let second = serde_json::to_value(run(&options).await.expect("the bench runs")).unwrap();
    assert_eq!(first, second);
    assert_eq!(first["seeds"], serde_json::json!([1]));
    assert_eq!(first["version"], 4);
    // The planner is a brain of its own: scored, no model.
    assert_eq!(first["benchVersion"], 2);
    assert_eq!(first["scored"], true);
    assert!(first.get("model").is_none(), "{first}");
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
    let options = options(&[task], seeds, Brain::Planner, None);
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
    let options = options(&tasks, &[1], Brain::Planner, None);
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
    let options = options(&tasks, &[1, 2], Brain::Planner, None);
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

/// How a mock model answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Text with no tool call, every time.
    Garbage,
    /// `idle` every time.
    Idle,
    /// Makes the dagger when the state offers makeItem, else idles.
    Dagger,
    /// Walks up to the player in view, challenges it (and waits for the answer), accepts each
    /// screen, attacks it.
    Duel,
}

#[derive(Clone)]
struct Mock {
    policy: Policy,
    calls: Arc<AtomicUsize>,
    /// Prompts that named an entity by a database UUID.
    uuids: Arc<AtomicUsize>,
    /// The last request's body.
    last: Arc<std::sync::Mutex<Value>>,
}

/// Whether `text` holds something shaped like a UUID (8-4-4-4-12 hex digits).
fn has_uuid(text: &str) -> bool {
    let groups = [8, 4, 4, 4, 12];
    text.split(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
        .any(|word| {
            let parts: Vec<&str> = word.split('-').collect();
            parts.len() == 5 && parts.iter().zip(groups).all(|(p, n)| p.len() == n)
        })
}

/// The line of the state starting with `prefix`.
fn line<'a>(state: &'a str, prefix: &str) -> &'a str {
    state
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_default()
}

/// The first id an action of the `Now:` line offers (`name[a,b]`).
fn first_id(now: &str, name: &str) -> Option<String> {
    let offer = now
        .split(' ')
        .find(|a| a.starts_with(&format!("{name}[")))?;
    let ids = offer[name.len() + 1..].trim_end_matches(']');
    ids.split(',').next().map(str::to_owned)
}

/// A mock model (OpenAI's chat completions), always through the one tool, `act`.
async fn answer(State(mock): State<Mock>, Json(request): Json<Value>) -> Json<Value> {
    mock.calls.fetch_add(1, Ordering::SeqCst);
    *mock.last.lock().unwrap() = request.clone();
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
    if has_uuid(state) {
        mock.uuids.fetch_add(1, Ordering::SeqCst);
    }
    let now = line(state, "Now: ");
    let idle = json!({"action": "idle", "params": {"ticks": 5}});
    let arguments = match mock.policy {
        Policy::Garbage => {
            return Json(json!({
                "choices": [{"message": {"content": "I would rather chat about the weather."}}],
                "usage": {"prompt_tokens": 900, "completion_tokens": 9}
            }))
        }
        Policy::Idle => idle,
        Policy::Dagger if now.split(' ').any(|a| a.starts_with("makeItem")) => {
            json!({"action": "makeItem", "params": {"recipeId": "smithing:bronze_dagger"}})
        }
        Policy::Dagger => idle,
        Policy::Duel => {
            let player = line(state, "Near: ")
                .split("; ")
                .find_map(|p| p.strip_prefix("player "))
                .and_then(|p| p.split(' ').next())
                .map(str::to_owned);
            let challenged = line(state, "Did: ").starts_with(r#"duel {"step":"challenge""#);
            if challenged {
                // The challenge is out: give the other player time to answer.
                idle
            } else if let Some(target) = player.as_ref().filter(|_| now.contains("attackEntity[")) {
                json!({"action": "attackEntity", "params": {"targetId": target}})
            } else if let Some(target) = first_id(now, "duel") {
                json!({"action": "duel", "params": {"step": "challenge", "targetId": target}})
            } else if now.split(' ').any(|a| a == "duel") {
                json!({"action": "duel", "params": {"step": "accept"}})
            } else if let Some(target) = player {
                json!({"action": "approachEntity", "params": {"targetId": target}})
            } else {
                idle
            }
        }
    };
    Json(json!({
        "choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "act", "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 12,
            "prompt_tokens_details": {"cached_tokens": 512}}
    }))
}

/// A mock model answering by `policy` on a port of its own, and its configuration: a scored
/// run's (a wait for an unusable answer), with sampling set.
async fn mock_model(policy: Policy) -> (Mock, LlmConfig) {
    let mock = Mock {
        policy,
        calls: Arc::new(AtomicUsize::new(0)),
        uuids: Arc::new(AtomicUsize::new(0)),
        last: Arc::new(std::sync::Mutex::new(Value::Null)),
    };
    let app = Router::new()
        .route("/chat/completions", post(answer))
        .with_state(mock.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = LlmConfig {
        provider: Provider::OpenAi,
        api_key: "test-key".into(),
        base_url: format!("http://{addr}"),
        model: "mock-model".into(),
        // Wall time, the one clock a lockstep run reads: long, so a loaded machine does not
        // turn the mock's answers into timeouts (a replay would play those back faithfully, but
        // the recorded run would not be the model's).
        timeout: std::time::Duration::from_secs(30),
        calls_per_minute: 20,
        tokens_per_hour: 200_000,
        breaker_failures: 3,
        breaker_open: std::time::Duration::from_secs(60),
        tape: None,
        temperature: Some(0.0),
        max_tokens: Some(64),
        fallback: wayfarer_agent::brain::Fallback::Wait,
    };
    (mock, config)
}

/// Replays the recording in `dir` on `tasks`, seed 1: no request reaches the model that made it.
async fn replay(
    dir: &std::path::Path,
    tasks: &[&str],
    mock: &Mock,
    asked: usize,
) -> wayfarer_server::bench_agents::Report {
    let (brain, tape) = replay_brain(dir.to_path_buf());
    let replayed = run(&options(tasks, &[1], brain, Some(tape)))
        .await
        .expect("the replayed run");
    assert_eq!(
        mock.calls.load(Ordering::SeqCst),
        asked,
        "no request on replay"
    );
    replayed
}

/// A score measures the brain named (CONTRACT §16): a model answering garbage every step scores
/// as a model that idles (nothing), not as the planner (which makes the dagger and cooks the
/// shrimp: the first test), every unusable answer a wait counted by why; the planner never
/// played a step. With `--fallback planner` the same garbage is played by the planner, and the
/// report says it is not scored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_model_scores_as_the_idle_model_and_the_planner_never_plays_for_it() {
    let tasks = ["make-bronze-dagger", "cook-10-shrimp"];
    let (garbage, config) = mock_model(Policy::Garbage).await;
    let report = run(&options(&tasks, &[1], Brain::Llm(config.clone()), None))
        .await
        .expect("the garbage run");
    let (_, idle_config) = mock_model(Policy::Idle).await;
    let idle = run(&options(&tasks, &[1], Brain::Llm(idle_config), None))
        .await
        .expect("the idle run");
    assert!(garbage.calls.load(Ordering::SeqCst) >= 3);
    assert!(report.scored);
    assert!(
        report.score <= idle.score + 5.0,
        "garbage {} idle {}",
        report.score,
        idle.score
    );
    assert_eq!(report.score, 0.0, "{:?}", report.tasks);
    for task in &report.tasks {
        assert_eq!(task.success, 0.0, "{task:?}");
        assert_eq!(task.model_decisions, 0, "{task:?}");
        assert!(task.fallbacks["malformed"] >= 1, "{task:?}");
        assert_eq!(task.invalid, task.fallbacks["malformed"], "{task:?}");
        // The breaker opened after three failures in a row and the agent waited meanwhile.
        assert!(task.fallbacks["circuit_open"] >= 1, "{task:?}");
    }
    for task in &idle.tasks {
        assert!(task.model_decisions >= 1, "{task:?}");
        assert_eq!(task.invalid, 0, "{task:?}");
    }

    let played = LlmConfig {
        fallback: wayfarer_agent::brain::Fallback::Planner,
        ..config
    };
    let unscored = run(&options(&tasks[..1], &[1], Brain::Llm(played), None))
        .await
        .expect("the run with the planner as fallback");
    assert!(!unscored.scored);
    assert_eq!(unscored.tasks[0].success, 1.0, "{:?}", unscored.tasks);
    let json = serde_json::to_value(&unscored).unwrap();
    assert_eq!(json["scored"], false);
}

/// A valid, naive model scores what it earns, and the report (v2) says what a leaderboard needs:
/// the build, the hashes, the split, the model and its sampling (sent to the provider), and per
/// task its decisions, fallbacks, invalid answers, latency and tokens; `--trajectories` writes
/// the episode's steps. Recorded, the run replays without a key or a request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_model_run_reports_v2_and_replays_without_a_key_or_a_request() {
    let (mock, model) = mock_model(Policy::Dagger).await;
    let dir = tempfile::tempdir().unwrap();
    let trajectories = tempfile::tempdir().unwrap();
    let tasks = ["make-bronze-dagger"];
    let mut recording = options(
        &tasks,
        &[1],
        Brain::Llm(model),
        Some(Tape::new(dir.path().to_path_buf(), TapeMode::Record)),
    );
    recording.trajectories = Some(trajectories.path().to_path_buf());
    let recorded = run(&recording).await.expect("the recorded run");
    let asked = mock.calls.load(Ordering::SeqCst);
    assert!(asked >= 1, "the model was asked");
    let request = mock.last.lock().unwrap().clone();
    assert_eq!(
        (
            request["temperature"].as_f64(),
            request["max_tokens"].as_u64()
        ),
        (Some(0.0), Some(64)),
        "the sampling is sent: {request}"
    );
    let task = &recorded.tasks[0];
    assert_eq!(task.success, 1.0, "{task:?}");
    assert!(task.model_decisions >= 1, "{task:?}");
    assert_eq!((task.invalid, task.fallbacks.len()), (0, 0), "{task:?}");
    assert!(task.tokens_in >= 900 && task.tokens_out >= 12, "{task:?}");
    assert!(task.cached_tokens >= 512, "{task:?}");
    assert!(task.latency_ms.is_some(), "{task:?}");

    let json = serde_json::to_value(&recorded).unwrap();
    assert_eq!(json["benchVersion"], 2);
    assert_eq!(json["split"], "dev");
    assert_eq!(json["scored"], true);
    assert_eq!(
        json["model"],
        json!({"provider": "openai", "name": "mock-model", "temperature": 0.0, "maxTokens": 64})
    );
    for field in ["commit", "contentHash", "taskSetHash"] {
        assert!(
            json[field].as_str().is_some_and(|h| !h.is_empty()),
            "{field}: {json}"
        );
    }
    assert_eq!(json["meanProgress"], 100.0);
    assert!(json["scoreInterval"].is_array());
    let row = &json["tasks"][0];
    for field in [
        "modelDecisions",
        "fallbacks",
        "invalid",
        "latencyMs",
        "tokensIn",
        "tokensOut",
        "cachedTokens",
    ] {
        assert!(!row[field].is_null(), "{field} in {row}");
    }
    assert!(row["latencyMs"]["p95"].as_u64() >= row["latencyMs"]["p50"].as_u64());
    assert_eq!(row["layoutHashes"].as_array().map(Vec::len), Some(1));

    let path = trajectories.path().join("make-bronze-dagger-seed1.jsonl");
    let steps: Vec<Value> = std::fs::read_to_string(&path)
        .expect("the episode's trajectory")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(
        steps.len() as f64 >= recorded.tasks[0].ticks,
        "{}",
        steps.len()
    );
    for step in &steps {
        for field in ["tick", "observation", "action", "outcome"] {
            assert!(step.get(field).is_some(), "{field} in {step}");
        }
    }
    assert!(
        steps
            .iter()
            .any(|s| s["action"]["action"] == "makeItem" && s["action"]["by"] == "llm"),
        "the model's makeItem is in the trajectory"
    );

    let replayed = replay(dir.path(), &tasks, &mock, asked).await;
    assert_eq!(serde_json::to_value(&replayed).unwrap(), json);
}

/// A model's duel with a second player, recorded and replayed: the prompts name the other
/// player by an alias (`p1`), never by its character's id (a UUID, new every run: with ids in
/// the prompts the replay missed them all), so the replay's report is the recorded one byte for
/// byte, latencies and all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_duel_with_another_player_replays_byte_for_byte() {
    // A replay's miss is logged with the first line that differs from the nearest recorded
    // prompt (`Tape::load_or_warn`): shown here should the replay stray.
    let _ = tracing_subscriber::fmt()
        .with_env_filter("wayfarer_agent=warn")
        .with_test_writer()
        .try_init();
    let (mock, model) = mock_model(Policy::Duel).await;
    let dir = tempfile::tempdir().unwrap();
    let tasks = ["win-a-duel"];
    let tape = |mode| Tape::new(dir.path().to_path_buf(), mode);
    let recorded = run(&options(
        &tasks,
        &[1],
        Brain::Llm(model),
        Some(tape(TapeMode::Record)),
    ))
    .await
    .expect("the recorded run");
    let asked = mock.calls.load(Ordering::SeqCst);
    assert!(asked >= 5, "{asked} calls");
    assert_eq!(
        mock.uuids.load(Ordering::SeqCst),
        0,
        "a prompt named a UUID"
    );
    let task = &recorded.tasks[0];
    assert!(task.model_decisions >= 3, "{task:?}");
    assert!(
        task.progress > 0.0,
        "the model fought the duel: {task:?}\n{}",
        mock.last.lock().unwrap()["messages"][1]["content"]
    );

    let replayed = replay(dir.path(), &tasks, &mock, asked).await;
    assert!(
        !replayed.tasks[0].fallbacks.contains_key("replay_miss"),
        "{:?}",
        replayed.tasks[0]
    );
    let text = |r: &wayfarer_server::bench_agents::Report| serde_json::to_string_pretty(r).unwrap();
    assert_eq!(text(&replayed), text(&recorded));
}
