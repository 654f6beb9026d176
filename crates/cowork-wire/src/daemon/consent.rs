//! The questions routines and widgets ask the person (`ctx.command.run`, `ctx.consent.request`,
//! `cowork.consent.request`): `GET /api/consent/requests` streams them to a window that shows the
//! consent dialog, one [`ConsentRequest`] per server-sent event; `POST /api/consent/answer`
//! carries the person's answer back; the asker's promise resolves with a [`ConsentReply`].

use serde::{Deserialize, Serialize};

/// A question for the person, as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsentRequest {
    pub id: String,
    pub workspace: String,
    pub app: String,
    pub app_title: String,
    /// The routine that asks; none when a widget asks (`cowork.consent.request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine: Option<String>,
    /// The stable label the approval is remembered under.
    pub value: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The command that will run, when it is a command.
    pub command: Option<String>,
}

/// `POST /api/consent/answer`: the person's answer to the question `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentAnswer {
    pub id: String,
    pub granted: bool,
    /// Approve the value for the future too.
    #[serde(default)]
    pub remember: bool,
}

/// `POST /api/consent/answer`'s answer: a question was waiting for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answered {
    pub answered: bool,
}

/// What the asker's promise resolves with: `{granted: true, ticket}` (the ticket a widget hands
/// to `stream.open`) or `{granted: false, message}` saying why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentReply {
    pub granted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ConsentReply {
    /// Allowed, with the ticket that proves it.
    pub fn granted(ticket: String) -> Self {
        ConsentReply { granted: true, ticket: Some(ticket), message: None }
    }

    /// Refused, saying why.
    pub fn refused(message: impl Into<String>) -> Self {
        ConsentReply { granted: false, ticket: None, message: Some(message.into()) }
    }
}
