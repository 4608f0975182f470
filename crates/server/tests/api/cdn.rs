//! CDN manifest sync against a local HTTP/1.1 server acting as the CDN.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use wayfarer_content::{bundled, ManifestSet, Skill};
use wayfarer_server::cdn::{
    load_at_startup, CheckError, FetchError, Loaded, Origin, Revalidator, StartupOptions,
    Validators, ETAGS_FILE, MANIFEST_FILES,
};

/// How the fake CDN answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Serve the files.
    Serve,
    /// 503 to everything.
    Unavailable,
    /// Accept the connection and never answer.
    Hang,
}

#[derive(Debug)]
struct State {
    files: BTreeMap<String, Vec<u8>>,
    mode: Mode,
    /// Requests by manifest path.
    requests: BTreeMap<String, usize>,
    /// 200 answers (full downloads).
    downloads: usize,
    /// 304 answers.
    not_modified: usize,
}

/// A CDN serving `/manifests/<file>` with strong ETags and `If-None-Match` support.
struct FakeCdn {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

/// A strong ETag of a body: a quoted hash and length.
fn etag_of(bytes: &[u8]) -> String {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("\"{:016x}-{}\"", hasher.finish(), bytes.len())
}

impl FakeCdn {
    async fn start(set: &ManifestSet) -> FakeCdn {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            files: set.files.clone(),
            mode: Mode::Serve,
            requests: BTreeMap::new(),
            downloads: 0,
            not_modified: 0,
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                tokio::spawn(serve(stream, shared.clone()));
            }
        });
        FakeCdn { addr, state, task }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn set_file(&self, path: &str, bytes: impl Into<Vec<u8>>) {
        self.state
            .lock()
            .unwrap()
            .files
            .insert(path.to_string(), bytes.into());
    }

    fn remove_file(&self, path: &str) {
        self.state.lock().unwrap().files.remove(path);
    }

    fn set_mode(&self, mode: Mode) {
        self.state.lock().unwrap().mode = mode;
    }

    fn etag(&self, path: &str) -> String {
        etag_of(&self.state.lock().unwrap().files[path])
    }

    fn total_requests(&self) -> usize {
        self.state.lock().unwrap().requests.values().sum()
    }

    fn requests_for(&self, path: &str) -> usize {
        self.state
            .lock()
            .unwrap()
            .requests
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    fn downloads(&self) -> usize {
        self.state.lock().unwrap().downloads
    }

    fn not_modified(&self) -> usize {
        self.state.lock().unwrap().not_modified
    }

    fn reset_counts(&self) {
        let mut state = self.state.lock().unwrap();
        state.requests.clear();
        state.downloads = 0;
        state.not_modified = 0;
    }

    /// Closes the listening socket: new connections are refused.
    async fn stop(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

/// Answers one request on one connection (`Connection: close`).
async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let target = request_line
        .split(' ')
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let if_none_match = lines.find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("if-none-match")
            .then(|| value.trim().to_string())
    });

    let (status, etag, body) = {
        let mut state = state.lock().unwrap();
        let path = target.strip_prefix("/manifests/").map(str::to_string);
        if let Some(path) = &path {
            *state.requests.entry(path.clone()).or_default() += 1;
        }
        match state.mode {
            Mode::Hang => (None, None, Vec::new()),
            Mode::Unavailable => (Some("503 Service Unavailable"), None, b"down".to_vec()),
            Mode::Serve => match path.and_then(|p| state.files.get(&p).cloned()) {
                None => (Some("404 Not Found"), None, b"not found".to_vec()),
                Some(bytes) => {
                    let etag = etag_of(&bytes);
                    let matches = if_none_match.as_deref().is_some_and(|tags| {
                        tags.split(',').any(|t| t.trim() == etag || t.trim() == "*")
                    });
                    if matches {
                        state.not_modified += 1;
                        (Some("304 Not Modified"), Some(etag), Vec::new())
                    } else {
                        state.downloads += 1;
                        (Some("200 OK"), Some(etag), bytes)
                    }
                }
            },
        }
    };
    let Some(status) = status else {
        // Hang: hold the connection open without answering.
        tokio::time::sleep(Duration::from_secs(60)).await;
        return;
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nCache-Control: public, max-age=300, must-revalidate\r\n"
    );
    if let Some(etag) = etag {
        response.push_str(&format!("ETag: {etag}\r\n"));
    }
    if !status.starts_with("304") {
        response.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    response.push_str("\r\n");
    let mut bytes = response.into_bytes();
    bytes.extend_from_slice(&body);
    let _ = stream.write_all(&bytes).await;
    let _ = stream.shutdown().await;
}

