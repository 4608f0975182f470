//! The `spread` scenario: players placed as a living world has them rather than in one crowd. One
//! bot in [`CROWD_ONE_IN`] stays in the crowd at the spawn (wandering and chatting there); the
//! others travel to a town of the world (`GET /api/map`: a generated world's towns, else the
//! middles of its areas), dealt round-robin, in legs the server accepts, and once there four in
//! nine live in the town (wandering and chatting) and five in nine gather in its outskirts
//! (chopping the nearest tree they see, and chatting).

use serde_json::Value;
use wayfarer_protocol::ws::{TilePos, MAX_MOVE_TILES};

use super::scenario::Rng;

/// One bot in this many stays in the crowd at the spawn (1,000 of 10,000).
pub const CROWD_ONE_IN: usize = 10;
/// Longest leg of a journey, in tiles (Chebyshev): inside the server's move limit, with room for
/// the path to bend.
pub const LEG_TILES: i32 = MAX_MOVE_TILES * 3 / 4;
/// A traveller this close to its goal has arrived.
pub const ARRIVED_WITHIN_TILES: i32 = 6;
/// Legs a traveller walks at most: one whose way is blocked settles where it stands.
pub const MAX_LEGS: u32 = 12;
/// A gatherer's goal lies this far from its town's centre (tiles, each axis): the outskirts, where
/// trees are.
pub const OUTSKIRTS_TILES: (i32, i32) = (12, 40);

/// What a bot of the `spread` scenario does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Stays at the spawn: wanders near it and chats.
    Crowd,
    /// Travels to a town, then wanders there and chats.
    Townsfolk,
    /// Travels to a town's outskirts, then chops trees and chats.
    Gatherer,
}

/// The role of bot `index`.
pub fn role_of(index: usize) -> Role {
    if index.is_multiple_of(CROWD_ONE_IN) {
        Role::Crowd
    } else if index % 2 == 1 {
        Role::Gatherer
    } else {
        Role::Townsfolk
    }
}

/// Where players gather in a world: its towns (or areas).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    pub spawn: TilePos,
    /// Never empty: a world without towns or areas gives its spawn.
    pub towns: Vec<TilePos>,
}

impl Places {
    /// Reads the answer of `GET /api/map`: the towns' centres, or without towns (a world of
    /// hand-placed areas) the middle of each area.
    pub fn from_map(map: &Value) -> Option<Places> {
        let tile = |v: &Value| -> Option<TilePos> {
            Some(TilePos {
                x: i32::try_from(v["x"].as_i64()?).ok()?,
                z: i32::try_from(v["z"].as_i64()?).ok()?,
            })
        };
        let spawn = tile(&map["spawn"])?;
        let mut towns: Vec<TilePos> = map["towns"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|town| tile(&town["centre"]))
            .collect();
        if towns.is_empty() {
            towns = map["areas"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|area| {
                    let (min, max) = (tile(&area["min"])?, tile(&area["max"])?);
                    Some(TilePos {
                        x: min.x + (max.x - min.x) / 2,
                        z: min.z + (max.z - min.z) / 2,
                    })
                })
                .collect();
        }
        if towns.is_empty() {
            towns.push(spawn);
        }
        Some(Places { spawn, towns })
    }

    /// Where bot `index` of `role` settles: `None` for the crowd (it stays where it entered).
    pub fn goal(&self, role: Role, index: usize, rng: &mut Rng) -> Option<TilePos> {
        let town = self.towns[(index / CROWD_ONE_IN + index) % self.towns.len()];
        match role {
            Role::Crowd => None,
            Role::Townsfolk => Some(town),
            Role::Gatherer => {
                let (near, far) = OUTSKIRTS_TILES;
                let mut offset = || {
                    let d = rng.between(near, far);
                    if rng.one_in(2) {
                        d
                    } else {
                        -d
                    }
                };
                Some(TilePos {
                    x: town.x + offset(),
                    z: town.z + offset(),
                })
            }
        }
    }
}

/// A traveller's way to its goal, a leg at a time (the bot's tile comes from its `player:sync`
/// replies, every two seconds or so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journey {
    pub goal: TilePos,
    /// The end of the leg being walked.
    leg: Option<TilePos>,
    /// Where the bot stood at the last look.
    last_tile: Option<TilePos>,
    /// Looks in a row that found it there (its tile comes from replies every two seconds, so one
    /// unchanged look is not yet a stop).
    still: u32,
    legs: u32,
}

/// Unchanged looks in a row that make a stop.
const STOPPED_AFTER_LOOKS: u32 = 2;

/// What a traveller does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Walk to this tile.
    Walk(TilePos),
    /// Keep walking the current leg.
    Wait,
    /// At the goal, or given up on it: play the role here.
    Arrived,
}

impl Journey {
    pub fn to(goal: TilePos) -> Journey {
        Journey {
            goal,
            leg: None,
            last_tile: None,
            still: 0,
            legs: 0,
        }
    }

    /// The next step from `tile`: a new leg once the last one is walked (or the bot has stopped
    /// short of it: the server walks it to the closest reachable tile), arrival near the goal or
    /// after [`MAX_LEGS`].
    pub fn step(&mut self, tile: TilePos) -> Step {
        if distance(tile, self.goal) <= ARRIVED_WITHIN_TILES {
            return Step::Arrived;
        }
        if self.last_tile == Some(tile) {
            self.still += 1;
        } else {
            self.still = 0;
        }
        self.last_tile = Some(tile);
        let stopped = self.still >= STOPPED_AFTER_LOOKS;
        let leg_done = self
            .leg
            .is_none_or(|leg| distance(tile, leg) <= ARRIVED_WITHIN_TILES || stopped);
        if !leg_done {
            return Step::Wait;
        }
        if self.legs >= MAX_LEGS {
            return Step::Arrived;
        }
        self.legs += 1;
        self.still = 0;
        let toward = |from: i32, to: i32| from + (to - from).clamp(-LEG_TILES, LEG_TILES);
        let leg = TilePos {
            x: toward(tile.x, self.goal.x),
            z: toward(tile.z, self.goal.z),
        };
        self.leg = Some(leg);
        Step::Walk(leg)
    }
}

