//! An area's map features laid on the tile map (CONTRACT §13): grounds (water is not walkable,
//! piers and bridges are), wall runs, buildings and pens walled on their outlines, doors and gates
//! on edges (entities of their own, `doors.rs`), blocking props; and the points of interest a
//! world has, derived from its stations, NPCs, spots and courses plus those content names. The
//! same for a hand-made world and a generated one: both are areas with features.

use wayfarer_content::features::{Building, Side};
use wayfarer_content::Content;
use wayfarer_protocol::ws::TilePos;

use crate::map::{TileMap, EAST, NORTH, SOUTH, WEST};

/// The wall bit of a content side.
pub(crate) fn side_bit(side: Side) -> u8 {
    match side {
        Side::North => NORTH,
        Side::East => EAST,
        Side::South => SOUTH,
        Side::West => WEST,
    }
}

/// A door or gate on an edge, as content placed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DoorPlacement {
    pub key: String,
    /// `door` or `gate`.
    pub kind: &'static str,
    pub tile: TilePos,
    /// The wall bit of the side of `tile` it stands on.
    pub side: u8,
}

/// A building or pen as the map serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedBuilding {
    /// Its content id.
    pub id: String,
    /// Display name.
    pub name: Option<String>,
    /// North-west floor tile.
    pub min: TilePos,
    /// South-east floor tile (inclusive).
    pub max: TilePos,
    /// Roof style; `None` for a pen.
    pub roof: Option<String>,
    /// The tiles its doors (or gates) stand on, inside the outline.
    pub doors: Vec<TilePos>,
    /// A fenced pen rather than a roofed building.
    pub pen: bool,
}

/// A point of interest: a map icon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedPoi {
    /// One of `wayfarer_content::features::POI_KINDS`.
    pub kind: String,
    /// Display name, when it has one (its building's, or the one content gives).
    pub name: Option<String>,
    /// Where the icon stands.
    pub tile: TilePos,
}

/// A prop as the map serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedProp {
    /// What it is (`barrel`, `signpost`, …).
    pub kind: String,
    /// Its tile.
    pub tile: TilePos,
    /// A signpost's words.
    pub text: Option<String>,
}

/// Every area's features as laid out: what `GET /api/map` serves beside the chunks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapFeatures {
    /// Grounds laid over the areas', in order (later over earlier): name and inclusive corners.
    pub grounds: Vec<(String, TilePos, TilePos)>,
    /// Buildings and pens.
    pub buildings: Vec<PlacedBuilding>,
    /// Props.
    pub props: Vec<PlacedProp>,
    /// Points of interest (map icons).
    pub pois: Vec<PlacedPoi>,
}

impl MapFeatures {
    /// The ground content lays on `tile`, if any (the last patch holding it; a building's floor).
    pub fn ground_at(&self, tile: TilePos) -> Option<&str> {
        let inside = |a: &TilePos, b: &TilePos| {
            tile.x >= a.x && tile.x <= b.x && tile.z >= a.z && tile.z <= b.z
        };
        if self
            .buildings
            .iter()
            .any(|b| !b.pen && inside(&b.min, &b.max))
        {
            return Some("floor");
        }
        self.grounds
            .iter()
            .rev()
            .find(|(_, a, b)| inside(a, b))
            .map(|(g, _, _)| g.as_str())
    }
}

fn pos(t: wayfarer_content::Tile) -> TilePos {
    TilePos { x: t.x, z: t.z }
}

fn tiles(a: TilePos, b: TilePos) -> impl Iterator<Item = TilePos> {
    (a.z.min(b.z)..=a.z.max(b.z))
        .flat_map(move |z| (a.x.min(b.x)..=a.x.max(b.x)).map(move |x| TilePos { x, z }))
}

/// Walls a building's outline, leaving its doors' sides to the doors.
fn wall_outline(map: &mut TileMap, b: &Building, doors: &[(TilePos, u8)]) {
    let (min, max) = (pos(b.min), pos(b.max));
    let mut wall = |tile: TilePos, side: u8| {
        if !doors.contains(&(tile, side)) {
            map.add_wall(tile, side);
        }
    };
    for x in min.x..=max.x {
        wall(TilePos { x, z: min.z }, NORTH);
        wall(TilePos { x, z: max.z }, SOUTH);
    }
    for z in min.z..=max.z {
        wall(TilePos { x: min.x, z }, WEST);
        wall(TilePos { x: max.x, z }, EAST);
    }
}

