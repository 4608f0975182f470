//! Deleting a character: refused while it is online or its last session is still being saved;
//! what it held (inventory, worn, bank, coins among them) leaves the world and is counted as `left`
//! with reason `deleted` in the economy audit, so holdings = start + entered − left still holds.

use wayfarer_protocol::ErrorCode;
use wayfarer_store::{Character, StoreError};

use crate::app::AppState;
use crate::service_errors::store_code;

/// Why a character was not deleted.
#[derive(Debug, thiserror::Error)]
pub enum DeletionError {
    /// `conflict`.
    #[error("cannot delete a character while it is online")]
    Online,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DeletionError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            DeletionError::Online => ErrorCode::Conflict,
            DeletionError::Store(err) => store_code(err),
        }
    }
}

/// Deletes `character` (already checked to be the caller's) and everything it held.
pub async fn delete(state: &AppState, character: &Character) -> Result<(), DeletionError> {
    // The connection stays registered until its final save is written: deleting before that
    // would count the store's older state as what left, and the final save would find no row.
    if state.online.is_online(&character.id) || state.connections.is_connected(&character.id) {
        return Err(DeletionError::Online);
    }
    let held = state.store.characters().delete(&character.id).await?;
    for (item_id, units) in &held {
        state
            .economy
            .left(item_id, "deleted", u64::try_from(*units).unwrap_or(0));
    }
    tracing::info!(
        account = %character.account_id,
        character = %character.id,
        items = held.len(),
        "character deleted"
    );
    Ok(())
}
