//! Where the manifests come from (CONTRACT section 6): the CDN, the local cache, the bundled content.
//! It lives in the server, not in `wayfarer-content`, so the content model (and the sim built on it)
//! compiles no HTTP client or async runtime.
//!
//! - [`load_at_startup`] picks the source once at startup and always returns usable content.
//! - [`Revalidator::check`] asks the CDN, with `If-None-Match`, whether any file changed and returns a
//!   validated replacement set ([`Update`]) for the server to swap in atomically.
//!
//! The refresh period is the caller's business; this module only does one check per call.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use reqwest::header::{ETAG, IF_NONE_MATCH};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};

use wayfarer_content::{bundled, Content, ManifestSet, RecipeKind, Report};

/// Default limit for one CDN request (connect, headers and body together).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Name of the sidecar file in the cache directory holding the ETag of every cached file.
///
/// Hidden (leading dot), so [`ManifestSet::read_dir`] never mistakes it for a manifest.
pub const ETAGS_FILE: &str = ".etags.json";

/// Largest manifest file accepted from a CDN; a bigger body fails the request.
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// How many CDN requests run at the same time.
const CONCURRENT_REQUESTS: usize = 8;

/// Every manifest path requested from a CDN (`{cdn}/manifests/<path>`).
///
/// A CDN cannot list a folder, so this is the list of names the loader knows: the reference
/// format's files, the legacy files and the recipe and gathering files the bundled world adds.
/// A 404 means the file is absent, which is fine for every file the content does not need.
/// `items/*.json` and `gathering/*.json` accept any name when loaded from a directory; from a CDN
/// only the names below are fetched.
pub const MANIFEST_FILES: [&str; 36] = [
    "biomes.json",
    "npcs.json",
    "stores.json",
    "templates.json",
    "world-areas.json",
    "world-config.json",
    "skill-unlocks.json",
    "stations.json",
    "quests.json",
    "prayers.json",
    "model-bounds.json",
    "music.json",
    "spells.json",
    "items/ammunition.json",
    "items/armor.json",
    "items/misc.json",
    "items/resources.json",
    "items/tools.json",
    "items/weapons.json",
    "gathering/fishing.json",
    "gathering/mining.json",
    "gathering/woodcutting.json",
    RecipeKind::FILES[0].1,
    RecipeKind::FILES[1].1,
    RecipeKind::FILES[2].1,
    RecipeKind::FILES[3].1,
    RecipeKind::FILES[4].1,
    RecipeKind::FILES[5].1,
    RecipeKind::FILES[6].1,
    RecipeKind::FILES[7].1,
    "items.json",
    "resources.json",
    "mobs.json",
    "banks.json",
    "zones.json",
    "agility.json",
];

/// How [`load_at_startup`] chooses its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupOptions {
    /// `PUBLIC_CDN_URL` (a trailing `/` is ignored); `None` means the bundled content is used.
    pub cdn_url: Option<String>,
    /// The local manifest cache, e.g. `<world>/manifests-cache`.
    pub cache_dir: PathBuf,
    /// Fetch even when a usable cache exists: `true` in production and test, `false` in development.
    pub always_fetch: bool,
    /// Limit for each CDN request ([`DEFAULT_TIMEOUT`] by default).
    pub timeout: Duration,
}

impl StartupOptions {
    /// Options with the default request timeout.
    pub fn new(cdn_url: Option<String>, cache_dir: impl Into<PathBuf>, always_fetch: bool) -> Self {
        StartupOptions {
            cdn_url,
            cache_dir: cache_dir.into(),
            always_fetch,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Where the running content came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Origin {
    /// Downloaded from the CDN at startup.
    Cdn,
    /// Read from the local manifest cache.
    Cache,
    /// Compiled into the binary.
    Bundled,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Cdn => "cdn",
            Origin::Cache => "cache",
            Origin::Bundled => "bundled",
        })
    }
}

