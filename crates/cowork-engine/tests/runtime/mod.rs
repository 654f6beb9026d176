//! Whether these tests can run a routine here. On a machine without a JS runtime they skip with a
//! line saying so; under the project's test command, which installs Bun first and exports
//! `COWORK_TEST_REQUIRE_RUNTIME=1`, a missing runtime fails them instead, so the suite never
//! passes by skipping.

use cowork_engine::Engine;

/// True when `engine` found a runtime; false (after saying "skipped") when it did not and the
/// test command does not require one.
pub fn available(engine: &Engine) -> bool {
    match engine.runtime() {
        Ok(_) => true,
        Err(e) if std::env::var_os("COWORK_TEST_REQUIRE_RUNTIME").is_some() => {
            panic!("COWORK_TEST_REQUIRE_RUNTIME is set and {e}")
        }
        Err(_) => {
            eprintln!("skipped: no runtime");
            false
        }
    }
}
