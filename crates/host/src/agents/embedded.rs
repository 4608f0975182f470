//! Agents the server runs inside its own process (`serve --agents N`, `EMBEDDED_AGENTS`), so a
//! fresh world has life in it, hosted here in the game host. Each is the ordinary agent runtime (`wayfarer_agent`, built-in
//! planner) playing over a real WebSocket to this same server, like any client: the server trusts
//! it no more than a player, and the tick cannot tell it from one.
//!
//! They belong to one account the server owns (found by its identity id [`SERVER_IDENTITY`],
//! made at first need) and their characters have stable names (`<prefix><n>`, n from 1), so a
//! restart plays the same characters: an existing character and agent mapping are reused, what is
//! missing is created, and tokens are minted in-process for each connection (nothing to store,
//! nothing to expire). They start once the listener answers, [`STARTS_PER_TICK`] a tick, and are
//! stopped before the world is, so their characters get the final save like any player's.
//!
//! On the test clock (`TICK_MS=manual`) they play in lockstep with the world
//! ([`wayfarer_agent::Host::lockstep`]): they step only when whoever steps the world steps them
//! too, through [`EmbeddedAgents::crowd`] (the test kit's `TestApp::tick_with_agents`), so a test
//! counts their play in ticks.
//!
//! The server gives them what is its own ([`EmbeddedStart`]): its character creation
//! ([`AgentCharacters`]), its token signing (the plane's `AgentTokens`) and the HTTP client the
//! agents log in and read the knowledge with (`wayfarer-agent-http`), so this crate builds none.
//!
//! Cost: agents are tasks on the server's runtime sharing one HTTP client and one copy of the
//! public knowledge (`wayfarer_agent::Host`); each decides once a tick, never in a loop; their
//! per-agent log lines are at debug, and this module says one line when they are all in and one
//! when they have stopped.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use serde_json::json;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use wayfarer_agent::knowledge::Knowledge;
use wayfarer_agent::lockstep::Crowd;
use wayfarer_agent::{
    AgentConfig, AgentHandle, Brain, Control, Goal, Host, Http, Login, TokenMint,
};
use wayfarer_content::Content;
use wayfarer_store::{AgentMapping, Character, NewUser, Store, StoreError, User};

use super::registration::claim_of;
use super::{AgentPlane, AgentTokens};

/// The identity id of the account that owns embedded agents. Not an identity provider's subject
/// (those are the provider's own ids, `did:privy:…`), so no login reaches this account.
pub const SERVER_IDENTITY: &str = "wayfarer:embedded-agents";
/// The account's display name.
pub const SERVER_ACCOUNT_NAME: &str = "Wayfarer";
/// Agents started per tick while ramping up: entering costs the server a character load and a
/// `player:sync` each, which a thousand at once would pile onto one tick.
pub const STARTS_PER_TICK: u64 = 20;
/// How long stopping waits for agents to leave before dropping the rest.
pub const STOP_GRACE: Duration = Duration::from_secs(10);
/// Attempts at reading the public knowledge (the readiness check of the listener) before giving
/// up, one a second.
pub const READY_ATTEMPTS: u32 = 10;
/// Attempts at making one agent's character and mapping when the database fails for a passing
/// reason (on a loaded machine SQLite's write lock can be held past its busy timeout: "database is
/// locked"); a refusal (a taken name, a full account) is not tried again.
pub const PREPARE_ATTEMPTS: u32 = 4;
/// The wait before the second attempt; each later one waits twice as long.
const PREPARE_BACKOFF: Duration = Duration::from_millis(500);
/// Skill goals are trained this far (a long way: agents keep at one activity for hours).
pub const SKILL_GOAL_LEVEL: i64 = 30;

/// Makes the embedded agents' characters: the server's character creation (the starter kit at
/// the spawn point), under the server's account's limits.
pub trait AgentCharacters: Send + Sync {
    /// Makes the character `name` (the operator chose it: staff's naming rules) for the account
    /// `account_id`.
    fn create<'a>(
        &'a self,
        account_id: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Character, CharacterError>>;
}

