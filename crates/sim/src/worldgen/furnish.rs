//! A generated town made a place (CONTRACT §13, issue 53 point 3): each of its building
//! rectangles walled, with a door on the side that faces the plaza (where the roads meet) and a
//! roof; a pier where the town's safe disc meets water; lamps round the plaza, a signpost where a road leaves
//! it, market stalls in a town's plaza, barrels and crates beside the houses and flowers by their
//! doors, more of them the bigger the town. The result is the town area's `features`, which the
//! layout lays like a hand-made area's (`crate::features::lay`). Deterministic for the seed: it
//! draws from its own generator, so it moves nothing else of the island.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wayfarer_content::features::{AreaFeatures, Building, Doorway, GroundPatch, Prop, Side};
use wayfarer_content::generated::Ground;
use wayfarer_content::Tile;

use super::terrain::Grid;
use super::towns::TownPlan;

/// The roofs a generated house may have.
const ROOFS: [&str; 3] = ["thatch", "slate", "tile"];

/// Longest pier, in tiles from the shore.
pub const PIER_TILES: i32 = 6;

/// What a town of each size has: (lamps round the plaza, market stalls, props beside each house).
fn dressing(size: &str) -> (usize, usize, usize) {
    match size {
        "hamlet" => (2, 0, 1),
        "village" => (4, 1, 1),
        _ => (6, 3, 2),
    }
}

/// A placed town as furnishing sees it.
pub(crate) struct Site<'a> {
    pub plan: &'a TownPlan,
    /// Its area's id (the houses' ids start with it).
    pub area_id: &'a str,
    /// Its name (its signposts').
    pub name: &'a str,
    /// The open radius round the centre.
    pub plaza: i32,
    /// The house rectangles already marked on the grid.
    pub buildings: &'a [(Tile, Tile)],
    /// The tiles its stations and townsfolk stand on.
    pub keep_clear: &'a [(i32, i32)],
}

/// A shore tile a pier could start from: its distance² to the centre, the tile, the step out.
type Landing = (i64, (i32, i32), (i32, i32));

/// The town's features. Pier tiles become town ground on `grid`, so nothing generated later
/// stands on them.
pub(crate) fn town_features(grid: &mut Grid, site: &Site<'_>, seed: u64) -> AreaFeatures {
    let Site {
        plan,
        area_id,
        name: town_name,
        plaza,
        buildings,
        keep_clear,
    } = *site;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut features = AreaFeatures::default();
    // Tiles a blocking prop must not take: doorsteps, the plaza's stations and folk, and what is
    // already taken.
    let mut taken: Vec<(i32, i32)> = keep_clear.to_vec();
    for (n, &(min, max)) in buildings.iter().enumerate() {
        let roof = ROOFS[rng.random_range(0..ROOFS.len())];
        let door = doorway(grid, plan.centre, min, max);
        if let Some((door, outside)) = door {
            taken.push((door.x, door.z));
            taken.push(outside);
        }
        features.buildings.push(Building {
            id: format!("{area_id}_house_{n}"),
            name: None,
            kind: "building".into(),
            min,
            max,
            roof: Some(roof.to_owned()),
            doors: door.map(|(d, _)| vec![d]).unwrap_or_default(),
        });
    }
    if let Some(pier) = pier(grid, plan.centre, plan.safe_radius) {
        for x in pier.min.x..=pier.max.x {
            for z in pier.min.z..=pier.max.z {
                if let Some(i) = grid.index(x, z) {
                    grid.ground[i] = Ground::Town;
                }
            }
        }
        features.grounds.push(pier);
    }
    let (lamps, stalls, by_house) = dressing(&plan.size);
    let (cx, cz) = plan.centre;
    let mut place =
        |features: &mut AreaFeatures, kind: &str, at: (i32, i32), text: Option<String>| {
            let blocks = !wayfarer_content::features::FLAT_PROPS.contains(&kind);
            let open = matches!(grid.ground_at(at.0, at.1), Ground::Town | Ground::Land);
            // Two tiles' room round what must stay reachable (a station may be wider than a tile).
            let near_taken = taken
                .iter()
                .any(|t| (t.0 - at.0).abs() <= 2 && (t.1 - at.1).abs() <= 2);
            if !open || (blocks && near_taken) || taken.contains(&at) {
                return false;
            }
            taken.push(at);
            features.props.push(Prop {
                kind: kind.to_owned(),
                x: at.0,
                z: at.1,
                text,
            });
            true
        };
    for k in 0..lamps {
        let a = k as f64 * std::f64::consts::TAU / lamps as f64 + 0.2;
        let r = f64::from(plaza - 1);
        let at = (
            cx + (a.cos() * r).round() as i32,
            cz + (a.sin() * r).round() as i32,
        );
        place(&mut features, "lamp", at, None);
    }
    for k in 0..stalls {
        let a = k as f64 * std::f64::consts::TAU / stalls.max(1) as f64 + 1.1;
        let r = f64::from(plaza) * 0.25;
        let at = (
            cx + (a.cos() * r).round() as i32,
            cz + (a.sin() * r).round() as i32,
        );
        place(&mut features, "stall", at, None);
    }
    if let Some(at) = road_leaving(grid, plan.centre, plaza + 2) {
        place(&mut features, "signpost", at, Some(town_name.to_owned()));
    }
    for &(min, max) in buildings {
        // Beside the house's walls: the tiles just outside its corners.
        let mut corners = [
            (min.x - 1, min.z - 1),
            (max.x + 1, min.z - 1),
            (min.x - 1, max.z + 1),
            (max.x + 1, max.z + 1),
        ];
        let start = rng.random_range(0..corners.len());
        corners.rotate_left(start);
        let mut left = by_house;
        for at in corners {
            if left == 0 {
                break;
            }
            let kind = if rng.random_bool(0.5) {
                "barrel"
            } else {
                "crate"
            };
            if place(&mut features, kind, at, None) {
                left -= 1;
            }
        }
    }
    for b in &features.buildings.clone() {
        if let Some(d) = b.doors.first() {
            let side = b.door_side(d);
            // Flowers beside the doorstep, along the wall.
            let beside = match side {
                Some(Side::North) => (d.x + 1, d.z - 1),
                Some(Side::South) => (d.x + 1, d.z + 1),
                Some(Side::West) => (d.x - 1, d.z + 1),
                Some(Side::East) => (d.x + 1, d.z + 1),
                None => continue,
            };
            if rng.random_bool(0.5) {
                place(&mut features, "flowers", beside, None);
            }
        }
    }
    features
}

