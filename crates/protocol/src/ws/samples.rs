//! A sample of every message both ways, and the round trip each must survive: written, read back,
//! equal. The samples are checked against the event tables ([`ClientMessage::TYPES`],
//! [`ServerMessage::TYPES`]), so a message added to a table without a sample here fails
//! `every_event_has_a_sample`. Optional fields are filled in some samples and left out in others,
//! so both ways of writing them are read back.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Value};

use super::*;
use crate::agent::{
    ActionReport, AgentGoal, AgentMessage, AgentPause, AgentStatus, DecisionReport, Goal,
    ReportedGoal,
};
use crate::duel::{
    DuelCancelled, DuelChallenge, DuelError, DuelIdOnly, DuelIncoming, DuelRespond, DuelResult,
    DuelRules, DuelSetRule, DuelStake, DuelStakeRequest, DuelStart, DuelUnstake, StakeItem,
};
use crate::trade::{
    Offer, OfferItem, ReceivedItem, TradeAddItem, TradeCancelled, TradeCompleted,
    TradeConfirmScreen, TradeError, TradeIdOnly, TradeIncoming, TradeRemoveItem, TradeRequest,
    TradeRequestRespond, TradeStarted, TradeUpdated, TradeValues,
};

fn client_samples() -> Vec<ClientMessage> {
    use ClientMessage as C;
    vec![
        C::Move(MoveRequest {
            x: -12,
            z: 40,
            run: true,
        }),
        C::Move(MoveRequest {
            x: 0,
            z: 0,
            run: false,
        }),
        C::Chat(ChatRequest {
            text: "hello \"there\" ✓".into(),
            channel: Some(ChatChannel::Private),
            to: Some("Bob".into()),
        }),
        C::Chat(ChatRequest {
            text: "hi".into(),
            channel: None,
            to: None,
        }),
        C::Action(ActionRequest {
            action: "cook".into(),
            target_id: Some("fire-1".into()),
            slot: Some(json!(3)),
            item_id: Some("raw_shrimp".into()),
            style: Some("accurate".into()),
            recipe_id: None,
            quantity: None,
            spell_id: None,
            enabled: None,
        }),
        C::Action(ActionRequest::make(
            "smithing:bronze_dagger",
            Quantity::Count(5),
        )),
        C::Action(ActionRequest::make("cooking:shrimp", Quantity::All).with_target("res-9")),
        C::Action(ActionRequest::cast("wind_strike", "npc-4")),
        C::Action(ActionRequest::autocast(Some("fire_bolt".into()))),
        C::Action(ActionRequest {
            action: "unequip".into(),
            target_id: None,
            slot: Some(json!("weapon")),
            item_id: None,
            style: None,
            recipe_id: None,
            quantity: None,
            spell_id: None,
            enabled: None,
        }),
        C::Action(ActionRequest::auto_retaliate(false)),
        C::Use(UseRequest {
            slot: 4u8.into(),
            target_slot: Some(5u8.into()),
            target_id: Some("anvil-2".into()),
            skill: Some("mining".into()),
        }),
        C::Use(UseRequest {
            slot: 0u8.into(),
            target_slot: None,
            target_id: None,
            skill: None,
        }),
        C::FriendRequest(NameRequest { name: "Ann".into() }),
        C::FriendRespond(FriendRespond {
            name: "Ann".into(),
            accept: true,
        }),
        C::FriendRemove(NameRequest { name: "Ann".into() }),
        C::IgnoreAdd(NameRequest {
            name: "Troll".into(),
        }),
        C::IgnoreRemove(NameRequest {
            name: "Troll".into(),
        }),
        C::FriendList,
        C::Sync,
        C::TradeRequest(TradeRequest {
            target_player_id: "c2".into(),
        }),
        C::TradeRequestRespond(TradeRequestRespond {
            trade_id: "trade-1".into(),
            accept: false,
        }),
        C::TradeAddItem(TradeAddItem {
            trade_id: "trade-1".into(),
            inventory_slot: 27u8.into(),
            quantity: Some(5),
        }),
        C::TradeAddItem(TradeAddItem {
            trade_id: "trade-1".into(),
            inventory_slot: 0u8.into(),
            quantity: None,
        }),
        C::TradeRemoveItem(TradeRemoveItem {
            trade_id: "trade-1".into(),
            inventory_slot: 2u8.into(),
        }),
        C::TradeAccept(TradeIdOnly {
            trade_id: "trade-1".into(),
        }),
        C::TradeCancel(TradeIdOnly {
            trade_id: "trade-1".into(),
        }),
        C::BankOpen,
        C::BankDeposit(BankDepositRequest {
            slot: DepositSlot::All,
            quantity: None,
        }),
        C::BankDeposit(BankDepositRequest {
            slot: DepositSlot::Slot(6u8.into()),
            quantity: Some(Quantity::Count(10)),
        }),
        C::BankWithdraw(BankWithdrawRequest {
            item_id: "logs".into(),
            quantity: Quantity::Count(3),
        }),
        C::BankWithdraw(BankWithdrawRequest {
            item_id: "coins".into(),
            quantity: Quantity::All,
        }),
        C::ShopBuy(ShopBuyRequest {
            store_id: "general".into(),
            item_id: "bread".into(),
            quantity: 2,
        }),
        C::ShopSell(ShopSellRequest {
            store_id: "general".into(),
            slot: 1u8.into(),
            quantity: Some(4),
        }),
        C::ShopSell(ShopSellRequest {
            store_id: "general".into(),
            slot: 1u8.into(),
            quantity: None,
        }),
        C::ShopClose,
        C::PrayerToggle(PrayerToggle {
            prayer_id: "thick_skin".into(),
            active: true,
        }),
        C::DialogueRespond(DialogueRespond {
            npc_id: "old_marta".into(),
            index: 1,
        }),
        C::DialogueClose(DialogueCloseRequest {
            npc_id: Some("old_marta".into()),
        }),
        C::DialogueClose(DialogueCloseRequest { npc_id: None }),
        C::QuestList,
        C::QuestAbandon(QuestAbandon {
            quest_id: "goblin_slayer".into(),
        }),
        C::Emote(EmoteRequest {
            emote: "wave".into(),
        }),
        C::AgentStatus(Box::new(AgentStatus {
            goal: Some(ReportedGoal {
                id: Some("g1".into()),
                kind: "skill".into(),
                description: Some("Woodcutting to 5".into()),
                target: Some(json!({"skill": "woodcutting", "level": 5})),
            }),
            progress: Some(0.25),
            paused: Some(false),
            model: Some(crate::agent::ModelReport {
                calls: 12,
                decisions: 10,
                fallbacks: [("timeout".to_owned(), 2)].into_iter().collect(),
                input_tokens: 14_000,
                output_tokens: 300,
                cached_tokens: 9_000,
                mean_latency_ms: Some(850),
                p50_latency_ms: Some(700),
                p95_latency_ms: Some(2_100),
                tokens_per_decision: Some(1_191),
            }),
            last_actions: vec![ActionReport {
                action: "chopTree".into(),
                outcome: "rejected".into(),
                code: Some("no_tool".into()),
                ts: Some(1_700_000_000_000),
            }],
            decisions: vec![DecisionReport {
                action: "chopTree".into(),
                goal: Some("Woodcutting to 5".into()),
                reason: Some("nearest tree".into()),
                brain: Some("planner".into()),
                outcome: Some("accepted".into()),
                ts: None,
            }],
            tokens_spent: Some(120),
        })),
        C::AgentStatus(Box::default()),
        C::DuelChallenge(DuelChallenge {
            target_player_id: "c2".into(),
        }),
        C::DuelRespond(DuelRespond {
            duel_id: "duel-1".into(),
            accept: true,
        }),
        C::DuelSetRule(DuelSetRule {
            duel_id: "duel-1".into(),
            rule: "no_food".into(),
            on: true,
        }),
        C::DuelStake(DuelStakeRequest {
            duel_id: "duel-1".into(),
            inventory_slot: 4u8.into(),
            quantity: Some(100),
        }),
        C::DuelStake(DuelStakeRequest {
            duel_id: "duel-1".into(),
            inventory_slot: 0u8.into(),
            quantity: None,
        }),
        C::DuelUnstake(DuelUnstake {
            duel_id: "duel-1".into(),
            inventory_slot: 4u8.into(),
        }),
        C::DuelAccept(DuelIdOnly {
            duel_id: "duel-1".into(),
        }),
        C::ArenaJoin,
        C::ArenaLeave,
        C::DuelCancel(DuelIdOnly {
            duel_id: "duel-1".into(),
        }),
    ]
}