/// The CDN's ETag of every file of the running set, for `If-None-Match` revalidation.
///
/// Files the CDN sent without an ETag, absent files and bundled files have no entry; they are
/// re-downloaded unconditionally and compared byte for byte.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Validators {
    /// ETag (exactly as the CDN sent it, quotes included) by manifest path.
    pub etags: BTreeMap<String, String>,
}

impl Validators {
    /// The ETag of one file.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.etags.get(path).map(String::as_str)
    }

    /// Number of files with an ETag.
    pub fn len(&self) -> usize {
        self.etags.len()
    }

    /// True when no file has an ETag.
    pub fn is_empty(&self) -> bool {
        self.etags.is_empty()
    }
}

/// The content chosen at startup.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The raw files (serve these at `/manifests/<file>`).
    pub set: ManifestSet,
    /// The validated content.
    pub content: Content,
    /// Warnings of the load (it never holds errors).
    pub report: Report,
    /// Which source won.
    pub origin: Origin,
    /// ETags for [`Revalidator::new`].
    pub validators: Validators,
}

/// A validated replacement set found by [`Revalidator::check`].
#[derive(Debug, Clone)]
pub struct Update {
    /// The whole new set: the old files with the changed ones replaced, added or removed.
    pub set: ManifestSet,
    /// The new content, validated as a whole.
    pub content: Content,
    /// Warnings of the new set (it never holds errors).
    pub report: Report,
    /// Files whose bytes are new or different, sorted.
    pub changed_files: Vec<String>,
    /// Files of the old set that the CDN now answers with 404, sorted.
    pub removed_files: Vec<String>,
}

/// One CDN request failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The HTTP client could not be built (TLS backend unavailable).
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// No answer: connection refused, timeout, broken connection.
    #[error("GET {url}: {reason}")]
    Request {
        /// The requested URL.
        url: String,
        /// What went wrong, e.g. `timed out after 5s` or `cannot connect: Connection refused`.
        reason: String,
    },
    /// An answer other than 200, 304 (to a conditional request), 404 or 410.
    #[error("GET {url}: HTTP {status}")]
    Status {
        /// The requested URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// The body exceeded [`MAX_FILE_BYTES`].
    #[error("GET {url}: body larger than {MAX_FILE_BYTES} bytes")]
    TooLarge {
        /// The requested URL.
        url: String,
    },
}

/// Why [`Revalidator::check`] produced no update.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A request failed; nothing was changed and the next check asks again.
    #[error("CDN unreachable: {0}")]
    Unreachable(#[from] FetchError),
    /// The CDN's files changed but the new set does not validate; the old content keeps
    /// running, and the next check downloads and reports the new files again.
    #[error(
        "new manifests rejected ({} errors in a set changing {})",
        report.error_count(),
        changed_files.join(", ")
    )]
    Invalid {
        /// Files that changed (including removed ones), sorted.
        changed_files: Vec<String>,
        /// The validation report of the rejected set.
        report: Report,
    },
}

