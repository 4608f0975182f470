//! One test per family of events: what each tells whom, worked out by hand from the event.

use std::sync::{Arc, OnceLock};

use serde_json::json;
use wayfarer_content::{EquipSlot, QuestStatus, Skill};
use wayfarer_protocol::ws::{
    CombatHit, DialogueChoice, DialogueOpen, ShopItem, ShopView, TilePos, WorldUpdate, ZoneEnter,
};
use wayfarer_sim::exchange::Screen;
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

fn exchange(kind: ExchangeKind, id: Option<&str>, notice: Notice) -> Vec<(String, String)> {
    of(Event::Exchange {
        to: "ada".into(),
        kind,
        id: id.map(str::to_owned),
        notice,
    })
    .into_iter()
    .map(|(to, message)| (to, message.to_json()))
    .collect()
}

fn entry(slot: usize, item_id: &str, quantity: u32) -> Offered {
    Offered {
        slot,
        item_id: item_id.into(),
        quantity,
    }
}

fn asked_by_bo() -> Notice {
    Notice::Asked {
        from: "bo".into(),
        from_name: "Bo".into(),
    }
}

/// Ada's side (500 coins, accepted) and Bo's (2 logs, a bronze sword), on screen `number`.
fn screen(number: u8, rules: wayfarer_sim::DuelRules) -> Notice {
    Notice::Screen(Box::new(Screen {
        number,
        partner: "bo".into(),
        partner_name: "Bo".into(),
        rules,
        mine: Side {
            items: vec![entry(0, "coins", 500)],
            accepted: true,
        },
        theirs: Side {
            items: vec![entry(3, "logs", 2), entry(7, "bronze_sword", 1)],
            accepted: false,
        },
    }))
}

#[test]
fn trade_notices_become_the_trade_messages_of_their_player() {
    use ExchangeKind::Trade;
    let id = Some("trade-4");
    let table: Vec<(Notice, Option<&str>, &str)> = vec![
        (
            asked_by_bo(),
            id,
            r#"{"type":"tradeIncoming","data":{"tradeId":"trade-4","fromPlayerId":"bo","fromPlayerName":"Bo"}}"#,
        ),
        (
            Notice::Opened {
                partner: "bo".into(),
                partner_name: "Bo".into(),
            },
            id,
            r#"{"type":"tradeStarted","data":{"tradeId":"trade-4","partnerId":"bo","partnerName":"Bo"}}"#,
        ),
        (
            screen(1, Default::default()),
            id,
            concat!(
                r#"{"type":"tradeUpdated","data":{"tradeId":"trade-4","#,
                r#""myOffer":{"items":[{"inventorySlot":0,"itemId":"coins","name":"Coins","quantity":500}],"accepted":true},"#,
                r#""theirOffer":{"items":[{"inventorySlot":3,"itemId":"logs","name":"Logs","quantity":2},"#,
                r#"{"inventorySlot":7,"itemId":"bronze_sword","name":"Bronze Sword","quantity":1}],"accepted":false}}}"#
            ),
        ),
        (
            Notice::Traded {
                received: vec![stack("logs", 1), stack("coins", 3), stack("logs", 1)],
            },
            id,
            concat!(
                r#"{"type":"tradeCompleted","data":{"tradeId":"trade-4","receivedItems":"#,
                r#"[{"itemId":"logs","quantity":2},{"itemId":"coins","quantity":3}]}}"#
            ),
        ),
        (
            Notice::Cancelled {
                reason: Ending::Cancelled,
                by: Some("bo".into()),
            },
            id,
            r#"{"type":"tradeCancelled","data":{"tradeId":"trade-4","reason":"cancelled","byPlayerId":"bo"}}"#,
        ),
        (
            Notice::Cancelled {
                reason: Ending::Timeout,
                by: None,
            },
            id,
            r#"{"type":"tradeCancelled","data":{"tradeId":"trade-4","reason":"timeout"}}"#,
        ),
        (
            Notice::Refused {
                code: "too_far",
                message: "you must stand within 2 tiles of the other player".into(),
                reference: Some(9),
            },
            None,
            concat!(
                r#"{"type":"tradeError","data":{"code":"too_far","#,
                r#""message":"you must stand within 2 tiles of the other player","ref":9}}"#
            ),
        ),
    ];
    for (notice, id, wire) in table {
        assert_eq!(
            exchange(Trade, id, notice),
            vec![("ada".to_owned(), wire.to_owned())]
        );
    }
    // Screen 2 is the confirmation, with what each side is worth at content's values.
    let [(_, confirm)] = &exchange(Trade, id, screen(2, Default::default()))[..] else {
        panic!("one message");
    };
    match serde_json::from_str::<ServerMessage>(confirm) {
        Ok(ServerMessage::TradeConfirmScreen(c)) => {
            assert_eq!((c.values.mine, c.values.theirs), (500, 2 * 5 + 60));
            assert_eq!(c.their_offer.items[1].name, "Bronze Sword");
            assert!(c.my_offer.accepted && !c.their_offer.accepted);
        }
        other => panic!("expected tradeConfirmScreen, got {other:?}"),
    }
}

