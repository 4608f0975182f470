//! What each player sees: the entities within [`VIEW_RADIUS_TILES`] (the nearest
//! [`MAX_VISIBLE_PLAYERS`] other players, [`MAX_VISIBLE_NPCS`] NPCs and [`MAX_VISIBLE_GROUND_ITEMS`]
//! ground items; every resource), and the per-tick difference from what the player saw before, as a
//! `world:update`.
//!
//! A viewer is recomputed only when it moved or when a grid cell within its view changed this tick;
//! the work per viewer is bounded by the cells around it (and, in a crowd, stops widening once the
//! nearest players and NPCs are certain), so it does not grow with the players elsewhere. The sets and
//! candidate lists live in buffers reused from tick to tick.

use std::collections::HashSet;
use std::mem;
use std::sync::Arc;

use wayfarer_protocol::ws::{
    AddedList, Changed, MovedList, RemovedList, TickEntities, TickMoves, TilePos, WorldUpdate,
};

use crate::chat::hearing::{HearScratch, Hearing};
use crate::entities::{slot_index, slot_of, Entities, Handle, TickFlags};
use crate::grid::{Occupant, SpatialGrid};
use crate::map::chebyshev;

mod shared;

/// How far a player sees, in tiles (Chebyshev).
pub const VIEW_RADIUS_TILES: i32 = 32;
/// Most other players shown to one client (the nearest).
pub const MAX_VISIBLE_PLAYERS: usize = 255;
/// Most NPCs shown to one client (the nearest).
pub const MAX_VISIBLE_NPCS: usize = 255;
/// Most ground items shown to one client (the nearest). Without a cap a pile grows with whoever
/// drops near it: a thousand agents left about 3,000 items in the bundled world's few busy spots,
/// and every client near them held and was sent all of them.
pub const MAX_VISIBLE_GROUND_ITEMS: usize = 255;

/// What one player's client has been shown.
#[derive(Debug)]
pub(crate) struct Viewer {
    /// The slots of the entities the client knows, sorted; includes the player itself. A slot,
    /// not a whole handle: half the bytes (a crowd's viewer holds ~510), and no viewer ever holds a
    /// slot's previous occupant, since an entity leaving dirties its cell and every view showing
    /// it drops it that tick, before its slot is freed (`tests/sim/parallel_views.rs` checks the
    /// updates against views recomputed every tick).
    visible: Vec<u32>,
    /// The client has been shown nothing yet: everything in view goes out as `added`.
    fresh: bool,
}

impl Viewer {
    /// A client that has seen nothing.
    pub fn new() -> Viewer {
        Viewer {
            visible: Vec::new(),
            fresh: true,
        }
    }

    /// The slots ([`slot_of`]) of the entities the client has been shown, sorted (the player
    /// itself among them once a view has been computed).
    pub fn shown(&self) -> &[u32] {
        &self.visible
    }

    /// Forgets what was shown (a new connection for the same character).
    pub fn reset(&mut self) {
        self.visible.clear();
        self.fresh = true;
    }
}

/// Buffers reused by the view computations of one thread.
#[derive(Debug, Default)]
pub(crate) struct ViewScratch {
    players: Vec<(u32, Handle)>,
    npcs: Vec<(u32, Handle)>,
    ground: Vec<(u32, Handle)>,
    next: Vec<Handle>,
    /// [`sort_by_slot`]'s table.
    order: SlotOrder,
    /// The candidates at the distance where [`nearest`] reaches its cap.
    ties: Vec<(u32, Handle)>,
    /// Players, NPCs and ground items gathered, counted by distance.
    counts: ClassCounts,
    /// The view of a crowded centre, shared by the viewers standing on it (`shared.rs`).
    shared: shared::SharedView,
    /// A diff's lists as they are filled ([`diff`]), each moved into an exact allocation at the end.
    lists: DiffLists,
    /// Who hears which of the tick's local lines (`chat::hearing`).
    hear: HearScratch,
    /// The entities this thread's updates add or remove this tick.
    taken: Taken,
}

/// The entities one view thread's updates of a tick add or remove, each taken once into a
/// [`TickEntities`] table that all of them share (`wayfarer_protocol`'s `tick_entities` says why):
/// the diff asks for an entity's index by slot, and only the first ask of the tick touches the
/// entity itself.
#[derive(Debug, Default)]
struct Taken {
    table: TickEntities,
    /// By slot, the index in `table` of the slot's added entity, [`NOT_TAKEN`] when not taken.
    added_at: Vec<u32>,
    /// By slot, the index in `table` of the slot's removed id, [`NOT_TAKEN`] when not taken.
    removed_at: Vec<u32>,
    /// The slots taken this tick, whose entries [`Taken::seal`] clears.
    added_slots: Vec<u32>,
    removed_slots: Vec<u32>,
}

