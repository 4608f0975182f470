//! World areas and their fixed spawns: `world-areas.json`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::common::{AreaId, Ctx, NpcId, Position, RefKind, ResourceId, StationType, StoreId};
use crate::features::AreaFeatures;

/// Which group of `world-areas.json` an area is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum AreaGroup {
    /// `starterTowns`.
    StarterTowns,
    /// `level1Areas`.
    Level1Areas,
    /// `level2Areas`.
    Level2Areas,
    /// `level3Areas`.
    Level3Areas,
    /// A town the world generator placed (not in `world-areas.json`).
    Town,
}

/// An axis-aligned rectangle on the ground plane (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Bounds {
    /// West edge.
    pub min_x: f64,
    /// East edge.
    pub max_x: f64,
    /// North edge (north is −z, docs/content.md "Directions").
    pub min_z: f64,
    /// South edge.
    pub max_z: f64,
}

impl Bounds {
    /// True when the ground-plane point lies inside (edges included).
    pub fn contains(&self, x: f64, z: f64) -> bool {
        x >= self.min_x && x <= self.max_x && z >= self.min_z && z <= self.max_z
    }

    /// The centre of the rectangle, at height 0.
    pub fn centre(&self) -> Position {
        Position {
            x: (self.min_x + self.max_x) / 2.0,
            y: 0.0,
            z: (self.min_z + self.max_z) / 2.0,
        }
    }
}

/// One world area.
// Deserialize too: agents read back what `GET /api/v1/world/areas` serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Area {
    /// Unique id.
    pub id: AreaId,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// The group it is listed in.
    pub group: AreaGroup,
    /// Difficulty (0 = town).
    pub difficulty_level: u32,
    /// Extent.
    pub bounds: Bounds,
    /// Free-form biome label.
    pub biome_type: Option<String>,
    /// No combat between or against players here.
    pub safe_zone: bool,
    /// Players may attack each other here.
    pub pvp: bool,
    /// Where new and respawning players appear (starter towns), when given.
    pub spawn_point: Option<Position>,
    /// Fixed NPCs (bankers, shopkeepers, quest givers).
    pub npcs: Vec<NpcSpawn>,
    /// Fixed gathering nodes.
    pub resources: Vec<ResourceSpawn>,
    /// Mob spawners.
    pub mob_spawns: Vec<MobSpawn>,
    /// Fixed stations (anvil, furnace, range, altar, bank booth).
    pub stations: Vec<StationSpawn>,
    /// Procedural fishing spots.
    pub fishing: Option<FishingConfig>,
    /// A duel arena (`duelArena`): duels are fought here (CONTRACT §11). Nobody else fights in
    /// it unless the area also allows PvP.
    #[serde(default)]
    pub duel_arena: bool,
    /// A round area (a generated town's safe radius): it covers this disc only, and `bounds` is
    /// the square around it. `None`: the whole rectangle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circle: Option<Circle>,
    /// A generated town's size class (`town`, `village`, `hamlet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub town_size: Option<String>,
    /// Map features: grounds, walls, buildings, props, points of interest (`features`).
    #[serde(default, skip_serializing_if = "AreaFeatures::is_empty")]
    pub features: AreaFeatures,
}

/// A disc on the ground plane (inclusive of its edge).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Circle {
    /// Centre, west–east.
    pub x: f64,
    /// Centre, north–south.
    pub z: f64,
    /// Radius in tiles.
    pub radius: f64,
}

impl Area {
    /// Whether the tile `(x, z)` lies in the area: within the bounds as the map opens them (a tile
    /// is the floor of a world coordinate, so bounds 0..=40 cover tiles 0..=40), and, for a round
    /// area, with its centre within the radius of the circle's centre.
    pub fn covers_tile(&self, x: i32, z: i32) -> bool {
        let b = &self.bounds;
        let (fx, fz) = (f64::from(x), f64::from(z));
        let in_bounds = b.min_x.floor() <= fx
            && fx <= b.max_x.floor()
            && b.min_z.floor() <= fz
            && fz <= b.max_z.floor();
        in_bounds
            && self.circle.is_none_or(|c| {
                let (dx, dz) = (fx + 0.5 - c.x, fz + 0.5 - c.z);
                dx * dx + dz * dz <= c.radius * c.radius
            })
    }
}

/// A fixed NPC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NpcSpawn {
    /// The NPC.
    pub npc_id: NpcId,
    /// Role label (`bank`, `general_store`, `quest`, …).
    pub role: Option<String>,
    /// Store opened by this NPC, when it is a shopkeeper.
    pub store_id: Option<StoreId>,
    /// Where it stands.
    pub position: Position,
}

/// A fixed gathering node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpawn {
    /// The node definition.
    pub resource_id: ResourceId,
    /// `tree`, `ore`, `fishing_spot`.
    pub kind: String,
    /// Where it stands.
    pub position: Position,
}

