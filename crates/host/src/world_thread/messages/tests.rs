//! One test per family of events: what each tells whom, worked out by hand from the event.

use std::sync::{Arc, OnceLock};

use serde_json::json;
use wayfarer_content::{EquipSlot, QuestStatus, Skill};
use wayfarer_protocol::trade::{TradeCancelled, TradeStarted};
use wayfarer_protocol::ws::{
    CombatHit, DialogueChoice, DialogueOpen, ShopItem, ShopView, TilePos, WorldUpdate, ZoneEnter,
};
use wayfarer_sim::inventory::Stack;
use wayfarer_sim::skills::{add_xp, Xp};
use wayfarer_sim::{CloseReason, PlayerStats, QuestRecord};

use super::*;

const NOW: i64 = 1_700_000_000_123;

fn content() -> &'static Content {
    static CONTENT: OnceLock<Content> = OnceLock::new();
    CONTENT.get_or_init(wayfarer_content::load_bundled)
}

/// One world alone (global chat stays in it).
fn alone() -> Reading<'static> {
    Reading {
        content: content(),
        now_ms: NOW,
        tick_ms: 600,
        world_id: None,
    }
}

/// World 7 of several that share global chat.
fn world_seven() -> Reading<'static> {
    Reading {
        world_id: Some(7),
        ..alone()
    }
}

/// The players the router holds records of, in the tests' deliveries.
const RECORDS: [&str; 3] = ["ada", "bo", "cy"];

fn of(event: Event) -> Vec<(String, ServerMessage)> {
    messages(event, &alone()).per_recipient(&RECORDS)
}

fn stack(item_id: &str, quantity: u32) -> Stack {
    Stack {
        item_id: item_id.into(),
        quantity,
    }
}

fn line(channel: ChatChannel, from: &str, text: &str) -> ChatMessage {
    ChatMessage {
        channel,
        from_id: from.into(),
        from_name: from.to_uppercase(),
        text: text.into(),
        ts: 0,
        world: None,
    }
}

fn shared(ids: &[&str]) -> Vec<Arc<str>> {
    ids.iter().map(|id| Arc::from(*id)).collect()
}

#[test]
fn movement_and_view_tell_only_the_viewer_and_a_step_tells_nobody() {
    let update = WorldUpdate {
        tick: 42,
        removed: vec![Arc::from("npc-3")].into(),
        stamina: Some(87),
        ..WorldUpdate::default()
    };
    assert_eq!(
        of(Event::View {
            to: "ada".into(),
            update: update.clone()
        }),
        vec![("ada".to_owned(), ServerMessage::WorldUpdate(update))]
    );
    // A step and a leave are the record's: the viewers learn of them from their own updates.
    let tile = TilePos { x: 3, z: -4 };
    for event in [
        Event::PlayerMoved {
            id: "ada".into(),
            tile,
        },
        Event::Left {
            id: "ada".into(),
            tile,
        },
        Event::Stats {
            id: "ada".into(),
            stats: PlayerStats {
                health: 9,
                max_health: 10,
                combat_level: 3,
                style: "accurate",
                auto_retaliate: true,
            },
        },
    ] {
        assert_eq!(messages(event, &alone()), Delivery::Nothing);
    }
}

