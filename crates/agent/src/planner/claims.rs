//! Spreading over nodes: the agents of one process share their claims on gathering nodes (one
//! table per [`crate::Host`]), and a node another player stands next to counts as taken. Twelve
//! agents on four trees cost each about three times the time per log (issue 32).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wayfarer_protocol::ws::EntityKind;

use crate::actions::Ctx;
use crate::model::{chebyshev, Seen};

/// Server ticks a claim holds unless renewed (a chop or a catch renews it with each decision).
pub const CLAIM_TICKS: u64 = 40;

/// How far a place must be to be out of view (its nodes not among those seen here).
pub const OUT_OF_VIEW_TILES: u32 = 16;

/// The claims of the agents of one host: node id → (claimant, until server tick).
#[derive(Debug, Clone, Default)]
pub struct Claims {
    table: Arc<Mutex<HashMap<String, (u64, u64)>>>,
    next: Arc<AtomicU64>,
}

impl Claims {
    /// A number for a new claimant.
    pub fn claimant(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Whether another claimant holds `node` at server tick `now`.
    pub fn held_by_other(&self, node: &str, me: u64, now: u64) -> bool {
        let table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        table
            .get(node)
            .is_some_and(|(who, until)| *who != me && now < *until)
    }

    /// Claims `node` for `me` until `now + CLAIM_TICKS`, dropping what expired (and `me`'s other
    /// claim: one node per agent).
    pub fn claim(&self, node: &str, me: u64, now: u64) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        table.retain(|_, (who, until)| *who != me && now < *until);
        table.insert(node.to_owned(), (me, now + CLAIM_TICKS));
    }
}

/// Whether another player stands next to `node` (gathering it, most likely).
pub fn crowded(ctx: Ctx<'_>, node: &Seen) -> bool {
    ctx.model
        .entities
        .values()
        .any(|e| e.kind() == EntityKind::Player && chebyshev(e.x, e.z, node.x, node.z) <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_keeps_others_off_a_node_until_it_expires_and_one_agent_holds_one_node() {
        let claims = Claims::default();
        let (a, b) = (claims.claimant(), claims.claimant());
        assert_ne!(a, b);
        claims.claim("res-1", a, 100);
        assert!(claims.held_by_other("res-1", b, 100));
        assert!(claims.held_by_other("res-1", b, 100 + CLAIM_TICKS - 1));
        assert!(!claims.held_by_other("res-1", b, 100 + CLAIM_TICKS));
        // Its own claim does not keep the claimant off.
        assert!(!claims.held_by_other("res-1", a, 100));
        // Claiming another node lets the first go.
        claims.claim("res-2", a, 110);
        assert!(!claims.held_by_other("res-1", b, 110));
        assert!(claims.held_by_other("res-2", b, 110));
        // A clone shares the table (one host's agents).
        let shared = claims.clone();
        assert!(shared.held_by_other("res-2", b, 110));
        assert!(!Claims::default().held_by_other("res-2", b, 110));
    }
}