/// Loads the content at startup; never fails, the bundled content is the last resort.
///
/// - No CDN URL: the bundled content (the cache is ignored: it belongs to whichever CDN wrote it,
///   and an unconfigured server should run the same content on every machine).
/// - `always_fetch` false (development) and a cache that exists and validates: the cache, with no
///   request at all.
/// - Otherwise every file of [`MANIFEST_FILES`] is fetched; if the whole set validates it is
///   written to the cache (with its ETags) and returned.
/// - An unreachable CDN (connection error, timeout, a status other than 200/404/410) or an invalid
///   fetched set falls back to the cache, then to the bundled content, each step logged with
///   `tracing::warn!` and its reason.
pub async fn load_at_startup(opts: StartupOptions) -> Loaded {
    let Some(base) = opts.cdn_url.as_deref().map(trim_base) else {
        tracing::info!("PUBLIC_CDN_URL is not set; using the bundled content");
        return load_bundled_set();
    };
    let cache_dir = opts.cache_dir.clone();
    let mut cache_failure = None;
    // A usable cache: development runs it as it is; production revalidates it file by file.
    let mut cached = None;
    match run_blocking(move || read_cache(&cache_dir)).await {
        Ok(loaded) if !opts.always_fetch => {
            tracing::info!(
                cache = %opts.cache_dir.display(),
                files = loaded.set.len(),
                "development mode: using the manifest cache without contacting the CDN"
            );
            return loaded;
        }
        Ok(loaded) => cached = Some((loaded.set, loaded.validators)),
        Err(reason) => {
            tracing::info!(
                cache = %opts.cache_dir.display(),
                "manifest cache not usable ({reason}); fetching from the CDN"
            );
            cache_failure = Some(reason);
        }
    }

    let reason = match fetch_startup_set(base, opts.timeout, cached.as_ref()).await {
        Ok((set, validators)) => {
            let cache_dir = opts.cache_dir.clone();
            let validated = run_blocking(move || {
                let result = Content::from_files(&set);
                if result.is_ok() {
                    if let Err(err) = write_cache(&cache_dir, &set, &validators) {
                        tracing::warn!(
                            cache = %cache_dir.display(),
                            "cannot write the manifest cache: {err}"
                        );
                    }
                }
                result.map(|(content, report)| Loaded {
                    set,
                    content,
                    report,
                    origin: Origin::Cdn,
                    validators,
                })
            })
            .await;
            match validated {
                Ok(loaded) => {
                    tracing::info!(
                        cdn = base,
                        files = loaded.set.len(),
                        warnings = loaded.report.warning_count(),
                        "manifests loaded from the CDN"
                    );
                    return loaded;
                }
                Err(report) => {
                    tracing::error!(cdn = base, "the CDN manifests are invalid:\n{report}");
                    format!(
                        "the CDN manifests are invalid ({} errors)",
                        report.error_count()
                    )
                }
            }
        }
        Err(err) => err.to_string(),
    };

    let cache_reason = match cache_failure {
        Some(reason) => reason,
        None => {
            let cache_dir = opts.cache_dir.clone();
            match run_blocking(move || read_cache(&cache_dir)).await {
                Ok(loaded) => {
                    tracing::warn!(
                        cdn = base,
                        cache = %opts.cache_dir.display(),
                        "cannot use the CDN manifests ({reason}); using the local manifest cache"
                    );
                    return loaded;
                }
                Err(cache_reason) => cache_reason,
            }
        }
    };
    tracing::warn!(
        cdn = base,
        cache = %opts.cache_dir.display(),
        "cannot use the CDN manifests ({reason}) nor the local cache ({cache_reason}); \
         using the bundled content"
    );
    load_bundled_set()
}

/// Asks the CDN whether manifests changed, with `If-None-Match`, and validates changed sets.
#[derive(Debug)]
pub struct Revalidator {
    client: reqwest::Client,
    base: String,
    cache_dir: PathBuf,
    validators: Validators,
}

impl Revalidator {
    /// A revalidator for `cdn_url` (`PUBLIC_CDN_URL`) starting from the validators of the running
    /// set ([`Loaded::validators`]); valid updates are written to `cache_dir`.
    pub fn new(
        cdn_url: &str,
        cache_dir: impl Into<PathBuf>,
        timeout: Duration,
        validators: Validators,
    ) -> Result<Revalidator, FetchError> {
        Ok(Revalidator {
            client: client(timeout)?,
            base: trim_base(cdn_url).to_string(),
            cache_dir: cache_dir.into(),
            validators,
        })
    }

    /// The ETags of the set the last successful check (or startup) settled on.
    pub fn validators(&self) -> &Validators {
        &self.validators
    }