#[test]
fn chat_lines_are_stamped_when_sent_and_go_to_everyone_listed() {
    // Private: to its two ends, stamped with the time of sending, no world.
    let private = of(Event::Chat {
        to: shared(&["ada", "bo"]),
        message: line(ChatChannel::Private, "ada", "hi"),
    });
    let sent = ChatMessage {
        ts: NOW,
        ..line(ChatChannel::Private, "ada", "hi")
    };
    assert_eq!(
        private,
        vec![
            ("ada".to_owned(), ServerMessage::Chat(sent.clone())),
            ("bo".to_owned(), ServerMessage::Chat(sent)),
        ]
    );
    // System lines never carry a world, even where global chat crosses worlds.
    let system = messages(
        Event::Chat {
            to: shared(&["bo"]),
            message: line(ChatChannel::System, "", "Welcome"),
        },
        &world_seven(),
    )
    .per_recipient(&RECORDS);
    assert_eq!(
        system,
        vec![(
            "bo".to_owned(),
            ServerMessage::Chat(ChatMessage {
                ts: NOW,
                ..line(ChatChannel::System, "", "Welcome")
            })
        )]
    );
    // Global: said here, it carries this world's id (when worlds share it) ...
    let global = line(ChatChannel::Global, "ada", "gz");
    let here = ChatMessage {
        ts: NOW,
        world: Some(7),
        ..global.clone()
    };
    assert_eq!(
        messages(
            Event::ChatToAll {
                except: shared(&["ada", "bo"]),
                message: global.clone()
            },
            &world_seven()
        )
        .per_recipient(&RECORDS),
        vec![("cy".to_owned(), ServerMessage::Chat(here.clone()))]
    );
    // ... and that is the line relayed; one heard from world 2 keeps its id and is not relayed.
    assert_eq!(to_relay(&global, &world_seven()), Some(here));
    assert_eq!(to_relay(&global, &alone()), None);
    let heard = ChatMessage {
        world: Some(2),
        ..global.clone()
    };
    assert_eq!(to_relay(&heard, &world_seven()), None);
    assert_eq!(stamped(heard, &world_seven()).world, Some(2));
    assert_eq!(
        to_relay(&line(ChatChannel::Private, "ada", "x"), &world_seven()),
        None
    );
}

#[test]
fn a_line_to_everyone_reaches_every_record_but_those_excepted() {
    let system = line(ChatChannel::System, "system", "restart soon");
    let sent = ServerMessage::Chat(ChatMessage {
        ts: NOW,
        ..system.clone()
    });
    let to_all = |except: &[&str]| {
        of(Event::ChatToAll {
            except: shared(except),
            message: system.clone(),
        })
    };
    assert_eq!(
        to_all(&[]),
        RECORDS.map(|id| (id.to_owned(), sent.clone())).to_vec()
    );
    // An id without a record (gone, or never here) changes nothing; one named twice is left out once.
    assert_eq!(
        to_all(&["bo", "zed", "bo"]),
        vec![
            ("ada".to_owned(), sent.clone()),
            ("cy".to_owned(), sent.clone())
        ]
    );
}

#[test]
fn local_chat_gives_each_listener_the_lines_it_heard_in_order() {
    let delivery = messages(
        Event::LocalChat {
            lines: vec![
                line(ChatChannel::Local, "ada", "one"),
                line(ChatChannel::Local, "bo", "two"),
            ],
            heard: vec![
                Heard {
                    to: Arc::from("ada"),
                    lines: vec![0, 1],
                },
                Heard {
                    to: Arc::from("cy"),
                    lines: vec![1],
                },
            ],
        },
        &alone(),
    );
    let sent = |from: &str, text: &str| {
        ServerMessage::Chat(ChatMessage {
            ts: NOW,
            ..line(ChatChannel::Local, from, text)
        })
    };
    assert_eq!(
        delivery.per_recipient(&RECORDS),
        vec![
            ("ada".to_owned(), sent("ada", "one")),
            ("ada".to_owned(), sent("bo", "two")),
            ("cy".to_owned(), sent("bo", "two")),
        ]
    );
}

#[test]
fn a_refused_command_is_an_error_to_its_sender_with_its_reference() {
    assert_eq!(
        of(Event::Rejected {
            to: "ada".into(),
            code: "out_of_range",
            message: "too far".into(),
            reference: Some(12),
        }),
        vec![(
            "ada".to_owned(),
            ServerMessage::error("out_of_range", "too far", Some(json!(12)))
        )]
    );
}

#[test]
fn xp_gains_tell_the_gain_the_total_and_a_level_reached() {
    // 80 + 17.5 XP crosses level 2 (83 XP).
    let gain = add_xp(Xp::from_points(80), Xp::from_f64(17.5));
    assert_eq!(
        of(Event::Xp {
            to: "ada".into(),
            skill: Skill::Mining,
            gain,
        }),
        vec![(
            "ada".to_owned(),
            ServerMessage::SkillXp(SkillXp {
                skill: Skill::Mining,
                xp_gained: 17.5,
                xp: 97,
                level: 2,
                leveled_up: true,
            })
        )]
    );
}

