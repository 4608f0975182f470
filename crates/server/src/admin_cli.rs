//! `wayfarer admin grant-role|revoke-role <account id or character name> <role>`: an operator's way
//! to make an account admin (or stop it being one) on the configured database, with no SQL. The
//! server reads roles from the database on every request, so a running server sees the change at
//! the account's next request; a socket session keeps the rights it entered with.

use wayfarer_store::{Store, User};

use crate::auth::ADMIN_ROLE;

/// The roles an account can be given.
pub const ROLES: &[&str] = &[ADMIN_ROLE];

/// What changed, for the operator.
#[derive(Debug, PartialEq, Eq)]
pub struct RoleChange {
    pub account_id: String,
    pub roles: Vec<String>,
    /// False when the account already was (or was not) in the role.
    pub changed: bool,
}

/// Why a role could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum RoleError {
    #[error("unknown role {0:?} (roles: {roles})", roles = ROLES.join(", "))]
    UnknownRole(String),
    #[error("no account with id {0:?} and no character named {0:?}")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] wayfarer_store::StoreError),
}

/// Gives (`grant` true) or takes away `role` from the account named by `who`: an account id, or
/// the name of one of its characters (any letter case).
pub async fn set_role(
    store: &Store,
    who: &str,
    role: &str,
    grant: bool,
) -> Result<RoleChange, RoleError> {
    if !ROLES.contains(&role) {
        return Err(RoleError::UnknownRole(role.to_owned()));
    }
    let user = find_account(store, who).await?;
    let mut roles = user.roles.clone();
    let had = roles.iter().any(|r| r == role);
    if grant && !had {
        roles.push(role.to_owned());
    } else if !grant && had {
        roles.retain(|r| r != role);
    }
    let changed = had != grant;
    if changed {
        store.users().set_roles(&user.id, &roles).await?;
    }
    Ok(RoleChange {
        account_id: user.id,
        roles,
        changed,
    })
}

async fn find_account(store: &Store, who: &str) -> Result<User, RoleError> {
    if let Some(user) = store.users().get(who).await? {
        return Ok(user);
    }
    let character = store
        .characters()
        .find_by_name(who)
        .await?
        .ok_or_else(|| RoleError::NotFound(who.to_owned()))?;
    store
        .users()
        .get(&character.account_id)
        .await?
        .ok_or_else(|| RoleError::NotFound(who.to_owned()))
}
