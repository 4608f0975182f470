//! A character's skills as stored: a fixed slot for every skill of the protocol, not a map. Every
//! online player's record holds one, and a 17-entry `BTreeMap` took about 780 bytes of heap in
//! three nodes where this takes 280 inline (issue 33: memory per idle player). The API is the
//! map's that callers used (`get`, `insert`, `[&skill]`, iteration in skill order), so the record's
//! readers did not change.

use std::fmt;
use std::ops::Index;

use wayfarer_protocol::Skill;

use super::characters::SkillLevel;

const SKILLS: usize = Skill::ALL.len();

// The presence bits are a u32.
const _: () = assert!(SKILLS <= 32);

/// Level and XP by skill; a skill may be absent (a record built by hand before its levels are set).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct SkillTable {
    levels: [SkillLevel; SKILLS],
    /// Bit `i` set: `levels[i]` holds a value.
    present: u32,
}

/// Where a skill's slot is: its place in [`Skill::ALL`], which is declaration (and so `Ord`) order.
fn slot(skill: Skill) -> usize {
    skill as usize
}

impl SkillTable {
    /// No skills.
    pub fn new() -> SkillTable {
        SkillTable::default()
    }

    /// The skill's level and XP, if set.
    pub fn get(&self, skill: &Skill) -> Option<&SkillLevel> {
        let i = slot(*skill);
        (self.present & (1 << i) != 0).then(|| &self.levels[i])
    }

    /// The skill's level and XP to change, if set.
    pub fn get_mut(&mut self, skill: &Skill) -> Option<&mut SkillLevel> {
        let i = slot(*skill);
        (self.present & (1 << i) != 0).then(|| &mut self.levels[i])
    }

    /// Sets the skill's level and XP, returning what it held.
    pub fn insert(&mut self, skill: Skill, level: SkillLevel) -> Option<SkillLevel> {
        let before = self.get(&skill).copied();
        let i = slot(skill);
        self.levels[i] = level;
        self.present |= 1 << i;
        before
    }

    /// Whether the skill is set.
    pub fn contains_key(&self, skill: &Skill) -> bool {
        self.get(skill).is_some()
    }

    /// How many skills are set.
    pub fn len(&self) -> usize {
        self.present.count_ones() as usize
    }

    /// Whether no skill is set.
    pub fn is_empty(&self) -> bool {
        self.present == 0
    }

    /// The set skills in skill order, as a map's iteration gives them.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Skill, &SkillLevel)> + '_ {
        Skill::ALL
            .iter()
            .zip(self.levels.iter())
            .enumerate()
            .filter(|(i, _)| self.present & (1 << i) != 0)
            .map(|(_, entry)| entry)
    }

    /// The set levels in skill order.
    pub fn values(&self) -> impl Iterator<Item = &SkillLevel> + '_ {
        self.iter().map(|(_, level)| level)
    }
}

impl Index<&Skill> for SkillTable {
    type Output = SkillLevel;

    /// Panics when the skill is not set, as a map's index does.
    fn index(&self, skill: &Skill) -> &SkillLevel {
        self.get(skill)
            .unwrap_or_else(|| panic!("skill {skill:?} not in the table"))
    }
}

impl<'a> IntoIterator for &'a SkillTable {
    type Item = (&'static Skill, &'a SkillLevel);
    type IntoIter = Box<dyn Iterator<Item = Self::Item> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl FromIterator<(Skill, SkillLevel)> for SkillTable {
    fn from_iter<I: IntoIterator<Item = (Skill, SkillLevel)>>(entries: I) -> SkillTable {
        let mut table = SkillTable::new();
        for (skill, level) in entries {
            table.insert(skill, level);
        }
        table
    }
}

impl fmt::Debug for SkillTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn every_skill_has_its_own_slot_in_skill_order() {
        for (i, skill) in Skill::ALL.iter().enumerate() {
            assert_eq!(slot(*skill), i, "{skill:?}");
        }
        assert!(Skill::ALL.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn holds_every_skill_and_the_extremes_as_a_map_does() {
        let mut table = SkillTable::new();
        let mut map = BTreeMap::new();
        assert!(table.is_empty());
        for (i, skill) in Skill::ALL.into_iter().enumerate().rev() {
            let level = SkillLevel {
                level: i as i64 + 1,
                xp: if i % 2 == 0 {
                    i64::MAX
                } else {
                    i64::MIN + i as i64
                },
            };
            assert_eq!(table.insert(skill, level), map.insert(skill, level));
            assert_eq!(table.len(), map.len());
        }
        let again = SkillLevel { level: 99, xp: 0 };
        assert_eq!(
            table.insert(Skill::Attack, again),
            map.insert(Skill::Attack, again)
        );
        let from_table: Vec<_> = table.iter().map(|(s, l)| (*s, *l)).collect();
        let from_map: Vec<_> = map.iter().map(|(s, l)| (*s, *l)).collect();
        assert_eq!(from_table, from_map);
        for skill in Skill::ALL {
            assert_eq!(table.get(&skill), map.get(&skill));
            assert_eq!(table[&skill], map[&skill]);
        }
        assert_eq!(format!("{table:?}"), format!("{map:?}"));
        assert_eq!(table, map.into_iter().collect::<SkillTable>());
    }

    #[test]
    fn an_unset_skill_is_absent() {
        let table: SkillTable = [(Skill::Mining, SkillLevel { level: 2, xp: 97 })]
            .into_iter()
            .collect();
        assert_eq!(table.len(), 1);
        assert!(table.contains_key(&Skill::Mining));
        assert_eq!(table.get(&Skill::Attack), None);
        assert_eq!(table.iter().count(), 1);
    }

    #[test]
    fn smaller_than_the_map_it_replaces() {
        let size = std::mem::size_of::<SkillTable>();
        assert!(size <= 280, "{size} bytes");
    }
}
