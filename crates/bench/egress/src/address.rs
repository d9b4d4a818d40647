//! The address blocklist: which IP addresses a vendor URL may never reach.
//!
//! IPv4 is a blocklist of special-purpose ranges (RFC 6890 and successors). IPv6 is stricter:
//! only global unicast (`2000::/3`) is considered at all, minus its special-purpose ranges;
//! addresses that embed an IPv4 address (`::ffff:0:0/96` mapped, `64:ff9b::/96` NAT64) are judged
//! by the address they embed.

use crate::Policy;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is special; what a refusal calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Unspecified,
    ThisNetwork,
    Loopback,
    Private,
    SharedAddressSpace,
    LinkLocal,
    CloudMetadata,
    SpecialPurpose,
    Documentation,
    Benchmarking,
    Multicast,
    Broadcast,
    Reserved,
    UniqueLocal,
    SiteLocal,
    Discard,
    Tunnelling,
    Ipv4Compatible,
}

impl Kind {
    /// A noun phrase for messages: "the URL's host ... is {describe}".
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::Unspecified => "an unspecified address",
            Kind::ThisNetwork => "a 'this network' address",
            Kind::Loopback => "a loopback address",
            Kind::Private => "a private network address",
            Kind::SharedAddressSpace => "a carrier-grade NAT address",
            Kind::LinkLocal => "a link-local address",
            Kind::CloudMetadata => "a cloud metadata service address",
            Kind::SpecialPurpose => "a special-purpose address",
            Kind::Documentation => "a documentation address",
            Kind::Benchmarking => "a benchmarking address",
            Kind::Multicast => "a multicast address",
            Kind::Broadcast => "a broadcast address",
            Kind::Reserved => "a reserved address",
            Kind::UniqueLocal => "a unique local (private) address",
            Kind::SiteLocal => "a site-local address",
            Kind::Discard => "a discard-only address",
            Kind::Tunnelling => "a tunnelling address",
            Kind::Ipv4Compatible => "an IPv4-compatible address",
        }
    }

    /// What local development needs: its own machine and its private networks.
    fn is_local_development(self) -> bool {
        matches!(self, Kind::Loopback | Kind::Private | Kind::UniqueLocal)
    }
}

/// IPv4 ranges, most specific first: the first match names the kind.
const V4: &[(Ipv4Addr, u8, Kind)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 32, Kind::Unspecified),
    (Ipv4Addr::new(255, 255, 255, 255), 32, Kind::Broadcast),
    (Ipv4Addr::new(169, 254, 169, 254), 32, Kind::CloudMetadata),
    // Alibaba Cloud's metadata service, inside 100.64/10.
    (Ipv4Addr::new(100, 100, 100, 200), 32, Kind::CloudMetadata),
    // Azure's WireServer, a public-looking address every Azure VM can reach.
    (Ipv4Addr::new(168, 63, 129, 16), 32, Kind::CloudMetadata),
    (Ipv4Addr::new(0, 0, 0, 0), 8, Kind::ThisNetwork),
    (Ipv4Addr::new(10, 0, 0, 0), 8, Kind::Private),
    (Ipv4Addr::new(100, 64, 0, 0), 10, Kind::SharedAddressSpace),
    (Ipv4Addr::new(127, 0, 0, 0), 8, Kind::Loopback),
    (Ipv4Addr::new(169, 254, 0, 0), 16, Kind::LinkLocal),
    (Ipv4Addr::new(172, 16, 0, 0), 12, Kind::Private),
    (Ipv4Addr::new(192, 0, 0, 0), 24, Kind::SpecialPurpose),
    (Ipv4Addr::new(192, 0, 2, 0), 24, Kind::Documentation),
    // The deprecated 6to4 relay anycast prefix.
    (Ipv4Addr::new(192, 88, 99, 0), 24, Kind::Tunnelling),
    (Ipv4Addr::new(192, 168, 0, 0), 16, Kind::Private),
    (Ipv4Addr::new(198, 18, 0, 0), 15, Kind::Benchmarking),
    (Ipv4Addr::new(198, 51, 100, 0), 24, Kind::Documentation),
    (Ipv4Addr::new(203, 0, 113, 0), 24, Kind::Documentation),
    (Ipv4Addr::new(224, 0, 0, 0), 4, Kind::Multicast),
    (Ipv4Addr::new(240, 0, 0, 0), 4, Kind::Reserved),
];

