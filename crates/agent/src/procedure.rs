//! How a validated action runs: the messages it sends, and how it knows it finished. A procedure
//! is polled once per loop turn with the model and the agent's tick clock; it never blocks, so
//! the connection keeps reading while an action runs.

use std::collections::VecDeque;

use wayfarer_protocol::ws::{ActionRequest, ClientMessage, MoveRequest, TilePos, MAX_MOVE_TILES};

use crate::model::{chebyshev, Model};
use crate::outcome::Outcome;

/// Ticks without a refusal after which a quiet act counts as accepted (a refusal comes in the
/// batch of the tick that handled the message: one tick, plus one of slack).
pub const GRACE_TICKS: u64 = 2;
/// Ticks a walk leg may go without the agent moving before the leg counts as ended.
pub const STALL_TICKS: u64 = 6;
/// Most items one `dropItem` drops (specification section 8).
pub const MAX_DROP_ITEMS: usize = 50;
/// Consecutive failed drops after which `dropItem` stops.
pub const MAX_DROP_FAILURES: u32 = 3;
/// Ticks to wait for one drop's inventory change.
const DROP_WAIT_TICKS: u64 = 4;

/// A condition on the model that ends an action.
pub type Check = Box<dyn Fn(&Model) -> bool + Send + Sync>;
/// A counter that moves while an action makes progress (XP events, inventory changes).
pub type Progress = Box<dyn Fn(&Model) -> u64 + Send + Sync>;

/// What a poll decided.
#[derive(Debug)]
pub enum Poll {
    Pending,
    Done(Outcome),
}

/// A running action.
pub enum Procedure {
    /// Send the frames, then wait for `until`.
    Send {
        frames: Vec<ClientMessage>,
        until: Until,
        sent_at: Option<u64>,
    },
    /// Walk to a tile in legs of at most 200 tiles.
    Walk(Walk),
    /// Drop items one stack at a time.
    Drop(DropRun),
    /// Run these one after another; the first that does not succeed ends the chain.
    Chain(VecDeque<Procedure>),
    /// A deposit whose slot is looked up when its turn comes.
    Deferred(crate::actions::DepositItem),
    /// Already decided (nothing left to send).
    Finished(Outcome),
}

/// When a sent action is finished.
pub struct Until {
    /// Accepted when this holds (`None`: accepted when no refusal came within the grace).
    pub done: Option<Check>,
    /// What to say on success.
    pub detail: String,
    /// Ticks to wait for `done` (counted from the last progress when `progress` is set).
    pub timeout_ticks: u64,
    pub progress: Option<Progress>,
    last_progress: Option<(u64, u64)>,
}

impl Until {
    /// Accepted once the grace passes without a refusal.
    pub fn quiet(detail: impl Into<String>) -> Until {
        Until {
            done: None,
            detail: detail.into(),
            timeout_ticks: GRACE_TICKS,
            progress: None,
            last_progress: None,
        }
    }

    /// Accepted when `done` holds, failed after `timeout_ticks`.
    pub fn when(
        done: impl Fn(&Model) -> bool + Send + Sync + 'static,
        timeout_ticks: u64,
        detail: impl Into<String>,
    ) -> Until {
        Until {
            done: Some(Box::new(done)),
            detail: detail.into(),
            timeout_ticks,
            progress: None,
            last_progress: None,
        }
    }

    /// The timeout counts from the last time `progress` moved.
    pub fn with_progress(
        mut self,
        progress: impl Fn(&Model) -> u64 + Send + Sync + 'static,
    ) -> Until {
        self.progress = Some(Box::new(progress));
        self
    }
}

impl Procedure {
    /// Sends `frame`, accepted when no refusal comes.
    pub fn quiet(message: ClientMessage, detail: impl Into<String>) -> Procedure {
        Procedure::Send {
            frames: vec![message],
            until: Until::quiet(detail),
            sent_at: None,
        }
    }

    /// Nothing to do: succeeds at once with `detail`.
    pub fn quiet_done(detail: impl Into<String>) -> Procedure {
        Procedure::Finished(Outcome::Accepted {
            detail: detail.into(),
        })
    }

    /// Sends `frame`, then waits for `until`.
    pub fn send(message: ClientMessage, until: Until) -> Procedure {
        Procedure::Send {
            frames: vec![message],
            until,
            sent_at: None,
        }
    }

