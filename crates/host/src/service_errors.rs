//! How the services' failures are named. Each service (characters, agents, accounts, the world's
//! queries) has its own error enum (thiserror) saying what went wrong in its own words, and a
//! `code()` naming the contract's code (CONTRACT.md §2) it is answered with. The HTTP layer turns
//! them into its `ApiError` (`http::error`, one `From` each), the game socket into `error`
//! messages, and the embedded agents only log them: no service imports the server's `http` (the
//! test in its `http::layering` holds that). Here, in the game host, so that the host's services
//! (`agents::control`) and the server's name them alike.

use wayfarer_protocol::ErrorCode;
use wayfarer_store::StoreError;

/// The contract's code of a store failure a service passes on: a refused write is `conflict`, a
/// missing row `not_found`, a saturated store `server_busy` (back-pressure: try again later),
/// anything else `internal` (its detail is logged, never shown).
pub fn store_code(err: &StoreError) -> ErrorCode {
    match err {
        StoreError::Conflict(_) => ErrorCode::Conflict,
        StoreError::NotFound(_) => ErrorCode::NotFound,
        StoreError::Busy(_) => ErrorCode::ServerBusy,
        _ => ErrorCode::Internal,
    }
}

/// How long a client told `server_busy` is asked to wait before it tries again, in seconds: about
/// the time a join wave's queue of store work takes to drain (issue 52).
pub const BUSY_RETRY_AFTER_SECS: u64 = 2;