/// A fresh world folder under the temp dir, removed on drop.
struct World(PathBuf);

impl World {
    fn new(name: &str) -> World {
        let dir = std::env::temp_dir().join(format!("wayfarer-cdn-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        World(dir)
    }

    fn cache(&self) -> PathBuf {
        self.0.join("manifests-cache")
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn options(cdn: Option<String>, cache: &Path, always_fetch: bool) -> StartupOptions {
    StartupOptions::new(cdn, cache, always_fetch)
}

/// A base URL where nothing listens (connection refused).
async fn dead_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// Bundled `skill-unlocks.json` with one extra Attack unlock.
fn skill_unlocks_with_extra_entry() -> Vec<u8> {
    let mut value: Value =
        serde_json::from_slice(bundled().get("skill-unlocks.json").unwrap()).unwrap();
    value["skills"]["attack"]
        .as_array_mut()
        .unwrap()
        .push(json!({
            "level": 99,
            "description": "Cape of the Wayfarer",
            "type": "item"
        }));
    serde_json::to_vec_pretty(&value).unwrap()
}

/// Loads through a CDN with `always_fetch` (populating the cache).
async fn start_from(cdn: &FakeCdn, world: &World) -> Loaded {
    load_at_startup(options(Some(cdn.url()), &world.cache(), true)).await
}

fn revalidator(cdn: &FakeCdn, world: &World, loaded: &Loaded) -> Revalidator {
    Revalidator::new(
        &cdn.url(),
        world.cache(),
        Duration::from_secs(5),
        loaded.validators.clone(),
    )
    .unwrap()
}

/// The number of bundled files (served) and known-but-absent ones (404).
fn served_and_absent() -> (usize, usize) {
    let served = bundled().len();
    (served, MANIFEST_FILES.len() - served)
}

#[tokio::test]
async fn always_fetch_downloads_every_file_and_writes_the_cache() {
    let world = World::new("fetch");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = load_at_startup(options(
        Some(format!("{}/", cdn.url())),
        &world.cache(),
        true,
    ))
    .await;

    assert_eq!(loaded.origin, Origin::Cdn);
    assert_eq!(loaded.set, bundled());
    assert!(!loaded.report.has_errors());
    assert_eq!(
        loaded.content.items.len(),
        wayfarer_content::load_bundled().items.len()
    );
    // Every known file asked once; only the present ones downloaded.
    for file in MANIFEST_FILES {
        assert_eq!(cdn.requests_for(file), 1, "{file}");
    }
    let (served, _) = served_and_absent();
    assert_eq!(cdn.downloads(), served);
    // One ETag per served file, exactly the CDN's.
    assert_eq!(loaded.validators.len(), served);
    assert_eq!(
        loaded.validators.get("npcs.json"),
        Some(cdn.etag("npcs.json").as_str())
    );

    // The cache holds the files and the ETag sidecar.
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), bundled());
    assert!(world.cache().join("items/tools.json").is_file());
    let sidecar: Validators =
        serde_json::from_slice(&std::fs::read(world.cache().join(ETAGS_FILE)).unwrap()).unwrap();
    assert_eq!(sidecar, loaded.validators);
}

#[tokio::test]
async fn production_fetches_even_when_a_cache_exists() {
    let world = World::new("production");
    let cdn = FakeCdn::start(&bundled()).await;
    start_from(&cdn, &world).await;
    cdn.reset_counts();
    let loaded = start_from(&cdn, &world).await;
    assert_eq!(loaded.origin, Origin::Cdn);
    assert_eq!(cdn.total_requests(), MANIFEST_FILES.len());
    // Revalidated with the cache's ETags: nothing downloaded again.
    let (served, _) = served_and_absent();
    assert_eq!(cdn.downloads(), 0);
    assert_eq!(cdn.not_modified(), served);
    assert_eq!(loaded.set, bundled());
    assert_eq!(loaded.validators.len(), served);
}

#[tokio::test]
async fn a_production_restart_downloads_only_the_files_that_changed() {
    let world = World::new("restart-changed");
    let cdn = FakeCdn::start(&bundled()).await;
    start_from(&cdn, &world).await;
    let new_unlocks = skill_unlocks_with_extra_entry();
    cdn.set_file("skill-unlocks.json", new_unlocks.clone());
    cdn.reset_counts();

    let restarted = start_from(&cdn, &world).await;
    assert_eq!(restarted.origin, Origin::Cdn);
    let (served, _) = served_and_absent();
    assert_eq!(cdn.downloads(), 1, "only the changed file");
    assert_eq!(cdn.not_modified(), served - 1);
    assert_eq!(
        restarted.set.get("skill-unlocks.json"),
        Some(new_unlocks.as_slice())
    );
    assert!(restarted.content.skill_unlocks[&Skill::Attack]
        .iter()
        .any(|u| u.level == 99));
    assert_eq!(
        restarted.validators.get("skill-unlocks.json"),
        Some(cdn.etag("skill-unlocks.json").as_str())
    );
    // The cache follows, so the next restart is all 304s.
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), restarted.set);
    cdn.reset_counts();
    start_from(&cdn, &world).await;
    assert_eq!(cdn.downloads(), 0);
    assert_eq!(cdn.not_modified(), served);
}