    /// Advances the action: queues frames to send in `out`.
    pub fn poll(&mut self, model: &Model, now: u64, out: &mut Vec<ClientMessage>) -> Poll {
        match self {
            Procedure::Send {
                frames,
                until,
                sent_at,
            } => {
                let Some(start) = *sent_at else {
                    out.append(frames);
                    *sent_at = Some(now);
                    return Poll::Pending;
                };
                if let Some(done) = &until.done {
                    if done(model) {
                        return Poll::Done(Outcome::Accepted {
                            detail: until.detail.clone(),
                        });
                    }
                } else if now >= start + GRACE_TICKS {
                    return Poll::Done(Outcome::Accepted {
                        detail: until.detail.clone(),
                    });
                }
                let mut from = start;
                if let Some(progress) = &until.progress {
                    let value = progress(model);
                    match until.last_progress {
                        Some((seen, at)) if seen == value => from = at,
                        _ => {
                            until.last_progress = Some((value, now));
                            from = now;
                        }
                    }
                }
                if now >= from + until.timeout_ticks {
                    return Poll::Done(Outcome::Failed {
                        reason: format!("no result within {} ticks", until.timeout_ticks),
                    });
                }
                Poll::Pending
            }
            Procedure::Walk(walk) => walk.poll(model, now, out),
            Procedure::Finished(outcome) => Poll::Done(outcome.clone()),
            Procedure::Deferred(deposit) => {
                *self = deposit.resolve(model);
                self.poll(model, now, out)
            }
            Procedure::Drop(drop) => drop.poll(model, now, out),
            Procedure::Chain(steps) => loop {
                let Some(step) = steps.front_mut() else {
                    return Poll::Done(Outcome::Accepted {
                        detail: "done".into(),
                    });
                };
                match step.poll(model, now, out) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Done(outcome) if outcome.is_success() => {
                        steps.pop_front();
                        if steps.is_empty() {
                            return Poll::Done(outcome);
                        }
                    }
                    Poll::Done(outcome) => return Poll::Done(outcome),
                }
            },
        }
    }

    /// The server refused one of this action's messages. Most actions end there; a drop run
    /// counts it and goes on.
    pub fn on_rejected(&mut self, code: &str, message: &str) -> Option<Outcome> {
        let rejected = || Outcome::Rejected {
            source: "server",
            code: code.to_owned(),
            message: message.to_owned(),
        };
        match self {
            Procedure::Drop(drop) => drop.on_rejected(code),
            Procedure::Chain(steps) => match steps.front_mut() {
                Some(step) => step.on_rejected(code, message),
                None => Some(rejected()),
            },
            _ => Some(rejected()),
        }
    }
}

/// A walk in legs of at most 200 tiles (the server's move limit).
pub struct Walk {
    pub target: TilePos,
    pub within: u32,
    pub run: bool,
    /// The current leg's end and when it was sent.
    leg: Option<(TilePos, u64)>,
    /// The last tile seen and when the agent was first seen there.
    still: Option<(TilePos, u64)>,
    /// Where the last leg ended without reaching its end: the same again means stuck.
    stalled_at: Option<TilePos>,
    pub legs_sent: u32,
}

impl Walk {
    /// A walk to within `within` tiles of `target`.
    pub fn new(target: TilePos, within: u32, run: bool) -> Walk {
        Walk {
            target,
            within,
            run,
            leg: None,
            still: None,
            stalled_at: None,
            legs_sent: 0,
        }
    }

    fn poll(&mut self, model: &Model, now: u64, out: &mut Vec<ClientMessage>) -> Poll {
        let here: TilePos = model.me.tile.into();
        if chebyshev(here.x, here.z, self.target.x, self.target.z) <= self.within {
            return Poll::Done(Outcome::Accepted {
                detail: format!(
                    "at ({}, {}) after {} leg(s)",
                    here.x, here.z, self.legs_sent
                ),
            });
        }
        match self.still {
            Some((tile, _)) if tile == here => {}
            _ => self.still = Some((here, now)),
        }
        let still_for = self.still.map_or(0, |(_, since)| now - since);
        let leg_over = match self.leg {
            None => true,
            Some((end, sent)) => {
                here == end || (now >= sent + STALL_TICKS && still_for >= STALL_TICKS)
            }
        };
        if !leg_over {
            return Poll::Pending;
        }
        if let Some((end, _)) = self.leg {
            if here != end {
                // The leg stopped short (the server walks to the closest reachable tile).
                if self.stalled_at == Some(here) {
                    return Poll::Done(Outcome::Failed {
                        reason: format!(
                            "stuck at ({}, {}) on the way to ({}, {})",
                            here.x, here.z, self.target.x, self.target.z
                        ),
                    });
                }
                self.stalled_at = Some(here);
            }
        }
        let end = leg_towards(here, self.target);
        out.push(ClientMessage::Move(MoveRequest {
            x: end.x,
            z: end.z,
            run: self.run && model.me.stamina > 0,
        }));
        self.leg = Some((end, now));
        self.still = Some((here, now));
        self.legs_sent += 1;
        Poll::Pending
    }
}