    /// One revalidation round; `current` must be the running set ([`Loaded::set`] or the last
    /// [`Update::set`]).
    ///
    /// Every file of [`MANIFEST_FILES`] and of `current` is requested, conditionally when its
    /// ETag is known: a 304 downloads nothing, a 200 whose body differs from `current` is a change,
    /// a 404 for a file of `current` removes it. With no change the result is `Ok(None)`.
    /// Otherwise the whole new set is validated: valid, the cache and the ETags are updated and
    /// the [`Update`] returned; invalid, the report is logged with `tracing::error!`, the ETags
    /// stay as they were (so the next check downloads and reports it again) and
    /// [`CheckError::Invalid`] is returned. Any failed request fails the whole check with
    /// [`CheckError::Unreachable`] and changes nothing.
    pub async fn check(&mut self, current: &ManifestSet) -> Result<Option<Update>, CheckError> {
        let mut paths: BTreeSet<&str> = MANIFEST_FILES.into_iter().collect();
        paths.extend(current.paths());
        // Collected first so the future holds no closure: a closure here makes the future not `Send`
        // for every lifetime, and it could not run in a spawned task.
        let requests: Vec<_> = paths
            .into_iter()
            .map(|path| {
                // Conditional only when the running set really has the file the ETag describes.
                let etag = if current.contains(path) {
                    self.validators.get(path)
                } else {
                    None
                };
                get_file(&self.client, &self.base, path, etag)
            })
            .collect();
        let answers: Vec<(String, Fetched)> = stream::iter(requests)
            .buffer_unordered(CONCURRENT_REQUESTS)
            .try_collect()
            .await?;

        let mut set = current.clone();
        let mut validators = self.validators.clone();
        let mut changed_files = Vec::new();
        let mut removed_files = Vec::new();
        for (path, answer) in answers {
            match answer {
                Fetched::NotModified => {}
                Fetched::Absent => {
                    validators.etags.remove(&path);
                    if set.files.remove(&path).is_some() {
                        removed_files.push(path);
                    }
                }
                Fetched::Body { bytes, etag } => {
                    match etag {
                        Some(etag) => validators.etags.insert(path.clone(), etag),
                        None => validators.etags.remove(&path),
                    };
                    if current.get(&path) != Some(bytes.as_slice()) {
                        set.insert(path.clone(), bytes);
                        changed_files.push(path);
                    }
                }
            }
        }
        changed_files.sort();
        removed_files.sort();

        if changed_files.is_empty() && removed_files.is_empty() {
            if validators != self.validators {
                // Same bytes under new ETags (or first ETags for bundled content): remember them,
                // and the running set is the CDN's set, so it is the cache now.
                let cache_dir = self.cache_dir.clone();
                let (set, new_validators) = (current.clone(), validators.clone());
                run_blocking(move || {
                    if let Err(err) = write_cache(&cache_dir, &set, &new_validators) {
                        tracing::warn!(
                            cache = %cache_dir.display(),
                            "cannot write the manifest cache: {err}"
                        );
                    }
                })
                .await;
                self.validators = validators;
            }
            return Ok(None);
        }

        let cache_dir = self.cache_dir.clone();
        let new_validators = validators.clone();
        let (set, validated) = run_blocking(move || {
            let validated = Content::from_files(&set);
            if validated.is_ok() {
                if let Err(err) = write_cache(&cache_dir, &set, &new_validators) {
                    tracing::warn!(
                        cache = %cache_dir.display(),
                        "cannot write the manifest cache: {err}"
                    );
                }
            }
            (set, validated)
        })
        .await;
        let mut all_changed: Vec<String> = changed_files
            .iter()
            .chain(&removed_files)
            .cloned()
            .collect();
        all_changed.sort();
        match validated {
            Ok((content, report)) => {
                tracing::info!(
                    cdn = %self.base,
                    changed = ?changed_files,
                    removed = ?removed_files,
                    warnings = report.warning_count(),
                    "new manifests validated"
                );
                self.validators = validators;
                Ok(Some(Update {
                    set,
                    content,
                    report,
                    changed_files,
                    removed_files,
                }))
            }
            Err(report) => {
                tracing::error!(
                    cdn = %self.base,
                    changed = ?all_changed,
                    "new manifests rejected, the running content is kept:\n{report}"
                );
                Err(CheckError::Invalid {
                    changed_files: all_changed,
                    report,
                })
            }
        }
    }
}

