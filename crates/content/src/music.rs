//! Music tracks: `music.json` (client-only; parsed so type errors are reported).

use serde::{Deserialize, Serialize};

/// One music track.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MusicTrack {
    /// Unique id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// `theme`, `ambient`, `combat`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// `intro`, `normal`, `combat`.
    #[serde(default)]
    pub category: Option<String>,
    /// Audio asset.
    pub path: String,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Length in seconds.
    #[serde(default)]
    pub duration: Option<f64>,
    /// Mood label.
    #[serde(default)]
    pub mood: Option<String>,
}