#[tokio::test]
async fn development_mode_uses_an_existing_cache_without_any_request() {
    let world = World::new("development");
    let cdn = FakeCdn::start(&bundled()).await;
    let first = start_from(&cdn, &world).await;
    cdn.reset_counts();

    let loaded = load_at_startup(options(Some(cdn.url()), &world.cache(), false)).await;
    assert_eq!(loaded.origin, Origin::Cache);
    assert_eq!(cdn.total_requests(), 0);
    assert_eq!(loaded.set, first.set);
    assert_eq!(loaded.validators, first.validators);
}

#[tokio::test]
async fn development_mode_fetches_when_there_is_no_cache() {
    let world = World::new("development-empty");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = load_at_startup(options(Some(cdn.url()), &world.cache(), false)).await;
    assert_eq!(loaded.origin, Origin::Cdn);
    assert_eq!(cdn.total_requests(), MANIFEST_FILES.len());
    assert!(world.cache().join("npcs.json").is_file());
}

#[tokio::test]
async fn without_a_cdn_url_the_bundled_content_is_used_even_with_a_cache() {
    let world = World::new("no-url");
    let mut changed = bundled();
    changed.insert("skill-unlocks.json", skill_unlocks_with_extra_entry());
    let cdn = FakeCdn::start(&changed).await;
    start_from(&cdn, &world).await;
    assert!(world.cache().is_dir());

    for always_fetch in [true, false] {
        let loaded = load_at_startup(options(None, &world.cache(), always_fetch)).await;
        assert_eq!(loaded.origin, Origin::Bundled);
        assert_eq!(loaded.set, bundled());
        assert!(loaded.validators.is_empty());
    }
}

#[tokio::test]
async fn revalidation_without_changes_downloads_nothing() {
    let world = World::new("unchanged");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = start_from(&cdn, &world).await;
    let mut revalidator = revalidator(&cdn, &world, &loaded);
    cdn.reset_counts();

    for _ in 0..2 {
        let result = revalidator.check(&loaded.set).await.unwrap();
        assert!(result.is_none());
    }
    let (served, absent) = served_and_absent();
    assert_eq!(cdn.downloads(), 0);
    assert_eq!(cdn.not_modified(), 2 * served);
    assert_eq!(cdn.total_requests(), 2 * (served + absent));
    assert_eq!(revalidator.validators(), &loaded.validators);
}

