//! `cowork component install <git url> --commit <sha>` (page 05) from a local bare repository:
//! never attested, so refused without `--allow-unverified`, and that override must pin a commit;
//! the commit asked for is what lands (not the branch's newer head), with a receipt `app remove`
//! reads; a second install refuses to overwrite.

use crate::support::*;
use crate::team_servers::error_name;
use std::path::Path;
use std::process::Command;

fn git(cwd: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(cwd)
        .env("GIT_AUTHOR_NAME", "Ana")
        .env("GIT_AUTHOR_EMAIL", "ana@example.com")
        .env("GIT_COMMITTER_NAME", "Ana")
        .env("GIT_COMMITTER_EMAIL", "ana@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", transcript(&out));
    stdout(&out).trim().to_string()
}

/// A bare repository holding an app under `apps/notes/`: two commits, the second changing it.
fn repo() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (work, bare) = (dir.path().join("work"), dir.path().join("notes.git"));
    std::fs::create_dir_all(work.join("apps/notes")).unwrap();
    git(dir.path(), &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(
        work.join("apps/notes/cowork.json"),
        "{\n  \"name\": \"notes\",\n  \"version\": \"0.3.0\",\n  \"entry\": \"notes.jsx\"\n}\n",
    )
    .unwrap();
    std::fs::write(work.join("apps/notes/notes.jsx"), "export default () => 'first'\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "first"]);
    let first = git(&work, &["rev-parse", "HEAD"]);
    std::fs::write(work.join("apps/notes/notes.jsx"), "export default () => 'second'\n").unwrap();
    git(&work, &["commit", "-q", "-am", "second"]);
    git(&work, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let url = format!("file://{}", bare.display());
    (dir, url, first)
}

#[test]
fn a_git_component_needs_allow_unverified_and_a_commit_and_installs_that_commit() {
    let (_repo, url, first) = repo();
    let env = Env::new(runtimes()[0]);
    std::fs::create_dir_all(env.file(".cowork/apps")).unwrap();
    let install = |extra: &[&str]| {
        let mut args = vec!["component", "install", url.as_str(), "--path", "apps/notes"];
        args.extend_from_slice(extra);
        env.run(&args)
    };

    let refused = install(&["--commit", &first, "--json"]);
    assert_eq!(refused.status.code(), Some(1), "{}", transcript(&refused));
    assert_eq!(error_name(&refused), "Unverified");
    let unpinned = install(&["--allow-unverified", "--json"]);
    assert_eq!(unpinned.status.code(), Some(2), "{}", transcript(&unpinned));
    assert!(stdout(&unpinned).contains("--commit <sha>"), "{}", transcript(&unpinned));
    assert!(!env.file(".cowork/apps/notes").exists());

    let out = install(&["--allow-unverified", "--commit", &first]);
    assert!(out.status.success(), "{}", transcript(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "Installed notes@0.3.0 from {url} at {} in .cowork/apps/notes/ (pinned: it never auto-updates).\n",
            &first[..12]
        )
    );
    assert!(stderr(&out).contains("not attested"), "{}", transcript(&out));
    // The commit asked for, not the branch's head.
    assert_eq!(
        std::fs::read_to_string(env.file(".cowork/apps/notes/notes.jsx")).unwrap(),
        "export default () => 'first'\n"
    );
    let listed = env.json(&["app", "list"]);
    assert!(listed["apps"].to_string().contains("notes"), "{listed}");

    // Installed already: nothing is overwritten.
    let again = install(&["--allow-unverified", "--commit", &first, "--json"]);
    assert_eq!(again.status.code(), Some(1), "{}", transcript(&again));
    assert_eq!(error_name(&again), "AlreadyExists");

    // Its receipt makes `app remove` work as for any install.
    let removed = env.run(&["app", "remove", "notes"]);
    assert!(removed.status.success(), "{}", transcript(&removed));
    assert!(!env.file(".cowork/apps/notes").exists(), "{}", transcript(&removed));
}
