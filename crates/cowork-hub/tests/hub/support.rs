//! Helpers: a hub per back end, accounts signed in by password, and error matching.

pub use cowork_hub::test_support::{start, Backend, TestHub};
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
