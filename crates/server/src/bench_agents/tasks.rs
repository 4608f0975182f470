//! The bench's tasks (the bundled `agent-bench.json`): a start (template, items, bank, place), the
//! goal the agent is given, a check of the server's own state, and a tick limit. Each check reads
//! what the world holds ([`Observed`]: the live record and the kills and deaths of a manual world)
//! and says how far along the task is.

use serde::Deserialize;
use serde_json::Value;
use wayfarer_protocol::Skill;
use wayfarer_store::CharacterSnapshot;

use wayfarer_host::world_thread::Tally;

/// The task manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub version: u32,
    /// The map's layout seed: fixed, so the places the tasks name stay where they are; the seed
    /// of a run rolls the dice.
    pub layout_seed: u64,
    pub tasks: Vec<Task>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    pub description: String,
    /// How many agents play it (1 unless said).
    #[serde(default = "one")]
    pub agents: u32,
    pub start: Start,
    /// A second player the bench drives (a duel's opponent), not scored.
    #[serde(default)]
    pub opponent: Option<Opponent>,
    /// The goal each agent is given (CONTRACT.md section 7's shape).
    pub agent_goal: Value,
    pub check: Check,
    pub tick_limit: u64,
    /// What the map allows at best, worked out, where the target is near it (read by people).
    #[serde(default)]
    pub ceiling: Option<String>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Start {
    pub template: Option<String>,
    #[serde(default)]
    pub items: Vec<Stack>,
    #[serde(default)]
    pub bank: Vec<Stack>,
    /// `[x, z]`; `null`: the spawn.
    pub place: Option<[i32; 2]>,
    /// The purse at the start; `None`: as created.
    pub coins: Option<i64>,
    /// Items taken out of the created character's inventory.
    #[serde(default)]
    pub without: Vec<String>,
}

/// The bench's scripted opponent: a character of this name, template and place, driven by the
/// bench alone (`bench_agents::opponent`): it accepts a challenge and every duel screen, stakes
/// nothing, and fights back only as a player on auto-retaliate does.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Opponent {
    pub name: String,
    pub template: Option<String>,
    /// `[x, z]`.
    pub place: [i32; 2],
    /// Items taken out of the created character's inventory (its food, so it cannot eat).
    #[serde(default)]
    pub without: Vec<String>,
    /// Whether it accepts a challenge (`false`: it declines every one).
    #[serde(default = "yes")]
    pub accepts: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stack {
    pub item_id: String,
    pub quantity: i64,
}

/// What success is, read from the server's state.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Check {
    /// A skill at `level` (progress: XP towards the level's XP).
    Level { skill: Skill, level: u8 },
    /// `quantity` of an item in the bank.
    #[serde(rename_all = "camelCase")]
    Bank { item_id: String, quantity: i64 },
    /// `quantity` of an item in the inventory.
    #[serde(rename_all = "camelCase")]
    Hold { item_id: String, quantity: i64 },
    /// `count` kills of an NPC; `deathless`: a death fails the task.
    #[serde(rename_all = "camelCase")]
    Kills {
        npc_id: String,
        count: u64,
        #[serde(default)]
        deathless: bool,
    },
    /// At least `coins` in the purse.
    Coins { coins: i64 },
    /// A quest completed.
    #[serde(rename_all = "camelCase")]
    Quest { quest_id: String },
    /// The agents' XP in a skill, summed.
    TotalXp { skill: Skill, xp: i64 },
    /// A duel won (the `duels` audit of the store: its winner is the agent); a duel fought and
    /// lost is half way.
    DuelWon,
    /// Combat level `level` (progress: levels gained from a fresh character's 3).
    CombatLevel { level: i64 },
    /// The owner's stop, command and resume are followed: no XP in the skill while stopped, the
    /// command run, XP again after the resume.
    #[serde(rename_all = "camelCase")]
    Control {
        stop_at: u64,
        command_at: u64,
        command: String,
        resume_at: u64,
        skill: Skill,
    },
}

/// What the bench read of one agent's character.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    pub snapshot: Option<CharacterSnapshot>,
    pub tally: Tally,
    /// Duels the character won and lost, as the store's audit records them.
    pub duels: Duels,
}

/// Duels won and lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Duels {
    pub won: u64,
    pub lost: u64,
}

