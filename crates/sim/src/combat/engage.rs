//! A player's side of a fight. The walk-then-act intent of `actions` brings the player within reach
//! (1 tile for melee, the bow's range for ranged); from then on each tick calls
//! [`World::attack_tick`], which swings whenever the weapon's timer allows: accuracy and max hit
//! from `formulas`, one arrow per ranged shot, the hit shown to everyone who can see the target,
//! XP for the damage, and the target's death when its health reaches 0.

use wayfarer_content::{AttackStyle, EquipSlot, Skill};
use wayfarer_protocol::ws::{codes, CombatHit, TilePos};

use crate::actions::{Flow, Intent, IntentKind};
use crate::combat::formulas::{
    combat_xp, npc_defence_roll, roll_attack, AttackType, CombatStyle, PlayerCombatant,
};
use crate::combat::magic::{
    magic_attack_roll, magic_xp, npc_magic_defence_roll, player_magic_defence_roll, spell_max_hit,
    CASTING_RANGE_TILES,
};
use crate::combat::NPC_ARROW;
use crate::duel::DuelAttack;
use crate::entities::Handle;
use crate::events::Event;
use crate::flows::FlowKind;
use crate::view::VIEW_RADIUS_TILES;
use crate::world::World;

/// Ticks between punches with no weapon (the genre's unarmed speed, 2.4 s).
pub const UNARMED_ATTACK_SPEED_TICKS: u32 = 4;

/// Who is on the receiving end of a swing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Victim {
    /// `self.npcs[n]`.
    Npc(usize),
    /// `self.players[n]`.
    Player(usize),
}

/// How a player fights right now: the combatant for the formulas and what the weapon implies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loadout {
    pub combatant: PlayerCombatant,
    /// The weapon's family (melee when unarmed).
    pub family: AttackStyle,
    /// Ticks between attacks.
    pub speed_ticks: u32,
}

impl Loadout {
    fn is_ranged(&self) -> bool {
        self.family == AttackStyle::Ranged
    }
}

impl World {
    /// Whether player `index` is dead. Death respawns the player in the same tick, so this is true
    /// only in the middle of dying.
    pub(crate) fn is_dead(&self, index: usize) -> bool {
        self.player_health(index).0 <= 0
    }

