//! The table of frames and what each comes to: every client message, the ways a frame is refused
//! (malformed, unknown, oversized, out of range, rate-limited) and the `ref`s remembered on the way.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use wayfarer_protocol::ws::codes;
use wayfarer_protocol::Skill;

use super::*;

const ADA: &str = "ada";

fn context(admission: Admission) -> Context<'static> {
    Context {
        character_id: ADA,
        admission,
        clustered: false,
    }
}

/// The verdict on `frame` from a connection that has remembered no `ref` yet.
fn verdict(frame: &str) -> Verdict {
    translate(frame, &context(Admission::Admitted), &mut Refs::default())
}

fn error(code: &str, message: &str, reference: Option<Value>) -> Verdict {
    Verdict::Refuse(ServerMessage::error(code, message, reference))
}

fn trade(command: TradeCommand, reference: Option<u64>) -> Verdict {
    Verdict::World(Command::Trade {
        id: ADA.into(),
        command,
        reference,
    })
}

fn duel(command: DuelCommand, reference: Option<u64>) -> Verdict {
    Verdict::World(Command::Duel {
        id: ADA.into(),
        command,
        reference,
    })
}

fn bank(request: BankRequest, reference: Option<u64>) -> Verdict {
    Verdict::World(Command::Bank {
        id: ADA.into(),
        request,
        reference,
    })
}

fn shop(request: ShopRequest, reference: Option<u64>) -> Verdict {
    Verdict::World(Command::Shop {
        id: ADA.into(),
        request,
        reference,
    })
}

fn social(request: SocialRequest, reference: Option<Value>) -> Verdict {
    Verdict::Social { request, reference }
}