fn player() -> Player {
    Player {
        id: "c1".into(),
        account_id: "a1".into(),
        name: "Wren".into(),
        combat_level: 3,
        health: 9,
        max_health: 10,
        coins: 25,
        position: WorldPos {
            x: 3.5,
            y: 0.25,
            z: -2.5,
        },
        skills: BTreeMap::from([
            (Skill::Woodcutting, SkillState { level: 2, xp: 90 }),
            (
                Skill::Constitution,
                SkillState {
                    level: 10,
                    xp: 1154,
                },
            ),
        ]),
        inventory: vec![InventorySlot {
            slot: 0,
            item_id: "bronze_hatchet".into(),
            name: "Bronze Hatchet".into(),
            quantity: 1,
        }],
        equipment: BTreeMap::from([(
            "weapon".to_owned(),
            EquippedItem {
                item_id: "bronze_sword".into(),
                quantity: 1,
            },
        )]),
        online: true,
        tile: Some(TilePos { x: 3, z: -3 }),
        stamina: Some(80),
        auto_retaliate: Some(true),
        home_teleport_cooldown: Some(0),
    }
}

fn offer(items: usize) -> Offer {
    Offer {
        items: (0..items)
            .map(|n| OfferItem {
                inventory_slot: n as u8,
                item_id: "coins".into(),
                name: "Coins".into(),
                quantity: 7,
            })
            .collect(),
        accepted: items > 1,
    }
}

