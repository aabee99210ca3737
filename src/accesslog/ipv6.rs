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

use super::byte_steps;

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

/// Whether `text` is an IPv6 address, as `parse_ipv6(text).is_some()`
/// says, by a table read straight through the bytes: every client that is
/// not IPv4 is checked (`fields::is_client`), and the reading's branch on
/// digit or colon at each byte is taken wrong at each group's end (about
/// 450 instructions an address). A text that reaches a `.` (an embedded
/// IPv4 part) is left to `parse_ipv6`, as it is there.
#[inline]
pub fn is_ipv6(text: &[u8]) -> bool {
    match byte_steps::walk(text, V6_START, &V6_CLASS, 4, &V6_STEPS, &V6_PAIRS) {
        V6_DOT => parse_ipv6(text).is_some(),
        state => V6_ENDS[usize::from(state)],
    }
}

/// The states of `is_ipv6`, as `parse_ipv6` stands after each byte: at the
/// start; after a leading `:`; in a group of `d` digits (1 to 4) with `c`
/// groups before it, after a `::` or not; right after the `:` that ended
/// the `c`-th group; right after a `::` with `c` groups before it; refused;
/// past a `.`. Groups before number 0 to 8.
const V6_START: u8 = 0;
const V6_LEADING_COLON: u8 = 1;
const fn v6_group(c: usize, d: usize, gap: bool) -> u8 {
    (2 + (c * 4 + (d - 1)) * 2 + gap as usize) as u8
}
const fn v6_after_colon(c: usize, gap: bool) -> u8 {
    (2 + 72 + c * 2 + gap as usize) as u8
}
const fn v6_after_gap(c: usize) -> u8 {
    (2 + 72 + 18 + c) as u8
}
const V6_REJECT: u8 = 2 + 72 + 18 + 9;
const V6_DOT: u8 = V6_REJECT + 1;
const V6_STATES: usize = V6_DOT as usize + 1;

/// Byte classes: a hex digit (0), `:` (1), `.` (2), anything else (3).
static V6_CLASS: [u8; 256] = {
    let mut table = [3u8; 256];
    let mut b = 0;
    while b < 256 {
        if HEX[b] < 16 {
            table[b] = 0;
        }
        b += 1;
    }
    table[b':' as usize] = 1;
    table[b'.' as usize] = 2;
    table
};

/// The next state for each state and class, as `parse_ipv6` reads.
static V6_STEPS: [u8; V6_STATES * 4] = {
    const fn set(steps: &mut [u8; V6_STATES * 4], state: u8, class: usize, next: u8) {
        steps[state as usize * 4 + class] = next;
    }
    let mut steps = [V6_REJECT; V6_STATES * 4];
    // Before any `.`, a `.` hands the text to the standard parser.
    let mut state = 0;
    while state < V6_REJECT as usize {
        set(&mut steps, state as u8, 2, V6_DOT);
        state += 1;
    }
    set(&mut steps, V6_DOT, 0, V6_DOT);
    set(&mut steps, V6_DOT, 1, V6_DOT);
    set(&mut steps, V6_DOT, 2, V6_DOT);
    set(&mut steps, V6_DOT, 3, V6_DOT);
    set(&mut steps, V6_START, 0, v6_group(0, 1, false));
    set(&mut steps, V6_START, 1, V6_LEADING_COLON);
    set(&mut steps, V6_LEADING_COLON, 1, v6_after_gap(0));
    let mut c = 0;
    while c <= 8 {
        let mut gap = 0;
        while gap < 2 {
            let g = gap == 1;
            let mut d = 1;
            while d <= 4 {
                // A fifth digit is refused; a `:` ends the group, unless
                // eight were read.
                if d < 4 {
                    set(&mut steps, v6_group(c, d, g), 0, v6_group(c, d + 1, g));
                }
                if c < 8 {
                    set(&mut steps, v6_group(c, d, g), 1, v6_after_colon(c + 1, g));
                }
                d += 1;
            }
            if c >= 1 {
                // After eight groups, a ninth is refused when it ends.
                set(&mut steps, v6_after_colon(c, g), 0, v6_group(c, 1, g));
                if !g {
                    set(&mut steps, v6_after_colon(c, g), 1, v6_after_gap(c));
                }
            }
            gap += 1;
        }
        set(&mut steps, v6_after_gap(c), 0, v6_group(c, 1, true));
        c += 1;
    }
    steps
};

/// `V6_STEPS` two bytes a step (`byte_steps`).
static V6_PAIRS: [u8; V6_STATES * 16] = byte_steps::pair_steps(&V6_STEPS, 4);

/// Whether the text may end in each state.
static V6_ENDS: [bool; V6_STATES] = {
    let mut ends = [false; V6_STATES];
    let mut c = 0;
    while c <= 8 {
        let mut d = 1;
        while d <= 4 {
            // The last group makes `c + 1`: eight without a `::`, at most
            // seven with one.
            ends[v6_group(c, d, false) as usize] = c + 1 == 8;
            ends[v6_group(c, d, true) as usize] = c < 7;
            d += 1;
        }
        ends[v6_after_gap(c) as usize] = c <= 7;
        c += 1;
    }
    ends
};

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

    /// Every text of up to seven pieces of addresses (`:`, `::`, groups
    /// of one to five digits, up to three groups at once so that nine and
    /// more are reached, a `.`, a stray byte) checked by the table as by
    /// the reading: about 5.4 million texts, every path through it.
    #[test]
    fn the_table_says_what_the_reading_says() {
        const PIECES: [&[u8]; 9] = [
            b":", b"::", b"1", b"ab:", b"f:f:f:", b"FFFF", b"12345", b".", b"g",
        ];
        fn every(text: &mut Vec<u8>, pieces_left: usize, checked: &mut usize) {
            assert_eq!(
                is_ipv6(text),
                parse_ipv6(text).is_some(),
                "{}",
                String::from_utf8_lossy(text)
            );
            *checked += 1;
            if pieces_left == 0 {
                return;
            }
            for piece in PIECES {
                let len = text.len();
                text.extend_from_slice(piece);
                every(text, pieces_left - 1, checked);
                text.truncate(len);
            }
        }
        let mut checked = 0;
        every(&mut Vec::new(), 7, &mut checked);
        assert_eq!(checked, 5_380_840);
    }

    proptest! {
        #[test]
        fn any_bytes_read_as_the_standard_parser(text in address_like()) {
            prop_assert_eq!(parse_ipv6(&text), std_reading(&text));
            prop_assert_eq!(is_ipv6(&text), std_reading(&text).is_some());
        }

        #[test]
        fn written_addresses_read_back(text in written_addresses()) {
            let read = parse_ipv6(&text);
            prop_assert!(read.is_some());
            prop_assert!(is_ipv6(&text));
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
            prop_assert_eq!(is_ipv6(text.as_bytes()), std_reading(text.as_bytes()).is_some());
        }
    }
}
