//! Which IP addresses are this computer or a private network rather than the public internet.
//!
//! A site installed from the internet must never lead Cowork to them (a redirect, a manifest, an
//! icon or a start page on `10.0.0.1` would let a web page probe the person's router or intranet),
//! so every address a host name resolves to is classified here. IPv6 forms that carry an IPv4
//! address (`::ffff:10.0.0.1`, `::10.0.0.1`, NAT64 `64:ff9b::a00:1`, 6to4 `2002:a00:1::`) are
//! judged by the address they carry.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not a public internet address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonPublic {
    /// `127.0.0.0/8`, `::1`: this computer.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16` (RFC 1918).
    Private,
    /// `169.254/16`, `fe80::/10`.
    LinkLocal,
    /// `fc00::/7` (and the retired site-local `fec0::/10`).
    UniqueLocal,
    /// `100.64/10`, shared by carrier-grade NAT (RFC 6598).
    SharedCgnat,
    /// `0.0.0.0/8`, `::`: connecting to it reaches this computer on most systems.
    Unspecified,
    /// `224/4`, `255.255.255.255`, `ff00::/8`.
    Multicast,
    /// Reserved, benchmarking and documentation ranges: never a real site.
    Reserved,
}

impl NonPublic {
    /// The class in words, as a refusal shows it.
    pub fn describe(self) -> &'static str {
        match self {
            NonPublic::Loopback => "a loopback address: this computer",
            NonPublic::Private => "a private network address (RFC 1918)",
            NonPublic::LinkLocal => "a link-local address",
            NonPublic::UniqueLocal => "a private IPv6 address (fc00::/7)",
            NonPublic::SharedCgnat => "a carrier-grade NAT address (100.64.0.0/10)",
            NonPublic::Unspecified => "the unspecified address: this computer",
            NonPublic::Multicast => "a multicast or broadcast address",
            NonPublic::Reserved => "a reserved address",
        }
    }
}

/// `None` for a public address, else why it is not one.
pub fn classify(ip: IpAddr) -> Option<NonPublic> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<NonPublic> {
    let [a, b, c, _] = ip.octets();
    let class = match (a, b, c) {
        (0, ..) => NonPublic::Unspecified,
        (127, ..) => NonPublic::Loopback,
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => NonPublic::Private,
        (169, 254, _) => NonPublic::LinkLocal,
        (100, 64..=127, _) => NonPublic::SharedCgnat,
        (224..=239, ..) => NonPublic::Multicast,
        _ if ip.is_broadcast() => NonPublic::Multicast,
        (240..=255, ..) => NonPublic::Reserved,
        // IETF protocol assignments, the three documentation nets, benchmarking (RFC 2544).
        (192, 0, 0) | (192, 0, 2) | (198, 51, 100) | (203, 0, 113) | (198, 18..=19, _) => {
            NonPublic::Reserved
        }
        _ => return None,
    };
    Some(class)
}

fn classify_v6(ip: Ipv6Addr) -> Option<NonPublic> {
    if ip.is_unspecified() {
        return Some(NonPublic::Unspecified);
    }
    if ip.is_loopback() {
        return Some(NonPublic::Loopback);
    }
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    let class = match s[0] {
        x if x & 0xffc0 == 0xfe80 => NonPublic::LinkLocal,
        x if x & 0xffc0 == 0xfec0 || x & 0xfe00 == 0xfc00 => NonPublic::UniqueLocal,
        x if x & 0xff00 == 0xff00 => NonPublic::Multicast,
        // Documentation (2001:db8::/32) and discard-only (100::/64).
        0x2001 if s[1] == 0x0db8 => NonPublic::Reserved,
        0x0100 if s[1..4] == [0, 0, 0] => NonPublic::Reserved,
        _ => return None,
    };
    Some(class)
}

/// The IPv4 address an IPv6 address stands for: mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`,
/// NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::/48`.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo]
        | [0, 0, 0, 0, 0, 0, hi, lo]
        | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> Option<NonPublic> {
        classify(text.parse().unwrap())
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:93.184.216.34",
            "2002:5db8:d822::1",
        ] {
            assert_eq!(class(ip), None, "{ip}");
        }
    }

    #[test]
    fn every_class_of_non_public_address_is_named() {
        let cases = [
            ("127.0.0.1", NonPublic::Loopback),
            ("127.255.0.9", NonPublic::Loopback),
            ("::1", NonPublic::Loopback),
            ("10.0.0.7", NonPublic::Private),
            ("172.16.0.1", NonPublic::Private),
            ("172.31.255.255", NonPublic::Private),
            ("192.168.1.1", NonPublic::Private),
            ("169.254.169.254", NonPublic::LinkLocal),
            ("fe80::1", NonPublic::LinkLocal),
            ("fc00::1", NonPublic::UniqueLocal),
            ("fd12:3456::1", NonPublic::UniqueLocal),
            ("100.64.0.1", NonPublic::SharedCgnat),
            ("100.127.255.255", NonPublic::SharedCgnat),
            ("0.0.0.0", NonPublic::Unspecified),
            ("::", NonPublic::Unspecified),
            ("224.0.0.1", NonPublic::Multicast),
            ("255.255.255.255", NonPublic::Multicast),
            ("ff02::1", NonPublic::Multicast),
            ("240.0.0.1", NonPublic::Reserved),
            ("192.0.2.10", NonPublic::Reserved),
            ("2001:db8::1", NonPublic::Reserved),
        ];
        for (ip, expected) in cases {
            assert_eq!(class(ip), Some(expected), "{ip}");
        }
    }

    #[test]
    fn ipv6_forms_of_a_private_ipv4_address_are_private() {
        for ip in [
            "::ffff:10.0.0.7",
            "::ffff:127.0.0.1",
            "::10.0.0.7",
            "64:ff9b::a00:7",
            "2002:a00:7::1",
            "::ffff:169.254.169.254",
        ] {
            assert!(class(ip).is_some(), "{ip}");
        }
        assert_eq!(class("::ffff:127.0.0.1"), Some(NonPublic::Loopback));
        assert_eq!(class("64:ff9b::a00:7"), Some(NonPublic::Private));
    }
}