impl Observed {
    fn xp(&self, skill: Skill) -> i64 {
        self.snapshot
            .as_ref()
            .and_then(|s| s.character.skills.get(&skill))
            .map_or(0, |s| s.xp)
    }

    fn held(&self, item: &str) -> i64 {
        self.snapshot.as_ref().map_or(0, |s| {
            s.inventory
                .iter()
                .filter(|i| i.item_id == item)
                .map(|i| i.quantity)
                .sum()
        })
    }

    fn banked(&self, item: &str) -> i64 {
        self.snapshot.as_ref().map_or(0, |s| {
            s.bank
                .iter()
                .filter(|i| i.item_id == item)
                .map(|i| i.quantity)
                .sum()
        })
    }

    fn coins(&self) -> i64 {
        // Coins are an item held (the record's `coins` is derived from it).
        self.held("coins")
    }
}

/// What the control task's check remembers between two looks.
#[derive(Debug, Clone, Default)]
pub struct ControlWatch {
    pub xp_at_stop: Option<i64>,
    pub xp_at_resume: Option<i64>,
    pub moved_while_stopped: bool,
    pub command_ran: bool,
}

/// How far along the task is: 0..=1, and whether it failed for good (a death in a deathless task).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    pub progress: f64,
    pub failed: bool,
}

impl Verdict {
    pub fn success(self) -> bool {
        !self.failed && self.progress >= 1.0
    }

    /// What the run earns towards the score under `check` (`score`'s doc): its progress for a
    /// threshold, 1 or 0 otherwise, 0 when it failed for good.
    pub fn credit(self, check: &Check) -> f64 {
        if self.failed {
            0.0
        } else if check.is_threshold() {
            self.progress.clamp(0.0, 1.0)
        } else {
            f64::from(u8::from(self.success()))
        }
    }
}

/// A fresh character's combat level.
const FRESH_COMBAT_LEVEL: i64 = 3;

fn ratio(have: f64, want: f64) -> f64 {
    if want <= 0.0 {
        1.0
    } else {
        (have / want).clamp(0.0, 1.0)
    }
}

impl Check {
    /// Whether the check is a line on a quantity (a level, XP, items, kills, coins), so that its
    /// progress is credit; the others are done or not.
    pub fn is_threshold(&self) -> bool {
        !matches!(
            self,
            Check::Quest { .. } | Check::DuelWon | Check::Control { .. }
        )
    }

    /// The verdict on `observed` (one entry per agent) at `tick`.
    pub fn judge(&self, observed: &[Observed], tick: u64, watch: &ControlWatch) -> Verdict {
        let first = observed.first().cloned().unwrap_or_default();
        let deaths: u64 = observed.iter().map(|o| o.tally.deaths).sum();
        let progress = match self {
            Check::Level { skill, level } => {
                let needed = wayfarer_sim::skills::xp_for_level(*level);
                ratio(first.xp(*skill) as f64, f64::from(needed))
            }
            Check::Bank { item_id, quantity } => {
                ratio(first.banked(item_id) as f64, *quantity as f64)
            }
            Check::Hold { item_id, quantity } => {
                ratio(first.held(item_id) as f64, *quantity as f64)
            }
            Check::Kills { npc_id, count, .. } => ratio(
                first.tally.kills.get(npc_id).copied().unwrap_or(0) as f64,
                *count as f64,
            ),
            Check::Coins { coins } => ratio(first.coins() as f64, *coins as f64),
            Check::CombatLevel { level } => {
                let now = first
                    .snapshot
                    .as_ref()
                    .map_or(FRESH_COMBAT_LEVEL, |s| s.character.combat_level);
                ratio(
                    (now - FRESH_COMBAT_LEVEL) as f64,
                    (level - FRESH_COMBAT_LEVEL) as f64,
                )
            }
            Check::Quest { quest_id } => {
                let quest = first
                    .snapshot
                    .as_ref()
                    .and_then(|s| s.quests.iter().find(|q| &q.quest_id == quest_id));
                match quest.map(|q| q.status.as_str()) {
                    Some("completed") => 1.0,
                    Some("ready_to_complete") => 0.75,
                    Some(_) => 0.25,
                    None => 0.0,
                }
            }
            Check::TotalXp { skill, xp } => {
                let total: i64 = observed.iter().map(|o| o.xp(*skill)).sum();
                ratio(total as f64, *xp as f64)
            }
            Check::DuelWon => {
                if first.duels.won > 0 {
                    1.0
                } else if first.duels.lost > 0 {
                    0.5
                } else {
                    0.0
                }
            }
            Check::Control {
                resume_at, skill, ..
            } => {
                // A third for each part: still while stopped, the command, work after resume.
                let mut parts = 0.0;
                if watch.xp_at_stop.is_some() && !watch.moved_while_stopped {
                    parts += 1.0;
                }
                if watch.command_ran {
                    parts += 1.0;
                }
                if tick > *resume_at && watch.xp_at_resume.is_some_and(|at| first.xp(*skill) > at) {
                    parts += 1.0;
                }
                parts / 3.0
            }
        };
        let failed = matches!(
            self,
            Check::Kills {
                deathless: true,
                ..
            }
        ) && deaths > 0;
        Verdict { progress, failed }
    }
}

