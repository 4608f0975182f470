//! Who hears this tick's local lines: each line is heard by its speaker and by every player whose
//! client has been shown the speaker (the views of the tick before, which is what the clients
//! know: whoever sees a head sees the speech above it), minus those ignoring the speaker.
//!
//! The lines are gathered in the input phase ([`World::open_local_chat`] places their
//! [`Event::LocalChat`] among the tick's events) and their listeners are found in the view phase,
//! on the view threads, from each listener's shown list just before its view is refreshed
//! ([`Hearing::heard_by`]); [`World::close_local_chat`] fills the event's `heard` in join order.
//! Why there: asking each listener's view once is a walk over ~500 shown slots per listener, which
//! on the world thread alone took ~2.5 ms of a 2,000-player chatting crowd's tick (issue 33), while
//! the view phase already has every listener's shown list in hand on both cores. Nothing between
//! the input and view phases changes a shown list, the player list or an ignore list, and retired
//! slots are released only after the views, so the answer is the one the input phase would give.

use std::collections::HashSet;

use crate::chat::LocalLine;
use crate::entities::{slot_index, slot_of, Handle};
use crate::events::{Event, Heard};
use crate::world::World;

/// This tick's local lines, indexed for their listeners.
#[derive(Debug)]
pub(crate) struct Hearing {
    /// Where the tick's [`Event::LocalChat`] sits among the tick's events.
    event: usize,
    /// `(speaker, line)` sorted: a speaker's lines are together, in the order spoken.
    by_speaker: Vec<(Handle, u32)>,
    /// Entity slot → 1 + the speaker's first entry in `by_speaker` (0: silent this tick), so a
    /// listener finds a speaker's lines without searching. The world's table, lent for the tick.
    speaking: Vec<u32>,
    /// One bit per slot that speaks this tick: a listener's walk over its shown slots tests a bit
    /// in a table that stays in the first-level cache, and only the few speakers take the lookup.
    speaks: Vec<u64>,
    /// Each line's speaker's lower-cased name, for the listeners' ignore lists.
    sender_keys: Vec<String>,
}

/// A view thread's buffer for [`Hearing::heard_by`]: one bit per line of the tick, so setting
/// bits and reading them back in order gives the order spoken without sorting.
#[derive(Debug, Default)]
pub(crate) struct HearScratch {
    heard: Vec<u64>,
}

impl Hearing {
    /// Indexes `lines` (those of this tick, in the order spoken) whose event is `event`, in the
    /// world's `speaking` table (all zero, returned by [`Hearing::into_table`]).
    fn new(lines: &[LocalLine], mut speaking: Vec<u32>, event: usize) -> Hearing {
        let mut by_speaker: Vec<(Handle, u32)> = lines
            .iter()
            .enumerate()
            .map(|(i, line)| (line.speaker, i as u32))
            .collect();
        by_speaker.sort_unstable();
        for (at, &(speaker, _)) in by_speaker.iter().enumerate().rev() {
            let slot = slot_index(speaker);
            if speaking.len() <= slot {
                speaking.resize(slot + 1, 0);
            }
            speaking[slot] = at as u32 + 1;
        }
        let mut speaks = vec![0u64; speaking.len().div_ceil(64)];
        for &(speaker, _) in &by_speaker {
            let slot = slot_index(speaker);
            speaks[slot / 64] |= 1 << (slot % 64);
        }
        Hearing {
            event,
            by_speaker,
            speaking,
            speaks,
            sender_keys: lines.iter().map(|line| line.sender_key.clone()).collect(),
        }
    }

    fn speaks(&self, slot: u32) -> bool {
        let slot = slot as usize;
        self.speaks
            .get(slot / 64)
            .is_some_and(|bits| bits & (1 << (slot % 64)) != 0)
    }

    fn lines_of(&self, slot: u32) -> &[(Handle, u32)] {
        let first = match self.speaking.get(slot as usize) {
            Some(&n) if n > 0 => n as usize - 1,
            _ => return &[],
        };
        let count = self.by_speaker[first..]
            .iter()
            .take_while(|&&(h, _)| slot_of(h) == slot)
            .count();
        &self.by_speaker[first..first + count]
    }

