//! The small pieces of cryptography the hub uses: random secrets, their SHA-256 (only hashes of
//! tokens and codes are stored), constant-time comparison, PKCE's S256, and argon2id password
//! hashes.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// 32 random bytes, base64url: a token's secret part.
pub fn secret() -> String {
    URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>())
}

/// SHA-256 of `text`, hex: what the database keeps of a secret.
pub fn hash(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Equal, in time that does not depend on where they differ.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// PKCE S256 (RFC 7636 §4.6): the challenge a verifier answers.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A PHC string of the password (argon2id, the crate's recommended cost).
pub fn hash_password(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())?;
    Ok(Argon2::default().hash_password(password.as_bytes(), &salt)?.to_string())
}

/// Whether `password` matches the PHC string. An unknown account is checked against a fixed hash
/// (`verify_password(pw, None)`), so a wrong email costs the same time as a wrong password.
pub fn verify_password(password: &str, phc: Option<&str>) -> bool {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let dummy = DUMMY.get_or_init(|| hash_password("not a password").unwrap_or_default());
    let (phc, real) = match phc {
        Some(phc) => (phc, true),
        None => (dummy.as_str(), false),
    };
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && real
}

/// A device flow's user code: 8 letters without vowels or look-alikes, `XXXX-XXXX`.
pub fn user_code() -> String {
    const LETTERS: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ";
    let bytes: [u8; 8] = rand::random();
    let letters: String =
        bytes.iter().map(|b| LETTERS[usize::from(*b) % LETTERS.len()] as char).collect();
    format!("{}-{}", &letters[..4], &letters[4..])
}

/// A user code as typed: upper case, the dash optional, spaces ignored.
pub fn normalize_user_code(typed: &str) -> String {
    let letters: String =
        typed.chars().filter(|c| c.is_ascii_alphabetic()).map(|c| c.to_ascii_uppercase()).collect();
    if letters.len() == 8 {
        format!("{}-{}", &letters[..4], &letters[4..])
    } else {
        letters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_is_the_base64url_sha256_of_the_verifier() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "ngF5GsXcbwljx6u133FFr3Xht9xooA_DuaX_3QwODtc"
        );
    }

    #[test]
    fn a_password_verifies_and_a_wrong_one_does_not() {
        let phc = hash_password("correct horse").unwrap();
        assert!(verify_password("correct horse", Some(&phc)));
        assert!(!verify_password("wrong horse", Some(&phc)));
        assert!(!verify_password("not a password", None));
    }

    #[test]
    fn user_codes_read_back_however_typed() {
        let code = user_code();
        assert_eq!(normalize_user_code(&code.to_lowercase().replace('-', " ")), code);
    }
}
