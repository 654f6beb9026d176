//! Helpers: a hub per back end, accounts signed in by password, and error matching.

pub use cowork_hub::test_support::{private_team_server, start, Backend, TestHub};
use cowork_wire::hub::client::{ClientError, HubClient};
use cowork_wire::hub::{HubErrorName, NewAccount, PasswordSignIn, TokenAnswer};

pub const PASSWORD: &str = "correct horse battery";

/// A hub on `backend` with the defaults of a test hub.
pub async fn hub(backend: Backend) -> TestHub {
    start(backend, |_| {}).await
}

/// Make an account straight in the hub's database and sign it in by password.
pub async fn account(hub: &TestHub, email: &str) -> (HubClient, TokenAnswer) {
    cowork_hub::accounts::create(
        &hub.running.hub.db,
        &NewAccount {
            email: email.into(),
            password: PASSWORD.into(),
            display_name: None,
            hub_admin: false,
        },
    )
    .await
    .unwrap_or_else(|e| panic!("failed to create {email}: {e}"));
    sign_in(hub, email).await
}

/// Sign an existing account in by password.
pub async fn sign_in(hub: &TestHub, email: &str) -> (HubClient, TokenAnswer) {
    let answer = hub
        .client()
        .sign_in_password(&PasswordSignIn {
            email: email.into(),
            password: PASSWORD.into(),
            device_id: Some("0123456789abcdef0123456789abcdef".into()),
            device_name: Some("test-machine".into()),
        })
        .await
        .unwrap_or_else(|e| panic!("failed to sign {email} in on {:?}: {e}", hub.backend));
    (hub.client().with_token(answer.access_token.clone()), answer)
}

/// The hub's error name of a failed call, or a panic naming what came instead.
pub fn name<T: std::fmt::Debug>(result: Result<T, ClientError>) -> HubErrorName {
    match result {
        Err(error) => error.name().unwrap_or_else(|| panic!("not a hub error: {error:?}")),
        Ok(value) => panic!("expected a refusal, got {value:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The store

use cowork_wire::hub::verify;
use cowork_wire::hub::{
    ItemKind, Manifest, ManifestFile, MemberAdd, NewTeamServer, Publish, Visibility,
};

/// People of the team server `team` (private): its owner, an admin, a member, and someone who
/// is not in it.
pub struct Team {
    pub ana: HubClient,
    pub carl: HubClient,
    pub bo: HubClient,
    pub eve: HubClient,
}

/// The team server `team` on `hub` with its people.
pub async fn team(hub: &TestHub, visibility: Visibility) -> Team {
    let (ana, _) = account(hub, "ana@example.com").await;
    let (carl, _) = account(hub, "carl@example.com").await;
    let (bo, _) = account(hub, "bo@example.com").await;
    let (eve, _) = account(hub, "eve@example.com").await;
    ana.create_team_server(&NewTeamServer {
        name: "Team".into(),
        description: None,
        visibility,
        requires_approval: false,
        org: None,
        open_to_groups: vec![],
    })
    .await
    .unwrap();
    for (email, admin) in [("carl@example.com", true), ("bo@example.com", false)] {
        ana.add_member("team", &MemberAdd { email: email.into(), admin }).await.unwrap();
    }
    Team { ana, carl, bo, eve }
}

/// Upload what the store of `slug` lacks of `files` (asked in one call), as a push does; answers
/// their manifest entries.
pub async fn upload(client: &HubClient, slug: &str, files: &[(&str, &[u8])]) -> Vec<ManifestFile> {
    let entries: Vec<ManifestFile> = files
        .iter()
        .map(|(path, bytes)| ManifestFile {
            path: path.to_string(),
            size: bytes.len() as u64,
            sha256: verify::sha256_hex(bytes),
        })
        .collect();
    let hashes: Vec<String> = entries.iter().map(|e| e.sha256.clone()).collect();
    let missing = client.missing_blobs(slug, &hashes).await.unwrap().missing;
    for (entry, (_, bytes)) in entries.iter().zip(files) {
        if missing.contains(&entry.sha256) {
            client.put_blob(slug, &entry.sha256, bytes.to_vec()).await.unwrap();
        }
    }
    entries
}

/// A publish of an app's `files` at `version` (the hub's next when `None`).
pub fn app(files: Vec<ManifestFile>, version: Option<&str>) -> Publish {
    Publish {
        kind: ItemKind::App,
        subtype: None,
        version: version.map(str::to_owned),
        files,
        card: Default::default(),
        requires: None,
        dry_run: false,
    }
}

/// What a member's Cowork does to install `name` (`version`, or the latest) from `slug`, having
/// pinned the store's first key: walk the key chain, verify the manifest, download and verify
/// every file. Answers the manifest and the files' bytes, or the first thing that did not verify.
pub async fn install(
    client: &HubClient,
    slug: &str,
    name: &str,
    version: Option<&str>,
) -> Result<(Manifest, Vec<Vec<u8>>), verify::VerifyError> {
    let keys = client.store_keys(slug).await.unwrap();
    let pinned = keys.keys[0].kid.clone();
    let key = verify::key_chain(slug, &pinned, &keys)?;
    let found = client.manifest(slug, name, version).await.unwrap();
    let manifest = verify::manifest(&found.signed, key, slug, name, version)?;
    let mut bytes = Vec::new();
    for entry in &manifest.files {
        let blob = client.get_blob(slug, &entry.sha256).await.unwrap();
        verify::file(entry, &blob)?;
        bytes.push(blob);
    }
    Ok((manifest, bytes))
}