/// What the CDN answered for one file.
enum Fetched {
    /// 200.
    Body {
        bytes: Vec<u8>,
        etag: Option<String>,
    },
    /// 304 to a conditional request.
    NotModified,
    /// 404 or 410.
    Absent,
}

/// The HTTP client used for every CDN request.
fn client(timeout: Duration) -> Result<reqwest::Client, FetchError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .build()
        .map_err(|err| FetchError::Client(describe(&err, timeout)))
}

/// `https://cdn.example/` → `https://cdn.example`.
fn trim_base(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// One GET of `{base}/manifests/<path>`, conditional when `etag` is given.
async fn get_file(
    client: &reqwest::Client,
    base: &str,
    path: &str,
    etag: Option<&str>,
) -> Result<(String, Fetched), FetchError> {
    let url = format!("{base}/manifests/{path}");
    let mut request = client.get(&url);
    if let Some(etag) = etag {
        request = request.header(IF_NONE_MATCH, etag);
    }
    let request_error = |err: reqwest::Error, url: &str| FetchError::Request {
        url: url.to_string(),
        reason: describe_request(&err),
    };
    let mut response = request
        .send()
        .await
        .map_err(|err| request_error(err, &url))?;
    let status = response.status();
    let fetched = match status {
        StatusCode::OK => {
            let etag = response
                .headers()
                .get(ETAG)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string);
            if response
                .content_length()
                .is_some_and(|len| len > MAX_FILE_BYTES as u64)
            {
                return Err(FetchError::TooLarge { url });
            }
            let mut bytes = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|err| request_error(err, &url))?
            {
                if bytes.len() + chunk.len() > MAX_FILE_BYTES {
                    return Err(FetchError::TooLarge { url });
                }
                bytes.extend_from_slice(&chunk);
            }
            Fetched::Body { bytes, etag }
        }
        StatusCode::NOT_MODIFIED if etag.is_some() => Fetched::NotModified,
        StatusCode::NOT_FOUND | StatusCode::GONE => Fetched::Absent,
        _ => {
            return Err(FetchError::Status {
                url,
                status: status.as_u16(),
            })
        }
    };
    Ok((path.to_string(), fetched))
}

/// Fetches every known file: the present files and their ETags. A file the cache holds with an
/// ETag is asked for with `If-None-Match`, and a 304 keeps the cached bytes (specification
/// section 1: manifests are re-fetched only when the content changed), so a restart downloads
/// only what changed since the cache was written.
async fn fetch_startup_set(
    base: &str,
    timeout: Duration,
    cached: Option<&(ManifestSet, Validators)>,
) -> Result<(ManifestSet, Validators), FetchError> {
    let client = client(timeout)?;
    let cached_etag = |path: &str| {
        cached
            .filter(|(set, _)| set.contains(path))
            .and_then(|(_, validators)| validators.get(path))
    };
    let requests: Vec<_> = MANIFEST_FILES
        .iter()
        .map(|path| get_file(&client, base, path, cached_etag(path)))
        .collect();
    let answers: Vec<(String, Fetched)> = stream::iter(requests)
        .buffer_unordered(CONCURRENT_REQUESTS)
        .try_collect()
        .await?;
    let mut set = ManifestSet::new();
    let mut validators = Validators::default();
    for (path, answer) in answers {
        match answer {
            Fetched::Body { bytes, etag } => {
                if let Some(etag) = etag {
                    validators.etags.insert(path.clone(), etag);
                }
                set.insert(path, bytes);
            }
            Fetched::NotModified => {
                // Only asked conditionally for a file the cache holds with an ETag.
                if let Some((cached_set, cached_validators)) = cached {
                    if let (Some(bytes), Some(etag)) =
                        (cached_set.get(&path), cached_validators.get(&path))
                    {
                        validators.etags.insert(path.clone(), etag.to_owned());
                        set.insert(path, bytes.to_vec());
                    }
                }
            }
            Fetched::Absent => {}
        }
    }
    Ok((set, validators))
}

