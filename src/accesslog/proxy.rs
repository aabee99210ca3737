//! The client behind trusted proxies: takes the `--trusted-proxy` networks
//! and a line's connecting address and forwarded-for chain, and gives the
//! address the audit takes for the client (SPEC §1 "Client address").
//!
//! The chain is walked from the right, the connecting address last: the
//! first address that is not a trusted proxy is the client; when every one
//! is trusted, the left-most. Ports and brackets are dropped
//! (`[2001:db8::1]:443`). An entry that is no address (`unknown`, a host
//! name, an RFC 7239 `_hidden` token) ends the walk: the client is then
//! unknown, and never that text, which anyone could have written to look
//! like a crawler's host name. Without trusted proxies, or when the
//! connecting address is not one, the chain is ignored: anyone can write it.
//! A connection over a unix socket, which nginx logs as the client `unix:`
//! (a local proxy in front of it), is trusted when `--trusted-proxy unix:`
//! says so.

use std::net::IpAddr;

use ipnet::IpNet;

/// What the client field says when the walk ends at an entry that is no
/// address: a single word, which the audit reads as "nothing is known of
/// the address" (SPEC §2).
pub const UNKNOWN: &[u8] = b"unknown";

/// The `--trusted-proxy` networks. Empty: forwarded-for fields are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
    /// `--trusted-proxy unix:`: connections over a unix socket.
    unix: bool,
}

/// What nginx's `$remote_addr` holds for a connection over a unix socket.
pub const UNIX_SOCKET: &[u8] = b"unix:";

impl TrustedProxies {
    /// Reads each value as a network (`203.0.113.0/24`, `2001:db8::/32`)
    /// or a single address. The error names the value that is neither.
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<TrustedProxies, String> {
        let mut nets = Vec::with_capacity(values.len());
        let mut unix = false;
        for value in values {
            let value = value.as_ref().trim();
            if value.as_bytes() == UNIX_SOCKET {
                unix = true;
                continue;
            }
            let net = match value.parse::<IpNet>() {
                Ok(net) => net,
                Err(_) => match value.parse::<IpAddr>() {
                    Ok(addr) => IpNet::from(addr.to_canonical()),
                    Err(_) => {
                        return Err(format!(
                            "expected a network such as 203.0.113.0/24, an address or unix:, \
                             got {value:?}"
                        ));
                    }
                },
            };
            nets.push(canonical(net.trunc()));
        }
        Ok(TrustedProxies { nets, unix })
    }

    /// True when no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.nets.is_empty() && !self.unix
    }

    /// True when `addr` is inside a trusted network (an IPv4-mapped IPv6
    /// address counts as its IPv4 address).
    pub fn trusts(&self, addr: IpAddr) -> bool {
        let addr = addr.to_canonical();
        self.nets.iter().any(|net| net.contains(&addr))
    }

    /// The client of a line: `connecting` as logged, unless it is a trusted
    /// proxy and `forwarded_for` (the raw chain, `a, b, c`) says more.
    #[inline]
    pub fn client<'a>(&self, connecting: &'a [u8], forwarded_for: Option<&'a [u8]>) -> &'a [u8] {
        if self.is_empty() {
            return connecting;
        }
        self.client_behind(connecting, forwarded_for)
    }

    /// `client` when some proxy is trusted.
    fn client_behind<'a>(&self, connecting: &'a [u8], forwarded_for: Option<&'a [u8]>) -> &'a [u8] {
        let Some(chain) = forwarded_for else {
            return connecting;
        };
        let trusted = match address(connecting) {
            Some((addr, _)) => self.trusts(addr),
            None => self.unix && connecting == UNIX_SOCKET,
        };
        if !trusted {
            return connecting;
        }
        let mut leftmost = connecting;
        for entry in chain.rsplit(|&b| b == b',') {
            let entry = bare(entry);
            if entry.is_empty() {
                continue;
            }
            match address(entry) {
                Some((addr, text)) if self.trusts(addr) => leftmost = text,
                Some((_, text)) => return text,
                None => return UNKNOWN,
            }
        }
        leftmost
    }
}

