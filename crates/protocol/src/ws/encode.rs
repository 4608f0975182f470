//! A hand-written JSON encoder for `world:update`, byte for byte what serde_json writes.
//!
//! Why: in a crowd every player gets an update each tick with hundreds of `moved` entries, and
//! encoding them through serde was most of the async runtime's CPU (profiled at 2,000 players:
//! `format_escaped_str` alone 15% of the server). Serde escapes the three constant keys and the id
//! of every entry byte by byte and goes through `SerializeMap` for each field. Here the keys are
//! constant text, an id that needs no escaping (every id the server makes) is copied whole, and
//! numbers go through itoa as serde's do; `moved` entries are encoded once a tick for every viewer
//! (`moves::TickMoves`) and copied here. `added` entries are written here too (`write_entity`): in
//! a moving crowd the nearest 255 change every tick, so each update adds dozens (serde's escaping
//! of their strings was 14% of the sim's crowd run, `crowd_ticks`); the function destructures
//! `Entity` whole, so a new field does not compile until it is written here. `changed` entries are
//! few and still go through serde.
//!
//! The tests compare against `serde_json::to_string` of the same message, including ids that need
//! escaping (escaped here as serde escapes them).

use super::{Entity, EntityKind, Moved, WorldUpdate};

/// Bytes of one `removed` entry besides its id: quotes and a comma.
pub(super) const REMOVED_OVERHEAD_BYTES: usize = 3;
/// A guess for one `added` or `changed` entry, only used to size the first allocation.
const ENTRY_GUESS_BYTES: usize = 128;

