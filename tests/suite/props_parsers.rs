//! Property tests: every parser that reads bytes written by strangers never
//! panics, and what it gives back is well formed (SPEC §1, §3; STYLE "no
//! panic outside tests"). Covered: the log-format compiler, the log-line
//! parser of every named format and of custom ones, request lines, escapes,
//! timestamps (far past, far future, odd offsets), client fields, the
//! `--ptr-map` reader, `Request-rate` and `Crawl-delay`, the line cutter,
//! the crawler identifier and robots.txt as a whole.
//!
//! Inputs are drawn from alphabets of the bytes each parser cares about, so
//! near misses are common, and from arbitrary bytes and Unicode. The case
//! count is fixed so that CI time stays put; `fuzz/` runs the same targets
//! for as long as one likes.

use std::io::{self, Read};
use std::path::Path;

use proptest::prelude::*;
use robots_audit::accesslog::time::{clf_prefix, iso8601_prefix};
use robots_audit::accesslog::time_given::parse_rfc3339_or_date;
use robots_audit::accesslog::{
    ChunkReader, Fetch, LogFormat, fetch_of, open, parse_request, unescape,
};
use robots_audit::crawler::address::is_logged_name;
use robots_audit::crawler::ptr::same_name;
use robots_audit::crawler::{Client, Identifier, PtrMap, parse_client};
use robots_audit::robots::limits::{parse_crawl_delay, parse_request_rate};
use robots_audit::robots::{Robots, user_agent_token};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Bytes from an alphabet, some of them arbitrary.
fn bytes_of(alphabet: &'static [u8], max: usize) -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => prop::sample::select(alphabet),
        1 => any::<u8>(),
    ];
    prop::collection::vec(byte, 0..max)
}

/// Text from pieces, some of them arbitrary Unicode.
fn text_of(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        6 => prop::sample::select(pieces).prop_map(str::to_string),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..max).prop_map(|p| p.concat())
}

const FORMAT_PIECES: &[&str] = &[
    "%h",
    "%a",
    "%t",
    "%r",
    "%>s",
    "%s",
    "%b",
    "%{User-agent}i",
    "%{Referer}i",
    "%{Host}i",
    "%v",
    "%p",
    "%{sec}t",
    "%{msec}t",
    "%{%d/%b/%Y %T %z}t",
    "%{",
    "}",
    "%",
    "%%",
    "%!200,304{x}i",
    "%<",
    "%{c}a",
    "%{x}^ti",
    "$remote_addr",
    "$time_local",
    "$time_iso8601",
    "$msec",
    "$request",
    "$status",
    "$http_user_agent",
    "$host",
    "${",
    "$",
    "[",
    "]",
    "\"",
    "'",
    "\\",
    "\\\"",
    " ",
    ":",
    "é",
    "ř",
    "\u{1F600}",
];

/// Custom formats that compile, with a line that fits each, for lines built
/// around a real shape.
const CUSTOM_FORMATS: &[&str] = &[
    "combined",
    "common",
    "vhost_combined",
    r#"%h %t %r %>s %{User-Agent}i"#,
    r#"$host $remote_addr [$time_iso8601] "$request" $status "$http_user_agent""#,
    r#"%{sec}t %h "%r" %s"#,
    r#"%{msec}t %h "%r" %s "%{User-agent}i""#,
    r#"[%{%a, %e %B %Y %T %Z}t] %h "%r""#,
    r#"%a [%{%Y-%m-%dT%H:%M:%S%z}t] "%r" %>s "%{User-agent}i" %D"#,
    r#"$remote_addr [$msec] "$request" $status "$http_user_agent" $request_time"#,
];

const LINE_ALPHABET: &[u8] = b"\"\\ -[]:/.0123456789+x\r\t%GETHP";