#[test]
fn inventory_equipment_bank_and_shops_show_what_the_sim_holds() {
    let inventory = of(Event::Inventory {
        to: "ada".into(),
        slots: vec![
            (0, stack("coins", 25)),
            (3, stack("logs", 1)),
            (5, stack("coins", 10)),
            (6, stack("no_such_item", 2)),
        ],
    });
    let slot = |slot: u8, item_id: &str, name: &str, quantity: i64| InventorySlot {
        slot,
        item_id: item_id.into(),
        name: name.into(),
        quantity,
    };
    assert_eq!(
        inventory,
        vec![(
            "ada".to_owned(),
            ServerMessage::InventoryUpdate(InventoryUpdate {
                inventory: vec![
                    slot(0, "coins", "Coins", 25),
                    slot(3, "logs", "Logs", 1),
                    slot(5, "coins", "Coins", 10),
                    // An item content does not name is shown by its id.
                    slot(6, "no_such_item", "no_such_item", 2),
                ],
                coins: 35,
            })
        )]
    );

    let equipment = of(Event::Equipment {
        to: "ada".into(),
        worn: vec![(EquipSlot::Weapon, stack("bronze_sword", 1))],
    });
    let ServerMessage::EquipmentUpdate(update) = &equipment[0].1 else {
        panic!("expected equipment:update, got {equipment:?}");
    };
    assert_eq!(equipment.len(), 1);
    assert_eq!(
        serde_json::to_value(update).unwrap(),
        json!({"equipment": {"weapon": {"itemId": "bronze_sword", "quantity": 1}}})
    );

    assert_eq!(
        of(Event::Bank {
            to: "ada".into(),
            items: vec![stack("logs", 480)],
        }),
        vec![(
            "ada".to_owned(),
            ServerMessage::BankUpdate(BankUpdate {
                items: vec![BankItem {
                    item_id: "logs".into(),
                    quantity: 480
                }]
            })
        )]
    );

    let view = ShopView {
        store_id: "general".into(),
        name: "General Store".into(),
        buyback: true,
        buyback_rate: 0.4,
        items: vec![ShopItem {
            item_id: "logs".into(),
            name: "Logs".into(),
            price: 4,
            stock: Some(9),
            sell_price: Some(1),
            category: None,
        }],
    };
    assert_eq!(
        of(Event::ShopOpened {
            to: "ada".into(),
            view: view.clone()
        }),
        vec![("ada".to_owned(), ServerMessage::ShopOpen(view.clone()))]
    );
    // A change of stock reaches everyone with the shop open.
    assert_eq!(
        of(Event::ShopUpdated {
            to: vec!["ada".into(), "bo".into()],
            view: view.clone()
        }),
        vec![
            ("ada".to_owned(), ServerMessage::ShopUpdate(view.clone())),
            ("bo".to_owned(), ServerMessage::ShopUpdate(view)),
        ]
    );
    assert_eq!(
        of(Event::ShopClosed {
            to: "bo".into(),
            store_id: "general".into()
        }),
        vec![(
            "bo".to_owned(),
            ServerMessage::ShopClose(ShopClosed {
                store_id: "general".into()
            })
        )]
    );
    // What the books count tells nobody: the purchase, the immediate save, the audit's flows.
    for event in [
        Event::ShopTrade {
            id: "ada".into(),
            store_id: "general".into(),
            item_id: "logs".into(),
            quantity: 2,
            coins: 8,
            sold: false,
        },
        Event::SaveNow { id: "ada".into() },
        Event::ItemFlows(Vec::new()),
    ] {
        assert_eq!(messages(event, &alone()), Delivery::Nothing);
    }
}