/// Lays every area's features on `map` (after the areas are opened, before spawns block their
/// tiles); returns the doors to spawn and the features to serve.
pub(crate) fn lay(content: &Content, map: &mut TileMap) -> (Vec<DoorPlacement>, MapFeatures) {
    let mut doors = Vec::new();
    let mut features = MapFeatures::default();
    for area in content.areas.values() {
        let f = &area.features;
        for patch in &f.grounds {
            let (a, b) = (pos(patch.min), pos(patch.max));
            for tile in tiles(a, b) {
                if patch.ground == "water" {
                    map.set_water(tile);
                } else {
                    map.set_land(tile);
                }
            }
            features.grounds.push((patch.ground.clone(), a, b));
        }
        for (n, run) in f.walls.iter().enumerate() {
            let side = side_bit(run.side);
            for tile in tiles(pos(run.from), pos(run.to)) {
                if run.gates.iter().any(|g| pos(*g) == tile) {
                    map.add_door(tile, side);
                    doors.push(DoorPlacement {
                        key: format!("{}/wall/{n}/gate/{}/{}", area.id, tile.x, tile.z),
                        kind: "gate",
                        tile,
                        side,
                    });
                } else {
                    map.add_wall(tile, side);
                }
            }
        }
        for b in &f.buildings {
            let placed: Vec<(TilePos, u8)> = b
                .doors
                .iter()
                .filter_map(|d| {
                    let side = b.door_side(d)?;
                    Some((TilePos { x: d.x, z: d.z }, side_bit(side)))
                })
                .collect();
            wall_outline(map, b, &placed);
            for &(tile, side) in &placed {
                map.add_door(tile, side);
                doors.push(DoorPlacement {
                    key: format!("{}/building/{}/door/{}/{}", area.id, b.id, tile.x, tile.z),
                    kind: if b.is_pen() { "gate" } else { "door" },
                    tile,
                    side,
                });
            }
            features.buildings.push(PlacedBuilding {
                id: b.id.clone(),
                name: b.name.clone(),
                min: pos(b.min),
                max: pos(b.max),
                roof: if b.is_pen() {
                    None
                } else {
                    Some(b.roof.clone().unwrap_or_else(|| "thatch".into()))
                },
                doors: placed.iter().map(|(t, _)| *t).collect(),
                pen: b.is_pen(),
            });
        }
        for prop in &f.props {
            let tile = TilePos {
                x: prop.x,
                z: prop.z,
            };
            if prop.blocks() {
                map.set(tile, false);
            }
            features.props.push(PlacedProp {
                kind: prop.kind.clone(),
                tile,
                text: prop.text.clone(),
            });
        }
    }
    (doors, features)
}

/// The point-of-interest kind of a station type.
fn station_poi(station: &str) -> Option<&'static str> {
    Some(match station {
        "bank" => "bank",
        "furnace" => "furnace",
        "anvil" => "anvil",
        "range" => "range",
        "altar" => "altar",
        s if s.ends_with("_altar") => "runeAltar",
        _ => return None,
    })
}

/// The point-of-interest kind of a fixed NPC's role.
fn role_poi(role: &str) -> Option<&'static str> {
    Some(match role {
        "bank" => "bank",
        "general_store" | "shop" | "store" => "shop",
        "tanner" => "tanner",
        "quest" => "quest",
        _ => return None,
    })
}

/// Every point of interest of the world: the spawn, stations, NPCs by role, fishing spots, the
/// first obstacle of each agility course, the middle of each duel arena, and those content names;
/// each named after the building it stands in when content does not name it. One per kind and
/// tile, in that order.
pub(crate) fn points_of_interest(
    content: &Content,
    spawn: TilePos,
    fishing: &[TilePos],
    features: &mut MapFeatures,
) {
    let mut pois: Vec<PlacedPoi> = Vec::new();
    let mut add = |kind: &str, name: Option<String>, tile: TilePos| {
        if !pois.iter().any(|p| p.kind == kind && p.tile == tile) {
            pois.push(PlacedPoi {
                kind: kind.to_owned(),
                name,
                tile,
            });
        }
    };
    add("spawn", None, spawn);
    for area in content.areas.values() {
        for p in &area.features.pois {
            add(&p.kind, p.name.clone(), TilePos { x: p.x, z: p.z });
        }
        for s in &area.stations {
            if let Some(kind) = station_poi(&s.station) {
                add(kind, None, crate::layout::tile_of(&s.position));
            }
        }
        for n in &area.npcs {
            if let Some(kind) = n.role.as_deref().and_then(role_poi) {
                add(kind, None, crate::layout::tile_of(&n.position));
            }
        }
        if area.duel_arena {
            let c = area.bounds.centre();
            add("arena", Some(area.name.clone()), crate::layout::tile_of(&c));
        }
    }
    for &tile in fishing {
        add("fishing", None, tile);
    }
    for course in &content.agility_courses {
        if let Some(first) = course.obstacles.first() {
            let tile = crate::layout::tile_of(&first.position);
            add("agility", Some(course.name.clone()), tile);
        }
    }
    for poi in &mut pois {
        if poi.name.is_none() {
            poi.name = features
                .buildings
                .iter()
                .find(|b| {
                    poi.tile.x >= b.min.x
                        && poi.tile.x <= b.max.x
                        && poi.tile.z >= b.min.z
                        && poi.tile.z <= b.max.z
                })
                .and_then(|b| b.name.clone());
        }
    }
    features.pois = pois;
}
