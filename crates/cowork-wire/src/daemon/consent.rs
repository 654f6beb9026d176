//! The questions routines and widgets ask the person (`ctx.command.run`, `ctx.consent.request`,
//! `cowork.consent.request`): `GET /api/consent/requests` streams them to every window that shows
//! the consent dialog, one [`ConsentEvent`] per server-sent event — a [`ConsentRequest`] when one is
//! asked, a [`ConsentClosed`] when it needs no answer any more; `POST /api/consent/answer` carries
//! the person's answer back; the asker's promise resolves with a [`ConsentReply`].

use serde::{Deserialize, Serialize};

/// A question for the person, as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConsentRequest {
    /// Answer with this id (`POST /api/consent/answer`).
    pub id: String,
    /// The workspace the asking app belongs to.
    pub workspace: String,
    /// The app that asks.
    pub app: String,
    /// The app's title, as the dialog shows it.
    pub app_title: String,
    /// The routine that asks; none when a widget asks (`cowork.consent.request`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub routine: Option<String>,
    /// The stable label the approval is remembered under.
    pub value: String,
    /// The question's title, as the asker gave it.
    pub title: Option<String>,
    /// More words under the title, as the asker gave them.
    pub description: Option<String>,
    /// The command that will run, when it is a command.
    pub command: Option<String>,
}

/// On the questions' stream: question `id` needs no answer any more, so every window still showing
/// it closes its dialog (the first answer counts; a later one would find nobody waiting).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConsentClosed {
    /// The [`ConsentRequest`]'s id.
    pub id: String,
    /// Why it closed.
    pub closed: ClosedBecause,
}

/// Why a consent question closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ClosedBecause {
    /// A window answered it.
    Answered,
    /// The asker stopped waiting: its view closed, its run ended, or the deadline passed.
    Withdrawn,
}

/// One event of `GET /api/consent/requests`: a question asked, or one closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ConsentEvent {
    /// Question `id` needs no answer any more (tried first: it has the `closed` a request lacks).
    Closed(ConsentClosed),
    /// A question for the person.
    Asked(ConsentRequest),
}

/// `POST /api/consent/answer`: the person's answer to the question `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConsentAnswer {
    /// The [`ConsentRequest`]'s id.
    pub id: String,
    /// The person allowed it.
    pub granted: bool,
    /// Approve the value for the future too.
    #[serde(default)]
    pub remember: bool,
}

/// `POST /api/consent/answer`'s answer: a question was waiting for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Answered {
    /// `false` when no question with that id was waiting (answered already, or gone).
    pub answered: bool,
}

/// What the asker's promise resolves with: `{granted: true, ticket}` (the ticket a widget hands
/// to `stream.open`) or `{granted: false, message}` saying why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentReply {
    /// The person allowed it.
    pub granted: bool,
    /// The ticket a widget hands to `stream.open`, when granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    /// Why not, when refused.
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
