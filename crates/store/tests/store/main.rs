//! Repository tests, each run against SQLite and PostgreSQL.

mod agents;
mod bans;
mod catalog;
mod characters;
mod deaths;
mod duels;
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

use wayfarer_store::{CharacterSnapshot, LockedItem, NewCharacter, NewUser, Store, StoredSlot};

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
