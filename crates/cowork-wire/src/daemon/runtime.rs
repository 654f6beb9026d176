//! `GET /api/runtime` and `POST /api/runtime/install`: the workbench's side of Bun on first need.

use serde::{Deserialize, Serialize};

/// What the workbench draws in its footer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RuntimeInfo {
    /// The runtime routines run on, `null` when none is found.
    #[cfg_attr(feature = "typescript", ts(optional = nullable))]
    pub runtime: Option<FoundRuntime>,
    /// Where Bun's install is, when the workbench offers it.
    pub install: BunInstall,
}

/// A runtime that runs routines here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FoundRuntime {
    /// `bun` or `node`.
    pub kind: String,
    /// The runtime's version, as it reports it.
    pub version: String,
}

/// Where Bun's install is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum BunInstall {
    /// Not asked for since the daemon started.
    Idle,
    /// Downloading: bytes so far, of `total` when the registry said it.
    Running {
        /// Bytes downloaded so far.
        #[cfg_attr(feature = "typescript", ts(type = "number"))]
        done: u64,
        /// The download's size, when the registry said it.
        #[cfg_attr(feature = "typescript", ts(type = "number | null"))]
        total: Option<u64>,
    },
    /// Installed, integrity checked.
    Done {
        /// The installed Bun's version.
        version: String,
    },
    /// It failed: the message and the fix.
    Failed {
        /// What failed.
        message: String,
        /// How to fix it.
        hint: String,
    },
}
