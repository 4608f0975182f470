//! The book of committing trades (and duels, whose result commits the same way): which wait for
//! their transaction, whose records they hold, each side's post-swap inventory rows, and the audit
//! row to write. State only: it sends, saves and tells nothing; `trade_commits.rs`, the one owner
//! of the commit, keeps it and acts on it. The save task answers on its channel ([`TradeOutcome`]).

use std::collections::HashMap;
use std::sync::mpsc;

use wayfarer_sim::inventory::Stack;
use wayfarer_sim::{DuelCommit, TradeCommit};
use wayfarer_store::{DuelAudit, StoredSlot, TradeAudit};

use crate::deaths::merge;

/// The answer of the save task for one trade: `(trade id, committed)`.
pub type TradeOutcome = (String, bool);

/// What a held commit completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitKind {
    Trade,
    Duel,
}

/// A trade (or a duel's result) waiting for its transaction.
#[derive(Debug, Clone)]
pub struct Pending {
    pub players: [String; 2],
    /// Each player's inventory rows after the swap.
    pub after: [Vec<StoredSlot>; 2],
    pub kind: CommitKind,
}

/// Committing trades and the channel their outcomes come back on.
pub struct TradeBook {
    pub outcomes_tx: mpsc::Sender<TradeOutcome>,
    pub outcomes_rx: mpsc::Receiver<TradeOutcome>,
    /// Trade id → the trade.
    pub pending: HashMap<String, Pending>,
    /// Player → the committing trade holding their record.
    pub held: HashMap<String, String>,
}

impl Default for TradeBook {
    fn default() -> Self {
        let (outcomes_tx, outcomes_rx) = mpsc::channel();
        TradeBook {
            outcomes_tx,
            outcomes_rx,
            pending: HashMap::new(),
            held: HashMap::new(),
        }
    }
}

impl TradeBook {
    /// Records a committing trade; returns the audit row to write with its records.
    pub fn begin(&mut self, commit: &TradeCommit, now_ms: i64) -> TradeAudit {
        self.hold(
            &commit.trade_id,
            &commit.players,
            &commit.after,
            CommitKind::Trade,
        );
        TradeAudit {
            id: uuid::Uuid::now_v7().to_string(),
            player_a: commit.players[0].clone(),
            player_b: commit.players[1].clone(),
            items_a_to_b: merge(&commit.gives[0]),
            items_b_to_a: merge(&commit.gives[1]),
            completed_at_ms: now_ms,
        }
    }

    /// Records a committing duel (winner, loser); returns the audit row to write with its records.
    pub fn begin_duel(&mut self, commit: &DuelCommit, now_ms: i64, tick_ms: i64) -> DuelAudit {
        self.hold(
            &commit.duel_id,
            &commit.players,
            &commit.after,
            CommitKind::Duel,
        );
        DuelAudit {
            id: uuid::Uuid::now_v7().to_string(),
            winner_id: commit.players[0].clone(),
            loser_id: commit.players[1].clone(),
            items_won: merge(&commit.won),
            winner_stake: merge(&commit.kept),
            rules: commit.rules.clone(),
            completed_at_ms: now_ms,
            arena: commit
                .arena
                .as_ref()
                .map(|outcome| arena_result(&commit.duel_id, outcome, tick_ms, now_ms)),
        }
    }

    fn hold(
        &mut self,
        id: &str,
        players: &[String; 2],
        after: &[wayfarer_sim::inventory::Inventory; 2],
        kind: CommitKind,
    ) {
        for p in players {
            self.held.insert(p.clone(), id.to_owned());
        }
        self.pending.insert(
            id.to_owned(),
            Pending {
                players: players.clone(),
                after: [0, 1].map(|s| rows(after[s].stacks())),
                kind,
            },
        );
    }

    /// The outcome arrived: the trade stops holding its players' records.
    pub fn finish(&mut self, trade_id: &str) -> Option<Pending> {
        let pending = self.pending.remove(trade_id)?;
        for p in &pending.players {
            if self.held.get(p).map(String::as_str) == Some(trade_id) {
                self.held.remove(p);
            }
        }
        Some(pending)
    }

    /// Whether a player's record must not be saved now.
    pub fn is_held(&self, player: &str) -> bool {
        self.held.contains_key(player)
    }
}

impl Pending {
    /// The post-swap rows of `player`.
    pub fn after_of(&self, player: &str) -> Option<&[StoredSlot]> {
        let side = self.players.iter().position(|p| p == player)?;
        Some(&self.after[side])
    }
}

/// Inventory rows of occupied slots.
pub fn rows<'a>(stacks: impl Iterator<Item = (usize, &'a Stack)>) -> Vec<StoredSlot> {
    stacks
        .map(|(slot, stack)| StoredSlot {
            slot: slot as u8,
            item_id: stack.item_id.clone(),
            quantity: i64::from(stack.quantity),
        })
        .collect()
}

/// A ladder fight's outcome as the store writes it with the duel's result. Its start is reckoned
/// back from now by the ticks it lasted.
fn arena_result(
    duel_id: &str,
    outcome: &wayfarer_sim::ArenaOutcome,
    tick_ms: i64,
    now_ms: i64,
) -> wayfarer_store::ArenaResult {
    let stored = |r: wayfarer_sim::ArenaRating| wayfarer_store::StoredRating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let fighter = |side: usize| wayfarer_store::ArenaFighter {
        id: outcome.players[side].clone(),
        name: outcome.names[side].clone(),
        before: stored(outcome.before[side]),
        after: stored(outcome.after[side]),
    };
    wayfarer_store::ArenaResult {
        fight_id: outcome.fight_id.clone(),
        duel_id: duel_id.to_owned(),
        fighters: [fighter(0), fighter(1)],
        winner_id: outcome.winner.clone(),
        loser_id: outcome.loser.clone(),
        pit: i64::try_from(outcome.pit).unwrap_or(0),
        started_at_ms: now_ms.saturating_sub(
            i64::try_from(outcome.fight_ticks)
                .unwrap_or(0)
                .saturating_mul(tick_ms),
        ),
        ended_at_ms: now_ms,
    }
}