/// Every client message read whole, and what it comes to. A `ref` given with a command for the
/// world is remembered (as number 0, the connection's first); one given with a refusal is echoed.
fn table() -> Vec<(&'static str, Verdict)> {
    let r = || Some(json!("r"));
    vec![
        (
            r#"{"type":"player:move","data":{"x":3,"z":-4,"run":true},"ref":"r"}"#,
            Verdict::World(Command::Move {
                id: ADA.into(),
                x: 3,
                z: -4,
                run: true,
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"hello"}}"#,
            Verdict::World(Command::Chat {
                id: ADA.into(),
                channel: ChatChannel::Local,
                text: "hello".into(),
                to: None,
                reference: None,
            }),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"hi all","channel":"global"},"ref":1}"#,
            Verdict::World(Command::Chat {
                id: ADA.into(),
                channel: ChatChannel::Global,
                text: "hi all".into(),
                to: None,
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"psst","channel":"private","to":"Bo"}}"#,
            Verdict::World(Command::Chat {
                id: ADA.into(),
                channel: ChatChannel::Private,
                text: "psst".into(),
                to: Some("Bo".into()),
                reference: None,
            }),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"psst","channel":"private","to":""},"ref":"r"}"#,
            error(codes::INVALID_MESSAGE, "private messages need `to`", r()),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"psst","channel":"private"}}"#,
            error(codes::INVALID_MESSAGE, "private messages need `to`", None),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"hear ye","channel":"system"},"ref":"r"}"#,
            error(
                codes::INVALID_MESSAGE,
                "players cannot send on the system or game channel",
                r(),
            ),
        ),
        (
            r#"{"type":"player:chat","data":{"text":"x","channel":"game"}}"#,
            error(
                codes::INVALID_MESSAGE,
                "players cannot send on the system or game channel",
                None,
            ),
        ),
        // A slash command is never chat, on whatever channel.
        (
            r#"{"type":"player:chat","data":{"text":"  /tp 3 4 ","channel":"system"},"ref":"r"}"#,
            Verdict::Slash {
                text: "/tp 3 4".into(),
                reference: r(),
            },
        ),
        (
            r#"{"type":"player:action","data":{"action":"stop"},"ref":"r"}"#,
            Verdict::World(Command::Action {
                id: ADA.into(),
                action: Action::Stop,
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"player:action","data":{"action":"attack","targetId":"npc-1"}}"#,
            Verdict::World(Command::Action {
                id: ADA.into(),
                action: Action::Attack {
                    target: "npc-1".into(),
                },
                reference: None,
            }),
        ),
        (
            r#"{"type":"player:action","data":{"action":"attack"},"ref":"r"}"#,
            error(codes::INVALID_MESSAGE, "this action needs `targetId`", r()),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":2},"ref":"r"}"#,
            Verdict::World(Command::UseItem {
                id: ADA.into(),
                slot: 2,
                target_slot: None,
                target_id: None,
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":2,"targetSlot":5,"targetId":""}}"#,
            Verdict::World(Command::UseItem {
                id: ADA.into(),
                slot: 2,
                target_slot: Some(5),
                target_id: None,
                reference: None,
            }),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":2,"targetId":"fire-1"}}"#,
            Verdict::World(Command::UseItem {
                id: ADA.into(),
                slot: 2,
                target_slot: None,
                target_id: Some("fire-1".into()),
                reference: None,
            }),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":28},"ref":"r"}"#,
            error(
                codes::INVALID_SLOT,
                "an inventory slot is 0 to 27, not 28",
                r(),
            ),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":1,"targetSlot":-1}}"#,
            error(
                codes::INVALID_SLOT,
                "an inventory slot is 0 to 27, not -1",
                None,
            ),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":1,"skill":"mining"},"ref":"r"}"#,
            Verdict::World(Command::RubLamp {
                id: ADA.into(),
                slot: 1,
                skill: Skill::Mining,
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":1,"skill":"flying"},"ref":"r"}"#,
            error(codes::INVALID_MESSAGE, r#""flying" is not a skill"#, r()),
        ),
        (
            r#"{"type":"inventory:use","data":{"slot":40,"skill":"mining"}}"#,
            error(
                codes::INVALID_SLOT,
                "an inventory slot is 0 to 27, not 40",
                None,
            ),
        ),
        (
            r#"{"type":"friend:request","data":{"name":"Bo"},"ref":"r"}"#,
            social(SocialRequest::Request("Bo".into()), r()),
        ),
        (
            r#"{"type":"friend:respond","data":{"name":"Bo","accept":true}}"#,
            social(
                SocialRequest::Respond {
                    name: "Bo".into(),
                    accept: true,
                },
                None,
            ),
        ),
        (
            r#"{"type":"friend:remove","data":{"name":"Bo"}}"#,
            social(SocialRequest::Remove("Bo".into()), None),
        ),
        (
            r#"{"type":"ignore:add","data":{"name":"Cy"}}"#,
            social(SocialRequest::Ignore("Cy".into()), None),
        ),
        (
            r#"{"type":"ignore:remove","data":{"name":"Cy"},"ref":"r"}"#,
            social(SocialRequest::Unignore("Cy".into()), r()),
        ),
        (
            r#"{"type":"friend:list","data":{}}"#,
            social(SocialRequest::List, None),
        ),
        (
            r#"{"type":"player:sync","data":{},"ref":"r"}"#,
            Verdict::Sync,
        ),
        (
            r#"{"type":"tradeRequest","data":{"targetPlayerId":"bo"},"ref":"r"}"#,
            trade(
                TradeCommand::Request {
                    target: "bo".into(),
                },
                Some(0),
            ),
        ),
        (
            r#"{"type":"tradeRequestRespond","data":{"tradeId":"t1","accept":false}}"#,
            trade(
                TradeCommand::Respond {
                    trade_id: "t1".into(),
                    accept: false,
                },
                None,
            ),
        ),
        (
            r#"{"type":"tradeAddItem","data":{"tradeId":"t1","inventorySlot":3,"quantity":2}}"#,
            trade(
                TradeCommand::AddItem {
                    trade_id: "t1".into(),
                    slot: 3,
                    quantity: Some(2),
                },
                None,
            ),
        ),
        // A trade message's slot out of range is a `tradeError`, as its other errors are.
        (
            r#"{"type":"tradeAddItem","data":{"tradeId":"t1","inventorySlot":40},"ref":"r"}"#,
            Verdict::Refuse(ServerMessage::TradeError(TradeError {
                code: codes::INVALID_SLOT.into(),
                message: "an inventory slot is 0 to 27, not 40".into(),
                trade_id: Some("t1".into()),
                reference: r(),
            })),
        ),
        (
            r#"{"type":"tradeRemoveItem","data":{"tradeId":"t1","inventorySlot":3},"ref":"r"}"#,
            trade(
                TradeCommand::RemoveItem {
                    trade_id: "t1".into(),
                    slot: 3,
                },
                Some(0),
            ),
        ),
        (
            r#"{"type":"tradeRemoveItem","data":{"tradeId":"t1","inventorySlot":-2}}"#,
            Verdict::Refuse(ServerMessage::TradeError(TradeError {
                code: codes::INVALID_SLOT.into(),
                message: "an inventory slot is 0 to 27, not -2".into(),
                trade_id: Some("t1".into()),
                reference: None,
            })),
        ),
        (
            r#"{"type":"tradeAccept","data":{"tradeId":"t1"}}"#,
            trade(
                TradeCommand::Accept {
                    trade_id: "t1".into(),
                },
                None,
            ),
        ),
        (
            r#"{"type":"tradeCancel","data":{"tradeId":"t1"},"ref":"r"}"#,
            trade(
                TradeCommand::Cancel {
                    trade_id: "t1".into(),
                },
                Some(0),
            ),
        ),
        (
            r#"{"type":"bank:open","data":{},"ref":"r"}"#,
            bank(BankRequest::Open, Some(0)),
        ),
        (
            r#"{"type":"bank:deposit","data":{"slot":3,"quantity":5}}"#,
            bank(
                BankRequest::Deposit {
                    slot: Some(3),
                    quantity: Some(5),
                },
                None,
            ),
        ),
        (
            r#"{"type":"bank:deposit","data":{"slot":28},"ref":"r"}"#,
            error(
                codes::INVALID_SLOT,
                "an inventory slot is 0 to 27, not 28",
                r(),
            ),
        ),
        (
            r#"{"type":"bank:withdraw","data":{"itemId":"logs","quantity":4}}"#,
            bank(
                BankRequest::Withdraw {
                    item_id: "logs".into(),
                    quantity: 4,
                },
                None,
            ),
        ),
        (
            r#"{"type":"bank:withdraw","data":{"itemId":"","quantity":4}}"#,
            error(codes::INVALID_MESSAGE, "`itemId` is empty", None),
        ),
        (
            r#"{"type":"shop:buy","data":{"storeId":"s","itemId":"i","quantity":2},"ref":"r"}"#,
            shop(
                ShopRequest::Buy {
                    store_id: "s".into(),
                    item_id: "i".into(),
                    quantity: 2,
                },
                Some(0),
            ),
        ),
        (
            r#"{"type":"shop:sell","data":{"storeId":"s","slot":1}}"#,
            shop(
                ShopRequest::Sell {
                    store_id: "s".into(),
                    slot: 1,
                    quantity: None,
                },
                None,
            ),
        ),
        (
            r#"{"type":"shop:sell","data":{"storeId":"s","slot":1,"quantity":0}}"#,
            error(
                codes::INVALID_MESSAGE,
                "`quantity` must be at least 1, not 0",
                None,
            ),
        ),
        (
            r#"{"type":"shop:close","data":{}}"#,
            shop(ShopRequest::Close, None),
        ),
        (
            r#"{"type":"prayer:toggle","data":{"prayerId":"thick_skin","active":true},"ref":"r"}"#,
            Verdict::World(Command::Prayer {
                id: ADA.into(),
                prayer_id: "thick_skin".into(),
                active: true,
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"dialogue:respond","data":{"npcId":"npc-2","index":1}}"#,
            Verdict::World(Command::DialogueRespond {
                id: ADA.into(),
                npc_id: "npc-2".into(),
                index: 1,
                reference: None,
            }),
        ),
        (
            r#"{"type":"dialogue:close","data":{},"ref":"r"}"#,
            Verdict::World(Command::DialogueClose {
                id: ADA.into(),
                npc_id: String::new(),
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"arena:join","data":{},"ref":"r"}"#,
            Verdict::ArenaJoin { reference: Some(0) },
        ),
        (
            r#"{"type":"arena:leave","data":{},"ref":"r"}"#,
            Verdict::World(Command::Arena {
                id: ADA.into(),
                command: wayfarer_sim::ArenaCommand::Leave,
                reference: Some(0),
            }),
        ),
        // The quest list carries no `ref` to the world: none is remembered.
        (
            r#"{"type":"quest:list","data":{},"ref":"r"}"#,
            Verdict::World(Command::QuestList { id: ADA.into() }),
        ),
        (
            r#"{"type":"quest:abandon","data":{"questId":"goblin_slayer"},"ref":"r"}"#,
            Verdict::World(Command::QuestAbandon {
                id: ADA.into(),
                quest_id: "goblin_slayer".into(),
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"player:emote","data":{"emote":"wave"},"ref":"r"}"#,
            Verdict::World(Command::Emote {
                id: ADA.into(),
                emote: "wave".into(),
                reference: Some(0),
            }),
        ),
        (
            r#"{"type":"agent:status","data":{"progress":0.5},"ref":"r"}"#,
            Verdict::AgentStatus {
                status: Box::new(AgentStatus {
                    progress: Some(0.5),
                    ..AgentStatus::default()
                }),
                reference: r(),
            },
        ),
        (
            r#"{"type":"duel:challenge","data":{"targetPlayerId":"bo"},"ref":"r"}"#,
            duel(
                DuelCommand::Challenge {
                    target: "bo".into(),
                },
                Some(0),
            ),
        ),
        (
            r#"{"type":"duel:respond","data":{"duelId":"d1","accept":true}}"#,
            duel(
                DuelCommand::Respond {
                    duel_id: "d1".into(),
                    accept: true,
                },
                None,
            ),
        ),
        (
            r#"{"type":"duel:setRule","data":{"duelId":"d1","rule":"noMagic","on":true}}"#,
            duel(
                DuelCommand::SetRule {
                    duel_id: "d1".into(),
                    rule: "noMagic".into(),
                    on: true,
                },
                None,
            ),
        ),
        (
            r#"{"type":"duel:stake","data":{"duelId":"d1","inventorySlot":0,"quantity":10}}"#,
            duel(
                DuelCommand::Stake {
                    duel_id: "d1".into(),
                    slot: 0,
                    quantity: Some(10),
                },
                None,
            ),
        ),
        // A duel message's slot out of range is a `duelError`, as its other errors are.
        (
            r#"{"type":"duel:stake","data":{"duelId":"d1","inventorySlot":28},"ref":"r"}"#,
            Verdict::Refuse(ServerMessage::DuelError(DuelError {
                duel_id: Some("d1".into()),
                code: codes::INVALID_SLOT.into(),
                message: "an inventory slot is 0 to 27, not 28".into(),
                reference: r(),
            })),
        ),
        (
            r#"{"type":"duel:unstake","data":{"duelId":"d1","inventorySlot":27},"ref":"r"}"#,
            duel(
                DuelCommand::Unstake {
                    duel_id: "d1".into(),
                    slot: 27,
                },
                Some(0),
            ),
        ),
        (
            r#"{"type":"duel:unstake","data":{"duelId":"d1","inventorySlot":99}}"#,
            Verdict::Refuse(ServerMessage::DuelError(DuelError {
                duel_id: Some("d1".into()),
                code: codes::INVALID_SLOT.into(),
                message: "an inventory slot is 0 to 27, not 99".into(),
                reference: None,
            })),
        ),
        (
            r#"{"type":"duel:accept","data":{"duelId":"d1"}}"#,
            duel(
                DuelCommand::Accept {
                    duel_id: "d1".into(),
                },
                None,
            ),
        ),
        (
            r#"{"type":"duel:cancel","data":{"duelId":"d1"},"ref":"r"}"#,
            duel(
                DuelCommand::Cancel {
                    duel_id: "d1".into(),
                },
                Some(0),
            ),
        ),
    ]
}

#[test]
fn every_client_message_comes_to_its_verdict() {
    for (frame, expected) in table() {
        assert_eq!(verdict(frame), expected, "{frame}");
    }
}

#[test]
fn the_table_has_a_row_for_every_client_message() {
    let covered: BTreeSet<String> = table()
        .into_iter()
        .map(|(frame, _)| {
            let frame: Value = serde_json::from_str(frame).expect("the table's frames are JSON");
            frame["type"].as_str().expect("a type").to_owned()
        })
        .collect();
    let missing: Vec<&str> = ClientMessage::TYPES
        .iter()
        .copied()
        .filter(|kind| !covered.contains(*kind))
        .collect();
    assert!(missing.is_empty(), "no row for {missing:?}");
}

/// Frames the protocol cannot read: refused with its code (and its wording, which the protocol's
/// own tests hold), the `ref` echoed wherever it can be found.
#[test]
fn malformed_frames_are_refused_with_the_protocols_code_and_their_ref() {
    let cases: [(&str, &str, Option<Value>); 7] = [
        ("not json", codes::INVALID_MESSAGE, None),
        ("[1,2]", codes::INVALID_MESSAGE, None),
        (
            r#"{"data":{},"ref":"r"}"#,
            codes::INVALID_MESSAGE,
            Some(json!("r")),
        ),
        (
            r#"{"type":"player:move","data":{"x":"east"},"ref":7}"#,
            codes::INVALID_MESSAGE,
            Some(json!(7)),
        ),
        (
            r#"{"type":"player:move","data":[3,4]}"#,
            codes::INVALID_MESSAGE,
            None,
        ),
        (
            r#"{"type":"tradeAddItem","data":{"tradeId":"t1","inventorySlot":"x"},"ref":"r"}"#,
            codes::INVALID_MESSAGE,
            Some(json!("r")),
        ),
        (
            r#"{"type":"player:fly","data":{},"ref":"r"}"#,
            codes::UNKNOWN_TYPE,
            Some(json!("r")),
        ),
    ];
    for (frame, code, reference) in cases {
        match verdict(frame) {
            Verdict::Refuse(ServerMessage::Error(error)) => {
                assert_eq!(error.code, code, "{frame}");
                assert_eq!(error.reference, reference, "{frame}");
                assert!(!error.message.is_empty(), "{frame}");
            }
            other => panic!("{frame}: {other:?}"),
        }
    }
    assert_eq!(
        verdict(r#"{"type":"player:fly","data":{}}"#),
        error(
            codes::UNKNOWN_TYPE,
            r#"unknown message type "player:fly""#,
            None
        )
    );
}

#[test]
fn an_oversized_frame_is_refused_before_it_is_read() {
    let padding = "x".repeat(MAX_FRAME_BYTES);
    let frame = format!(r#"{{"type":"player:chat","data":{{"text":"{padding}"}},"ref":"r"}}"#);
    assert_eq!(
        verdict(&frame),
        error(
            codes::MESSAGE_TOO_LARGE,
            "frames are limited to 16 KiB",
            None
        )
    );
    // At the limit it is read.
    let text = "x".repeat(MAX_FRAME_BYTES - r#"{"type":"player:chat","data":{"text":""}}"#.len());
    let frame = format!(r#"{{"type":"player:chat","data":{{"text":"{text}"}}}}"#);
    assert_eq!(frame.len(), MAX_FRAME_BYTES);
    assert!(matches!(
        verdict(&frame),
        Verdict::World(Command::Chat { .. })
    ));
}

#[test]
fn a_dropped_frame_is_told_once_a_trade_message_as_a_trade_error() {
    let told = |frame: &str| {
        translate(
            frame,
            &context(Admission::DroppedWithNotice),
            &mut Refs::default(),
        )
    };
    let trade_error = |trade_id: Option<&str>, reference: Option<Value>| {
        Verdict::Refuse(ServerMessage::TradeError(TradeError {
            code: codes::RATE_LIMITED.into(),
            message: RATE_LIMITED.into(),
            trade_id: trade_id.map(str::to_owned),
            reference,
        }))
    };
    // Read no further than the envelope: the data need not be a valid message.
    assert_eq!(
        told(r#"{"type":"tradeAccept","data":{"tradeId":"t1"},"ref":"r"}"#),
        trade_error(Some("t1"), Some(json!("r")))
    );
    assert_eq!(
        told(r#"{"type":"tradeAddItem","data":{"tradeId":"t1","inventorySlot":"x"},"ref":5}"#),
        trade_error(Some("t1"), Some(json!(5)))
    );
    assert_eq!(
        told(r#"{"type":"tradeCancel","data":{"tradeId":7},"ref":{"no":1}}"#),
        trade_error(None, None)
    );
    assert_eq!(told(r#"{"type":"tradeRequest"}"#), trade_error(None, None));
    for frame in [
        r#"{"type":"player:move","data":{"x":1,"z":1},"ref":"r"}"#,
        r#"{"type":"duel:accept","data":{"duelId":"d1"},"ref":"r"}"#,
        r#"{"data":{"tradeId":"t1"}}"#,
        "not json",
    ] {
        assert_eq!(
            told(frame),
            error(codes::RATE_LIMITED, RATE_LIMITED, None),
            "{frame}"
        );
    }
    // Dropped again within the second: nothing is said, whatever the frame.
    let mut refs = Refs::default();
    let dropped = context(Admission::Dropped);
    for frame in [
        r#"{"type":"tradeAccept","data":{"tradeId":"t1"}}"#,
        "not json",
    ] {
        assert_eq!(translate(frame, &dropped, &mut refs), Verdict::Drop);
    }
    // Nothing dropped is remembered.
    assert_eq!(refs.remember(Some(json!("next"))), Some(0));
}

#[test]
fn a_private_line_among_several_worlds_is_looked_for_elsewhere_first() {
    let clustered = Context {
        clustered: true,
        ..context(Admission::Admitted)
    };
    let mut refs = Refs::default();
    let frame =
        r#"{"type":"player:chat","data":{"text":"psst","channel":"private","to":"Bo"},"ref":"r"}"#;
    assert_eq!(
        translate(frame, &clustered, &mut refs),
        Verdict::Private {
            to: "Bo".into(),
            text: "psst".into(),
            reference: Some(json!("r")),
        }
    );
    // Its `ref` is remembered only once the line stays in this world.
    assert_eq!(
        private_line(ADA, "Bo".into(), "psst".into(), Some(json!("r")), &mut refs),
        Command::Chat {
            id: ADA.into(),
            channel: ChatChannel::Private,
            text: "psst".into(),
            to: Some("Bo".into()),
            reference: Some(0),
        }
    );
    // Lines on other channels, and refusals, are decided as for one world.
    let local = r#"{"type":"player:chat","data":{"text":"hi"}}"#;
    assert_eq!(translate(local, &clustered, &mut refs), verdict(local));
    let nobody = r#"{"type":"player:chat","data":{"text":"psst","channel":"private"}}"#;
    assert_eq!(translate(nobody, &clustered, &mut refs), verdict(nobody));
}

#[test]
fn refs_are_remembered_in_order_for_commands_only_and_taken_back_once() {
    let mut refs = Refs::default();
    let admitted = context(Admission::Admitted);
    let mut send = |frame: &str| translate(frame, &admitted, &mut refs);
    send(r#"{"type":"player:move","data":{"x":1,"z":1},"ref":"first"}"#);
    // Refused, or carrying no ref to the world: nothing remembered.
    send(r#"{"type":"inventory:use","data":{"slot":99},"ref":"refused"}"#);
    send(r#"{"type":"quest:list","data":{},"ref":"listed"}"#);
    send(r#"{"type":"player:sync","data":{},"ref":"synced"}"#);
    send(r#"{"type":"friend:list","data":{},"ref":"social"}"#);
    assert_eq!(
        send(r#"{"type":"tradeAccept","data":{"tradeId":"t1"},"ref":2}"#),
        trade(
            TradeCommand::Accept {
                trade_id: "t1".into()
            },
            Some(1)
        )
    );
    assert_eq!(refs.take(1), Some(json!(2)));
    assert_eq!(refs.take(1), None, "taken once");
    assert_eq!(refs.take(0), Some(json!("first")));
    assert_eq!(refs.remember(None), None);
}

#[test]
fn the_last_256_refs_are_kept() {
    let mut refs = Refs::default();
    for n in 0..=REMEMBERED_REFS as u64 {
        assert_eq!(refs.remember(Some(json!(n))), Some(n));
    }
    assert_eq!(refs.take(0), None, "the oldest is forgotten");
    assert_eq!(refs.take(1), Some(json!(1)));
    let last = REMEMBERED_REFS as u64;
    assert_eq!(refs.take(last), Some(json!(last)));
}