/// A forwarded-for entry without what surrounds it in the logs that write
/// chains: blanks, the quotes of a JSON array of header lines (Caddy logs
/// `["a", "b"]`), IIS's `+` and CloudFront's `%20` for a blank (W3C).
fn bare(mut entry: &[u8]) -> &[u8] {
    loop {
        let before = entry.len();
        entry = entry.trim_ascii();
        while let [b'"' | b'+', rest @ ..] = entry {
            entry = rest;
        }
        while let [rest @ .., b'"' | b'+'] = entry {
            entry = rest;
        }
        if let Some(rest) = entry.strip_prefix(b"%20") {
            entry = rest;
        }
        if let Some(rest) = entry.strip_suffix(b"%20") {
            entry = rest;
        }
        if entry.len() == before {
            return entry;
        }
    }
}

/// An IPv4-mapped IPv6 network (`::ffff:192.0.2.0/120`) as the IPv4
/// network it maps, since addresses are compared in their canonical form.
fn canonical(net: IpNet) -> IpNet {
    match net {
        IpNet::V6(v6) if v6.prefix_len() >= 96 => match v6.network().to_ipv4_mapped() {
            Some(v4) => ipnet::Ipv4Net::new(v4, v6.prefix_len() - 96).map_or(net, IpNet::V4),
            None => net,
        },
        _ => net,
    }
}

/// An address of a forwarded-for entry, without brackets or port, and the
/// text that spells it: `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`,
/// `[2001:db8::1]`, `[2001:db8::1]:443`.
fn address(entry: &[u8]) -> Option<(IpAddr, &[u8])> {
    let text = if let Some(inner) = entry.strip_prefix(b"[") {
        let close = memchr::memchr(b']', inner)?;
        let rest = &inner[close + 1..];
        if !(rest.is_empty() || is_port(rest)) {
            return None;
        }
        &inner[..close]
    } else if let Ok(addr) = parse(entry) {
        return Some((addr, entry));
    } else {
        // `a.b.c.d:port`: only IPv4 takes a port without brackets.
        let colon = memchr::memrchr(b':', entry)?;
        if !is_port(&entry[colon..]) || entry[..colon].contains(&b':') {
            return None;
        }
        &entry[..colon]
    };
    let addr = parse(text).ok()?;
    Some((addr, text))
}

fn parse(text: &[u8]) -> Result<IpAddr, ()> {
    std::str::from_utf8(text)
        .map_err(|_| ())?
        .parse::<IpAddr>()
        .map_err(|_| ())
}

