//! A character's whole record read at once: the row, the inventory, the worn items, the bank and
//! the quests in one read transaction on one pooled connection.
//!
//! Why: entering the world read them as five statements, each taking a connection from the pool
//! on its own; when everyone reconnects after a restart, ten thousand joins queue for SQLite's four
//! connections five times each, behind the leaving sessions' saves. One acquisition a join is a
//! fifth of the queueing, and one transaction means the five reads see the same committed state
//! (a save landing between two of them can no longer give a join the old inventory with the new
//! bank).

use crate::repo::character_rows;
use crate::repo::characters::get_on;
use crate::repo::inventory::CharacterSnapshot;
use crate::{Backend, Store, StoreError};

impl Store {
    /// The stored record of character `id` (`None` when there is no such character), every part
    /// from one committed state. `xp_reached_at` is empty, as for every record read from the store.
    pub async fn character_snapshot(
        &self,
        id: &str,
    ) -> Result<Option<CharacterSnapshot>, StoreError> {
        // PostgreSQL's default (read committed) gives each statement its own snapshot; one for
        // the whole transaction is repeatable read, asked for in the BEGIN itself (no second round
        // trip). SQLite's read transaction in WAL mode already keeps the snapshot of its first
        // read.
        let mut tx = match self.backend() {
            Backend::Postgres => {
                self.entry_pool()
                    .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    .await?
            }
            Backend::Sqlite => self.entry_pool().begin().await?,
        };
        let Some(character) = get_on(&mut *tx, id).await? else {
            tx.rollback().await?;
            return Ok(None);
        };
        let inventory = character_rows(&mut *tx, id).await?;
        let equipment = character_rows(&mut *tx, id).await?;
        let bank = character_rows(&mut *tx, id).await?;
        let quests = character_rows(&mut *tx, id).await?;
        // Nothing was written: ending it either way releases the snapshot.
        tx.commit().await?;
        Ok(Some(CharacterSnapshot {
            character,
            inventory,
            equipment,
            bank,
            quests,
            xp_reached_at: Default::default(),
        }))
    }
}
