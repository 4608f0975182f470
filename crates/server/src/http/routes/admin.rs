//! Admin-only routes: bans, kicks, revoking an account's tokens, the economy audit (403 to everyone
//! else, agent tokens included: `AuthUser` refuses them before any of these runs).

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::Json;
use serde::{Deserialize, Serialize};

use crate::app::AppState;
use crate::auth::revocation;
use crate::http::auth_user::AuthUser;
use crate::http::error::ApiError;
use crate::http::json::ApiJson;
use crate::http::openapi::tags;
use crate::timestamps::iso8601_from_ms;
use wayfarer_protocol::rest::GrantCounts;
use wayfarer_protocol::ErrorBody;

/// Units of one item by reason (`gathered`, `sold`, …).
type ByReason = BTreeMap<String, BTreeMap<&'static str, u64>>;

/// Longest ban reason.
const MAX_REASON_CHARS: usize = 500;
/// Longest temporary ban: ten years, in minutes.
const MAX_BAN_MINUTES: u64 = 10 * 365 * 24 * 60;

/// `POST /api/admin/ban`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BanRequest {
    pub account_id: String,
    /// 1–500 characters.
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
    /// How long, 1 minute to 10 years; absent for a permanent ban.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 5_256_000)]
    pub minutes: Option<u64>,
}

/// `POST /api/admin/unban`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnbanRequest {
    pub account_id: String,
}

/// A ban as made.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BanView {
    pub id: String,
    pub account_id: String,
    pub reason: String,
    /// ISO 8601, or null for a permanent ban.
    pub expires_at: Option<String>,
}

/// `POST /api/admin/ban`'s answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Banned {
    pub ban: BanView,
}

/// `POST /api/admin/unban`'s answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unbanned {
    pub account_id: String,
    /// Bans in force that were lifted.
    pub lifted: u64,
}

/// `POST /api/admin/kick`'s answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kicked {
    pub character_id: String,
    pub kicked: bool,
}

/// `POST /api/admin/ban`.
#[utoipa::path(
    post,
    path = "/api/admin/ban",
    tag = tags::ADMIN,
    summary = "Ban an account",
    description = "Closes every connection of the account at once (4003); each leaves the world and is saved as on a logout.",
    security(("bearer" = [])),
    request_body = BanRequest,
    responses(
        (status = 200, description = "The ban", body = Banned),
        (status = 403, description = "`forbidden`: not an admin, or banned", body = ErrorBody),
        (status = 404, description = "`not_found`: no such account", body = ErrorBody)
    )
)]
pub async fn ban(
    State(state): State<AppState>,
    admin: AuthUser,
    ApiJson(body): ApiJson<BanRequest>,
) -> Result<Json<Banned>, ApiError> {
    admin.require_admin()?;
    let reason = body.reason.trim();
    if reason.is_empty() || reason.chars().count() > MAX_REASON_CHARS {
        return Err(ApiError::bad_request(format!(
            "reason must be 1-{MAX_REASON_CHARS} characters"
        )));
    }
    let expires_at_ms = match body.minutes {
        None => None,
        Some(m) if (1..=MAX_BAN_MINUTES).contains(&m) => {
            Some(wayfarer_store::now_ms() + (m as i64) * 60_000)
        }
        Some(_) => {
            return Err(ApiError::bad_request(format!(
                "minutes must be between 1 and {MAX_BAN_MINUTES}"
            )))
        }
    };
    if state.store.users().get(&body.account_id).await?.is_none() {
        return Err(ApiError::not_found("no such account"));
    }
    let ban = state
        .store
        .bans()
        .create(
            &body.account_id,
            reason,
            Some(admin.account_id()),
            expires_at_ms,
        )
        .await?;
    // A banned player stops playing at once: each of the account's connections closes with 4003
    // and leaves the world like any logout (its final state saved).
    let mut closed = 0;
    for character in state
        .store
        .characters()
        .list_for_account(&ban.account_id)
        .await?
    {
        if state.connections.close(
            &character.id,
            wayfarer_host::connections::CloseRequest::BANNED,
        ) {
            closed += 1;
        } else {
            // The ban is in the shared database already, so a world that cannot be told now
            // refuses the account at its next login anyway: a link that is down is logged, not fatal.
            match kick_elsewhere(&state, &character.id, true).await {
                Ok(true) => closed += 1,
                Ok(false) => {}
                Err(_) => {
                    tracing::warn!(character = %character.id, "banned character may still be online in another world: the link to the other worlds is down")
                }
            }
        }
    }
    tracing::warn!(
        admin = admin.account_id(),
        account = %ban.account_id,
        reason = %ban.reason,
        expires_at_ms = ?ban.expires_at_ms,
        connections_closed = closed,
        "account banned"
    );
    Ok(Json(Banned {
        ban: BanView {
            id: ban.id,
            account_id: ban.account_id,
            reason: ban.reason,
            expires_at: ban.expires_at_ms.map(iso8601_from_ms),
        },
    }))
}