#[test]
fn trade_messages_pass_through_to_their_player() {
    for message in [
        ServerMessage::TradeStarted(TradeStarted {
            trade_id: "t1".into(),
            partner_id: "bo".into(),
            partner_name: "Bo".into(),
        }),
        ServerMessage::TradeCancelled(TradeCancelled {
            trade_id: "t1".into(),
            reason: "declined".into(),
            by_player_id: Some("bo".into()),
        }),
    ] {
        assert_eq!(
            of(Event::Trade {
                to: "ada".into(),
                message: Box::new(message.clone()),
            }),
            vec![("ada".to_owned(), message)]
        );
    }
}

#[test]
fn hits_reach_every_onlooker_and_a_death_is_for_the_books() {
    let hit = CombatHit {
        attacker_id: "ada".into(),
        target_id: "npc-9".into(),
        damage: 3,
        target_health: 2,
        target_max_health: 5,
    };
    assert_eq!(
        of(Event::CombatHit {
            to: vec!["ada".into(), "cy".into()],
            hit: hit.clone(),
        }),
        vec![
            ("ada".to_owned(), ServerMessage::CombatHit(hit.clone())),
            ("cy".to_owned(), ServerMessage::CombatHit(hit)),
        ]
    );
    // The dead hear of their death in `player:death` (below); the piles are the books'.
    for event in [
        Event::DeathItemTaken {
            death_id: "ada-7".into(),
            by: "bo".into(),
            stack: stack("logs", 1),
        },
        Event::DeathItemExpired {
            death_id: "ada-7".into(),
            stack: stack("logs", 1),
        },
        Event::NpcKilled {
            killer: "ada".into(),
            npc_id: "goblin".into(),
        },
    ] {
        assert_eq!(messages(event, &alone()), Delivery::Nothing);
    }
}

#[test]
fn a_death_tells_the_dead_what_was_kept_lost_and_where_the_gravestone_is() {
    let died = |pvp: bool, kept: Vec<Stack>, gravestone_ticks| Event::PlayerDied {
        id: "ada".into(),
        death_id: "ada-7".into(),
        tile: TilePos { x: 60, z: 4 },
        items: vec![stack("logs", 1), stack("logs", 2), stack("coins", 9)],
        pvp,
        kept,
        killer: Some(("npc-3".into(), "Goblin".into())),
        respawn: TilePos { x: 0, z: 0 },
        gravestone_ticks,
    };
    let item = |item_id: &str, quantity| DeathItem {
        item_id: item_id.into(),
        quantity,
    };
    assert_eq!(
        of(died(false, Vec::new(), Some(1_500))),
        vec![(
            "ada".to_owned(),
            ServerMessage::PlayerDeath(PlayerDeath {
                killer_id: Some("npc-3".into()),
                killer_name: Some("Goblin".into()),
                kept: Vec::new(),
                lost: vec![item("logs", 3), item("coins", 9)],
                gravestone: Some(Gravestone {
                    x: 60,
                    z: 4,
                    // 1,500 ticks of 600 ms after the time of sending.
                    expires_at: NOW + 900_000,
                }),
                respawn: TilePos { x: 0, z: 0 },
            })
        )]
    );
    let pvp = of(died(true, vec![stack("rune_sword", 1)], None));
    let ServerMessage::PlayerDeath(death) = &pvp[0].1 else {
        panic!("{pvp:?}")
    };
    assert_eq!(death.kept, vec![item("rune_sword", 1)]);
    assert_eq!(death.gravestone, None);
}

#[test]
fn zone_changes_go_to_the_player_alone() {
    let zone = ZoneEnter {
        area_id: Some("millbrook".into()),
        name: Some("Millbrook".into()),
        safe: true,
        pvp: false,
    };
    assert_eq!(
        of(Event::Zone {
            to: "ada".into(),
            zone: zone.clone(),
        }),
        vec![("ada".to_owned(), ServerMessage::ZoneEnter(zone))]
    );
}

