//! Where a field of a text log ends (SPEC §1 "Formats"): takes a line, where
//! a field starts and what the format writes after it; gives where the
//! field ends, or why the line does not fit. A quoted field ends at a `"`
//! that is not escaped and that the format's next text follows; an unquoted
//! one at the first place its next text follows, with the fields that may
//! hold that text themselves (an IPv6 address before `:`, a forwarded-for
//! chain, nginx's upstream lists, a field of several words) read by their
//! own rules. `format::LogFormat::parse_steps` calls these step by step;
//! `clf_family` uses `find_byte`.

use super::entry::Skip;
use super::fields;
use super::program::{Slot, Step, Text};

/// How many bytes are looked at one by one before a vector search takes
/// over: most fields (`-`, an address, a status) are shorter than this, and
/// a vector search costs more to start than such a field costs to walk.
const SHORT: usize = 24;

/// The first `byte` at or after `from`. Eight bytes at a time by hand for
/// the first few words, then a vector search: most unquoted fields (`-`,
/// an address, a size) end within a word or two, and a vector search costs
/// more to start than such a field costs to walk.
#[inline(always)]
pub(super) fn find_byte(line: &[u8], from: usize, byte: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(byte);
    let mut at = from;
    let end = line.len().min(from + SHORT);
    while let Some(&word) = line.get(at..end).and_then(|rest| rest.first_chunk::<8>()) {
        // A zero byte of `x` is a match; the lowest flagged byte is the
        // first zero (a borrow can only flag bytes above a true zero).
        let x = u64::from_le_bytes(word) ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    memchr::memchr(byte, &line[at..]).map(|i| at + i)
}

/// The first `"` or `\` at or after `from`. Quoted fields are mostly
/// long (a request, a user agent) or `-`: the first two bytes are looked at
/// by hand, then a vector search runs.
#[inline(always)]
fn find_quote_or_escape(line: &[u8], from: usize) -> Option<usize> {
    let end = line.len().min(from + 2);
    if let Some(i) = line[from..end]
        .iter()
        .position(|&b| b == b'"' || b == b'\\')
    {
        return Some(from + i);
    }
    memchr::memchr2(b'"', b'\\', &line[end..]).map(|i| end + i)
}

/// Finds the end of an unquoted field: the first place where `after`
/// follows. The last field of a format (empty `after`) ends at a blank or
/// at the end of the line.
#[inline]
pub(super) fn unquoted_end(line: &[u8], start: usize, after: &Text) -> Result<usize, Skip> {
    let Some(&first) = after.bytes().first() else {
        let rest = &line[start..];
        return Ok(start + memchr::memchr2(b' ', b'\t', rest).unwrap_or(rest.len()));
    };
    // A bracketed IPv6 address (`[2001:db8::1]:443` for `%v:%p`) holds the
    // `:` that ends a field before a port: the field ends after its `]`.
    let mut from = if first == b':' {
        fields::port_colon_from(line, start)
    } else {
        start
    };
    loop {
        let at = find_byte(line, from, first).ok_or(Skip::Truncated)?;
        if after.stands_at(line, at) {
            return Ok(at);
        }
        if line.len() - at <= after.bytes().len() {
            return Err(Skip::Truncated);
        }
        from = at + 1;
    }
}

/// Finds the end of an unquoted field that a `:` follows (`%a:%{remote}p`,
/// `%v:%p`). An unbracketed IPv6 address (`2a02:598::1:5555`) holds `:`s
/// of its own: when the blank-free run holds more `:`s than the format
/// writes after the field, the field ends at the `step.colons_after`-th
/// from the right, so that the address is read whole rather than cut at
/// its first `:`. Otherwise as `unquoted_end`.
#[cold]
pub(super) fn colon_end(line: &[u8], start: usize, step: &Step) -> Result<usize, Skip> {
    let rest = &line[start..];
    let mut run = &rest[..memchr::memchr2(b' ', b'\t', rest).unwrap_or(rest.len())];
    if let Some(end) = step.run_end {
        // The separator ends the run, but not inside an IPv6 zone (from a
        // `%` to the next `:`), which may hold it (`fe80::1%br-lan:5555-12`).
        let mut in_zone = false;
        if let Some(at) = run.iter().position(|&b| {
            match b {
                b'%' => in_zone = true,
                b':' => in_zone = false,
                _ => {}
            }
            b == end && !in_zone
        }) {
            run = &run[..at];
        }
    }
    if rest.first() != Some(&b'[') {
        let wanted = usize::from(step.colons_after);
        let colons = memchr::memchr_iter(b':', run).count();
        if colons > wanted
            && let Some(at) = memchr::memrchr_iter(b':', run).nth(wanted - 1)
            && step.after.stands_at(line, start + at)
        {
            return Ok(start + at);
        }
    }
    unquoted_end(line, start, &step.after)
}

/// Finds the end of an unquoted forwarded-for chain. Proxies join it with
/// `, ` (`77.75.77.1, 6.6.6.6`), and an HTTP list allows blanks on either
/// side of its commas (RFC 9110 §5.6.1), so blanks next to a comma are
/// inside the chain: cut at the first blank, the chain would keep only
/// its left part, the part the client wrote, and its right-most entries,
/// which name the client, would be lost. Last in the format, text after
/// the chain is fields the site appended (`$request_time`), ignored as
/// after any last field, unless a comma stands in it (`a x, b`): then the
/// chain may go on past a blank the client wrote, and the line does not
/// fit rather than name the client from a chain cut short.
#[cold]
pub(super) fn chain_end(line: &[u8], start: usize, after: &Text) -> Result<usize, Skip> {
    let is_blank = |b: &u8| *b == b' ' || *b == b'\t';
    let mut from = start;
    loop {
        let end = unquoted_end(line, from, after)?;
        let blanks = line[end..].iter().take_while(|b| is_blank(b)).count();
        // The comma may stand before several blanks, of which `end` found
        // the last (`a,  [b]` before ` [$time_local]`: the field's end is
        // asked where ` [` stands).
        let blanks_before = line[from..end]
            .iter()
            .rev()
            .take_while(|b| is_blank(b))
            .count();
        let comma_before = end - blanks_before > start && line[end - blanks_before - 1] == b',';
        let comma_after = line.get(end + blanks) == Some(&b',');
        // A format that joins its fields with a bare comma: the chain's own
        // commas have a blank after them, as proxies join it (`a, b`), so
        // a comma, blanks and an entry are the chain's. Cut at its first
        // comma, the chain kept only the entry the client wrote.
        if after.bytes() == b"," && line.get(end + 1).is_some_and(is_blank) {
            let entry = end + 1 + line[end + 1..].iter().take_while(|b| is_blank(b)).count();
            if may_open_entry(&line[entry..]) {
                from = entry;
                continue;
            }
        }
        if blanks > 0 && comma_after {
            from = end + blanks + 1;
        } else if blanks > 0 && comma_before && may_open_entry(&line[end + blanks..]) {
            from = end + blanks;
        } else {
            if after.bytes().is_empty() && memchr::memchr(b',', &line[end..]).is_some() {
                return Err(Skip::Mismatch);
            }
            return Ok(end);
        }
    }
}

/// True when `rest`, after a chain's comma and blanks, may start the
/// chain's next entry: an address, a word (`unknown`, `_hidden`), or a
/// bracketed IPv6 address. The format's next field is none (a time's
/// `[29/Nov/…`, a quoted request): a chain may end with its comma, as
/// when a client's empty header was joined to a proxy's (`a, `).
fn may_open_entry(rest: &[u8]) -> bool {
    match rest.first() {
        Some(b'[') => {
            let close = memchr::memchr(b']', rest).unwrap_or(0);
            close > 1 && super::ipv6::is_ipv6(&rest[1..close])
        }
        Some(&b) => b.is_ascii_alphanumeric() || b == b':' || b == b'_',
        None => false,
    }
}

/// Finds the end of an unquoted nginx `$upstream_*` field: its values are
/// separated by `, ` (the next upstream tried) and ` : ` (after an
/// internal redirect), which a value never ends with or holds.
pub(super) fn upstream_list_end(line: &[u8], start: usize, after: &Text) -> Result<usize, Skip> {
    let mut from = start;
    loop {
        let end = unquoted_end(line, from, after)?;
        let rest = &line[end..];
        let next = if end > from && line[end - 1] == b',' && rest.starts_with(b" ") {
            end + 1
        } else if end > from && rest.starts_with(b" : ") {
            end + 3
        } else {
            return Ok(end);
        };
        from = next;
    }
}

/// Finds the end of an unquoted field that holds blanks of its own (a
/// request line, a user agent) in a format that does not quote it. Last in
/// the format, it runs to the end of the line, but for a request line,
/// which ends with its ` HTTP/` protocol when it has one. Elsewhere a
/// request line runs at least to its protocol.
#[cold]
pub(super) fn spaced_end(
    line: &[u8],
    start: usize,
    after: &Text,
    slot: Slot,
    last: bool,
) -> Result<usize, Skip> {
    if last && after.bytes().is_empty() {
        // A request line ends with its protocol: what follows is fields
        // the site appended (`$request_time`), ignored as after any last
        // field (SPEC §1). The first ` HTTP/` is the protocol: a target
        // holds no raw blank but in a malformed request, while an appended
        // field may be `$server_protocol` (` HTTP/1.1`).
        if slot == Slot::Request
            && let Some(at) = memchr::memmem::find(&line[start..], b" HTTP/")
        {
            let protocol = start + at + 1;
            let end = line[protocol..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(line.len(), |i| protocol + i);
            return Ok(end);
        }
        let mut end = line.len();
        while end > start && line[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        return Ok(end);
    }
    let from = match slot {
        Slot::Request => {
            memchr::memmem::find(&line[start..], b" HTTP/").map_or(start, |i| start + i + 1)
        }
        _ => start,
    };
    unquoted_end(line, from, after)
}

/// True when a closing quote at `at` is followed by `after`, and, for the
/// format's last field, then by the end of the line or a blank.
#[inline]
fn closes(line: &[u8], at: usize, after: &Text, last: bool) -> bool {
    after.stands_at(line, at)
        && (!last
            || line
                .get(at + after.bytes().len())
                .is_none_or(|b| b.is_ascii_whitespace()))
}

/// Finds the closing quote of a quoted field (`after` starts with `"`).
#[inline]
pub(super) fn quoted_end(
    line: &[u8],
    start: usize,
    after: &Text,
    last: bool,
) -> Result<usize, Skip> {
    let mut from = start;
    while let Some(at) = find_quote_or_escape(line, from) {
        if line[at] == b'\\' {
            // An escape: the next byte is never a closing quote.
            from = at + 2;
            if from > line.len() {
                break;
            }
        } else if closes(line, at, after, last) {
            return Ok(at);
        } else {
            from = at + 1;
        }
    }
    // No escape-aware end: the server may not escape at all (a raw
    // backslash just before the closing quote). Try again reading `\` as a
    // plain byte.
    let mut from = start;
    while let Some(at) = find_byte(line, from, b'"') {
        if closes(line, at, after, last) {
            return Ok(at);
        }
        from = at + 1;
    }
    Err(Skip::NoClosingQuote)
}
