//! The manifest's generic serde helper: seconds as people write them (`30` or `30.0`). It knows
//! no manifest type, so every type module may use it.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// Whole seconds, written `30` or `30.0` (the schema's `integer` accepts both).
pub(super) fn whole_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let seconds = f64::deserialize(deserializer)?;
    if seconds.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&seconds) {
        return Err(D::Error::custom(format!("{seconds} is not a whole number of seconds")));
    }
    Ok(seconds as u32)
}
