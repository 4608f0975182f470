//! Content sources at start (CDN, cache, bundled) and the periodic CDN revalidation that swaps a valid
//! new version in live.

use std::sync::Arc;
use std::time::Duration;

use crate::cdn::{load_at_startup, CheckError, Revalidator, StartupOptions};
use tokio::sync::watch;
use wayfarer_content::Content;

use crate::config::{Config, NodeEnv};
use crate::content_state::{ActiveContent, ContentHolder};

/// Where downloaded manifests are cached, under the world directory.
pub const CACHE_DIR: &str = "manifests-cache";

/// Loads the content to start with; never fails (the bundled content is the last resort).
pub async fn load(config: &Config) -> (ActiveContent, StartupOptions, crate::cdn::Validators) {
    let options = StartupOptions::new(
        config.public_cdn_url.clone(),
        config.world_dir.join(CACHE_DIR),
        // Production and test always fetch; development uses a cache it already has.
        config.node_env != NodeEnv::Development,
    );
    let loaded = load_at_startup(options.clone()).await;
    tracing::info!(
        origin = %loaded.origin,
        files = loaded.set.len(),
        items = loaded.content.items.len(),
        npcs = loaded.content.npcs.len(),
        areas = loaded.content.areas.len(),
        warnings = loaded.report.diagnostics.len(),
        "content loaded"
    );
    for diagnostic in &loaded.report.diagnostics {
        tracing::debug!(%diagnostic, "content diagnostic");
    }
    for line in &loaded.content.ignored {
        tracing::warn!(ignored = %line, "content the server reads but does not use");
    }
    for line in &loaded.content.filled_in {
        tracing::warn!(filled_in = %line, "content the bundled game fills in");
    }
    let content = generate(loaded.content, config.world_seed).await;
    let active = ActiveContent::new(&loaded.set, content, loaded.origin);
    (active, options, loaded.validators)
}

/// The content with its world generated from its `world-config.json` (when it asks for one), on a
/// blocking thread: the reference island takes a moment to make.
pub async fn generate(content: Content, world_seed: Option<u64>) -> Content {
    let started = std::time::Instant::now();
    let made = tokio::task::spawn_blocking(move || {
        let mut content = content;
        let generated = wayfarer_sim::worldgen::apply(&mut content, world_seed);
        (content, generated)
    })
    .await;
    match made {
        Ok((content, generated)) => {
            if let Some(world) = content.generated.as_ref().filter(|_| generated) {
                tracing::info!(
                    towns = world.towns.len(),
                    side = world.side,
                    mob_spawners = world.mob_spawns.len(),
                    resources = world.resources.len(),
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "world generated from world-config.json"
                );
            }
            content
        }
        // The generator does not panic on any content; should it, the process cannot go on
        // with half a world.
        Err(err) => std::panic::resume_unwind(err.into_panic()),
    }
}

/// Revalidates against the CDN every `period`; a changed, valid set replaces the holder's content and
/// is announced on `updates` (the world thread applies it at a tick boundary). Runs until aborted.
pub async fn refresh_loop(
    options: StartupOptions,
    validators: crate::cdn::Validators,
    holder: Arc<ContentHolder>,
    updates: watch::Sender<Arc<Content>>,
    period: Duration,
    world_seed: Option<u64>,
) {
    let Some(cdn) = options.cdn_url.clone() else {
        return;
    };
    let mut revalidator = match Revalidator::new(
        &cdn,
        &options.cache_dir,
        options.timeout,
        validators,
    ) {
        Ok(r) => r,
        Err(err) => {
            tracing::error!(error = %err, "content refresh disabled: cannot build the CDN client");
            return;
        }
    };
    let mut every = tokio::time::interval(period);
    every.tick().await; // the first tick fires at once; the start-up load just happened
    loop {
        every.tick().await;
        let current = holder.get();
        match revalidator.check(&current.set).await {
            Ok(None) => {
                metrics::counter!("content_revalidations_total", "result" => "unchanged")
                    .increment(1);
            }
            Ok(Some(update)) => {
                metrics::counter!("content_revalidations_total", "result" => "updated")
                    .increment(1);
                tracing::info!(changed = ?update.changed_files, removed = ?update.removed_files, "new content from the CDN");
                let content = generate(update.content, world_seed).await;
                let active = ActiveContent::new(&update.set, content, crate::cdn::Origin::Cdn);
                let content = active.content.clone();
                holder.replace(active);
                let _ = updates.send(content);
            }
            Err(CheckError::Invalid {
                changed_files,
                report,
            }) => {
                metrics::counter!("content_revalidations_total", "result" => "rejected")
                    .increment(1);
                tracing::error!(?changed_files, report = %report, "new content from the CDN is invalid; keeping the running content");
            }
            Err(CheckError::Unreachable(err)) => {
                metrics::counter!("content_revalidations_total", "result" => "unreachable")
                    .increment(1);
                tracing::warn!(error = %err, "CDN unreachable; keeping the running content");
            }
        }
    }
}

/// Rewrites the store's item catalogue (`items`) from `content`, so SQL can name and value what
/// inventories, banks and trades hold. A failure is logged, never fatal: the game does not read it.
pub async fn write_catalog(store: &wayfarer_store::Store, content: &Content) {
    let items: Vec<wayfarer_store::CatalogItem> = content
        .items
        .values()
        .map(|item| wayfarer_store::CatalogItem {
            id: item.id.to_string(),
            name: item.name.clone(),
            kind: item.kind.clone(),
            value: i64::try_from(item.value).unwrap_or(i64::MAX),
            stackable: item.stackable,
            tradeable: item.tradeable,
            data: serde_json::to_string(item).unwrap_or_else(|_| "{}".into()),
        })
        .collect();
    match store.catalog().replace_all(&items).await {
        Ok(()) => tracing::info!(items = items.len(), "item catalogue written"),
        Err(err) => tracing::warn!(error = %err, "could not write the item catalogue"),
    }
}

/// The content at run time: the holder handlers read, and the CDN refresh that swaps new versions
/// in and announces them (started by [`start`]).
pub struct RunningContent {
    pub holder: Arc<ContentHolder>,
    /// Each new content, for [`forward`] to hand to the world.
    pub updates: watch::Receiver<Arc<Content>>,
    pub refresher: tokio::task::JoinHandle<()>,
}

/// Loads the content to start with, writes its item catalogue and starts the CDN refresh.
pub async fn start(config: &Config, store: &wayfarer_store::Store) -> RunningContent {
    let (active, options, validators) = load(config).await;
    write_catalog(store, &active.content).await;
    let (sender, updates) = watch::channel(active.content.clone());
    let holder = Arc::new(ContentHolder::new(active));
    let refresher = tokio::spawn(refresh_loop(
        options,
        validators,
        holder.clone(),
        sender,
        Duration::from_secs(config.manifest_refresh_secs),
        config.world_seed,
    ));
    RunningContent {
        holder,
        updates,
        refresher,
    }
}

/// Hands each new content to the world (at its next tick boundary) and writes its catalogue.
pub fn forward(
    mut updates: watch::Receiver<Arc<Content>>,
    world: wayfarer_host::world_thread::WorldSender,
    store: wayfarer_store::Store,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while updates.changed().await.is_ok() {
            let next = updates.borrow_and_update().clone();
            write_catalog(&store, &next).await;
            if !world.send(wayfarer_host::world_thread::WorldInput::ReplaceContent(
                next,
            )) {
                tracing::error!("could not hand new content to the world: its queue is full");
            }
        }
    })
}
