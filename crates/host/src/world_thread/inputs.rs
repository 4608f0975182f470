//! Taking the world's inputs between ticks: bookkeeping at once, game changes as commands for the
//! next tick.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use wayfarer_protocol::ws::ServerMessage;
use wayfarer_sim::Command;

use super::{Outbound, PlayerRecord, Runner, WorldInput};
use crate::online::TileCell;
use crate::player_view;

impl Runner {
    /// Takes one input: bookkeeping here, game changes as commands for the next tick.
    pub(super) fn accept(&mut self, input: WorldInput) {
        match input {
            WorldInput::Join {
                snapshot,
                joining,
                session_id,
                outbound,
            } => {
                let id = snapshot.character.id.clone();
                if self.players.contains_key(&id)
                    || self.leaving.contains_key(&id)
                    || self.deferred.contains_key(&id)
                    || self.joins.contains(&id)
                {
                    self.refuse_join(&id, &session_id, &outbound);
                    return;
                }
                let tile = TileCell::new(player_view::tile_of(snapshot.character.position));
                let record = PlayerRecord {
                    snapshot: *snapshot,
                    session_id,
                    outbound,
                    dirty: false,
                    save_turn: 0,
                    pending: RefCell::new(Vec::new()),
                    tile,
                    left_out: Cell::new(false),
                };
                self.join(record, joining);
            }
            WorldInput::Leave {
                id,
                session_id,
                reason,
                done,
            } => self.leave(&id, &session_id, reason, done),
            WorldInput::Sim(command) => {
                // A player waiting to enter keeps its commands until it does (`admission.rs`).
                if let Some(command) = self.joins.hold(command) {
                    self.commands.push(command);
                }
            }
            WorldInput::Sync { id, asked_at } => {
                let record = self
                    .players
                    .get(&id)
                    .map(|record| &**record)
                    .or_else(|| self.joins.get(&id).map(|w| &w.record));
                if let Some(record) = record {
                    let sync = self.player_sync(record);
                    let _ = record.outbound.try_send(Outbound::Reply {
                        message: Arc::new(ServerMessage::PlayerSync(Box::new(sync))),
                        asked_at,
                        tick_wait: self.last_tick.wait_of(asked_at),
                    });
                }
            }
            WorldInput::Give {
                id,
                item_id,
                quantity,
            } => self.commands.push(Command::Give {
                id,
                item_id,
                quantity: u32::try_from(quantity.max(0)).unwrap_or(u32::MAX),
            }),
            WorldInput::Notify { to, message } => self.notices.push((to, message)),
            WorldInput::AdmitPrivateElsewhere {
                id,
                to,
                text,
                reply,
            } => self.admissions.push(super::queries::Admission {
                id,
                to,
                text,
                reply,
            }),
            WorldInput::Tally { id, reply } => {
                // A manual world answers once its trade and duel commits in flight are written
                // (the bench reads a duel's audit row from the store right after): a duel that
                // ended this tick is in the store whatever the database's pace. Their outcomes
                // take the same place in the next tick's commands as when that tick takes them.
                if self.context.manual
                    && !self.await_trade_outcomes(super::trade_commits::MANUAL_COMMIT_WAIT)
                {
                    tracing::warn!("tally: commits still in flight");
                }
                let tally = self
                    .tally
                    .as_ref()
                    .and_then(|t| t.get(&id).cloned())
                    .unwrap_or_default();
                let _ = reply.send(tally);
            }
            WorldInput::Snapshot { id, reply } => {
                let live = self
                    .players
                    .get(&id)
                    .map(|record| &**record)
                    .or_else(|| self.joins.get(&id).map(|w| &w.record))
                    .map(|record| Box::new(self.finished_snapshot(record.snapshot.clone())));
                let _ = reply.send(live);
            }
            WorldInput::Surroundings {
                id,
                radius_tiles,
                reply,
            } => {
                let around = self.players.get(&id).and_then(|record| {
                    let tile = self.world.player_tile(&id)?;
                    let nearby = self.world.entities_near(&id, radius_tiles)?;
                    let c = &record.snapshot.character;
                    Some(Box::new(super::Surroundings {
                        tile,
                        health: c.health,
                        max_health: c.max_health,
                        inventory: record.snapshot.inventory.clone(),
                        nearby,
                    }))
                });
                let _ = reply.send(around);
            }
            WorldInput::ArenaFights { reply } => {
                let tick_ms = self.context.tick.as_millis() as i64;
                let next = self.world.tick_number() + 1;
                let now = super::now_ms();
                let fights = self
                    .world
                    .arena_fights()
                    .into_iter()
                    .map(|f| {
                        let ahead = f.starts_at as i64 - next as i64;
                        (f, now.saturating_add(ahead.saturating_mul(tick_ms)))
                    })
                    .collect();
                let _ = reply.send(fights);
            }
            WorldInput::GroundTotals { reply } => {
                let mut totals: HashMap<String, i64> = HashMap::new();
                for item in self.world.ground_items() {
                    if item.death.is_none() {
                        *totals.entry(item.stack.item_id).or_default() +=
                            i64::from(item.stack.quantity);
                    }
                }
                let _ = reply.send(totals.into_iter().collect());
            }
            WorldInput::Step(step) => {
                // Only the manual clock's loop takes steps; the handle refuses them for a timed
                // world, so one here was sent around it. Dropping the reply tells its sender.
                tracing::warn!(
                    ticks = step.ticks,
                    "a tick step for a world on the timed clock: refused"
                );
            }
            WorldInput::ReplaceContent(content) => {
                self.world.replace_content(content.clone());
                self.context.content = content;
                tracing::info!(
                    tick = self.world.tick_number(),
                    "content replaced at a tick boundary"
                );
            }
        }
    }
}
