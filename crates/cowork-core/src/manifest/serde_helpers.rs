//! The manifest's serde helpers: how keys written for people (`routines` and `fileRouting` as
//! maps, seconds as `30` or `30.0`) become the typed fields of [`super::Manifest`].

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::types::{FileRoute, Routine, DEFAULT_INTERVAL_S, DEFAULT_TIMEOUT_S};

pub(super) fn default_timeout() -> u32 {
    DEFAULT_TIMEOUT_S
}

pub(super) fn default_interval() -> u32 {
    DEFAULT_INTERVAL_S
}

/// Whole seconds, written `30` or `30.0` (the schema's `integer` accepts both).
pub(super) fn whole_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let seconds = f64::deserialize(deserializer)?;
    if seconds.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&seconds) {
        return Err(D::Error::custom(format!("{seconds} is not a whole number of seconds")));
    }
    Ok(seconds as u32)
}

/// `routines` as written: `{ id: "file.ts" }` or `{ id: { "file": …, … } }`.
pub(super) fn routines_from_map<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Routine>, D::Error> {
    Map::<String, Value>::deserialize(deserializer)?
        .into_iter()
        .map(|(id, value)| match value {
            Value::String(file) => Ok(Routine::at(id, file)),
            other => {
                Routine::deserialize(other).map(|r| Routine { id, ..r }).map_err(D::Error::custom)
            }
        })
        .collect()
}

/// `fileRouting` as written: `{ glob: file }`.
pub(super) fn routes_from_map<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<FileRoute>, D::Error> {
    Ok(Map::<String, Value>::deserialize(deserializer)?
        .into_iter()
        .filter_map(|(glob, file)| {
            file.as_str().map(|file| FileRoute { glob, file: file.to_owned() })
        })
        .collect())
}
