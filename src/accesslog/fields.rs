//! What a field's value may hold: takes the raw value of a client or
//! virtual-host field and says whether it can be one (SPEC §1 "A field's
//! value is checked against what it must be"). A line whose client is
//! `www.example.cz:443`, `"GET` or `[10/Oct/2000:13:55:36` was cut in the
//! wrong places; checking the value is what keeps such a line from being
//! read with its fields shifted, and what tells formats apart when `auto`
//! chooses one.

use super::{byte_steps, ipv6};

/// Bytes of a host name or an IPv4 address, `-` (no address), and `_`
/// (which some resolvers hand out). Everything else — blanks, quotes,
/// brackets, `/`, `:` — cannot stand in a client written without port.
const fn host_bytes() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'.' || c == b'-' || c == b'_';
        b += 1;
    }
    table
}

static HOST_BYTES: [bool; 256] = host_bytes();

/// True when `value` may be a client: an IPv4 or IPv6 address (bracketed or
/// with a zone), a host name, or a single word (`unknown`, `-`). A port is
/// not part of a client: `1.2.3.4:80` and `host:443` are not clients.
#[inline]
pub fn is_client(value: &[u8]) -> bool {
    // Most clients are IPv4 addresses: one pass says so, where the search
    // for the end of the host bytes and the look at the last label would
    // take two more (a JSON line's client comes here whole).
    if is_ipv4(value) {
        return true;
    }
    // nginx's `$remote_addr` of a connection over a unix socket: a word
    // that names no host, as `unknown` (SPEC §2), read so that a proxy in
    // front of it (`--trusted-proxy unix:`) can name the client.
    if value == super::proxy::UNIX_SOCKET {
        return true;
    }
    if host_bytes_end(value, 0) == value.len() {
        return is_plain_client(value);
    }
    // Only an IPv6 address may hold `:`; it is rare enough in logs that
    // the full parse is cheap overall.
    is_ipv6(value)
}

/// True when `value` is a client nginx's `$remote_addr` may write: an
/// IPv4 or IPv6 address, or `unix:` for a unix socket's peer; no host
/// name.
pub fn is_address_client(value: &[u8]) -> bool {
    is_ipv4(value) || value == super::proxy::UNIX_SOCKET || is_ipv6(value)
}

/// True when `value`, all host bytes, may be a client: a name whose last
/// label holds only digits and dashes is an IPv4 address or nothing (no
/// top-level domain is numeric), so a date (`2026-11-29`), `1.2.3` or
/// `077.075.077.123` is no client (SPEC §1); nor is a name with an empty
/// label (`.`, `a..b`), which DNS cannot carry. One dot may end a name
/// (`host.example.`), and the label before it is then the last
/// (`2026-11-29.` is a date still). A label may start with `-`: a PTR
/// name is the attacker's to choose, and a line skipped for it would hide
/// an impostor.
#[inline]
pub fn is_plain_client(value: &[u8]) -> bool {
    // Most clients are IPv4 addresses: said so at once.
    if is_ipv4(value) {
        return true;
    }
    let name = value.strip_suffix(b".").unwrap_or(value);
    // DNS carries no name longer than 253 octets nor a label longer than
    // 63 (RFC 1035 §2.3.4): a longer word is no host name, and read as one
    // it would take memory no client can (SPEC §5).
    if name.len() > 253
        || name
            .split(|&b| b == b'.')
            .any(|label| label.is_empty() || label.len() > 63)
    {
        return false;
    }
    // The last label: numeric (digits and dashes, a digit among them) is
    // an IPv4 address, which it is not, or nothing.
    let last = name.rsplit(|&b| b == b'.').next().unwrap_or_default();
    let numeric = last.iter().any(u8::is_ascii_digit)
        && last.iter().all(|&b| b.is_ascii_digit() || b == b'-');
    !numeric
}

/// An IPv4 address in dotted decimal as servers write it: four numbers of
/// 0 to 255, none with a leading zero. Read by a table, two bytes a step
/// (`byte_steps`), with no branch a byte (a branch on each octet's width
/// is taken wrong at random addresses): every line's client goes through
/// it.
#[inline]
pub(crate) fn is_ipv4(value: &[u8]) -> bool {
    if !(7..=15).contains(&value.len()) {
        return false;
    }
    let state = byte_steps::walk(value, 0, &IPV4_CLASS, CLASSES, &IPV4_STEPS, &IPV4_PAIRS);
    // The last octet's states past its first digit: 3 of 4 octets times
    // the octet's states, plus one (its start).
    state > (3 * OCTET_STATES) as u8 && state != REJECT
}

