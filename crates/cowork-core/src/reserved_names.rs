//! The names `.cowork/apps/<name>` can never take (page 10): a leaf that both the folder rules
//! (`discovery`) and the manifest's `name` rule (`manifest`) read.

/// Names `.cowork/` keeps for its own folders: never an app folder.
const RESERVED: [&str; 4] = ["apps", "data", "courses", "local"];

/// Names Windows refuses as a file or folder name, whatever the extension.
const DEVICE_NAMES: [&str; 4] = ["con", "prn", "aux", "nul"];

pub(crate) const KEPT: &str = "kept for .cowork's own folders";

/// Why a lowercase name can be neither an app folder's nor a manifest's `name` (page 10: "not
/// `apps`, `data`, `courses`, `local` or a Windows device name"), as words that follow "is", or
/// `None` when it can be. The manifest's `name` is the folder an install writes, so it obeys the
/// folder's rule.
pub fn reserved_name(name: &str) -> Option<&'static str> {
    if RESERVED.contains(&name) {
        Some(KEPT)
    } else if is_device_name(name) {
        Some("a Windows device name")
    } else {
        None
    }
}

fn is_device_name(name: &str) -> bool {
    if DEVICE_NAMES.contains(&name) {
        return true;
    }
    let bytes = name.as_bytes();
    bytes.len() == 4
        && (name.starts_with("com") || name.starts_with("lpt"))
        && (b'1'..=b'9').contains(&bytes[3])
}