    /// The index of online player `id` for a command of theirs, or `None`: offline, or dead (the
    /// command is refused, answering `reference`).
    pub(crate) fn living_player(
        &self,
        id: &str,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> Option<usize> {
        let &index = self.player_index.get(id)?;
        if self.is_dead(index) {
            Self::reject(id, codes::CANNOT_DO, "you are dead", reference, events);
            return None;
        }
        Some(index)
    }

    /// How player `index` fights now: levels, worn bonuses, the style (accurate when the chosen one
    /// does not suit the weapon) and the weapon's speed.
    pub(crate) fn loadout(&self, index: usize) -> Loadout {
        let player = &self.players[index];
        let weapon = player.equipment.weapon(&self.content);
        let family = weapon.map_or(AttackStyle::Melee, |w| w.attack_style);
        let style = if player.style.suits(family) {
            player.style
        } else {
            CombatStyle::Accurate
        };
        let weapon_ticks = weapon.map_or(UNARMED_ATTACK_SPEED_TICKS, |w| w.attack_speed_ticks);
        let level = |skill| u32::from(player.skills.level(skill));
        Loadout {
            combatant: PlayerCombatant {
                attack_level: level(Skill::Attack),
                strength_level: level(Skill::Strength),
                defence_level: level(Skill::Defense),
                ranged_level: level(Skill::Ranged),
                prayer: self.prayer_boosts(index),
                bonuses: player.equipment.bonuses(&self.content),
                style,
                attack_type: AttackType::of_weapon(weapon),
            },
            family,
            speed_ticks: style.attack_speed_ticks(weapon_ticks),
        }
    }

    /// How a player fights now (levels, active prayers, worn bonuses, style), as the formulas see
    /// it.
    pub fn player_combatant(&self, player: &str) -> Option<PlayerCombatant> {
        let index = *self.player_index.get(player)?;
        Some(self.loadout(index).combatant)
    }

    /// How far player `index` can attack from with an intent of `kind` (the casting range with
    /// a spell in hand, else 1 for melee and the weapon's range for ranged).
    pub(crate) fn attack_reach(&self, index: usize, kind: IntentKind) -> u32 {
        if self.spell_in_hand(index, kind).is_some() {
            return CASTING_RANGE_TILES;
        }
        let player = &self.players[index];
        match player.equipment.weapon(&self.content) {
            Some(w) if w.attack_style == AttackStyle::Ranged => self
                .loadout(index)
                .combatant
                .style
                .attack_range_tiles(w.attack_range.max(1)),
            _ => 1,
        }
    }

    /// The NPC or player behind an entity handle.
    pub(crate) fn victim(&self, handle: Handle) -> Option<Victim> {
        if let Some(n) = self.npcs.iter().position(|n| n.handle == handle) {
            return Some(Victim::Npc(n));
        }
        self.player_of(handle).map(Victim::Player)
    }

    /// Why player `index` may not attack `victim`, if it may not (code and words): an NPC must be
    /// attackable; players never fight where either stands in a safe area (`safe_zone`), and
    /// otherwise only when both stand in a PvP area.
    pub(super) fn attack_refusal(
        &self,
        index: usize,
        victim: Victim,
    ) -> Option<(&'static str, &'static str)> {
        match victim {
            Victim::Npc(n) => {
                let attackable = self.npc_def(n).is_some_and(|npc| npc.combat.attackable);
                (!attackable).then_some((codes::CANNOT_DO, "you cannot attack that"))
            }
            Victim::Player(p) => {
                match self.duel_attack_refusal(index, p) {
                    DuelAttack::Allowed => return None,
                    DuelAttack::Refused(message) => return Some((codes::CANNOT_DO, message)),
                    DuelAttack::NotDuelling => {}
                }
                let (here, there) = (self.zone_of_player(index), self.zone_of_player(p));
                if self.zones.is_safe(here) || self.zones.is_safe(there) {
                    return Some((
                        codes::SAFE_ZONE,
                        "players cannot fight each other in a safe area",
                    ));
                }
                let both = self.zones.is_pvp(here) && self.zones.is_pvp(there);
                (!both).then_some((
                    codes::CANNOT_DO,
                    "you can only fight other players where PvP is allowed",
                ))
            }
        }
    }

    /// Checks an `attack` or a `cast` (`kind`) before the player walks anywhere: false (with a
    /// rejection) when the target may not be attacked. The target itself first (`invalid_target`:
    /// missing, not a fighter, or the player themself, wherever they stand), then the place and
    /// duels (`safe_zone`, …).
    pub(crate) fn attack_allowed(
        &self,
        index: usize,
        target: &str,
        kind: IntentKind,
        reference: Option<u64>,
        events: &mut Vec<Event>,
    ) -> bool {
        let handle = match self.intent_target(index, target, kind) {
            Ok(handle) => handle,
            Err((code, message)) => {
                Self::reject(&self.players[index].id, code, message, reference, events);
                return false;
            }
        };
        let Some(victim) = self.victim(handle) else {
            return true;
        };
        match self.attack_refusal(index, victim) {
            Some((code, message)) => {
                Self::reject(&self.players[index].id, code, message, reference, events);
                false
            }
            None => true,
        }
    }

    /// The tile of a live entity.
    pub(crate) fn tile_of(&self, handle: Handle) -> Option<TilePos> {
        self.entities.get(handle).map(|b| b.tile())
    }

    /// One tick of player `index` fighting the intent's target (already within reach).
    pub(crate) fn attack_tick(
        &mut self,
        index: usize,
        intent: &Intent,
        events: &mut Vec<Event>,
    ) -> Flow {
        let now = self.now();
        let id = self.players[index].id.clone();
        let Some(victim) = self.victim(intent.target) else {
            return Flow::Done;
        };
        if let Some((code, message)) = self.attack_refusal(index, victim) {
            Self::reject(&id, code, message, intent.reference, events);
            return Flow::Done;
        }
        if let (false, Victim::Player(p)) = (intent.engaged, victim) {
            // The fight starts: the one attacked is told by whom (an NPC's victim in `npc_ai`).
            let text = crate::game_messages::attacked_by(self.player_called(index));
            self.narrate(p, text, events);
        }
        if self.attack_reach(index, intent.kind) > 1 {
            let from = self.tile_of(self.players[index].handle);
            let to = self.tile_of(intent.target);
            if let (Some(from), Some(to)) = (from, to) {
                if !self.line_of_sight(from, to) {
                    let message = "a wall is in the way";
                    Self::reject(
                        &id,
                        codes::NO_LINE_OF_SIGHT,
                        message,
                        intent.reference,
                        events,
                    );
                    return Flow::Done;
                }
            }
        }
        if now < self.players[index].attack_ready_at {
            return Flow::Continue;
        }
        let loadout = self.loadout(index);
        // A spell (a `cast`, or autocast on an attack) replaces the weapon's swing.
        let spell = self.spell_in_hand(index, intent.kind).cloned();
        if spell.is_none() && intent.kind == IntentKind::Cast {
            // The spell left the content (a reload) while the player walked: no swing instead.
            let message = "that spell is no more";
            Self::reject(&id, codes::UNKNOWN_SPELL, message, intent.reference, events);
            return Flow::Done;
        }
        if let Some(spell) = &spell {
            if !self.pay_for_cast(index, spell, intent.kind, intent.reference, events) {
                return Flow::Done;
            }
            if intent.kind == IntentKind::Cast {
                let at = match victim {
                    Victim::Npc(n) => self.npc_called(n).to_owned(),
                    Victim::Player(p) => self.player_called(p).to_owned(),
                };
                self.narrate(index, format!("You cast {} at {at}.", spell.name), events);
            }
        } else if loadout.is_ranged() {
            let player = &mut self.players[index];
            let arrow = player
                .equipment
                .get(EquipSlot::Arrows)
                .map(|s| s.item_id.clone());
            if !player.equipment.consume(EquipSlot::Arrows, 1) {
                self.narrate(index, crate::game_messages::out_of_arrows(), events);
                return Flow::Done;
            }
            player.dirty.equipment = true;
            if let Some(item) = arrow {
                self.flow_by(index, FlowKind::Left, "fired", &item, 1u32);
            }
        }
        self.players[index].fought_at = now;
        let attack_type = loadout.combatant.attack_type;
        let (defence, health, max_health) = match victim {
            Victim::Npc(n) => {
                let defence = self.npc_def(n).map_or(0, |npc| match spell {
                    Some(_) => npc_magic_defence_roll(&npc.stats),
                    None => npc_defence_roll(&npc.stats),
                });
                let (health, max) = self.npc_health(n);
                (defence, health, max)
            }
            Victim::Player(p) => {
                let combatant = self.loadout(p).combatant;
                let defence = match spell {
                    Some(_) => player_magic_defence_roll(self.magic_level(p), &combatant),
                    None => combatant.defence_roll(attack_type),
                };
                let (health, max) = self.player_health(p);
                (defence, health, max)
            }
        };
        let bonuses = &loadout.combatant.bonuses;
        let (attack_roll, max_hit) = match &spell {
            Some(spell) => (
                magic_attack_roll(self.magic_level(index), bonuses),
                spell_max_hit(spell.base_max_hit, bonuses),
            ),
            None => (loadout.combatant.attack_roll(), loadout.combatant.max_hit()),
        };
        let rolled = roll_attack(&mut self.rng, attack_roll, defence, max_hit);
        // A hit never takes more than the target has left (nor earns XP for more).
        let damage = rolled.min(u32::try_from(health.max(0)).unwrap_or(u32::MAX));
        let left = health - i64::from(damage);
        match victim {
            Victim::Npc(n) => {
                self.set_npc_health(n, left);
                self.provoke(n, self.players[index].handle);
            }
            Victim::Player(p) => {
                self.set_player_health(p, left);
                self.attacked(p, self.players[index].handle, events);
            }
        }
        let projectile = match &spell {
            Some(spell) => Some(spell.id.clone()),
            None => loadout.is_ranged().then(|| NPC_ARROW.to_owned()),
        };
        let shown = Shown {
            damage,
            health: left,
            max_health,
            projectile,
        };
        self.show_hit(&id, intent.target, shown, events);
        match &spell {
            Some(spell) => {
                let (magic, constitution) = magic_xp(spell, damage);
                self.grant_xp(index, Skill::Magic, magic, events);
                self.grant_xp(index, Skill::Constitution, constitution, events);
            }
            None => {
                let style = loadout.combatant.style;
                for (skill, xp) in combat_xp(style, loadout.family, damage).iter() {
                    self.grant_xp(index, skill, xp, events);
                }
            }
        }
        let speed = spell
            .as_ref()
            .map_or(loadout.speed_ticks, |s| s.attack_speed_ticks.max(1));
        self.players[index].attack_ready_at = now + u64::from(speed);
        if left > 0 {
            // A `cast` is one spell; an attack goes on.
            return match intent.kind {
                IntentKind::Cast => Flow::Done,
                _ => Flow::Continue,
            };
        }
        match victim {
            Victim::Npc(n) => self.npc_killed(n, Some(index), events),
            Victim::Player(p) => self.player_died(p, crate::combat::Killer::Player(index), events),
        }
        Flow::Done
    }

    /// Player `index`'s current Magic level.
    pub(crate) fn magic_level(&self, index: usize) -> u32 {
        u32::from(self.players[index].skills.level(Skill::Magic))
    }

    /// Emits a `combat:hit` to every player within view range of the target (the grid's cells
    /// around it, so only nearby players are looked at).
    pub(crate) fn show_hit(
        &self,
        attacker_id: &str,
        target: Handle,
        shown: Shown,
        events: &mut Vec<Event>,
    ) {
        let Shown {
            damage,
            health,
            max_health,
            projectile,
        } = shown;
        let Some(body) = self.entities.get(target) else {
            return;
        };
        let mut to = Vec::new();
        self.grid
            .players_within(body.tile(), VIEW_RADIUS_TILES, |handle, _| {
                if let Some(viewer) = self.entities.get(handle) {
                    to.push(viewer.wire.id.clone());
                }
            });
        to.sort();
        events.push(Event::CombatHit {
            to,
            hit: CombatHit {
                attacker_id: attacker_id.to_owned(),
                target_id: body.wire.id.clone(),
                damage: i64::from(damage),
                target_health: health,
                target_max_health: max_health,
                projectile,
            },
        });
    }
}

/// One hit as `combat:hit` shows it.
pub(crate) struct Shown {
    /// Damage dealt (0: a miss or a blocked hit).
    pub damage: u32,
    /// The target's health after it.
    pub health: i64,
    /// The target's maximum health.
    pub max_health: i64,
    /// What flew (an arrow, a spell's id), for a hit from range.
    pub projectile: Option<String>,
}
