//! One AEAD record per secret: XChaCha20-Poly1305 under the data key, a fresh random 24-byte nonce
//! per write, and associated data that binds the record to its account and name — so a record
//! copied to another name, or two records' ciphertexts swapped, fail to open.

use chacha20poly1305::aead::rand_core::RngCore;
use chacha20poly1305::aead::{Aead, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use zeroize::Zeroizing;

/// The nonce length of XChaCha20: random nonces this long never repeat in practice.
pub(crate) const NONCE_LEN: usize = 24;

/// What the key-check record holds; what matters is only that it opens.
const KEY_CHECK_PLAINTEXT: &[u8] = b"cowork secret store key check";

/// The associated data of the key-check record. No secret's associated data starts like this,
/// so no secret record can stand in for it.
const KEY_CHECK_AAD: &[u8] = b"cowork-key-check-v1\0";

/// A nonce and the ciphertext (with its 16-byte tag) it goes with, as stored.
pub(crate) struct Sealed {
    pub(crate) nonce: Vec<u8>,
    pub(crate) ciphertext: Vec<u8>,
}

/// `cowork-secret-v1\0<account>\0<name>`: neither may contain NUL, so no two pairs give the same bytes.
fn secret_aad(account: &str, name: &str) -> Vec<u8> {
    let mut aad = Vec::with_capacity(17 + account.len() + 1 + name.len());
    aad.extend_from_slice(b"cowork-secret-v1\0");
    aad.extend_from_slice(account.as_bytes());
    aad.push(0);
    aad.extend_from_slice(name.as_bytes());
    aad
}

fn seal(cipher: &XChaCha20Poly1305, plaintext: &[u8], aad: &[u8]) -> Sealed {
    let mut nonce = [0u8; NONCE_LEN];
    OsRng.fill_bytes(&mut nonce);
    let ciphertext = cipher
        .encrypt(XNonce::from_slice(&nonce), Payload { msg: plaintext, aad })
        .expect("XChaCha20-Poly1305 refuses only messages over 256 GiB, which no secret is");
    Sealed { nonce: nonce.to_vec(), ciphertext }
}

/// `None` when the record does not open: a changed byte, another record's bytes, or another key.
fn open(cipher: &XChaCha20Poly1305, sealed: &Sealed, aad: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    if sealed.nonce.len() != NONCE_LEN {
        return None;
    }
    let plaintext = cipher
        .decrypt(XNonce::from_slice(&sealed.nonce), Payload { msg: &sealed.ciphertext, aad })
        .ok()?;
    Some(Zeroizing::new(plaintext))
}

/// Seals `value` as the secret `name` of `account`.
pub(crate) fn seal_secret(
    cipher: &XChaCha20Poly1305,
    account: &str,
    name: &str,
    value: &[u8],
) -> Sealed {
    seal(cipher, value, &secret_aad(account, name))
}

/// Opens the secret `name` of `account`; `None` when the record fails its integrity check.
pub(crate) fn open_secret(
    cipher: &XChaCha20Poly1305,
    account: &str,
    name: &str,
    sealed: &Sealed,
) -> Option<Zeroizing<Vec<u8>>> {
    open(cipher, sealed, &secret_aad(account, name))
}

/// The key-check record written when a store is created.
pub(crate) fn seal_key_check(cipher: &XChaCha20Poly1305) -> Sealed {
    seal(cipher, KEY_CHECK_PLAINTEXT, KEY_CHECK_AAD)
}

/// Whether `cipher` holds the key that wrote the key-check record.
pub(crate) fn key_check_opens(cipher: &XChaCha20Poly1305, sealed: &Sealed) -> bool {
    open(cipher, sealed, KEY_CHECK_AAD).is_some_and(|p| p.as_slice() == KEY_CHECK_PLAINTEXT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_key::DataKey;

    #[test]
    fn a_record_opens_only_as_itself() {
        let cipher = DataKey::generate().cipher();
        let sealed = seal_secret(&cipher, "local", "a.key", b"value");
        assert_eq!(open_secret(&cipher, "local", "a.key", &sealed).unwrap().as_slice(), b"value");
        assert!(open_secret(&cipher, "local", "b.key", &sealed).is_none(), "another name");
        assert!(
            open_secret(&cipher, "ana@example.com", "a.key", &sealed).is_none(),
            "another account"
        );
        assert!(
            open_secret(&DataKey::generate().cipher(), "local", "a.key", &sealed).is_none(),
            "another key"
        );
        let mut short =
            Sealed { nonce: sealed.nonce[..12].to_vec(), ciphertext: sealed.ciphertext.clone() };
        assert!(open_secret(&cipher, "local", "a.key", &short).is_none(), "a cut nonce");
        short.nonce = sealed.nonce.clone();
        short.ciphertext[0] ^= 1;
        assert!(open_secret(&cipher, "local", "a.key", &short).is_none(), "a flipped byte");
    }

    #[test]
    fn every_write_takes_a_fresh_nonce() {
        let cipher = DataKey::generate().cipher();
        let a = seal_secret(&cipher, "local", "n", b"same");
        let b = seal_secret(&cipher, "local", "n", b"same");
        assert_ne!(a.nonce, b.nonce);
        assert_ne!(a.ciphertext, b.ciphertext);
    }

    #[test]
    fn the_key_check_tells_keys_apart() {
        let key = DataKey::generate();
        let check = seal_key_check(&key.cipher());
        assert!(key_check_opens(&key.cipher(), &check));
        assert!(!key_check_opens(&DataKey::generate().cipher(), &check));
        // A secret record cannot pass for the key check, even one holding the same bytes.
        let forged = seal_secret(&key.cipher(), "local", "x", KEY_CHECK_PLAINTEXT);
        assert!(!key_check_opens(&key.cipher(), &forged));
    }
}
