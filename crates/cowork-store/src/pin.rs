//! Pinning an installed app (page 02): a pinned app keeps its version — the automatic pass leaves
//! it — until the person unpins it or takes another version by name.

use crate::error::{Result, StoreError};
use crate::place::Place;
use crate::receipt::Receipt;

/// Pins (or unpins) the installed app folder `folder` at the version it has; its receipt is
/// rewritten under the folder's lock, so an update running meanwhile is not undone.
pub fn set(place: &Place, folder: &str, pinned: bool) -> Result<Receipt> {
    let _held = place.hold(folder)?;
    let mut receipt = place
        .receipts
        .read(folder)?
        .filter(|r| r.store.is_some())
        .ok_or_else(|| StoreError::NotInstalled { dir: Place::dir_of(folder) })?;
    if receipt.pinned != pinned {
        receipt.pinned = pinned;
        place.receipts.write(folder, &receipt)?;
    }
    Ok(receipt)
}
