//! The bundled quests played over real WebSockets by a scripted client: it talks to the quest
//! givers, gathers, makes, lights fires and fights as a player would (admin `/tp` only to save
//! walking, `/give` only for inputs of stages that are not gathering), and is rewarded once.
//!
//! The world runs on the manual clock: the script steps it one tick at a time and reads what
//! each tick sent before deciding again, so a quest takes its ticks' computing time, not their
//! wall time, and every wait is a number of ticks.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wayfarer_protocol::ws::{
    ActionRequest, BankDepositRequest, ClientMessage, DepositSlot, DialogueCloseRequest,
    DialogueRespond, Quantity, UseRequest,
};

use crate::support::messages::{act, act_on, chat, to_id, to_slot};
use crate::support::{player, AppOptions, Clock, TestApp, WsClient};
use wayfarer_host::world_thread::TickClock;

/// Ticks an `expect` waits for its message (20 s of the timed test clock's 50 ms ticks).
const EXPECT_TICKS: u64 = 400;
/// Ticks a quest stage may take to be done.
const STAGE_TICKS: u64 = 1_200;
/// Ticks a fighting stage may take (more kills, and the dead respawning).
const FIGHT_TICKS: u64 = 2_400;
/// Ticks after which the fighter attacks again though its target lives (it may have been stopped).
const REATTACK_TICKS: u64 = 80;

/// A scripted player: the socket plus what it has been told (entities in view, inventory, the
/// last dialogue node, quest stages).
struct Script {
    ws: WsClient,
    clock: TickClock,
    /// Ticks this script has stepped.
    ticks: u64,
    /// Messages received and not yet read (absorbed when read, as a player would see them).
    pending: VecDeque<Value>,
    id: String,
    entities: HashMap<String, Value>,
    inventory: Vec<Value>,
    dialogue: Option<Value>,
    quests: HashMap<String, Value>,
    /// Health at or below which the fighter eats.
    eat_below: i64,
}

impl Script {
    async fn enter(app: &TestApp, name: &str) -> (Script, String) {
        Script::enter_with_levels(app, name, &[]).await
    }

    /// A new character whose levels are set in the store before it enters (a trained fighter).
    async fn enter_with_levels(
        app: &TestApp,
        name: &str,
        levels: &[(wayfarer_protocol::Skill, u8)],
    ) -> (Script, String) {
        Script::enter_prepared(app, name, levels, &[]).await
    }

    /// [`Script::enter_with_levels`], with quests already done (`quest_progress` rows written
    /// before it enters).
    async fn enter_prepared(
        app: &TestApp,
        name: &str,
        levels: &[(wayfarer_protocol::Skill, u8)],
        done: &[&str],
    ) -> (Script, String) {
        let (token, id) = player(app, name).await;
        if !done.is_empty() {
            let store = app.store();
            let snapshot = wayfarer_store::CharacterSnapshot {
                character: store.characters().get(&id).await.unwrap().unwrap(),
                inventory: store.inventories().get(&id).await.unwrap(),
                equipment: store.inventories().equipment(&id).await.unwrap(),
                bank: store.inventories().bank(&id).await.unwrap(),
                quests: done
                    .iter()
                    .map(|q| wayfarer_store::StoredQuest {
                        quest_id: (*q).into(),
                        status: "completed".into(),
                        stage: None,
                        progress: 0,
                        completions: 1,
                    })
                    .collect(),
                xp_reached_at: Default::default(),
            };
            store.inventories().save_batch(&[snapshot]).await.unwrap();
        }
        if !levels.is_empty() {
            let mut character = app.store().characters().get(&id).await.unwrap().unwrap();
            for (skill, level) in levels {
                let xp = wayfarer_sim::skills::xp_for_level(*level);
                character.skills.insert(
                    *skill,
                    wayfarer_store::SkillLevel {
                        level: i64::from(*level),
                        xp: i64::from(xp),
                    },
                );
            }
            app.store().characters().save(&character).await.unwrap();
        }
        let mut ws = WsClient::connect(app, &format!("token={token}"))
            .await
            .unwrap();
        let sync = ws.next().await.unwrap();
        assert_eq!(sync["type"], "player:sync");
        app.in_world(&id).await;
        let mut script = Script {
            ws,
            clock: app.clock(),
            ticks: 0,
            pending: VecDeque::new(),
            id,
            entities: HashMap::new(),
            inventory: sync["data"]["inventory"].as_array().unwrap().clone(),
            dialogue: None,
            quests: HashMap::new(),
            eat_below: 5,
        };
        script
            .expect("the first view", |m| m["type"] == "world:update")
            .await;
        script.chat("/admin bq").await;
        (script, token)
    }

