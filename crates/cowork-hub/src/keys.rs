//! The hub's signing key (Ed25519, ring) and the ID tokens it signs: JWTs with `alg: EdDSA`
//! (RFC 8037) that a service verifies against `/.well-known/jwks.json`. The key is kept in the
//! database (`signing_keys`), so every replica signs with the same one; the first start makes it.

use crate::db::{now_ms, Db};
use crate::error::HubErr;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use cowork_wire::hub::{Jwk, Jwks, User};
use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::json;
use sqlx::Row;
use std::sync::Arc;

/// The key ID tokens are signed with, and every key still published.
#[derive(Clone)]
pub struct Keys {
    signing: Arc<Ed25519KeyPair>,
    kid: String,
    jwks: Jwks,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("kid", &self.kid).finish_non_exhaustive()
    }
}

fn kid_of(public: &[u8]) -> String {
    crate::crypto::hash(&URL_SAFE_NO_PAD.encode(public))[..16].to_string()
}

impl Keys {
    /// Load the oldest key, making one when there is none (two replicas starting at once may
    /// both make one: both are published, and both sign with the oldest).
    pub async fn load(db: &Db) -> Result<Keys, HubErr> {
        let rows = sqlx::query("SELECT kid, pkcs8 FROM signing_keys ORDER BY created_at, kid")
            .fetch_all(db.pool())
            .await?;
        if rows.is_empty() {
            let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
                .map_err(|_| HubErr::internal("failed to make the signing key", &"ring"))?;
            let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref())
                .map_err(|_| HubErr::internal("failed to read the signing key", &"ring"))?;
            sqlx::query(
                "INSERT INTO signing_keys (kid, pkcs8, created_at) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING",
            )
            .bind(kid_of(pair.public_key().as_ref()))
            .bind(pkcs8.as_ref().to_vec())
            .bind(now_ms())
            .execute(db.pool())
            .await?;
            return Box::pin(Keys::load(db)).await;
        }
        let mut pairs = Vec::new();
        for row in rows {
            let kid: String = row.try_get("kid")?;
            let pkcs8: Vec<u8> = row.try_get("pkcs8")?;
            let pair = Ed25519KeyPair::from_pkcs8(&pkcs8)
                .map_err(|_| HubErr::internal("failed to read a signing key", &kid))?;
            pairs.push((kid, pair));
        }
        let jwks = Jwks {
            keys: pairs
                .iter()
                .map(|(kid, pair)| Jwk {
                    kty: "OKP".into(),
                    crv: "Ed25519".into(),
                    x: URL_SAFE_NO_PAD.encode(pair.public_key().as_ref()),
                    kid: kid.clone(),
                    alg: "EdDSA".into(),
                    use_: "sig".into(),
                })
                .collect(),
        };
        let (kid, signing) = pairs.into_iter().next().expect("rows is not empty");
        Ok(Keys { signing: Arc::new(signing), kid, jwks })
    }

    /// The public keys, as `/.well-known/jwks.json` publishes them.
    pub fn jwks(&self) -> &Jwks {
        &self.jwks
    }

    /// A signed ID token for `user` from `issuer`, valid `ttl_ms`.
    pub fn id_token(&self, issuer: &str, user: &User, session: &str, ttl_ms: i64) -> (String, i64) {
        let now = now_ms();
        let expires_at = now + ttl_ms;
        let header = json!({"alg": "EdDSA", "typ": "JWT", "kid": self.kid});
        let claims = json!({
            "iss": issuer,
            "sub": user.uid,
            "aud": cowork_wire::hub::CLIENT_ID,
            "email": user.email,
            "name": user.display_name,
            "sid": session,
            "iat": now / 1000,
            "exp": expires_at / 1000,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self.signing.sign(signing_input.as_bytes());
        (format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())), expires_at)
    }
}

/// Check an ID token against a JWKS and answer its claims (what a service does; the tests use it).
pub fn verify(token: &str, jwks: &Jwks) -> Option<serde_json::Value> {
    let mut parts = token.split('.');
    let (header, claims, signature) = (parts.next()?, parts.next()?, parts.next()?);
    let header: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    if header["alg"] != "EdDSA" {
        return None;
    }
    let key = jwks.keys.iter().find(|k| header["kid"] == k.kid.as_str())?;
    let public = URL_SAFE_NO_PAD.decode(&key.x).ok()?;
    let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
    let message = format!("{}.{}", token.split('.').next()?, claims);
    ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, public)
        .verify(message.as_bytes(), &signature)
        .ok()?;
    let claims: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).ok()?).ok()?;
    (claims["exp"].as_i64()? * 1000 > now_ms()).then_some(claims)
}
