//! The arena's ladder (issue 55, CONTRACT §15): a queue anyone may join (`arena:join`), matchmaking
//! by Glicko-2 rating ([`glicko`]) with a window that widens the longer one waits, and ladder
//! fights: real duels (`crate::duel`) under the ladder's fixed rules ([`LADDER_RULES`]) with no
//! stakes, each in one pit of the duel arena, a countdown ([`ArenaSettings::countdown_ticks`], the
//! betting window) after the match.
//!
//! - **Joining.** Refused in a world without a duel arena (`no_arena`), twice (`already_queued`),
//!   while trading or duelling (`player_busy`) and in a PvP area (`not_here`). The rating is the
//!   one this world last wrote for the player, else the stored one the server read with the
//!   message, else a newcomer's (1500, 350, 0.06).
//! - **Matching**, each tick while a pit is free: in order of joining, each waiting player is paired
//!   with the closest-rated other waiting player whose difference lies within both players'
//!   windows: [`ArenaSettings::window`] rating points plus [`ArenaSettings::window_growth`] a tick
//!   waited, at most [`ArenaSettings::window_max`]. Both are told `arena:match`.
//! - **Before the start** a fighter who leaves the ladder, leaves the world, or at the start is
//!   busy (trading, duelling) or standing in a PvP area cancels the fight (`arena:cancelled`): they
//!   are out of the queue, the other goes back to it with their waiting time kept.
//! - **The fight** is a duel that skips the screens, both placed in the pit; the duel machinery
//!   runs it (nobody dies for real; the duel's rules and its time-out apply). The blow that ends
//!   it computes both new ratings ([`glicko::update`], one fight one rating period) and puts them
//!   in the duel's commit ([`crate::DuelCommit::arena`]), so the server writes the fight's row and
//!   both ratings in the result's transaction; once it answers, both are told `duel:result` then
//!   `arena:result`. A fight that ends without a result (a draw by time-out, a fighter leaving the
//!   world, a failed write) changes no rating (`arena:cancelled`).

pub mod glicko;

use std::collections::{BTreeMap, HashMap};

use wayfarer_protocol::ws::TilePos;

pub use glicko::Rating;

use crate::duel::{Rule, Rules};
use crate::events::Event;
use crate::world::World;

/// Wire error codes of the ladder (besides `player_busy` and `not_here`).
pub mod codes {
    /// The world has no duel arena.
    pub const NO_ARENA: &str = "no_arena";
    /// `arena:join` while queued or matched.
    pub const ALREADY_QUEUED: &str = "already_queued";
    /// `arena:leave` while not on the ladder.
    pub const NOT_QUEUED: &str = "not_queued";
    /// `arena:leave` once the fight has begun.
    pub const IN_DUEL: &str = "in_duel";
    /// Busy trading or duelling.
    pub const PLAYER_BUSY: &str = "player_busy";
    /// In a PvP area.
    pub const NOT_HERE: &str = "not_here";
}

/// The ladder's fixed rules: no food (a fight is decided by gear, levels and prayer).
pub const LADDER_RULES: [Rule; 1] = [Rule::NoFood];

/// The ladder's settings (the server's `ARENA_*` settings, `docs/operations.md`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArenaSettings {
    /// Ticks between the match and the start (the betting window): 50 (30 s).
    pub countdown_ticks: u64,
    /// The matching window at joining, in rating points: 100.
    pub window: f64,
    /// How much the window widens a tick waited: 1 point (100 a minute).
    pub window_growth: f64,
    /// The widest window: 1000.
    pub window_max: f64,
}

impl Default for ArenaSettings {
    fn default() -> Self {
        ArenaSettings {
            countdown_ticks: 50,
            window: 100.0,
            window_growth: 1.0,
            window_max: 1000.0,
        }
    }
}

/// A ladder message from a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArenaCommand {
    /// `arena:join`, with the rating the server read from the store (`None`: never rated).
    Join {
        /// The stored rating.
        stored: Option<Rating>,
    },
    /// `arena:leave`.
    Leave,
}

/// Where a ladder fight stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FightState {
    /// Matched, counting down to the start (bets may be placed).
    Scheduled,
    /// Being fought (or its result being written).
    Live,
}

impl FightState {
    /// The wire name (`scheduled`, `live`).
    pub fn name(self) -> &'static str {
        match self {
            FightState::Scheduled => "scheduled",
            FightState::Live => "live",
        }
    }
}