/// In [`Taken`]'s tables: the slot's entity is not in this tick's table.
const NOT_TAKEN: u32 = u32::MAX;

impl Taken {
    /// The table index of the live entity `handle`, taking it on its first ask this tick.
    fn added(&mut self, handle: Handle, entities: &Entities) -> Option<u32> {
        let slot = slot_index(handle);
        if self.added_at.len() <= slot {
            self.added_at.resize(slot + 1, NOT_TAKEN);
        }
        if self.added_at[slot] == NOT_TAKEN {
            let body = entities.get(handle)?;
            self.added_at[slot] = self.table.push_added(Arc::clone(&body.wire));
            self.added_slots.push(slot as u32);
        }
        Some(self.added_at[slot])
    }

    /// The table index of the id of the entity in `slot` (one a viewer showed, removed or not),
    /// taking it on its first ask this tick.
    fn removed(&mut self, slot: u32, entities: &Entities) -> Option<u32> {
        let at = slot as usize;
        if self.removed_at.len() <= at {
            self.removed_at.resize(at + 1, NOT_TAKEN);
        }
        if self.removed_at[at] == NOT_TAKEN {
            let id = entities.id_in_slot(slot)?;
            self.removed_at[at] = self.table.push_removed(Arc::clone(id));
            self.removed_slots.push(slot);
        }
        Some(self.removed_at[at])
    }

    /// The tick's table, for the updates to share; the next tick starts with an empty one.
    fn seal(&mut self) -> Arc<TickEntities> {
        for slot in self.added_slots.drain(..) {
            self.added_at[slot as usize] = NOT_TAKEN;
        }
        for slot in self.removed_slots.drain(..) {
            self.removed_at[slot as usize] = NOT_TAKEN;
        }
        Arc::new(mem::take(&mut self.table))
    }
}

/// What [`diff`] fills before it knows how long each list is: kept by the view thread, so an
/// update's lists are each one allocation of their final size instead of a run of doublings
/// (a crowd's viewer gains and loses a few entities at the cut every tick: ~12 reallocations an
/// update, 4 % of the view phase).
#[derive(Debug, Default)]
struct DiffLists {
    /// Indices in the thread's [`Taken`] table.
    added: Vec<u32>,
    changed: Vec<Changed>,
    /// Indices in the thread's [`Taken`] table.
    removed: Vec<u32>,
}

/// What every view of one tick reads: the world as the tick left it.
#[derive(Clone, Copy)]
pub(crate) struct ViewInputs<'a> {
    pub grid: &'a SpatialGrid,
    pub entities: &'a Entities,
    /// This tick's moves, each encoded once ([`Entities::tick_moves`]).
    pub moves: &'a Arc<TickMoves>,
    pub now: u64,
    /// Recompute every view, quiet or not: the oracle the tests compare the skipping with.
    pub every_view: bool,
    /// This tick's local lines, when there are any: each viewer's listening is asked from its
    /// shown list before the view refreshes it.
    pub hearing: Option<&'a Hearing>,
}

/// A player whose view is due this tick.
pub(crate) struct Due<'a> {
    pub me: Handle,
    pub viewer: &'a mut Viewer,
    /// Whom the player ignores (lower-cased names), for the local lines it hears.
    pub ignored: &'a HashSet<String>,
}

/// What a due view gives: the update to send, and the local lines heard (indices into the tick's
/// [`crate::events::Event::LocalChat`] lines, `None` when none).
#[derive(Debug)]
pub(crate) struct Seen {
    pub update: Option<WorldUpdate>,
    pub heard: Option<Vec<u32>>,
}

/// An update before its thread's table of the tick's added and removed entities is sealed: its
/// `added` and `removed` lists as indices into that table.
/// (Its fields, not a `WorldUpdate` with empty lists: an empty list's shared table is one
/// reference count that every update of every thread would take and drop.)
#[derive(Debug)]
struct Fresh {
    tick: u64,
    moved: MovedList,
    changed: Vec<Changed>,
    added: Vec<u32>,
    removed: Vec<u32>,
}

/// A due view's result before its thread's table is sealed ([`finish`] makes it a [`Seen`]).
struct Pending {
    fresh: Option<Fresh>,
    heard: Option<Vec<u32>>,
}

/// The views' results with their lists picking from `table`, the table of the thread that made them.
fn finish(pending: Vec<Pending>, table: &Arc<TickEntities>) -> Vec<Seen> {
    pending
        .into_iter()
        .map(|Pending { fresh, heard }| Seen {
            update: fresh.map(|fresh| WorldUpdate {
                tick: fresh.tick,
                added: AddedList::picking(Arc::clone(table), fresh.added),
                moved: fresh.moved,
                changed: fresh.changed,
                removed: RemovedList::picking(Arc::clone(table), fresh.removed),
                stamina: None,
            }),
            heard,
        })
        .collect()
}