    fn absorb(&mut self, m: &Value) {
        match m["type"].as_str() {
            Some("world:update") => {
                for e in m["data"]["added"].as_array().into_iter().flatten() {
                    self.entities
                        .insert(e["id"].as_str().unwrap().to_owned(), e.clone());
                }
                for e in m["data"]["moved"].as_array().into_iter().flatten() {
                    if let Some(known) = self.entities.get_mut(e["id"].as_str().unwrap()) {
                        known["x"] = e["x"].clone();
                        known["z"] = e["z"].clone();
                    }
                }
                for c in m["data"]["changed"].as_array().into_iter().flatten() {
                    if let Some(known) = self.entities.get_mut(c["id"].as_str().unwrap()) {
                        if let Some(d) = c.get("depleted") {
                            known["depleted"] = d.clone();
                        }
                        if let Some(q) = c.get("quest") {
                            known["quest"] = q.clone();
                        }
                    }
                }
                for r in m["data"]["removed"].as_array().into_iter().flatten() {
                    self.entities.remove(r.as_str().unwrap());
                }
            }
            Some("inventory:update") => {
                self.inventory = m["data"]["inventory"].as_array().unwrap().clone();
            }
            Some("dialogue:open") => self.dialogue = Some(m["data"].clone()),
            Some("dialogue:close") => self.dialogue = None,
            Some("quest:update") => {
                self.quests.insert(
                    m["data"]["questId"].as_str().unwrap().to_owned(),
                    m["data"].clone(),
                );
            }
            _ => {}
        }
    }

    /// Steps the world one tick and receives everything sent until then. A `player:sync` is
    /// answered between ticks, after what the tick queued to this socket, so its answer marks
    /// the end of what the tick (and everything before it) sent.
    async fn tick(&mut self) {
        self.clock.step(1).await.expect("a manual world");
        self.ticks += 1;
        self.ws.send(ClientMessage::Sync, None).await;
        loop {
            let m = self.ws.next().await.expect("still connected");
            if m["type"] == "player:sync" {
                return;
            }
            self.pending.push_back(m);
        }
    }

    /// The next message read, stepping the world until there is one.
    async fn next(&mut self) -> Value {
        let start = self.ticks;
        loop {
            if let Some(m) = self.next_this_tick().await {
                return m;
            }
            assert!(
                self.ticks - start < EXPECT_TICKS,
                "no message in {EXPECT_TICKS} ticks"
            );
        }
    }

    /// The next message already received, or `None` after stepping a tick (a loop's unit of time).
    async fn next_this_tick(&mut self) -> Option<Value> {
        match self.pending.pop_front() {
            Some(m) => {
                self.absorb(&m);
                Some(m)
            }
            None => {
                self.tick().await;
                None
            }
        }
    }

    async fn expect(&mut self, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let deadline = self.ticks + EXPECT_TICKS;
        loop {
            assert!(self.ticks < deadline, "no {what} in {EXPECT_TICKS} ticks");
            let m = self.next().await;
            if accept(&m) {
                return m;
            }
        }
    }

    async fn send(&mut self, message: ClientMessage) {
        self.ws.send(message, None).await;
    }

    async fn chat(&mut self, text: &str) {
        self.send(chat(text)).await;
    }

