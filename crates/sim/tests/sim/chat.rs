//! Chat in every channel, with ignore lists and offline targets.

use wayfarer_protocol::ws::{codes, ChatChannel, ChatMessage};
use wayfarer_sim::{Command, Event, World};

use crate::{join, join_ignoring, name_of, t, Field};

fn say(id: &str, channel: ChatChannel, text: &str, to: Option<&str>) -> Command {
    Command::Chat {
        id: id.into(),
        channel,
        text: text.into(),
        to: to.map(str::to_owned),
        reference: Some(9),
    }
}

/// The players of [`world`], everyone a line to everyone (`ChatToAll`) may reach.
const EVERYONE: [&str; 5] = ["ada", "bob", "cy", "dee", "eve"];

/// The chat deliveries of a tick, line by line (local lines as they come in their tick's
/// `LocalChat`, a line to everyone as reaching [`EVERYONE`] but its `except`), with sorted
/// recipients.
fn chats(events: &[Event]) -> Vec<(Vec<String>, ChatMessage)> {
    let mut out = Vec::new();
    for event in events {
        match event {
            Event::ChatToAll { except, message } => {
                let to = EVERYONE
                    .iter()
                    .filter(|id| !except.iter().any(|e| &**e == **id))
                    .map(|id| id.to_string())
                    .collect();
                out.push((to, message.clone()));
            }
            Event::Chat { to, message } => {
                let mut to: Vec<String> = to.iter().map(|t| t.to_string()).collect();
                to.sort();
                out.push((to, message.clone()));
            }
            Event::LocalChat { lines, heard } => {
                for (i, line) in lines.iter().enumerate() {
                    let mut to: Vec<String> = heard
                        .iter()
                        .filter(|h| h.lines.contains(&(i as u32)))
                        .map(|h| h.to.to_string())
                        .collect();
                    to.sort();
                    out.push((to, line.clone()));
                }
            }
            _ => {}
        }
    }
    out
}

fn rejections(events: &[Event]) -> Vec<(String, &'static str, Option<u64>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected {
                to,
                code,
                reference,
                ..
            } => Some((to.clone(), *code, *reference)),
            _ => None,
        })
        .collect()
}

