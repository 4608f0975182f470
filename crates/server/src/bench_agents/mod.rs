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

mod opponent;
pub mod score;
pub mod tasks;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;
use wayfarer_agent::brain::tape::{Tape, TapeMode};
use wayfarer_agent::brain::{LlmConfig, Provider};
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
}

/// The brain that plays a recording back (`--replay DIR`): no key, no request; each prompt's
/// recorded answer, or the planner for a prompt the recording lacks (`replay_miss`).
pub fn replay_brain(dir: PathBuf) -> (Brain, Tape) {
    let tape = Tape {
        dir,
        mode: TapeMode::Replay,
    };
    let config = LlmConfig {
        provider: Provider::OpenAi,
        api_key: String::new(),
        base_url: "replay".into(),
        model: "replayed".into(),
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

/// The result, as `--json` writes it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The manifest's version.
    pub version: u32,
    pub brain: String,
    pub seeds: Vec<u64>,
    /// Crafter's score over the tasks (0..=100).
    pub score: f64,
    /// Its 95% interval over seeds.
    pub score_interval: [f64; 2],
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
    let mut runs = Vec::new();
    for task in &chosen {
        for seed in &options.seeds {
            let run = run_task(&manifest, task, *seed, &brain)
                .await
                .with_context(|| format!("task {} seed {seed}", task.id))?;
            tracing::info!(task = %run.task, seed, success = run.success, progress = run.progress, ticks = run.ticks, "bench run");
            runs.push(run);
        }
    }
    let ids: Vec<String> = chosen.iter().map(|t| t.id.clone()).collect();
    let (score, score_interval) = score::overall(&ids, &options.seeds, &runs);
    Ok(Report {
        version: manifest.version,
        brain: brain.describe(),
        seeds: options.seeds.clone(),
        score,
        score_interval,
        tasks: score::by_task(&ids, &runs),
        runs,
    })
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
        "{:<22} {:>8} {:>9} {:>8} {:>7} {:>8} {:>8}\n",
        "task", "success", "progress", "ticks", "deaths", "refused", "tokens"
    );
    for t in &report.tasks {
        out.push_str(&format!(
            "{:<22} {:>7.0}% {:>9.1} {:>8.0} {:>7} {:>8.1} {:>8.0}\n",
            t.id,
            t.success * 100.0,
            t.progress,
            t.ticks,
            t.deaths,
            t.refused,
            t.tokens
        ));
    }
    out.push_str(&format!(
        "score {:.1} (95% {:.1}–{:.1}) over {} seed(s), brain {}\n",
        report.score,
        report.score_interval[0],
        report.score_interval[1],
        report.seeds.len(),
        report.brain
    ));
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
) -> anyhow::Result<Run> {
    let dir = tempfile::tempdir().context("a temporary directory")?;
    let server = server(dir.path(), manifest.layout_seed, seed).await?;
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
    let mut tokens = 0;
    for player in &players {
        let status = player.handle.status.borrow();
        refused += status.outcomes.get("rejected").copied().unwrap_or(0);
        tokens += status.model.input_tokens + status.model.output_tokens;
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
        ticks,
        deaths,
        refused,
        tokens,
    })
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

/// What the world holds of each agent's character now.
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