/// `POST /api/admin/unban`: lifts every ban in force on the account.
#[utoipa::path(
    post,
    path = "/api/admin/unban",
    tag = tags::ADMIN,
    summary = "Lift an account's bans",
    security(("bearer" = [])),
    request_body = UnbanRequest,
    responses(
        (status = 200, description = "How many bans were lifted", body = Unbanned),
        (status = 403, description = "`forbidden`: not an admin, or banned", body = ErrorBody)
    )
)]
pub async fn unban(
    State(state): State<AppState>,
    admin: AuthUser,
    ApiJson(body): ApiJson<UnbanRequest>,
) -> Result<Json<Unbanned>, ApiError> {
    admin.require_admin()?;
    let lifted = state.store.bans().lift(&body.account_id).await?;
    tracing::warn!(admin = admin.account_id(), account = %body.account_id, lifted, "bans lifted");
    Ok(Json(Unbanned {
        account_id: body.account_id,
        lifted,
    }))
}

/// `POST /api/admin/kick`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KickRequest {
    pub character_id: String,
}

/// `POST /api/admin/kick`: closes the character's connection (it is saved first, like any logout).
#[utoipa::path(
    post,
    path = "/api/admin/kick",
    tag = tags::ADMIN,
    summary = "Kick an online character",
    description = "Closes its connection with 4001; it is saved first, like any logout.",
    security(("bearer" = [])),
    request_body = KickRequest,
    responses(
        (status = 200, description = "The character was kicked", body = Kicked),
        (status = 403, description = "`forbidden`: not an admin, or banned", body = ErrorBody),
        (status = 404, description = "`not_found`: the character is not online", body = ErrorBody)
    )
)]
pub async fn kick(
    State(state): State<AppState>,
    admin: AuthUser,
    ApiJson(body): ApiJson<KickRequest>,
) -> Result<Json<Kicked>, ApiError> {
    admin.require_admin()?;
    if !state.connections.kick(&body.character_id)
        && !kick_elsewhere(&state, &body.character_id, false).await?
    {
        return Err(ApiError::not_found("that character is not online"));
    }
    tracing::warn!(admin = admin.account_id(), character = %body.character_id, "character kicked");
    Ok(Json(Kicked {
        character_id: body.character_id,
        kicked: true,
    }))
}

/// Several worlds: closes a character's connection on the world holding its lease (with 4003
/// when `banned`, else 4001). False when it is online nowhere else.
async fn kick_elsewhere(
    state: &AppState,
    character_id: &str,
    banned: bool,
) -> Result<bool, ApiError> {
    let Some(cluster) = &state.cluster else {
        return Ok(false);
    };
    let Some(holder) = state.store.leases().holder(character_id).await? else {
        return Ok(false);
    };
    if holder.world_id == cluster.world_id {
        return Ok(false);
    }
    cluster
        .kick_on(holder.world_id, character_id, banned)
        .await
        .map_err(|err| {
            ApiError::new(
                wayfarer_protocol::ErrorCode::CrossWorldUnavailable,
                err.to_string(),
            )
        })
}

/// `POST /api/admin/accounts/{id}/revoke-tokens`'s answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokensRevoked {
    pub account_id: String,
    /// ISO 8601: tokens of the account issued before this are refused.
    pub tokens_valid_after: String,
    /// Game sockets on this world that were closed (4002); other worlds close theirs too.
    pub connections_closed: usize,
}