    /// Teleports and waits until the world shows the player there.
    async fn tp(&mut self, x: i64, z: i64) {
        self.chat(&format!("/tp {x} {z}")).await;
        let me = self.id.clone();
        self.expect("the teleport", |m| {
            m["type"] == "world:update"
                && m["data"]["moved"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|e| e["id"] == me.as_str()))
        })
        .await;
    }

    /// The nearest entity of content type `type_id` to `(x, z)`, not depleted; panics when none is
    /// in view (for stations and NPCs, which are always there).
    fn nearest(&self, type_id: &str, at: (i64, i64)) -> String {
        self.find_nearest(type_id, at)
            .unwrap_or_else(|| panic!("no {type_id} in view"))
    }

    /// [`Script::nearest`], or `None` while none is in view (every rock of a kind may be depleted
    /// and waiting to respawn, or the view after a teleport has not shown them yet).
    fn find_nearest(&self, type_id: &str, (x, z): (i64, i64)) -> Option<String> {
        self.entities
            .values()
            .filter(|e| e["typeId"] == type_id && e["depleted"] != true)
            .min_by_key(|e| {
                (e["x"].as_i64().unwrap() - x)
                    .abs()
                    .max((e["z"].as_i64().unwrap() - z).abs())
            })
            .and_then(|e| e["id"].as_str())
            .map(str::to_owned)
    }

    fn slot_of(&self, item: &str) -> Option<u64> {
        self.inventory
            .iter()
            .find(|s| s["itemId"] == item)
            .map(|s| s["slot"].as_u64().unwrap())
    }

    fn count(&self, item: &str) -> i64 {
        self.inventory
            .iter()
            .filter(|s| s["itemId"] == item)
            .map(|s| s["quantity"].as_i64().unwrap())
            .sum()
    }

    /// Talks to the NPC of type `npc`: the node shown.
    async fn talk(&mut self, npc: &str) -> Value {
        let target = self.nearest(npc, (0, 0));
        self.dialogue = None;
        self.send(act_on("interact", &target)).await;
        let open = self
            .expect("a dialogue", |m| m["type"] == "dialogue:open")
            .await;
        open["data"].clone()
    }

    /// Gives the shown answer `text`; panics when it is not shown.
    async fn answer(&mut self, text: &str) {
        let open = self.dialogue.clone().expect("a dialogue is open");
        let index = open["responses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["text"] == text)
            .unwrap_or_else(|| panic!("{text:?} not shown in {open}"))["index"]
            .as_u64()
            .and_then(|index| u32::try_from(index).ok())
            .expect("a response's index is a number");
        self.send(ClientMessage::DialogueRespond(DialogueRespond {
            npc_id: to_id(&open["npcId"]),
            index,
        }))
        .await;
    }

    fn stage(&self, quest: &str) -> Option<String> {
        self.quests
            .get(quest)
            .and_then(|q| q["stageId"].as_str())
            .map(str::to_owned)
    }

    /// Repeats `act` (an action that may stop: a depleted rock, a missed fire) every `every`
    /// ticks until the quest leaves `stage`.
    async fn until_stage_done(
        &mut self,
        quest: &str,
        stage: &str,
        every: u64,
        mut act: impl FnMut(&Script) -> Option<ClientMessage>,
    ) {
        let deadline = self.ticks + STAGE_TICKS;
        while self.stage(quest).as_deref() == Some(stage) {
            assert!(self.ticks < deadline, "{quest} stuck at {stage}");
            // Nothing to act on yet: wait for the world to show it.
            if let Some(message) = act(self) {
                self.send(message).await;
            }
            let until = self.ticks + every;
            while self.ticks < until && self.stage(quest).as_deref() == Some(stage) {
                self.next_this_tick().await;
            }
        }
    }

    /// Waits for `quest:complete` of `quest`; returns its data.
    async fn completed(&mut self, quest: &str) -> Value {
        let q = quest.to_owned();
        self.expect("quest:complete", |m| {
            m["type"] == "quest:complete" && m["data"]["questId"] == q.as_str()
        })
        .await["data"]
            .clone()
    }
}

async fn app() -> TestApp {
    TestApp::spawn_with(AppOptions {
        env: vec![("ADMIN_CODE", "bq".into())],
        clock: Clock::Manual,
        ..Default::default()
    })
    .await
}