fn shop() -> ShopView {
    ShopView {
        store_id: "general".into(),
        name: "General Store".into(),
        buyback: true,
        buyback_rate: 0.4,
        items: vec![
            ShopItem {
                item_id: "bread".into(),
                name: "Bread".into(),
                price: 12,
                stock: Some(9),
                sell_price: Some(4),
                category: Some("food".into()),
            },
            ShopItem {
                item_id: "tinderbox".into(),
                name: "Tinderbox".into(),
                price: 1,
                stock: None,
                sell_price: None,
                category: None,
            },
        ],
    }
}

fn goal() -> Goal {
    Goal {
        id: "g1".into(),
        kind: "gather".into(),
        description: "Gather 10 logs".into(),
        target: Some(json!({"itemId": "logs", "quantity": 10})),
        progress: Some(0.5),
        set_at: "2025-01-01T00:00:00Z".into(),
        set_by: "owner".into(),
    }
}

fn server_samples() -> Vec<ServerMessage> {
    use ServerMessage as S;
    let mut bare = player();
    bare.tile = None;
    bare.stamina = None;
    bare.auto_retaliate = None;
    bare.online = false;
    vec![
        S::PlayerSync(Box::new(player())),
        S::PlayerSync(Box::new(bare)),
        S::WorldUpdate(WorldUpdate {
            tick: 42,
            added: vec![
                Arc::new(Entity {
                    name: Some("Goblin".into()),
                    health: Some(5),
                    max_health: Some(5),
                    type_id: Some("goblin".into()),
                    ..Entity::at("n1", EntityKind::Npc, 4, -7)
                }),
                Arc::new(Entity {
                    name: Some("Wren".into()),
                    health: Some(10),
                    max_health: Some(10),
                    worn: Some(Arc::new(Worn::from([
                        ("weapon".into(), "bronze_sword".into()),
                        ("shield".into(), "wooden_shield".into()),
                    ]))),
                    ..Entity::at("p2", EntityKind::Player, 1, 1)
                }),
                Arc::new(Entity {
                    id: "g1".into(),
                    kind: EntityKind::GroundItem,
                    x: 0,
                    z: 0,
                    name: None,
                    health: None,
                    max_health: None,
                    item_id: Some("logs".into()),
                    quantity: Some(2),
                    resource_type: Some("tree".into()),
                    depleted: Some(true),
                    type_id: None,
                    worn: None,
                    open: None,
                    side: None,
                    quest: None,
                }),
            ]
            .into(),
            moved: MovedList::from(vec![
                Moved {
                    id: "p2".into(),
                    x: 1,
                    z: 2,
                },
                Moved {
                    id: "q\"uote".into(),
                    x: -3,
                    z: 4,
                },
            ]),
            changed: vec![
                Changed {
                    id: "n1".into(),
                    health: Some(3),
                    max_health: Some(5),
                    name: Some("Goblin".into()),
                    quantity: Some(1),
                    depleted: Some(false),
                    worn: None,
                    open: Some(true),
                    quest: Some(QuestMarker::None),
                },
                Changed {
                    id: "p2".into(),
                    worn: Some(Arc::new(Worn::from([(
                        "weapon".into(),
                        "iron_sword".into(),
                    )]))),
                    ..Default::default()
                },
                Changed {
                    id: "p3".into(),
                    worn: Some(Arc::new(Worn::new())),
                    ..Default::default()
                },
                Changed {
                    id: "r1".into(),
                    ..Default::default()
                },
            ],
            removed: vec!["x9".into()].into(),
            stamina: Some(55),
        }),
        S::WorldUpdate(WorldUpdate {
            tick: 1,
            ..Default::default()
        }),
        S::Chat(ChatMessage {
            channel: ChatChannel::Global,
            from_id: "c1".into(),
            from_name: "Wren".into(),
            text: "hello".into(),
            ts: 1_700_000_000_000,
            world: Some(2),
        }),
        S::Chat(ChatMessage {
            channel: ChatChannel::System,
            from_id: String::new(),
            from_name: String::new(),
            text: "Welcome".into(),
            ts: 0,
            world: None,
        }),
        S::InventoryUpdate(InventoryUpdate {
            inventory: player().inventory,
            coins: 25,
        }),
        S::EquipmentUpdate(EquipmentUpdate {
            equipment: player().equipment,
        }),
        S::SkillXp(SkillXp {
            skill: Skill::Mining,
            xp_gained: 17.5,
            xp: 35,
            level: 1,
            leveled_up: false,
        }),
        S::CombatHit(CombatHit {
            attacker_id: "c1".into(),
            target_id: "n1".into(),
            damage: 0,
            target_health: 5,
            target_max_health: 5,
            projectile: Some("arrow".into()),
        }),
        S::FriendList(FriendList {
            friends: vec![
                ContactEntry {
                    id: "c2".into(),
                    name: "Ann".into(),
                    online: Some(true),
                    world: Some(1),
                },
                ContactEntry {
                    id: "c3".into(),
                    name: "Bob".into(),
                    online: Some(false),
                    world: None,
                },
            ],
            incoming: vec![],
            outgoing: vec![ContactEntry {
                id: "c4".into(),
                name: "Cy".into(),
                online: None,
                world: None,
            }],
            ignored: vec![],
        }),
        S::FriendIncoming(FriendIncoming {
            from_id: "c2".into(),
            from_name: "Ann".into(),
        }),
        S::FriendStatus(FriendStatus {
            id: "c2".into(),
            name: "Ann".into(),
            online: true,
            world: Some(3),
        }),
        S::Error(ErrorMessage {
            code: codes::MOVE_TOO_FAR.into(),
            message: "too far".into(),
            reference: Some(json!("a7")),
            remaining_seconds: None,
        }),
        S::Error(ErrorMessage {
            code: codes::COOLDOWN.into(),
            message: "not yet".into(),
            reference: None,
            remaining_seconds: Some(1_790),
        }),
        S::PlayerEmote(PlayerEmote {
            player_id: "c1".into(),
            emote: "dance".into(),
        }),
        S::HomeTeleport(HomeTeleportNotice {
            status: "casting".into(),
            cast_ticks: Some(17),
            cooldown_seconds: 0,
        }),
        S::HomeTeleport(HomeTeleportNotice {
            status: "arrived".into(),
            cast_ticks: None,
            cooldown_seconds: 1_800,
        }),
        S::error(codes::RATE_LIMITED, "slow down", None),
        S::error(codes::INVALID_MESSAGE, "bad", Some(json!(12))),
        S::TradeIncoming(TradeIncoming {
            trade_id: "trade-1".into(),
            from_player_id: "c1".into(),
            from_player_name: "Wren".into(),
        }),
        S::TradeStarted(TradeStarted {
            trade_id: "trade-1".into(),
            partner_id: "c2".into(),
            partner_name: "Ann".into(),
        }),
        S::TradeUpdated(TradeUpdated {
            trade_id: "trade-1".into(),
            my_offer: offer(2),
            their_offer: offer(0),
        }),
        S::TradeConfirmScreen(TradeConfirmScreen {
            trade_id: "trade-1".into(),
            my_offer: offer(1),
            their_offer: offer(1),
            values: TradeValues { mine: 7, theirs: 7 },
        }),
        S::TradeCompleted(TradeCompleted {
            trade_id: "trade-1".into(),
            received_items: vec![ReceivedItem {
                item_id: "coins".into(),
                quantity: 7,
            }],
        }),
        S::TradeCancelled(TradeCancelled {
            trade_id: "trade-1".into(),
            reason: "cancelled".into(),
            by_player_id: Some("c2".into()),
        }),
        S::TradeCancelled(TradeCancelled {
            trade_id: "trade-1".into(),
            reason: "timeout".into(),
            by_player_id: None,
        }),
        S::TradeError(TradeError {
            code: "too_far".into(),
            message: "stand within 2 tiles".into(),
            trade_id: Some("trade-1".into()),
            reference: Some(json!(3)),
        }),
        S::TradeError(TradeError {
            code: "player_offline".into(),
            message: "not online".into(),
            trade_id: None,
            reference: None,
        }),
        S::BankUpdate(BankUpdate {
            items: vec![BankItem {
                item_id: "logs".into(),
                quantity: 30,
            }],
        }),
        S::ShopOpen(shop()),
        S::ShopUpdate(shop()),
        S::ShopClose(ShopClosed {
            store_id: "general".into(),
        }),
        S::MakeOptions(MakeOptions {
            context: MakeContext {
                target_id: Some("res-4".into()),
                station_type: Some("anvil".into()),
                slots: Some(vec![3]),
            },
            options: vec![MakeOption {
                recipe_id: "smithing:bronze_sword".into(),
                skill: Some(Skill::Smithing),
                level: 4,
                name: "Bronze Sword".into(),
                xp: 12.5,
                inputs: vec![RecipeItem {
                    item_id: "bronze_bar".into(),
                    quantity: 1,
                }],
                tools: vec!["hammer".into()],
                consumables: vec![RecipeConsumable {
                    item_id: "thread".into(),
                    uses: 5,
                }],
                outputs: vec![RecipeItem {
                    item_id: "bronze_sword".into(),
                    quantity: 1,
                }],
                coins: 0,
                can_make: false,
                reason: Some(codes::LEVEL_TOO_LOW.into()),
            }],
        }),
        S::PrayerUpdate(PrayerUpdate {
            points: 4,
            max_points: 5,
            active: vec!["thick_skin".into()],
        }),
        S::DialogueOpen(DialogueOpen {
            npc_id: "old_marta".into(),
            entity_id: "n7".into(),
            node_id: "start".into(),
            text: "Hello, dear.".into(),
            responses: vec![DialogueChoice {
                index: 0,
                text: "Goodbye".into(),
            }],
        }),
        S::DialogueClose(DialogueClose {
            npc_id: "old_marta".into(),
            reason: "walked_away".into(),
        }),
        S::QuestList(QuestList {
            quests: vec![
                QuestSummary {
                    quest_id: "goblin_slayer".into(),
                    name: "Goblin Slayer".into(),
                    status: "in_progress".into(),
                    stage_id: Some("kill".into()),
                    progress: Some(2),
                },
                QuestSummary {
                    quest_id: "cook".into(),
                    name: "Cook".into(),
                    status: "not_started".into(),
                    stage_id: None,
                    progress: None,
                },
            ],
            quest_points: 1,
        }),
        S::QuestUpdate(QuestUpdate {
            quest_id: "goblin_slayer".into(),
            status: "in_progress".into(),
            stage_id: Some("kill".into()),
            progress: 2,
            count: 5,
        }),
        S::QuestUpdate(QuestUpdate {
            quest_id: "goblin_slayer".into(),
            status: "completed".into(),
            stage_id: None,
            progress: 5,
            count: 5,
        }),
        S::QuestComplete(QuestComplete {
            quest_id: "goblin_slayer".into(),
            rewards: QuestRewards {
                quest_points: 1,
                items: vec![RewardItem {
                    item_id: "coins".into(),
                    quantity: 100,
                }],
                xp: BTreeMap::from([(Skill::Attack, 150.5)]),
            },
            quest_points: 3,
        }),
        S::AgentGoal(AgentGoal {
            agent_id: "ag1".into(),
            goal: Some(goal()),
            paused: false,
        }),
        S::AgentGoal(AgentGoal {
            agent_id: "ag1".into(),
            goal: None,
            paused: true,
        }),
        S::AgentStop(AgentPause {
            agent_id: "ag1".into(),
            paused: true,
        }),
        S::AgentResume(AgentPause {
            agent_id: "ag1".into(),
            paused: false,
        }),
        S::AgentMessage(AgentMessage {
            agent_id: "ag1".into(),
            id: "m1".into(),
            text: "chopTree {}".into(),
            paused: false,
            ts: 1_700_000_000_000,
        }),
        S::ZoneEnter(ZoneEnter {
            area_id: Some("millbrook".into()),
            name: Some("Millbrook".into()),
            safe: true,
            pvp: false,
        }),
        S::ZoneEnter(ZoneEnter {
            area_id: None,
            name: None,
            safe: false,
            pvp: false,
        }),
        S::PlayerDeath(PlayerDeath {
            killer_id: Some("npc-12".into()),
            killer_name: Some("Goblin".into()),
            kept: Vec::new(),
            lost: vec![DeathItem {
                item_id: "bronze_sword".into(),
                quantity: 1,
            }],
            gravestone: Some(Gravestone {
                x: 60,
                z: 4,
                expires_at: 1_700_000_900_000,
            }),
            respawn: TilePos { x: 0, z: 0 },
        }),
        S::PlayerDeath(PlayerDeath {
            killer_id: None,
            killer_name: None,
            kept: vec![DeathItem {
                item_id: "rune_sword".into(),
                quantity: 1,
            }],
            lost: Vec::new(),
            gravestone: None,
            respawn: TilePos { x: 0, z: 0 },
        }),
        S::DuelIncoming(DuelIncoming {
            duel_id: "duel-1".into(),
            from_player_id: "c1".into(),
            from_player_name: "Wren".into(),
        }),
        S::DuelRules(DuelRules {
            duel_id: "duel-1".into(),
            opponent_id: "c2".into(),
            opponent_name: "Ann".into(),
            screen: 2,
            rules: vec!["no_food".into(), "no_movement".into()],
            my_stake: DuelStake {
                items: vec![StakeItem {
                    inventory_slot: 0,
                    item_id: "coins".into(),
                    name: "Coins".into(),
                    quantity: 100,
                    value: 100,
                }],
                value: 100,
                accepted: true,
            },
            their_stake: DuelStake::default(),
        }),
        S::DuelStart(DuelStart {
            duel_id: "duel-1".into(),
            opponent_id: "c2".into(),
            rules: vec![],
            arena_id: Some("duel_arena".into()),
            tile: TilePos { x: 0, z: -50 },
        }),
        S::DuelStart(DuelStart {
            duel_id: "duel-1".into(),
            opponent_id: "c2".into(),
            rules: vec!["no_magic".into()],
            arena_id: None,
            tile: TilePos { x: 3, z: 4 },
        }),
        S::ArenaQueued(crate::arena::ArenaQueued {
            position: 1,
            rating: 1500.0,
        }),
        S::ArenaMatch(crate::arena::ArenaMatch {
            fight_id: "fight-1".into(),
            opponent_id: "c2".into(),
            opponent_name: "Bea".into(),
            opponent_rating: 1523.5,
            starts_at: 1_700_000_030_000,
        }),
        S::ArenaCancelled(crate::arena::ArenaCancelled {
            fight_id: "fight-1".into(),
            reason: "disconnected".into(),
        }),
        S::ArenaLeft(crate::arena::ArenaLeft {}),
        S::ArenaResult(crate::arena::ArenaResult {
            fight_id: "fight-1".into(),
            winner_id: "c1".into(),
            loser_id: "c2".into(),
            ratings: [
                (
                    "c1".to_string(),
                    crate::arena::RatingChange {
                        before: 1500.0,
                        after: 1662.3,
                    },
                ),
                (
                    "c2".to_string(),
                    crate::arena::RatingChange {
                        before: 1500.0,
                        after: 1337.7,
                    },
                ),
            ]
            .into_iter()
            .collect(),
        }),
        S::DuelResult(DuelResult {
            duel_id: "duel-1".into(),
            winner_id: "c1".into(),
            loser_id: "c2".into(),
            received_items: vec![ReceivedItem {
                item_id: "coins".into(),
                quantity: 100,
            }],
        }),
        S::DuelCancelled(DuelCancelled {
            duel_id: "duel-1".into(),
            reason: "cancelled".into(),
            by_player_id: Some("c2".into()),
        }),
        S::DuelCancelled(DuelCancelled {
            duel_id: "duel-1".into(),
            reason: "disconnected".into(),
            by_player_id: None,
        }),
        S::DuelError(DuelError {
            duel_id: Some("duel-1".into()),
            code: "rule_broken".into(),
            message: "no food in this duel".into(),
            reference: Some(json!(5)),
        }),
        S::DuelError(DuelError {
            duel_id: None,
            code: "too_far".into(),
            message: "stand within 2 tiles".into(),
            reference: None,
        }),
    ]
}

