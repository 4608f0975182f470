//! Shops: opened by talking to the shopkeeper, buy and sell at the store's prices, shared stock
//! with restock, all-or-nothing trades, closing when the player walks away. Bundled content: Tobin
//! runs the Millbrook general store from (-8, -6).

use std::sync::Arc;

use wayfarer_protocol::ws::{codes, TilePos};
use wayfarer_sim::inventory::{Inventory, Stack, INVENTORY_SLOTS};
use wayfarer_sim::{Action, Command, Event, Joining, ShopRequest, World};

use crate::idle;

const STORE: &str = "millbrook_general_store";
const NEAR_TOBIN: TilePos = TilePos { x: -8, z: -4 };

fn world() -> World {
    World::new(Arc::new(wayfarer_content::load_bundled()), 9)
}

fn stack(item: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item.into(),
        quantity,
    }
}

fn joining(id: &str, tile: TilePos, inventory: Vec<(usize, Stack)>) -> Command {
    Command::Join(Box::new(Joining {
        inventory: Inventory::from_stacks(inventory).unwrap(),
        ..Joining::new(id, id, tile)
    }))
}

fn shop(id: &str, request: ShopRequest) -> Command {
    Command::Shop {
        id: id.into(),
        request,
        reference: Some(1),
    }
}

fn buy(id: &str, item: &str, quantity: u32) -> Command {
    shop(
        id,
        ShopRequest::Buy {
            store_id: STORE.into(),
            item_id: item.into(),
            quantity,
        },
    )
}

fn sell(id: &str, slot: usize, quantity: Option<u32>) -> Command {
    shop(
        id,
        ShopRequest::Sell {
            store_id: STORE.into(),
            slot,
            quantity,
        },
    )
}

fn rejection(events: &[Event]) -> Option<&'static str> {
    events.iter().find_map(|e| match e {
        Event::Rejected { code, .. } => Some(*code),
        _ => None,
    })
}

fn held(world: &World, id: &str, item: &str) -> u64 {
    world.player_inventory(id).unwrap().count(item)
}

/// Talks to Tobin and waits for the shop to open.
fn open(world: &mut World, id: &str) -> Vec<Event> {
    let tobin = world
        .npcs()
        .into_iter()
        .find(|n| n.type_id.as_deref() == Some("merchant_tobin"))
        .unwrap();
    let mut events = world.tick(vec![Command::Action {
        id: id.into(),
        action: Action::Interact { target: tobin.id },
        reference: None,
    }]);
    events.extend(idle(world, 5));
    // His dialogue's first answer ("Show me your wares.") opens the store.
    events.extend(world.tick(vec![Command::DialogueRespond {
        id: id.into(),
        npc_id: "merchant_tobin".into(),
        index: 0,
        reference: None,
    }]));
    assert_eq!(world.player_shop(id), Some(STORE), "{events:?}");
    events
}

