//! How addresses and host names are spelled in logs and PTR maps (SPEC §1:
//! "Addresses may be IPv4, IPv6 or a host name"; addresses compared as
//! addresses). Takes the bytes of a client field; gives a `Client`.

use std::net::{IpAddr, Ipv4Addr};

use crate::accesslog::ipv6::parse_ipv6;

use crate::text::escape_non_utf8;

/// What the log's client field (`%h`, `$remote_addr`) holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Client {
    /// An address, canonical: `::ffff:1.2.3.4` is `1.2.3.4`.
    Addr(IpAddr),
    /// A host name (Apache `HostnameLookups On`): the server's own reverse
    /// lookup, so the address itself is unknown.
    Name(String),
    /// Anything else (`-`, garbage), as text with non-UTF-8 bytes escaped.
    Other(String),
}

/// Reads a client field: IPv4, IPv6 (bare, `[..]`, `[..]:port`, with a
/// `%zone` dropped), else a well-formed host name of two labels or more,
/// else `Other`.
pub fn parse_client(field: &[u8]) -> Client {
    // Nearly every client field of a log is a plain IPv4 address.
    if let Some(addr) = plain_ipv4(field) {
        return Client::Addr(IpAddr::V4(addr));
    }
    let Ok(text) = std::str::from_utf8(field) else {
        return Client::Other(escape_non_utf8(field).into_owned());
    };
    let text = text.trim();
    if let Some(addr) = parse_address(text) {
        return Client::Addr(addr);
    }
    if let Some(addr) = strip_port(text).and_then(parse_address) {
        return Client::Addr(addr);
    }
    // A single word (`unknown`, `localhost`) is what a proxy or a server
    // writes when it has no address; it names no host on the internet, so
    // it gives no PTR name (SPEC §2).
    if is_logged_name(text) && text.trim_end_matches('.').contains('.') {
        return Client::Name(text.to_string());
    }
    Client::Other(text.to_string())
}

/// A dotted-quad IPv4 address and nothing else, read straight from the
/// bytes as the standard parser reads it (four decimal octets up to 255,
/// no leading zeros); `None` for anything else, which the general path
/// then reads. One pass over the bytes: it runs for every line's client
/// when a PTR map names crawler hosts.
fn plain_ipv4(field: &[u8]) -> Option<Ipv4Addr> {
    if !(7..=15).contains(&field.len()) {
        return None;
    }
    let mut octets = [0u8; 4];
    let mut done = 0;
    let mut value: u16 = 0;
    let mut digits = 0;
    for &byte in field {
        if byte == b'.' {
            if digits == 0 || done == 3 {
                return None;
            }
            octets[done] = u8::try_from(value).ok()?;
            done += 1;
            value = 0;
            digits = 0;
            continue;
        }
        let digit = byte.wrapping_sub(b'0');
        // A fourth digit, or a digit after a leading zero.
        if digit > 9 || digits == 3 || (digits == 1 && value == 0) {
            return None;
        }
        value = value * 10 + u16::from(digit);
        digits += 1;
    }
    if done != 3 || digits == 0 {
        return None;
    }
    octets[3] = u8::try_from(value).ok()?;
    Some(Ipv4Addr::from(octets))
}

/// The address a client field holds, as `parse_client` reads it, or `None`
/// when it holds none. A plain IPv4 or IPv6 address — nearly every client
/// field — is read without the checks and the allocation `parse_client`
/// makes for names and garbage: the scan asks this of every line's client
/// when a PTR map names crawler hosts.
pub fn client_address(field: &[u8]) -> Option<IpAddr> {
    if let Some(addr) = plain_ipv4(field) {
        return Some(IpAddr::V4(addr));
    }
    if let Some(addr) = parse_ipv6(field) {
        return Some(IpAddr::V6(addr).to_canonical());
    }
    match parse_client(field) {
        Client::Addr(addr) => Some(addr),
        _ => None,
    }
}

/// Reads an address written as an address: `1.2.3.4`, `2a02:598::1`,
/// `[2a02:598::1]`, `fe80::1%eth0`. The result is canonical, so an
/// IPv4-mapped IPv6 address compares equal to its IPv4 address.
pub fn parse_address(text: &str) -> Option<IpAddr> {
    let text = text.trim();
    let text = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    if let Some(addr) = read_address(text.as_bytes()) {
        return Some(addr.to_canonical());
    }
    // A zone names the link the address was seen on, not another address.
    let (bare, _zone) = text.split_once('%')?;
    parse_ipv6(bare.as_bytes()).map(|a| IpAddr::V6(a).to_canonical())
}