/// The bundled manifest.
pub fn bundled() -> Manifest {
    serde_json::from_str(wayfarer_content::AGENT_BENCH).expect("the bundled bench manifest reads")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use wayfarer_store::{Character, SkillLevel, StoredBankItem, StoredSlot};

    use super::*;

    fn character() -> Character {
        Character {
            id: "c1".into(),
            account_id: "a1".into(),
            name: "Bench".into(),
            combat_level: 3,
            skills: wayfarer_store::SkillTable::new(),
            health: 10,
            max_health: 10,
            coins: 0,
            position: [0.0, 10.0, 0.0],
            combat_style: "accurate".into(),
            prayer_points: None,
            home_teleport_ready_at_ms: None,
            auto_retaliate: true,
            created_at_ms: 0,
            last_login_at_ms: None,
        }
    }

    fn observed(edit: impl FnOnce(&mut CharacterSnapshot, &mut Tally)) -> Observed {
        let mut snapshot = CharacterSnapshot {
            character: character(),
            inventory: Vec::new(),
            equipment: Vec::new(),
            bank: Vec::new(),
            quests: Vec::new(),
            xp_reached_at: BTreeMap::new(),
        };
        let mut tally = Tally::default();
        edit(&mut snapshot, &mut tally);
        Observed {
            snapshot: Some(snapshot),
            tally,
            duels: Duels::default(),
        }
    }

    fn judge(check: &Check, o: Observed) -> Verdict {
        check.judge(&[o], 10, &ControlWatch::default())
    }

    #[test]
    fn the_bundled_manifest_reads_and_names_only_what_content_has() {
        let manifest = bundled();
        let content = wayfarer_content::load_bundled();
        assert!(manifest.tasks.len() >= 20);
        // At least six tasks of several stages whose recipe the goal does not hand in.
        let untold = manifest
            .tasks
            .iter()
            .filter(|t| t.description.starts_with("Multi-stage, no recipe given"))
            .count();
        assert!(untold >= 6, "{untold}");
        let mut ids = std::collections::HashSet::new();
        for task in &manifest.tasks {
            assert!(ids.insert(&task.id), "{} twice", task.id);
            let items = task.start.items.iter().chain(&task.start.bank);
            for stack in items {
                assert!(
                    content.items.contains_key(stack.item_id.as_str()),
                    "{}: {}",
                    task.id,
                    stack.item_id
                );
            }
            let opponent = task.opponent.as_ref().and_then(|o| o.template.as_ref());
            for t in task.start.template.iter().chain(opponent) {
                assert!(
                    content.templates.contains_key(t.as_str()),
                    "{}: template {t}",
                    task.id
                );
            }
            crate::bench_agents::goal_of(&task.agent_goal)
                .unwrap_or_else(|e| panic!("{}: {e}", task.id));
        }
    }

    #[test]
    fn each_check_passes_a_made_success_and_fails_a_made_failure() {
        let slot = |item: &str, quantity| StoredSlot {
            slot: 0,
            item_id: item.into(),
            quantity,
        };
        let level = Check::Level {
            skill: Skill::Woodcutting,
            level: 10,
        };
        let wc = |xp| {
            observed(move |s, _| {
                s.character
                    .skills
                    .insert(Skill::Woodcutting, SkillLevel { level: 1, xp });
            })
        };
        assert!(judge(&level, wc(1_154)).success());
        assert!(!judge(&level, wc(1_153)).success());
        assert_eq!(judge(&level, wc(0)).progress, 0.0);

        let bank = Check::Bank {
            item_id: "logs".into(),
            quantity: 50,
        };
        let banked = |q| {
            observed(move |s, _| {
                s.bank.push(StoredBankItem {
                    item_id: "logs".into(),
                    quantity: q,
                })
            })
        };
        assert!(judge(&bank, banked(50)).success());
        assert!(!judge(&bank, banked(49)).success());

        let hold = Check::Hold {
            item_id: "shrimp".into(),
            quantity: 10,
        };
        assert!(judge(&hold, observed(|s, _| s.inventory.push(slot("shrimp", 10)))).success());
        assert!(!judge(
            &hold,
            observed(|s, _| s.inventory.push(slot("raw_shrimp", 10)))
        )
        .success());

        let kills = Check::Kills {
            npc_id: "chicken".into(),
            count: 10,
            deathless: true,
        };
        let killed = |n, deaths| {
            observed(move |_, t| {
                t.kills.insert("chicken".into(), n);
                t.deaths = deaths;
            })
        };
        assert!(judge(&kills, killed(10, 0)).success());
        assert!(!judge(&kills, killed(9, 0)).success());
        let died = judge(&kills, killed(10, 1));
        assert!(died.failed && !died.success());
        // A threshold earns its progress, a failure nothing.
        assert_eq!(judge(&kills, killed(5, 0)).credit(&kills), 0.5);
        assert_eq!(died.credit(&kills), 0.0);

        let combat = Check::CombatLevel { level: 10 };
        let at_level = |level| observed(move |s, _| s.character.combat_level = level);
        assert!(judge(&combat, at_level(10)).success());
        assert!(!judge(&combat, at_level(9)).success());
        assert_eq!(judge(&combat, at_level(3)).progress, 0.0);
        assert!(combat.is_threshold());

        let coins = Check::Coins { coins: 100 };
        assert!(judge(
            &coins,
            observed(|s, _| s.inventory.push(slot("coins", 100)))
        )
        .success());
        assert!(!judge(&coins, observed(|s, _| s.inventory.push(slot("coins", 99)))).success());

        let quest = Check::Quest {
            quest_id: "first_catch".into(),
        };
        let at = |status: &'static str| {
            observed(move |s, _| {
                s.quests.push(wayfarer_store::repo::quests::StoredQuest {
                    quest_id: "first_catch".into(),
                    status: status.into(),
                    stage: None,
                    progress: 0,
                    completions: 0,
                })
            })
        };
        assert!(judge(&quest, at("completed")).success());
        assert!(!judge(&quest, at("in_progress")).success());

        let total = Check::TotalXp {
            skill: Skill::Woodcutting,
            xp: 100,
        };
        assert!(total
            .judge(&[wc(60), wc(40)], 10, &ControlWatch::default())
            .success());
        assert!(!total
            .judge(&[wc(60), wc(39)], 10, &ControlWatch::default())
            .success());

        let duel = Check::DuelWon;
        let fought = |won, lost| Observed {
            duels: Duels { won, lost },
            ..observed(|_, _| {})
        };
        assert!(judge(&duel, fought(1, 0)).success());
        assert!(judge(&duel, fought(1, 2)).success());
        let lost = judge(&duel, fought(0, 1));
        assert!(!lost.success() && !lost.failed);
        assert_eq!(lost.progress, 0.5);
        // A duel is won or not: a lost one earns nothing towards the score.
        assert_eq!(lost.credit(&duel), 0.0);
        assert_eq!(judge(&duel, fought(0, 0)).progress, 0.0);

        let control = Check::Control {
            stop_at: 100,
            command_at: 110,
            command: "idle".into(),
            resume_at: 150,
            skill: Skill::Woodcutting,
        };
        let obeyed = ControlWatch {
            xp_at_stop: Some(50),
            xp_at_resume: Some(50),
            moved_while_stopped: false,
            command_ran: true,
        };
        assert!(control.judge(&[wc(60)], 200, &obeyed).success());
        let ignored = ControlWatch {
            moved_while_stopped: true,
            ..obeyed.clone()
        };
        assert!(!control.judge(&[wc(60)], 200, &ignored).success());
        assert!(!control.judge(&[wc(50)], 200, &obeyed).success());
    }
}
