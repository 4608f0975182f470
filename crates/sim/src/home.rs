//! The home teleport and emotes (CONTRACT.md section 14, issue 54).
//!
//! **Home teleport** (`player:action {action: "homeTeleport"}`): a cast of [`HOME_CAST_TICKS`]
//! (10 s at the tick length) that lands the player on the home town's spawn (the layout's spawn,
//! where new characters and the dead appear). Refused in combat (`in_combat`: a swing given or
//! taken in the last [`COMBAT_LOCK_TICKS`]) and during its cooldown of [`HOME_COOLDOWN_TICKS`]
//! (30 minutes; `cooldown` with `remainingSeconds`). Moving, being attacked (or attacking), or
//! starting to do something to an entity interrupts it. The cooldown starts when the player
//! lands; the server keeps it in the character's record as a wall time, so it runs on while the
//! character is offline, and gives what is left back at entry
//! ([`crate::Joining::home_teleport_cooldown_ticks`]). Only the players casting are looked at in a
//! tick ([`World::advance_home_teleports`]).
//!
//! **Emotes** (`player:emote {emote}`): one of [`EMOTES`], shown to every player within view
//! distance of the emoter (the emoter included) as `player:emote {playerId, emote}`. Refused
//! while dead (`cannot_do`), in combat (`in_combat`), for an unknown emote (`unknown_emote`), and
//! sooner than [`EMOTE_GAP_TICKS`] after the last one (`rate_limited`).

use std::sync::Arc;

use wayfarer_content::ticks::TICK_MS;
use wayfarer_protocol::ws::{codes, TilePos, EMOTES};

use crate::duel::COMBAT_LOCK_TICKS;
use crate::events::Event;
use crate::view::VIEW_RADIUS_TILES;
use crate::world::World;

/// Ticks of the home teleport's cast: 10 seconds at the tick length (17 at 600 ms).
pub const HOME_CAST_TICKS: u64 = (10_000 + TICK_MS / 2) / TICK_MS;
/// Ticks from one home teleport's landing until the next may be cast: 30 minutes.
pub const HOME_COOLDOWN_TICKS: u64 = 30 * 60 * 1000 / TICK_MS;
/// Ticks from one emote until the next is accepted.
pub const EMOTE_GAP_TICKS: u64 = 2;

const _: () = assert!(HOME_CAST_TICKS >= 16 && HOME_CAST_TICKS <= 17);

/// The whole ticks (rounded up) in `ms` milliseconds left of a wait (0 for none): how a server
/// turns a cooldown kept as a wall time into [`crate::Joining::home_teleport_cooldown_ticks`].
pub fn ticks_for_ms_left(ms: i64) -> u64 {
    u64::try_from(ms.max(0)).unwrap_or(0).div_ceil(TICK_MS)
}

/// How a home teleport went, for its caster (`player:homeTeleport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HomeTeleportStatus {
    /// The cast began; it lands in [`HOME_CAST_TICKS`].
    Casting,
    /// The player is at the home town's spawn; the cooldown began.
    Arrived,
    /// Moved, fought or did something else before it landed.
    Interrupted,
}

impl HomeTeleportStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            HomeTeleportStatus::Casting => "casting",
            HomeTeleportStatus::Arrived => "arrived",
            HomeTeleportStatus::Interrupted => "interrupted",
        }
    }
}

/// A home teleport being cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HomeCast {
    /// The tick it began.
    pub started: u64,
    /// Where the caster stood (a step elsewhere interrupts it).
    pub from: TilePos,
}

/// Whole seconds (rounded up) in `ticks`.
fn seconds_of(ticks: u64) -> u64 {
    (ticks * TICK_MS).div_ceil(1000)
}

impl World {
    /// Whether player `index` swung or was swung at in the last [`COMBAT_LOCK_TICKS`].
    pub(crate) fn in_combat(&self, index: usize) -> bool {
        let at = self.players[index].fought_at;
        at > 0 && self.now().saturating_sub(at) < COMBAT_LOCK_TICKS
    }

    /// Ticks until player `id` may cast the home teleport (0: now); `None` when not online.
    pub fn home_teleport_cooldown_ticks(&self, id: &str) -> Option<u64> {
        let &index = self.player_index.get(id)?;
        Some(self.players[index].home_ready_at.saturating_sub(self.now()))
    }