/// A ladder fight not yet finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fight {
    /// The fight id (`<prefix>-<n>`, unique across restarts through the server's prefix).
    pub id: String,
    /// Side a, side b (the earlier joiner first).
    pub players: [String; 2],
    /// Their names.
    pub names: [String; 2],
    /// Their ratings at the match.
    pub ratings: [Rating; 2],
    /// Which pit (0-based).
    pub pit: usize,
    /// The tick it starts (started) at.
    pub starts_at: u64,
    /// Scheduled or live.
    pub state: FightState,
    /// The duel it is fought as, once live.
    pub duel_id: Option<String>,
}

/// A finished fight's result, carried by the duel's commit and written in its transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaOutcome {
    /// The fight id.
    pub fight_id: String,
    /// Side a, side b.
    pub players: [String; 2],
    /// Their names.
    pub names: [String; 2],
    /// Ratings before, by side.
    pub before: [Rating; 2],
    /// Ratings after, by side.
    pub after: [Rating; 2],
    /// The winner's character id.
    pub winner: String,
    /// The loser's character id.
    pub loser: String,
    /// The pit.
    pub pit: usize,
    /// The tick the fight started at.
    pub started_tick: u64,
    /// How many ticks it lasted.
    pub fight_ticks: u64,
}

#[derive(Debug, Clone)]
struct Queued {
    id: String,
    rating: Rating,
    since: u64,
}

/// The ladder of one world.
#[derive(Debug)]
pub(crate) struct Arena {
    pub(crate) settings: ArenaSettings,
    prefix: String,
    next: u64,
    queue: Vec<Queued>,
    fights: BTreeMap<String, Fight>,
    /// Player → their scheduled or live fight.
    fight_of: HashMap<String, String>,
    /// Duel id → fight id.
    by_duel: HashMap<String, String>,
    /// Outcomes computed, waiting for the write (fight id → outcome).
    outcomes: HashMap<String, ArenaOutcome>,
    /// Ratings this world wrote (fresher than the store's copy read at a join).
    known: HashMap<String, Rating>,
}

impl Default for Arena {
    fn default() -> Self {
        Arena {
            settings: ArenaSettings::default(),
            prefix: "fight".into(),
            next: 0,
            queue: Vec::new(),
            fights: BTreeMap::new(),
            fight_of: HashMap::new(),
            by_duel: HashMap::new(),
            outcomes: HashMap::new(),
            known: HashMap::new(),
        }
    }
}

/// A ladder notice to one player (the server words it as `arena:*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArenaNotice {
    /// `arena:queued`.
    Queued {
        /// 1-based place in the queue.
        position: usize,
        /// The rating matched on.
        rating: Rating,
    },
    /// `arena:match`.
    Matched {
        /// The fight.
        fight_id: String,
        /// The opponent.
        opponent_id: String,
        /// Their name.
        opponent_name: String,
        /// Their rating.
        opponent_rating: Rating,
        /// The tick the fight starts at.
        starts_at_tick: u64,
        /// How many ticks from the one this notice is told in.
        starts_in_ticks: u64,
    },
    /// `arena:cancelled`: the fight will not be fought (or ended without a result).
    Cancelled {
        /// The fight.
        fight_id: String,
        /// Why (`left`, `disconnected`, `busy`, `not_here`, `no_result`, `server_error`).
        reason: &'static str,
    },
    /// `arena:left`: out of the queue.
    Left,
    /// `arena:result`.
    Result(Box<ArenaOutcome>),
}

fn notice(to: &str, notice: ArenaNotice) -> Event {
    Event::Arena {
        to: to.to_owned(),
        notice,
    }
}

impl World {
    /// The ladder's settings.
    pub fn set_arena_settings(&mut self, settings: ArenaSettings) {
        self.arena.settings = settings;
    }

    /// The prefix of fight ids (the server gives one unique to the process, so fight ids never
    /// repeat across restarts).
    pub fn set_arena_prefix(&mut self, prefix: impl Into<String>) {
        self.arena.prefix = prefix.into();
    }

    /// The ladder's fights not yet finished, in id order.
    pub fn arena_fights(&self) -> Vec<Fight> {
        self.arena.fights.values().cloned().collect()
    }

    /// How many wait in the ladder's queue.
    pub fn arena_queue_len(&self) -> usize {
        self.arena.queue.len()
    }

