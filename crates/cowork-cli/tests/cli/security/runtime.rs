//! Bun as Cowork installs it: only the tarball whose sha512 is pinned in the source, fetched over
//! https, whatever the registry answering vouches for.

use crate::install::{installed_bun, registry, run, stand_in_tarball};
use crate::support::*;

#[test]
fn bun_is_installed_only_as_the_pinned_tarball_whatever_the_registry_vouches_for() {
    let env = Env::new("node");
    let home = tempfile::tempdir().unwrap();
    // A registry (a mirror, a proxy, a hijacked COWORK_NPM_REGISTRY) whose metadata gives the
    // true sha512 of the file it serves, which is not Bun's.
    let registry = registry(stand_in_tarball(), None);

    let out = run(&env, home.path(), &registry, &["install", "--force"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let stderr = stderr(&out);
    assert!(
        stderr.contains("does not match its integrity (sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==, pinned for Bun 1.4.5); nothing was installed"),
        "{stderr}"
    );
    assert!(stderr.contains("hint: run `cowork install` again"), "{stderr}");
    assert!(!installed_bun(home.path()).exists());
}

#[test]
fn a_bun_tarball_offered_over_plain_http_is_not_fetched() {
    let env = Env::new("node");
    let home = tempfile::tempdir().unwrap();
    // Nothing listens there: a download that were tried would fail otherwise.
    let registry = registry(stand_in_tarball(), Some("http://registry.example.com/bun.tgz"));

    let out = run(&env, home.path(), &registry, &["install", "--force"]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let stderr = stderr(&out);
    assert!(
        stderr.contains(
            "its dist.tarball http://registry.example.com/bun.tgz is not an https address"
        ),
        "{stderr}"
    );
    assert!(!installed_bun(home.path()).exists());
}
