//! `wayfarer bench-agents` (CONTRACT.md section 12): plays each task of the bundled manifest
//! (`tasks`) from a fresh world per seed, in lockstep, and scores the runs (`score`).
//!
//! Each run starts a server in this process on a manual clock, in a temporary directory, with the
//! map's layout fixed by the manifest and the dice seeded from the run's seed. Its agents are
//! registered agents of a bench account, their characters made from the task's template and then
//! given its items, bank and place in the store before they enter. Then, tick by tick: the world
//! runs one tick, every agent takes one step (`Host::lockstep`: the step waits until the agent
//! has read the tick and the world holds what the agent sent, and for a model's answer), and every
//! [`CHECK_EVERY`] ticks the task's check reads the world's own state (the live record, the
//! kills and deaths of the manual world). A run ends at success, at a failure for good, or at the
//! tick limit. Nothing waits on the wall clock but the agents' entry, so the same seed and the
//! planner give the same result every run.
//!
//! A score measures the brain named (CONTRACT §16): with a model, a step it does not serve (a
//! failed, malformed or refused answer, the breaker open) is a wait, counted by why, and the
//! planner never plays for it, unless the model's `fallback` is the planner (`--fallback
//! planner`), which marks the report `"scored": false`. The planner is a brain of its own, the
//! baseline row. The report (v2) carries what a leaderboard needs: the commit, the hashes of the
//! content, the task set and each seed's layout, the split, the model and its sampling, and per
//! task the model's decisions, fallbacks, invalid answers, latency and tokens.

mod opponent;
pub mod score;
pub mod tasks;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;
use wayfarer_agent::brain::tape::{Tape, TapeMode};
use wayfarer_agent::brain::{Fallback, LlmConfig, Provider};
use wayfarer_agent::{AgentConfig, AgentHandle, Brain, Control, Goal, Host, Login};
use wayfarer_store::{CharacterSnapshot, NewUser, StoredBankItem, StoredSlot};

use crate::agents::registration;
use crate::app::AppState;
use crate::characters::creation;
use crate::characters::{CharacterName, Namer};
use crate::config::Config;
use crate::server::RunningServer;
use score::{Run, TaskScore};
use tasks::{Check, ControlWatch, Duels, Manifest, Observed, Start, Task};
use wayfarer_host::world_thread::{live_snapshot, tally};

/// Ticks between two checks of a task (and at its last tick).
pub const CHECK_EVERY: u64 = 5;
/// How long an agent may take to enter the world, or to answer one step (a model's answer
/// included), before the run is given up.
const AGENT_WAIT: Duration = Duration::from_secs(120);
/// The inventory's size.
const INVENTORY_SLOTS: u8 = 28;
/// The report's version (CONTRACT §16).
pub const BENCH_VERSION: u32 = 2;
/// The variable holding the secret of the held-out split (`--split test`).
pub const TEST_SALT_VARIABLE: &str = "BENCH_TEST_SALT";

/// The seeds a report plays: the public dev split (the seeds as given), or the held-out test
/// split (each seed mixed with a secret salt, of which the report keeps only a hash).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Split {
    #[default]
    Dev,
    Test {
        salt: String,
    },
}