    /// The pits: the centres of the first duel arena's quarters (its whole area when it is
    /// smaller than 8 tiles a side). Empty in a world without one.
    pub fn arena_pits(&self) -> Vec<TilePos> {
        let Some(area) = self.content.areas.values().find(|a| a.duel_arena) else {
            return Vec::new();
        };
        let b = &area.bounds;
        let (x0, x1) = (b.min_x.floor() as i32, b.max_x.floor() as i32);
        let (z0, z1) = (b.min_z.floor() as i32, b.max_z.floor() as i32);
        if x1 - x0 < 7 || z1 - z0 < 7 {
            return vec![TilePos {
                x: (x0 + x1) / 2,
                z: (z0 + z1) / 2,
            }];
        }
        let (xm, zm) = ((x0 + x1) / 2, (z0 + z1) / 2);
        let mut pits = Vec::new();
        for (za, zb) in [(z0, zm), (zm + 1, z1)] {
            for (xa, xb) in [(x0, xm), (xm + 1, x1)] {
                pits.push(TilePos {
                    x: (xa + xb) / 2,
                    z: (za + zb) / 2,
                });
            }
        }
        pits
    }

    /// The rating the ladder would match `id` on now.
    pub fn arena_rating(&self, id: &str) -> Option<Rating> {
        self.arena.known.get(id).copied()
    }

    /// Applies one ladder message from `id`.
    pub(crate) fn arena_command(
        &mut self,
        id: &str,
        command: ArenaCommand,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        if !self.is_online(id) {
            return;
        }
        match command {
            ArenaCommand::Join { stored } => self.arena_join(id, stored, reference, events),
            ArenaCommand::Leave => self.arena_leave(id, reference, events),
        }
    }

    fn arena_join(
        &mut self,
        id: &str,
        stored: Option<Rating>,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let refusal = if self.arena_pits().is_empty() {
            Some((codes::NO_ARENA, "this world has no arena"))
        } else if self.arena.fight_of.contains_key(id)
            || self.arena.queue.iter().any(|q| q.id == id)
        {
            Some((codes::ALREADY_QUEUED, "you are on the ladder already"))
        } else if self.exchanging(id) {
            Some((codes::PLAYER_BUSY, "not while trading or in a duel"))
        } else if self.in_pvp_area(id) {
            Some((
                codes::NOT_HERE,
                "you cannot join the ladder from a PvP area",
            ))
        } else {
            None
        };
        if let Some((code, message)) = refusal {
            return Self::reject(id, code, message, reference, events);
        }
        let rating = self
            .arena
            .known
            .get(id)
            .copied()
            .or(stored)
            .unwrap_or_default();
        let since = self.now();
        self.arena.queue.push(Queued {
            id: id.to_owned(),
            rating,
            since,
        });
        let position = self.arena.queue.len();
        events.push(notice(id, ArenaNotice::Queued { position, rating }));
    }

    fn in_pvp_area(&self, id: &str) -> bool {
        self.player_index
            .get(id)
            .is_some_and(|&index| self.zones.is_pvp(self.zone_of_player(index)))
    }

    fn arena_leave(&mut self, id: &str, reference: Option<u64>, events: &mut Vec<Event>) {
        if let Some(at) = self.arena.queue.iter().position(|q| q.id == id) {
            self.arena.queue.remove(at);
            events.push(notice(id, ArenaNotice::Left));
            return;
        }
        let Some(fight_id) = self.arena.fight_of.get(id).cloned() else {
            return Self::reject(
                id,
                codes::NOT_QUEUED,
                "you are not on the ladder",
                reference,
                events,
            );
        };
        if self.arena.fights[&fight_id].state == FightState::Live {
            return Self::reject(
                id,
                codes::IN_DUEL,
                "the fight has begun; it cannot be left",
                reference,
                events,
            );
        }
        self.cancel_scheduled(&fight_id, id, "left", events);
        events.push(notice(id, ArenaNotice::Left));
    }

    /// A player leaves the world: out of the queue; a scheduled fight of theirs is cancelled (a
    /// live one is the duel's to end).
    pub(crate) fn arena_player_left(&mut self, id: &str, events: &mut Vec<Event>) {
        self.arena.queue.retain(|q| q.id != id);
        if let Some(fight_id) = self.arena.fight_of.get(id).cloned() {
            if self.arena.fights[&fight_id].state == FightState::Scheduled {
                self.cancel_scheduled(&fight_id, id, "disconnected", events);
            }
        }
    }

