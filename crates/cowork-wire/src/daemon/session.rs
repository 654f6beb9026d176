//! How a workbench page gets the owner token: a one-time code from whoever holds the token
//! (`POST /api/session/code`), traded by the page for the token (`POST /api/session`).

use serde::{Deserialize, Serialize};

/// `POST /api/session/code`'s answer: a code for one workbench page, good once, for a minute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issued {
    /// The one-time code, good once, for a minute.
    pub code: String,
}

/// `POST /api/session`: the page's code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    /// The code a holder of the owner token issued (`POST /api/session/code`).
    pub code: String,
}

/// `POST /api/session`'s answer: the owner token, which the page keeps in its tab's memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionToken {
    /// The owner token.
    pub token: String,
}
