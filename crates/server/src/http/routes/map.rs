//! The terrain a client draws: `GET /api/map` (the map's box, chunk size, spawn, ground types and
//! areas) and `GET /api/map/chunk/<cx>/<cz>` (one square of tiles: walkable or not, and the ground
//! type of each).
//!
//! Computed from the current content on the HTTP side (`wayfarer_sim::content_map`, the same layout
//! the world walks on, without the seed-dependent fishing spots, which are entities) the first time
//! it is asked for, and kept with that content version: the world thread is never asked or locked.
//! Public and cacheable like the manifests (ETag/304, `max-age=300, must-revalidate`); not under the
//! REST rate limit, since a client loads a few dozen chunks of public content at once, as it loads
//! manifests.

use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use wayfarer_content::generated::{GeneratedWorld, Ground};
use wayfarer_content::Content;
use wayfarer_protocol::ws::TilePos;
use wayfarer_sim::TileMap;

use crate::app::AppState;
use crate::content_state::Tagged;
use crate::http::error::ApiError;
use crate::http::openapi::tags;
use crate::http::routes::content::conditional;
use wayfarer_protocol::ErrorBody;

/// Side of a chunk in tiles: the bundled world is 5 × 3 chunks.
pub const CHUNK_TILES: i32 = 64;
/// The ground type of tiles outside every area (never walkable).
pub const VOID_GROUND: &str = "void";