/// `:` and one to five digits.
fn is_port(s: &[u8]) -> bool {
    matches!(s, [b':', digits @ ..] if (1..=5).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_from_the_right() {
        let proxies = TrustedProxies::parse(&[
            "203.0.113.0/24",
            "2001:db8:cd0::/48",
            "10.0.0.1",
            "::ffff:192.0.2.0/120",
        ])
        .unwrap();
        let seznam = "77.75.77.123";
        type Case = (&'static str, Option<&'static str>, &'static str);
        let cases: &[Case] = &[
            // A CDN edge connects; the crawler is the address it forwarded.
            ("203.0.113.5", Some(seznam), seznam),
            // A spoofed-looking left part is skipped: the right-most
            // untrusted address is the client.
            ("203.0.113.5", Some("1.2.3.4, 77.75.77.123"), seznam),
            // Proxies in a row, all trusted but the first.
            ("10.0.0.1", Some("77.75.77.123, 203.0.113.9"), seznam),
            // Every address trusted: the left-most.
            ("10.0.0.1", Some("203.0.113.7 , 203.0.113.9"), "203.0.113.7"),
            // No chain, or an empty one: the connecting address.
            ("203.0.113.5", None, "203.0.113.5"),
            ("203.0.113.5", Some(""), "203.0.113.5"),
            // An untrusted connecting address: the chain is anyone's.
            ("198.51.100.1", Some(seznam), "198.51.100.1"),
            // A host name logged for the client is never a trusted proxy.
            ("cdn.example", Some(seznam), "cdn.example"),
            // `unknown`, a host name or an obfuscated token ends the walk.
            ("203.0.113.5", Some("77.75.77.123, unknown"), "unknown"),
            (
                "203.0.113.5",
                Some("fulltextrobot-77-75-77-123.seznam.cz"),
                "unknown",
            ),
            ("203.0.113.5", Some("_hidden, 203.0.113.9"), "unknown"),
            // Left of an untrusted address nothing more is believed.
            ("203.0.113.5", Some("unknown, 77.75.77.123"), seznam),
            // Ports and brackets dropped.
            ("203.0.113.5", Some("77.75.77.123:51234"), seznam),
            (
                "2001:db8:cd0::1",
                Some("[2a02:598:a::78:90]:443"),
                "2a02:598:a::78:90",
            ),
            (
                "2001:db8:cd0::1",
                Some("[2a02:598:a::78:90]"),
                "2a02:598:a::78:90",
            ),
            (
                "2001:db8:cd0::1",
                Some("2a02:598:a::78:90"),
                "2a02:598:a::78:90",
            ),
            (
                "2001:db8:cd0::1",
                Some("2a02:598:a::78:90, [2001:db8:cd0::7]:8080"),
                "2a02:598:a::78:90",
            ),
            // A bracketed address with junk after it is no address.
            ("2001:db8:cd0::1", Some("[2a02:598:a::78:90]x"), "unknown"),
            ("2001:db8:cd0::1", Some("[2a02:598:a::78:90"), "unknown"),
            // IPv4 written as IPv6 is trusted by its IPv4 network.
            ("::ffff:192.0.2.9", Some(seznam), seznam),
            ("192.0.2.9", Some(seznam), seznam),
        ];
        // A unix socket is no network: trusted only when named.
        assert_eq!(proxies.client(b"unix:", Some(seznam.as_bytes())), b"unix:");
        let local = TrustedProxies::parse(&["unix:"]).unwrap();
        assert!(!local.is_empty());
        assert_eq!(
            local.client(b"unix:", Some(seznam.as_bytes())),
            seznam.as_bytes()
        );
        assert_eq!(local.client(b"unix:", None), b"unix:");
        assert_eq!(
            local.client(b"203.0.113.5", Some(seznam.as_bytes())),
            b"203.0.113.5"
        );
        for &(connecting, chain, expected) in cases {
            let got = proxies.client(connecting.as_bytes(), chain.map(str::as_bytes));
            assert_eq!(
                String::from_utf8_lossy(got),
                expected,
                "{connecting} {chain:?}"
            );
        }
    }

    #[test]
    fn without_trusted_proxies_the_chain_is_ignored() {
        let none = TrustedProxies::default();
        assert!(none.is_empty());
        let got = none.client(b"203.0.113.5", Some(b"77.75.77.123"));
        assert_eq!(got, b"203.0.113.5");
    }

    #[test]
    fn networks_and_addresses() {
        let cases: &[(&str, bool)] = &[
            ("203.0.113.0/24", true),
            ("203.0.113.1/24", true),
            ("2001:db8::/32", true),
            ("10.0.0.1", true),
            ("::1", true),
            ("10.0.0.0/33", false),
            ("cdn.example", false),
            ("", false),
        ];
        for &(value, ok) in cases {
            assert_eq!(TrustedProxies::parse(&[value]).is_ok(), ok, "{value}");
        }
        let err = TrustedProxies::parse(&["cdn.example"]).unwrap_err();
        assert!(err.contains("cdn.example"), "{err}");
    }
}