/// Polls the store until the quest is saved completed once (the save follows the tick that
/// completed it; a poll with a deadline, as the save task runs on its own).
async fn saved_completed(app: &TestApp, id: &str, quest: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let rows = app.store().quests().list(id).await.unwrap();
        if let Some(row) = rows.iter().find(|r| r.quest_id == quest) {
            if row.status == "completed" {
                assert_eq!(row.completions, 1);
                return;
            }
        }
        assert!(Instant::now() < deadline, "{quest} not saved completed");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn forge_and_fire_is_played_to_its_reward() {
    let app = app().await;
    let (mut p, _) = Script::enter(&app, "Smith").await;
    p.tp(-13, -12).await;
    p.talk("foreman_garrick").await;
    p.answer("What do you need?").await;
    p.expect("the task", |m| {
        m["type"] == "dialogue:open" && m["data"]["nodeId"] == "task"
    })
    .await;
    p.answer("On it.").await;
    p.expect("started", |m| m["type"] == "quest:update").await;
    assert_eq!(p.stage("forge_and_fire").as_deref(), Some("copper"));
    p.expect("the hammer", |m| m["type"] == "inventory:update")
        .await;
    assert_eq!(p.count("hammer"), 1);

    // Mine: rocks deplete after each ore, so alternate between the rocks of each kind.
    p.tp(-14, -29).await;
    for (stage, rock) in [("copper", "rock_copper"), ("tin", "rock_tin")] {
        p.until_stage_done("forge_and_fire", stage, 30, |p| {
            let target = p.find_nearest(rock, (-14, -29))?;
            Some(act_on("gather", &target))
        })
        .await;
    }
    assert_eq!(p.stage("forge_and_fire").as_deref(), Some("smelt"));
    // Smelt: bronze bars at the furnace, as many as the ore makes.
    p.tp(-12, -12).await;
    p.until_stage_done("forge_and_fire", "smelt", 60, |p| {
        let furnace = p.nearest("furnace", (-12, -14));
        Some(ClientMessage::Action(
            ActionRequest::make("smithing:bronze_bar", Quantity::All).with_target(to_id(&furnace)),
        ))
    })
    .await;
    // Smith: the dagger the quest asks for, chosen at the anvil.
    p.tp(-15, -11).await;
    p.until_stage_done("forge_and_fire", "smith", 40, |p| {
        let anvil = p.nearest("anvil", (-16, -12));
        // No quantity: the default (once), as a client that leaves it out gets.
        let make = ActionRequest {
            recipe_id: Some("smithing:bronze_dagger".into()),
            ..ActionRequest::new("make")
        };
        Some(ClientMessage::Action(make.with_target(to_id(&anvil))))
    })
    .await;
    // Fires: lighting the logs (given: the stage is about lighting them).
    p.tp(-20, -2).await;
    p.chat("/give logs 6").await;
    p.expect("logs", |m| m["type"] == "inventory:update").await;
    p.until_stage_done("forge_and_fire", "fire", 50, |p| {
        let logs = p.slot_of("logs").expect("logs left");
        Some(ClientMessage::Action(
            ActionRequest::new("light_fire").with_slot(json!(logs)),
        ))
    })
    .await;
    assert_eq!(p.quests["forge_and_fire"]["status"], "ready_to_complete");

    // Back to Garrick: the ready node; the dagger for an iron pickaxe.
    p.tp(-13, -12).await;
    let open = p.talk("foreman_garrick").await;
    assert_eq!(open["nodeId"], "ready");
    p.answer("Here it is.").await;
    let done = p.completed("forge_and_fire").await;
    assert_eq!(done["rewards"]["items"][0]["itemId"], "iron_pickaxe");
    p.expect("the reward", |m| m["type"] == "inventory:update")
        .await;
    assert_eq!(p.count("iron_pickaxe"), 1);
    assert_eq!(p.count("bronze_dagger"), 0);
    saved_completed(&app, &p.id.clone(), "forge_and_fire").await;
    let open = p.talk("foreman_garrick").await;
    assert_eq!(open["nodeId"], "done");
}

#[tokio::test]
async fn first_catch_is_played_to_its_reward() {
    let app = app().await;
    let (mut p, _) = Script::enter(&app, "Fisher").await;
    p.tp(21, 12).await;
    p.talk("old_marta").await;
    p.answer("Teach me to fish.").await;
    p.expect("the lesson", |m| {
        m["type"] == "dialogue:open" && m["data"]["nodeId"] == "lesson"
    })
    .await;
    p.answer("I'll do it.").await;
    let open = p.expect("accepted", |m| m["type"] == "dialogue:open").await;
    assert_eq!(open["data"]["nodeId"], "quest_accepted");
    assert_eq!(p.stage("first_catch").as_deref(), Some("catch"));
    // While in progress, "I lost the net" shows only without a net: the starter net plus hers.
    let open = p.talk("old_marta").await;
    assert_eq!(open["nodeId"], "progress");
    assert!(open["responses"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["text"] != "I lost the net."));
    p.send(ClientMessage::DialogueClose(DialogueCloseRequest::default()))
        .await;

    // Fish five shrimp at the net spots by the pier.
    p.tp(25, 17).await;
    p.until_stage_done("first_catch", "catch", 80, |p| {
        let spot = p.find_nearest("fishing_spot_net", (25, 17))?;
        Some(act_on("gather", &spot))
    })
    .await;
    // The fifth catch's inventory update comes after the quest's in the same tick.
    p.expect("the fifth shrimp", |m| m["type"] == "inventory:update")
        .await;
    assert!(p.count("raw_shrimp") >= 5);
    // Cook on the range: some burn, so more raw shrimp are given (the catch stage is done).
    // The teleport ends the fishing (it goes on past the stage until the bag is full, for as
    // many ticks as the script took to read the stage's end); then the gift, as many as fit, is
    // in before cooking starts: cooking the caught ones alone, some burned, could leave no raw
    // shrimp for the stage.
    p.tp(6, -12).await;
    let before = p.count("raw_shrimp");
    if p.inventory.len() < 28 {
        p.chat("/give raw_shrimp 20").await;
        p.expect("the raw shrimp given", |m| {
            let held: i64 = m["data"]["inventory"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|s| s["itemId"] == "raw_shrimp")
                .map(|s| s["quantity"].as_i64().unwrap_or(0))
                .sum();
            m["type"] == "inventory:update" && held > before
        })
        .await;
    }
    assert!(
        p.count("raw_shrimp") >= 10,
        "{} raw shrimp",
        p.count("raw_shrimp")
    );
    p.until_stage_done("first_catch", "cook", 80, |p| {
        let range = p.nearest("range", (6, -14));
        let raw = p.slot_of("raw_shrimp").expect("raw shrimp left");
        Some(ClientMessage::Action(
            ActionRequest::new("cook")
                .with_target(to_id(&range))
                .with_slot(json!(raw)),
        ))
    })
    .await;
    p.send(act("stop")).await;
    assert_eq!(p.quests["first_catch"]["status"], "ready_to_complete");

    p.tp(21, 12).await;
    let open = p.talk("old_marta").await;
    assert_eq!(open["nodeId"], "ready");
    let shrimp = p.count("shrimp");
    assert!(shrimp >= 5);
    p.answer("Here are your five shrimp.").await;
    let done = p.completed("first_catch").await;
    assert_eq!(done["rewards"]["questPoints"], 1);
    p.expect("paid", |m| m["type"] == "inventory:update").await;
    assert_eq!(p.count("shrimp"), shrimp - 5);
    assert_eq!(p.count("trout"), 2);
    assert_eq!(p.count("lamp_of_knowledge"), 1);
    saved_completed(&app, &p.id.clone(), "first_catch").await;

    // The reward lamp, rubbed over the socket on a skill of the player's choosing: its XP goes
    // there, the lamp is used up, and both are saved at once.
    let lamp = p.slot_of("lamp_of_knowledge").unwrap();
    p.send(ClientMessage::Use(UseRequest {
        skill: Some("agility".into()),
        ..UseRequest::new(to_slot(lamp))
    }))
    .await;
    let xp = p.expect("the lamp's XP", |m| m["type"] == "skill:xp").await;
    assert_eq!(xp["data"]["skill"], "agility");
    assert_eq!(xp["data"]["xpGained"].as_f64(), Some(250.0));
    p.expect("the lamp used up", |m| m["type"] == "inventory:update")
        .await;
    assert_eq!(p.count("lamp_of_knowledge"), 0);
    let id = p.id.clone();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stored = app.store().inventories().get(&id).await.unwrap();
        if stored.iter().all(|s| s.item_id != "lamp_of_knowledge") {
            break;
        }
        assert!(Instant::now() < deadline, "the rubbed lamp was not saved");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A skill that does not exist is refused, nothing used.
    p.send(ClientMessage::Use(UseRequest {
        skill: Some("juggling".into()),
        ..UseRequest::new(to_slot(p.slot_of("trout").unwrap()))
    }))
    .await;
    let refused = p.expect("refused", |m| m["type"] == "error").await;
    assert_eq!(refused["data"]["code"], "invalid_message");
}

impl Script {
    /// The quest marker the nearest NPC of type `npc` shows this player (`None`: no marker).
    fn marker(&self, npc: &str) -> Option<String> {
        let id = self.nearest(npc, (0, 0));
        self.entities[&id]["quest"]
            .as_str()
            .filter(|q| *q != "none")
            .map(str::to_owned)
    }

    /// Reads what comes until `quest` is at `stage` (the update may precede the dialogue that
    /// caused it).
    async fn until_stage(&mut self, quest: &str, stage: &str) {
        let deadline = self.ticks + EXPECT_TICKS;
        while self.stage(quest).as_deref() != Some(stage) {
            assert!(self.ticks < deadline, "{quest} never reached {stage}");
            self.next_this_tick().await;
        }
    }
}

#[tokio::test]
async fn first_steps_the_guided_quest_at_the_spawn_is_played_to_its_reward() {
    let app = app().await;
    let (mut p, _) = Script::enter(&app, "Newcomer").await;
    // The guide stands a few steps from the spawn: no teleport to reach it.
    assert_eq!(p.marker("guide_rowan").as_deref(), Some("available"));
    assert_eq!(p.marker("banker_elsie"), None);
    let open = p.talk("guide_rowan").await;
    assert_eq!(open["nodeId"], "greeting");
    p.answer("Yes, show me around.").await;
    p.expect("the tour", |m| {
        m["type"] == "dialogue:open" && m["data"]["nodeId"] == "tour"
    })
    .await;
    p.answer("I'm ready.").await;
    let open = p.expect("accepted", |m| m["type"] == "dialogue:open").await;
    assert_eq!(open["data"]["nodeId"], "quest_accepted");
    assert_eq!(p.stage("first_steps").as_deref(), Some("chop"));
    while p.count("raw_shrimp") < 3 {
        p.next().await;
    }

    // Chop a tree north-east of the square with the starter hatchet.
    p.tp(15, -18).await;
    p.until_stage_done("first_steps", "chop", 40, |p| {
        let tree = p.find_nearest("tree_normal", (15, -20))?;
        Some(act_on("gather", &tree))
    })
    .await;
    // Light a fire with the starter tinderbox and the logs just cut.
    while p.slot_of("logs").is_none() {
        p.next().await;
    }
    p.tp(12, -16).await;
    p.until_stage_done("first_steps", "fire", 50, |p| {
        let logs = p.slot_of("logs").expect("the logs are not burnt yet");
        Some(ClientMessage::Action(
            ActionRequest::new("light_fire").with_slot(json!(logs)),
        ))
    })
    .await;
    // Cook on that fire (more shrimp given: some burn; the stage counts a cooked one).
    p.chat("/give raw_shrimp 10").await;
    p.until_stage_done("first_steps", "cook", 20, |p| {
        let fire = p.find_nearest("fire", (12, -16))?;
        let raw = p.slot_of("raw_shrimp").expect("raw shrimp left");
        Some(ClientMessage::Action(
            ActionRequest::new("cook")
                .with_target(to_id(&fire))
                .with_slot(json!(raw)),
        ))
    })
    .await;
    p.send(act("stop")).await;
    assert_eq!(p.stage("first_steps").as_deref(), Some("bank"));

    // The bank: Elsie's marker says she is the next step; talking to her does it, then a deposit.
    p.tp(9, -5).await;
    assert_eq!(p.marker("banker_elsie").as_deref(), Some("active"));
    let open = p.talk("banker_elsie").await;
    assert_eq!(open["nodeId"], "greeting");
    p.until_stage("first_steps", "chicken").await;
    p.answer("Yes, please.").await;
    // `openBank` sends the bank's contents.
    p.expect("the bank", |m| m["type"] == "bank:update").await;
    let bread = p.slot_of("bread").expect("the starter bread");
    p.send(ClientMessage::BankDeposit(BankDepositRequest {
        slot: DepositSlot::Slot(to_slot(bread)),
        quantity: None,
    }))
    .await;
    let banked = p.expect("banked", |m| m["type"] == "bank:update").await;
    assert!(banked["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["itemId"] == "bread"));
    p.send(ClientMessage::DialogueClose(DialogueCloseRequest::default()))
        .await;

    // A chicken in the pen in Whispering Woods, with the starter sword worn.
    let sword = p.slot_of("bronze_sword").unwrap();
    p.send(ClientMessage::Action(
        ActionRequest::new("equip").with_slot(json!(sword)),
    ))
    .await;
    p.expect("worn", |m| m["type"] == "equipment:update").await;
    p.tp(53, 18).await;
    p.fight_until_stage_done("first_steps", "chicken", "chicken", (55, 20))
        .await;
    p.send(act("stop")).await;

    // Tobin's General Store.
    p.tp(-8, -5).await;
    assert_eq!(p.marker("merchant_tobin").as_deref(), Some("active"));
    p.talk("merchant_tobin").await;
    p.until_stage("first_steps", "finish").await;
    p.send(ClientMessage::DialogueClose(DialogueCloseRequest::default()))
        .await;
    assert_eq!(p.quests["first_steps"]["status"], "ready_to_complete");

    // Back to the guide: the reward, once.
    p.tp(-2, -1).await;
    assert_eq!(p.marker("guide_rowan").as_deref(), Some("ready"));
    let coins = p.count("coins");
    let open = p.talk("guide_rowan").await;
    assert_eq!(open["nodeId"], "ready");
    p.answer("All done!").await;
    let done = p.completed("first_steps").await;
    assert_eq!(done["rewards"]["questPoints"], 1);
    assert_eq!(done["rewards"]["items"][0]["itemId"], "coins");
    assert_eq!(done["rewards"]["xp"]["cooking"].as_f64(), Some(50.0));
    p.expect("paid", |m| m["type"] == "inventory:update").await;
    assert_eq!(p.count("coins"), coins + 50);
    saved_completed(&app, &p.id.clone(), "first_steps").await;
    let open = p.talk("guide_rowan").await;
    assert_eq!(open["nodeId"], "done");
}

impl Script {
    /// This player's health from the hits it took (full until hit).
    fn health_after(&self, m: &Value) -> Option<i64> {
        (m["type"] == "combat:hit" && m["data"]["targetId"] == self.id.as_str())
            .then(|| m["data"]["targetHealth"].as_i64())
            .flatten()
    }

    /// Fights NPCs of `kind` near `at` until the quest leaves `stage`, eating shrimp when low.
    async fn fight_until_stage_done(
        &mut self,
        quest: &str,
        stage: &str,
        kind: &str,
        at: (i64, i64),
    ) {
        let deadline = self.ticks + FIGHT_TICKS;
        let mut target: Option<String> = None;
        let mut last_attack: Option<u64> = None;
        while self.stage(quest).as_deref() == Some(stage) {
            assert!(self.ticks < deadline, "{quest} stuck at {stage}");
            let alive = target
                .as_ref()
                .is_some_and(|t| self.entities.contains_key(t));
            let any = self.entities.values().any(|e| e["typeId"] == kind);
            let due = last_attack.is_none_or(|at| self.ticks - at > REATTACK_TICKS);
            if any && (!alive || due) {
                // The same one until it dies (all of them may be dead, waiting to respawn: then
                // just wait).
                let next = match (&target, alive) {
                    (Some(t), true) => t.clone(),
                    _ => self.nearest(kind, at),
                };
                self.send(act_on("attack", &next)).await;
                target = Some(next);
                last_attack = Some(self.ticks);
            }
            if let Some(m) = self.next_this_tick().await {
                if let Some(health) = self.health_after(&m) {
                    if health <= self.eat_below {
                        if let Some(food) = self.slot_of("shrimp") {
                            self.send(ClientMessage::Use(UseRequest::new(to_slot(food))))
                                .await;
                            // Eating interrupts nothing, but re-attack to be sure.
                            last_attack = None;
                        }
                    }
                }
            }
        }
    }
}

#[tokio::test]
async fn vermin_and_villains_is_played_to_its_reward_and_the_bounty_needs_attack_ten() {
    let app = app().await;
    // Trained in Strength, Defence and Hitpoints (not Attack: the bounty's Attack 10 must stay
    // out of reach even after the reward's 300 Attack XP).
    use wayfarer_protocol::Skill;
    let (mut p, _) = Script::enter_with_levels(
        &app,
        "Warden",
        &[
            (Skill::Strength, 40),
            (Skill::Defense, 40),
            (Skill::Constitution, 30),
        ],
    )
    .await;
    p.tp(3, 8).await;
    let open = p.talk("captain_holt").await;
    assert!(open["responses"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["text"] != "Any more work, Captain?"));
    p.answer("I can help.").await;
    p.expect("the task", |m| {
        m["type"] == "dialogue:open" && m["data"]["nodeId"] == "task"
    })
    .await;
    p.answer("Understood.").await;
    p.expect("started", |m| m["type"] == "quest:update").await;
    assert_eq!(p.stage("vermin_and_villains").as_deref(), Some("rats"));
    p.expect("the helmet", |m| m["type"] == "inventory:update")
        .await;
    for item in ["bronze_sword", "bronze_helmet"] {
        let slot = p.slot_of(item).unwrap();
        p.send(ClientMessage::Action(
            ActionRequest::new("equip").with_slot(json!(slot)),
        ))
        .await;
        p.expect("worn", |m| m["type"] == "equipment:update").await;
    }
    p.chat("/give shrimp 15").await;
    p.expect("food", |m| m["type"] == "inventory:update").await;

    p.tp(68, -22).await;
    p.fight_until_stage_done("vermin_and_villains", "rats", "giant_rat", (70, -25))
        .await;
    p.tp(98, 3).await;
    p.fight_until_stage_done("vermin_and_villains", "goblins", "goblin", (100, 0))
        .await;
    assert_eq!(
        p.quests["vermin_and_villains"]["status"],
        "ready_to_complete"
    );
    p.send(act("stop")).await;

    p.tp(3, 8).await;
    let open = p.talk("captain_holt").await;
    assert_eq!(open["nodeId"], "vermin_ready");
    p.answer("The woods are clear.").await;
    let done = p.completed("vermin_and_villains").await;
    assert_eq!(done["questPoints"], 1);
    saved_completed(&app, &p.id.clone(), "vermin_and_villains").await;
    p.expect("the reward", |m| m["type"] == "inventory:update")
        .await;
    assert_eq!(p.count("iron_sword"), 1);

    // The bounty now shows, but needs Attack 10: the start is refused and nothing changes.
    let open = p.talk("captain_holt").await;
    assert_eq!(open["nodeId"], "greeting");
    p.answer("Any more work, Captain?").await;
    p.expect("the bounty", |m| {
        m["type"] == "dialogue:open" && m["data"]["nodeId"] == "bounty"
    })
    .await;
    p.answer("I'll hunt them.").await;
    let refusal = p
        .expect("the refusal", |m| {
            m["type"] == "chat:message" && m["data"]["channel"] == "system"
        })
        .await;
    assert!(
        refusal["data"]["text"]
            .as_str()
            .unwrap()
            .contains("Attack level of 10"),
        "{refusal}"
    );
    let close = p.expect("closed", |m| m["type"] == "dialogue:close").await;
    assert_eq!(close["data"]["reason"], "end");
    assert!(!p.quests.contains_key("bandit_bounty"));
    p.send(ClientMessage::QuestList).await;
    let list = p.expect("the list", |m| m["type"] == "quest:list").await;
    let bounty = list["data"]["quests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["questId"] == "bandit_bounty")
        .unwrap()
        .clone();
    assert_eq!(bounty["status"], "not_started");
}

#[tokio::test]
async fn bandit_bounty_is_played_to_its_reward() {
    let app = app().await;
    use wayfarer_protocol::Skill;
    // A seasoned fighter and miner who has done Vermin and Villains.
    let (mut p, _) = Script::enter_prepared(
        &app,
        "Hunter",
        &[
            (Skill::Attack, 60),
            (Skill::Strength, 70),
            (Skill::Defense, 80),
            (Skill::Constitution, 70),
            (Skill::Mining, 15),
        ],
        &["vermin_and_villains"],
    )
    .await;
    p.eat_below = 35;
    p.tp(3, 8).await;
    p.talk("captain_holt").await;
    p.answer("Any more work, Captain?").await;
    p.expect("the bounty", |m| {
        m["type"] == "dialogue:open" && m["data"]["nodeId"] == "bounty"
    })
    .await;
    p.answer("I'll hunt them.").await;
    p.expect("started", |m| m["type"] == "quest:update").await;
    assert_eq!(p.stage("bandit_bounty").as_deref(), Some("scout"));
    let sword = p.slot_of("bronze_sword").unwrap();
    p.send(ClientMessage::Action(
        ActionRequest::new("equip").with_slot(json!(sword)),
    ))
    .await;
    p.chat("/give shrimp 12").await;
    p.expect("food", |m| m["type"] == "inventory:update").await;

    // Scout: standing in Stonecrag Hills.
    p.tp(-60, 0).await;
    // (The update comes in the teleport's tick, before its view.)
    if p.stage("bandit_bounty").as_deref() == Some("scout") {
        p.expect("scouted", |m| {
            m["type"] == "quest:update" && m["data"]["stageId"] == "bandits"
        })
        .await;
    }
    assert_eq!(p.stage("bandit_bounty").as_deref(), Some("bandits"));
    p.tp(-110, -8).await;
    p.fight_until_stage_done("bandit_bounty", "bandits", "bandit", (-115, -10))
        .await;
    p.send(act("stop")).await;
    assert_eq!(p.stage("bandit_bounty").as_deref(), Some("proof"));
    // The stolen ore: mined from the iron rock north-west of town.
    p.tp(-23, -30).await;
    p.until_stage_done("bandit_bounty", "proof", 40, |p| {
        let rock = p.find_nearest("rock_iron", (-24, -32))?;
        Some(act_on("gather", &rock))
    })
    .await;
    p.expect("the third ore", |m| m["type"] == "inventory:update")
        .await;
    assert!(p.count("iron_ore") >= 3);
    assert_eq!(p.quests["bandit_bounty"]["status"], "ready_to_complete");

    p.tp(3, 8).await;
    let open = p.talk("captain_holt").await;
    assert_eq!(open["nodeId"], "bounty_ready");
    let ore = p.count("iron_ore");
    p.answer("Here is the ore.").await;
    let done = p.completed("bandit_bounty").await;
    assert_eq!(done["questPoints"], 3);
    p.expect("the reward", |m| m["type"] == "inventory:update")
        .await;
    assert_eq!(p.count("amulet_of_vigour"), 1);
    assert_eq!(p.count("iron_ore"), ore - 3);
    saved_completed(&app, &p.id.clone(), "bandit_bounty").await;
}
