//! The values of JSON logs: takes the raw text of a mapped value as
//! `json_scan` kept it and gives what an `Entry` holds: a string still
//! escaped, a header's first string, a forwarded-for chain, a status, and
//! whether a Caddy `logger` names an access log (SPEC §1 `json`).

use super::entry::Skip;
use super::json_scan;

/// The inside of a JSON string, still escaped; `None` for `null`. Any other
/// JSON type is a line of another shape. Bytes that are not UTF-8 are kept
/// as they are: nginx's `escape=json` escapes only `"`, `\` and control
/// bytes and writes the rest raw, so a hostile user agent's Latin-1 bytes
/// reach the log as such; the reports write them as `\xNN` (SPEC §5).
#[inline(always)]
pub(super) fn string(raw: &[u8]) -> Result<Option<&[u8]>, Skip> {
    match raw {
        [b'"', inner @ .., b'"'] => Ok(Some(inner)),
        b"null" => Ok(None),
        _ => Err(Skip::BadJson),
    }
}

/// A string, or the first string of an array of them (Caddy logs each
/// header as an array).
pub(super) fn first_string(raw: &[u8]) -> Result<Option<&[u8]>, Skip> {
    if raw.first() != Some(&b'[') {
        return string(raw);
    }
    // `["…"` whose first string holds no backslash: it ends at the first
    // quote (the array was read whole by `extract`, so that quote is there).
    if raw.get(1) == Some(&b'"')
        && let Some(end) = memchr::memchr2(b'"', b'\\', &raw[2..])
        && raw[2 + end] == b'"'
    {
        return string(&raw[1..3 + end]);
    }
    match json_scan::first_element(raw) {
        Ok(Some(first)) => string(first),
        Ok(None) => Ok(None),
        Err(_) => Err(Skip::BadJson),
    }
}

/// A forwarded-for chain: a string, or an array of them, one a header line
/// (Caddy), which together are one chain (RFC 9110 §5.3): the array's
/// text inside its brackets, whose quotes the proxy walk drops. Its first
/// element alone is the one a client wrote.
pub(super) fn chain(raw: &[u8]) -> Result<Option<&[u8]>, Skip> {
    match raw.trim_ascii() {
        [b'[', inner @ .., b']'] => {
            let inner = inner.trim_ascii();
            // One plain string: itself, as a chain logged as a string.
            if let [b'"', text @ .., b'"'] = inner
                && memchr::memchr2(b'"', b'\\', text).is_none()
            {
                return Ok(Some(text));
            }
            Ok(Some(inner))
        }
        _ => string(raw),
    }
}

/// Whether a Caddy `logger` value (raw, with its quotes) names an access
/// log: `http.log.access`, or `http.log.access.NAME` for a named one.
pub(super) fn is_access_logger(raw: &[u8]) -> bool {
    let [b'"', inner @ .., b'"'] = raw else {
        return false;
    };
    let names_access = |name: &[u8]| {
        name.strip_prefix(b"http.log.access")
            .is_some_and(|rest| rest.first().is_none_or(|&b| b == b'.'))
    };
    // Every line of a Caddy log asks: the name as written first, decoded
    // only when it holds an escape.
    names_access(inner)
        || (inner.contains(&b'\\') && names_access(&super::decode::json_unescape(inner)))
}

/// A status: a number or a string of one to three digits; `-` none.
pub(super) fn status_of(raw: &[u8]) -> Result<Option<u16>, Skip> {
    // Three digits, as a number or a string, as nearly every line has it:
    // read at once.
    if let [a, b, c] | [b'"', a, b, c, b'"'] = raw
        && [a, b, c].iter().all(|d| d.is_ascii_digit())
    {
        let digit = |d: &u8| u16::from(d - b'0');
        return Ok(Some(digit(a) * 100 + digit(b) * 10 + digit(c)));
    }
    // A string's escapes are decoded (`"\u0032\u0030\u0030"` is 200).
    let decoded;
    let text = match raw {
        [b'"', inner @ .., b'"'] => {
            decoded = super::decode::json_unescape(inner);
            &decoded[..]
        }
        b"null" => return Ok(None),
        number => number,
    };
    if matches!(text, b"-" | b"") {
        return Ok(None);
    }
    if text.len() > 3 || !text.iter().all(u8::is_ascii_digit) {
        return Err(Skip::BadStatus);
    }
    Ok(Some(
        text.iter().fold(0, |v, &d| v * 10 + u16::from(d - b'0')),
    ))
}