#[test]
fn duel_notices_become_the_duel_messages_of_their_player() {
    use ExchangeKind::Duel;
    let id = Some("duel-2");
    let mut rules = wayfarer_sim::DuelRules::default();
    for rule in [
        wayfarer_sim::DuelRule::NoFood,
        wayfarer_sim::DuelRule::NoMovement,
    ] {
        rules.set(rule, true);
    }
    let table: Vec<(Notice, Option<&str>, &str)> = vec![
        (
            asked_by_bo(),
            id,
            r#"{"type":"duelIncoming","data":{"duelId":"duel-2","fromPlayerId":"bo","fromPlayerName":"Bo"}}"#,
        ),
        (
            screen(2, rules),
            id,
            concat!(
                r#"{"type":"duel:rules","data":{"duelId":"duel-2","opponentId":"bo","opponentName":"Bo","screen":2,"#,
                r#""rules":["no_food","no_movement"],"#,
                r#""myStake":{"items":[{"inventorySlot":0,"itemId":"coins","name":"Coins","quantity":500,"value":500}],"value":500,"accepted":true},"#,
                r#""theirStake":{"items":[{"inventorySlot":3,"itemId":"logs","name":"Logs","quantity":2,"value":10},"#,
                r#"{"inventorySlot":7,"itemId":"bronze_sword","name":"Bronze Sword","quantity":1,"value":60}],"value":70,"accepted":false}}}"#
            ),
        ),
        (
            Notice::Fight {
                opponent: "bo".into(),
                rules,
                arena_id: Some("duel_arena".into()),
                tile: TilePos { x: 37, z: 7 },
            },
            id,
            concat!(
                r#"{"type":"duel:start","data":{"duelId":"duel-2","opponentId":"bo","#,
                r#""rules":["no_food","no_movement"],"arenaId":"duel_arena","tile":{"x":37,"z":7}}}"#
            ),
        ),
        (
            Notice::Decided {
                winner: "ada".into(),
                loser: "bo".into(),
                received: vec![stack("coins", 50)],
            },
            id,
            concat!(
                r#"{"type":"duel:result","data":{"duelId":"duel-2","winnerId":"ada","loserId":"bo","#,
                r#""receivedItems":[{"itemId":"coins","quantity":50}]}}"#
            ),
        ),
        (
            Notice::Cancelled {
                reason: Ending::Draw,
                by: None,
            },
            id,
            r#"{"type":"duel:cancelled","data":{"duelId":"duel-2","reason":"draw"}}"#,
        ),
        (
            Notice::Refused {
                code: "rule_broken",
                message: "food is not allowed in this duel".into(),
                reference: Some(4),
            },
            id,
            concat!(
                r#"{"type":"duelError","data":{"duelId":"duel-2","code":"rule_broken","#,
                r#""message":"food is not allowed in this duel","ref":4}}"#
            ),
        ),
    ];
    for (notice, id, wire) in table {
        assert_eq!(
            exchange(Duel, id, notice),
            vec![("ada".to_owned(), wire.to_owned())]
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
        projectile: None,
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
