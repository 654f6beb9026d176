//! The gates, as extractors: [`Caller`] (a bearer access token, else `NotSignedIn` /
//! `InvalidToken` / `SessionExpired` / `SessionRevoked`) and [`ClientAddr`] (who to count a sign-in
//! attempt against). Handlers never look at headers for auth themselves.

use crate::error::HubErr;
use crate::sessions;
use crate::state::Hub;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header;
use axum::http::request::Parts;
use cowork_wire::hub::HubErrorName;
use std::net::SocketAddr;

pub use crate::sessions::Caller;

impl FromRequestParts<Hub> for Caller {
    type Rejection = HubErr;

    async fn from_request_parts(parts: &mut Parts, hub: &Hub) -> Result<Caller, HubErr> {
        let token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim)
            .ok_or_else(|| {
                HubErr::new(
                    HubErrorName::NotSignedIn,
                    "failed to find who is asking: no bearer token",
                )
                .hint(
                    "sign in first (cowork login), then send Authorization: Bearer <access token>",
                )
            })?;
        sessions::authenticate(hub, token).await
    }
}

/// The caller's network address: the peer, or — behind the HTTPS proxy the hub was told about —
/// the last address the proxy added to `X-Forwarded-For`.
#[derive(Clone, Debug)]
pub struct ClientAddr(pub String);

impl FromRequestParts<Hub> for ClientAddr {
    type Rejection = HubErr;

    async fn from_request_parts(parts: &mut Parts, hub: &Hub) -> Result<ClientAddr, HubErr> {
        if hub.config.behind_https {
            let forwarded = parts
                .headers
                .get("x-forwarded-for")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.rsplit(',').next())
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty());
            if let Some(address) = forwarded {
                return Ok(ClientAddr(address));
            }
        }
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip().to_string());
        Ok(ClientAddr(peer.unwrap_or_else(|| "unknown".into())))
    }
}
