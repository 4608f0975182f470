//! Repository tests, each run against SQLite and PostgreSQL.

mod address_grants;
mod agents;
mod arena;
mod bans;
mod catalog;
mod characters;
mod deaths;
mod duels;
mod economy;
mod friends;
mod group_commit;
mod hiscores;
mod ignores;
mod inventory;
mod migrations;
mod quests;
mod revoked_tokens;
mod sessions;
mod trades;
mod users;
mod world_chunks;

// Fixtures shared by the repository tests.

use wayfarer_store::{
    CharacterSnapshot, LockedItem, NewCharacter, NewUser, SaveBatch, Store, StoredSlot, TradeAudit,
};

/// An inventory slot.
pub fn slot(slot: u8, item: &str, quantity: i64) -> StoredSlot {
    StoredSlot {
        slot,
        item_id: item.into(),
        quantity,
    }
}

/// A stack in a death lock or a trade.
pub fn locked(item: &str, quantity: i64) -> LockedItem {
    LockedItem {
        item_id: item.into(),
        quantity,
    }
}

/// A new account with a character named `name`; the character's id.
pub async fn new_character(store: &Store, name: &str) -> String {
    new_character_with(store, name, vec![]).await.character.id
}

/// A new account with a character named `name` holding `items`, as the save task sees it.
pub async fn new_character_with(
    store: &Store,
    name: &str,
    items: Vec<StoredSlot>,
) -> CharacterSnapshot {
    let user = store.users().create(&NewUser::default()).await.unwrap();
    let character = store
        .characters()
        .create_with_items(
            &NewCharacter {
                account_id: user.id,
                name: name.into(),
                position: None,
            },
            items,
        )
        .await
        .unwrap();
    CharacterSnapshot {
        inventory: store.inventories().get(&character.id).await.unwrap(),
        equipment: vec![],
        bank: vec![],
        quests: vec![],
        xp_reached_at: Default::default(),
        character,
    }
}

/// A pair where A holds 100 coins and B a sword (`Trader{n}`, `Buyer{n}`), and the batch of their
/// trade, audit id `trade-{n}`: A gives 40 coins for the sword.
pub async fn trade_swap(store: &Store, n: u32) -> ([CharacterSnapshot; 2], SaveBatch) {
    let a = new_character_with(store, &format!("Trader{n}"), vec![slot(0, "coins", 100)]).await;
    let b = new_character_with(
        store,
        &format!("Buyer{n}"),
        vec![slot(0, "bronze_sword", 1)],
    )
    .await;
    let mut a_after = a.clone();
    a_after.inventory = vec![slot(0, "coins", 60), slot(1, "bronze_sword", 1)];
    let mut b_after = b.clone();
    b_after.inventory = vec![slot(1, "coins", 40)];
    let batch = SaveBatch {
        snapshots: vec![a_after, b_after],
        trade: Some(TradeAudit {
            id: format!("trade-{n}"),
            player_a: a.character.id.clone(),
            player_b: b.character.id.clone(),
            items_a_to_b: vec![locked("coins", 40)],
            items_b_to_a: vec![locked("bronze_sword", 1)],
            completed_at_ms: 1_000,
        }),
        ..SaveBatch::default()
    };
    ([a, b], batch)
}
