//! Creating a character: at the spawn point, with the starter kit or a template's items and skill
//! levels, under the account's limits.
//!
//! An account holds at most [`MAX_CHARACTERS_PER_ACCOUNT`] characters at once, and receives the
//! creation grant (the kit's or template's items and coins) for at most [`MAX_GRANTS_PER_ACCOUNT`]
//! characters over its whole life: a character created after that starts with its template's
//! skills and the spawn point but no items and no coins. Otherwise deleting a character after
//! trading its kit away would mint a new kit every time (docs/mechanics.md, "Starting items and
//! character churn"). Both counts are taken by the store in the transaction that inserts the
//! character, with the account locked, so concurrent requests cannot beat them. Every grant is
//! counted as `entered` in the economy audit (`starterKit` or `template`).

use wayfarer_protocol::ErrorCode;
use wayfarer_store::{
    AccountLimits, Character, Creation, CreationGrant, NewCharacter, StoreError, StoredSlot,
};

use super::CharacterName;
use crate::app::AppState;
use crate::player_view::coins_in;
use crate::service_errors::store_code;

/// Characters one account may hold at once.
pub const MAX_CHARACTERS_PER_ACCOUNT: i64 = 3;

/// Characters of one account that receive the creation grant over the account's life: as many as
/// it may hold, so churning characters yields no more than one new account would.
pub const MAX_GRANTS_PER_ACCOUNT: i64 = MAX_CHARACTERS_PER_ACCOUNT;

/// The limits of a player's account.
pub const PLAYER_LIMITS: AccountLimits = AccountLimits {
    max_characters: Some(MAX_CHARACTERS_PER_ACCOUNT),
    max_grants: Some(MAX_GRANTS_PER_ACCOUNT),
};

/// The limits of the server's own account, whose embedded agents (`agents::embedded`) each need a
/// character with the starter kit. No player can sign in to it or delete its characters, so it
/// cannot churn.
pub const SERVER_LIMITS: AccountLimits = AccountLimits::NONE;

/// Why a character was not created.
#[derive(Debug, thiserror::Error)]
pub enum CreationError {
    /// `bad_request`.
    #[error("templateId: no template `{0}` (GET /api/template lists them)")]
    UnknownTemplate(String),
    /// `conflict`.
    #[error("that name is taken")]
    NameTaken,
    /// `conflict`.
    #[error("an account has at most {MAX_CHARACTERS_PER_ACCOUNT} characters")]
    AccountFull,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl CreationError {
    /// The contract code it is answered with.
    pub fn code(&self) -> ErrorCode {
        match self {
            CreationError::UnknownTemplate(_) => ErrorCode::BadRequest,
            CreationError::NameTaken | CreationError::AccountFull => ErrorCode::Conflict,
            CreationError::Store(err) => store_code(err),
        }
    }
}

/// Creates a character named `name` for the account under `limits` (a template of content when
/// `template_id` is given) and makes it the account's active character.
pub async fn create(
    state: &AppState,
    account_id: &str,
    name: &CharacterName,
    template_id: Option<&str>,
    limits: AccountLimits,
) -> Result<Character, CreationError> {
    let content = state.content.get();
    let template = match template_id {
        None => None,
        Some(id) => Some(
            content
                .content
                .templates
                .get(id)
                .cloned()
                .ok_or_else(|| CreationError::UnknownTemplate(id.to_owned()))?,
        ),
    };
    let (items, reason) = match &template {
        Some(template) => (template.items.as_slice(), "template"),
        None => (content.content.starter_kit(), "starterKit"),
    };
    let mut kit: Vec<StoredSlot> = Vec::new();
    for entry in items {
        let stackable = content
            .content
            .items
            .get(entry.item_id.as_str())
            .is_some_and(|i| i.stackable);
        let copies = if stackable { 1 } else { entry.quantity.max(1) };
        for _ in 0..copies {
            if kit.len() >= usize::from(wayfarer_store::INVENTORY_SLOTS) {
                break;
            }
            kit.push(StoredSlot {
                slot: kit.len() as u8,
                item_id: entry.item_id.to_string(),
                quantity: if stackable {
                    i64::from(entry.quantity.max(1))
                } else {
                    1
                },
            });
        }
    }
    let spawn = content.content.spawn_point();
    let grant = CreationGrant {
        coins: coins_in(&kit),
        inventory: kit,
    };
    let counted = grant.inventory.clone();
    let outcome = state
        .store
        .characters()
        .create_for_account(
            &NewCharacter {
                account_id: account_id.to_owned(),
                name: name.as_str().to_owned(),
                position: Some([spawn.x, spawn.y, spawn.z]),
            },
            limits,
            grant,
            |character| {
                if let Some(template) = &template {
                    crate::character_state::apply_levels(character, &template.skills);
                }
            },
        )
        .await
        .map_err(|err| match err {
            StoreError::Conflict(_) => CreationError::NameTaken,
            other => CreationError::Store(other),
        })?;
    let (character, granted) = match outcome {
        Creation::Created { character, granted } => (character, granted),
        Creation::AccountFull => return Err(CreationError::AccountFull),
    };
    if granted {
        for slot in &counted {
            state.economy.entered(
                &slot.item_id,
                reason,
                u64::try_from(slot.quantity).unwrap_or(0),
            );
        }
    }
    tracing::info!(
        account = account_id,
        character = %character.id,
        name = %name,
        template = template_id.unwrap_or(""),
        granted,
        "character created"
    );
    Ok(character)
}