/// The terrain of one content version, with every chunk's answer made ready.
pub struct Terrain {
    /// `GET /api/map`.
    pub summary: Tagged,
    /// Chunk answers, row-major from the north-west chunk.
    chunks: Vec<Tagged>,
    /// The first chunk's coordinates and how many there are along x and z.
    first: (i32, i32),
    across: (i32, i32),
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct Summary<'a> {
    chunk_tiles: i32,
    min: TilePos,
    max: TilePos,
    /// Chunk coordinates covering the box, inclusive.
    chunks: ChunkRange,
    spawn: TilePos,
    grounds: &'a [String],
    areas: Vec<AreaSummary<'a>>,
    /// A generated world's whole island at one character per `block` × `block` tiles (the
    /// world map's picture), absent for a world of hand-placed areas.
    #[serde(skip_serializing_if = "Option::is_none")]
    overview: Option<Overview>,
    /// The towns of a generated world (none for a world of hand-placed areas only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    towns: Vec<TownSummary<'a>>,
    /// Buildings and fenced pens (CONTRACT §13): floor rectangles, roof, doors.
    buildings: Vec<BuildingSummary<'a>>,
    /// Points of interest, the map icons (CONTRACT §13).
    pois: Vec<PoiSummary<'a>>,
    /// Props: signposts (with their words), lamps, barrels, stalls, flowers.
    props: Vec<PropSummary<'a>>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct BuildingSummary<'a> {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    /// Floor rectangles, each `[north-west, south-east]` (inclusive); walls stand on the
    /// outline (the chunks' `walls`).
    tiles: Vec<[TilePos; 2]>,
    /// The roof's style; `none` for a fenced pen.
    roof: &'a str,
    /// The tiles inside the outline its doors (or gates) stand on.
    doors: Vec<TilePos>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct PoiSummary<'a> {
    /// `bank`, `shop`, `furnace`, `anvil`, `range`, `altar`, `runeAltar`, `fishing`, `tanner`,
    /// `quest`, `agility`, `arena`, `spawn` or `teleport`.
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    tile: TilePos,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct PropSummary<'a> {
    kind: &'a str,
    tile: TilePos,
    /// A signpost's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct Overview {
    /// Tiles per side of one block.
    block: i32,
    /// Blocks along x (and z: the island is square).
    width: i32,
    /// The north-west tile of the first block (north is −z, up the client's screen).
    min: TilePos,
    /// One character a block, rows from the north (z ascending), x ascending within a row, in the
    /// chunks' height alphabet: the index into `grounds` of the block's ground (a building, road or
    /// town tile in it wins over the ground at its middle, so roads and towns show at this scale).
    rows: String,
}

/// Tiles per side of one block of the overview.
pub const OVERVIEW_BLOCK_TILES: i32 = 4;

/// The overview of a generated world.
fn overview(world: &GeneratedWorld) -> Overview {
    let block = OVERVIEW_BLOCK_TILES;
    let width = (world.side + block - 1) / block;
    let mut rows = String::with_capacity((width * width) as usize);
    let rank = |g: u8| match Ground::ALL.get(usize::from(g)) {
        // Building, road (or bridge), town first; then whatever is in the middle.
        Some(Ground::Building) => 3,
        Some(Ground::Road | Ground::Bridge) => 2,
        Some(Ground::Town) => 1,
        _ => 0,
    };
    for bz in 0..width {
        for bx in 0..width {
            let (x0, z0) = (world.min.x + bx * block, world.min.z + bz * block);
            let mut best = (0, x0 + block / 2, z0 + block / 2);
            for z in z0..z0 + block {
                for x in x0..x0 + block {
                    if let Some(i) = world.index(x, z) {
                        let r = rank(world.ground[i]);
                        if r > best.0 {
                            best = (r, x, z);
                        }
                    }
                }
            }
            let index = generated_ground(world, best.1, best.2);
            rows.push(char::from(LEVELS[usize::from(index.min(63))]));
        }
    }
    Overview {
        block,
        width,
        min: TilePos {
            x: world.min.x,
            z: world.min.z,
        },
        rows,
    }
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct TownSummary<'a> {
    id: &'a str,
    name: &'a str,
    /// `town`, `village` or `hamlet`.
    size: &'a str,
    centre: TilePos,
    safe_radius: i32,
    /// Building rectangles (inclusive corners).
    buildings: Vec<[TilePos; 2]>,
    /// The town's stations, for icons on the maps.
    stations: Vec<StationSummary<'a>>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct StationSummary<'a> {
    station: &'a str,
    tile: TilePos,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct ChunkRange {
    min_x: i32,
    max_x: i32,
    min_z: i32,
    max_z: i32,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct AreaSummary<'a> {
    id: &'a str,
    name: &'a str,
    ground: &'a str,
    safe_zone: bool,
    pvp: bool,
    min: TilePos,
    max: TilePos,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct Chunk {
    cx: i32,
    cz: i32,
    /// The north-west tile (least x and z).
    x: i32,
    z: i32,
    size: i32,
    /// One character a tile, row by row from the north (z ascending), x ascending within a row:
    /// `1` walkable, `0` not.
    walkable: String,
    /// The index into `grounds` of each tile, in the same order.
    ground: Vec<u8>,
    /// One hex digit a tile, in the same order: the sides walled for good (1 north (−z), 2 east
    /// (+x), 4 south (+z), 8 west (−x); `0` none). A wall blocks both tiles that share it; doors
    /// and gates are entities of their own (`resourceType` `door`/`gate`, `open`, `side`).
    walls: String,
    /// A generated world's height of each tile, in the same order, for shading: one character a
    /// tile from the base64url alphabet (`A`…`Z`, `a`…`z`, `0`…`9`, `-`, `_` = 0…63, 63 the
    /// config's `maxHeight`). Absent for a world of hand-placed areas.
    #[serde(skip_serializing_if = "Option::is_none")]
    height: Option<String>,
}

/// A chunk's wall digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The base64url alphabet: a height level 0–63 as one character.
const LEVELS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The ground names of a generated world: the special grounds, then one per biome (the `Land`
/// code is drawn as the tile's biome). Index 0 stays `void` (outside the map).
fn generated_grounds(world: &GeneratedWorld) -> Vec<String> {
    let mut names = vec![VOID_GROUND.to_owned()];
    names.extend(
        Ground::ALL
            .iter()
            .filter(|g| **g != Ground::Land)
            .map(|g| g.name().to_owned()),
    );
    names.extend(world.biomes.iter().cloned());
    names
}

/// The index into [`generated_grounds`] of one tile.
fn generated_ground(world: &GeneratedWorld, x: i32, z: i32) -> u8 {
    let Some(i) = world.index(x, z) else {
        return 0;
    };
    let code = world.ground[i];
    let land = Ground::Land as u8;
    if code < land {
        code + 1
    } else {
        // After `void` and the special grounds (every code below `Land`).
        let biome = world.biome[i];
        (Ground::ALL.len() as u8).saturating_add(biome)
    }
}

/// The chunk holding a tile coordinate.
fn chunk_of(tile: i32) -> i32 {
    tile.div_euclid(CHUNK_TILES)
}

/// The ground type name of an area: its biome label, else `grass`.
fn area_ground(area: &wayfarer_content::Area) -> &str {
    area.biome_type.as_deref().unwrap_or("grass")
}

/// The tile of a world-unit coordinate (the sim's rule: floor).
fn tile(units: f64) -> i32 {
    units
        .floor()
        .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

impl Terrain {
    /// Lays out `content` and prepares every answer.
    pub fn build(content: &Content) -> Terrain {
        let (map, features) = wayfarer_sim::content_layout(content);
        let spawn = {
            let p = content.spawn_point();
            let hint = TilePos {
                x: tile(p.x),
                z: tile(p.z),
            };
            nearest_walkable(&map, hint)
        };
        let generated = content.generated.as_deref();
        let mut grounds = match generated {
            Some(world) => generated_grounds(world),
            None => vec![VOID_GROUND.to_owned()],
        };
        let areas: Vec<(&wayfarer_content::Area, u8, TilePos, TilePos)> = content
            .areas
            .values()
            .map(|a| {
                let name = area_ground(a);
                let index = grounds.iter().position(|g| g == name).unwrap_or_else(|| {
                    grounds.push(name.to_owned());
                    grounds.len() - 1
                });
                (
                    a,
                    u8::try_from(index).unwrap_or(u8::MAX),
                    TilePos {
                        x: tile(a.bounds.min_x),
                        z: tile(a.bounds.min_z),
                    },
                    TilePos {
                        x: tile(a.bounds.max_x),
                        z: tile(a.bounds.max_z),
                    },
                )
            })
            .collect();
        // Grounds content lays over the areas' (water, pier, path, a building's floor).
        let mut ground_index = |name: &str| -> u8 {
            let index = grounds.iter().position(|g| g == name).unwrap_or_else(|| {
                grounds.push(name.to_owned());
                grounds.len() - 1
            });
            u8::try_from(index).unwrap_or(u8::MAX)
        };
        let laid: Vec<(u8, TilePos, TilePos)> = features
            .buildings
            .iter()
            .filter(|b| !b.pen)
            .map(|b| ("floor", b.min, b.max))
            .chain(
                features
                    .grounds
                    .iter()
                    .map(|(g, a, b)| (g.as_str(), *a, *b)),
            )
            .map(|(g, a, b)| (ground_index(g), a, b))
            .collect();
        // Buildings first, then patches in order: the last holding a tile names its ground,
        // except that a building's floor wins (`MapFeatures::ground_at`).
        let floors = features.buildings.iter().filter(|b| !b.pen).count();
        let laid_ground = |x: i32, z: i32| -> Option<u8> {
            let inside =
                |(_, a, b): &&(u8, TilePos, TilePos)| x >= a.x && x <= b.x && z >= a.z && z <= b.z;
            laid[..floors]
                .iter()
                .find(inside)
                .or_else(|| laid[floors..].iter().rev().find(inside))
                .map(|(g, _, _)| *g)
        };
        let (lo, hi) = (map.min(), map.max());
        let first = (chunk_of(lo.x), chunk_of(lo.z));
        let last = (chunk_of(hi.x), chunk_of(hi.z));
        let across = (last.0 - first.0 + 1, last.1 - first.1 + 1);
        let mut chunks = Vec::with_capacity((across.0 * across.1).max(0) as usize);
        for cz in first.1..=last.1 {
            for cx in first.0..=last.0 {
                let (x0, z0) = (cx * CHUNK_TILES, cz * CHUNK_TILES);
                let tiles = (CHUNK_TILES * CHUNK_TILES) as usize;
                let mut walkable = String::with_capacity(tiles);
                let mut ground = Vec::with_capacity(tiles);
                let mut walls = String::with_capacity(tiles);
                let mut height = generated.map(|_| String::with_capacity(tiles));
                for z in z0..z0 + CHUNK_TILES {
                    for x in x0..x0 + CHUNK_TILES {
                        let t = TilePos { x, z };
                        walkable.push(if map.is_walkable(t) { '1' } else { '0' });
                        walls.push(char::from(HEX[usize::from(map.walls_at(t) & 0x0f)]));
                        if let Some(g) = laid_ground(x, z) {
                            if let (Some(world), Some(height)) = (generated, height.as_mut()) {
                                let h = world.index(x, z).map_or(0, |i| world.height[i]);
                                height.push(char::from(LEVELS[usize::from(h / 4)]));
                            }
                            ground.push(g);
                            continue;
                        }
                        if let (Some(world), Some(height)) = (generated, height.as_mut()) {
                            let h = world.index(x, z).map_or(0, |i| world.height[i]);
                            height.push(char::from(LEVELS[usize::from(h / 4)]));
                            ground.push(generated_ground(world, x, z));
                            continue;
                        }
                        // The first area (in content order) holding the tile names its ground,
                        // as the first one decides a tile's area elsewhere.
                        let g = areas
                            .iter()
                            .find(|(_, _, a, b)| x >= a.x && x <= b.x && z >= a.z && z <= b.z)
                            .map_or(0, |(_, g, _, _)| *g);
                        ground.push(g);
                    }
                }
                let body = Chunk {
                    cx,
                    cz,
                    x: x0,
                    z: z0,
                    size: CHUNK_TILES,
                    walkable,
                    ground,
                    walls,
                    height,
                };
                chunks.push(Tagged::new(serde_json::to_vec(&body).unwrap_or_default()));
            }
        }
        let summary = Summary {
            chunk_tiles: CHUNK_TILES,
            min: lo,
            max: hi,
            chunks: ChunkRange {
                min_x: first.0,
                max_x: last.0,
                min_z: first.1,
                max_z: last.1,
            },
            spawn,
            grounds: &grounds,
            areas: areas
                .iter()
                .map(|(a, _, min, max)| AreaSummary {
                    id: a.id.as_str(),
                    name: &a.name,
                    ground: area_ground(a),
                    safe_zone: a.safe_zone,
                    pvp: a.pvp,
                    min: *min,
                    max: *max,
                })
                .collect(),
            overview: generated.map(overview),
            towns: generated
                .map(|world| {
                    world
                        .towns
                        .iter()
                        .map(|t| TownSummary {
                            id: &t.area_id,
                            name: &t.name,
                            size: &t.size,
                            centre: TilePos {
                                x: t.centre.x,
                                z: t.centre.z,
                            },
                            safe_radius: t.safe_radius,
                            buildings: t
                                .buildings
                                .iter()
                                .map(|(a, b)| {
                                    [TilePos { x: a.x, z: a.z }, TilePos { x: b.x, z: b.z }]
                                })
                                .collect(),
                            stations: content
                                .areas
                                .get(&t.area_id)
                                .map(|a| {
                                    a.stations
                                        .iter()
                                        .map(|s| StationSummary {
                                            station: &s.station,
                                            tile: TilePos {
                                                x: tile(s.position.x),
                                                z: tile(s.position.z),
                                            },
                                        })
                                        .collect()
                                })
                                .unwrap_or_default(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            buildings: features
                .buildings
                .iter()
                .map(|b| BuildingSummary {
                    id: b.id.clone(),
                    name: b.name.as_deref(),
                    tiles: vec![[b.min, b.max]],
                    roof: b.roof.as_deref().unwrap_or("none"),
                    doors: b.doors.clone(),
                })
                .collect(),
            pois: features
                .pois
                .iter()
                .map(|p| PoiSummary {
                    kind: &p.kind,
                    name: p.name.as_deref(),
                    tile: p.tile,
                })
                .collect(),
            props: features
                .props
                .iter()
                .map(|p| PropSummary {
                    kind: &p.kind,
                    tile: p.tile,
                    text: p.text.as_deref(),
                })
                .collect(),
        };
        Terrain {
            summary: Tagged::new(serde_json::to_vec(&summary).unwrap_or_default()),
            chunks,
            first,
            across,
        }
    }

    /// The answer for chunk (`cx`, `cz`), if it overlaps the map.
    pub fn chunk(&self, cx: i32, cz: i32) -> Option<&Tagged> {
        let (dx, dz) = (
            i64::from(cx) - i64::from(self.first.0),
            i64::from(cz) - i64::from(self.first.1),
        );
        if dx < 0 || dz < 0 || dx >= i64::from(self.across.0) || dz >= i64::from(self.across.1) {
            return None;
        }
        self.chunks
            .get((dz * i64::from(self.across.0) + dx) as usize)
    }
}

/// The walkable tile nearest `hint` (where players appear), or `hint` itself.
fn nearest_walkable(map: &TileMap, hint: TilePos) -> TilePos {
    map.nearest_walkable(hint).unwrap_or(hint)
}

/// A terrain being built or built once, shared by the requests that wait for it.
type TerrainCell = Arc<OnceLock<Arc<Terrain>>>;

/// The terrain of the content version last asked about, rebuilt when content changes.
#[derive(Default)]
pub struct TerrainCache {
    /// The content it was built from (compared by pointer: a new version is a new `Arc`).
    current: Mutex<Option<(Arc<Content>, TerrainCell)>>,
}

impl TerrainCache {
    /// The terrain of `content`, built on a blocking thread the first time (the clipped map can be
    /// 4096 × 4096 tiles; building it must not hold up the runtime's threads).
    pub async fn get(&self, content: Arc<Content>) -> Result<Arc<Terrain>, ApiError> {
        let cell = {
            let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
            match &*current {
                Some((c, cell)) if Arc::ptr_eq(c, &content) => cell.clone(),
                _ => {
                    let cell = Arc::new(OnceLock::new());
                    *current = Some((content.clone(), cell.clone()));
                    cell
                }
            }
        };
        if let Some(terrain) = cell.get() {
            return Ok(terrain.clone());
        }
        tokio::task::spawn_blocking(move || {
            cell.get_or_init(|| Arc::new(Terrain::build(&content)))
                .clone()
        })
        .await
        .map_err(|_| ApiError::internal("the map could not be built"))
    }
}

/// `GET /api/map`.
#[utoipa::path(
    get,
    path = "/api/map",
    tag = tags::CONTENT,
    summary = "The map's box, chunk size, spawn, ground types and areas",
    description = "Public content like the manifests (not under the REST limit); ETag and 304.",
    params(("If-None-Match" = Option<String>, Header, description = "Entity tags the client holds, or `*`")),
    responses(
        (status = 200, description = "The map's summary", body = Summary,
            headers(("ETag" = String, description = "Strong entity tag"), ("Cache-Control" = String))),
        (status = 304, description = "The client's copy is current")
    )
)]
pub async fn summary(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let terrain = state
        .terrain
        .get(state.content.get().content.clone())
        .await?;
    Ok(conditional(&headers, &terrain.summary))
}

/// `GET /api/map/chunk/<cx>/<cz>`.
#[utoipa::path(
    get,
    path = "/api/map/chunk/{cx}/{cz}",
    tag = tags::CONTENT,
    summary = "One chunk of tiles: walkable or not, and each tile's ground type",
    params(
        ("cx" = String, Path, description = "The chunk's x (a whole number; chunks cover `chunkTiles` tiles)"),
        ("cz" = String, Path, description = "The chunk's z"),
        ("If-None-Match" = Option<String>, Header, description = "Entity tags the client holds, or `*`")
    ),
    responses(
        (status = 200, description = "The chunk", body = Chunk,
            headers(("ETag" = String, description = "Strong entity tag"), ("Cache-Control" = String))),
        (status = 304, description = "The client's copy is current"),
        (status = 400, description = "`bad_request`: a coordinate is not a whole number", body = ErrorBody),
        (status = 404, description = "`not_found`: the chunk is outside the map", body = ErrorBody)
    )
)]
pub async fn chunk(
    State(state): State<AppState>,
    Path((cx, cz)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (Ok(cx), Ok(cz)) = (cx.parse::<i32>(), cz.parse::<i32>()) else {
        return Err(ApiError::bad_request("chunk coordinates are whole numbers"));
    };
    let terrain = state
        .terrain
        .get(state.content.get().content.clone())
        .await?;
    let tagged = terrain
        .chunk(cx, cz)
        .ok_or_else(|| ApiError::not_found(format!("no chunk {cx},{cz}: outside the map")))?;
    Ok(conditional(&headers, tagged))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_map_and_agree_with_the_walkable_layout() {
        let content = wayfarer_content::load_bundled();
        let map = wayfarer_sim::content_map(&content);
        let terrain = Terrain::build(&content);
        let (lo, hi) = (map.min(), map.max());
        for (x, z) in [(lo.x, lo.z), (hi.x, hi.z), (0, 0), (-5, 7)] {
            let body = terrain.chunk(chunk_of(x), chunk_of(z)).expect("chunk");
            let chunk: serde_json::Value = serde_json::from_slice(&body.body).expect("json");
            let i = ((z - chunk["z"].as_i64().unwrap() as i32) * CHUNK_TILES
                + (x - chunk["x"].as_i64().unwrap() as i32)) as usize;
            let walkable = chunk["walkable"].as_str().unwrap().as_bytes()[i] == b'1';
            assert_eq!(walkable, map.is_walkable(TilePos { x, z }), "({x},{z})");
        }
        assert!(terrain.chunk(chunk_of(hi.x) + 1, 0).is_none());
        assert!(terrain.chunk(i32::MIN, i32::MAX).is_none());
    }

    /// The chunk JSON holding tile (`x`, `z`) and the tile's index in it.
    fn chunk_at(terrain: &Terrain, x: i32, z: i32) -> (serde_json::Value, usize) {
        let body = terrain.chunk(chunk_of(x), chunk_of(z)).expect("chunk");
        let chunk: serde_json::Value = serde_json::from_slice(&body.body).expect("json");
        let i = ((z - chunk["z"].as_i64().unwrap() as i32) * CHUNK_TILES
            + (x - chunk["x"].as_i64().unwrap() as i32)) as usize;
        (chunk, i)
    }

    #[test]
    fn the_bundled_town_serves_its_buildings_points_of_interest_walls_and_water() {
        let content = wayfarer_content::load_bundled();
        let terrain = Terrain::build(&content);
        let summary: serde_json::Value = serde_json::from_slice(&terrain.summary.body).unwrap();
        let bank = summary["buildings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == "millbrook_bank")
            .expect("the bank is a building");
        assert_eq!(bank["name"], "Millbrook Bank");
        assert_eq!(bank["tiles"][0][0], serde_json::json!({"x": 5, "z": -9}));
        assert_eq!(bank["doors"], serde_json::json!([{"x": 9, "z": -3}]));
        assert_eq!(bank["roof"], "slate");
        let kinds: std::collections::BTreeSet<&str> = summary["pois"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["kind"].as_str().unwrap())
            .collect();
        // Every kind of point of interest but a teleport (the bundled town has none).
        for kind in wayfarer_content::features::POI_KINDS
            .into_iter()
            .filter(|k| *k != "teleport")
        {
            assert!(kinds.contains(kind), "{kind} in {kinds:?}");
        }
        let sign = summary["props"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["kind"] == "signpost")
            .expect("a signpost");
        assert!(sign["text"].as_str().unwrap().contains("Whispering Woods"));
        // The bank's west wall: one hex digit a tile, 8 (west) on its west column.
        let (chunk, i) = chunk_at(&terrain, 5, -6);
        let walls = chunk["walls"].as_str().unwrap();
        assert_eq!(walls.len(), (CHUNK_TILES * CHUNK_TILES) as usize);
        assert_eq!(&walls[i..=i], "8");
        let (chunk, i) = chunk_at(&terrain, 4, -6);
        assert_eq!(
            &chunk["walls"].as_str().unwrap()[i..=i],
            "2",
            "the tile across"
        );
        // The door's side is no wall (the door is an entity).
        let (chunk, i) = chunk_at(&terrain, 9, -3);
        assert_eq!(&chunk["walls"].as_str().unwrap()[i..=i], "0");
        let grounds: Vec<&str> = summary["grounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        let ground_at = |x, z| {
            let (chunk, i) = chunk_at(&terrain, x, z);
            let g = chunk["ground"][i].as_u64().unwrap() as usize;
            (
                grounds[g].to_owned(),
                chunk["walkable"].as_str().unwrap().as_bytes()[i],
            )
        };
        assert_eq!(ground_at(28, 25), ("water".to_owned(), b'0'));
        assert_eq!(ground_at(31, 20), ("pier".to_owned(), b'1'));
        assert_eq!(ground_at(9, -6), ("floor".to_owned(), b'1'));
        assert_eq!(ground_at(20, 1), ("path".to_owned(), b'1'));
    }

    #[test]
    fn a_generated_world_serves_its_grounds_heights_towns_and_overview() {
        let mut set = wayfarer_content::bundled();
        let mut config: serde_json::Value =
            serde_json::from_slice(&set.files["world-config.json"]).unwrap();
        config["generate"] = serde_json::json!(true);
        config["towns"]["worldSize"] = serde_json::json!(600);
        set.insert("world-config.json", config.to_string());
        let (mut content, _) = Content::from_files(&set).expect("loads");
        assert!(wayfarer_sim::worldgen::apply(&mut content, Some(3)));
        let world = content.generated.clone().unwrap();
        let terrain = Terrain::build(&content);
        let summary: serde_json::Value = serde_json::from_slice(&terrain.summary.body).unwrap();
        let grounds: Vec<&str> = summary["grounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        for name in ["void", "water", "shore", "road", "town", "building"] {
            assert!(grounds.contains(&name), "{name} in {grounds:?}");
        }
        let town = &summary["towns"][0];
        assert!(
            town["name"].is_string() && town["stations"].is_array(),
            "{town}"
        );
        // Its points of interest: the spawn, the towns' stations and NPCs, fishing spots.
        let kinds: std::collections::BTreeSet<&str> = summary["pois"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["kind"].as_str().unwrap())
            .collect();
        for kind in ["spawn", "bank", "fishing", "furnace"] {
            assert!(kinds.contains(kind), "{kind} in {kinds:?}");
        }
        // The towns' houses are buildings with a door and a roof (worldgen::furnish).
        let houses: Vec<&serde_json::Value> = summary["buildings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["id"].as_str().is_some_and(|id| id.contains("_house_")))
            .collect();
        assert!(!houses.is_empty(), "the towns' houses are buildings");
        for house in houses {
            assert_eq!(house["doors"].as_array().map(Vec::len), Some(1), "{house}");
            assert_ne!(house["roof"], "none", "{house}");
        }
        let width = summary["overview"]["width"].as_i64().unwrap();
        assert_eq!(width, 150);
        assert_eq!(
            summary["overview"]["rows"].as_str().unwrap().len() as i64,
            width * width
        );
        // The chunk holding the town's centre shows town ground there, with heights.
        let (x, z) = (
            town["centre"]["x"].as_i64().unwrap() as i32,
            town["centre"]["z"].as_i64().unwrap() as i32,
        );
        let body = terrain.chunk(chunk_of(x), chunk_of(z)).expect("chunk");
        let chunk: serde_json::Value = serde_json::from_slice(&body.body).unwrap();
        let i = ((z - chunk["z"].as_i64().unwrap() as i32) * CHUNK_TILES
            + (x - chunk["x"].as_i64().unwrap() as i32)) as usize;
        let ground = chunk["ground"][i].as_u64().unwrap() as usize;
        assert!(
            ["town", "road"].contains(&grounds[ground]),
            "{}",
            grounds[ground]
        );
        assert_eq!(chunk["walkable"].as_str().unwrap().as_bytes()[i], b'1');
        let height = chunk["height"].as_str().unwrap();
        assert_eq!(height.len(), (CHUNK_TILES * CHUNK_TILES) as usize);
        assert!(height.bytes().all(|b| LEVELS.contains(&b)));
        // A water tile is drawn as water and never walkable.
        let wet = (0..world.ground.len())
            .find(|&i| world.ground[i] == Ground::Water as u8)
            .map(|i| {
                let side = world.side as usize;
                (
                    world.min.x + (i % side) as i32,
                    world.min.z + (i / side) as i32,
                )
            })
            .expect("the island has water");
        let body = terrain.chunk(chunk_of(wet.0), chunk_of(wet.1)).unwrap();
        let chunk: serde_json::Value = serde_json::from_slice(&body.body).unwrap();
        let i = ((wet.1 - chunk["z"].as_i64().unwrap() as i32) * CHUNK_TILES
            + (wet.0 - chunk["x"].as_i64().unwrap() as i32)) as usize;
        assert_eq!(
            grounds[chunk["ground"][i].as_u64().unwrap() as usize],
            "water"
        );
        assert_eq!(chunk["walkable"].as_str().unwrap().as_bytes()[i], b'0');
    }
}