    /// The lines (indices in the event's `lines`, in the order spoken) heard by the player `me`
    /// whose client has been shown `shown` (sorted slots, `view::Viewer::shown`) and who ignores
    /// `ignored`; `None` when it hears none.
    pub fn heard_by(
        &self,
        me: Handle,
        shown: &[u32],
        ignored: &HashSet<String>,
        scratch: &mut HearScratch,
    ) -> Option<Vec<u32>> {
        let bits = &mut scratch.heard;
        bits.clear();
        bits.resize(self.sender_keys.len().div_ceil(64), 0);
        let mut count = 0;
        let mut hear = |slot: u32, bits: &mut Vec<u64>| {
            for &(speaker, i) in self.lines_of(slot) {
                let ignoring = speaker != me
                    && !ignored.is_empty()
                    && ignored.contains(&self.sender_keys[i as usize]);
                let bit = 1 << (i % 64);
                let word = &mut bits[i as usize / 64];
                if !ignoring && *word & bit == 0 {
                    *word |= bit;
                    count += 1;
                }
            }
        };
        for &slot in shown {
            if self.speaks(slot) {
                hear(slot, bits);
            }
        }
        // A player whose view starts over this tick has been shown nobody, itself included, but
        // hears itself.
        let own = slot_of(me);
        if self.speaks(own) && shown.binary_search(&own).is_err() {
            hear(own, bits);
        }
        if count == 0 {
            return None;
        }
        let mut lines = Vec::with_capacity(count);
        for (word, bits) in bits.iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                lines.push(word as u32 * 64 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        Some(lines)
    }

    /// The world's `speaking` table, all zero again.
    fn into_table(self) -> Vec<u32> {
        let mut speaking = self.speaking;
        for &(speaker, _) in &self.by_speaker {
            speaking[slot_index(speaker)] = 0;
        }
        speaking
    }
}

impl World {
    /// Places this tick's local lines in the events as one [`Event::LocalChat`], its listeners
    /// to be found in the view phase ([`World::close_local_chat`]). Called once every command of
    /// the tick is in.
    pub(crate) fn open_local_chat(&mut self, events: &mut Vec<Event>) {
        if self.local_lines.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.local_lines);
        let table = std::mem::take(&mut self.speaking_by_slot);
        self.hearing = Some(Hearing::new(&lines, table, events.len()));
        events.push(Event::LocalChat {
            lines: lines.into_iter().map(|line| line.message).collect(),
            heard: Vec::new(),
        });
    }

