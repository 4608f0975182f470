//! Map features of an area (CONTRACT §13; our extension of `world-areas.json`, in each area's
//! optional `features`): grounds laid over the area's own (water, pier, bridge, path, …), walls on
//! tile sides, buildings (a floor rectangle walled on its outline, with doors and a roof), fenced
//! pens with gates, props and named points of interest. The simulation turns them into walls,
//! doors and water on its map (`wayfarer_sim::layout`); `GET /api/map` serves them to clients.

use serde::{Deserialize, Serialize};

use crate::common::{Ctx, Tile};

/// A side of a tile: which neighbour a wall or door stands against (north is −z).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum Side {
    /// Towards −z.
    North,
    /// Towards +x.
    East,
    /// Towards +z.
    South,
    /// Towards −x.
    West,
}

/// The grounds a tile may be given; `water` alone is not walkable.
pub const GROUNDS: [&str; 7] = ["water", "pier", "bridge", "path", "floor", "sand", "dirt"];

/// The kinds of point of interest (the map icons of CONTRACT §13).
pub const POI_KINDS: [&str; 14] = [
    "bank",
    "shop",
    "furnace",
    "anvil",
    "range",
    "altar",
    "runeAltar",
    "fishing",
    "tanner",
    "quest",
    "agility",
    "arena",
    "spawn",
    "teleport",
];

/// Props that can be walked over; every other kind blocks its tile.
pub const FLAT_PROPS: [&str; 3] = ["flowers", "rug", "well_cover"];

/// A rectangle of tiles given one ground (later patches over earlier ones).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GroundPatch {
    /// One of [`GROUNDS`].
    pub ground: String,
    /// North-west tile (inclusive).
    pub min: Tile,
    /// South-east tile (inclusive).
    pub max: Tile,
}

/// A straight run of walls: the `side` of every tile from `from` to `to` (a row or a column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WallRun {
    /// First tile.
    pub from: Tile,
    /// Last tile (same x or same z as `from`).
    pub to: Tile,
    /// Which side of each tile is walled.
    pub side: Side,
    /// Doors (or gates) in the run, on the same side of these tiles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<Tile>,
}

/// A door or gate on the outline of a building or pen: the tile inside, and the side it opens
/// on (the tile's outline side when left out; a corner needs it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Doorway {
    /// West–east tile.
    pub x: i32,
    /// North–south tile.
    pub z: i32,
    /// The side of the tile it stands on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

/// A building: a floor rectangle walled all round its outline, with doors and a roof; or, with
/// `kind: "pen"`, a fenced rectangle with gates and no roof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Building {
    /// Unique within the world.
    pub id: String,
    /// Display name (the bank, the smithy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `building` (default) or `pen` (a fence, no roof).
    #[serde(default = "building_kind")]
    pub kind: String,
    /// North-west floor tile.
    pub min: Tile,
    /// South-east floor tile.
    pub max: Tile,
    /// The roof's style (`thatch`, `slate`, `tile`, …); a pen has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roof: Option<String>,
    /// Doors (gates for a pen) on the outline.
    #[serde(default)]
    pub doors: Vec<Doorway>,
}

fn building_kind() -> String {
    "building".into()
}

impl Building {
    /// Whether this is a fenced pen rather than a roofed building.
    pub fn is_pen(&self) -> bool {
        self.kind == "pen"
    }

    /// The outline side a door on `(x, z)` stands on: its own, or the one side of the outline
    /// the tile lies on (`None` for a tile off the outline, or a corner without a side).
    pub fn door_side(&self, door: &Doorway) -> Option<Side> {
        let on = |side: Side| match side {
            Side::North => door.z == self.min.z,
            Side::South => door.z == self.max.z,
            Side::West => door.x == self.min.x,
            Side::East => door.x == self.max.x,
        };
        let inside = (self.min.x..=self.max.x).contains(&door.x)
            && (self.min.z..=self.max.z).contains(&door.z);
        if !inside {
            return None;
        }
        if let Some(side) = door.side {
            return on(side).then_some(side);
        }
        let mut sides = [Side::North, Side::East, Side::South, Side::West]
            .into_iter()
            .filter(|s| on(*s));
        match (sides.next(), sides.next()) {
            (Some(side), None) => Some(side),
            _ => None,
        }
    }
}

