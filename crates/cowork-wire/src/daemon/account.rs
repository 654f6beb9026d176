//! The signed-in Cowork account as a window sees it: `GET /api/account`, `POST
//! /api/account/sign-in`, `/sign-out` and `/changed` (the CLI's "I signed in or out: poll now").

use serde::{Deserialize, Serialize};

/// A signed-in account, as the workbench shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AccountUser {
    /// The account's id on the hub.
    pub uid: String,
    /// The address the account signs in with.
    pub email: String,
    /// The name the workbench shows for the account.
    pub display_name: String,
    #[cfg_attr(
        feature = "typescript",
        ts(type = "{ id: string; slug: string; name: string } | null")
    )]
    /// The organization the account belongs to, when it belongs to one.
    pub organization: Option<crate::hub::OrgRef>,
    /// `browser`, `device`, `paste` or `password`.
    pub method: String,
}

/// One of the account's team servers, as the last poll listed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AccountTeamServer {
    /// The team server's short name, as commands and URLs spell it.
    pub slug: String,
    /// The team server's name as people read it.
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
    /// Who is signed in; none when nobody is.
    pub user: Option<AccountUser>,
    /// The team servers the account is a member of.
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
    /// The hub's sign-in page, to open in the browser.
    pub url: String,
}