/// The end of the next leg from `from` towards `to`: the target when within the move limit,
/// else the point along the way at most 200 tiles off on each axis (Chebyshev ≤ 200).
pub fn leg_towards(from: TilePos, to: TilePos) -> TilePos {
    let limit = MAX_MOVE_TILES;
    let (dx, dz) = (to.x - from.x, to.z - from.z);
    let longest = dx.abs().max(dz.abs());
    if longest <= limit {
        return to;
    }
    // Scale the step so the longer axis moves exactly `limit`: a straight line, not a staircase.
    let scale = f64::from(limit) / f64::from(longest);
    TilePos {
        x: from.x + (f64::from(dx) * scale).round() as i32,
        z: from.z + (f64::from(dz) * scale).round() as i32,
    }
}

/// Which items a drop run drops.
#[derive(Debug, Clone, PartialEq)]
pub enum DropWhat {
    /// The stack in one slot.
    Slot(u8),
    /// Every stack of one item.
    Item(String),
    /// Everything.
    All,
}

/// `dropItem`: one stack at a time, at most 50, stopping after 3 consecutive failures.
pub struct DropRun {
    pub what: DropWhat,
    pub dropped: usize,
    failures: u32,
    /// The slot being dropped, the inventory version before, and when it was sent.
    waiting: Option<(u8, u64, u64)>,
    /// Slots that failed: not tried again in this run.
    skip: Vec<u8>,
}

impl DropRun {
    /// A drop run.
    pub fn new(what: DropWhat) -> DropRun {
        DropRun {
            what,
            dropped: 0,
            failures: 0,
            waiting: None,
            skip: Vec::new(),
        }
    }

    fn poll(&mut self, model: &Model, now: u64, out: &mut Vec<ClientMessage>) -> Poll {
        if let Some((slot, version, sent)) = self.waiting {
            let gone = model.slot(slot).is_none();
            if model.inventory_version > version && gone {
                self.dropped += 1;
                self.failures = 0;
                self.waiting = None;
            } else if now >= sent + DROP_WAIT_TICKS {
                self.waiting = None;
                self.skip.push(slot);
                if let Some(done) = self.fail() {
                    return Poll::Done(done);
                }
            } else {
                return Poll::Pending;
            }
        }
        if self.dropped >= MAX_DROP_ITEMS {
            return Poll::Done(Outcome::Accepted {
                detail: format!("dropped {} (the most one command drops)", self.dropped),
            });
        }
        let next = model
            .me
            .inventory
            .iter()
            .filter(|s| !self.skip.contains(&s.slot))
            .find(|s| match &self.what {
                DropWhat::Slot(slot) => s.slot == *slot,
                DropWhat::Item(item) => &s.item_id == item,
                DropWhat::All => true,
            });
        let Some(next) = next else {
            return Poll::Done(Outcome::Accepted {
                detail: format!("dropped {}", self.dropped),
            });
        };
        if matches!(self.what, DropWhat::Slot(_)) && self.dropped == 1 {
            return Poll::Done(Outcome::Accepted {
                detail: "dropped 1".into(),
            });
        }
        out.push(ClientMessage::Action(
            ActionRequest::new("drop").with_slot(next.slot),
        ));
        self.waiting = Some((next.slot, model.inventory_version, now));
        Poll::Pending
    }

    fn on_rejected(&mut self, code: &str) -> Option<Outcome> {
        if let Some((slot, _, _)) = self.waiting.take() {
            self.skip.push(slot);
        }
        self.fail().map(|outcome| match outcome {
            Outcome::Failed { reason } => Outcome::Failed {
                reason: format!("{reason}; last refusal {code}"),
            },
            other => other,
        })
    }