    /// Cancels a scheduled fight because of `out`: both told, `out` off the ladder, the other
    /// back in the queue with their waiting time kept.
    fn cancel_scheduled(
        &mut self,
        fight_id: &str,
        out: &str,
        reason: &'static str,
        events: &mut Vec<Event>,
    ) {
        let Some(fight) = self.remove_fight(fight_id) else {
            return;
        };
        for (side, player) in fight.players.iter().enumerate() {
            if !self.is_online(player) {
                continue;
            }
            let fight_id = fight.id.clone();
            events.push(notice(player, ArenaNotice::Cancelled { fight_id, reason }));
            if player != out {
                let since = fight
                    .starts_at
                    .saturating_sub(self.arena.settings.countdown_ticks);
                let rating = fight.ratings[side];
                let at = self
                    .arena
                    .queue
                    .iter()
                    .position(|q| q.since > since)
                    .unwrap_or(self.arena.queue.len());
                self.arena.queue.insert(
                    at,
                    Queued {
                        id: player.clone(),
                        rating,
                        since,
                    },
                );
                events.push(notice(
                    player,
                    ArenaNotice::Queued {
                        position: at + 1,
                        rating,
                    },
                ));
            }
        }
    }

    fn remove_fight(&mut self, fight_id: &str) -> Option<Fight> {
        let fight = self.arena.fights.remove(fight_id)?;
        for p in &fight.players {
            if self.arena.fight_of.get(p).map(String::as_str) == Some(fight_id) {
                self.arena.fight_of.remove(p);
            }
        }
        if let Some(duel) = &fight.duel_id {
            self.arena.by_duel.remove(duel);
        }
        self.arena.outcomes.remove(fight_id);
        Some(fight)
    }

    /// Each tick: live fights whose duel ended without a result are dropped, due fights start,
    /// waiting players are matched while pits are free.
    pub(crate) fn advance_arena(&mut self, events: &mut Vec<Event>) {
        if self.arena.fights.is_empty() && self.arena.queue.len() < 2 {
            return;
        }
        let ended: Vec<String> = self
            .arena
            .fights
            .values()
            .filter(|f| {
                f.state == FightState::Live
                    && f.duel_id
                        .as_ref()
                        .is_none_or(|d| !self.duels.by_id.contains_key(d))
            })
            .map(|f| f.id.clone())
            .collect();
        for fight_id in ended {
            self.fight_without_result(&fight_id, "no_result", events);
        }
        let now = self.now();
        let due: Vec<String> = self
            .arena
            .fights
            .values()
            .filter(|f| f.state == FightState::Scheduled && f.starts_at <= now)
            .map(|f| f.id.clone())
            .collect();
        for fight_id in due {
            self.start_fight(&fight_id, events);
        }
        self.match_waiting(events);
    }

    fn fight_without_result(
        &mut self,
        fight_id: &str,
        reason: &'static str,
        events: &mut Vec<Event>,
    ) {
        let Some(fight) = self.remove_fight(fight_id) else {
            return;
        };
        for player in &fight.players {
            if self.is_online(player) {
                let fight_id = fight.id.clone();
                events.push(notice(player, ArenaNotice::Cancelled { fight_id, reason }));
            }
        }
    }

    fn start_fight(&mut self, fight_id: &str, events: &mut Vec<Event>) {
        let fight = self.arena.fights[fight_id].clone();
        for player in &fight.players {
            let why = if !self.is_online(player) {
                Some("disconnected")
            } else if self.exchanging(player) {
                Some("busy")
            } else if self.in_pvp_area(player) {
                Some("not_here")
            } else {
                None
            };
            if let Some(reason) = why {
                self.cancel_scheduled(fight_id, player, reason, events);
                return;
            }
        }
        let pits = self.arena_pits();
        let Some(&tile) = pits.get(fight.pit).or(pits.first()) else {
            return self.fight_without_result(fight_id, "no_result", events);
        };
        let mut rules = Rules::default();
        for rule in LADDER_RULES {
            rules.set(rule, true);
        }
        let terms = crate::duel::Terms::ladder(rules, fight_id, tile);
        let Some(duel_id) =
            self.open_settled::<crate::duel::Duel>(fight.players.clone(), terms, events)
        else {
            return self.fight_without_result(fight_id, "no_result", events);
        };
        self.arena
            .by_duel
            .insert(duel_id.clone(), fight_id.to_owned());
        if let Some(f) = self.arena.fights.get_mut(fight_id) {
            f.state = FightState::Live;
            f.duel_id = Some(duel_id);
        }
    }

    fn window(&self, q: &Queued, now: u64) -> f64 {
        let s = &self.arena.settings;
        (s.window + s.window_growth * now.saturating_sub(q.since) as f64).min(s.window_max)
    }