impl Split {
    fn name(&self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Test { .. } => "test",
        }
    }

    /// The seed a run's world plays for the seed named.
    fn world_seed(&self, seed: u64) -> u64 {
        match self {
            Split::Dev => seed,
            Split::Test { salt } => {
                let digest = Sha256::new()
                    .chain_update(salt.as_bytes())
                    .chain_update(seed.to_le_bytes())
                    .finalize();
                let mut first = [0u8; 8];
                first.copy_from_slice(&digest[..8]);
                u64::from_le_bytes(first)
            }
        }
    }

    fn salt_hash(&self) -> Option<String> {
        match self {
            Split::Dev => None,
            Split::Test { salt } => Some(short_hash([salt.as_bytes()])),
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Task ids; empty: all.
    pub tasks: Vec<String>,
    pub seeds: Vec<u64>,
    /// The brain (`Brain::select` of `--brain`); a model's answers are recorded or played back
    /// with `tape`.
    pub brain: Brain,
    pub tape: Option<Tape>,
    pub split: Split,
    /// `--trajectories DIR`: one JSONL file an episode.
    pub trajectories: Option<PathBuf>,
}

/// The brain that plays a recording back (`--replay DIR`): no key, no request; each prompt's
/// recorded answer (a prompt the recording lacks is a `replay_miss`), as the model the recording
/// names (its `model.json`: provider, name, address, sampling and fallback), so the replay's report
/// is the recorded one.
pub fn replay_brain(dir: PathBuf) -> (Brain, Tape) {
    let tape = Tape::new(dir, TapeMode::Replay);
    let kept = tape.load_model().unwrap_or(Value::Null);
    let text = |key: &str, default: &str| kept[key].as_str().unwrap_or(default).to_owned();
    let provider = match kept["provider"].as_str() {
        Some("anthropic") => Provider::Anthropic,
        Some("openrouter") => Provider::OpenRouter,
        _ => Provider::OpenAi,
    };
    let config = LlmConfig {
        provider,
        api_key: String::new(),
        base_url: text("baseUrl", "replay"),
        model: text("name", "replayed"),
        temperature: kept["temperature"].as_f64(),
        max_tokens: kept["maxTokens"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok()),
        fallback: match kept["fallback"].as_str() {
            Some("planner") => Fallback::Planner,
            _ => Fallback::Wait,
        },
        timeout: wayfarer_agent::brain::llm::DEFAULT_TIMEOUT,
        calls_per_minute: u32::MAX,
        tokens_per_hour: u64::MAX,
        breaker_failures: wayfarer_agent::brain::llm::DEFAULT_BREAKER_FAILURES,
        breaker_open: wayfarer_agent::brain::llm::DEFAULT_BREAKER_OPEN,
        tape: Some(tape.clone()),
    };
    (Brain::Llm(config), tape)
}

/// The brain as the bench plays it: a model's call and token budgets lifted (they count wall
/// time, which a lockstep run does not follow: the bench measures what the model spends, in
/// `tokens`), and its answers recorded or played back with `tape`.
fn bench_brain(brain: &Brain, tape: Option<&Tape>) -> Brain {
    match brain {
        Brain::Planner => Brain::Planner,
        Brain::Llm(config) => Brain::Llm(LlmConfig {
            calls_per_minute: u32::MAX,
            tokens_per_hour: u64::MAX,
            tape: tape.cloned().or_else(|| config.tape.clone()),
            ..config.clone()
        }),
    }
}

/// The model a report measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub provider: &'static str,
    pub name: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
}

impl ModelInfo {
    fn of(config: &LlmConfig) -> ModelInfo {
        ModelInfo {
            provider: config.provider.name(),
            name: config.model.clone(),
            temperature: config.temperature,
            max_tokens: config.max_tokens,
        }
    }
}

/// What a recording keeps of its model (`brain::tape::MODEL_FILE`), read by [`replay_brain`].
fn kept_model(config: &LlmConfig) -> Value {
    json!({
        "provider": config.provider.name(),
        "name": config.model,
        "baseUrl": config.base_url,
        "temperature": config.temperature,
        "maxTokens": config.max_tokens,
        "fallback": config.fallback.name(),
    })
}

/// The result, as `--json` writes it (CONTRACT §§12 and 16).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The report's shape ([`BENCH_VERSION`]).
    pub bench_version: u32,
    /// The manifest's version.
    pub version: u32,
    /// The build's commit (`COMMIT_HASH`, else the checkout's `git rev-parse HEAD`, else
    /// "unknown").
    pub commit: String,
    /// Hashes of the bundled content and of the task manifest.
    pub content_hash: String,
    pub task_set_hash: String,
    /// `dev` or `test`; for `test`, the hash of its salt (never the salt).
    pub split: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub salt_hash: Option<String>,
    /// Whether the score is the named brain's alone (false: a model with the planner as its
    /// fallback).
    pub scored: bool,
    pub brain: String,
    /// The model and its sampling; absent for the planner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelInfo>,
    pub seeds: Vec<u64>,
    /// Crafter's score over the tasks (0..=100).
    pub score: f64,
    /// Its 95% interval over seeds.
    pub score_interval: [f64; 2],
    /// Mean progress over the tasks (0..=100).
    pub mean_progress: f64,
    pub tasks: Vec<TaskScore>,
    /// Every run, task by seed.
    pub runs: Vec<Run>,
}