/// The classes of bytes `is_ipv4` tells apart: `0`, `1`, `2`, `3`–`4`, `5`,
/// `6`–`9`, `.`, anything else.
const CLASSES: usize = 8;
const fn ipv4_class() -> [u8; 256] {
    let mut table = [7u8; 256];
    table[b'0' as usize] = 0;
    table[b'1' as usize] = 1;
    table[b'2' as usize] = 2;
    table[b'3' as usize] = 3;
    table[b'4' as usize] = 3;
    table[b'5' as usize] = 4;
    let mut d = b'6';
    while d <= b'9' {
        table[d as usize] = 5;
        d += 1;
    }
    table[b'.' as usize] = 6;
    table
}
static IPV4_CLASS: [u8; 256] = ipv4_class();

/// The states of one octet: at its start, after `0`, after `1`, after `2`,
/// after `3`–`9`, after `1` and a digit, after `20`–`24`, after `25`, and
/// full (no digit may follow). Octet `k`'s state `s` is `k * 9 + s`;
/// `REJECT` holds for ever.
const OCTET_STATES: usize = 9;
const REJECT: u8 = (4 * OCTET_STATES) as u8;
const fn ipv4_steps() -> [u8; (4 * OCTET_STATES + 1) * CLASSES] {
    const START: usize = 0;
    const ZERO: usize = 1;
    const ONE: usize = 2;
    const TWO: usize = 3;
    const BIG: usize = 4;
    const ONE_DIGIT: usize = 5;
    const TWO_LOW: usize = 6;
    const TWO_FIVE: usize = 7;
    const FULL: usize = 8;
    const LEN: usize = (4 * OCTET_STATES + 1) * CLASSES;
    const fn set(table: &mut [u8; LEN], base: usize, state: usize, class: usize, next: usize) {
        table[(base + state) * CLASSES + class] = (base + next) as u8;
    }
    let mut table = [REJECT; LEN];
    let mut octet = 0;
    while octet < 4 {
        let base = octet * OCTET_STATES;
        // The first digit.
        set(&mut table, base, START, 0, ZERO);
        set(&mut table, base, START, 1, ONE);
        set(&mut table, base, START, 2, TWO);
        set(&mut table, base, START, 3, BIG);
        set(&mut table, base, START, 4, BIG);
        set(&mut table, base, START, 5, BIG);
        // The second: after `1` any, after `2` by what may follow, after
        // `3`–`9` any, and nothing after that; after `0` none.
        let mut class = 0;
        while class < 6 {
            set(&mut table, base, ONE, class, ONE_DIGIT);
            set(&mut table, base, BIG, class, FULL);
            set(&mut table, base, ONE_DIGIT, class, FULL);
            set(&mut table, base, TWO_LOW, class, FULL);
            set(
                &mut table,
                base,
                TWO,
                class,
                if class <= 3 {
                    TWO_LOW
                } else if class == 4 {
                    TWO_FIVE
                } else {
                    FULL
                },
            );
            if class <= 4 {
                set(&mut table, base, TWO_FIVE, class, FULL);
            }
            class += 1;
        }
        // A dot after a digit starts the next octet; the fourth has none.
        if octet < 3 {
            let mut state = ZERO;
            while state <= FULL {
                table[(base + state) * CLASSES + 6] = (base + OCTET_STATES) as u8;
                state += 1;
            }
        }
        octet += 1;
    }
    table
}
static IPV4_STEPS: [u8; (4 * OCTET_STATES + 1) * CLASSES] = ipv4_steps();

/// `IPV4_STEPS` two bytes a step (`byte_steps`).
static IPV4_PAIRS: [u8; (4 * OCTET_STATES + 1) * CLASSES * CLASSES] =
    byte_steps::pair_steps(&IPV4_STEPS, CLASSES);

/// Where the bytes of a host name or an IPv4 address that start at `from`
/// end: the first byte at or after it that neither holds, or the end.
#[inline]
pub fn host_bytes_end(text: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(&b) = text.get(at) {
        if !HOST_BYTES[usize::from(b)] {
            break;
        }
        at += 1;
    }
    at
}

/// An IPv6 address as a client field holds it: bare, bracketed, or with a
/// zone (`fe80::1%eth0`).
pub(crate) fn is_ipv6(value: &[u8]) -> bool {
    let text = value
        .strip_prefix(b"[")
        .and_then(|t| t.strip_suffix(b"]"))
        .unwrap_or(value);
    let bare = match memchr::memchr(b'%', text) {
        Some(at) => {
            let zone = &text[at + 1..];
            if zone.is_empty() || !zone.iter().all(|&b| HOST_BYTES[usize::from(b)]) {
                return false;
            }
            &text[..at]
        }
        None => text,
    };
    ipv6::is_ipv6(bare)
}