/// A reqwest error as a short reason: `timed out`, `cannot connect: …`, or its cause chain.
fn describe_request(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "timed out".to_string();
    }
    let root = root_cause(err);
    if err.is_connect() {
        format!("cannot connect: {root}")
    } else {
        format!("{err}: {root}")
    }
}

/// A client build error with the timeout it was built for.
fn describe(err: &reqwest::Error, timeout: Duration) -> String {
    format!("{} (timeout {timeout:?})", root_cause(err))
}

/// The innermost error of a chain.
fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(source) = current.source() {
        current = source;
    }
    current.to_string()
}

/// Runs CPU- or disk-bound work (validation, cache files) off the async worker threads.
async fn run_blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => value,
        Err(err) => match err.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // A blocking task cannot be aborted, so the only other failure is runtime shutdown,
            // during which nothing awaits this anyway.
            Err(err) => panic!("blocking manifest task did not finish: {err}"),
        },
    }
}

/// The bundled content with no ETags.
fn load_bundled_set() -> Loaded {
    let set = bundled();
    match Content::from_files(&set) {
        Ok((content, report)) => Loaded {
            set,
            content,
            report,
            origin: Origin::Bundled,
            validators: Validators::default(),
        },
        // The test `bundled_content_is_strictly_valid` rules this out for every build.
        Err(report) => panic!("bundled content is invalid:\n{report}"),
    }
}

/// `<parent>/<name>.<suffix>`, the staging and backup folders beside the cache.
fn sibling(dir: &Path, suffix: &str) -> io::Result<PathBuf> {
    let name = dir.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("cache path {} has no folder name", dir.display()),
        )
    })?;
    let mut name = name.to_os_string();
    name.push(".");
    name.push(suffix);
    Ok(dir.with_file_name(name))
}