/// Reads `--seeds`: `N` (1..N), `A..B` or a list `1,5,9`.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    let text = text.trim();
    let number = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("{t:?} is not a seed"))
    };
    let seeds: Vec<u64> = if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (number(a)?, number(b.trim_start_matches('='))?);
        if a > b {
            return Err(format!("{text}: an empty range"));
        }
        (a..=b).collect()
    } else if text.contains(',') {
        text.split(',').map(number).collect::<Result<_, _>>()?
    } else {
        (1..=number(text)?).collect()
    };
    if seeds.is_empty() || seeds.len() > 1_000 {
        return Err(format!("{text}: 1 to 1000 seeds"));
    }
    Ok(seeds)
}

/// The goal an agent is given, from the manifest.
pub fn goal_of(value: &Value) -> Result<Goal, String> {
    Goal::from_request(value)
}

/// Runs the bench and scores it.
pub async fn run(options: &BenchOptions) -> anyhow::Result<Report> {
    let manifest = tasks::bundled();
    let chosen: Vec<&Task> =
        if options.tasks.is_empty() {
            manifest.tasks.iter().collect()
        } else {
            options
                .tasks
                .iter()
                .map(|id| {
                    manifest.tasks.iter().find(|t| &t.id == id).ok_or_else(|| {
                        anyhow!("no task {id:?} (the tasks: {})", task_ids(&manifest))
                    })
                })
                .collect::<anyhow::Result<_>>()?
        };
    let brain = bench_brain(&options.brain, options.tape.as_ref());
    if let Brain::Llm(config) = &brain {
        if let Some(tape) = config.tape.as_ref().filter(|t| t.mode == TapeMode::Record) {
            tape.save_model(&kept_model(config));
        }
    }
    if let Some(dir) = &options.trajectories {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut runs = Vec::new();
    for task in &chosen {
        for seed in &options.seeds {
            let run = run_task(&manifest, task, *seed, &brain, options)
                .await
                .with_context(|| format!("task {} seed {seed}", task.id))?;
            tracing::info!(task = %run.task, seed, success = run.success, progress = run.progress, ticks = run.ticks, "bench run");
            runs.push(run);
        }
    }
    let ids: Vec<String> = chosen.iter().map(|t| t.id.clone()).collect();
    let (score, score_interval) = score::overall(&ids, &options.seeds, &runs);
    let tasks = score::by_task(&ids, &runs);
    let (scored, model) = match &brain {
        Brain::Planner => (true, None),
        Brain::Llm(c) => (c.fallback == Fallback::Wait, Some(ModelInfo::of(c))),
    };
    Ok(Report {
        bench_version: BENCH_VERSION,
        version: manifest.version,
        commit: commit(),
        content_hash: content_hash(),
        task_set_hash: short_hash([wayfarer_content::AGENT_BENCH.as_bytes()]),
        split: options.split.name(),
        salt_hash: options.split.salt_hash(),
        scored,
        brain: brain.describe(),
        model,
        seeds: options.seeds.clone(),
        score,
        score_interval,
        mean_progress: score::mean_progress(&tasks),
        tasks,
        runs,
    })
}

/// The first 16 hex digits of the SHA-256 of `parts`, each length-prefixed.
fn short_hash<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    let digest = hasher.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash of the bundled content the bench's worlds load (every file, by path).
fn content_hash() -> String {
    let set = wayfarer_content::bundled();
    let mut paths: Vec<&str> = set.paths().collect();
    paths.sort_unstable();
    short_hash(
        paths
            .iter()
            .flat_map(|p| [p.as_bytes(), set.get(p).unwrap_or_default()]),
    )
}

/// The hash of the layout a run plays on: the layout seed and the files the map is made from
/// (the world's generator and its bundled areas), so two runs with one hash share a map. Each
/// task's layout is fixed by the manifest's `layoutSeed` today: every seed has the same hash.
fn layout_hash(layout_seed: u64) -> String {
    let set = wayfarer_content::bundled();
    let file = |p: &str| set.get(p).unwrap_or_default().to_vec();
    let (config, areas) = (file("world-config.json"), file("world-areas.json"));
    short_hash([
        layout_seed.to_le_bytes().as_slice(),
        config.as_slice(),
        areas.as_slice(),
    ])
}

/// The commit the report names: `COMMIT_HASH` as a server reports it, else the checkout's.
fn commit() -> String {
    if let Some(hash) = std::env::var("COMMIT_HASH")
        .ok()
        .filter(|h| !h.trim().is_empty())
    {
        return hash.trim().to_owned();
    }
    std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

fn task_ids(manifest: &Manifest) -> String {
    manifest
        .tasks
        .iter()
        .map(|t| t.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table `bench-agents` prints.
pub fn table(report: &Report) -> String {
    let mut out = format!(
        "{:<28} {:>8} {:>9} {:>7} {:>8} {:>7} {:>8} {:>8}\n",
        "task", "success", "progress", "credit", "ticks", "deaths", "refused", "tokens"
    );
    for t in &report.tasks {
        out.push_str(&format!(
            "{:<28} {:>7.0}% {:>9.1} {:>7.2} {:>8.0} {:>7} {:>8.1} {:>8.0}\n",
            t.id,
            t.success * 100.0,
            t.progress,
            t.credit,
            t.ticks,
            t.deaths,
            t.refused,
            t.tokens
        ));
    }
    out.push_str(&format!(
        "score {:.1} (95% {:.1}–{:.1}), mean progress {:.1}, over {} seed(s) of the {} split, brain {}{}\n",
        report.score,
        report.score_interval[0],
        report.score_interval[1],
        report.mean_progress,
        report.seeds.len(),
        report.split,
        report.brain,
        if report.scored { "" } else { " (not scored: the planner played for the model)" }
    ));
    if report.model.is_some() {
        out.push_str(&format!(
            "{:<28} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8}\n",
            "task", "decisions", "fallbacks", "invalid", "p50 ms", "p95 ms", "cached"
        ));
        for t in &report.tasks {
            let fallbacks: u64 = t.fallbacks.values().sum();
            let (p50, p95) = t.latency_ms.map_or((0, 0), |l| (l.p50, l.p95));
            out.push_str(&format!(
                "{:<28} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8}\n",
                t.id, t.model_decisions, fallbacks, t.invalid, p50, p95, t.cached_tokens
            ));
        }
    }
    out
}

/// A server for one run: manual clock, its own temporary directory and SQLite file, the layout
/// fixed and the dice from `seed`.
async fn server(
    dir: &std::path::Path,
    layout_seed: u64,
    seed: u64,
) -> anyhow::Result<RunningServer> {
    let vars: HashMap<&str, String> = [
        ("PORT", "0".to_owned()),
        ("HOST", "127.0.0.1".to_owned()),
        // The manual clock is the test environment's alone.
        ("NODE_ENV", "test".to_owned()),
        ("TICK_MS", crate::config::MANUAL_CLOCK.to_owned()),
        ("DISABLE_RATE_LIMIT", "true".to_owned()),
        ("WORLD", dir.display().to_string()),
        ("WORLD_SEED", layout_seed.to_string()),
        (
            "DATABASE_URL",
            format!("sqlite://{}", dir.join("wayfarer.db").display()),
        ),
    ]
    .into_iter()
    .collect();
    let mut config = Config::from_lookup(|k| vars.get(k).cloned())?;
    config.dice_seed = Some(seed);
    RunningServer::start(config).await
}

/// One agent of a run.
struct Player {
    handle: AgentHandle,
    character_id: String,
}

async fn run_task(
    manifest: &Manifest,
    task: &Task,
    seed: u64,
    brain: &Brain,
    options: &BenchOptions,
) -> anyhow::Result<Run> {
    let dir = tempfile::tempdir().context("a temporary directory")?;
    let world_seed = options.split.world_seed(seed);
    let server = server(dir.path(), manifest.layout_seed, world_seed).await?;
    let state = server.state.clone();
    let base = format!("http://{}", server.addr);
    let goal = goal_of(&task.agent_goal).map_err(|e| anyhow!("agentGoal: {e}"))?;
    let account = state
        .store
        .users()
        .create(&NewUser {
            name: "bench".into(),
            identity_id: Some("wayfarer:bench-agents".into()),
            roles: Vec::new(),
        })
        .await?;
    let mut players = Vec::new();
    // The agents of a run share their node claims, as the embedded agents of a server do.
    let claims = wayfarer_agent::planner::claims::Claims::default();
    for n in 1..=task.agents {
        let name = CharacterName::parse(&format!("Bench{n}"), Namer::Admin)?;
        let character = creation::create(
            &state,
            &account.id,
            &name,
            task.start.template.as_deref(),
            creation::SERVER_LIMITS,
        )
        .await?;
        seed_start(&state, &character.id, &task.start).await?;
        let (_, registered) =
            registration::register_character(&state, &account.id, &character).await?;
        let handle = wayfarer_agent::spawn_hosted(
            AgentConfig {
                server: base.clone(),
                login: Login::Token(registered.token),
                goal: Some(goal.clone()),
                brain: brain.clone(),
                label: name.as_str().to_owned(),
            },
            Host {
                http: Some(wayfarer_agent_http::client()),
                quiet: true,
                lockstep: true,
                claims: Some(claims.clone()),
                ..Host::default()
            },
        );
        let mut player = Player {
            handle,
            character_id: character.id,
        };
        // One at a time: the world takes players in in the order they join, and that order
        // (their places in its tables, the dice each draws) must not depend on which agent's
        // socket was quicker (ten agents entering at once gave shared-trees 80% or 90% by luck).
        entered(&mut player).await?;
        in_world(&state, &player.character_id).await?;
        players.push(player);
    }
    // The scripted opponent enters after the task's agents, so their places in the world's
    // tables are those of a task without one.
    let mut opponent = match &task.opponent {
        Some(o) => Some(opponent::enter(&state, &account.id, &base, o).await?),
        None => None,
    };
    let mut trajectory = match &options.trajectories {
        Some(dir) => Some(Trajectory::create(dir, &task.id, seed, players.len())?),
        None => None,
    };
    let clock = server.clock();
    let mut watch = ControlWatch::default();
    let mut verdict = tasks::Verdict {
        progress: 0.0,
        failed: false,
    };
    let mut ticks = 0;
    while ticks < task.tick_limit {
        clock.step(1).await.map_err(|e| anyhow!("stepping: {e}"))?;
        ticks += 1;
        owner_script(&task.check, ticks, &players, &state, &mut watch).await?;
        step_all(&players).await?;
        if let Some(t) = trajectory.as_mut() {
            t.write_step(ticks, &players)?;
        }
        if let Some(o) = opponent.as_mut() {
            o.step().await?;
        }
        if ticks % CHECK_EVERY == 0 || ticks == task.tick_limit {
            let observed = observe(&state, &players, &task.check).await?;
            watch_control(&task.check, ticks, &observed, &players, &mut watch);
            verdict = task.check.judge(&observed, ticks, &watch);
            if verdict.success() || verdict.failed {
                break;
            }
        }
    }
    let observed = observe(&state, &players, &task.check).await?;
    let deaths = observed.iter().map(|o| o.tally.deaths).sum();
    let mut refused = 0;
    let mut model = wayfarer_agent::brain::ModelStats::default();
    let mut latencies_ms = Vec::new();
    for player in &players {
        let status = player.handle.status.borrow();
        refused += status.outcomes.get("rejected").copied().unwrap_or(0);
        let m = &status.model;
        model.decisions += m.decisions;
        model.input_tokens += m.input_tokens;
        model.output_tokens += m.output_tokens;
        model.cached_tokens += m.cached_tokens;
        for (why, n) in &m.fallbacks {
            *model.fallbacks.entry(why).or_default() += n;
        }
        latencies_ms.extend(m.latencies.iter().copied());
    }
    if let Some(t) = trajectory.take() {
        t.finish()?;
    }
    for player in players.into_iter().chain(opponent.map(|o| o.player)) {
        player.handle.shutdown().await;
    }
    server.shutdown().await?;
    Ok(Run {
        task: task.id.clone(),
        seed,
        success: verdict.success(),
        progress: (verdict.progress * 1000.0).round() / 10.0,
        credit: (verdict.credit(&task.check) * 1000.0).round() / 1000.0,
        ticks,
        deaths,
        refused,
        tokens: model.input_tokens + model.output_tokens,
        model_decisions: model.decisions,
        fallbacks: model
            .fallbacks
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect(),
        invalid: model.invalid(),
        tokens_in: model.input_tokens,
        tokens_out: model.output_tokens,
        cached_tokens: model.cached_tokens,
        layout_hash: layout_hash(manifest.layout_seed),
        latencies_ms,
    })
}

/// `--trajectories`: an episode's steps, one JSON line each per agent: `{tick, agent,
/// observation, action, outcome}`. The observation is the agent's view after its step (its
/// game state, bag and skills); the action is a decision that ended at that step (an agent
/// records a decision when it ends: a step where none ended has `action` and `outcome` null),
/// with who chose it (`by`: llm, planner, reflex, owner).
struct Trajectory {
    file: std::io::BufWriter<std::fs::File>,
    /// The number of each agent's last decision written.
    written: Vec<u64>,
}

impl Trajectory {
    fn create(dir: &Path, task: &str, seed: u64, agents: usize) -> anyhow::Result<Trajectory> {
        let path = dir.join(format!("{task}-seed{seed}.jsonl"));
        let file =
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Trajectory {
            file: std::io::BufWriter::new(file),
            written: vec![0; agents],
        })
    }

    fn write_step(&mut self, tick: u64, players: &[Player]) -> anyhow::Result<()> {
        for (n, player) in players.iter().enumerate() {
            let status = player.handle.status.borrow();
            let ended: Vec<_> = status
                .recent_decisions
                .iter()
                .filter(|d| d.number > self.written[n])
                .collect();
            let mut lines = Vec::new();
            for d in &ended {
                lines.push(json!({
                    "tick": tick,
                    "agent": status.label,
                    "observation": status.state,
                    "action": {"by": d.by, "action": d.action, "params": d.params, "reason": d.reason},
                    "outcome": d.outcome,
                }));
            }
            if lines.is_empty() {
                lines.push(json!({
                    "tick": tick,
                    "agent": status.label,
                    "observation": status.state,
                    "action": null,
                    "outcome": null,
                }));
            }
            if let Some(last) = ended.iter().map(|d| d.number).max() {
                self.written[n] = last;
            }
            drop(status);
            for line in lines {
                serde_json::to_writer(&mut self.file, &line)?;
                self.file.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> anyhow::Result<()> {
        self.file.flush()?;
        Ok(())
    }
}

/// Gives the created character a task's start in the store, before it enters: items (after
/// taking out `without`), the bank, the purse and the place.
async fn seed_start(state: &AppState, character_id: &str, start: &Start) -> anyhow::Result<()> {
    let store = &state.store;
    let content = state.content.get();
    let content = &content.content;
    let mut character = store
        .characters()
        .get(character_id)
        .await?
        .ok_or_else(|| anyhow!("the character just made is gone"))?;
    let mut inventory = store.inventories().get(character_id).await?;
    inventory.retain(|s| !start.without.contains(&s.item_id));
    if let Some(coins) = start.coins {
        inventory.retain(|s| s.item_id != "coins");
        if coins > 0 {
            put(&mut inventory, content, "coins", coins)?;
        }
    }
    for stack in &start.items {
        put(&mut inventory, content, &stack.item_id, stack.quantity)?;
    }
    let mut bank = store.inventories().bank(character_id).await?;
    for stack in &start.bank {
        bank.push(StoredBankItem {
            item_id: stack.item_id.clone(),
            quantity: stack.quantity,
        });
    }
    if let Some([x, z]) = start.place {
        character.position = [f64::from(x), character.position[1], f64::from(z)];
    }
    character.coins = inventory
        .iter()
        .filter(|s| s.item_id == "coins")
        .map(|s| s.quantity)
        .sum();
    let snapshot = CharacterSnapshot {
        equipment: store.inventories().equipment(character_id).await?,
        character,
        inventory,
        bank,
        quests: Vec::new(),
        xp_reached_at: Default::default(),
    };
    store.inventories().save_batch(&[snapshot]).await?;
    Ok(())
}

/// Adds `quantity` of `item` to the inventory: one stack when it stacks, else one slot each.
fn put(
    inventory: &mut Vec<StoredSlot>,
    content: &wayfarer_content::Content,
    item: &str,
    quantity: i64,
) -> anyhow::Result<()> {
    let stacks = content
        .items
        .get(item)
        .ok_or_else(|| anyhow!("no item {item}"))?
        .stackable;
    if stacks {
        if let Some(slot) = inventory.iter_mut().find(|s| s.item_id == item) {
            slot.quantity += quantity;
            return Ok(());
        }
    }
    let (slots, each) = if stacks { (1, quantity) } else { (quantity, 1) };
    for _ in 0..slots {
        let free = (0..INVENTORY_SLOTS)
            .find(|n| inventory.iter().all(|s| s.slot != *n))
            .ok_or_else(|| anyhow!("the start does not fit the inventory ({item})"))?;
        inventory.push(StoredSlot {
            slot: free,
            item_id: item.to_owned(),
            quantity: each,
        });
    }
    inventory.sort_by_key(|s| s.slot);
    Ok(())
}

/// Waits until the agent is in the world (the only wait on the wall clock).
async fn entered(player: &mut Player) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + AGENT_WAIT;
    loop {
        {
            let status = player.handle.status.borrow_and_update();
            let max_health = status.state["gameState"]["maxHealth"].as_i64().unwrap_or(0);
            if status.character_id.is_some() && max_health > 0 {
                return Ok(());
            }
        }
        if tokio::time::timeout_at(deadline, player.handle.status.changed())
            .await
            .is_err()
        {
            bail!("an agent did not enter the world within {AGENT_WAIT:?}");
        }
    }
}

/// Waits until the world has taken the character in, so the first tick stepped is its first
/// tick in the world in every run (a join is booked between ticks, when its input arrives).
async fn in_world(state: &AppState, character_id: &str) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + AGENT_WAIT;
    loop {
        let live = live_snapshot(&state.world_sender, character_id)
            .await
            .map_err(|e| anyhow!("{e}"))?;
        if live.is_some() {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            bail!("a character did not join the world within {AGENT_WAIT:?}");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Every agent takes its step for the tick just run, one after the other in a fixed order (they
/// share node claims: who claims first must not depend on the machine); the next tick waits for
/// all of them.
async fn step_all(players: &[Player]) -> anyhow::Result<()> {
    for player in players {
        step_one(player).await?;
    }
    Ok(())
}

/// One agent's step for the tick just run, answered once the world holds what it sent.
async fn step_one(player: &Player) -> anyhow::Result<()> {
    let (reply, done) = oneshot::channel();
    player
        .handle
        .control
        .send(Control::Step(reply))
        .await
        .map_err(|_| anyhow!("an agent stopped"))?;
    tokio::time::timeout(AGENT_WAIT, done)
        .await
        .map_err(|_| anyhow!("an agent did not answer its step within {AGENT_WAIT:?}"))?
        .map_err(|_| anyhow!("an agent lost its connection mid-step"))?;
    Ok(())
}

/// What the world holds of each agent's character now. The tally is asked before the store's
/// duel audit is read: a manual world answers it once the commits in flight are written, so a
/// duel that ended this tick is seen at this check on any machine (read at once, its row was
/// there or not by the database's pace, and a loaded machine ended a run a check later).
async fn observe(
    state: &AppState,
    players: &[Player],
    check: &Check,
) -> anyhow::Result<Vec<Observed>> {
    let mut out = Vec::with_capacity(players.len());
    for player in players {
        let snapshot = live_snapshot(&state.world_sender, &player.character_id)
            .await
            .map_err(|e| anyhow!("{e}"))?
            .map(|s| *s);
        let tally = tally(&state.world_sender, &player.character_id)
            .await
            .map_err(|e| anyhow!("{e}"))?;
        let mut duels = Duels::default();
        let audit = if matches!(check, Check::DuelWon) {
            state.store.duels().of(&player.character_id).await?
        } else {
            Vec::new()
        };
        for duel in audit {
            if duel.winner_id == player.character_id {
                duels.won += 1;
            } else {
                duels.lost += 1;
            }
        }
        out.push(Observed {
            snapshot,
            tally,
            duels,
        });
    }
    Ok(out)
}

/// The owner's part of the control task: stop, command and resume at their ticks, sent as the
/// control plane does (`agents::control`), so the agent hears them on its socket.
async fn owner_script(
    check: &Check,
    tick: u64,
    players: &[Player],
    state: &AppState,
    _watch: &mut ControlWatch,
) -> anyhow::Result<()> {
    let Check::Control {
        stop_at,
        command_at,
        command,
        resume_at,
        ..
    } = check
    else {
        return Ok(());
    };
    let Some(player) = players.first() else {
        return Ok(());
    };
    let mapping = state
        .store
        .agents()
        .for_character(&player.character_id)
        .await?
        .ok_or_else(|| anyhow!("the agent's mapping is gone"))?;
    if tick == *stop_at {
        crate::agents::control::set_paused(state, &mapping, true).await?;
    } else if tick == *command_at {
        crate::agents::control::message(state, &mapping, command);
    } else if tick == *resume_at {
        crate::agents::control::set_paused(state, &mapping, false).await?;
    }
    Ok(())
}

/// The control task's memory: the XP when stopped and resumed, any XP between, and whether the
/// owner's command ran (the agent's own record of it).
fn watch_control(
    check: &Check,
    tick: u64,
    observed: &[Observed],
    players: &[Player],
    watch: &mut ControlWatch,
) {
    let Check::Control {
        stop_at,
        resume_at,
        command,
        skill,
        ..
    } = check
    else {
        return;
    };
    let xp = observed
        .first()
        .and_then(|o| o.snapshot.as_ref())
        .and_then(|s| s.character.skills.get(skill))
        .map_or(0, |s| s.xp);
    // A step or two to hear the stop (it arrives after the next tick) is allowed.
    let settled = stop_at + CHECK_EVERY;
    if tick == settled {
        watch.xp_at_stop = Some(xp);
    } else if tick > settled && tick <= *resume_at {
        if watch.xp_at_stop.is_some_and(|at| xp > at) {
            watch.moved_while_stopped = true;
        }
        if tick == *resume_at - resume_at % CHECK_EVERY {
            watch.xp_at_resume = Some(xp);
        }
    }
    if let Some(player) = players.first() {
        let status = player.handle.status.borrow();
        let name = command.split_whitespace().next().unwrap_or_default();
        if status
            .recent_decisions
            .iter()
            .any(|d| d.by == "owner" && d.action == name && d.outcome.is_some())
        {
            watch.command_ran = true;
        }
    }
}

/// Where `--json` goes.
pub fn write_json(report: &Report, path: &PathBuf) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(report)?;
    std::fs::write(path, text + "\n").with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_read_as_a_count_a_range_or_a_list() {
        assert_eq!(parse_seeds("3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("1..5").unwrap(), vec![1, 2, 3, 4, 5]);
        assert_eq!(parse_seeds("4,9").unwrap(), vec![4, 9]);
        assert!(parse_seeds("5..1").is_err());
        assert!(parse_seeds("x").is_err());
        assert!(parse_seeds("0").is_err());
        assert_eq!(parse_seeds("1000").unwrap().len(), 1000);
        assert!(parse_seeds("1001").is_err());
    }
}
