//! The signed-in Cowork account as a window sees it: `GET /api/account`, `POST
//! /api/account/sign-in`, `/sign-out` and `/changed` (the CLI's "I signed in or out: poll now").

use serde::{Deserialize, Serialize};

/// A signed-in account, as the workbench shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AccountUser {
    pub uid: String,
    pub email: String,
    pub display_name: String,
    #[cfg_attr(
        feature = "typescript",
        ts(type = "{ id: string; slug: string; name: string } | null")
    )]
    pub organization: Option<crate::hub::OrgRef>,
    /// `browser`, `device`, `paste` or `password`.
    pub method: String,
}

/// One of the account's team servers, as the last poll listed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AccountTeamServer {
    pub slug: String,
    pub name: String,
    /// `owner`, `admin` or `member`.
    pub role: String,
}

/// `GET /api/account` (and what signing out or `changed` answers): who is signed in on this
/// machine, on which hub, their team servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AccountInfo {
    /// The hub this machine remembers (none before the first `cowork login --hub`).
    pub hub: Option<String>,
    pub user: Option<AccountUser>,
    pub team_servers: Vec<AccountTeamServer>,
    /// When the hub last answered the updates poll (ms since the epoch).
    #[cfg_attr(feature = "typescript", ts(type = "number | null"))]
    pub polled_at: Option<i64>,
    /// A sign-in started from a window waits for the browser.
    pub signing_in: bool,
}

/// `POST /api/account/sign-in`'s body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignIn {
    /// The hub to sign in to (remembered); default: the one this machine remembers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub: Option<String>,
}

/// What a sign-in started from a window answers: the address to open in the browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SignInStarted {
    pub url: String,
}