/// The door of a house: on the middle of the side facing `centre`, or of the next side round
/// whose doorstep is open ground; with the doorstep tile outside it.
fn doorway(grid: &Grid, centre: (i32, i32), min: Tile, max: Tile) -> Option<(Doorway, (i32, i32))> {
    let (mx, mz) = ((min.x + max.x) / 2, (min.z + max.z) / 2);
    let (dx, dz) = (centre.0 - mx, centre.1 - mz);
    let facing = if dx.abs() >= dz.abs() {
        if dx < 0 {
            Side::West
        } else {
            Side::East
        }
    } else if dz < 0 {
        Side::North
    } else {
        Side::South
    };
    let order = [Side::North, Side::East, Side::South, Side::West];
    let first = order.iter().position(|s| *s == facing).unwrap_or(0);
    (0..4).map(|k| order[(first + k) % 4]).find_map(|side| {
        let (door, outside) = match side {
            Side::North => ((mx, min.z), (mx, min.z - 1)),
            Side::South => ((mx, max.z), (mx, max.z + 1)),
            Side::West => ((min.x, mz), (min.x - 1, mz)),
            Side::East => ((max.x, mz), (max.x + 1, mz)),
        };
        // The doorstep: open ground, not another house's floor.
        let step = grid.ground_at(outside.0, outside.1);
        (step.walkable() && step != Ground::Building).then_some((
            Doorway {
                x: door.0,
                z: door.1,
                side: Some(side),
            },
            outside,
        ))
    })
}

/// A pier from the shore nearest the centre (within `reach`) straight out over the water, one
/// tile wide and up to [`PIER_TILES`] long; `None` when the town is not by water or the water
/// there is a single tile.
fn pier(grid: &Grid, centre: (i32, i32), reach: i32) -> Option<GroundPatch> {
    let mut best: Option<Landing> = None;
    for z in centre.1 - reach..=centre.1 + reach {
        for x in centre.0 - reach..=centre.0 + reach {
            if !matches!(
                grid.ground_at(x, z),
                Ground::Shore | Ground::Town | Ground::Land
            ) {
                continue;
            }
            for step in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let wet = (1..=2)
                    .all(|k| grid.ground_at(x + step.0 * k, z + step.1 * k) == Ground::Water);
                if !wet || grid.index(x + step.0 * 2, z + step.1 * 2).is_none() {
                    continue;
                }
                let d = i64::from(x - centre.0).pow(2) + i64::from(z - centre.1).pow(2);
                if d <= i64::from(reach).pow(2) && best.is_none_or(|b| d < b.0) {
                    best = Some((d, (x, z), step));
                }
            }
        }
    }
    let (_, (x, z), (sx, sz)) = best?;
    let mut length = 0;
    while length < PIER_TILES {
        let (px, pz) = (x + sx * (length + 1), z + sz * (length + 1));
        if grid.ground_at(px, pz) != Ground::Water || grid.index(px, pz).is_none() {
            break;
        }
        length += 1;
    }
    let (a, b) = ((x + sx, z + sz), (x + sx * length, z + sz * length));
    Some(GroundPatch {
        ground: "pier".into(),
        min: Tile {
            x: a.0.min(b.0),
            z: a.1.min(b.1),
        },
        max: Tile {
            x: a.0.max(b.0),
            z: a.1.max(b.1),
        },
    })
}

/// An open tile beside a road where it crosses the circle of radius `r` round the centre: where a
/// road leaves the plaza, for the town's signpost.
fn road_leaving(grid: &Grid, centre: (i32, i32), r: i32) -> Option<(i32, i32)> {
    let steps = (r * 8).max(16);
    for k in 0..steps {
        let a = f64::from(k) * std::f64::consts::TAU / f64::from(steps);
        let (x, z) = (
            centre.0 + (a.cos() * f64::from(r)).round() as i32,
            centre.1 + (a.sin() * f64::from(r)).round() as i32,
        );
        if grid.ground_at(x, z) != Ground::Road {
            continue;
        }
        for (dx, dz) in [
            (1, 0),
            (-1, 0),
            (0, 1),
            (0, -1),
            (1, 1),
            (-1, -1),
            (1, -1),
            (-1, 1),
        ] {
            if matches!(grid.ground_at(x + dx, z + dz), Ground::Town | Ground::Land) {
                return Some((x + dx, z + dz));
            }
        }
    }
    None
}