/// Appends `{"type":"world:update","data":{…}}`, exactly as the serde derive of `ServerMessage`
/// would (adjacently tagged, fields in declaration order, nothing skipped).
pub(super) fn world_update(update: &WorldUpdate, out: &mut Vec<u8>) -> serde_json::Result<()> {
    out.reserve(estimated_len(update));
    out.extend_from_slice(br#"{"type":"world:update","data":{"tick":"#);
    out.extend_from_slice(itoa::Buffer::new().format(update.tick).as_bytes());

    out.extend_from_slice(br#","added":["#);
    update.added.write_entries(out);

    out.extend_from_slice(br#"],"moved":["#);
    // Each entry was encoded once for the whole tick (`moves::TickMoves`).
    update.moved.write_entries(out);

    out.extend_from_slice(br#"],"changed":["#);
    for (i, changed) in update.changed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, changed)?;
    }

    out.extend_from_slice(br#"],"removed":["#);
    update.removed.write_entries(out);
    out.push(b']');
    // The receiver's own run energy, only in the ticks it changed (as serde skips `None`).
    if let Some(stamina) = update.stamina {
        out.extend_from_slice(br#","stamina":"#);
        out.extend_from_slice(itoa::Buffer::new().format(stamina).as_bytes());
    }
    out.extend_from_slice(b"}}");
    Ok(())
}

/// `{"id":"…","x":…,"z":…}`, the fields in `Moved`'s declaration order.
pub(super) fn write_moved(moved: &Moved, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"id":"#);
    write_str(&moved.id, out);
    out.extend_from_slice(br#","x":"#);
    out.extend_from_slice(itoa::Buffer::new().format(moved.x).as_bytes());
    out.extend_from_slice(br#","z":"#);
    out.extend_from_slice(itoa::Buffer::new().format(moved.z).as_bytes());
    out.push(b'}');
}

/// An `added` entry as serde writes `Entity`: fields in declaration order, camelCase keys, the
/// optional ones only when present.
pub(super) fn write_entity(entity: &Entity, out: &mut Vec<u8>) {
    let Entity {
        id,
        kind,
        x,
        z,
        name,
        health,
        max_health,
        item_id,
        quantity,
        resource_type,
        depleted,
        type_id,
        worn,
        open,
        side,
        quest,
    } = entity;
    out.extend_from_slice(br#"{"id":"#);
    write_str(id, out);
    out.extend_from_slice(br#","kind":"#);
    out.extend_from_slice(match kind {
        EntityKind::Player => br#""player""#.as_slice(),
        EntityKind::Npc => br#""npc""#,
        EntityKind::Resource => br#""resource""#,
        EntityKind::GroundItem => br#""groundItem""#,
        EntityKind::Obstacle => br#""obstacle""#,
    });
    out.extend_from_slice(br#","x":"#);
    out.extend_from_slice(itoa::Buffer::new().format(*x).as_bytes());
    out.extend_from_slice(br#","z":"#);
    out.extend_from_slice(itoa::Buffer::new().format(*z).as_bytes());
    let text = |key: &[u8], value: &Option<String>, out: &mut Vec<u8>| {
        if let Some(value) = value {
            out.extend_from_slice(key);
            write_str(value, out);
        }
    };
    let number = |key: &[u8], value: &Option<i64>, out: &mut Vec<u8>| {
        if let Some(value) = value {
            out.extend_from_slice(key);
            out.extend_from_slice(itoa::Buffer::new().format(*value).as_bytes());
        }
    };
    text(br#","name":"#, name, out);
    number(br#","health":"#, health, out);
    number(br#","maxHealth":"#, max_health, out);
    text(br#","itemId":"#, item_id, out);
    number(br#","quantity":"#, quantity, out);
    text(br#","resourceType":"#, resource_type, out);
    if let Some(depleted) = depleted {
        out.extend_from_slice(br#","depleted":"#);
        out.extend_from_slice(if *depleted { b"true" } else { b"false" });
    }
    text(br#","typeId":"#, type_id, out);
    if let Some(worn) = worn {
        out.extend_from_slice(br#","worn":{"#);
        for (n, (slot, item)) in worn.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            write_str(slot, out);
            out.push(b':');
            write_str(item, out);
        }
        out.push(b'}');
    }
    if let Some(open) = open {
        out.extend_from_slice(br#","open":"#);
        out.extend_from_slice(if *open { b"true" } else { b"false" });
    }
    if let Some(side) = side {
        out.extend_from_slice(br#","side":"#);
        out.extend_from_slice(itoa::Buffer::new().format(*side).as_bytes());
    }
    if let Some(quest) = quest {
        out.extend_from_slice(br#","quest":""#);
        out.extend_from_slice(quest.as_str().as_bytes());
        out.push(b'"');
    }
    out.push(b'}');
}

/// A JSON string: copied as it is when no byte needs escaping, else escaped as serde_json does
/// (`\"`, `\\`, the five short escapes, `\u00XX` for other control characters), so the rare odd id
/// comes out exactly as serde writes it.
pub(super) fn write_str(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    if text.bytes().all(needs_no_escape) {
        out.extend_from_slice(text.as_bytes());
    } else {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for byte in text.bytes() {
            match byte {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0c => out.extend_from_slice(b"\\f"),
                0x00..=0x1f => {
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[usize::from(byte >> 4)]);
                    out.push(HEX[usize::from(byte & 0xf)]);
                }
                _ => out.push(byte),
            }
        }
    }
    out.push(b'"');
}

/// serde_json escapes control characters, `"` and `\`; everything else (UTF-8 included) is copied.
fn needs_no_escape(byte: u8) -> bool {
    byte >= 0x20 && byte != b'"' && byte != b'\\'
}

/// Roughly the encoded size, so a crowd's update is one allocation instead of a dozen doublings.
fn estimated_len(update: &WorldUpdate) -> usize {
    let moved = update.moved.encoded_len();
    let removed = update.removed.encoded_len();
    let entries = (update.added.len() + update.changed.len()) * ENTRY_GUESS_BYTES;
    // The envelope, the tick and the list keys.
    100 + moved + removed + entries
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::{Changed, Entity, EntityKind, ServerMessage};
    use super::*;

    fn encoded(update: &WorldUpdate) -> String {
        let message = ServerMessage::WorldUpdate(update.clone());
        let mut out = Vec::new();
        message.write_json(&mut out);
        String::from_utf8(out).expect("the encoder writes UTF-8")
    }

    fn assert_same_as_serde(update: &WorldUpdate) {
        let message = ServerMessage::WorldUpdate(update.clone());
        let serde = serde_json::to_string(&message).expect("serialisable");
        assert_eq!(encoded(update), serde, "for {update:?}");
    }

    /// An entity of each kind in turn, with every optional field present or absent by `i`.
    fn entity(id: &str, i: i32) -> Arc<Entity> {
        const KINDS: [EntityKind; 5] = [
            EntityKind::Player,
            EntityKind::GroundItem,
            EntityKind::Npc,
            EntityKind::Resource,
            EntityKind::Obstacle,
        ];
        Arc::new(Entity {
            id: id.to_owned(),
            kind: KINDS[i.rem_euclid(5) as usize],
            x: i,
            z: i.wrapping_neg(),
            name: (i % 3 == 0).then(|| format!("Name \"{i}\"")),
            health: (i % 2 == 0).then_some(i64::from(i)),
            max_health: (i % 4 == 0).then_some(i64::from(i) * 1_000_000_007),
            item_id: (i % 2 == 1).then(|| "bones".to_owned()),
            quantity: (i % 2 == 1).then_some(i64::MIN + i64::from(i.rem_euclid(1_000))),
            resource_type: (i % 7 < 3).then(|| format!("tree\\{id}")),
            depleted: (i % 5 < 2).then_some(i % 2 == 0),
            type_id: (i % 3 != 1).then(|| id.to_owned()),
            worn: (i % 4 == 0).then(|| {
                Arc::new(
                    [("weapon", "bronze_sword"), ("body", "leather \"body\"")]
                        .map(|(slot, item)| (slot.to_owned(), item.to_owned()))
                        .into(),
                )
            }),
            open: (i % 6 < 2).then_some(i % 2 == 1),
            side: (i % 6 == 1).then_some(1u8 << i.rem_euclid(4)),
            quest: (i % 8 < 4).then_some(
                [
                    super::super::QuestMarker::Available,
                    super::super::QuestMarker::Active,
                    super::super::QuestMarker::Ready,
                    super::super::QuestMarker::None,
                ][i.rem_euclid(4) as usize],
            ),
        })
    }

    fn moved(id: &str, x: i32, z: i32) -> Moved {
        Moved {
            id: id.into(),
            x,
            z,
        }
    }

    /// Ids that serde_json escapes in every way it can, and UTF-8 it copies.
    const ODD_IDS: [&str; 9] = [
        "",
        "a\"quote",
        "back\\slash",
        "new\nline\ttab\r\u{8}\u{c}",
        "\u{0}nul\u{1f}unit",
        "\u{7f}del",
        "é ünïcödé 漢字 🦀",
        "/slash",
        "\"",
    ];

    #[test]
    fn an_empty_update_matches_serde() {
        assert_same_as_serde(&WorldUpdate::default());
        assert_same_as_serde(&WorldUpdate {
            tick: 7,
            ..Default::default()
        });
        assert_same_as_serde(&WorldUpdate {
            tick: 8,
            stamina: Some(42),
            ..Default::default()
        });
    }

    #[test]
    fn each_list_alone_matches_serde() {
        let id = "0190f3a2-7c1e-7b3a-9d4e-5f6a7b8c9d0e";
        assert_same_as_serde(&WorldUpdate {
            tick: 1,
            added: vec![entity(id, 0), entity("item:1", 1)].into(),
            ..Default::default()
        });
        assert_same_as_serde(&WorldUpdate {
            tick: 2,
            moved: vec![moved(id, 3_200, 3_100), moved("npc:1", 0, 0)].into(),
            ..Default::default()
        });
        assert_same_as_serde(&WorldUpdate {
            tick: 3,
            changed: vec![
                Changed {
                    id: id.to_owned(),
                    health: Some(4),
                    ..Default::default()
                },
                Changed {
                    id: "res:2".to_owned(),
                    depleted: Some(true),
                    ..Default::default()
                },
                Changed {
                    id: "p:3".to_owned(),
                    worn: Some(Arc::new(super::super::Worn::from([(
                        "weapon".to_owned(),
                        "bronze_sword".to_owned(),
                    )]))),
                    ..Default::default()
                },
            ],
            ..Default::default()
        });
        assert_same_as_serde(&WorldUpdate {
            tick: 4,
            removed: vec![id.into(), "item:9".into()].into(),
            ..Default::default()
        });
    }

    #[test]
    fn every_kind_and_optional_field_of_an_added_entity_matches_serde() {
        for i in -60..60 {
            assert_same_as_serde(&WorldUpdate {
                tick: 4,
                added: vec![entity("0190f3a2-7c1e-7b3a-9d4e-5f6a7b8c9d0e", i)].into(),
                ..Default::default()
            });
        }
        for id in ODD_IDS {
            let mut odd = (*entity(id, 0)).clone();
            odd.name = Some(id.to_owned());
            odd.item_id = Some(id.to_owned());
            odd.resource_type = Some(id.to_owned());
            odd.health = Some(i64::MAX);
            odd.max_health = Some(i64::MIN);
            odd.quantity = Some(0);
            odd.open = Some(true);
            odd.side = Some(8);
            odd.quest = Some(super::super::QuestMarker::Ready);
            assert_same_as_serde(&WorldUpdate {
                tick: 5,
                added: vec![Arc::new(odd), entity(id, 1)].into(),
                ..Default::default()
            });
        }
    }

    #[test]
    fn ids_that_need_escaping_match_serde() {
        for id in ODD_IDS {
            assert_same_as_serde(&WorldUpdate {
                tick: 9,
                added: vec![entity(id, 3)].into(),
                moved: vec![moved(id, 1, 2), moved("plain", 3, 4)].into(),
                changed: vec![Changed {
                    id: id.to_owned(),
                    name: Some(id.to_owned()),
                    ..Default::default()
                }],
                removed: vec![id.into(), "plain".into()].into(),
                stamina: Some(0),
            });
        }
    }

    #[test]
    fn extreme_numbers_match_serde() {
        for tick in [0, 1, 9, 10, u64::from(u32::MAX) + 1, u64::MAX] {
            assert_same_as_serde(&WorldUpdate {
                tick,
                moved: vec![
                    moved("a", -1, -3_100),
                    moved("b", i32::MIN, i32::MAX),
                    moved("c", 0, 0),
                ]
                .into(),
                ..Default::default()
            });
        }
    }

    /// A small deterministic generator (xorshift): the crate has no proptest, and a fixed seed
    /// keeps a failure reproducible.
    struct Cases(u64);

    impl Cases {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> usize {
            (self.next() % n) as usize
        }

        fn id(&mut self) -> String {
            // Mostly uuid-like ids, sometimes one with characters that need escaping.
            if self.below(4) == 0 {
                let mut id = String::new();
                for _ in 0..self.below(6) {
                    id.push_str(ODD_IDS[self.below(ODD_IDS.len() as u64)]);
                    id.push(char::from(b'a' + self.below(26) as u8));
                }
                id
            } else {
                format!("0190f3a2-7c1e-7b3a-9d4e-{:012x}", self.next() >> 16)
            }
        }

        fn coordinate(&mut self) -> i32 {
            match self.below(3) {
                0 => self.next() as i32,
                1 => self.below(7_000) as i32 - 500,
                _ => -(self.below(100) as i32),
            }
        }
    }

    #[test]
    fn generated_updates_match_serde() {
        let mut cases = Cases(0x9e37_79b9_7f4a_7c15);
        for _ in 0..500 {
            let tick = if cases.below(2) == 0 {
                cases.next()
            } else {
                cases.below(1_000_000) as u64
            };
            let added = (0..cases.below(4))
                .map(|i| {
                    let id = cases.id();
                    entity(&id, cases.coordinate().wrapping_add(i as i32))
                })
                .collect();
            let moved = (0..cases.below(30))
                .map(|_| Moved {
                    id: cases.id().into(),
                    x: cases.coordinate(),
                    z: cases.coordinate(),
                })
                .collect::<Vec<_>>();
            let changed = (0..cases.below(4))
                .map(|_| Changed {
                    id: cases.id(),
                    health: (cases.below(2) == 0).then(|| cases.next() as i64),
                    quantity: (cases.below(2) == 0).then(|| cases.coordinate().into()),
                    ..Default::default()
                })
                .collect();
            let removed = (0..cases.below(10)).map(|_| cases.id().into()).collect();
            assert_same_as_serde(&WorldUpdate {
                tick,
                added,
                moved: moved.into(),
                changed,
                removed,
                stamina: (tick % 2 == 0).then_some((tick % 101) as u32),
            });
        }
    }

    #[test]
    fn appends_after_what_the_buffer_already_holds() {
        let message = ServerMessage::WorldUpdate(WorldUpdate {
            tick: 1,
            moved: vec![moved("a", 1, 2)].into(),
            ..Default::default()
        });
        let mut out = b"prefix".to_vec();
        message.write_json(&mut out);
        assert_eq!(
            out,
            [b"prefix".as_slice(), message.to_json().as_bytes()].concat()
        );
    }
}