#[tokio::test]
async fn a_changed_file_is_picked_up_and_cached() {
    let world = World::new("changed");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = start_from(&cdn, &world).await;
    let mut revalidator = revalidator(&cdn, &world, &loaded);
    let new_unlocks = skill_unlocks_with_extra_entry();
    cdn.set_file("skill-unlocks.json", new_unlocks.clone());
    cdn.reset_counts();

    let update = revalidator
        .check(&loaded.set)
        .await
        .unwrap()
        .expect("an update");
    assert_eq!(update.changed_files, ["skill-unlocks.json"]);
    assert!(update.removed_files.is_empty());
    assert_eq!(cdn.downloads(), 1, "only the changed file is downloaded");
    assert_eq!(
        update.set.get("skill-unlocks.json"),
        Some(new_unlocks.as_slice())
    );
    assert_eq!(update.set.len(), loaded.set.len());
    let attack = &update.content.skill_unlocks[&Skill::Attack];
    assert!(attack
        .iter()
        .any(|u| u.level == 99 && u.description == "Cape of the Wayfarer"));
    assert!(!loaded.content.skill_unlocks[&Skill::Attack]
        .iter()
        .any(|u| u.level == 99));

    // Cache and ETags follow the new set.
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), update.set);
    assert_eq!(
        revalidator.validators().get("skill-unlocks.json"),
        Some(cdn.etag("skill-unlocks.json").as_str())
    );
    let restarted = load_at_startup(options(Some(cdn.url()), &world.cache(), false)).await;
    assert_eq!(restarted.origin, Origin::Cache);
    assert_eq!(restarted.set, update.set);

    // The next round is quiet again.
    cdn.reset_counts();
    assert!(revalidator.check(&update.set).await.unwrap().is_none());
    assert_eq!(cdn.downloads(), 0);
}

#[tokio::test]
async fn files_that_depend_on_each_other_change_together() {
    let world = World::new("together");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = start_from(&cdn, &world).await;
    let mut revalidator = revalidator(&cdn, &world, &loaded);

    // A new item and a store line selling it, published at once.
    let set = bundled();
    let mut misc: Value = serde_json::from_slice(set.get("items/misc.json").unwrap()).unwrap();
    let mut lantern = misc[0].clone();
    lantern["id"] = json!("brass_lantern");
    lantern["name"] = json!("Brass Lantern");
    lantern["type"] = json!("misc");
    lantern["stackable"] = json!(false);
    lantern["maxStackSize"] = json!(1);
    misc.as_array_mut().unwrap().push(lantern);
    let mut stores: Value = serde_json::from_slice(set.get("stores.json").unwrap()).unwrap();
    let mut line = stores[0]["items"][0].clone();
    line["id"] = json!("brass_lantern");
    line["itemId"] = json!("brass_lantern");
    line["name"] = json!("Brass Lantern");
    stores[0]["items"].as_array_mut().unwrap().push(line);
    cdn.set_file("items/misc.json", serde_json::to_vec(&misc).unwrap());
    cdn.set_file("stores.json", serde_json::to_vec(&stores).unwrap());

    let update = revalidator
        .check(&loaded.set)
        .await
        .unwrap()
        .expect("an update");
    assert_eq!(update.changed_files, ["items/misc.json", "stores.json"]);
    assert!(update.content.items.contains_key("brass_lantern"));
    let store_id = stores[0]["id"].as_str().unwrap();
    assert!(update.content.stores[store_id]
        .stock
        .iter()
        .any(|l| l.item_id == "brass_lantern"));
    assert!(update.report.is_empty(), "{}", update.report);
}