/// A mob spawner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MobSpawn {
    /// The mob.
    pub mob_id: NpcId,
    /// Centre.
    pub position: Position,
    /// Tiles around the centre where mobs appear.
    pub spawn_radius: f64,
    /// How many are alive at once.
    pub max_count: u32,
}

/// A fixed station.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StationSpawn {
    /// Station type.
    pub station: StationType,
    /// Where it stands.
    pub position: Position,
}

/// Procedurally placed fishing spots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FishingConfig {
    /// Whether spots are placed.
    pub enabled: bool,
    /// How many.
    pub spot_count: u32,
    /// Gathering ids of the spot kinds (undefined ones are dropped).
    pub spot_types: Vec<ResourceId>,
}

/// `world-areas.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawAreasFile {
    #[serde(default)]
    pub starter_towns: BTreeMap<String, RawArea>,
    #[serde(default, rename = "level1Areas")]
    pub level1_areas: BTreeMap<String, RawArea>,
    #[serde(default, rename = "level2Areas")]
    pub level2_areas: BTreeMap<String, RawArea>,
    #[serde(default, rename = "level3Areas")]
    pub level3_areas: BTreeMap<String, RawArea>,
}

impl RawAreasFile {
    /// Every area with its group and group key.
    pub fn all(&self) -> Vec<(AreaGroup, &'static str, &String, &RawArea)> {
        let mut out = Vec::new();
        for (group, key, map) in [
            (AreaGroup::StarterTowns, "starterTowns", &self.starter_towns),
            (AreaGroup::Level1Areas, "level1Areas", &self.level1_areas),
            (AreaGroup::Level2Areas, "level2Areas", &self.level2_areas),
            (AreaGroup::Level3Areas, "level3Areas", &self.level3_areas),
        ] {
            for (id, area) in map {
                out.push((group, key, id, area));
            }
        }
        out
    }
}

/// An area as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawArea {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub difficulty_level: Option<i64>,
    pub bounds: Bounds,
    #[serde(default)]
    pub biome_type: Option<String>,
    #[serde(default)]
    pub safe_zone: Option<bool>,
    #[serde(default)]
    pub pvp_enabled: Option<bool>,
    #[serde(default)]
    pub duel_arena: Option<bool>,
    #[serde(default)]
    pub spawn_point: Option<Position>,
    #[serde(default)]
    pub npcs: Vec<RawNpcSpawn>,
    #[serde(default)]
    pub resources: Vec<RawResourceSpawn>,
    #[serde(default)]
    pub mob_spawns: Vec<RawMobSpawn>,
    #[serde(default)]
    pub stations: Vec<RawStationSpawn>,
    #[serde(default)]
    pub fishing: Option<RawFishing>,
    #[serde(default)]
    pub features: AreaFeatures,
}

/// `npcs[]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawNpcSpawn {
    pub id: String,
    #[serde(rename = "type", default)]
    pub role: Option<String>,
    #[serde(default)]
    pub store_id: Option<String>,
    pub position: Position,
}

/// `resources[]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawResourceSpawn {
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    pub resource_id: String,
    pub position: Position,
}

/// `mobSpawns[]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMobSpawn {
    pub mob_id: String,
    pub position: Position,
    #[serde(default)]
    pub spawn_radius: Option<f64>,
    #[serde(default)]
    pub max_count: Option<i64>,
}

/// `stations[]` as written (bundled extension).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawStationSpawn {
    #[serde(rename = "type")]
    pub station: String,
    pub position: Position,
}

/// `fishing` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawFishing {
    #[serde(default = "crate::common::yes")]
    pub enabled: bool,
    #[serde(default)]
    pub spot_count: Option<i64>,
    #[serde(default)]
    pub spot_types: Vec<String>,
}