/// Why a character was not made, in one line, and whether trying again may succeed.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CharacterError {
    pub message: String,
    /// The database failed for a passing reason (a lock, a timeout, a lost connection), not a
    /// refusal on the merits (a taken or invalid name, a full account).
    pub transient: bool,
}

/// What the embedded agents are started with (the server's configuration and services).
pub struct EmbeddedStart {
    /// `EMBEDDED_AGENTS`: how many (none when 0).
    pub count: u32,
    /// `EMBEDDED_AGENT_PREFIX`: their characters are `<prefix><n>`.
    pub prefix: String,
    pub tick_ms: u64,
    /// `TICK_MS=manual`: they play in lockstep with the world ([`EmbeddedAgents::crowd`]).
    pub manual_clock: bool,
    /// Where the server listens.
    pub addr: SocketAddr,
    pub plane: AgentPlane,
    pub characters: Arc<dyn AgentCharacters>,
    /// The client they log in and read the public knowledge with.
    pub http: Http,
    /// The goals handed out in turn ([`goal_rotation`] of the content now).
    pub goals: Vec<Goal>,
}

/// The running embedded agents; [`EmbeddedAgents::stop`] ends them.
pub struct EmbeddedAgents {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
    /// On the manual clock: the agents, to step with the world.
    crowd: Option<Crowd>,
}

impl EmbeddedAgents {
    /// Starts `start.count` agents against the server listening on `start.addr` (none when 0).
    pub fn start(start: EmbeddedStart) -> Option<EmbeddedAgents> {
        if start.count == 0 {
            return None;
        }
        let (stop, stopped) = watch::channel(false);
        let crowd = start.manual_clock.then(Crowd::default);
        let task = tokio::spawn(run(start, crowd.clone(), stopped));
        Some(EmbeddedAgents { stop, task, crowd })
    }

    /// On the manual clock, the agents in lockstep with the world, joined as they start: a tick
    /// run through [`Crowd::tick`] is a step for each of them. `None` on a timed clock.
    pub fn crowd(&self) -> Option<Crowd> {
        self.crowd.clone()
    }

    /// Asks every agent to leave the world and waits for them (at most [`STOP_GRACE`]).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        if let Err(err) = self.task.await {
            tracing::error!(error = %err, "the embedded agents' task failed");
        }
    }
}

/// The URL the agents connect to: the listener's address, on loopback when it listens on all
/// interfaces.
fn base_url(addr: SocketAddr) -> String {
    let mut addr = addr;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    format!("http://{addr}")
}

/// What start-up did, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    created: u32,
    reused: u32,
    skipped: u32,
}

async fn run(start: EmbeddedStart, crowd: Option<Crowd>, mut stop: watch::Receiver<bool>) {
    let began = Instant::now();
    let count = start.count;
    let base = base_url(start.addr);
    let tick = Duration::from_millis(start.tick_ms);
    let every = (tick / STARTS_PER_TICK as u32).max(Duration::from_millis(1));
    let (account, characters, mappings) = match existing(&start.plane.store).await {
        Ok(found) => found,
        Err(err) => {
            tracing::error!(error = %err, "embedded agents: cannot read their account; none started");
            return;
        }
    };
    let goals = &start.goals;
    let mut tally = Tally::default();
    let mut host: Option<Host> = None;
    let mut agents: Vec<Running> = Vec::with_capacity(count as usize);
    for n in 1..=count {
        if *stop.borrow() {
            break;
        }
        let name = format!("{}{n}", start.prefix);
        let prepared = with_retries(PREPARE_ATTEMPTS, PREPARE_BACKOFF, &mut stop, || {
            prepare(&start, &account, &name, &characters, &mappings)
        })
        .await;
        let mapping = match prepared {
            Ok(Some((mapping, created))) => {
                if created {
                    tally.created += 1;
                } else {
                    tally.reused += 1;
                }
                mapping
            }
            Ok(None) => {
                tracing::warn!(name = %name, "embedded agent skipped: another account has a character of that name");
                tally.skipped += 1;
                continue;
            }
            Err(err) => {
                tracing::warn!(name = %name, error = %err, "embedded agent skipped: its character could not be made");
                tally.skipped += 1;
                continue;
            }
        };
        start.plane.hub.unread(&mapping.agent_id);
        let mint = mint(start.plane.tokens.clone(), &account.id, &mapping);
        if host.is_none() {
            host = ready_host(&start, &base, &mint, &mut stop).await;
        }
        let Some(shared) = host.clone() else {
            return;
        };
        let goal = goals[(n as usize - 1) % goals.len()].clone();
        tracing::debug!(name = %name, agent = %mapping.agent_id, goal = %goal.description, "embedded agent starting");
        // The status receiver is dropped: nobody reads an embedded agent's status (its owner is
        // this server's account, which no one signs in to), and an agent with no status reader
        // does not build one.
        let AgentHandle { control, task, .. } = wayfarer_agent::spawn_hosted(
            AgentConfig {
                server: base.clone(),
                login: Login::Mint(mint),
                goal: Some(goal),
                brain: Brain::Planner,
                label: name,
            },
            shared,
        );
        if let Some(crowd) = &crowd {
            crowd.join(control.clone());
        }
        agents.push(Running { control, task });
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            _ = stop.changed() => break,
        }
    }
    tracing::info!(
        requested = count,
        started = agents.len(),
        created = tally.created,
        reused = tally.reused,
        skipped = tally.skipped,
        ramp_ms = began.elapsed().as_millis() as u64,
        "embedded agents started"
    );
    let _ = stop.wait_for(|stopping| *stopping).await;
    shutdown(agents).await;
}