fn remove_dir_if_exists(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

/// Replaces the cache with `set` and its ETags.
///
/// The new cache is written beside the old one (`<cache>.new`) and swapped in by renames, so a
/// crash leaves either the old cache, the new one, or the old one at `<cache>.old`, which
/// [`read_cache`] also accepts; never a mix of two sets.
fn write_cache(dir: &Path, set: &ManifestSet, validators: &Validators) -> io::Result<()> {
    let staging = sibling(dir, "new")?;
    let backup = sibling(dir, "old")?;
    remove_dir_if_exists(&staging)?;
    set.write_dir(&staging).map_err(io::Error::other)?;
    let etags = serde_json::to_vec_pretty(validators).map_err(io::Error::other)?;
    fs::write(staging.join(ETAGS_FILE), etags)?;
    remove_dir_if_exists(&backup)?;
    if dir.exists() {
        fs::rename(dir, &backup)?;
    }
    fs::rename(&staging, dir)?;
    remove_dir_if_exists(&backup)
}

/// Reads and validates the cache (or the backup a crash mid-swap left); `Err` names the reason.
fn read_cache(dir: &Path) -> Result<Loaded, String> {
    let location = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        match sibling(dir, "old") {
            Ok(backup) if backup.is_dir() => backup,
            _ => return Err(format!("{} does not exist", dir.display())),
        }
    };
    let set = ManifestSet::read_dir(&location).map_err(|err| err.to_string())?;
    if set.is_empty() {
        return Err(format!("{} holds no manifest", location.display()));
    }
    let (content, report) = Content::from_files(&set).map_err(|report| {
        tracing::error!(cache = %location.display(), "the cached manifests are invalid:\n{report}");
        format!(
            "the cached manifests are invalid ({} errors)",
            report.error_count()
        )
    })?;
    let validators = match fs::read(location.join(ETAGS_FILE)) {
        Ok(bytes) => match serde_json::from_slice::<Validators>(&bytes) {
            Ok(mut validators) => {
                // Only ETags of files that are really there describe the running bytes.
                validators.etags.retain(|path, _| set.contains(path));
                validators
            }
            Err(err) => {
                tracing::warn!(
                    cache = %location.display(),
                    "ignoring the unreadable {ETAGS_FILE}: {err}; every file will be re-downloaded"
                );
                Validators::default()
            }
        },
        Err(_) => Validators::default(),
    };
    Ok(Loaded {
        set,
        content,
        report,
        origin: Origin::Cache,
        validators,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("wayfarer-cdn-unit-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn manifest_files_cover_the_bundle_and_every_recipe_file_once() {
        let names: BTreeSet<&str> = MANIFEST_FILES.into_iter().collect();
        assert_eq!(names.len(), MANIFEST_FILES.len(), "a name is listed twice");
        for path in bundled().paths() {
            assert!(names.contains(path), "{path}");
        }
        for (_, file) in RecipeKind::FILES {
            assert!(names.contains(file), "{file}");
        }
    }

    #[test]
    fn trailing_slashes_are_ignored() {
        assert_eq!(trim_base("https://cdn.example/"), "https://cdn.example");
        assert_eq!(trim_base("https://cdn.example"), "https://cdn.example");
    }

    #[test]
    fn cache_round_trips_with_its_etags_and_replaces_the_previous_set() {
        let root = temp_dir("round-trip");
        let cache = root.join("manifests-cache");
        let set = bundled();
        let validators = Validators {
            etags: set
                .paths()
                .map(|p| (p.to_string(), format!("\"{p}\"")))
                .collect(),
        };
        write_cache(&cache, &set, &validators).unwrap();
        // A second write with one file fewer: the file must disappear, not linger.
        let mut smaller = set.clone();
        smaller.files.remove("prayers.json");
        let mut fewer = validators.clone();
        fewer.etags.remove("prayers.json");
        write_cache(&cache, &smaller, &fewer).unwrap();
        let loaded = read_cache(&cache).unwrap();
        assert_eq!(loaded.origin, Origin::Cache);
        assert_eq!(loaded.set, smaller);
        assert_eq!(loaded.validators, fewer);
        assert!(!sibling(&cache, "new").unwrap().exists());
        assert!(!sibling(&cache, "old").unwrap().exists());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_crash_between_the_renames_leaves_a_readable_backup() {
        let root = temp_dir("crash");
        let cache = root.join("manifests-cache");
        write_cache(&cache, &bundled(), &Validators::default()).unwrap();
        fs::rename(&cache, sibling(&cache, "old").unwrap()).unwrap();
        let loaded = read_cache(&cache).unwrap();
        assert_eq!(loaded.set, bundled());
        // The next write cleans the backup up.
        write_cache(&cache, &bundled(), &Validators::default()).unwrap();
        assert!(!sibling(&cache, "old").unwrap().exists());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn etags_of_files_missing_from_the_cache_are_dropped() {
        let root = temp_dir("etags");
        let cache = root.join("c");
        let mut validators = Validators::default();
        validators
            .etags
            .insert("npcs.json".to_string(), "\"a\"".to_string());
        validators
            .etags
            .insert("gone.json".to_string(), "\"b\"".to_string());
        write_cache(&cache, &bundled(), &validators).unwrap();
        let loaded = read_cache(&cache).unwrap();
        assert_eq!(loaded.validators.get("npcs.json"), Some("\"a\""));
        assert_eq!(loaded.validators.get("gone.json"), None);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_empty_or_missing_cache_is_not_usable() {
        let root = temp_dir("empty");
        assert!(read_cache(&root.join("missing")).is_err());
        fs::create_dir_all(root.join("empty")).unwrap();
        assert!(read_cache(&root.join("empty")).is_err());
        fs::remove_dir_all(&root).unwrap();
    }
}