#[test]
fn talking_to_the_shopkeeper_opens_the_store_and_buying_costs_its_price() {
    let mut world = world();
    world.tick(vec![joining(
        "a",
        NEAR_TOBIN,
        vec![(0, stack("coins", 100))],
    )]);
    // Not open yet: refused.
    let events = world.tick(vec![buy("a", "bronze_hatchet", 1)]);
    assert_eq!(rejection(&events), Some(codes::NOT_NEAR_SHOP));
    let events = open(&mut world, "a");
    let view = events
        .iter()
        .find_map(|e| match e {
            Event::ShopOpened { to, view } if to == "a" => Some(view.clone()),
            _ => None,
        })
        .expect("shop:open");
    let hatchet = view
        .items
        .iter()
        .find(|i| i.item_id == "bronze_hatchet")
        .unwrap();
    assert_eq!(
        (hatchet.price, hatchet.stock, hatchet.sell_price),
        (40, None, Some(20))
    );
    let bars = view
        .items
        .iter()
        .find(|i| i.item_id == "bronze_bar")
        .unwrap();
    assert_eq!(bars.stock, Some(20));

    let events = world.tick(vec![buy("a", "bronze_hatchet", 2)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(
        (
            held(&world, "a", "coins"),
            held(&world, "a", "bronze_hatchet")
        ),
        (20, 2)
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::SaveNow { id } if id == "a")));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ShopTrade {
            sold: false,
            coins: 80,
            quantity: 2,
            ..
        }
    )));
    // Not enough coins: nothing changes.
    let events = world.tick(vec![buy("a", "bronze_hatchet", 1)]);
    assert_eq!(rejection(&events), Some(codes::NOT_ENOUGH_COINS));
    assert_eq!(
        (
            held(&world, "a", "coins"),
            held(&world, "a", "bronze_hatchet")
        ),
        (20, 2)
    );
    // An item the store does not sell.
    let events = world.tick(vec![buy("a", "dragon_bones", 1)]);
    assert_eq!(rejection(&events), Some(codes::OUT_OF_STOCK));
    // Selling: half the value, the slot's stack by default.
    let slot = world
        .player_inventory("a")
        .unwrap()
        .stacks()
        .find(|(_, s)| s.item_id == "bronze_hatchet")
        .unwrap()
        .0;
    let events = world.tick(vec![sell("a", slot, None)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(
        (
            held(&world, "a", "coins"),
            held(&world, "a", "bronze_hatchet")
        ),
        (40, 1)
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ShopTrade {
            sold: true,
            coins: 20,
            quantity: 1,
            ..
        }
    )));
    // Coins cannot be sold.
    let coins = world
        .player_inventory("a")
        .unwrap()
        .stacks()
        .find(|(_, s)| s.item_id == "coins")
        .unwrap()
        .0;
    let events = world.tick(vec![sell("a", coins, None)]);
    assert_eq!(rejection(&events), Some(codes::CANNOT_SELL));
    // A store that is not the open one.
    let events = world.tick(vec![shop(
        "a",
        ShopRequest::Buy {
            store_id: "elsewhere".into(),
            item_id: "bread".into(),
            quantity: 1,
        },
    )]);
    assert_eq!(rejection(&events), Some(codes::NOT_NEAR_SHOP));
}