/// `text.parse::<IpAddr>()`, with IPv6 read by the fast reader: only an
/// IPv6 address holds a `:`, and every IPv6 address holds one.
fn read_address(text: &[u8]) -> Option<IpAddr> {
    if memchr::memchr(b':', text).is_some() {
        return parse_ipv6(text).map(IpAddr::V6);
    }
    let text = std::str::from_utf8(text).ok()?;
    text.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

/// `1.2.3.4:80` → `1.2.3.4`, `[::1]:80` → `[::1]`; None when there is no
/// port to strip.
fn strip_port(text: &str) -> Option<&str> {
    let (host, port) = text.rsplit_once(':')?;
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // An unbracketed IPv6 address has several colons and no port.
    if host.starts_with('[') || !host.contains(':') {
        Some(host)
    } else {
        None
    }
}

/// True for a host name as a client field holds it in place of an address
/// (Apache `HostnameLookups On`), by the rule the log reader reads it with
/// (`fields::is_plain_client`): letters, digits, `-`, `_` and dots, no
/// empty label, a last label that is not numeric, one trailing dot
/// allowed, and DNS's lengths (a label of at most 63 octets, a name of at
/// most 253), which no reverse lookup can pass. DNS's rules for how a
/// label is spelt (no `-` at either end) are not asked: the name is the
/// server's reverse lookup of the client, which whoever holds the address
/// chose, and a line the reader took must give the name it holds. Read as no name, a Seznam user
/// agent from `-x1.evil.example` was `unverified` and accused SeznamBot,
/// where a name that is not Seznam's makes it an impostor (SPEC §2); and
/// `fulltextrobot-fresh-2a02-598-64-8a00--.seznam.cz`, the name of
/// `2a02:598:64:8a00::`, ends a label with `-`.
pub fn is_logged_name(text: &str) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        && crate::accesslog::fields::is_plain_client(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_fields() {
        let addr = |s: &str| Client::Addr(s.parse().unwrap());
        let name = |s: &str| Client::Name(s.to_string());
        let other = |s: &str| Client::Other(s.to_string());
        let cases: &[(&[u8], Client)] = &[
            (b"77.75.77.123", addr("77.75.77.123")),
            (b" 77.75.77.123 ", addr("77.75.77.123")),
            (b"2A02:598:A:0::78:90", addr("2a02:598:a::78:90")),
            (b"[2a02:598:a::78:90]", addr("2a02:598:a::78:90")),
            (b"[2a02:598:a::78:90]:443", addr("2a02:598:a::78:90")),
            (b"fe80::1%eth0", addr("fe80::1")),
            (b"::ffff:77.75.77.123", addr("77.75.77.123")),
            (b"77.75.77.123:8080", addr("77.75.77.123")),
            (
                b"fulltextrobot-77-75-77-123.seznam.cz",
                name("fulltextrobot-77-75-77-123.seznam.cz"),
            ),
            (b"Host.Example.", name("Host.Example.")),
            (b"localhost", other("localhost")),
            (b"unknown", other("unknown")),
            (b"localhost.", other("localhost.")),
            (b"host.lan", name("host.lan")),
            (b"-", other("-")),
            (b"77.75.77", other("77.75.77")),
            (b"1.2.3.456", other("1.2.3.456")),
            (b"a..b", other("a..b")),
            (b"-a.b", name("-a.b")),
            (b"a-.b-", name("a-.b-")),
            (
                b"fulltextrobot-fresh-2a02-598-64-8a00--.seznam.cz",
                name("fulltextrobot-fresh-2a02-598-64-8a00--.seznam.cz"),
            ),
            (b"a.b.2026-11-29", other("a.b.2026-11-29")),
            (b"a_b.c", name("a_b.c")),
            (b"a b", other("a b")),
            (b"a\xffb", other("a\\xFFb")),
            (b"", other("")),
        ];
        for (field, want) in cases {
            assert_eq!(
                parse_client(field),
                *want,
                "{}",
                String::from_utf8_lossy(field)
            );
        }
    }

    #[test]
    fn host_names() {
        let label = "a".repeat(63);
        let name = [label.as_str(); 4].join(".")[..253].to_string();
        let long_label = "a".repeat(64);
        let long_name = ["a"; 128].join(".");
        let cases: &[(&str, bool)] = &[
            (&label, true),
            (&name, true),
            // Past DNS's lengths: from no reverse lookup.
            (&long_label, false),
            (&long_name, false),
            ("seznam.cz", true),
            ("seznam.cz.", true),
            ("_dmarc.example.com", true),
            ("a-b.c", true),
            // DNS's rules for labels are not the log's.
            ("a.b-", true),
            ("-x1.evil.example", true),
            (".", false),
            ("a..b", false),
            ("", false),
            ("a b.c", false),
            ("a:b.c", false),
            ("\u{e9}vil.cz", false),
            ("1.2.3.256", false),
            ("a.2026-11-29", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_logged_name(text), *want, "{text}");
        }
    }

    proptest::proptest! {
        /// Every client field the log reader takes that holds no address
        /// and a name of two labels or more gives that name: a line read
        /// is never a claim whose name goes unseen.
        #[test]
        fn names_the_reader_takes_are_names(text in "[a-z0-9._-]{1,24}") {
            let field = text.as_bytes();
            if crate::accesslog::fields::is_client(field) && client_address(field).is_none() {
                let two_labels = text.trim_end_matches('.').contains('.');
                proptest::prop_assert_eq!(
                    matches!(parse_client(field), Client::Name(_)),
                    two_labels,
                    "{}",
                    text
                );
            }
        }
    }

    /// `parse_address` as it was written on the standard parser alone.
    fn parse_address_by_std(text: &str) -> Option<IpAddr> {
        let text = text.trim();
        let text = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if let Ok(addr) = text.parse::<IpAddr>() {
            return Some(addr.to_canonical());
        }
        let (bare, _zone) = text.split_once('%')?;
        bare.parse::<std::net::Ipv6Addr>()
            .ok()
            .map(|a| IpAddr::V6(a).to_canonical())
    }

    proptest::proptest! {
        #[test]
        fn addresses_read_as_the_standard_parser_does(
            text in "[ \\[]?[0-9a-fA-F:.%]{0,40}[\\] ]?[a-z0-9]{0,3}"
        ) {
            proptest::prop_assert_eq!(parse_address(&text), parse_address_by_std(&text));
        }

        #[test]
        fn written_addresses_read_as_the_standard_parser_does(
            groups in proptest::prelude::any::<[u16; 8]>(),
            bracketed in proptest::prelude::any::<bool>(),
            zone in "(%[a-z0-9]{1,4})?",
        ) {
            let address = std::net::Ipv6Addr::from(groups).to_string();
            let text = if bracketed {
                format!("[{address}{zone}]")
            } else {
                format!("{address}{zone}")
            };
            proptest::prop_assert_eq!(parse_address(&text), parse_address_by_std(&text));
            proptest::prop_assert!(parse_address(&text).is_some());
        }
    }

    proptest::proptest! {
        #[test]
        fn plain_ipv4_reads_as_the_standard_parser_does(
            text in "[0-9.]{0,17}|([0-9]{1,4}\\.){3}[0-9]{1,4}"
        ) {
            proptest::prop_assert_eq!(
                super::plain_ipv4(text.as_bytes()),
                text.parse::<std::net::Ipv4Addr>().ok()
            );
        }

        #[test]
        fn client_address_reads_as_parse_client_does(
            field in proptest::collection::vec(
                proptest::sample::select(b"0123456789abcdefABCDEFxz.:%[] -\xff".to_vec()),
                0..42,
            )
        ) {
            let want = match parse_client(&field) {
                Client::Addr(addr) => Some(addr),
                _ => None,
            };
            proptest::prop_assert_eq!(client_address(&field), want);
        }

        #[test]
        fn client_address_reads_written_addresses(
            groups in proptest::prelude::any::<[u16; 8]>(),
            v4 in proptest::prelude::any::<u32>(),
            form in 0usize..4,
        ) {
            let field = match form {
                0 => std::net::Ipv6Addr::from(groups).to_string(),
                1 => format!("[{}]:443", std::net::Ipv6Addr::from(groups)),
                2 => std::net::Ipv4Addr::from(v4).to_string(),
                _ => std::net::Ipv4Addr::from(v4).to_ipv6_mapped().to_string(),
            };
            let want = match parse_client(field.as_bytes()) {
                Client::Addr(addr) => Some(addr),
                _ => None,
            };
            proptest::prop_assert!(want.is_some());
            proptest::prop_assert_eq!(client_address(field.as_bytes()), want);
        }
    }

    #[test]
    fn the_plain_ipv4_path_reads_as_the_standard_parser_does() {
        let cases = [
            "1.2.3.4",
            "0.0.0.0",
            "255.255.255.255",
            "256.1.1.1",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.5",
            "1..3.4",
            "1.2.3.4 ",
            "",
            "1.2.3.-4",
            "99.099.1.1",
            "1.2.3.0",
            "1000.1.1.1",
            "a.b.c.d",
            "1.2.3.4:80",
        ];
        for case in cases {
            let fast = super::plain_ipv4(case.as_bytes());
            let slow = case.parse::<std::net::Ipv4Addr>().ok();
            assert_eq!(fast, slow, "{case:?}");
        }
    }
}