#[tokio::test]
async fn an_invalid_new_version_is_rejected_and_reported_again_next_time() {
    let world = World::new("invalid");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = start_from(&cdn, &world).await;
    let mut revalidator = revalidator(&cdn, &world, &loaded);
    cdn.set_file("npcs.json", b"[{ \"id\": ".to_vec());
    cdn.reset_counts();

    for round in 1..=2 {
        match revalidator.check(&loaded.set).await {
            Err(CheckError::Invalid {
                changed_files,
                report,
            }) => {
                assert_eq!(changed_files, ["npcs.json"]);
                assert!(report.has_errors());
                assert!(
                    report.diagnostics.iter().any(|d| d.file == "npcs.json"),
                    "{report}"
                );
            }
            other => panic!("round {round}: expected a rejection, got {other:?}"),
        }
        // The old ETags are kept, so each round downloads the broken file again.
        assert_eq!(cdn.downloads(), round);
        assert_eq!(revalidator.validators(), &loaded.validators);
    }
    // The cache still holds the old, valid set.
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), loaded.set);

    // Publishing the old file again ends the episode without any change.
    cdn.set_file("npcs.json", bundled().get("npcs.json").unwrap().to_vec());
    assert!(revalidator.check(&loaded.set).await.unwrap().is_none());
}

#[tokio::test]
async fn a_file_removed_from_the_cdn_is_removed_from_the_set() {
    let world = World::new("removed");
    let mut published = bundled();
    published.insert("music.json", b"[]".to_vec());
    let cdn = FakeCdn::start(&published).await;
    let loaded = start_from(&cdn, &world).await;
    assert!(loaded.set.contains("music.json"));
    let mut revalidator = revalidator(&cdn, &world, &loaded);

    cdn.remove_file("music.json");
    let update = revalidator
        .check(&loaded.set)
        .await
        .unwrap()
        .expect("an update");
    assert!(update.changed_files.is_empty());
    assert_eq!(update.removed_files, ["music.json"]);
    assert_eq!(update.set, bundled());
    assert!(!world.cache().join("music.json").exists());
    assert_eq!(revalidator.validators().get("music.json"), None);
}

#[tokio::test]
async fn revalidation_with_the_cdn_down_fails_and_changes_nothing() {
    let world = World::new("down-later");
    let cdn = FakeCdn::start(&bundled()).await;
    let loaded = start_from(&cdn, &world).await;
    let mut revalidator = revalidator(&cdn, &world, &loaded);

    cdn.set_mode(Mode::Unavailable);
    match revalidator.check(&loaded.set).await {
        Err(CheckError::Unreachable(FetchError::Status { status: 503, .. })) => {}
        other => panic!("expected a 503, got {other:?}"),
    }
    cdn.stop().await;
    match revalidator.check(&loaded.set).await {
        Err(CheckError::Unreachable(FetchError::Request { reason, .. })) => {
            assert!(reason.starts_with("cannot connect"), "{reason}");
        }
        other => panic!("expected a connection error, got {other:?}"),
    }
    assert_eq!(revalidator.validators(), &loaded.validators);
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), loaded.set);
}

#[tokio::test]
async fn a_server_started_from_bundled_content_converges_to_the_cdn() {
    let world = World::new("converge");
    let loaded = load_at_startup(options(Some(dead_url().await), &world.cache(), true)).await;
    assert_eq!(loaded.origin, Origin::Bundled);

    // The CDN comes up with the same content plus one changed file.
    let mut published = bundled();
    published.insert("skill-unlocks.json", skill_unlocks_with_extra_entry());
    let cdn = FakeCdn::start(&published).await;
    let mut revalidator = revalidator(&cdn, &world, &loaded);
    let update = revalidator
        .check(&loaded.set)
        .await
        .unwrap()
        .expect("an update");
    assert_eq!(update.changed_files, ["skill-unlocks.json"]);
    assert_eq!(update.set, published);
    // Every file now has its ETag, so the next round is all 304s.
    assert_eq!(revalidator.validators().len(), published.len());
    cdn.reset_counts();
    assert!(revalidator.check(&update.set).await.unwrap().is_none());
    assert_eq!(cdn.downloads(), 0);
}