/// Brings `viewer` (the player `me`) up to date for tick `now`, returning the update to send, or `None`
/// when nothing in view changed.
fn refresh(
    me: Handle,
    viewer: &mut Viewer,
    inputs: ViewInputs<'_>,
    scratch: &mut ViewScratch,
) -> Option<Fresh> {
    let ViewInputs {
        grid,
        entities,
        now,
        every_view,
        ..
    } = inputs;
    let mark = entities.mark(me)?;
    let centre = mark.tile;
    let span = grid.span(centre, VIEW_RADIUS_TILES);
    let quiet = !viewer.fresh && mark.moved_at != now && !grid.any_dirty(span, now);
    if quiet && !every_view {
        return None;
    }
    viewer.fresh = false;
    shared::collect_for(me, centre, grid, scratch, now);
    let fresh = diff(
        &viewer.visible,
        &scratch.next,
        inputs,
        &mut scratch.lists,
        &mut scratch.taken,
    );
    keep_shown(&mut viewer.visible, &scratch.next);
    let empty = fresh.added.is_empty()
        && fresh.removed.is_empty()
        && fresh.moved.is_empty()
        && fresh.changed.is_empty();
    (!empty).then_some(fresh)
}

/// Copies the new list into the viewer's own, keeping its room near the list's size. (Swapping
/// with the scratch list made every viewer's list circulate among the viewers of a thread and end
/// up with the room of the largest list that thread ever built: a crowd's idle players each held
/// kilobytes of it. The copy is a few kilobytes of memcpy per refreshed viewer.)
fn keep_shown(shown: &mut Vec<u32>, next: &[Handle]) {
    let len = next.len();
    let room = shown.capacity();
    if room < len || room > 2 * len + SHOWN_SLACK {
        *shown = Vec::with_capacity(len + len / 8);
    }
    shown.clear();
    shown.extend(next.iter().map(|&h| slot_of(h)));
}

/// Spare room a viewer's list may keep beyond twice its length before it is reallocated.
const SHOWN_SLACK: usize = 16;

/// Fewest views worth a thread of their own: below this, starting a thread costs more than the
/// views it would take over. (A tick with fewer due views runs them on the world thread alone,
/// whatever [`World::set_tick_threads`](crate::World::set_tick_threads) allows.)
pub const VIEWS_PER_THREAD: usize = 128;
/// Most threads [`World::set_tick_threads`](crate::World::set_tick_threads) accepts (`TICK_THREADS`):
/// each one more is started every tick with a crowd in view, and past a machine's cores they only
/// take turns.
pub const MAX_TICK_THREADS: usize = 64;
/// Views handed to a thread at a time.
const VIEWS_PER_BLOCK: usize = 32;

/// Threads for the views of a tick and their buffers. Views are independent of each other (each
/// reads the grid and entities and writes only its own viewer), so a crowd's views are split over
/// the machine's cores: in a 2,000-player crowd they are the largest part of the tick.
#[derive(Debug)]
pub(crate) struct ViewWorkers {
    threads: usize,
    scratches: Vec<ViewScratch>,
}

