//! The data of a world generated from `world-config.json`. The generator itself lives in the
//! simulation (`wayfarer_sim::worldgen`); it stores its result here, beside the content it was made
//! from, so the world thread and the HTTP map routes read one copy.

use crate::areas::{MobSpawn, ResourceSpawn};
use crate::common::{BiomeId, Tile};

/// What covers a tile, as the client draws it. Water is the only ground never walked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Ground {
    /// Below the water threshold and not bridged.
    Water = 0,
    /// Land next to water (fishing spots stand here).
    Shore = 1,
    /// A road (also over water, as a bridge).
    Road = 2,
    /// A town's open ground.
    Town = 3,
    /// A town building's floor: walkable inside its walls, which the town's features put on its
    /// outline with a door (`worldgen::furnish`).
    Building = 4,
    /// A road over water.
    Bridge = 5,
    /// Any other land; its biome is in [`GeneratedWorld::biome`]. Last: the codes below it are the
    /// special grounds (`GET /api/map` counts on it).
    Land = 6,
}

impl Ground {
    /// Every ground kind, in code order.
    pub const ALL: [Ground; 7] = [
        Ground::Water,
        Ground::Shore,
        Ground::Road,
        Ground::Town,
        Ground::Building,
        Ground::Bridge,
        Ground::Land,
    ];

    /// The name clients draw it by.
    pub fn name(self) -> &'static str {
        match self {
            Ground::Water => "water",
            Ground::Shore => "shore",
            Ground::Road => "road",
            Ground::Town => "town",
            Ground::Building => "building",
            Ground::Bridge => "bridge",
            Ground::Land => "land",
        }
    }

    /// Whether a tile of this ground can be stood on (before anything is placed on it).
    pub fn walkable(self) -> bool {
        self != Ground::Water
    }
}

/// A generated town (its area, with stations and NPCs, is in `Content::areas`).
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedTown {
    /// The area id.
    pub area_id: String,
    /// Display name.
    pub name: String,
    /// `town`, `village` or `hamlet`.
    pub size: String,
    /// The centre tile.
    pub centre: Tile,
    /// Safe radius in tiles.
    pub safe_radius: i32,
    /// Building rectangles (inclusive corners).
    pub buildings: Vec<(Tile, Tile)>,
}

/// A world generated from `world-config.json`: a square of tiles with the ground and height of each,
/// the towns, and the spawns placed by biome (hand-placed ones stay in their areas).
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedWorld {
    /// North-west tile (least x and z; north is −z).
    pub min: Tile,
    /// Side of the square in tiles.
    pub side: i32,
    /// [`Ground`] code per tile, row-major from the north-west (z rows, x within a row).
    pub ground: Vec<u8>,
    /// Biome per tile: an index into `biomes`.
    pub biome: Vec<u8>,
    /// Height per tile, 0 (lowest) to 255 (`maxHeight`).
    pub height: Vec<u8>,
    /// The water threshold on the same 0–255 scale.
    pub water_level: u8,
    /// Biome ids for `biome`.
    pub biomes: Vec<BiomeId>,
    /// Generated towns.
    pub towns: Vec<GeneratedTown>,
    /// Mob spawners placed by biome.
    pub mob_spawns: Vec<MobSpawn>,
    /// Gathering nodes placed by biome (trees; fishing spots on shores).
    pub resources: Vec<ResourceSpawn>,
    /// The seed the world was made from (config seeds mixed with `WORLD_SEED`).
    pub seed: u64,
}

impl GeneratedWorld {
    /// The index of a tile, when inside.
    pub fn index(&self, x: i32, z: i32) -> Option<usize> {
        let (dx, dz) = (
            i64::from(x) - i64::from(self.min.x),
            i64::from(z) - i64::from(self.min.z),
        );
        let side = i64::from(self.side);
        (dx >= 0 && dz >= 0 && dx < side && dz < side).then(|| (dz * side + dx) as usize)
    }

    /// The ground of a tile (water outside the square).
    pub fn ground_at(&self, x: i32, z: i32) -> Ground {
        self.index(x, z)
            .and_then(|i| Ground::ALL.get(usize::from(self.ground[i])).copied())
            .unwrap_or(Ground::Water)
    }
}