const LINE_PREFIXES: &[&[u8]] = &[
    b"",
    b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"",
    b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1 \"",
    b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1 \"-\" \"SeznamBot/4.0",
    b"h:80 1.2.3.4 - - [",
    b"example.cz 2a02:598::1 [2000-10-10T13:55:36+05:45] \"",
    b"971211336.123 1.2.3.4 \"GET /",
];

fn check_line(format: &LogFormat, line: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(entry) = format.parse(line) {
        prop_assert!(!entry.client.is_empty());
        let request = unescape(entry.request);
        prop_assert!(request.len() <= entry.request.len());
        // As the audit reads it: cut, then each part decoded.
        if let Some(parts) = entry.request_parts()
            && let Fetch::Target(request) = fetch_of(&parts.method, &parts.target, parts.protocol)
        {
            prop_assert!(request.target.starts_with(b"/"));
        }
        let _ = parse_client(entry.client);
        if let Some(ua) = entry.user_agent {
            let _ = user_agent_token(&unescape(ua));
        }
        // Every time a log can hold can be written back and read again.
        let written = entry.time.rfc3339();
        let again = parse_rfc3339_or_date(&written);
        prop_assert_eq!(again, Some(entry.time), "{}", written);
    }
    Ok(())
}

/// A reader that hands its bytes out in the sizes it is told, so that
/// chunking is tried at every boundary.
struct Trickle {
    bytes: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    turn: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()].max(1);
        self.turn += 1;
        let n = size.min(buf.len()).min(self.bytes.len() - self.at);
        buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Lines as SPEC §1 counts them in a log: LF ends a line, a CR before it is