/// True when `value` is a port number (written after a host's `:`, or
/// Apache's `%p`): one of 0–65535 in at most five digits; not the `-` or
/// nothing nginx's port fields write for a unix socket.
#[inline]
pub fn is_port_number(value: &[u8]) -> bool {
    !matches!(value, b"" | b"-") && is_port(value)
}

/// True when `value` holds a `"` that no backslash escapes (Apache writes
/// `\"`; nginx writes no quote at all, `\x22`).
#[inline]
pub fn has_bare_quote(value: &[u8]) -> bool {
    let mut escaped = false;
    for &b in value {
        match b {
            b'"' if !escaped => return true,
            b'\\' => escaped = !escaped,
            _ => escaped = false,
        }
    }
    false
}

/// True when `value` may be a number a log writes (`Slot::Number`):
/// digits, with a fraction or not (`0.004`), or `-` for none.
#[inline]
pub fn is_number(value: &[u8]) -> bool {
    if value == b"-" {
        return true;
    }
    let (whole, fraction) = match memchr::memchr(b'.', value) {
        Some(dot) => (&value[..dot], Some(&value[dot + 1..])),
        None => (value, None),
    };
    !whole.is_empty()
        && whole.iter().all(u8::is_ascii_digit)
        && fraction.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// True when `value` may be an nginx port (`$remote_port`,
/// `$server_port`): a number of 0–65535 written in at most five digits,
/// or `-` or nothing for none (a unix socket's).
#[inline]
pub fn is_port(value: &[u8]) -> bool {
    match value {
        b"" | b"-" => true,
        digits if digits.len() <= 5 && digits.iter().all(u8::is_ascii_digit) => {
            digits
                .iter()
                .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'))
                <= 65_535
        }
        _ => false,
    }
}

/// True when `value` may be a virtual host: a host name or address, with a
/// port or not (`%{Host}i` keeps the port the client wrote).
#[inline]
pub fn is_host(value: &[u8]) -> bool {
    if value.iter().all(|&b| HOST_BYTES[usize::from(b)]) {
        return true;
    }
    if is_ipv6(value) {
        return true;
    }
    let (host, port) = split_port(value);
    !port.is_empty()
        && port.iter().all(u8::is_ascii_digit)
        && (host.iter().all(|&b| HOST_BYTES[usize::from(b)]) || is_ipv6(host))
}

/// True when `value` may be a name a server writes for itself (Apache's
/// `%v`, nginx's `$server_name`, from its configuration): a host name or
/// an address as a client field may be one (`is_plain_client`: no
/// numeric last label but an IPv4 address's, no empty label), with a port
/// of 0 to 65535 or none, or `-` for none. A value that is none of these
/// (`2026-11-29`, `a..b`, `host:99999`) means the line was cut in the
/// wrong places. A name the client wrote (the Host header, `%V`, `$host`)
/// is not checked so: the client chose it.
pub fn is_server_host(value: &[u8]) -> bool {
    if value == b"-" || is_ipv6(value) {
        return true;
    }
    let (host, port) = split_port(value);
    if host.len() < value.len() && !is_port_number(port) {
        return false;
    }
    match host {
        [b'[', inner @ .., b']'] => is_ipv6(inner),
        host => !host.is_empty() && host_bytes_end(host, 0) == host.len() && is_plain_client(host),
    }
}

/// Where the `:` before a port may be looked for in a host that starts at
/// `start` of `text`: past the `]` of a bracketed IPv6 address, whose own
/// `:`s end nothing (`[2001:db8::1]:443`); else at `start`.
#[inline]
pub fn port_colon_from(text: &[u8], start: usize) -> usize {
    match text.get(start) {
        Some(b'[') => memchr::memchr(b']', &text[start..]).map_or(start, |close| start + close + 1),
        _ => start,
    }
}

/// `1.2.3.4:80` → (`1.2.3.4`, `80`); `[::1]:80` → (`[::1]`, `80`); a value
/// without a port (an IPv6 address without brackets included) is all host.
pub fn split_port(value: &[u8]) -> (&[u8], &[u8]) {
    if value.first() == Some(&b'[') {
        if let Some(close) = memchr::memchr(b']', value)
            && value.get(close + 1) == Some(&b':')
        {
            return (&value[..=close], &value[close + 2..]);
        }
        return (value, &[]);
    }
    match memchr::memchr(b':', value) {
        Some(at) if memchr::memrchr(b':', value) == Some(at) => (&value[..at], &value[at + 1..]),
        _ => (value, &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients() {
        let good: &[&str] = &[
            "1.2.3.4",
            "2a02:598:a::78:90",
            "[2a02:598::1]",
            "fe80::1%eth0",
            "::ffff:77.75.77.123",
            "fulltextrobot-77-75-77-123.seznam.cz",
            "unknown",
            "-",
            "unix:",
            "0.0.0.0",
            "255.255.255.255",
            "199.250.249.10",
            "10.0.0.100",
            "host-1",
            "a1.example.cz",
            "crawl-66-249-66-1.googlebot.com",
            "fulltextrobot-77-75-77-123.seznam.cz.",
            "_gateway",
            "-x1.evil.example",
            "--",
        ];
        // DNS's longest label and name.
        let label = "a".repeat(63);
        let longest = format!("{label}.{label}.{label}.{}", "b".repeat(61));
        assert_eq!(longest.len(), 253);
        for value in good
            .iter()
            .copied()
            .chain([label.as_str(), longest.as_str()])
        {
            assert!(is_client(value.as_bytes()), "{value}");
            if value.bytes().all(|b| HOST_BYTES[usize::from(b)]) {
                assert!(is_plain_client(value.as_bytes()), "{value}");
            }
        }
        let bad: &[&str] = &[
            "www.example.cz:443",
            "1.2.3.4:80",
            "[::1]:80",
            "\"GET",
            "[10/Oct/2000:13:55:36",
            "a b",
            "cafe.de:443",
            "fe80::1%",
            "{\"level\":",
            "2026-11-29",
            "1.2.3",
            "077.075.077.123",
            "1.2.3.256",
            "256.2.3.4",
            "1.260.3.4",
            "1.2.3.1000",
            "1.02.3.4",
            "1.2.3.4.5",
            ".1.2.3.4",
            // Past DNS's lengths: a label of 64, a name of 254.
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.\
             aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.\
             aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.\
             bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
            "1..2.3",
            "host.123",
            "unix:/run/nginx.sock",
            "2026-11-29.",
            "1.2.3.4.",
            ".",
            "..",
            "x..y",
            "host.example..",
            "",
        ];
        for value in bad {
            assert!(!is_client(value.as_bytes()), "{value}");
            if value.bytes().all(|b| HOST_BYTES[usize::from(b)]) {
                assert!(!is_plain_client(value.as_bytes()), "{value}");
            }
        }
    }

    /// `is_client` as it was written on the standard IPv6 parser.
    fn is_client_by_std(value: &[u8]) -> bool {
        if value == b"unix:" {
            return true;
        }
        if value.iter().all(|&b| HOST_BYTES[usize::from(b)]) {
            let text = String::from_utf8_lossy(value);
            // One dot may end a name; no label is empty; DNS's lengths.
            let name = text.strip_suffix('.').unwrap_or(&text);
            if name.split('.').any(|l| l.is_empty() || l.len() > 63) || name.len() > 253 {
                return false;
            }
            let last = name.rsplit('.').next().unwrap_or_default();
            let numeric = last.chars().any(|c| c.is_ascii_digit())
                && last.chars().all(|c| c.is_ascii_digit() || c == '-');
            return !numeric || text.parse::<std::net::Ipv4Addr>().is_ok();
        }
        let Ok(text) = std::str::from_utf8(value) else {
            return false;
        };
        let text = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        let bare = match text.split_once('%') {
            Some((bare, zone))
                if !zone.is_empty() && zone.bytes().all(|b| HOST_BYTES[usize::from(b)]) =>
            {
                bare
            }
            Some(_) => return false,
            None => text,
        };
        bare.parse::<std::net::Ipv6Addr>().is_ok()
    }

    proptest::proptest! {
        #[test]
        fn clients_read_as_by_the_standard_parser(
            value in proptest::collection::vec(
                proptest::sample::select(b"0123456789abcdefABCDEF:::.%[]-_xz \xff".to_vec()),
                0..40,
            )
        ) {
            proptest::prop_assert_eq!(is_client(&value), is_client_by_std(&value));
        }

        /// Dotted numbers of every width, leading zeros and all, with a
        /// part more or less: read as the standard parser reads them.
        #[test]
        fn dotted_numbers_read_as_by_the_standard_parser(
            parts in proptest::collection::vec("0{0,2}[0-9]{0,4}", 2..6),
            tail in "[a-z.]{0,2}",
        ) {
            let value = format!("{}{tail}", parts.join("."));
            proptest::prop_assert_eq!(is_client(value.as_bytes()), is_client_by_std(value.as_bytes()));
            if value.bytes().all(|b| HOST_BYTES[usize::from(b)]) && !value.is_empty() {
                proptest::prop_assert_eq!(
                    is_plain_client(value.as_bytes()),
                    is_client_by_std(value.as_bytes())
                );
            }
        }

        #[test]
        fn written_clients_read_as_by_the_standard_parser(
            groups in proptest::prelude::any::<[u16; 8]>(),
            form in "\\[?%?[a-z0-9]{0,3}\\]?",
        ) {
            let address = std::net::Ipv6Addr::from(groups).to_string();
            let value = match form.strip_prefix('[') {
                Some(rest) => format!("[{address}{rest}"),
                None => format!("{address}{form}"),
            };
            proptest::prop_assert_eq!(
                is_client(value.as_bytes()),
                is_client_by_std(value.as_bytes())
            );
        }
    }

    #[test]
    fn ipv4_addresses_read_as_by_the_standard_parser() {
        // Every octet at each edge of the table's states, in each of the
        // four places, and one part more or less.
        let octets = [
            "", "0", "00", "01", "1", "9", "10", "19", "99", "100", "199", "200", "209", "249",
            "250", "255", "256", "259", "260", "299", "300", "999", "1000", "a", "1a",
        ];
        let by_std = |value: &str| value.parse::<std::net::Ipv4Addr>().is_ok();
        for a in octets {
            for b in octets {
                for c in octets {
                    for d in octets {
                        let value = format!("{a}.{b}.{c}.{d}");
                        assert_eq!(is_ipv4(value.as_bytes()), by_std(&value), "{value}");
                    }
                }
                for value in [
                    format!("{a}.{b}"),
                    format!("1.2.3.{a}.{b}"),
                    format!("{a}.1.1.1{b}"),
                ] {
                    assert_eq!(is_ipv4(value.as_bytes()), by_std(&value), "{value}");
                }
            }
        }
    }

    #[test]
    fn hosts() {
        for value in ["www.example.cz", "example.cz:8080", "[::1]:443", "::1"] {
            assert!(is_host(value.as_bytes()), "{value}");
        }
        for value in ["1.2.3.4 - - [10/Oct/2000", "a:b", "\"x\"", "host:"] {
            assert!(!is_host(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn server_hosts() {
        for value in [
            "www.example.cz",
            "WWW.Example.CZ.",
            "example.cz:8080",
            "1.2.3.4:80",
            "[::1]:443",
            "[2001:db8::1]",
            "::1",
            "_",
            "localhost",
            "-",
        ] {
            assert!(is_server_host(value.as_bytes()), "{value}");
        }
        for value in [
            "2026-11-29",
            "2026-11-29:443",
            "a..b",
            ".",
            ".:80",
            "1.2.3.256",
            "1.2.3",
            "www.example.cz:99999",
            "host:",
            "a:b",
            "evil!.cz",
            "[::1",
            "[x]:80",
            "",
        ] {
            assert!(!is_server_host(value.as_bytes()), "{value}");
        }
    }

    #[test]
    fn ports() {
        let cases: &[(&str, &str, &str)] = &[
            ("1.2.3.4:80", "1.2.3.4", "80"),
            ("[::1]:80", "[::1]", "80"),
            ("::1", "::1", ""),
            ("[::1]", "[::1]", ""),
            ("host", "host", ""),
        ];
        for &(value, host, port) in cases {
            let (h, p) = split_port(value.as_bytes());
            assert_eq!((h, p), (host.as_bytes(), port.as_bytes()), "{value}");
        }
    }

    #[test]
    fn bare_quotes_and_numbers() {
        for (value, bare) in [
            (&br#"a"b"#[..], true),
            (br#""-""#, true),
            (br#"a\"b"#, false),
            (br#"a\\"b"#, true),
            (br#"a\\\"b"#, false),
            (br"a\x22b", false),
            (b"", false),
        ] {
            assert_eq!(
                has_bare_quote(value),
                bare,
                "{}",
                String::from_utf8_lossy(value)
            );
        }
        for (value, number) in [
            (&b"0"[..], true),
            (b"1234", true),
            (b"-", true),
            (b"0.004", true),
            (b"", false),
            (b".5", false),
            (b"5.", false),
            (b"1.2.3", false),
            (b"\"-\"", false),
            (b"6.6.6.6", false),
            (b"12a4", false),
            (b"--", false),
        ] {
            assert_eq!(
                is_number(value),
                number,
                "{}",
                String::from_utf8_lossy(value)
            );
        }
    }
}
