//! Shapes several routes answer: the `ok` flag of an answer that may carry a failure, the
//! "did it change" of a switch, and a notification's delivery.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `true` or `false` on the wire, and only that one: the `ok` of an answer, which tells its two
/// shapes apart (a routine that failed is an answer, HTTP 200, not an HTTP error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flag<const B: bool>;

impl<const B: bool> Serialize for Flag<B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(B)
    }
}

impl<'de, const B: bool> Deserialize<'de> for Flag<B> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if bool::deserialize(deserializer)? == B {
            Ok(Flag)
        } else {
            Err(serde::de::Error::custom(format_args!("expected ok: {B}")))
        }
    }
}

/// How a notification was delivered (`cowork.notify`, a site app's notification).
#[derive(Debug, Serialize)]
pub struct Delivered {
    pub delivery: cowork_engine::notifications::Delivery,
}

/// Whether a write to `workspace.json` changed it.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct Changed {
    pub changed: bool,
}