#[test]
fn quests_are_listed_updated_and_completed_with_one_name_per_status() {
    let record = |status, stage: Option<&str>, progress| QuestRecord {
        quest_id: "courier_run".into(),
        status,
        stage_id: stage.map(str::to_owned),
        progress,
        completions: 0,
    };
    let list = of(Event::QuestList {
        to: "ada".into(),
        quests: vec![
            ("courier_run".into(), "Courier Run".into(), None),
            (
                "bounty".into(),
                "Bounty".into(),
                Some(record(QuestStatus::InProgress, Some("hunt"), 2)),
            ),
            (
                "done".into(),
                "Done".into(),
                Some(record(QuestStatus::Completed, None, 0)),
            ),
        ],
        quest_points: 4,
    });
    let ServerMessage::QuestList(sent) = &list[0].1 else {
        panic!("expected quest:list, got {list:?}");
    };
    assert_eq!(
        serde_json::to_value(sent).unwrap(),
        json!({
            "quests": [
                {"questId": "courier_run", "name": "Courier Run", "status": "not_started"},
                {"questId": "bounty", "name": "Bounty", "status": "in_progress",
                 "stageId": "hunt", "progress": 2},
                {"questId": "done", "name": "Done", "status": "completed"},
            ],
            "questPoints": 4
        })
    );

    assert_eq!(
        of(Event::QuestUpdated {
            to: "ada".into(),
            record: record(QuestStatus::ReadyToComplete, Some("return"), 1),
            count: 1,
        }),
        vec![(
            "ada".to_owned(),
            ServerMessage::QuestUpdate(QuestUpdate {
                quest_id: "courier_run".into(),
                status: "ready_to_complete".into(),
                stage_id: Some("return".into()),
                progress: 1,
                count: 1,
            })
        )]
    );

    let complete = of(Event::QuestCompleted {
        to: "ada".into(),
        quest_id: "courier_run".into(),
        rewards: wayfarer_sim::QuestRewards {
            quest_points: 1,
            items: vec![("coins".into(), 50)],
            xp: vec![(Skill::Agility, 125.0)],
        },
        quest_points: 5,
    });
    let ServerMessage::QuestComplete(sent) = &complete[0].1 else {
        panic!("expected quest:complete, got {complete:?}");
    };
    assert_eq!(
        serde_json::to_value(sent).unwrap(),
        json!({
            "questId": "courier_run",
            "rewards": {"questPoints": 1, "items": [{"itemId": "coins", "quantity": 50}],
                        "xp": {"agility": 125.0}},
            "questPoints": 5
        })
    );
}

#[test]
fn prayer_points_and_active_prayers_go_to_their_player() {
    assert_eq!(
        of(Event::Prayer {
            to: "ada".into(),
            points: 7,
            max_points: 12,
            active: vec!["thick_skin".into()],
        }),
        vec![(
            "ada".to_owned(),
            ServerMessage::PrayerUpdate(PrayerUpdate {
                points: 7,
                max_points: 12,
                active: vec!["thick_skin".into()],
            })
        )]
    );
}

#[test]
fn dialogues_open_with_their_node_and_close_with_a_reason() {
    let view = DialogueOpen {
        npc_id: "hans".into(),
        entity_id: "npc-1".into(),
        node_id: "start".into(),
        text: "Hello".into(),
        responses: vec![DialogueChoice {
            index: 0,
            text: "Bye".into(),
        }],
    };
    assert_eq!(
        of(Event::DialogueOpened {
            to: "ada".into(),
            view: view.clone()
        }),
        vec![("ada".to_owned(), ServerMessage::DialogueOpen(view))]
    );
    for (reason, wire) in [
        (CloseReason::WalkedAway, "walked_away"),
        (CloseReason::Combat, "combat"),
        (CloseReason::End, "end"),
    ] {
        assert_eq!(
            of(Event::DialogueClosed {
                to: "ada".into(),
                npc_id: "hans".into(),
                reason,
            }),
            vec![(
                "ada".to_owned(),
                ServerMessage::DialogueClose(DialogueClose {
                    npc_id: "hans".into(),
                    reason: wire.into(),
                })
            )]
        );
    }
}
