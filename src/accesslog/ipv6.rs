//! IPv6 addresses read straight from a log's bytes (SPEC §1 "Addresses may
//! be IPv4, IPv6 or a host name"): takes the bytes of a client field, gives
//! the `Ipv6Addr` they spell, exactly as the standard library's parser
//! reads them, without its `&str` conversion and character-by-character
//! state machine. About one client in six is IPv6 on a Czech site, and
//! every line's client is checked (`fields::is_client`) and, with a PTR map,
//! read as an address: the standard parser was a tenth of the scan.
//!
//! The common spelling — hex groups of one to four digits, single `:`
//! between them, at most one `::` — is read here; a trailing dotted IPv4
//! part (`::ffff:1.2.3.4`) is rare in logs and handed to the standard
//! parser. The property tests hold both against each other.

use std::net::Ipv6Addr;

/// The value of a hex digit, or 16 for any other byte.
const fn hex_values() -> [u8; 256] {
    let mut table = [16u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => 16,
        };
        b += 1;
    }
    table
}

static HEX: [u8; 256] = hex_values();

/// Reads `text` as a whole IPv6 address (no brackets, no zone), as
/// `text.parse::<Ipv6Addr>()` would. One pass over the bytes: a `.` hands
/// the whole text to the standard parser (an embedded IPv4 part), anything
/// else that is neither a hex digit nor a `:` ends the reading.
#[inline]
pub fn parse_ipv6(text: &[u8]) -> Option<Ipv6Addr> {
    let mut groups = [0u16; 8];
    let mut count = 0;
    // Where `::` stands, as a count of the groups before it.
    let mut gap: Option<usize> = None;
    let mut at = 0;
    if text.starts_with(b"::") {
        gap = Some(0);
        at = 2;
    }
    // The group being read: its value and digits so far.
    let mut value = 0u16;
    let mut digits = 0;
    while let Some(&byte) = text.get(at) {
        let digit = HEX[usize::from(byte)];
        at += 1;
        if digit < 16 {
            // A fifth digit makes the group unreadable, embedded IPv4
            // part or not.
            if digits == 4 {
                return None;
            }
            value = value << 4 | u16::from(digit);
            digits += 1;
            continue;
        }
        if byte == b'.' {
            // An embedded IPv4 part: the standard parser's grammar for it
            // (where it may stand, octets without leading zeros) is theirs.
            return std::str::from_utf8(text).ok()?.parse().ok();
        }
        if byte != b':' || digits == 0 || count == 8 {
            return None;
        }
        groups[count] = value;
        count += 1;
        value = 0;
        digits = 0;
        match text.get(at) {
            Some(b':') => {
                if gap.is_some() {
                    return None;
                }
                gap = Some(count);
                at += 1;
            }
            // A single trailing `:`.
            None => return None,
            Some(_) => {}
        }
    }
    // The last group; a text that ends in `::` has none, and one that
    // ends in a single `:` was refused above.
    if digits > 0 {
        if count == 8 {
            return None;
        }
        groups[count] = value;
        count += 1;
    }
    match gap {
        None if count == 8 => Some(Ipv6Addr::from(groups)),
        None => None,
        // `::` stands for at least one group of zeros.
        Some(_) if count > 7 => None,
        Some(before) => {
            let mut address = [0u16; 8];
            address[..before].copy_from_slice(&groups[..before]);
            let after = count - before;
            address[8 - after..].copy_from_slice(&groups[before..count]);
            Some(Ipv6Addr::from(address))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn std_reading(text: &[u8]) -> Option<Ipv6Addr> {
        std::str::from_utf8(text).ok()?.parse().ok()
    }

    #[test]
    fn reads_as_the_standard_parser() {
        let cases: &[&str] = &[
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8::",
            "::1:2:3:4:5:6:7:8",
            "2a02:598:a::78:90",
            "2A02:0598:000A::0078:0090",
            "fe80::1",
            "::ffff:77.75.77.123",
            "::ffff:077.75.77.123",
            "1:2:3:4:5:6:1.2.3.4",
            "1.2.3.4",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            ":::",
            ":1::",
            "1:",
            ":1",
            "12345::",
            "1:2",
            "",
            ":",
            "g::",
            "1::2:",
            "::1 ",
            " ::1",
            "[::1]",
            "::1%eth0",
        ];
        for text in cases {
            assert_eq!(
                parse_ipv6(text.as_bytes()),
                std_reading(text.as_bytes()),
                "{text:?}"
            );
        }
    }

    /// Text of the bytes addresses are made of, and a few that are not.
    fn address_like() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            8 => prop::sample::select(b"0123456789abcdefABCDEF".to_vec()),
            4 => Just(b':'),
            1 => Just(b'.'),
            1 => prop::sample::select(b"g% []-_\xff".to_vec()),
        ];
        prop::collection::vec(byte, 0..48)
    }

    /// Well-formed addresses, written every way they may be.
    fn written_addresses() -> impl Strategy<Value = Vec<u8>> {
        (any::<[u16; 8]>(), 0usize..4, any::<bool>()).prop_map(|(groups, style, upper)| {
            let address = Ipv6Addr::from(groups);
            let text = match style {
                0 => address.to_string(),
                1 => format!(
                    "{:x}:{:x}:{:x}:{:x}:{:x}:{:x}:{:x}:{:x}",
                    groups[0],
                    groups[1],
                    groups[2],
                    groups[3],
                    groups[4],
                    groups[5],
                    groups[6],
                    groups[7]
                ),
                2 => format!(
                    "{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}",
                    groups[0],
                    groups[1],
                    groups[2],
                    groups[3],
                    groups[4],
                    groups[5],
                    groups[6],
                    groups[7]
                ),
                _ => {
                    let v4 =
                        std::net::Ipv4Addr::from(u32::from(groups[6]) << 16 | u32::from(groups[7]));
                    format!("::ffff:{v4}")
                }
            };
            let text = if upper { text.to_uppercase() } else { text };
            text.into_bytes()
        })
    }

    proptest! {
        #[test]
        fn any_bytes_read_as_the_standard_parser(text in address_like()) {
            prop_assert_eq!(parse_ipv6(&text), std_reading(&text));
        }

        #[test]
        fn written_addresses_read_back(text in written_addresses()) {
            let read = parse_ipv6(&text);
            prop_assert!(read.is_some());
            prop_assert_eq!(read, std_reading(&text));
        }

        #[test]
        fn groups_and_gaps_read_as_the_standard_parser(
            groups in prop::collection::vec("[0-9a-fA-F]{0,5}", 0..10),
            gap in any::<prop::sample::Index>(),
            with_gap in any::<bool>(),
        ) {
            let mut parts: Vec<String> = groups.clone();
            if with_gap {
                let at = gap.index(parts.len() + 1);
                parts.insert(at, String::new());
            }
            let text = parts.join(":");
            prop_assert_eq!(parse_ipv6(text.as_bytes()), std_reading(text.as_bytes()), "{}", text);
        }
    }
}