/// The event names of `samples` that `table` lacks, and those of `table` without a sample.
fn coverage<'a>(
    table: &[&'a str],
    samples: impl Iterator<Item = &'a str>,
) -> (Vec<&'a str>, Vec<&'a str>) {
    let sampled: BTreeSet<&str> = samples.collect();
    let listed: BTreeSet<&str> = table.iter().copied().collect();
    (
        sampled.difference(&listed).copied().collect(),
        listed.difference(&sampled).copied().collect(),
    )
}

#[test]
fn every_event_has_a_sample() {
    let client = client_samples();
    let (unknown, missing) = coverage(ClientMessage::TYPES, client.iter().map(ClientMessage::kind));
    assert!(
        unknown.is_empty(),
        "not in ClientMessage::TYPES: {unknown:?}"
    );
    assert!(
        missing.is_empty(),
        "client events without a sample in ws/samples.rs (add one): {missing:?}"
    );
    let server = server_samples();
    let (unknown, missing) = coverage(ServerMessage::TYPES, server.iter().map(ServerMessage::kind));
    assert!(
        unknown.is_empty(),
        "not in ServerMessage::TYPES: {unknown:?}"
    );
    assert!(
        missing.is_empty(),
        "server events without a sample in ws/samples.rs (add one): {missing:?}"
    );
    // Each name once: a table may not name two variants alike.
    for table in [ClientMessage::TYPES, ServerMessage::TYPES] {
        let distinct: BTreeSet<&str> = table.iter().copied().collect();
        assert_eq!(distinct.len(), table.len(), "{table:?}");
    }
}