/// dropped, a last line without LF still counts.
fn reference_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = bytes
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    if bytes.ends_with(b"\n") || bytes.is_empty() {
        lines.pop();
    }
    lines
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn format_strings_never_panic(spec in text_of(FORMAT_PIECES, 24), line in bytes_of(LINE_ALPHABET, 80)) {
        if let Ok(format) = LogFormat::new(&spec) {
            check_line(&format, &line)?;
        }
    }

    #[test]
    fn any_unicode_format_string_never_panics(spec in any::<String>()) {
        let _ = LogFormat::new(&spec);
    }

    #[test]
    fn log_lines_never_panic(
        prefix in prop::sample::select(LINE_PREFIXES),
        tail in bytes_of(LINE_ALPHABET, 160),
    ) {
        let mut line = prefix.to_vec();
        line.extend_from_slice(&tail);
        for spec in CUSTOM_FORMATS {
            let format = LogFormat::new(spec).map_err(TestCaseError::fail)?;
            check_line(&format, &line)?;
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_a_line(line in prop::collection::vec(any::<u8>(), 0..300)) {
        for spec in CUSTOM_FORMATS {
            let format = LogFormat::new(spec).map_err(TestCaseError::fail)?;
            check_line(&format, &line)?;
        }
        let _ = parse_request(&line);
        let _ = unescape(&line);
    }

    /// Any instant of years 0000–9999 in any offset within ±23:59, written
    /// as a log writes it, reads back to the same instant and offset, and
    /// its report form reads back too.
    #[test]
    fn far_times_and_odd_offsets_round_trip(
        year in 0i64..=9999,
        month in 1u32..=12,
        day in 1u32..=28,
        (hour, minute, second) in (0u32..24, 0u32..60, 0u32..60),
        offset in -(23 * 60 + 59)..=(23 * 60 + 59i32),
    ) {
        const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        let sign = if offset < 0 { '-' } else { '+' };
        let (oh, om) = (offset.abs() / 60, offset.abs() % 60);
        let clf = format!(
            "{day:02}/{}/{year:04}:{hour:02}:{minute:02}:{second:02} {sign}{oh:02}{om:02}",
            MONTHS[month as usize - 1]
        );
        let iso = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{sign}{oh:02}:{om:02}");
        let (from_clf, used) = clf_prefix(clf.as_bytes()).ok_or_else(|| TestCaseError::fail(clf.clone()))?;
        prop_assert_eq!(used, clf.len());
        let (from_iso, _) = iso8601_prefix(iso.as_bytes()).ok_or_else(|| TestCaseError::fail(iso.clone()))?;
        prop_assert_eq!(from_clf, from_iso);
        prop_assert_eq!(i32::from(from_clf.offset_min), offset);
        prop_assert_eq!(from_clf.rfc3339(), iso.clone());
        prop_assert_eq!(parse_rfc3339_or_date(&iso), Some(from_clf));
    }

    #[test]
    fn client_fields_never_panic(field in bytes_of(b"0123456789abcdefABCDEF:.[]%- ", 60)) {
        match parse_client(&field) {
            Client::Addr(addr) => prop_assert_eq!(addr, addr.to_canonical()),
            // Two labels at least: a single word gives no PTR name.
            Client::Name(name) => prop_assert!(
                is_logged_name(&name) && name.trim_end_matches('.').contains('.')
            ),
            Client::Other(_) => {}
        }
    }

    #[test]
    fn ptr_maps_never_panic_and_keep_only_good_pairs(
        text in bytes_of(b"0123456789abcdef.:, \t\n\r#-_fulltextrobot", 400),
    ) {
        let (map, bad) = PtrMap::parse(&text);
        // LF, CRLF and CR each end a line.
        let ends = text
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && text.get(i + 1) != Some(&b'\n')))
            .count();
        let lines = ends as u64 + 1;
        for line in bad.iter() {
            prop_assert!(line.line >= 1 && line.line <= lines);
        }
        let _ = map.len();
    }

    /// SPEC §2: a `--ptr-map` name is taken as written, whatever it holds
    /// between the separators (whitespace, a comma, a `#` comment), up to
    /// the length of a DNS name (253 characters and a final dot); a longer
    /// one is a bad line of its own.
    #[test]
    fn ptr_map_names_are_kept_as_written(
        pairs in prop::collection::vec((any::<[u8; 4]>(), "[a-z0-9=+@\"';|.-]{1,300}"), 0..20),
    ) {
        let mut text = String::new();
        for (octets, name) in &pairs {
            text.push_str(&format!("{}.{}.{}.{} {name}\n", octets[0], octets[1], octets[2], octets[3]));
        }
        let (map, bad) = PtrMap::parse(text.as_bytes());
        // 253 characters, not counting one final dot.
        let too_long = |name: &str| name.strip_suffix('.').unwrap_or(name).len() > 253;
        let long: Vec<u64> = (1..).zip(&pairs).filter(|(_, (_, name))| too_long(name)).map(|(line, _)| line).collect();
        prop_assert_eq!(bad.iter().map(|b| b.line).collect::<Vec<_>>(), long);
        for (octets, name) in pairs.iter().filter(|(_, name)| !too_long(name)) {
            let names = map.names(std::net::IpAddr::from(*octets));
            prop_assert!(names.iter().any(|n| same_name(n, name)), "{} not in {:?}", name, names);
        }
    }

    /// A Request-rate that reads, written back as the report writes it,
    /// reads as the same rate.
    #[test]
    fn request_rates_never_panic_and_round_trip(
        value in bytes_of(b"0123456789/ smhdSMHD-:x.", 30),
    ) {
        let (written, rate) = parse_request_rate(&value);
        prop_assert!(written.len() <= value.len() * 4);
        if let Ok(rate) = rate {
            prop_assert!(rate.requests >= 1 && rate.period_secs >= 1);
            if let Some(window) = rate.window {
                prop_assert!(window.start_min < 1440 && window.end_min < 1440);
            }
            let again = parse_request_rate(rate.canonical().as_bytes()).1;
            prop_assert_eq!(again, Ok(rate));
        }
    }

    #[test]
    fn crawl_delays_never_panic(value in bytes_of(b"0123456789. ", 30)) {
        let _ = parse_crawl_delay(&value);
    }

    /// The lines a log is cut into are exactly its lines, however the reads
    /// fall.
    #[test]
    fn line_cutting_keeps_every_line(
        bytes in bytes_of(b"ab\r\n", 600),
        sizes in prop::collection::vec(1usize..50, 1..8),
    ) {
        let trickle = Trickle { bytes: bytes.clone(), at: 0, sizes, turn: 0 };
        let input = robots_audit::accesslog::open::from_reader(Path::new("t"), Box::new(trickle), None)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut got = Vec::new();
        let mut expected_number = 1;
        for chunk in ChunkReader::new(input) {
            let chunk = chunk.map_err(|e| TestCaseError::fail(e.to_string()))?;
            for line in chunk.lines() {
                prop_assert_eq!(line.number, expected_number);
                expected_number += 1;
                got.push(line.text.to_vec());
            }
        }
        prop_assert_eq!(got, reference_lines(&bytes));
    }

    /// The cheap prefilter never drops a line that the full identification
    /// would keep.
    #[test]
    fn prefilter_never_drops_a_crawler(
        ua in text_of(&["SeznamBot", "seznambot", "FreshBot", "freshBOT", "/", "3.2", "-test", "-TEST4", " ", "(compatible; ", ")", "Mozilla/5.0"], 8),
        name in text_of(&["fulltextrobot-", "FULLTEXTROBOT-", "fresh-", "test-", "77-75-77-123", "2a02-598-64-8a00--3100-0", ".seznam.cz", ".", "-"], 6),
    ) {
        let ident = Identifier::builtin().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let line = format!("{name} - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1 \"-\" \"{ua}\"");
        let by_ua = ident.by_user_agent(ua.as_bytes()).is_some();
        let by_name = ident.by_name(&name, None).is_some();
        if by_ua || by_name {
            prop_assert!(ident.may_be_crawler(line.as_bytes()), "{}", line);
        }
    }

    #[test]
    fn robots_txt_of_any_bytes_never_panics(
        text in bytes_of(b"User-agent:SeznamBot*\nDisallow:/a$%2F?Request-rate:1/10s 0900-1700Crawl-delay:.5Robot-version:2.0\r#", 400),
        target in bytes_of(b"/a%2F?*$#:", 40),
    ) {
        let robots = Robots::new(&text);
        for token in [&b"SeznamBot"[..], b"*", b""] {
            let rules = robots.rules_for(token);
            prop_assert_eq!(rules.judge(&target), rules.judge_by_scan(&target));
            let _ = rules.rate_at(0);
        }
    }

    #[test]
    fn user_agent_tokens_never_panic(ua in prop::collection::vec(any::<u8>(), 0..120)) {
        let _ = user_agent_token(&ua);
        let ident = Identifier::builtin().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let _ = ident.by_user_agent(&ua);
        let _ = ident.may_be_crawler(&ua);
        let _ = ident.by_name(&String::from_utf8_lossy(&ua), None);
    }
}

/// Regression: a custom format string whose first character is not ASCII
/// made the compiler slice inside that character.
#[test]
fn format_strings_with_non_ascii_edges_are_errors_not_panics() {
    for spec in [
        "é",
        "\"é",
        "é\"",
        "'é",
        "ř%h %t \"%r\"",
        "\"%h %t \\\"%r\\\" ř\"",
    ] {
        let _ = LogFormat::new(spec);
    }
    assert!(LogFormat::new("'%h %t \"%r\" é'").is_ok());
}

/// `open` is what the binary uses; a file of arbitrary bytes is plain text.
#[test]
fn a_file_of_binary_bytes_opens_as_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bin.log");
    let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    std::fs::write(&path, &bytes).unwrap();
    let lines: usize = ChunkReader::new(open(&path).unwrap())
        .map(|c| c.unwrap().lines().count())
        .sum();
    assert_eq!(lines, reference_lines(&bytes).len());
}