    /// Fills this tick's [`Event::LocalChat`] with its listeners, in join order: the players at
    /// the indices `due` (sorted) heard `heard_due` (found by the view threads before their views
    /// were refreshed); everyone else is asked here, their shown lists untouched by the views.
    pub(crate) fn close_local_chat(
        &mut self,
        due: &[usize],
        heard_due: Vec<Option<Vec<u32>>>,
        events: &mut [Event],
    ) {
        let Some(hearing) = self.hearing.take() else {
            return;
        };
        // The view threads asked every due player (the views below have refreshed their lists).
        debug_assert_eq!(heard_due.len(), due.len());
        let mut scratch = HearScratch::default();
        let mut of_due = due.iter().copied().zip(heard_due).peekable();
        let mut heard = Vec::new();
        for (i, player) in self.players.iter().enumerate() {
            let lines = match of_due.next_if(|&(j, _)| j == i) {
                Some((_, lines)) => lines,
                None => hearing.heard_by(
                    player.handle,
                    player.viewer.shown(),
                    &player.ignored,
                    &mut scratch,
                ),
            };
            if let Some(lines) = lines {
                heard.push(Heard {
                    to: player.shared_id.clone(),
                    lines,
                });
            }
        }
        if let Some(Event::LocalChat { heard: to, .. }) = events.get_mut(hearing.event) {
            *to = heard;
        }
        self.speaking_by_slot = hearing.into_table();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use wayfarer_content::{Content, ManifestSet};
    use wayfarer_protocol::ws::{ChatChannel, TilePos};

    use crate::commands::{Command, Joining};
    use crate::entities::slot_of;
    use crate::events::{Event, Heard};
    use crate::view::ViewWorkers;
    use crate::world::World;

    fn say(id: &str, text: String) -> Command {
        Command::Chat {
            id: id.to_owned(),
            channel: ChatChannel::Local,
            text,
            to: None,
            reference: None,
        }
    }

    /// Who should hear the lines of a tick, asked the slow way: every player (in join order)
    /// whose shown list before the tick holds the speaker's slot, and the speaker itself, but for
    /// those ignoring the speaker.
    fn expected(
        world: &World,
        shown_before: &HashMap<String, Vec<u32>>,
        speakers: &[String],
    ) -> Vec<Heard> {
        let mut heard = Vec::new();
        for player in &world.players {
            let shown = &shown_before[&player.id];
            let lines: Vec<u32> = speakers
                .iter()
                .enumerate()
                .filter(|(_, speaker)| {
                    let index = world.player_index[speaker.as_str()];
                    let speaker = &world.players[index];
                    let sees = shown.binary_search(&slot_of(speaker.handle)).is_ok();
                    let own = speaker.handle == player.handle;
                    own || (sees && !player.ignored.contains(&speaker.name_key))
                })
                .map(|(i, _)| i as u32)
                .collect();
            if !lines.is_empty() {
                heard.push(Heard {
                    to: player.shared_id.clone(),
                    lines,
                });
            }
        }
        heard
    }

    /// An open plain and nothing else: no NPC walks near the still group.
    fn open_plain() -> Arc<Content> {
        let mut set = ManifestSet::new();
        set.insert(
            "world-areas.json",
            serde_json::json!({"starterTowns": {"plain": {
                "id": "plain", "name": "Plain",
                "bounds": {"minX": -200, "maxX": 200, "minZ": -200, "maxZ": 200},
                "spawnPoint": {"x": 0, "y": 0, "z": 0}
            }}})
            .to_string(),
        );
        match Content::from_files(&set) {
            Ok((content, _)) => Arc::new(content),
            Err(report) => panic!("test content is invalid:\n{report}"),
        }
    }

    #[test]
    fn the_views_hear_what_the_shown_lists_before_the_tick_say() {
        // A walking crowd around the spawn (due views, heard on two view threads) and a still
        // group away from it (quiet views, heard on the world thread), both talking, some of
        // them ignoring some speakers; every tick's listeners checked against the shown lists
        // taken before the tick.
        let mut world = World::new(open_plain(), 11);
        world.view_workers = ViewWorkers::with_threads(2);
        let spawn = world.spawn_tile();
        let crowd = 400;
        let still = 40;
        let id = |i: usize| format!("p{i}");
        let joins = (0..crowd + still)
            .map(|i| {
                let tile = if i < crowd {
                    TilePos {
                        x: spawn.x + (i % 20) as i32 - 10,
                        z: spawn.z + (i / 20) as i32 - 10,
                    }
                } else {
                    let j = i - crowd;
                    TilePos {
                        x: spawn.x + 150 + (j % 8) as i32,
                        z: spawn.z + (j / 8) as i32,
                    }
                };
                Command::Join(Box::new(Joining::new(id(i), format!("P{i}"), tile)))
            })
            .chain((0..crowd + still).step_by(9).map(|i| Command::SetIgnored {
                id: id(i),
                ignored: vec![format!("P{}", (i + 1) % (crowd + still)), "P3".to_owned()],
            }))
            .collect();
        world.tick(joins);
        world.tick(Vec::new());
        let (mut due_heard, mut quiet_heard) = (0, 0);
        for round in 0..8usize {
            let shown_before: HashMap<String, Vec<u32>> = world
                .players
                .iter()
                .map(|p| (p.id.clone(), p.viewer.shown().to_vec()))
                .collect();
            let mut speakers = Vec::new();
            let mut commands = Vec::new();
            for i in 0..crowd {
                if (i + round) % 3 == 0 {
                    commands.push(Command::Move {
                        id: id(i),
                        x: spawn.x + ((i * 7 + round) % 24) as i32 - 12,
                        z: spawn.z + ((i * 11 + round) % 24) as i32 - 12,
                        run: false,
                        reference: None,
                    });
                }
            }
            for i in (0..crowd + still).filter(|i| (i + round) % 5 == 0) {
                speakers.push(id(i));
                commands.push(say(&id(i), format!("round {round} from {i}")));
            }
            let events = world.tick(commands);
            let chats: Vec<&Event> = events
                .iter()
                .filter(|e| matches!(e, Event::LocalChat { .. }))
                .collect();
            let [Event::LocalChat { lines, heard }] = chats.as_slice() else {
                panic!("one LocalChat a tick with lines, got {}", chats.len());
            };
            let said: Vec<&str> = lines.iter().map(|l| l.from_id.as_str()).collect();
            assert_eq!(
                said, speakers,
                "round {round}: the lines in the order spoken"
            );
            assert_eq!(
                *heard,
                expected(&world, &shown_before, &speakers),
                "round {round}"
            );
            let due: std::collections::HashSet<usize> = world.views_due.iter().copied().collect();
            for h in heard {
                let index = world.player_index[&*h.to];
                if due.contains(&index) {
                    due_heard += 1;
                } else {
                    quiet_heard += 1;
                }
            }
        }
        assert!(due_heard > 1000, "the view threads heard {due_heard}");
        assert!(quiet_heard > 50, "the world thread heard {quiet_heard}");
    }
}