/// `POST /api/admin/accounts/{id}/revoke-tokens`: every token of the account issued before now
/// is revoked (its "log out everywhere", done for it), and its game sockets close.
#[utoipa::path(
    post,
    path = "/api/admin/accounts/{id}/revoke-tokens",
    tag = tags::ADMIN,
    summary = "Revoke every token of an account",
    description = "Every token of the account issued before now (agent tokens included) answers 401 from then on, on every world, and the game sockets they opened close with 4002. The account may log in again.",
    security(("bearer" = [])),
    params(("id" = String, Path, description = "The account id")),
    responses(
        (status = 200, description = "Revoked", body = TokensRevoked),
        (status = 403, description = "`forbidden`: not an admin, or banned", body = ErrorBody),
        (status = 404, description = "`not_found`: no such account", body = ErrorBody)
    )
)]
pub async fn revoke_tokens(
    State(state): State<AppState>,
    admin: AuthUser,
    Path(account_id): Path<String>,
) -> Result<Json<TokensRevoked>, ApiError> {
    admin.require_admin()?;
    let (before_ms, closed) =
        match revocation::revoke_account(&state, &account_id, wayfarer_store::now_ms()).await {
            Err(wayfarer_store::StoreError::NotFound(_)) => {
                return Err(ApiError::not_found("no such account"))
            }
            other => other?,
        };
    tracing::warn!(
        admin = admin.account_id(),
        account = %account_id,
        connections_closed = closed,
        "account's tokens revoked"
    );
    Ok(Json(TokensRevoked {
        account_id,
        tokens_valid_after: iso8601_from_ms(before_ms),
        connections_closed: closed,
    }))
}

/// One item's totals in the economy audit.
#[derive(Debug, Default, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemTotals {
    pub inventory: i64,
    pub equipment: i64,
    pub bank: i64,
    /// Still in open death locks (on the ground, unclaimed).
    pub death_locks: i64,
    /// What the store holds: inventory, equipment, bank and death locks.
    pub total: i64,
    /// Lying on the ground outside death piles (dropped, or spilled from a full inventory), as
    /// the world has it now: not in the store, so not in `total`.
    pub ground: i64,
    /// `total` plus `ground`: with everyone offline (or saved), every unit of the item in the
    /// world. It changes only by `entered` minus `left`.
    pub in_world: i64,
}

/// `GET /api/admin/economy`: per item, the units held in inventories, equipment, banks and open
/// death locks (from the store: the last saved state), and the counters of items entering and
/// leaving players' hands since the server started (`wayfarer_host::economy`).
#[utoipa::path(
    get,
    path = "/api/admin/economy",
    tag = tags::ADMIN,
    summary = "The economy audit",
    description = "Per item id, the units held (as last saved, plus the ground as the world has it now) and the units that entered, left and moved since the server started, by reason.",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The audit", body = EconomyReport),
        (status = 403, description = "`forbidden`: not an admin, or banned", body = ErrorBody)
    )
)]
pub async fn economy(
    State(state): State<AppState>,
    admin: AuthUser,
) -> Result<Json<EconomyReport>, ApiError> {
    admin.require_admin()?;
    let mut items: BTreeMap<String, ItemTotals> = Default::default();
    for (item, inventory, equipment, bank) in state.store.inventories().item_totals().await? {
        let entry = items.entry(item).or_default();
        entry.inventory += inventory;
        entry.equipment += equipment;
        entry.bank += bank;
    }
    for lock in state.store.deaths().locked().await? {
        for item in lock.items {
            items.entry(item.item_id.clone()).or_default().death_locks += item.quantity;
        }
    }
    for (item, units) in wayfarer_host::world_thread::ground_totals(&state.world_sender).await? {
        items.entry(item).or_default().ground += units;
    }
    for totals in items.values_mut() {
        totals.total = totals.inventory + totals.equipment + totals.bank + totals.death_locks;
        totals.in_world = totals.total + totals.ground;
    }
    let flows = state.economy.snapshot();
    let books = BooksView::of(state.store.economy().books().await?);
    let since = wayfarer_store::now_ms()
        - crate::characters::creation::ADDRESS_GRANT_WINDOW.as_millis() as i64;
    let grants_by_address = state
        .store
        .address_grants()
        .top_since(since, GRANT_ADDRESSES_SHOWN)
        .await?
        .into_iter()
        .map(|s| AddressGrants {
            address: s.address,
            counts: s.counts,
            last_at: iso8601_from_ms(s.last_at_ms),
        })
        .collect();
    Ok(Json(EconomyReport {
        books,
        grants_by_address,
        items,
        uptime_seconds: state.started.elapsed().as_secs(),
        entered: flows.entered,
        left: flows.left,
        moved: flows.moved,
        purchases: flows.purchases,
        sales: flows.sales,
    }))
}

