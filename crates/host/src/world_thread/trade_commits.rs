//! The trade commit, the server half of the two-phase completion (the sim's half is
//! `wayfarer_sim::trade`), and its one owner.
//!
//! When both players accept on Screen 2 the sim reports `Event::TradeCommit` with both post-swap
//! inventories and changes nothing yet. [`Runner::commit_trade`] sends ONE save job holding both
//! players' post-swap records and the audit row, written in one transaction, and notes the trade
//! in the [`TradeBook`](super::trade_book::TradeBook) (`trade_book.rs`: the state, no actions). The
//! save task answers on the book's channel; [`Runner::take_trade_outcomes`] passes each outcome to
//! the sim (`Command::TradeCommitted`), which then applies the swap (`tradeCompleted`) or cancels
//! the trade (`server_error`). Until the outcome the two records are *held*: no periodic save and
//! no logout save may write them (a pre-swap record written after the commit would take the
//! database back). A participant who leaves while trading has their final save deferred until the
//! trade either ended without committing or has its outcome (`sessions.rs`); then the record is
//! saved as the outcome says. The save task writes jobs in order, so the database always holds
//! each item exactly once, whatever crashes.

use wayfarer_sim::Command;

use crate::player_view;
use crate::saver::SaveJob;

use super::trade_book::CommitKind;

/// How long a manual-clock tick waits for the trade and duel commits in flight.
pub(super) const MANUAL_COMMIT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
use super::{now_ms, Runner};

impl Runner {
    /// Takes the outcomes of committed trades: the sim learns them at the next tick; held records
    /// take the post-swap items when the trade committed.
    pub(super) fn take_trade_outcomes(&mut self) {
        while let Ok((trade_id, ok)) = self.trades.outcomes_rx.try_recv() {
            self.on_trade_outcome(&trade_id, ok);
        }
        // On the manual clock a tick waits for the commits in flight, so the tick a trade or a
        // duel ends on does not depend on the database's speed (the agent bench's lockstep runs
        // are the same run to run). Bounded: a save task that never answers delays, not hangs.
        if self.context.manual && !self.await_trade_outcomes(MANUAL_COMMIT_WAIT) {
            let pending = self.trades.pending.len();
            tracing::warn!(pending, "manual tick: commits still in flight");
        }
    }

    /// Waits up to `wait` for the outcomes of the commits in flight, applying each: `false` when
    /// some are still pending at the end.
    pub(super) fn await_trade_outcomes(&mut self, wait: std::time::Duration) -> bool {
        super::clock::drain_in_flight(
            self,
            wait,
            |runner| &runner.trades.outcomes_rx,
            |runner| !runner.trades.pending.is_empty(),
            |runner, (trade_id, ok)| runner.on_trade_outcome(&trade_id, ok),
        )
    }

    pub(super) fn on_trade_outcome(&mut self, trade_id: &str, ok: bool) {
        let Some(pending) = self.trades.finish(trade_id) else {
            return;
        };
        let kind = pending.kind;
        match (kind, ok) {
            (CommitKind::Trade, true) => {
                metrics::counter!("trades_completed_total").increment(1);
            }
            (CommitKind::Duel, true) => {
                metrics::counter!("duels_completed_total").increment(1);
                tracing::info!(duel = trade_id, winner = %pending.players[0], loser = %pending.players[1], "duel result written");
            }
            (_, false) => tracing::error!(
                commit = trade_id,
                ?kind,
                "a trade's or duel's transaction failed; cancelled"
            ),
        }
        for player in &pending.players {
            let Some(after) = pending.after_of(player) else {
                continue;
            };
            let record = match self.deferred.get_mut(player) {
                Some(leave) => Some(&mut leave.record),
                None => self.players.get_mut(player).map(|record| &mut **record),
            };
            if let Some(record) = record {
                if ok {
                    record.snapshot.inventory = after.to_vec();
                    record.snapshot.character.coins =
                        player_view::coins_in(&record.snapshot.inventory);
                }
                // Both are written again (together, by the next periodic save): a write reported
                // failed that did commit is undone whole rather than half.
                record.dirty = true;
            }
        }
        self.commands.push(match kind {
            CommitKind::Trade => Command::TradeCommitted {
                trade_id: trade_id.to_owned(),
                ok,
            },
            CommitKind::Duel => Command::DuelCommitted {
                duel_id: trade_id.to_owned(),
                ok,
            },
        });
        self.settle_deferred();
    }

    /// Both accepted on Screen 2: one job writes both post-swap records and the audit row; the
    /// records stay held until the outcome.
    pub(super) fn commit_trade(&mut self, commit: &wayfarer_sim::TradeCommit) {
        let audit = self.trades.begin(commit, now_ms());
        let job = SaveJob {
            trade: Some(audit),
            trade_outcome: Some((commit.trade_id.clone(), self.trades.outcomes_tx.clone())),
            ..SaveJob::default()
        };
        self.send_commit(job, &commit.trade_id, &commit.players, &commit.after);
    }

    /// A duel's fight ended: one job writes both post-result records (the loser's stake moved to
    /// the winner) and the `duels` audit row, exactly as a trade's swap; the records stay held
    /// until the outcome, which comes back as `Command::DuelCommitted`.
    pub(super) fn commit_duel(&mut self, commit: &wayfarer_sim::DuelCommit) {
        let audit = self
            .trades
            .begin_duel(commit, now_ms(), self.context.tick.as_millis() as i64);
        let job = SaveJob {
            duel: Some(audit),
            trade_outcome: Some((commit.duel_id.clone(), self.trades.outcomes_tx.clone())),
            ..SaveJob::default()
        };
        self.send_commit(job, &commit.duel_id, &commit.players, &commit.after);
    }

    /// Adds both players' records with their post-commit inventories to `job` and sends it; a
    /// job that cannot be built or sent is answered as failed at once.
    fn send_commit(
        &mut self,
        mut job: SaveJob,
        commit_id: &str,
        players: &[String; 2],
        after: &[wayfarer_sim::inventory::Inventory; 2],
    ) {
        for (side, player) in players.iter().enumerate() {
            let record = match self.deferred.get(player) {
                Some(leave) => Some(&leave.record),
                None => self.players.get(player).map(|record| &**record),
            };
            let Some(record) = record else {
                tracing::error!(commit = %commit_id, character = %player, "a committing trade's or duel's player has no record");
                continue;
            };
            let mut snapshot = self.finished_snapshot(record.snapshot.clone());
            snapshot.inventory = super::trade_book::rows(after[side].stacks());
            snapshot.character.coins = player_view::coins_in(&snapshot.inventory);
            job.snapshots.push(snapshot);
        }
        if job.snapshots.len() != 2 {
            // Cannot happen (both were online when the sim planned the swap); refuse the trade.
            let _ = self.trades.outcomes_tx.send((commit_id.to_owned(), false));
            return;
        }
        if let Err(err) = self.send_job(job) {
            tracing::error!("the save task has stopped; a trade could not be written");
            if let Some((trade_id, tx)) = err.0.trade_outcome {
                let _ = tx.send((trade_id, false));
            }
        }
    }
}
