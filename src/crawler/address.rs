//! How addresses and host names are spelled in logs and PTR maps (SPEC §1:
//! "Addresses may be IPv4, IPv6 or a host name"; addresses compared as
//! addresses). Takes the bytes of a client field; gives a `Client`.

use std::net::{IpAddr, Ipv6Addr};

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
    if is_host_name(text) && text.trim_end_matches('.').contains('.') {
        return Client::Name(text.to_string());
    }
    Client::Other(text.to_string())
}

/// A dotted-quad IPv4 address and nothing else, read straight from the
/// bytes as the standard parser reads it (four decimal octets up to 255,
/// no leading zeros); `None` for anything else, which the general path
/// then reads.
fn plain_ipv4(field: &[u8]) -> Option<std::net::Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = field.split(|&b| b == b'.');
    for octet in &mut octets {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 3 || (part.len() > 1 && part[0] == b'0') {
            return None;
        }
        let mut value: u16 = 0;
        for &b in part {
            if !b.is_ascii_digit() {
                return None;
            }
            value = value * 10 + u16::from(b - b'0');
        }
        *octet = u8::try_from(value).ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(std::net::Ipv4Addr::from(octets))
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
    if let Ok(addr) = text.parse::<IpAddr>() {
        return Some(addr.to_canonical());
    }
    // A zone names the link the address was seen on, not another address.
    let (bare, _zone) = text.split_once('%')?;
    bare.parse::<Ipv6Addr>()
        .ok()
        .map(|a| IpAddr::V6(a).to_canonical())
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

/// True for a syntactically valid DNS host name: labels of letters, digits,
/// `-` and `_` (1–63 characters, not starting or ending with `-`), at most
/// 253 characters, one trailing dot allowed, and a last label that is not
/// all digits (so a broken IPv4 address is not taken for a name).
pub fn is_host_name(text: &str) -> bool {
    let name = text.strip_suffix('.').unwrap_or(text);
    if name.is_empty() || name.len() > 253 {
        return false;
    }
    let labels_ok = name.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    labels_ok
        && name
            .rsplit('.')
            .next()
            .is_some_and(|last| !last.bytes().all(|b| b.is_ascii_digit()))
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
            (b"-a.b", other("-a.b")),
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
        let long_label = "a".repeat(64);
        let long_name = ["a"; 128].join(".");
        let cases: &[(&str, bool)] = &[
            ("seznam.cz", true),
            ("seznam.cz.", true),
            ("_dmarc.example.com", true),
            ("a-b.c", true),
            ("a.b-", false),
            (".", false),
            ("a..b", false),
            (&long_label, false),
            (&long_name, false),
            ("10.0.0.1", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_host_name(text), *want, "{text}");
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