#[test]
fn every_client_message_reads_back_as_itself() {
    for (n, message) in client_samples().into_iter().enumerate() {
        let text = message.to_json();
        let (parsed, reference) = ClientMessage::parse(&text);
        assert_eq!(parsed.as_ref(), Ok(&message), "{text}");
        assert_eq!(reference, None);
        // The envelope: its type, and data always an object (`{}` for an event without data).
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["type"], message.kind(), "{text}");
        assert!(value["data"].is_object(), "{text}");
        assert_eq!(value.as_object().unwrap().len(), 2, "{text}");
        // With a ref, of either kind: the same message, the ref echoed.
        for reference in [json!(format!("a{n}")), json!(n)] {
            let text = message.frame(Some(reference.clone()));
            let (parsed, echoed) = ClientMessage::parse(&text);
            assert_eq!(parsed.as_ref(), Ok(&message), "{text}");
            assert_eq!(echoed, Some(reference.clone()), "{text}");
            let frame: ClientFrame = serde_json::from_str(&text).unwrap();
            assert_eq!(frame.message, message);
            assert_eq!(frame.reference, Some(reference.clone()));
            assert_eq!(serde_json::to_string(&frame).unwrap(), text);
        }
        assert_eq!(message.frame(None), text);
        // Through serde as well as through `parse`.
        let read: ClientMessage = serde_json::from_str(&text).unwrap();
        assert_eq!(read, message);
    }
}