/// Normalises one area; spawns with dangling or disabled references are dropped.
pub(crate) fn normalise(
    group: AreaGroup,
    path: &str,
    key: &str,
    raw: &RawArea,
    enabled_gathering: &BTreeSet<String>,
    ctx: &mut Ctx<'_>,
) -> Option<Area> {
    let at = |f: &str| format!("{path}.{f}");
    if !ctx.check_keyed_id("area", &raw.id, key, &at("id")) {
        return None;
    }
    let id = raw.id.as_str();
    let b = raw.bounds;
    if b.min_x > b.max_x || b.min_z > b.max_z {
        ctx.invalid(id, &at("bounds"), "bounds have min greater than max");
    }
    let safe_zone = raw.safe_zone.unwrap_or(false);
    let pvp = raw.pvp_enabled.unwrap_or(false);
    if safe_zone && pvp {
        ctx.invalid(
            id,
            &at("pvpEnabled"),
            "an area cannot be both a safe zone and PvP",
        );
    }
    let inside = |ctx: &mut Ctx<'_>, field: String, p: &Position| {
        if !b.contains(p.x, p.z) {
            ctx.questionable(
                id,
                &field,
                format!("position ({}, {}) lies outside the area bounds", p.x, p.z),
            );
        }
    };
    if let Some(p) = &raw.spawn_point {
        inside(ctx, at("spawnPoint"), p);
    }
    let mut npcs = Vec::new();
    for (n, s) in raw.npcs.iter().enumerate() {
        let field = at(&format!("npcs[{n}]"));
        let mut ok = ctx.check_ref(
            RefKind::Npc,
            &s.id,
            id,
            &format!("{field}.id"),
            "the spawn is dropped",
        );
        if let Some(store) = &s.store_id {
            ok &= ctx.check_ref(
                RefKind::Store,
                store,
                id,
                &format!("{field}.storeId"),
                "the spawn is dropped",
            );
        }
        inside(ctx, format!("{field}.position"), &s.position);
        if ok {
            npcs.push(NpcSpawn {
                npc_id: s.id.clone(),
                role: s.role.clone(),
                store_id: s.store_id.clone(),
                position: s.position,
            });
        }
    }
    let mut resources = Vec::new();
    for (n, s) in raw.resources.iter().enumerate() {
        let field = format!("{}.resourceId", at(&format!("resources[{n}]")));
        inside(ctx, at(&format!("resources[{n}].position")), &s.position);
        if !ctx.check_enabled_ref(
            RefKind::Gathering,
            &s.resource_id,
            enabled_gathering,
            (id, &field),
            "the spawn is dropped",
        ) {
            continue;
        }
        resources.push(ResourceSpawn {
            resource_id: s.resource_id.clone(),
            kind: s.kind.clone().unwrap_or_default(),
            position: s.position,
        });
    }
    let mut mob_spawns = Vec::new();
    for (n, s) in raw.mob_spawns.iter().enumerate() {
        let field = at(&format!("mobSpawns[{n}]"));
        inside(ctx, format!("{field}.position"), &s.position);
        if !ctx.check_ref(
            RefKind::Npc,
            &s.mob_id,
            id,
            &format!("{field}.mobId"),
            "the spawn is dropped",
        ) {
            continue;
        }
        let spawn_radius = ctx.non_negative(
            id,
            &format!("{field}.spawnRadius"),
            s.spawn_radius.unwrap_or(0.0),
        );
        mob_spawns.push(MobSpawn {
            mob_id: s.mob_id.clone(),
            position: s.position,
            spawn_radius,
            max_count: ctx.quantity(id, &format!("{field}.maxCount"), s.max_count.unwrap_or(1)),
        });
    }
    let mut stations = Vec::new();
    for (n, s) in raw.stations.iter().enumerate() {
        let field = at(&format!("stations[{n}]"));
        inside(ctx, format!("{field}.position"), &s.position);
        if ctx.check_ref(
            RefKind::Station,
            &s.station,
            id,
            &format!("{field}.type"),
            "the station is dropped",
        ) {
            stations.push(StationSpawn {
                station: s.station.clone(),
                position: s.position,
            });
        }
    }
    let fishing = raw.fishing.as_ref().map(|f| {
        let mut spot_types = Vec::new();
        for (n, spot) in f.spot_types.iter().enumerate() {
            let field = at(&format!("fishing.spotTypes[{n}]"));
            if !ctx.check_enabled_ref(
                RefKind::Gathering,
                spot,
                enabled_gathering,
                (id, &field),
                "the spot type is not placed",
            ) {
                continue;
            }
            spot_types.push(spot.clone());
        }
        FishingConfig {
            enabled: f.enabled,
            spot_count: ctx.count(id, &at("fishing.spotCount"), f.spot_count.unwrap_or(0)),
            spot_types,
        }
    });
    Some(Area {
        id: raw.id.clone(),
        name: raw.name.clone(),
        description: raw.description.clone().unwrap_or_default(),
        group,
        difficulty_level: ctx.count(
            id,
            &at("difficultyLevel"),
            raw.difficulty_level.unwrap_or(0),
        ),
        bounds: b,
        biome_type: raw.biome_type.clone(),
        safe_zone,
        pvp,
        spawn_point: raw.spawn_point,
        npcs,
        resources,
        mob_spawns,
        stations,
        fishing,
        circle: None,
        duel_arena: raw.duel_arena.unwrap_or(false),
        town_size: None,
        features: crate::features::normalise(&raw.features, id, path, ctx),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn areas_read_back_from_what_the_server_serves() {
        // `GET /api/v1/world/areas` writes these; agents read them back into the same type.
        let content = crate::load_bundled();
        assert!(!content.areas.is_empty());
        for area in content.areas.values() {
            let text = serde_json::to_string(area).unwrap();
            let read: super::Area = serde_json::from_str(&text).unwrap();
            assert_eq!(&read, area, "{text}");
        }
    }
}