    fn match_waiting(&mut self, events: &mut Vec<Event>) {
        let pits = self.arena_pits().len();
        let now = self.now();
        let mut i = 0;
        while i < self.arena.queue.len() && self.arena.fights.len() < pits {
            let me = self.arena.queue[i].clone();
            let mine = self.window(&me, now);
            let best = self
                .arena
                .queue
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(j, q)| (j, (q.rating.rating - me.rating.rating).abs(), q))
                .filter(|(_, diff, q)| *diff <= mine.min(self.window(q, now)))
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
                .map(|(j, _, _)| j);
            let Some(j) = best else {
                i += 1;
                continue;
            };
            let (first, second) = (i.min(j), i.max(j));
            let b = self.arena.queue.remove(second);
            let a = self.arena.queue.remove(first);
            self.schedule(a, b, events);
        }
    }

    fn schedule(&mut self, a: Queued, b: Queued, events: &mut Vec<Event>) {
        let busy: Vec<usize> = self.arena.fights.values().map(|f| f.pit).collect();
        let pit = (0..).find(|p| !busy.contains(p)).unwrap_or(0);
        self.arena.next += 1;
        let id = format!("{}-{}", self.arena.prefix, self.arena.next);
        let starts_at = self.now() + self.arena.settings.countdown_ticks;
        let fight = Fight {
            id: id.clone(),
            players: [a.id.clone(), b.id.clone()],
            names: [self.display_name(&a.id), self.display_name(&b.id)],
            ratings: [a.rating, b.rating],
            pit,
            starts_at,
            state: FightState::Scheduled,
            duel_id: None,
        };
        for (me, other) in [(0usize, 1usize), (1, 0)] {
            self.arena
                .fight_of
                .insert(fight.players[me].clone(), id.clone());
            events.push(notice(
                &fight.players[me],
                ArenaNotice::Matched {
                    fight_id: id.clone(),
                    opponent_id: fight.players[other].clone(),
                    opponent_name: fight.names[other].clone(),
                    opponent_rating: fight.ratings[other],
                    starts_at_tick: starts_at,
                    starts_in_ticks: self.arena.settings.countdown_ticks,
                },
            ));
        }
        self.arena.fights.insert(id, fight);
    }

    /// The duel `duel_id` was won by `winner`: the ladder fight's outcome, if it is one.
    pub(crate) fn arena_outcome(&mut self, duel_id: &str, winner: &str) -> Option<ArenaOutcome> {
        let fight_id = self.arena.by_duel.get(duel_id)?.clone();
        let fight = self.arena.fights.get(&fight_id)?;
        let w = fight.players.iter().position(|p| p == winner)?;
        let l = 1 - w;
        let mut after = fight.ratings;
        after[w] = glicko::update(fight.ratings[w], &[(fight.ratings[l], 1.0)]);
        after[l] = glicko::update(fight.ratings[l], &[(fight.ratings[w], 0.0)]);
        let outcome = ArenaOutcome {
            fight_id: fight_id.clone(),
            players: fight.players.clone(),
            names: fight.names.clone(),
            before: fight.ratings,
            after,
            winner: fight.players[w].clone(),
            loser: fight.players[l].clone(),
            pit: fight.pit,
            started_tick: fight.starts_at,
            fight_ticks: self.now().saturating_sub(fight.starts_at),
        };
        self.arena.outcomes.insert(fight_id, outcome.clone());
        Some(outcome)
    }

    /// The server's answer for a duel's commit, after the duel's own handling: a ladder fight's
    /// result is told (and its ratings kept) or the fight ends without one.
    pub(crate) fn arena_committed(&mut self, duel_id: &str, ok: bool, events: &mut Vec<Event>) {
        let Some(fight_id) = self.arena.by_duel.get(duel_id).cloned() else {
            return;
        };
        let outcome = self.arena.outcomes.get(&fight_id).cloned();
        match (ok, outcome) {
            (true, Some(outcome)) => {
                self.remove_fight(&fight_id);
                for side in 0..2 {
                    self.arena
                        .known
                        .insert(outcome.players[side].clone(), outcome.after[side]);
                }
                for player in &outcome.players {
                    if self.is_online(player) {
                        events.push(notice(
                            player,
                            ArenaNotice::Result(Box::new(outcome.clone())),
                        ));
                    }
                }
            }
            _ => self.fight_without_result(&fight_id, "server_error", events),
        }
    }
}