    fn fail(&mut self) -> Option<Outcome> {
        self.failures += 1;
        (self.failures >= MAX_DROP_FAILURES).then(|| Outcome::Failed {
            reason: format!(
                "stopped after {MAX_DROP_FAILURES} consecutive failures ({} dropped)",
                self.dropped
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wayfarer_protocol::ws::InventorySlot;

    /// The slot of a `player:action` `drop`.
    fn dropped_slot(message: &ClientMessage) -> u8 {
        match message {
            ClientMessage::Action(drop) if drop.action == "drop" => {
                drop.slot.as_ref().and_then(|s| s.as_u64()).unwrap() as u8
            }
            other => panic!("not a drop: {other:?}"),
        }
    }

    fn slot(slot: u8, item: &str) -> InventorySlot {
        InventorySlot {
            slot,
            item_id: item.into(),
            name: item.into(),
            quantity: 1,
        }
    }

    fn full_of(item: &str) -> Vec<InventorySlot> {
        (0..28).map(|s| slot(s, item)).collect()
    }

    #[test]
    fn a_drop_run_stops_at_50_items_even_when_the_inventory_refills() {
        let mut model = Model::default();
        model.me.inventory = full_of("logs");
        let mut run = Procedure::Drop(DropRun::new(DropWhat::Item("logs".into())));
        let mut sent = 0;
        let mut refill: Option<u8> = None;
        for now in 0..500 {
            let mut out = Vec::new();
            if let Poll::Done(outcome) = run.poll(&model, now, &mut out) {
                assert_eq!(
                    outcome,
                    Outcome::Accepted {
                        detail: "dropped 50 (the most one command drops)".into()
                    }
                );
                assert_eq!(sent, MAX_DROP_ITEMS);
                return;
            }
            // Something refills the slot dropped a tick ago (a gift, a pickup).
            if let Some(slot_number) = refill.take() {
                model.me.inventory.push(slot(slot_number, "logs"));
                model.inventory_version += 1;
            }
            for message in out {
                sent += 1;
                let dropped = dropped_slot(&message);
                model.me.inventory.retain(|s| s.slot != dropped);
                model.inventory_version += 1;
                refill = Some(dropped);
            }
        }
        panic!("never finished");
    }

    #[test]
    fn a_drop_run_stops_after_three_consecutive_failures() {
        let mut model = Model::default();
        model.me.inventory = vec![
            slot(0, "logs"),
            slot(1, "logs"),
            slot(2, "bones"),
            slot(3, "logs"),
            slot(4, "logs"),
        ];
        let mut run = Procedure::Drop(DropRun::new(DropWhat::All));
        // The first drop works.
        let mut out = Vec::new();
        assert!(matches!(run.poll(&model, 0, &mut out), Poll::Pending));
        model.me.inventory.remove(0);
        model.inventory_version += 1;
        // Then the server refuses three in a row (say, a trade opened).
        let mut refusals = 0;
        for now in 1..20 {
            out.clear();
            if let Poll::Done(outcome) = run.poll(&model, now, &mut out) {
                panic!("ended early: {outcome}");
            }
            if !out.is_empty() {
                refusals += 1;
                if let Some(outcome) = run.on_rejected("in_trade", "you are trading") {
                    assert_eq!(refusals, MAX_DROP_FAILURES);
                    let Outcome::Failed { reason } = outcome else {
                        panic!("{outcome}")
                    };
                    assert!(
                        reason.contains("3 consecutive failures (1 dropped)"),
                        "{reason}"
                    );
                    return;
                }
            }
        }
        panic!("never stopped");
    }

    #[test]
    fn drop_by_type_leaves_other_items_and_one_slot_drops_once() {
        let mut model = Model::default();
        model.me.inventory = vec![slot(0, "logs"), slot(1, "bones"), slot(2, "logs")];
        let mut run = Procedure::Drop(DropRun::new(DropWhat::Item("logs".into())));
        let mut dropped = Vec::new();
        for now in 0..20 {
            let mut out = Vec::new();
            if let Poll::Done(outcome) = run.poll(&model, now, &mut out) {
                assert_eq!(
                    outcome,
                    Outcome::Accepted {
                        detail: "dropped 2".into()
                    }
                );
                assert_eq!(dropped, vec![0, 2]);
                break;
            }
            for message in out {
                let s = dropped_slot(&message);
                dropped.push(s);
                model.me.inventory.retain(|x| x.slot != s);
                model.inventory_version += 1;
            }
        }
        assert_eq!(model.me.inventory, vec![slot(1, "bones")]);
    }

    #[test]
    fn legs_stay_within_the_move_limit_and_end_on_the_target() {
        let from = TilePos { x: -130, z: 0 };
        let to = TilePos { x: 130, z: 30 };
        let leg = leg_towards(from, to);
        assert_eq!(leg.x - from.x, 200);
        assert!((leg.z - from.z).abs() <= 200);
        assert_eq!(leg_towards(leg, to), to);
        let near = TilePos { x: 5, z: 5 };
        assert_eq!(leg_towards(TilePos { x: 0, z: 0 }, near), near);
    }
}