fn distance(a: TilePos, b: TilePos) -> i32 {
    (a.x - b.x).abs().max((a.z - b.z).abs())
}

/// `GET /api/map` of a world, read into its [`Places`].
pub async fn fetch_places(http: &reqwest::Client, http_base: &str) -> Result<Places, String> {
    let url = format!("{http_base}/api/map");
    let response = http
        .get(&url)
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let map: Value = response.json().await.map_err(|e| format!("{url}: {e}"))?;
    Places::from_map(&map).ok_or_else(|| format!("{url}: no spawn in the answer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(x: i32, z: i32) -> TilePos {
        TilePos { x, z }
    }

    #[test]
    fn one_bot_in_ten_stays_in_the_crowd_and_the_rest_split_between_towns_and_trees() {
        let mut counts = [0usize; 3];
        for index in 0..10_000 {
            counts[match role_of(index) {
                Role::Crowd => 0,
                Role::Townsfolk => 1,
                Role::Gatherer => 2,
            }] += 1;
        }
        assert_eq!(counts, [1_000, 4_000, 5_000]);
    }

    #[test]
    fn places_are_the_towns_else_the_areas_middles_else_the_spawn() {
        let generated = json!({"spawn": {"x": 5, "z": 6},
            "areas": [{"min": {"x": 0, "z": 0}, "max": {"x": 10, "z": 10}}],
            "towns": [{"centre": {"x": 100, "z": -40}}, {"centre": {"x": -300, "z": 20}}]});
        assert_eq!(
            Places::from_map(&generated),
            Some(Places {
                spawn: t(5, 6),
                towns: vec![t(100, -40), t(-300, 20)]
            })
        );
        let bundled = json!({"spawn": {"x": 0, "z": 0},
            "areas": [{"min": {"x": -10, "z": 0}, "max": {"x": 30, "z": 20}}]});
        assert_eq!(Places::from_map(&bundled).unwrap().towns, vec![t(10, 10)]);
        let bare = json!({"spawn": {"x": 1, "z": 2}});
        assert_eq!(Places::from_map(&bare).unwrap().towns, vec![t(1, 2)]);
        assert_eq!(Places::from_map(&json!({"areas": []})), None);
    }

    #[test]
    fn every_town_gets_travellers_and_gatherers_stay_in_the_outskirts() {
        let places = Places {
            spawn: t(0, 0),
            towns: vec![t(100, 0), t(0, 100), t(-100, 0)],
        };
        let mut rng = Rng::seeded(8);
        let mut visited = std::collections::HashSet::new();
        for index in 0..300 {
            let role = role_of(index);
            let goal = places.goal(role, index, &mut rng);
            match role {
                Role::Crowd => assert_eq!(goal, None),
                Role::Townsfolk => {
                    visited.insert(goal.unwrap());
                }
                Role::Gatherer => {
                    let goal = goal.unwrap();
                    let near = places
                        .towns
                        .iter()
                        .map(|&town| distance(goal, town))
                        .min()
                        .unwrap();
                    assert!((OUTSKIRTS_TILES.0..=OUTSKIRTS_TILES.1).contains(&near));
                }
            }
        }
        assert_eq!(visited.len(), places.towns.len());
    }

    #[test]
    fn a_journey_walks_legs_within_the_move_limit_until_it_arrives() {
        let mut journey = Journey::to(t(500, -260));
        let mut at = t(0, 0);
        let mut legs = 0;
        loop {
            match journey.step(at) {
                Step::Walk(leg) => {
                    assert!(distance(at, leg) <= LEG_TILES && LEG_TILES < MAX_MOVE_TILES);
                    legs += 1;
                    // Halfway along the leg the bot keeps walking it.
                    let half = t(at.x + (leg.x - at.x) / 2, at.z + (leg.z - at.z) / 2);
                    assert_eq!(journey.step(half), Step::Wait);
                    at = leg;
                }
                Step::Wait => panic!("waiting at the end of a leg"),
                Step::Arrived => break,
            }
        }
        assert_eq!(at, t(500, -260));
        assert_eq!(legs, 4, "500 tiles in legs of {LEG_TILES}");
    }

    #[test]
    fn a_blocked_traveller_tries_again_from_where_it_stopped_and_settles_after_the_last_leg() {
        let mut journey = Journey::to(t(1_000, 0));
        let stuck = t(3, 0);
        let mut walks = 0;
        for _ in 0..100 {
            match journey.step(stuck) {
                Step::Walk(_) => walks += 1,
                Step::Wait => {}
                Step::Arrived => break,
            }
        }
        assert_eq!(walks, MAX_LEGS);
        // One unchanged look is not a stop (the tile may just not have been reported yet).
        let mut fresh = Journey::to(t(1_000, 0));
        assert!(matches!(fresh.step(stuck), Step::Walk(_)));
        assert_eq!(fresh.step(stuck), Step::Wait);
        assert!(matches!(fresh.step(stuck), Step::Walk(_)));
        assert_eq!(journey.step(stuck), Step::Arrived);
    }
}