/// An embedded agent: how to stop it and its task.
struct Running {
    control: mpsc::Sender<Control>,
    task: JoinHandle<()>,
}

impl Running {
    async fn shutdown(self) {
        let _ = self.control.send(Control::Shutdown).await;
        let _ = self.task.await;
    }
}

/// Tells every agent to leave at once and waits for them; those not gone within [`STOP_GRACE`]
/// are aborted (their connections then close, and the world saves their characters anyway).
async fn shutdown(agents: Vec<Running>) {
    let began = Instant::now();
    let total = agents.len();
    let aborts: Vec<_> = agents.iter().map(|a| a.task.abort_handle()).collect();
    let leaving = futures_util::future::join_all(agents.into_iter().map(Running::shutdown));
    let late = match tokio::time::timeout(STOP_GRACE, leaving).await {
        Ok(_) => 0,
        Err(_) => {
            let late = aborts.iter().filter(|a| !a.is_finished()).count();
            aborts.iter().for_each(tokio::task::AbortHandle::abort);
            late
        }
    };
    tracing::info!(
        agents = total,
        aborted = late,
        stop_ms = began.elapsed().as_millis() as u64,
        "embedded agents stopped"
    );
}

/// The server's account (made when missing), its characters by lower-case name, and their
/// agent mappings by character id.
async fn existing(
    store: &Store,
) -> Result<
    (
        User,
        HashMap<String, Character>,
        HashMap<String, AgentMapping>,
    ),
    StoreError,
> {
    let account = match store.users().find_by_identity(SERVER_IDENTITY).await? {
        Some(account) => account,
        None => {
            let made = store
                .users()
                .create(&NewUser {
                    name: SERVER_ACCOUNT_NAME.into(),
                    identity_id: Some(SERVER_IDENTITY.into()),
                    roles: Vec::new(),
                })
                .await?;
            tracing::info!(account = %made.id, "embedded agents: the server's account created");
            made
        }
    };
    let characters = store
        .characters()
        .list_for_account(&account.id)
        .await?
        .into_iter()
        .map(|c| (c.name.to_lowercase(), c))
        .collect();
    let mappings = store
        .agents()
        .list_for_account(&account.id)
        .await?
        .into_iter()
        .map(|m| (m.character_id.clone(), m))
        .collect();
    Ok((account, characters, mappings))
}