#[test]
fn every_server_message_reads_back_as_itself() {
    for message in server_samples() {
        let text = message.to_json();
        let read: ServerMessage = serde_json::from_str(&text)
            .unwrap_or_else(|err| panic!("{} does not read back: {err}\n{text}", message.kind()));
        assert_eq!(read, message, "{text}");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["type"], message.kind(), "{text}");
        // The socket writer's bytes (a hand-written encoder for world:update) are the same.
        let mut bytes = Vec::new();
        message.write_json(&mut bytes);
        assert_eq!(String::from_utf8(bytes).unwrap(), text);
    }
}

#[test]
fn client_frames_are_written_as_the_server_reads_them() {
    // Hand-written frames of the contract's shape, with optional fields left out where written
    // so: the typed writer produces exactly these.
    for (message, expected) in [
        (
            ClientMessage::Sync,
            json!({"type": "player:sync", "data": {}}),
        ),
        (
            ClientMessage::Action(ActionRequest::new("drop").with_slot(3)),
            json!({"type": "player:action", "data": {"action": "drop", "slot": 3}}),
        ),
        (
            ClientMessage::Action(
                ActionRequest::make("smithing:bronze_dagger", Quantity::All).with_target("res-4"),
            ),
            json!({"type": "player:action", "data": {"action": "make",
                "recipeId": "smithing:bronze_dagger", "quantity": "all", "targetId": "res-4"}}),
        ),
        (
            ClientMessage::BankDeposit(BankDepositRequest {
                slot: DepositSlot::All,
                quantity: None,
            }),
            json!({"type": "bank:deposit", "data": {"slot": "all"}}),
        ),
        (
            ClientMessage::TradeAddItem(TradeAddItem {
                trade_id: "t".into(),
                inventory_slot: 3u8.into(),
                quantity: Some(1),
            }),
            json!({"type": "tradeAddItem", "data": {"tradeId": "t", "inventorySlot": 3, "quantity": 1}}),
        ),
    ] {
        let written: Value = serde_json::from_str(&message.to_json()).unwrap();
        assert_eq!(written, expected);
    }
    assert_eq!(
        ClientMessage::Sync.frame(Some(json!(7))),
        r#"{"type":"player:sync","data":{},"ref":7}"#
    );
}