fn message(from: &str, channel: ChatChannel, text: &str) -> ChatMessage {
    ChatMessage {
        channel,
        from_id: from.into(),
        from_name: name_of(from),
        text: text.into(),
        ts: 0,
        world: None,
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// ada and bob close together, cy 20 tiles away (in view), dee 100 tiles away; eve near ada but
/// ignoring ada.
fn world() -> World {
    let mut world = Field::new(200).world();
    world.tick(vec![
        join("ada", t(10, 10)),
        join("bob", t(12, 10)),
        join("cy", t(30, 10)),
        join("dee", t(110, 110)),
        join_ignoring("eve", t(11, 11), &["ada"]),
    ]);
    world
}

#[test]
fn local_chat_reaches_the_players_in_view_including_the_sender() {
    let mut world = world();
    let events = world.tick(vec![say("ada", ChatChannel::Local, "  hello  ", None)]);
    assert_eq!(
        chats(&events),
        vec![(
            ids(&["ada", "bob", "cy"]),
            message("ada", ChatChannel::Local, "hello")
        )],
        "eve ignores ada; dee is out of view"
    );
    let events = world.tick(vec![say("dee", ChatChannel::Local, "anyone?", None)]);
    assert_eq!(chats(&events)[0].0, ids(&["dee"]));
}

#[test]
fn each_listener_gets_its_local_lines_in_the_order_spoken() {
    let mut world = world();
    // Spoken out of the order the players joined (their entity order), one of them twice, and
    // one line from eve whom ada's ignore list does not cover (eve ignores ada, not the reverse).
    let events = world.tick(vec![
        say("cy", ChatChannel::Local, "one", None),
        say("ada", ChatChannel::Local, "two", None),
        say("eve", ChatChannel::Local, "three", None),
        say("cy", ChatChannel::Local, "four", None),
        say("bob", ChatChannel::Local, "five", None),
    ]);
    let (lines, heard) = events
        .iter()
        .find_map(|e| match e {
            Event::LocalChat { lines, heard } => Some((lines, heard)),
            _ => None,
        })
        .expect("the lines were heard");
    let texts_for = |who: &str| -> Vec<&str> {
        heard
            .iter()
            .find(|h| &*h.to == who)
            .map(|h| {
                h.lines
                    .iter()
                    .map(|&i| lines[i as usize].text.as_str())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(texts_for("bob"), ["one", "two", "three", "four", "five"]);
    assert_eq!(
        texts_for("eve"),
        ["one", "three", "four", "five"],
        "eve ignores ada"
    );
    assert!(texts_for("dee").is_empty(), "dee is out of view");
}

#[test]
fn global_chat_reaches_everyone_but_those_ignoring_the_sender() {
    let mut world = world();
    let events = world.tick(vec![say("ada", ChatChannel::Global, "hi all", None)]);
    assert_eq!(
        chats(&events),
        vec![(
            ids(&["ada", "bob", "cy", "dee"]),
            message("ada", ChatChannel::Global, "hi all")
        )]
    );
    let events = world.tick(vec![say("eve", ChatChannel::Global, "me too", None)]);
    assert_eq!(
        chats(&events)[0].0,
        ids(&["ada", "bob", "cy", "dee", "eve"])
    );
    // An ignore list set in the world counts from the next line on, and so does one emptied.
    let events = world.tick(vec![
        Command::SetIgnored {
            id: "bob".into(),
            ignored: vec!["ADA".into()],
        },
        say("ada", ChatChannel::Global, "bob?", None),
        Command::SetIgnored {
            id: "eve".into(),
            ignored: Vec::new(),
        },
        say("ada", ChatChannel::Global, "eve?", None),
    ]);
    let heard = chats(&events);
    assert_eq!(heard[0].0, ids(&["ada", "cy", "dee"]));
    assert_eq!(heard[1].0, ids(&["ada", "cy", "dee", "eve"]));
}

#[test]
fn a_global_line_from_another_world_reaches_everyone_but_those_ignoring_its_sender() {
    let mut world = world();
    // ada's namesake in another world: eve ignores the name "ada" and so does not hear it.
    let said_elsewhere = ChatMessage {
        world: Some(2),
        ts: 12,
        ..message("ada-elsewhere", ChatChannel::Global, " from afar\u{7} ")
    };
    let said_elsewhere = ChatMessage {
        from_name: name_of("ada"),
        ..said_elsewhere
    };
    let events = world.tick(vec![Command::RelayedGlobalChat {
        message: said_elsewhere.clone(),
    }]);
    assert_eq!(
        chats(&events),
        vec![(
            ids(&["ada", "bob", "cy", "dee"]),
            ChatMessage {
                text: "from afar".into(),
                ts: 0,
                ..said_elsewhere
            }
        )],
        "cleaned, stamped by the server, and kept with its world"
    );
    // Nothing left after cleaning: nobody hears it, nobody is told.
    let events = world.tick(vec![Command::RelayedGlobalChat {
        message: message("x", ChatChannel::Global, " \u{7} "),
    }]);
    assert!(chats(&events).is_empty());
    assert!(rejections(&events).is_empty());
}

/// Who a line to everyone with `text` names as not hearing it, sorted.
fn except_of(events: &[Event], text: &str) -> Vec<String> {
    let mut except: Vec<String> = events
        .iter()
        .find_map(|e| match e {
            Event::ChatToAll { except, message } if message.text == text => Some(except),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no line to everyone says {text:?}"))
        .iter()
        .map(|id| id.to_string())
        .collect();
    except.sort();
    except.dedup();
    except
}

#[test]
fn a_line_to_everyone_excepts_who_came_after_it_or_went_before_it_in_its_tick() {
    let mut world = world();
    let events = world.tick(vec![
        join("fay", t(40, 40)),
        join_ignoring("ivy", t(41, 40), &["ada"]),
        Command::Leave { id: "bob".into() },
        say("ada", ChatChannel::Global, "one", None),
        join("gus", t(42, 40)),
        Command::Leave { id: "cy".into() },
        Command::SystemMessage {
            to: None,
            text: "two".into(),
        },
        join("hal", t(43, 40)),
        // Gone and back before the last line: there when it is said.
        Command::Leave { id: "fay".into() },
        join("fay", t(40, 40)),
        Command::RelayedGlobalChat {
            message: message("dee", ChatChannel::Global, "three"),
        },
        Command::Leave { id: "ada".into() },
    ]);
    // Everyone in the world during the tick: ada, bob, cy, dee, eve, fay, gus, hal and ivy.
    assert_eq!(
        except_of(&events, "one"),
        ids(&["bob", "eve", "gus", "hal", "ivy"]),
        "bob left before it, gus and hal joined after it, eve and ivy ignore ada (fay and cy hear it)"
    );
    assert_eq!(
        except_of(&events, "two"),
        ids(&["bob", "cy", "hal"]),
        "a system message to everyone ignores no one"
    );
    assert_eq!(
        except_of(&events, "three"),
        ids(&["bob", "cy", "dee"]),
        "the sender's id here does not get its own line back; ada leaves after it"
    );
}

#[test]
fn private_chat_reaches_the_named_player_in_any_case_with_an_echo() {
    let mut world = world();
    let events = world.tick(vec![say(
        "ada",
        ChatChannel::Private,
        "psst",
        Some(" DEE "),
    )]);
    assert_eq!(
        chats(&events),
        vec![(
            ids(&["ada", "dee"]),
            message("ada", ChatChannel::Private, "psst")
        )]
    );
    // Someone the sender ignores may still be written to.
    let events = world.tick(vec![say("eve", ChatChannel::Private, "sorry", Some("ada"))]);
    assert_eq!(chats(&events)[0].0, ids(&["ada", "eve"]));
}

#[test]
fn private_chat_to_an_offline_or_unknown_player_is_rejected() {
    let mut world = world();
    let events = world.tick(vec![
        Command::Leave { id: "dee".into() },
        say("ada", ChatChannel::Private, "still there?", Some("Dee")),
        say("ada", ChatChannel::Private, "hello?", Some("nobody")),
    ]);
    assert!(chats(&events).is_empty());
    assert_eq!(
        rejections(&events),
        vec![
            ("ada".into(), codes::PLAYER_OFFLINE, Some(9)),
            ("ada".into(), codes::PLAYER_OFFLINE, Some(9))
        ]
    );
}

#[test]
fn private_chat_to_someone_ignoring_the_sender_is_rejected_with_ignored() {
    let mut world = world();
    let events = world.tick(vec![say(
        "ada",
        ChatChannel::Private,
        "hey eve",
        Some("Eve"),
    )]);
    assert!(chats(&events).is_empty(), "eve receives nothing");
    assert_eq!(
        rejections(&events),
        vec![("ada".into(), codes::IGNORED, Some(9))]
    );
}

#[test]
fn bad_text_is_rejected_with_invalid_text() {
    let mut world = world();
    let events = world.tick(vec![
        say("ada", ChatChannel::Local, " \u{7}\t ", None),
        say("ada", ChatChannel::Global, &"x".repeat(201), None),
        say("ada", ChatChannel::Private, "", Some("bob")),
    ]);
    assert!(chats(&events).is_empty());
    assert_eq!(
        rejections(&events),
        vec![
            ("ada".into(), codes::INVALID_TEXT, Some(9)),
            ("ada".into(), codes::INVALID_TEXT, Some(9)),
            ("ada".into(), codes::INVALID_TEXT, Some(9))
        ]
    );
    let events = world.tick(vec![say(
        "ada",
        ChatChannel::Global,
        &"x".repeat(200),
        None,
    )]);
    assert_eq!(chats(&events).len(), 1, "200 characters are fine");
    let events = world.tick(vec![say("ada", ChatChannel::Local, "a\u{0}b\u{1b}c", None)]);
    assert_eq!(
        chats(&events)[0].1.text,
        "abc",
        "control characters are stripped"
    );
}

#[test]
fn players_cannot_send_system_messages_or_private_ones_without_a_name() {
    let mut world = world();
    let events = world.tick(vec![
        say("ada", ChatChannel::System, "I am the server", None),
        say("ada", ChatChannel::Private, "to whom?", None),
    ]);
    assert_eq!(
        rejections(&events),
        vec![
            ("ada".into(), codes::FORBIDDEN, Some(9)),
            ("ada".into(), codes::INVALID_TARGET, Some(9))
        ]
    );
}

#[test]
fn system_messages_go_to_one_player_or_everyone() {
    let mut world = world();
    let system = |text: &str| ChatMessage {
        channel: ChatChannel::System,
        from_id: "system".into(),
        from_name: "System".into(),
        text: text.into(),
        ts: 0,
        world: None,
    };
    let events = world.tick(vec![
        Command::SystemMessage {
            to: None,
            text: "restart in 5 minutes".into(),
        },
        Command::SystemMessage {
            to: Some("bob".into()),
            text: "you are now an admin".into(),
        },
        Command::SystemMessage {
            to: Some("ghost".into()),
            text: "lost".into(),
        },
    ]);
    assert_eq!(
        chats(&events),
        vec![
            (
                ids(&["ada", "bob", "cy", "dee", "eve"]),
                system("restart in 5 minutes")
            ),
            (ids(&["bob"]), system("you are now an admin")),
        ]
    );
}

/// 400 players `p000`…`p399` in a 20×20 square: everyone is within view distance of everyone, but
/// each sees only the nearest 255 others.
fn crowd_of_400() -> (World, Vec<Command>) {
    let world = Field::new(200).world();
    let joins = (0..400)
        .map(|i| join(&format!("p{i:03}"), t(20 + i % 20, 20 + i / 20)))
        .collect();
    (world, joins)
}

/// Who each client has been shown, replayed from the `world:update`s.
#[derive(Default)]
struct Shown(std::collections::HashMap<String, std::collections::HashSet<String>>);

impl Shown {
    fn record(&mut self, events: &[Event]) {
        for event in events {
            if let Event::View { to, update } = event {
                let seen = self.0.entry(to.to_string()).or_default();
                seen.extend(update.added.iter().map(|e| e.id.clone()));
                for gone in &update.removed {
                    seen.remove(&**gone);
                }
            }
        }
    }

    /// The clients that see `speaker`, and the speaker.
    fn seeing(&self, speaker: &str) -> std::collections::BTreeSet<String> {
        self.0
            .iter()
            .filter(|(viewer, seen)| *viewer == speaker || seen.contains(speaker))
            .map(|(viewer, _)| viewer.clone())
            .collect()
    }
}

#[test]
fn in_a_crowd_local_chat_reaches_exactly_those_who_see_the_speaker() {
    let (mut world, joins) = crowd_of_400();
    let mut shown = Shown::default();
    shown.record(&world.tick(joins));
    shown.record(&world.tick(Vec::new()));

    // The corner player is among the nearest 255 of only some; the centre one of everyone.
    for (speaker, everyone) in [("p000", false), ("p210", true)] {
        let events = world.tick(vec![say(speaker, ChatChannel::Local, "hi", None)]);
        shown.record(&events);
        let heard: std::collections::BTreeSet<String> =
            chats(&events)[0].0.iter().cloned().collect();
        assert_eq!(
            heard,
            shown.seeing(speaker),
            "{speaker} is heard by exactly who sees them"
        );
        assert_eq!(
            heard.len() == 400,
            everyone,
            "{speaker}: {} listeners",
            heard.len()
        );
    }
}

#[test]
fn local_chat_follows_the_views_when_speakers_move_or_enter_in_the_same_tick() {
    use std::collections::BTreeSet;
    // The crowd; then in one tick a newcomer speaks as it enters, and a player at the corner is
    // teleported into the middle and speaks.
    let (mut world, joins) = crowd_of_400();
    let mut shown = Shown::default();
    shown.record(&world.tick(joins));
    let events = world.tick(vec![
        join("newcomer", t(30, 30)),
        say("newcomer", ChatChannel::Local, "hello", None),
        Command::Teleport {
            id: "p000".into(),
            tile: t(29, 29),
        },
        say("p000", ChatChannel::Local, "over here", None),
    ]);
    let heard: Vec<BTreeSet<String>> = chats(&events)
        .into_iter()
        .map(|(to, _)| to.into_iter().collect())
        .collect();
    // Views are those of the tick before: nobody has been shown the newcomer yet, and p000 is
    // heard by those who saw it at its old place.
    assert_eq!(heard[0], BTreeSet::from(["newcomer".to_owned()]));
    assert_eq!(heard[1], shown.seeing("p000"));
}

/// The texts `who` hears in `events`, in order.
fn heard_by(events: &[Event], who: &str) -> Vec<String> {
    chats(events)
        .into_iter()
        .filter(|(to, _)| to.iter().any(|t| t == who))
        .map(|(_, m)| m.text)
        .collect()
}

fn notices(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rejected { code, message, .. } if *code == codes::RATE_LIMITED => {
                Some(message.clone())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_global_flood_reaches_the_others_at_the_global_rate_with_one_notice_a_second() {
    let mut world = world();
    let rate = wayfarer_sim::GLOBAL_LINE_RATE;
    // 10 different lines a tick for 50 ticks (30 s of game time).
    let mut heard = 0;
    let mut noticed = Vec::new();
    for tick in 0..50 {
        let events = world.tick(
            (0..10)
                .map(|i| {
                    say(
                        "ada",
                        ChatChannel::Global,
                        &format!("flood {tick}.{i}"),
                        None,
                    )
                })
                .collect(),
        );
        let bob_heard = heard_by(&events, "bob").len();
        if tick == 0 {
            assert_eq!(bob_heard, rate.burst as usize, "the burst passes at once");
        }
        heard += bob_heard;
        let tick_notices = notices(&events);
        assert!(tick_notices.len() <= 1, "one notice at most in a tick");
        noticed.extend(tick_notices.into_iter().map(|n| (tick, n)));
    }
    // 49 ticks after the first are 294 tenths of a second: 9 more intervals of 3 s.
    assert_eq!(
        heard,
        rate.burst as usize + 294 / rate.interval_decis as usize
    );
    // A notice every other tick (1.2 s), starting with the first held line.
    assert_eq!(
        noticed.iter().map(|(tick, _)| *tick).collect::<Vec<_>>(),
        (0..50).step_by(2).collect::<Vec<_>>()
    );
    assert_eq!(
        noticed[0].1,
        "you are sending global messages too fast: you may speak on global again in 3 s"
    );
}

#[test]
fn the_notice_carries_the_ref_of_the_line_held() {
    let mut world = world();
    let events = world.tick(
        (0..6)
            .map(|i| Command::Chat {
                id: "ada".into(),
                channel: ChatChannel::Local,
                text: format!("line {i}"),
                to: None,
                reference: Some(100 + i),
            })
            .collect(),
    );
    assert_eq!(heard_by(&events, "bob").len(), 5, "local's burst is 5");
    assert_eq!(
        rejections(&events),
        vec![("ada".into(), codes::RATE_LIMITED, Some(105))]
    );
}

#[test]
fn local_is_more_generous_than_global() {
    let mut world = world();
    let flood = |channel| -> Vec<Command> {
        (0..10)
            .map(|i| say("ada", channel, &format!("{channel:?} {i}"), None))
            .collect()
    };
    let mut global = 0;
    let mut local = 0;
    for _ in 0..10 {
        global += heard_by(&world.tick(flood(ChatChannel::Global)), "bob").len();
        local += heard_by(&world.tick(flood(ChatChannel::Local)), "bob").len();
    }
    // Each channel's lines span 18 ticks (10.8 s): the burst, then one line per interval.
    assert!(global < local, "global {global}, local {local}");
    assert_eq!(global, 3 + 108 / 30);
    assert_eq!(local, 5 + 108 / 5);
}

#[test]
fn a_repeated_line_is_held_until_the_window_has_passed() {
    let mut world = world();
    let events = world.tick(vec![say("ada", ChatChannel::Global, "Buy Gold", None)]);
    assert_eq!(heard_by(&events, "bob"), ["Buy Gold"]);
    // Later, well within the rate: the same line in another case, with invisible characters.
    for _ in 0..10 {
        world.tick(Vec::new());
    }
    let events = world.tick(vec![say(
        "ada",
        ChatChannel::Global,
        " buy\u{200B} GOLD ",
        None,
    )]);
    assert!(heard_by(&events, "bob").is_empty());
    assert_eq!(
        notices(&events),
        ["you just said that on global: the same line may be said there again in 24 s"]
    );
    // It was said in tick 2; global's window is 30 s, 50 ticks: held up to tick 51, said in 52.
    while world.tick_number() < 51 {
        let events = world.tick(vec![say("ada", ChatChannel::Global, "buy gold", None)]);
        assert!(
            heard_by(&events, "bob").is_empty(),
            "tick {}",
            world.tick_number()
        );
    }
    let events = world.tick(vec![say("ada", ChatChannel::Global, "buy gold", None)]);
    assert_eq!(heard_by(&events, "bob"), ["buy gold"]);
}

#[test]
fn leaving_and_coming_back_does_not_refill_the_burst() {
    let mut world = world();
    let burst: Vec<Command> = (0..3)
        .map(|i| say("ada", ChatChannel::Global, &format!("{i}"), None))
        .collect();
    assert_eq!(heard_by(&world.tick(burst), "bob").len(), 3);
    world.tick(vec![Command::Leave { id: "ada".into() }]);
    world.tick(vec![join("ada", t(10, 10))]);
    let events = world.tick(vec![say("ada", ChatChannel::Global, "again", None)]);
    assert!(heard_by(&events, "bob").is_empty(), "still held");
    assert_eq!(notices(&events).len(), 1);
}

#[test]
fn chat_limits_can_be_switched_off() {
    let mut world = world();
    world.set_chat_limits(false);
    let events = world.tick(
        (0..20)
            .map(|_| say("ada", ChatChannel::Global, "same", None))
            .collect(),
    );
    assert_eq!(heard_by(&events, "bob").len(), 20);
}

#[test]
fn refused_lines_do_not_count_against_the_sender() {
    let mut world = world();
    let events = world.tick(
        (0..10)
            .map(|i| say("ada", ChatChannel::Private, &format!("{i}"), Some("nobody")))
            .chain([say("ada", ChatChannel::Local, " \u{200B} ", None)])
            .collect(),
    );
    assert!(notices(&events).is_empty());
    let events = world.tick(
        (0..5)
            .map(|i| say("ada", ChatChannel::Private, &format!("{i}"), Some("bob")))
            .collect(),
    );
    assert_eq!(heard_by(&events, "bob").len(), 5);
}

#[test]
fn a_private_message_to_another_world_counts_against_the_private_limit() {
    let mut world = world();
    for i in 0..5 {
        assert_eq!(
            world.admit_private_elsewhere("ada", "Zed", &format!(" hi\u{202E} {i} ")),
            Ok(format!("hi {i}"))
        );
    }
    let held = world.admit_private_elsewhere("ada", "Zed", "one more");
    assert_eq!(
        held.as_ref().map_err(|r| r.as_ref().map(|r| r.code)),
        Err(Some(codes::RATE_LIMITED))
    );
    assert_eq!(
        world.admit_private_elsewhere("ada", "Zed", "and another"),
        Err(None),
        "one notice a second"
    );
    // The same budget as private lines within the world.
    let events = world.tick(vec![say("ada", ChatChannel::Private, "here", Some("bob"))]);
    assert!(heard_by(&events, "bob").is_empty());
    let refused = world.admit_private_elsewhere("bob", "Zed", "\u{200B}");
    assert_eq!(
        refused.map_err(|r| r.map(|r| r.code)),
        Err(Some(codes::INVALID_TEXT))
    );
    assert_eq!(
        world.admit_private_elsewhere("nobody", "Zed", "hi"),
        Err(None)
    );
}