impl ViewWorkers {
    /// As many threads as the machine runs at once (at most four: beyond that the gain is lost in
    /// the cost of starting them each tick).
    pub fn for_this_machine() -> ViewWorkers {
        Self::with_threads(std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
    }

    /// At most `threads` threads (at least one, at most [`MAX_TICK_THREADS`]).
    pub fn with_threads(threads: usize) -> ViewWorkers {
        ViewWorkers {
            threads: threads.clamp(1, MAX_TICK_THREADS),
            scratches: Vec::new(),
        }
    }

    /// The most threads a tick's views may use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// [`refresh`] for each due view (and, when there are local lines, who hears them:
    /// [`Hearing::heard_by`], asked before the refresh), on up to `threads` threads; the results
    /// are those of one after another, in order (the bytes of each update too: which thread's
    /// table an update picks from does not change what it lists).
    pub fn refresh_all(&mut self, viewers: &mut [Due<'_>], inputs: ViewInputs<'_>) -> Vec<Seen> {
        let threads = self.threads.min(viewers.len() / VIEWS_PER_THREAD).max(1);
        if self.scratches.len() < threads {
            self.scratches.resize_with(threads, ViewScratch::default);
        }
        let run = |block: &mut [Due<'_>], scratch: &mut ViewScratch| {
            block
                .iter_mut()
                .map(|due| {
                    let heard = inputs.hearing.and_then(|hearing| {
                        hearing.heard_by(due.me, due.viewer.shown(), due.ignored, &mut scratch.hear)
                    });
                    Pending {
                        fresh: refresh(due.me, due.viewer, inputs, scratch),
                        heard,
                    }
                })
                .collect::<Vec<_>>()
        };
        let mut done = crate::work_sharing::share_blocks(
            viewers,
            VIEWS_PER_BLOCK,
            &mut self.scratches[..threads],
            |scratch, blocks| {
                let mut done = Vec::new();
                while let Some((index, block)) = blocks.take() {
                    done.push((index, run(block, scratch)));
                }
                // One table per thread: the updates its views made pick from what it took.
                let table = scratch.taken.seal();
                done.into_iter()
                    .map(|(index, pending)| (index, finish(pending, &table)))
                    .collect::<Vec<_>>()
            },
        )
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
        done.sort_unstable_by_key(|(index, _)| *index);
        done.into_iter().flat_map(|(_, updates)| updates).collect()
    }
}

/// Distances a view tells apart: whole tiles from 0 to the radius.
const DISTANCES: usize = VIEW_RADIUS_TILES as usize + 1;

/// Players, NPCs and ground items gathered for a view, counted by distance.
#[derive(Debug)]
struct ClassCounts([[u32; DISTANCES]; 3]);

impl Default for ClassCounts {
    fn default() -> Self {
        ClassCounts([[0; DISTANCES]; 3])
    }
}

/// Fills `scratch.next` with the sorted handles `me` should see from `centre`, at most
/// `player_cap` of them players other than `me` (`MAX_VISIBLE_PLAYERS` but for a shared view).
///
/// The cells are visited nearest first (by the distance from the centre to their nearest tile),
/// and a capped class stops being gathered once its cap is met within the distance the visited
/// cells are sure to cover: in a crowd, the cells around the 255th-nearest player and no more
/// (visiting whole rings of cells gathered about twice that).
fn collect(
    me: Handle,
    centre: TilePos,
    grid: &SpatialGrid,
    scratch: &mut ViewScratch,
    player_cap: usize,
) {
    let ViewScratch {
        players,
        npcs,
        ground,
        next,
        order,
        ties,
        counts,
        ..
    } = scratch;
    players.clear();
    npcs.clear();
    ground.clear();
    next.clear();
    next.push(me);
    let counts = &mut counts.0;
    *counts = [[0; DISTANCES]; 3];
    let radius = VIEW_RADIUS_TILES as u32;
    // Every cell holding a tile within the radius, with the distance to its nearest tile.
    // A cell's distance is the larger of its column's and its row's, each growing away from the
    // centre's: the cells within a distance form a rectangle. It starts as the centre's cell and
    // grows by the nearest column or row outside it, so the cells are visited nearest first.
    let span = grid.span(centre, VIEW_RADIUS_TILES);
    let (vx, vz) = grid.cell_of(centre);
    let column = |cx: i32| {
        let (low, high) = (
            grid.cell_min_tile(cx, 0).x,
            grid.cell_min_tile(cx + 1, 0).x - 1,
        );
        (low - centre.x).max(centre.x - high).max(0) as u32
    };
    let row = |cz: i32| {
        let (low, high) = (
            grid.cell_min_tile(0, cz).z,
            grid.cell_min_tile(0, cz + 1).z - 1,
        );
        (low - centre.z).max(centre.z - high).max(0) as u32
    };
    let caps = [player_cap, MAX_VISIBLE_NPCS, MAX_VISIBLE_GROUND_ITEMS];
    let mut settled = [false; 3];
    let mut visit = |cx: i32, cz: i32, settled: &[bool; 3], counts: &mut [[u32; DISTANCES]; 3]| {
        let cell = grid.cell(cx, cz);
        if !settled[0] {
            gather(&cell.players, me, centre, players, &mut counts[0]);
        }
        if !settled[1] {
            gather(&cell.npcs, me, centre, npcs, &mut counts[1]);
        }
        if !settled[2] {
            gather(&cell.ground, me, centre, ground, &mut counts[2]);
        }
        next.extend(
            cell.statics
                .iter()
                .filter(|o| chebyshev(centre, o.tile) <= radius)
                .map(|o| o.handle),
        );
    };
    // The rectangle visited, and the distance its cells are within.
    let (mut x0, mut x1, mut z0, mut z1) = (vx, vx, vz, vz);
    let mut near = column(vx).max(row(vz));
    // Per class, how many candidates lie within `counted` tiles (none are added there later).
    let mut within = [0usize; 3];
    let mut counted = 0;
    if near <= radius {
        visit(vx, vz, &settled, counts);
    }
    while near <= radius {
        // The distance of the nearest column or row beyond the rectangle (beyond the span: out
        // of sight).
        let beyond = radius + 1;
        let west = if x0 > span.x0 { column(x0 - 1) } else { beyond };
        let east = if x1 < span.x1 { column(x1 + 1) } else { beyond };
        let north = if z0 > span.z0 { row(z0 - 1) } else { beyond };
        let south = if z1 < span.z1 { row(z1 + 1) } else { beyond };
        // A side no farther than the cells visited holds cells as near: take it first.
        if west <= near {
            x0 -= 1;
            (z0..=z1).for_each(|cz| visit(x0, cz, &settled, counts));
        } else if east <= near {
            x1 += 1;
            (z0..=z1).for_each(|cz| visit(x1, cz, &settled, counts));
        } else if north <= near {
            z0 -= 1;
            (x0..=x1).for_each(|cx| visit(cx, z0, &settled, counts));
        } else if south <= near {
            z1 += 1;
            (x0..=x1).for_each(|cx| visit(cx, z1, &settled, counts));
        } else {
            // Every cell outside the rectangle is at least `following` away, so every tile
            // nearer lies in a cell visited already: once a cap is met within that distance,
            // farther cells cannot change who the nearest are.
            let following = west.min(east).min(north).min(south);
            let sure = following.min(beyond) as usize - 1;
            for class in 0..3 {
                within[class] += counts[class][counted..=sure]
                    .iter()
                    .map(|&c| c as usize)
                    .sum::<usize>();
                settled[class] = settled[class] || within[class] >= caps[class];
            }
            counted = sure + 1;
            near = following;
        }
    }
    nearest(players, player_cap, &counts[0], ties);
    nearest(npcs, MAX_VISIBLE_NPCS, &counts[1], ties);
    nearest(ground, MAX_VISIBLE_GROUND_ITEMS, &counts[2], ties);
    next.extend(players.iter().map(|(_, h)| *h));
    next.extend(npcs.iter().map(|(_, h)| *h));
    next.extend(ground.iter().map(|(_, h)| *h));
    sort_by_slot(next, order);
}

/// Most slots [`sort_by_slot`] orders with its bitset; a world with more entities falls back to
/// `sort_unstable` (a world's entities number in the thousands, and the table below costs 4 bytes
/// a slot for each view thread).
const SLOT_ORDER_LIMIT: usize = 1 << 16;

/// What [`sort_by_slot`] keeps between views: one bit per slot, clear between calls, and each
/// set slot's generation (read back only where a bit is set, so never cleared).
#[derive(Debug, Default)]
pub(crate) struct SlotOrder {
    bits: Vec<u64>,
    generations: Vec<u32>,
}

/// Sorts handles as `sort_unstable` would, by setting one bit per slot and reading the bits back
/// in order, when every slot is below [`SLOT_ORDER_LIMIT`]: each handle costs a bit set and a bit
/// read, and the words between the least and the greatest slot are scanned once (a crowd view's
/// ~500 handles span a few thousand slots). The two counting passes over the slot's bytes that
/// this replaces were a quarter of a crowd's view phase. Handles of one slot differ only in
/// generation, and a view never holds two of them, so the order by slot is the order by handle.
fn sort_by_slot(handles: &mut Vec<Handle>, order: &mut SlotOrder) {
    if handles.len() < 64 {
        handles.sort_unstable();
        return;
    }
    let (low, high) = handles.iter().fold((usize::MAX, 0), |(low, high), &h| {
        let slot = slot_index(h);
        (low.min(slot), high.max(slot))
    });
    if high >= SLOT_ORDER_LIMIT {
        handles.sort_unstable();
        return;
    }
    let SlotOrder { bits, generations } = order;
    if generations.len() <= high {
        generations.resize(high + 1, 0);
        bits.resize(high / 64 + 1, 0);
    }
    for &h in handles.iter() {
        let slot = slot_index(h);
        bits[slot / 64] |= 1 << (slot % 64);
        generations[slot] = h as u32;
    }
    let count = handles.len();
    handles.clear();
    let words = bits.iter_mut().enumerate();
    for (word, bits) in words.take(high / 64 + 1).skip(low / 64) {
        // Taken: the table is clear again for the next view once read.
        let mut set = mem::take(bits);
        while set != 0 {
            let slot = word * 64 + set.trailing_zeros() as usize;
            handles.push(((slot as u64) << 32) | u64::from(generations[slot]));
            set &= set - 1;
        }
    }
    debug_assert_eq!(handles.len(), count, "a view holds one handle a slot");
}

/// Adds the occupants within view of `centre` (other than `me`) with their distances, counting
/// them by distance.
fn gather(
    occupants: &[Occupant],
    me: Handle,
    centre: TilePos,
    out: &mut Vec<(u32, Handle)>,
    counts: &mut [u32; DISTANCES],
) {
    let radius = VIEW_RADIUS_TILES as u32;
    for o in occupants {
        let d = chebyshev(centre, o.tile);
        if d <= radius && o.handle != me {
            out.push((d, o.handle));
            counts[d as usize] += 1;
        }
    }
}

/// Keeps the `cap` nearest candidates (ties broken by handle, so the choice is deterministic), in
/// no particular order. Distances are whole tiles within the view radius, so the distance at which
/// the cap is reached is found by counting, everything nearer is kept in one pass, and only the
/// candidates at that very distance are selected among by handle: the same set a selection over
/// `(distance, handle)` keeps, at a fraction of its cost (a crowd view picks 255 of ~1,000).
/// `counts` holds how many candidates lie at each distance ([`gather`] counts them); `ties` is a
/// buffer for those at the cut.
fn nearest(
    candidates: &mut Vec<(u32, Handle)>,
    cap: usize,
    counts: &[u32; DISTANCES],
    ties: &mut Vec<(u32, Handle)>,
) {
    if candidates.len() <= cap {
        return;
    }
    if cap == 0 {
        candidates.clear();
        return;
    }
    let bucket = |d: u32| (d as usize).min(DISTANCES - 1);
    // `cut`: the distance at which the cap is reached; `nearer`: how many lie closer than it.
    let (mut cut, mut nearer) = (DISTANCES - 1, 0usize);
    for (d, &count) in counts.iter().enumerate() {
        if nearer + count as usize >= cap {
            cut = d;
            break;
        }
        nearer += count as usize;
    }
    // The nearer ones move to the front (each read before it is overwritten), the tied aside.
    ties.clear();
    let mut kept = 0;
    for i in 0..candidates.len() {
        let candidate = candidates[i];
        let at = bucket(candidate.0);
        if at < cut {
            candidates[kept] = candidate;
            kept += 1;
        } else if at == cut {
            ties.push(candidate);
        }
    }
    // Every candidate at the cut has the same distance (gathering keeps them within the radius,
    // the last bucket), so the handle alone orders them.
    let room = cap - kept;
    if ties.len() > room {
        ties.select_nth_unstable_by_key(room - 1, |&(_, handle)| handle);
    }
    candidates.truncate(kept);
    candidates.extend_from_slice(&ties[..room]);
}

/// The update turning what was shown (`old`, slots) into what should be (`new`, handles); both
/// sorted (by slot: handles of different slots order as their slots). `lists` is empty before and
/// after.
fn diff(
    old: &[u32],
    new: &[Handle],
    inputs: ViewInputs<'_>,
    lists: &mut DiffLists,
    taken: &mut Taken,
) -> Fresh {
    let ViewInputs {
        entities,
        moves,
        now,
        ..
    } = inputs;
    let mut moved = MovedList::new(Arc::clone(moves));
    // Something in view changed, and in a moving crowd nearly everything does: one allocation up
    // front beats growing the list step by step.
    moved.reserve(old.len().min(new.len()));
    let DiffLists {
        added,
        changed,
        removed,
    } = lists;
    let flags = entities.tick_flags();
    // `taken` is shared by both: one borrow for both closures through a cell would cost more
    // than passing it along.
    let add = |handle: Handle, added: &mut Vec<u32>, taken: &mut Taken| {
        if let Some(at) = taken.added(handle, entities) {
            added.push(at);
        }
    };
    let remove = |slot: u32, removed: &mut Vec<u32>, taken: &mut Taken| {
        if let Some(at) = taken.removed(slot, entities) {
            removed.push(at);
        }
    };
    // Each list (moved, changed, removed, added) is filled in slot order, as a client is sent it.
    let (mut i, mut j) = (0, 0);
    while let (Some(&a), Some(&b)) = (old.get(i), new.get(j)) {
        let slot = slot_of(b);
        if a == slot {
            // Only live entities are flagged, and a kept one is live: what its mark says.
            let flag = flags
                .get(a as usize)
                .copied()
                .unwrap_or(TickFlags::NOT_MOVED);
            if flag & TickFlags::MOVE != TickFlags::NOT_MOVED {
                moved.push(flag & TickFlags::MOVE);
            }
            if flag & TickFlags::CHANGED != 0 {
                if let Some(body) = entities.get(b) {
                    changed.push(body.change.clone());
                }
            }
            i += 1;
            j += 1;
        } else if a < slot {
            remove(a, removed, taken);
            i += 1;
        } else {
            add(b, added, taken);
            j += 1;
        }
    }
    old[i..].iter().for_each(|&a| remove(a, removed, taken));
    new[j..].iter().for_each(|&b| add(b, added, taken));
    // The update waits in the player's queue until written: it should not hold room for a crowd
    // when only a few moved (a joiner among thousands of idle players held ~6 KB each).
    moved.shrink_if_mostly_spare();
    Fresh {
        tick: now,
        moved,
        changed: exact(changed),
        added: exact(added),
        removed: exact(removed),
    }
}

/// The buffer's items moved into a Vec of exactly their length, the buffer keeping its room for
/// the next view (`mem::take` would hand that room to the update).
fn exact<T>(buffer: &mut Vec<T>) -> Vec<T> {
    let mut items = Vec::with_capacity(buffer.len());
    items.append(buffer);
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_keeps_the_closest_and_breaks_ties_by_handle() {
        let mut c = vec![(5, 1), (1, 9), (3, 4), (3, 2), (9, 0)];
        let mut counts = [0; DISTANCES];
        for (d, count) in [(5, 1), (1, 1), (3, 2), (9, 1)] {
            counts[d] = count;
        }
        nearest(&mut c, 3, &counts, &mut Vec::new());
        c.sort_unstable();
        assert_eq!(c, vec![(1, 9), (3, 2), (3, 4)]);
    }

    #[test]
    fn nearest_keeps_what_a_selection_by_distance_then_handle_keeps() {
        // A fixed pseudo-random sequence (an LCG): many ties at every distance.
        let mut state = 12_345u64;
        let mut next = move |below: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % below
        };
        for (len, cap) in [
            (0, 255),
            (10, 255),
            (255, 255),
            (256, 255),
            (2_000, 255),
            (600, 256),
        ]
        .into_iter()
        .chain((0..40).map(|i| (300 + i * 17, 1 + i * 7)))
        {
            let radius = VIEW_RADIUS_TILES as u64 + 1;
            let candidates: Vec<(u32, Handle)> = (0..len as u64)
                .map(|i| (next(radius) as u32, (i << 32) | next(4)))
                .collect();
            let mut expected = candidates.clone();
            if expected.len() > cap {
                expected.select_nth_unstable(cap - 1);
                expected.truncate(cap);
            }
            expected.sort_unstable();
            let mut counts = [0; DISTANCES];
            for &(d, _) in &candidates {
                counts[d as usize] += 1;
            }
            let mut kept = candidates;
            nearest(&mut kept, cap, &counts, &mut Vec::new());
            kept.sort_unstable();
            assert_eq!(kept, expected, "{len} candidates, cap {cap}");
        }
    }

    #[test]
    fn sorting_by_slot_matches_sorting_handles() {
        // A fixed pseudo-random sequence (SplitMix64).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut order = SlotOrder::default();
        for (len, max_slot) in [
            (0, 10),
            (5, 10),
            (63, 100),
            (64, 100),
            (510, 17_000),
            (600, 65_535),
            (300, 70_000),
        ] {
            let mut slots: Vec<u64> = (0..len).map(|_| next() % (max_slot + 1)).collect();
            slots.sort_unstable();
            slots.dedup();
            // One handle per slot, any generation, shuffled.
            let mut handles: Vec<Handle> = slots
                .iter()
                .map(|&slot| (slot << 32) | (next() & 0xffff))
                .collect();
            for i in (1..handles.len()).rev() {
                handles.swap(i, (next() % (i as u64 + 1)) as usize);
            }
            let mut expected = handles.clone();
            expected.sort_unstable();
            sort_by_slot(&mut handles, &mut order);
            assert_eq!(handles, expected, "{len} handles, slots up to {max_slot}");
        }
        // The table's limit: the last slot it orders, then the first that falls back.
        for top in [SLOT_ORDER_LIMIT - 1, SLOT_ORDER_LIMIT] {
            let mut handles: Vec<Handle> = (0..100u64)
                .rev()
                .map(|slot| (slot * 7) << 32 | 3)
                .chain([(top as u64) << 32 | 9])
                .collect();
            let mut expected = handles.clone();
            expected.sort_unstable();
            sort_by_slot(&mut handles, &mut order);
            assert_eq!(handles, expected, "up to slot {top}");
        }
        assert!(order.bits.iter().all(|&word| word == 0), "left clear");
        assert_eq!(order.generations.len(), SLOT_ORDER_LIMIT);
    }

    #[test]
    fn a_thread_takes_each_entity_once_a_tick_and_starts_afresh_after_sealing() {
        use crate::entities::test_npc as npc;
        let mut entities = Entities::default();
        let a = entities.insert(npc("a"));
        let b = entities.insert(npc("b"));
        let gone = entities.insert(npc("gone"));
        entities.retire(gone);
        let mut taken = Taken::default();
        // Asked for by several views: one entry each.
        let asked = [b, a, b, a].map(|h| taken.added(h, &entities));
        assert_eq!(asked, [Some(0), Some(1), Some(0), Some(1)]);
        assert_eq!(
            taken.added(gone, &entities),
            None,
            "a removed entity is not added"
        );
        let asked = [gone, a, gone].map(|h| taken.removed(slot_of(h), &entities));
        assert_eq!(asked, [Some(0), Some(1), Some(0)], "a removed one is named");
        let table = taken.seal();
        assert_eq!((table.added_len(), table.removed_len()), (2, 2));
        let added = AddedList::picking(Arc::clone(&table), vec![1, 0]);
        let ids: Vec<_> = added.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        let removed = RemovedList::picking(table, vec![0, 1]);
        assert_eq!(
            removed.iter().map(|id| &**id).collect::<Vec<_>>(),
            ["gone", "a"]
        );
        // The next tick's table starts empty, with every slot untaken.
        assert_eq!(taken.added(a, &entities), Some(0));
        assert_eq!(taken.removed(slot_of(b), &entities), Some(0));
        let next = taken.seal();
        assert_eq!((next.added_len(), next.removed_len()), (1, 1));
    }

    #[test]
    fn a_viewer_keeps_its_own_list_with_room_near_its_size() {
        let mut shown: Vec<u32> = Vec::new();
        let big: Vec<Handle> = (0..500u64).map(|slot| slot << 32 | 7).collect();
        let slots: Vec<u32> = (0..500).collect();
        keep_shown(&mut shown, &big);
        assert_eq!(shown, slots);
        assert!(shown.capacity() <= 500 + 500 / 8);
        // A list about as long reuses the room; a much shorter one gets a smaller allocation.
        let room = shown.capacity();
        keep_shown(&mut shown, &big[..480]);
        assert_eq!((shown.len(), shown.capacity()), (480, room));
        keep_shown(&mut shown, &big[..10]);
        assert_eq!(shown, &slots[..10]);
        assert!(shown.capacity() <= 2 * 10 + SHOWN_SLACK);
        keep_shown(&mut shown, &[]);
        assert!(shown.is_empty() && shown.capacity() <= SHOWN_SLACK);
    }

    /// What a view should hold, by brute force: every entity within the radius, the nearest
    /// `cap` of each capped class by (distance, handle), sorted.
    fn by_brute_force(me: Handle, centre: TilePos, grid: &SpatialGrid, cap: usize) -> Vec<Handle> {
        let radius = VIEW_RADIUS_TILES as u32;
        let mut classes: [Vec<(u32, Handle)>; 3] = Default::default();
        let mut all = vec![me];
        let span = grid.span(centre, VIEW_RADIUS_TILES);
        for cz in span.z0..=span.z1 {
            for cx in span.x0..=span.x1 {
                let cell = grid.cell(cx, cz);
                for (class, occupants) in [&cell.players, &cell.npcs, &cell.ground]
                    .into_iter()
                    .enumerate()
                {
                    classes[class].extend(
                        occupants
                            .iter()
                            .map(|o| (chebyshev(centre, o.tile), o.handle))
                            .filter(|&(d, h)| d <= radius && h != me),
                    );
                }
                all.extend(
                    cell.statics
                        .iter()
                        .filter(|o| chebyshev(centre, o.tile) <= radius)
                        .map(|o| o.handle),
                );
            }
        }
        let caps = [cap, MAX_VISIBLE_NPCS, MAX_VISIBLE_GROUND_ITEMS];
        for (mut class, cap) in classes.into_iter().zip(caps) {
            class.sort_unstable();
            all.extend(class.into_iter().take(cap).map(|(_, h)| h));
        }
        all.sort_unstable();
        all
    }

    #[test]
    fn a_view_gathered_nearest_cells_first_is_the_view_gathered_from_every_cell() {
        use crate::grid::Class;
        use crate::map::TileMap;
        let t = |x, z| TilePos { x, z };
        let mut grid = SpatialGrid::covering(&TileMap::blocked(t(-100, -100), 200, 200));
        let mut state = 99u64;
        let mut next = move |below: i32| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % below as u64) as i32
        };
        // A dense crowd (more than the cap within a few tiles), a sparse ring around it, NPCs
        // and ground items dense enough to be capped in places, furniture everywhere.
        let mut slot = 0u64;
        let mut players = Vec::new();
        for i in 0..2_500 {
            slot += 1;
            let spread = if i < 1_500 { 12 } else { 90 };
            let tile = t(next(2 * spread + 1) - spread, next(2 * spread + 1) - spread);
            grid.insert(slot << 32 | 3, tile, Class::Player, 1);
            players.push((slot << 32 | 3, tile));
        }
        for (class, count, spread) in [
            (Class::Npc, 700, 20),
            (Class::Ground, 600, 10),
            (Class::Static, 300, 60),
        ] {
            for _ in 0..count {
                slot += 1;
                let tile = t(next(2 * spread + 1) - spread, next(2 * spread + 1) - spread);
                grid.insert(slot << 32, tile, class, 1);
            }
        }
        let mut scratch = ViewScratch::default();
        for (n, &(me, tile)) in players.iter().enumerate().step_by(7) {
            let cap = if n % 2 == 0 { MAX_VISIBLE_PLAYERS } else { 256 };
            collect(me, tile, &grid, &mut scratch, cap);
            assert_eq!(
                scratch.next,
                by_brute_force(me, tile, &grid, cap),
                "viewer {n} on {tile:?}"
            );
        }
        // Viewers off the crowd, on the grid's edge and beyond it.
        for centre in [t(-100, -100), t(99, 99), t(-150, 0), t(40, -13)] {
            collect(u64::MAX, centre, &grid, &mut scratch, MAX_VISIBLE_PLAYERS);
            assert_eq!(
                scratch.next,
                by_brute_force(u64::MAX, centre, &grid, MAX_VISIBLE_PLAYERS),
                "{centre:?}"
            );
        }
    }
}