/// A prop: something drawn on a tile (fence post, barrel, lamp, signpost, market stall, flowers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Prop {
    /// What it is (`barrel`, `crate`, `lamp`, `signpost`, `stall`, `flowers`, …).
    pub kind: String,
    /// West–east tile.
    pub x: i32,
    /// North–south tile.
    pub z: i32,
    /// A signpost's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Prop {
    /// Whether the prop stands in the way (all but [`FLAT_PROPS`]).
    pub fn blocks(&self) -> bool {
        !FLAT_PROPS.contains(&self.kind.as_str())
    }
}

/// A named point of interest content adds to those the world derives from its stations, NPCs
/// and spots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Poi {
    /// One of [`POI_KINDS`].
    pub kind: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// West–east tile.
    pub x: i32,
    /// North–south tile.
    pub z: i32,
}

/// An area's map features (all empty for an area without `features`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AreaFeatures {
    /// Grounds laid over the area's, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grounds: Vec<GroundPatch>,
    /// Free-standing wall runs (a town wall, a ditch's edge).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<WallRun>,
    /// Buildings and pens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buildings: Vec<Building>,
    /// Props.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub props: Vec<Prop>,
    /// Named points of interest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pois: Vec<Poi>,
}

impl AreaFeatures {
    /// Whether the area has no features.
    pub fn is_empty(&self) -> bool {
        self.grounds.is_empty()
            && self.walls.is_empty()
            && self.buildings.is_empty()
            && self.props.is_empty()
            && self.pois.is_empty()
    }
}

/// Checks an area's features as written, dropping what cannot be used (with a finding).
pub(crate) fn normalise(
    raw: &AreaFeatures,
    area: &str,
    path: &str,
    ctx: &mut Ctx<'_>,
) -> AreaFeatures {
    let at = |f: String| format!("{path}.features.{f}");
    let mut out = AreaFeatures::default();
    for (n, g) in raw.grounds.iter().enumerate() {
        if !GROUNDS.contains(&g.ground.as_str()) {
            let message = format!("unknown ground {:?} (one of {GROUNDS:?})", g.ground);
            ctx.invalid(area, &at(format!("grounds[{n}].ground")), message);
        } else if g.min.x > g.max.x || g.min.z > g.max.z {
            ctx.invalid(area, &at(format!("grounds[{n}]")), "min greater than max");
        } else {
            out.grounds.push(g.clone());
        }
    }
    for (n, w) in raw.walls.iter().enumerate() {
        if w.from.x != w.to.x && w.from.z != w.to.z {
            let message = "a wall run is a row or a column of tiles";
            ctx.invalid(area, &at(format!("walls[{n}]")), message);
        } else {
            out.walls.push(w.clone());
        }
    }
    for (n, b) in raw.buildings.iter().enumerate() {
        if b.min.x > b.max.x || b.min.z > b.max.z {
            ctx.invalid(area, &at(format!("buildings[{n}]")), "min greater than max");
            continue;
        }
        let mut building = b.clone();
        building.doors.clear();
        for (d, door) in b.doors.iter().enumerate() {
            if b.door_side(door).is_some() {
                building.doors.push(*door);
            } else {
                let message = "a door stands on the outline (a corner needs its side)";
                ctx.invalid(area, &at(format!("buildings[{n}].doors[{d}]")), message);
            }
        }
        out.buildings.push(building);
    }
    out.props = raw.props.clone();
    for (n, p) in raw.pois.iter().enumerate() {
        if POI_KINDS.contains(&p.kind.as_str()) {
            out.pois.push(p.clone());
        } else {
            let message = format!("unknown point of interest {:?}", p.kind);
            ctx.invalid(area, &at(format!("pois[{n}].kind")), message);
        }
    }
    out
}
