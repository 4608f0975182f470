//! Crafting stations: `stations.json`.

use serde::{Deserialize, Serialize};

use crate::common::StationType;

/// A station type (anvil, furnace, range, bank, altar).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Station {
    /// Key (`type` in the file).
    pub kind: StationType,
    /// Display name.
    pub name: String,
    /// Model asset, when any.
    pub model: Option<String>,
    /// Model scale (also scales the model-bounds footprint).
    pub model_scale: f64,
    /// Vertical model offset.
    pub model_y_offset: f64,
    /// Examine text.
    pub examine: String,
}

/// `stations.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RawStationsFile {
    pub stations: Vec<RawStation>,
}

/// A station as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawStation {
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default = "crate::common::one_f")]
    pub model_scale: f64,
    #[serde(default)]
    pub model_y_offset: f64,
    #[serde(default)]
    pub examine: Option<String>,
}

impl RawStation {
    /// The normalised station.
    pub fn normalise(&self) -> Station {
        Station {
            kind: self.kind.clone(),
            name: self.name.clone(),
            model: self.model.clone(),
            model_scale: self.model_scale,
            model_y_offset: self.model_y_offset,
            examine: self.examine.clone().unwrap_or_default(),
        }
    }
}
