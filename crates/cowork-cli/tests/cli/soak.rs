//! The crash-safety soak, short: `tests/soak/soak.mjs` kills the daemon (and routine processes)
//! with SIGKILL at random moments while writers hit ctx.data, ctx.db, secrets, the queue, the
//! audit log and workspace.json, and checks after each restart that nothing acknowledged was lost.
//! The long run is `node tests/soak/soak.mjs --kills 1000` (README, "Crash safety").

use std::path::Path;
use std::process::Command;

#[test]
fn nothing_acknowledged_is_lost_when_the_daemon_is_killed() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/soak/soak.mjs");
    let out = Command::new("node")
        .arg(&script)
        .args(["--kills", "12"])
        .env("COWORK_BIN", env!("CARGO_BIN_EXE_cowork"))
        .output()
        .expect("node runs the soak (./scripts/install-deps installs Node)");
    let report = String::from_utf8_lossy(&out.stdout);
    println!("{report}");
    assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("lost: 0"), "{report}");
}
