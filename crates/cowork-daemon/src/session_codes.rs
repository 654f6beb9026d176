//! The one-time codes workbench pages trade for the owner token, as shared state; the routes that
//! issue and redeem them are in `session`.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long a code may wait for its page: a browser that opens takes seconds, not minutes.
pub const CODE_LIFETIME: Duration = Duration::from_secs(60);

/// The codes handed out and not yet used, with when each stops being good.
#[derive(Default)]
pub struct Codes(Mutex<HashMap<String, Instant>>);

impl Codes {
    /// A new code, good once for [`CODE_LIFETIME`].
    pub fn issue(&self) -> String {
        let code = hex::encode(rand::random::<[u8; 32]>());
        let now = Instant::now();
        let mut codes = self.0.lock();
        // Unused codes would otherwise pile up for the daemon's whole life.
        codes.retain(|_, expires| *expires > now);
        codes.insert(code.clone(), now + CODE_LIFETIME);
        code
    }

    /// Whether `code` was issued, unused and unexpired; it is spent either way.
    pub fn redeem(&self, code: &str) -> bool {
        self.0.lock().remove(code).is_some_and(|expires| expires > Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_good_once() {
        let codes = Codes::default();
        let code = codes.issue();
        assert!(codes.redeem(&code));
        assert!(!codes.redeem(&code), "a second use");
        assert!(!codes.redeem("0123"), "a code never issued");
    }

    #[test]
    fn an_old_code_is_refused() {
        let codes = Codes::default();
        let code = codes.issue();
        codes.0.lock().insert(code.clone(), Instant::now() - Duration::from_secs(1));
        assert!(!codes.redeem(&code));
    }
}