/// Addresses the economy report lists in `grantsByAddress`.
const GRANT_ADDRESSES_SHOWN: i64 = 20;

/// What one address's character creations received in the last 24 hours (`address_grants`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddressGrants {
    /// An IPv4 address, or an IPv6 /64 network (`2001:db8:1:2::`).
    pub address: String,
    #[serde(flatten)]
    pub counts: GrantCounts,
    /// ISO 8601 UTC: the address's latest creation.
    pub last_at: String,
}

/// `GET /api/admin/economy`'s answer (docs/protocol.md, "Economy audit").
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EconomyReport {
    /// The 20 addresses with the most starting grants in the last 24 hours, most first (from the
    /// database, so across restarts; docs/mechanics.md, "Starting grants per address").
    pub grants_by_address: Vec<AddressGrants>,
    /// Per item id.
    pub items: BTreeMap<String, ItemTotals>,
    /// Item id → reason → units that came into the world since start.
    #[schema(value_type = BTreeMap<String, BTreeMap<String, u64>>)]
    pub entered: ByReason,
    /// Item id → reason → units that went out of the world since start.
    #[schema(value_type = BTreeMap<String, BTreeMap<String, u64>>)]
    pub left: ByReason,
    /// Item id → reason → units that changed place inside the world since start.
    #[schema(value_type = BTreeMap<String, BTreeMap<String, u64>>)]
    pub moved: ByReason,
    /// Completed shop purchases since start.
    pub purchases: u64,
    /// Completed shop sales since start.
    pub sales: u64,
    pub uptime_seconds: u64,
    /// The durable books: what the database holds and what entered and left over the world's
    /// whole life, restarts and crashes included.
    pub books: BooksView,
}

/// The economy's durable books (`wayfarer_store::repo::economy`), all from one committed state:
/// for every item, `held.total` = Σ `entered` − Σ `left` unless an item was lost or made twice.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BooksView {
    /// Per item id, where the database holds it (every world's death locks and ground).
    pub held: BTreeMap<String, HeldView>,
    /// Item id → reason → units that came into the world (`opening`: held when the books opened).
    pub entered: BTreeMap<String, BTreeMap<String, i64>>,
    /// Item id → reason → units that went out of the world.
    pub left: BTreeMap<String, BTreeMap<String, i64>>,
    /// Item id → `held.total` − (entered − left), for the items where it is not 0.
    pub imbalances: BTreeMap<String, i64>,
    /// No imbalance.
    pub balanced: bool,
}

/// Where the database holds one item.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeldView {
    pub inventory: i64,
    pub equipment: i64,
    pub bank: i64,
    /// In open death locks.
    pub death_locks: i64,
    /// On the ground outside death piles, as last saved with the world's chunks.
    pub ground: i64,
    /// All of the above.
    pub total: i64,
}

impl BooksView {
    fn of(books: wayfarer_store::Books) -> BooksView {
        let imbalances = books.imbalances();
        BooksView {
            held: books
                .held
                .iter()
                .map(|(item, h)| {
                    let view = HeldView {
                        inventory: h.inventory,
                        equipment: h.equipment,
                        bank: h.bank,
                        death_locks: h.death_locks,
                        ground: h.ground,
                        total: h.total(),
                    };
                    (item.clone(), view)
                })
                .collect(),
            balanced: imbalances.is_empty(),
            imbalances,
            entered: books.entered,
            left: books.left,
        }
    }
}