    /// `homeTeleport`: begins the cast, or says why not.
    pub(crate) fn begin_home_teleport(
        &mut self,
        index: usize,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let now = self.now();
        let id = self.players[index].id.clone();
        let ready_at = self.players[index].home_ready_at;
        if now < ready_at {
            let left = seconds_of(ready_at - now);
            events.push(Event::RejectedWait {
                to: id,
                code: codes::COOLDOWN,
                message: format!(
                    "you can teleport home again in {} minutes",
                    left.div_ceil(60)
                ),
                remaining_seconds: left,
                reference,
            });
            return;
        }
        if self.in_combat(index) {
            return Self::reject(
                &id,
                codes::IN_COMBAT,
                "you cannot teleport home while in combat",
                reference,
                events,
            );
        }
        if self.players[index].home_cast.is_some() {
            return Self::reject(
                &id,
                codes::CANNOT_DO,
                "you are already teleporting home",
                reference,
                events,
            );
        }
        let Some(from) = self.player_tile(&id) else {
            return;
        };
        let player = &mut self.players[index];
        // The cast is the player's whole occupation: standing still, doing nothing else.
        player.walk.clear();
        player.intent = None;
        player.home_cast = Some(Box::new(HomeCast { started: now, from }));
        self.home_casters.push(Arc::clone(&player.shared_id));
        events.push(Event::HomeTeleport {
            to: id,
            status: HomeTeleportStatus::Casting,
            cooldown_ticks: 0,
        });
    }

    /// Stops player `index`'s home teleport, if they are casting it (`stop`).
    pub(crate) fn interrupt_home_teleport(&mut self, index: usize, events: &mut Vec<Event>) {
        if self.players[index].home_cast.take().is_some() {
            events.push(Event::HomeTeleport {
                to: self.players[index].id.clone(),
                status: HomeTeleportStatus::Interrupted,
                cooldown_ticks: 0,
            });
        }
    }

    /// Lands or interrupts the home teleports being cast (actions phase, after the intents).
    pub(crate) fn advance_home_teleports(&mut self, events: &mut Vec<Event>) {
        if self.home_casters.is_empty() {
            return;
        }
        let now = self.now();
        let casters = std::mem::take(&mut self.home_casters);
        for id in casters {
            let Some(&index) = self.player_index.get(&*id) else {
                continue;
            };
            let Some(cast) = self.players[index].home_cast.as_deref().copied() else {
                continue;
            };
            let player = &self.players[index];
            let interrupted = self.is_dead(index)
                || player.walk.is_moving()
                || player.intent.is_some()
                || player.fought_at >= cast.started
                || self.player_tile(&id) != Some(cast.from);
            if interrupted {
                self.players[index].home_cast = None;
                events.push(Event::HomeTeleport {
                    to: id.to_string(),
                    status: HomeTeleportStatus::Interrupted,
                    cooldown_ticks: 0,
                });
                continue;
            }
            if now < cast.started + HOME_CAST_TICKS {
                self.home_casters.push(id);
                continue;
            }
            let home = self.walkable_near(self.layout.spawn);
            let player = &mut self.players[index];
            player.home_cast = None;
            player.home_ready_at = now + HOME_COOLDOWN_TICKS;
            self.place_player(index, home);
            events.push(Event::HomeTeleport {
                to: id.to_string(),
                status: HomeTeleportStatus::Arrived,
                cooldown_ticks: HOME_COOLDOWN_TICKS,
            });
        }
    }

    /// `player:emote`: shows `emote` to everyone in view of player `id`.
    pub(crate) fn emote(
        &mut self,
        id: &str,
        emote: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) {
        let Some(index) = self.living_player(id, reference, events) else {
            return;
        };
        let Some(&emote) = EMOTES.iter().find(|e| **e == emote) else {
            return Self::reject(
                id,
                codes::UNKNOWN_EMOTE,
                format!("there is no emote {emote:?}; emotes: {}", EMOTES.join(", ")),
                reference,
                events,
            );
        };
        if self.in_combat(index) {
            return Self::reject(
                id,
                codes::IN_COMBAT,
                "you cannot do that while in combat",
                reference,
                events,
            );
        }
        let now = self.now();
        if now < self.players[index].emote_ready_at {
            return Self::reject(
                id,
                codes::RATE_LIMITED,
                "you are still doing the last one",
                reference,
                events,
            );
        }
        self.players[index].emote_ready_at = now + EMOTE_GAP_TICKS;
        let Some(tile) = self.player_tile(id) else {
            return;
        };
        let mut to = Vec::new();
        self.grid
            .players_within(tile, VIEW_RADIUS_TILES, |handle, _| {
                if let Some(viewer) = self.entities.get(handle) {
                    to.push(viewer.wire.id.clone());
                }
            });
        to.sort();
        events.push(Event::Emote {
            to,
            player_id: id.to_owned(),
            emote,
        });
    }
}