/// Runs `attempt` until it succeeds, fails for good ([`PrepareError::is_transient`] false) or has
/// run `attempts` times, waiting `backoff`, then twice that, and so on between tries; the last
/// error when none succeeded. A stop ends the waiting with that error.
async fn with_retries<T, F, Fut>(
    attempts: u32,
    backoff: Duration,
    stop: &mut watch::Receiver<bool>,
    mut attempt: F,
) -> Result<T, PrepareError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, PrepareError>>,
{
    let mut wait = backoff;
    let mut tried = 1;
    loop {
        match attempt().await {
            Err(err) if err.is_transient() && tried < attempts => {
                tracing::info!(error = %err, attempt = tried, "embedded agent: trying again");
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    _ = stop.changed() => return Err(err),
                }
                wait *= 2;
                tried += 1;
            }
            done => return done,
        }
    }
}

/// Why an embedded agent's character or mapping could not be made (it is skipped, and this logged).
#[derive(Debug, thiserror::Error)]
enum PrepareError {
    #[error(transparent)]
    Character(#[from] CharacterError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PrepareError {
    /// Whether trying again may succeed: the database failed for a passing reason (a lock, a
    /// timeout, a lost connection), not a refusal on the merits.
    fn is_transient(&self) -> bool {
        match self {
            PrepareError::Store(err) => !err.is_refusal(),
            PrepareError::Character(err) => err.transient,
        }
    }
}

/// The agent mapping of the character `name` of the server's account, made as needed (with
/// `true` when anything was created); `None` when another account has a character of that name.
async fn prepare(
    start: &EmbeddedStart,
    account: &User,
    name: &str,
    characters: &HashMap<String, Character>,
    mappings: &HashMap<String, AgentMapping>,
) -> Result<Option<(AgentMapping, bool)>, PrepareError> {
    let character = match characters.get(&name.to_lowercase()) {
        Some(character) => {
            if let Some(mapping) = mappings.get(&character.id) {
                return Ok(Some((mapping.clone(), false)));
            }
            character.clone()
        }
        None => {
            match start.plane.store.characters().find_by_name(name).await? {
                // Ours after all: an earlier attempt's commit that reported an error.
                Some(found) if found.account_id == account.id => found,
                Some(_) => return Ok(None),
                None => start.characters.create(&account.id, name).await?,
            }
        }
    };
    // A character without its mapping (a crash between the two): register it now.
    let mapping = start
        .plane
        .store
        .agents()
        .register(&account.id, &character.id, &character.name)
        .await?;
    Ok(Some((mapping, true)))
}

/// Mints the agent's token at each connection, for the token id stored in its mapping (so no
/// database write: the mapping is not rotated).
fn mint(tokens: Arc<dyn AgentTokens>, account_id: &str, mapping: &AgentMapping) -> TokenMint {
    let account_id = account_id.to_owned();
    let claim = claim_of(mapping);
    TokenMint::new(move || {
        tokens
            .issue_agent(&account_id, claim.clone())
            .map(|issued| issued.token)
    })
}

/// What the agents share: reading the public knowledge once over HTTP is also the check that the
/// listener answers. Retried [`READY_ATTEMPTS`] times; `None` (logged) when it never does or the
/// server is stopping.
async fn ready_host(
    start: &EmbeddedStart,
    base: &str,
    mint: &TokenMint,
    stop: &mut watch::Receiver<bool>,
) -> Option<Host> {
    let http = start.http.clone();
    let token = match Login::Mint(mint.clone()).token(&http, base).await {
        Ok(token) => token,
        Err(err) => {
            tracing::error!(error = %err, "embedded agents: no token; none started");
            return None;
        }
    };
    for attempt in 1..=READY_ATTEMPTS {
        match Knowledge::fetch(&http, base, &token).await {
            Ok(knowledge) if !knowledge.items.is_empty() => {
                return Some(Host {
                    http: Some(http),
                    knowledge: Some(Arc::new(knowledge)),
                    tick_ms: Some(start.tick_ms),
                    quiet: true,
                    // On the manual clock: stepped with the world (`EmbeddedAgents::crowd`).
                    lockstep: start.manual_clock,
                    // One table for all: they spread over the nodes rather than crowd the nearest.
                    claims: Some(Default::default()),
                });
            }
            Ok(_) => tracing::warn!(
                attempt,
                "embedded agents: the server's manifests list no items yet"
            ),
            Err(err) => {
                tracing::warn!(attempt, error = %err, "embedded agents: the server does not answer yet")
            }
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = stop.changed() => return None,
        }
    }
    tracing::error!(
        attempts = READY_ATTEMPTS,
        "embedded agents: the server never answered; none started"
    );
    None
}

/// The goals handed out in turn, so the world shows every kind of work: woodcutting, fishing,
/// mining, fighting the weakest mob of the content, firemaking. A goal the content cannot back
/// (no mob) is left out.
pub fn goal_rotation(content: &Content) -> Vec<Goal> {
    let weakest_mob = content
        .npcs
        .values()
        .filter(|npc| npc.is_mob())
        .min_by_key(|npc| (npc.stats.level, npc.id.clone()))
        .map(|npc| npc.id.clone());
    let skill = |skill: &str| json!({"kind": "skill", "target": {"skill": skill, "level": SKILL_GOAL_LEVEL}});
    let mut requests = vec![skill("woodcutting"), skill("fishing"), skill("mining")];
    if let Some(mob) = weakest_mob {
        requests.push(json!({"kind": "combat", "target": {"npcId": mob}}));
    }
    requests.push(skill("firemaking"));
    let goals: Vec<Goal> = requests
        .iter()
        .filter_map(|request| match Goal::from_request(request) {
            Ok(goal) => Some(goal),
            Err(err) => {
                tracing::warn!(%request, error = %err, "embedded agents: a goal does not read");
                None
            }
        })
        .collect();
    if goals.is_empty() {
        // Unreachable with the requests above; the agent then picks its own.
        return vec![Goal::choose(&wayfarer_agent::model::Model::default())];
    }
    goals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_connect_on_loopback_when_the_server_listens_everywhere() {
        assert_eq!(
            base_url("0.0.0.0:5555".parse().unwrap()),
            "http://127.0.0.1:5555"
        );
        assert_eq!(base_url("[::]:80".parse().unwrap()), "http://[::1]:80");
        assert_eq!(
            base_url("10.1.2.3:7000".parse().unwrap()),
            "http://10.1.2.3:7000"
        );
    }

    fn locked() -> PrepareError {
        // What the store reports when SQLite's busy timeout passes: not a refusal.
        PrepareError::Store(StoreError::Busy("database is locked".into()))
    }

    fn refused() -> PrepareError {
        PrepareError::Character(CharacterError {
            message: "that name is taken".into(),
            transient: false,
        })
    }

    #[test]
    fn a_database_failure_is_tried_again_a_refusal_is_not() {
        assert!(locked().is_transient());
        assert!(PrepareError::Character(CharacterError {
            message: "database is locked".into(),
            transient: true,
        })
        .is_transient());
        assert!(!refused().is_transient());
        assert!(!PrepareError::Store(StoreError::Conflict("name".into())).is_transient());
    }

    #[tokio::test]
    async fn passing_failures_are_retried_up_to_the_attempts_and_refusals_are_not() {
        let (_stopper, mut stop) = watch::channel(false);
        let tries = std::cell::Cell::new(0u32);
        let made = with_retries(4, Duration::from_millis(1), &mut stop, || async {
            tries.set(tries.get() + 1);
            if tries.get() < 3 {
                Err(locked())
            } else {
                Ok(tries.get())
            }
        })
        .await;
        assert_eq!(made.unwrap(), 3);

        let tries = std::cell::Cell::new(0u32);
        let failed = with_retries(4, Duration::from_millis(1), &mut stop, || async {
            tries.set(tries.get() + 1);
            Err::<(), _>(locked())
        })
        .await;
        assert!(failed.unwrap_err().is_transient());
        assert_eq!(tries.get(), 4, "the last attempt's error, after four");

        let tries = std::cell::Cell::new(0u32);
        let refused = with_retries(4, Duration::from_millis(1), &mut stop, || async {
            tries.set(tries.get() + 1);
            Err::<(), _>(refused())
        })
        .await;
        assert!(refused.is_err());
        assert_eq!(tries.get(), 1, "a refusal is final");
    }
}