/// IPv6 ranges, most specific first. Embedded IPv4 forms are handled before this table.
const V6: &[(Ipv6Addr, u8, Kind)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, Kind::Unspecified),
    (Ipv6Addr::LOCALHOST, 128, Kind::Loopback),
    (
        Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254),
        128,
        Kind::CloudMetadata,
    ),
    (Ipv6Addr::UNSPECIFIED, 96, Kind::Ipv4Compatible),
    // IPv4-translated, ::ffff:0:0:0/96 (RFC 2765).
    (
        Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, 0, 0),
        96,
        Kind::Reserved,
    ),
    // Local-use NAT64 (RFC 8215): translates to whatever the local network chooses.
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        Kind::Reserved,
    ),
    (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64, Kind::Discard),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        Kind::Documentation,
    ),
    // IETF protocol assignments: Teredo, benchmarking, ORCHID and the like.
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        Kind::SpecialPurpose,
    ),
    // 6to4 embeds an IPv4 address and is deprecated (RFC 7526).
    (
        Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0),
        16,
        Kind::Tunnelling,
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        Kind::Documentation,
    ),
    // SRv6 segment identifiers (RFC 9602).
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        Kind::Reserved,
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        Kind::UniqueLocal,
    ),
    (
        Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0),
        10,
        Kind::LinkLocal,
    ),
    (
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        Kind::SiteLocal,
    ),
    (
        Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0),
        8,
        Kind::Multicast,
    ),
];

/// NAT64's well-known prefix, 64:ff9b::/96 (RFC 6052).
const NAT64: Ipv6Addr = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0);
/// Global unicast, 2000::/3: the only IPv6 space a public agent can live in.
const GLOBAL_UNICAST: Ipv6Addr = Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0);

fn in_v4(ip: Ipv4Addr, net: Ipv4Addr, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    ip.to_bits() & mask == net.to_bits() & mask
}

fn in_v6(ip: Ipv6Addr, net: Ipv6Addr, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    ip.to_bits() & mask == net.to_bits() & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<Kind> {
    V4.iter()
        .find(|(net, len, _)| in_v4(ip, *net, *len))
        .map(|(_, _, kind)| *kind)
}

fn classify_v6(ip: Ipv6Addr) -> Option<Kind> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    if in_v6(ip, NAT64, 96) {
        return classify_v4(Ipv4Addr::from_bits(ip.to_bits() as u32));
    }
    if let Some((_, _, kind)) = V6.iter().find(|(net, len, _)| in_v6(ip, *net, *len)) {
        return Some(*kind);
    }
    (!in_v6(ip, GLOBAL_UNICAST, 3)).then_some(Kind::Reserved)
}

/// What is special about `ip`, or `None` for an ordinary public address.
pub(crate) fn classify(ip: IpAddr) -> Option<Kind> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Why `policy` refuses `ip`, or `None` if it permits it.
pub(crate) fn refusal_kind(ip: IpAddr, policy: &Policy) -> Option<Kind> {
    classify(ip).filter(|kind| !(policy.allow_private && kind.is_local_development()))
}

