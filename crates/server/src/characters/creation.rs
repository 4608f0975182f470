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
//!
//! A player's creation also comes from an address ([`Origin`]): at most
//! [`MAX_GRANTED_ACCOUNTS_PER_ADDRESS`] accounts of one address (an IPv4 address, an IPv6 /64)
//! receive grants within [`ADDRESS_GRANT_WINDOW`]; later accounts' characters are created without
//! them, and the response says why ([`StartingGrant`]). Guest accounts are free, so without this
//! one address could sign up accounts for their starting coins (docs/mechanics.md, "Starting
//! grants per address"). The store counts and records it in the creating transaction.

use std::net::IpAddr;
use std::time::Duration;

use serde::Serialize;

use wayfarer_protocol::ErrorCode;
use wayfarer_store::{
    AccountLimits, Character, Creation, CreationGrant, GrantOrigin, NewCharacter, StoreError,
    StoredSlot, Withheld,
};

use super::CharacterName;
use crate::app::AppState;
use crate::service_errors::store_code;
use wayfarer_host::player_view::coins_in;

/// Characters one account may hold at once.
pub const MAX_CHARACTERS_PER_ACCOUNT: i64 = 3;

/// Characters of one account that receive the creation grant over the account's life: as many as
/// it may hold, so churning characters yields no more than one new account would.
pub const MAX_GRANTS_PER_ACCOUNT: i64 = MAX_CHARACTERS_PER_ACCOUNT;

/// Accounts of one address that receive starting grants within [`ADDRESS_GRANT_WINDOW`]: as
/// many as the characters one account may hold, so an address gets what three players would.
pub const MAX_GRANTED_ACCOUNTS_PER_ADDRESS: i64 = 3;

/// The window of [`MAX_GRANTED_ACCOUNTS_PER_ADDRESS`]: a day.
pub const ADDRESS_GRANT_WINDOW: Duration = Duration::from_secs(24 * 60 * 60);

/// Where a player's creation request came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// The client's address (`client_addr`: the forwarded-for address behind a trusted proxy).
    pub ip: IpAddr,
    /// The per-address rule does not apply: the rate limits are off (`DISABLE_RATE_LIMIT`,
    /// development and test only) or the request carries the `LOAD_TEST_KEY`, the same
    /// exemptions as every other per-address limit's. The creation is still recorded.
    pub exempt: bool,
}

impl Origin {
    fn stored(&self) -> GrantOrigin {
        GrantOrigin {
            // The rule counts what every per-address limit counts under: IPv6 by its /64.
            address: crate::client_addr::limit_key(self.ip).to_string(),
            max_accounts: (!self.exempt).then_some(MAX_GRANTED_ACCOUNTS_PER_ADDRESS),
            window_ms: ADDRESS_GRANT_WINDOW.as_millis() as i64,
            now_ms: wayfarer_store::now_ms(),
        }
    }
}

/// Whether a new character received its starting items and coins, and if not why: the
/// `startingGrant` of a creation's response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartingGrant {
    /// True when the character received the starter kit or its template's items and coins.
    pub granted: bool,
    /// Why not, when not granted: `account_limit` (the account's characters have had their 3
    /// grants) or `address_limit` (3 accounts of this address received grants within 24 hours).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// A sentence for the player, when not granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl StartingGrant {
    fn of(withheld: Option<Withheld>) -> StartingGrant {
        match withheld {
            None => StartingGrant {
                granted: true,
                reason: None,
                message: None,
            },
            Some(Withheld::Account) => StartingGrant {
                granted: false,
                reason: Some("account_limit"),
                message: Some(format!(
                    "no starting items or coins: an account receives them for its first {MAX_GRANTS_PER_ACCOUNT} characters only"
                )),
            },
            Some(Withheld::Address) => StartingGrant {
                granted: false,
                reason: Some("address_limit"),
                message: Some(format!(
                    "no starting items or coins: {MAX_GRANTED_ACCOUNTS_PER_ADDRESS} accounts from your network have received them in the last 24 hours"
                )),
            },
        }
    }
}

/// A created character and what it started with.
#[derive(Debug, Clone)]
pub struct Created {
    pub character: Character,
    pub grant: StartingGrant,
}

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
/// `template_id` is given) and makes it the account's active character. For callers with no
/// request, hence no address: the server's own agents.
pub async fn create(
    state: &AppState,
    account_id: &str,
    name: &CharacterName,
    template_id: Option<&str>,
    limits: AccountLimits,
) -> Result<Character, CreationError> {
    create_from(state, account_id, name, template_id, limits, None)
        .await
        .map(|created| created.character)
}

/// [`create`] for a request from `origin`, under the per-address rule of starting grants.
pub async fn create_from(
    state: &AppState,
    account_id: &str,
    name: &CharacterName,
    template_id: Option<&str>,
    limits: AccountLimits,
    origin: Option<Origin>,
) -> Result<Created, CreationError> {
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
        reason,
    };
    let counted = grant.inventory.clone();
    let outcome = state
        .store
        .characters()
        .create_from(
            &NewCharacter {
                account_id: account_id.to_owned(),
                name: name.as_str().to_owned(),
                position: Some([spawn.x, spawn.y, spawn.z]),
            },
            limits,
            origin.map(|o| o.stored()).as_ref(),
            grant,
            |character| {
                if let Some(template) = &template {
                    wayfarer_host::character_state::apply_levels(character, &template.skills);
                }
            },
        )
        .await
        .map_err(|err| match err {
            StoreError::Conflict(_) => CreationError::NameTaken,
            other => CreationError::Store(other),
        })?;
    let (character, granted, withheld) = match outcome {
        Creation::Created {
            character,
            granted,
            withheld,
        } => (character, granted, withheld),
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
        withheld = ?withheld,
        address = origin.map(|o| o.ip.to_string()).unwrap_or_default(),
        "character created"
    );
    Ok(Created {
        character,
        grant: StartingGrant::of(withheld),
    })
}