#[test]
fn a_full_inventory_refuses_a_purchase_whole() {
    let mut world = world();
    let mut inventory: Vec<(usize, Stack)> = (1..INVENTORY_SLOTS)
        .map(|slot| (slot, stack("logs", 1)))
        .collect();
    inventory.push((0, stack("coins", 1000)));
    world.tick(vec![joining("a", NEAR_TOBIN, inventory)]);
    open(&mut world, "a");
    let events = world.tick(vec![buy("a", "bronze_sword", 1)]);
    assert_eq!(rejection(&events), Some(codes::INVENTORY_FULL));
    assert_eq!(held(&world, "a", "coins"), 1000);
    // Paying with the whole coin stack frees its slot: exactly enough coins for one sword fits.
    let mut world = self::world();
    let mut inventory: Vec<(usize, Stack)> = (1..INVENTORY_SLOTS)
        .map(|slot| (slot, stack("logs", 1)))
        .collect();
    inventory.push((0, stack("coins", 60)));
    world.tick(vec![joining("b", NEAR_TOBIN, inventory)]);
    open(&mut world, "b");
    let events = world.tick(vec![buy("b", "bronze_sword", 1)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(
        (
            held(&world, "b", "coins"),
            held(&world, "b", "bronze_sword")
        ),
        (0, 1)
    );
}

#[test]
fn stock_is_shared_limited_and_restocks_over_time() {
    let mut world = world();
    let near_b = TilePos { x: -7, z: -4 };
    world.tick(vec![
        joining("a", NEAR_TOBIN, vec![(0, stack("coins", 10_000))]),
        joining("b", near_b, vec![(0, stack("coins", 10_000))]),
    ]);
    open(&mut world, "a");
    open(&mut world, "b");
    let events = world.tick(vec![buy("a", "iron_bar", 8)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(world.shop_stock(STORE, "iron_bar"), Some(2));
    // Both see the new stock.
    let updated: Vec<&Vec<String>> = events
        .iter()
        .filter_map(|e| match e {
            Event::ShopUpdated { to, view } => {
                assert_eq!(
                    view.items
                        .iter()
                        .find(|i| i.item_id == "iron_bar")
                        .unwrap()
                        .stock,
                    Some(2)
                );
                Some(to)
            }
            _ => None,
        })
        .collect();
    assert_eq!(updated, vec![&vec!["a".to_string(), "b".to_string()]]);
    // b cannot buy 3: all or nothing.
    let events = world.tick(vec![buy("b", "iron_bar", 3)]);
    assert_eq!(rejection(&events), Some(codes::OUT_OF_STOCK));
    assert_eq!(held(&world, "b", "iron_bar"), 0);
    assert_eq!(held(&world, "b", "coins"), 10_000);
    // restockTime 60 s = 100 ticks: one unit back after it.
    let restock = wayfarer_content::load_bundled().stores[STORE]
        .stock
        .iter()
        .find(|l| l.item_id == "iron_bar")
        .unwrap()
        .restock_ticks as usize;
    assert!(restock > 0);
    idle(&mut world, restock - 2);
    assert_eq!(world.shop_stock(STORE, "iron_bar"), Some(2));
    idle(&mut world, 3);
    assert_eq!(world.shop_stock(STORE, "iron_bar"), Some(3));
    // Selling to the store adds to a limited line.
    let slot = world
        .player_inventory("a")
        .unwrap()
        .stacks()
        .find(|(_, s)| s.item_id == "iron_bar")
        .unwrap()
        .0;
    let events = world.tick(vec![sell("a", slot, Some(8))]);
    assert_eq!(rejection(&events), None);
    assert_eq!(world.shop_stock(STORE, "iron_bar"), Some(11));
    assert_eq!(held(&world, "a", "iron_bar"), 0);
}

#[test]
fn walking_away_closes_the_shop() {
    let mut world = world();
    world.tick(vec![joining(
        "a",
        NEAR_TOBIN,
        vec![(0, stack("coins", 100))],
    )]);
    open(&mut world, "a");
    let events = world.tick(vec![Command::Teleport {
        id: "a".into(),
        tile: TilePos { x: -8, z: 4 },
    }]);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::ShopClosed { to, .. } if to == "a")));
    assert_eq!(world.player_shop("a"), None);
    let events = world.tick(vec![buy("a", "bread", 1)]);
    assert_eq!(rejection(&events), Some(codes::NOT_NEAR_SHOP));
    assert_eq!(held(&world, "a", "coins"), 100);
}

#[test]
fn untradeable_items_and_stores_without_buyback_refuse_sales() {
    let mut content = wayfarer_content::load_bundled();
    content.items.get_mut("logs").unwrap().tradeable = false;
    let mut world = World::new(Arc::new(content.clone()), 9);
    world.tick(vec![joining(
        "a",
        NEAR_TOBIN,
        vec![(0, stack("logs", 1)), (1, stack("shrimp", 1))],
    )]);
    open(&mut world, "a");
    let events = world.tick(vec![sell("a", 0, None)]);
    assert_eq!(rejection(&events), Some(codes::CANNOT_SELL));
    assert_eq!(held(&world, "a", "logs"), 1);
    // Shrimp are worth 6: 3 coins at a buyback rate of 0.5.
    let events = world.tick(vec![sell("a", 1, None)]);
    assert_eq!(rejection(&events), None);
    assert_eq!(
        (held(&world, "a", "shrimp"), held(&world, "a", "coins")),
        (0, 3)
    );

    content.stores.get_mut(STORE).unwrap().buyback = false;
    let mut world = World::new(Arc::new(content), 9);
    world.tick(vec![joining(
        "b",
        NEAR_TOBIN,
        vec![(0, stack("shrimp", 1))],
    )]);
    let events = open(&mut world, "b");
    let view = events
        .iter()
        .find_map(|e| match e {
            Event::ShopOpened { view, .. } => Some(view.clone()),
            _ => None,
        })
        .unwrap();
    assert!(view.items.iter().all(|i| i.sell_price.is_none()));
    let events = world.tick(vec![sell("b", 0, None)]);
    assert_eq!(rejection(&events), Some(codes::CANNOT_SELL));
    assert_eq!(held(&world, "b", "shrimp"), 1);
}