/// Whether the hosted blocklist forbids `ip`: anything but an ordinary public unicast address.
pub fn is_forbidden(ip: IpAddr) -> bool {
    classify(ip).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    const FORBIDDEN: &[&str] = &[
        "0.0.0.0",
        "0.1.2.3",
        "10.0.0.1",
        "10.255.255.255",
        "100.64.0.1",
        "100.127.255.254",
        "100.100.100.200",
        "127.0.0.1",
        "127.255.255.254",
        "169.254.0.1",
        "169.254.169.254",
        "168.63.129.16",
        "172.16.0.1",
        "172.31.255.255",
        "192.0.0.1",
        "192.0.0.192",
        "192.0.2.1",
        "192.88.99.1",
        "192.168.0.1",
        "192.168.255.255",
        "198.18.0.1",
        "198.19.255.255",
        "198.51.100.7",
        "203.0.113.9",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:0.0.0.0",
        "::127.0.0.1",
        "::8.8.8.8",
        "::ffff:0:8.8.8.8",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::1",
        "100::1",
        "2001::1",
        "2001:2::1",
        "2001:db8::1",
        "2002:7f00:1::1",
        "3fff::1",
        "5f00::1",
        "fc00::1",
        "fd00::1",
        "fd00:ec2::254",
        "fe80::1",
        "febf::1",
        "fec0::1",
        "ff02::1",
        "ff05::1:3",
        "1::1",
        "4000::1",
    ];

    const PUBLIC: &[&str] = &[
        "8.8.8.8",
        "1.1.1.1",
        "9.9.9.9",
        "100.63.255.255",
        "100.128.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.167.255.255",
        "192.169.0.0",
        "198.17.255.255",
        "198.20.0.0",
        "223.255.255.255",
        "169.253.255.255",
        "11.0.0.1",
        "2606:4700::1111",
        "2001:4860:4860::8888",
        "2620:fe::fe",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ];

    #[test]
    fn the_blocklist_forbids_special_purpose_addresses() {
        for s in FORBIDDEN {
            assert!(is_forbidden(ip(s)), "{s} should be forbidden");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for s in PUBLIC {
            assert!(!is_forbidden(ip(s)), "{s} should be allowed");
            assert!(crate::Policy::hosted().permits(ip(s)), "{s}");
        }
    }

    #[test]
    fn embedded_ipv4_is_judged_by_what_it_embeds() {
        assert_eq!(classify(ip("::ffff:127.0.0.1")), Some(Kind::Loopback));
        assert_eq!(classify(ip("::ffff:7f00:1")), Some(Kind::Loopback));
        assert_eq!(
            classify(ip("64:ff9b::a9fe:a9fe")),
            Some(Kind::CloudMetadata)
        );
        assert_eq!(classify(ip("::ffff:192.168.1.1")), Some(Kind::Private));
    }

    #[test]
    fn local_development_opens_loopback_and_private_networks_only() {
        let local = crate::Policy::local();
        for s in [
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "::ffff:127.0.0.1",
            "10.1.2.3",
            "172.20.0.5",
            "192.168.1.10",
            "fd12:3456::1",
            "8.8.8.8",
        ] {
            assert!(local.permits(ip(s)), "{s} should be allowed locally");
        }
        for s in [
            "0.0.0.0",
            "::",
            "169.254.169.254",
            "fd00:ec2::254",
            "100.100.100.200",
            "fe80::1",
            "169.254.1.1",
            "224.0.0.1",
            "255.255.255.255",
            "ff02::1",
            "240.0.0.1",
            "192.0.2.1",
        ] {
            assert!(!local.permits(ip(s)), "{s} should stay refused locally");
        }
    }

    #[test]
    fn the_most_specific_range_names_the_refusal() {
        assert_eq!(classify(ip("169.254.169.254")), Some(Kind::CloudMetadata));
        assert_eq!(classify(ip("169.254.1.1")), Some(Kind::LinkLocal));
        assert_eq!(classify(ip("fd00:ec2::254")), Some(Kind::CloudMetadata));
        assert_eq!(classify(ip("0.0.0.0")), Some(Kind::Unspecified));
        assert_eq!(classify(ip("::")), Some(Kind::Unspecified));
        assert_eq!(classify(ip("::1")), Some(Kind::Loopback));
    }
}
