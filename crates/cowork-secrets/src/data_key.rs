//! The data key itself: 32 random bytes and the cipher over them. A leaf module: the key's
//! sources ([`crate::key`]) and the keychain that stores it both use it, and it uses neither.

use chacha20poly1305::aead::rand_core::RngCore;
use chacha20poly1305::aead::OsRng;
use chacha20poly1305::{Key, KeyInit, XChaCha20Poly1305};
use zeroize::Zeroizing;

/// 32 random bytes, wiped from memory when dropped.
pub(crate) struct DataKey(Zeroizing<[u8; 32]>);

impl DataKey {
    /// A fresh key from the operating system's random source.
    pub(crate) fn generate() -> DataKey {
        let mut key = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut key[..]);
        DataKey(key)
    }

    /// Parses 64 hex digits (surrounding whitespace ignored).
    pub(crate) fn from_hex(text: &str) -> Option<DataKey> {
        let mut key = Zeroizing::new([0u8; 32]);
        hex::decode_to_slice(text.trim(), &mut key[..]).ok()?;
        Some(DataKey(key))
    }

    /// The key as 64 lowercase hex digits.
    pub(crate) fn to_hex(&self) -> Zeroizing<String> {
        Zeroizing::new(hex::encode(&self.0[..]))
    }

    /// The AEAD over this key (it wipes its own copy when dropped).
    pub(crate) fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(Key::from_slice(&self.0[..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_bad_hex() {
        let key = DataKey::generate();
        let again = DataKey::from_hex(&format!("  {}\n", &*key.to_hex())).unwrap();
        assert_eq!(*key.0, *again.0);
        assert!(DataKey::from_hex("abcd").is_none());
        assert!(DataKey::from_hex(&"zz".repeat(32)).is_none());
    }
}