#[tokio::test]
async fn an_unreachable_cdn_at_startup_falls_back_to_the_cache() {
    let world = World::new("fallback-cache");
    let mut published = bundled();
    published.insert("skill-unlocks.json", skill_unlocks_with_extra_entry());
    let cdn = FakeCdn::start(&published).await;
    let first = start_from(&cdn, &world).await;
    cdn.stop().await;

    let loaded = load_at_startup(options(Some(dead_url().await), &world.cache(), true)).await;
    assert_eq!(loaded.origin, Origin::Cache);
    assert_eq!(loaded.set, published);
    assert_eq!(loaded.validators, first.validators);
}

#[tokio::test]
async fn an_unreachable_cdn_without_a_cache_falls_back_to_the_bundled_content() {
    let world = World::new("fallback-bundled");
    for always_fetch in [true, false] {
        let loaded = load_at_startup(options(
            Some(dead_url().await),
            &world.cache(),
            always_fetch,
        ))
        .await;
        assert_eq!(loaded.origin, Origin::Bundled);
        assert_eq!(loaded.set, bundled());
        assert!(loaded.validators.is_empty());
        assert!(!world.cache().exists());
    }
}

#[tokio::test]
async fn server_errors_and_timeouts_count_as_unreachable() {
    let world = World::new("errors");
    let cdn = FakeCdn::start(&bundled()).await;

    cdn.set_mode(Mode::Unavailable);
    let loaded = start_from(&cdn, &world).await;
    assert_eq!(loaded.origin, Origin::Bundled);

    cdn.set_mode(Mode::Hang);
    let mut opts = options(Some(cdn.url()), &world.cache(), true);
    opts.timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let loaded = load_at_startup(opts).await;
    assert_eq!(loaded.origin, Origin::Bundled);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    let mut revalidator = Revalidator::new(
        &cdn.url(),
        world.cache(),
        Duration::from_millis(300),
        Validators::default(),
    )
    .unwrap();
    match revalidator.check(&loaded.set).await {
        Err(CheckError::Unreachable(FetchError::Request { reason, .. })) => {
            assert_eq!(reason, "timed out");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn an_invalid_cdn_set_at_startup_falls_back_to_the_cache_then_bundled() {
    let world = World::new("invalid-start");
    let cdn = FakeCdn::start(&bundled()).await;
    start_from(&cdn, &world).await;

    // The CDN publishes a broken npcs.json.
    cdn.set_file("npcs.json", b"not json".to_vec());
    let loaded = start_from(&cdn, &world).await;
    assert_eq!(loaded.origin, Origin::Cache);
    assert_eq!(loaded.set, bundled());
    // The cache was not overwritten by the invalid set.
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), bundled());

    std::fs::remove_dir_all(world.cache()).unwrap();
    let loaded = start_from(&cdn, &world).await;
    assert_eq!(loaded.origin, Origin::Bundled);
}

#[tokio::test]
async fn an_invalid_cache_is_not_used() {
    let world = World::new("invalid-cache");
    let cdn = FakeCdn::start(&bundled()).await;
    start_from(&cdn, &world).await;
    std::fs::write(world.cache().join("npcs.json"), b"{").unwrap();

    // Development mode refuses it and fetches instead, repairing the cache.
    let loaded = load_at_startup(options(Some(cdn.url()), &world.cache(), false)).await;
    assert_eq!(loaded.origin, Origin::Cdn);
    assert_eq!(ManifestSet::read_dir(world.cache()).unwrap(), bundled());

    // With the CDN down too, only the bundled content is left.
    std::fs::write(world.cache().join("npcs.json"), b"{").unwrap();
    cdn.stop().await;
    let loaded = load_at_startup(options(Some(dead_url().await), &world.cache(), true)).await;
    assert_eq!(loaded.origin, Origin::Bundled);
}
