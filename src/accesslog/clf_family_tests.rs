//! Tests of `clf_family`: what it reads is what the general reader reads.
//! The reference is `LogFormat::parse_steps`, the format's steps followed
//! one by one; lines are made well-formed and then broken at random with
//! the bytes the fast reader's assumptions hinge on.

use super::*;
use crate::accesslog::{LogFormat, Skip};
use proptest::prelude::*;

/// Every member of the family, compiled.
fn formats() -> Vec<(Family, LogFormat)> {
    Family::ALL
        .iter()
        .map(|&(family, text)| (family, LogFormat::new(text).unwrap()))
        .collect()
}

/// A well-formed line of `family`, from the parts given.
fn line(family: Family, parts: &Parts) -> Vec<u8> {
    let mut text = Vec::new();
    if family == Family::VhostCombined {
        text.extend_from_slice(parts.vhost.as_bytes());
        text.extend_from_slice(b":443 ");
    }
    text.extend_from_slice(parts.client.as_bytes());
    text.push(b' ');
    text.extend_from_slice(parts.ident.as_bytes());
    text.push(b' ');
    text.extend_from_slice(parts.user.as_bytes());
    text.extend_from_slice(format!(" [{}] \"", parts.time).as_bytes());
    text.extend_from_slice(&parts.request);
    text.extend_from_slice(format!("\" {} {}", parts.status, parts.size).as_bytes());
    if family != Family::Common {
        text.extend_from_slice(b" \"");
        text.extend_from_slice(&parts.referer);
        text.extend_from_slice(b"\" \"");
        text.extend_from_slice(&parts.agent);
        text.push(b'"');
    }
    text.extend_from_slice(&parts.tail);
    text
}

#[derive(Debug, Clone)]
struct Parts {
    vhost: String,
    client: String,
    ident: String,
    user: String,
    time: String,
    request: Vec<u8>,
    status: String,
    size: String,
    referer: Vec<u8>,
    agent: Vec<u8>,
    tail: Vec<u8>,
}

/// Text of a quoted field: mostly plain, sometimes with the bytes that
/// matter to where it ends.
fn quoted_text() -> impl Strategy<Value = Vec<u8>> {
    let plain = proptest::sample::select(b"abcXYZ/?=&.-_ ();0123456789".to_vec());
    let nasty = proptest::sample::select(b"\"\\ []:\t\xc3".to_vec());
    // Text that looks like the end of the field and what follows it.
    let tricky = proptest::sample::select(vec![
        &b"a\" b"[..],
        b"\" 200 1 \"",
        b"\"x200 1 \"",
        b"x\" \"y",
        b"\" \"",
        b"\\\"",
        b"\\\\",
        b"a\\",
        b"\"",
    ]);
    prop_oneof![
        4 => proptest::collection::vec(plain.clone(), 0..120),
        1 => proptest::collection::vec(prop_oneof![8 => plain.clone(), 1 => nasty], 0..120),
        1 => (
            proptest::collection::vec(plain.clone(), 0..40),
            tricky,
            proptest::collection::vec(plain, 0..40),
        )
            .prop_map(|(head, middle, tail)| [&head[..], middle, &tail[..]].concat()),
    ]
}

fn parts() -> impl Strategy<Value = Parts> {
    let time = prop_oneof![
        6 => Just("10/Oct/2000:13:55:36 -0700".to_string()),
        3 => Just("29/Feb/2024:00:00:00 +0100".to_string()),
        1 => Just("30/Feb/2024:00:00:00 +0100".to_string()),
        1 => Just("10/oct/2000:13:55:36 +0000".to_string()),
        1 => Just("10/Oct/2000:13:55:36".to_string()),
        1 => Just("10/Oct/2000:25:55:36 +0000".to_string()),
    ];
    (
        (
            prop_oneof![
                6 => Just("www.example.cz"),
                1 => Just("-"),
                1 => Just(""),
                1 => Just("[::1]"),
                1 => Just("[2001:db8::1]"),
                1 => Just("[2001:db8::1"),
                1 => Just("[x]y"),
                1 => Just("a b")
            ],
            prop_oneof![
                6 => Just("77.75.77.123"),
                1 => Just("077.75.77.123"),
                1 => Just("256.1.1.1"),
                1 => Just("1.2.3.4.5"),
                1 => Just("1.2.3"),
                1 => Just("77.75.77.123.example.cz"),
                1 => Just("1.2.3.4:80"),
                3 => Just("2a02:598:a::78:90"),
                3 => Just("fulltextrobot-77-75-77-123.seznam.cz"),
                1 => Just("-"),
                1 => Just(""),
                1 => Just("host:443"),
                1 => Just("\"GET"),
            ],
            prop_oneof![6 => Just("-"), 1 => Just("ident"), 1 => Just(""), 1 => Just("77.75.77.1"), 1 => Just("2001:db8::1")],
            prop_oneof![6 => Just("-"), 2 => Just("frank"), 1 => Just("a b"), 1 => Just("x [y"), 1 => Just("77.75.77.1"), 1 => Just("::1")],
            time,
        ),
        (
            quoted_text(),
            prop_oneof![
                6 => Just("200"),
                2 => Just("-"),
                1 => Just("3"),
                1 => Just("2000"),
                1 => Just("20x"),
                1 => Just("-5")
            ],
            prop_oneof![6 => Just("1234"), 2 => Just("-"), 1 => Just(""), 1 => Just("1 2")],
            quoted_text(),
            quoted_text(),
            prop_oneof![
                4 => Just(Vec::new()),
                1 => Just(b" extra".to_vec()),
                1 => Just(b"x".to_vec()),
                1 => Just(b"\t\"1\"".to_vec()),
            ],
        ),
    )
        .prop_map(
            |(
                (vhost, client, ident, user, time),
                (request, status, size, referer, agent, tail),
            )| Parts {
                vhost: vhost.to_string(),
                client: client.to_string(),
                ident: ident.to_string(),
                user: user.to_string(),
                time,
                request,
                status: status.to_string(),
                size: size.to_string(),
                referer,
                agent,
                tail,
            },
        )
}

/// The general reader's verdict, as the fast one's is checked against.
fn both<'a>(
    format: &LogFormat,
    line: &'a [u8],
) -> (Result<Entry<'a>, Skip>, Result<Entry<'a>, Skip>) {
    (format.parse(line), format.parse_steps(line))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Well-formed lines and lines broken at random: read alike by every
    /// member of the family (each line also read as the other members,
    /// which it does not fit).
    #[test]
    fn reads_what_the_general_reader_reads(
        parts in parts(),
        which in 0usize..4,
        edits in proptest::collection::vec(
            (any::<prop::sample::Index>(), 0u8..3, proptest::sample::select(b"\" \\[]:-\t0a".to_vec())),
            0..2,
        ),
        padding in 0usize..1100,
    ) {
        let family = Family::ALL[which].0;
        let mut text = line(family, &parts);
        if padding > 900 {
            // Past the stack index's reach, and around its 64-byte blocks.
            text.extend(std::iter::repeat_n(b'a', padding));
        }
        for (at, kind, byte) in edits {
            if text.is_empty() {
                break;
            }
            let at = at.index(text.len());
            match kind {
                0 => text[at] = byte,
                1 => text.insert(at, byte),
                _ => {
                    text.remove(at);
                }
            }
        }
        if text.is_empty() {
            return Ok(());
        }
        for (member, format) in formats() {
            let (fast, general) = both(&format, &text);
            prop_assert_eq!(
                fast, general,
                "{:?} reading {:?}", member, String::from_utf8_lossy(&text)
            );
        }
    }
}

/// Ordinary lines of every member are read by the fast reader itself, not
/// handed on: the reader is not idle.
#[test]
fn ordinary_lines_are_read_here() {
    let lines: [(Family, &[u8]); 4] = [
        (
            Family::Common,
            b"77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] \"GET /a HTTP/1.1\" 200 2326",
        ),
        (
            Family::Combined,
            b"77.75.77.123 - frank [10/Oct/2000:13:55:36 -0700] \"GET /a?b HTTP/1.1\" 200 2326 \"-\" \"Mozilla/5.0 (compatible; SeznamBot/4.0)\"",
        ),
        (
            Family::VhostCombined,
            b"www.example.cz:443 2a02:598:a::78:90 - - [10/Oct/2000:13:55:36 +0100] \"GET / HTTP/2.0\" 304 - \"https://www.seznam.cz/\" \"-\"",
        ),
        (
            Family::NginxCombined,
            b"77.75.77.123 - - [10/Oct/2000:13:55:36 +0000] \"HEAD /robots.txt HTTP/1.1\" 404 0 \"-\" \"SeznamBot\" extra",
        ),
    ];
    for (family, text) in lines {
        let format = Family::ALL.iter().find(|(f, _)| *f == family).unwrap().1;
        let format = LogFormat::new(format).unwrap();
        let fast = read(text, family);
        assert!(
            fast.is_some(),
            "{family:?}: {}",
            String::from_utf8_lossy(text)
        );
        assert_eq!(fast.ok_or(Skip::Mismatch), format.parse_steps(text));
    }
}

/// The named formats and nginx's `combined` are known as members; a format
/// that differs by one field is not.
#[test]
fn members_are_known_by_their_compiled_form() {
    for (family, text) in Family::ALL {
        assert_eq!(
            LogFormat::new(text).unwrap().family(),
            Some(family),
            "{text}"
        );
    }
    assert_eq!(
        LogFormat::new("combined").unwrap().family(),
        Some(Family::Combined)
    );
    for other in [
        r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" %D"#,
        r#"%h %u %t "%r" %>s %b"#,
        r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for""#,
    ] {
        assert_eq!(LogFormat::new(other).unwrap().family(), None, "{other}");
    }
}

/// A bracketed IPv6 virtual host keeps its `:`s: the port comes after the
/// `]` (`%v:%p` of an IPv6 `ServerName`).
#[test]
fn an_ipv6_virtual_host_with_its_port() {
    let line: &[u8] = b"[2001:db8::1]:443 77.75.77.123 - - [29/Nov/2026:00:00:01 +0100] \"GET /private/a HTTP/1.1\" 200 5 \"-\" \"SeznamBot/4.0\"";
    let entry = read(line, Family::VhostCombined).expect("read here");
    assert_eq!(entry.vhost, Some(&b"[2001:db8::1]"[..]));
    assert_eq!(entry.client, b"77.75.77.123");
    let format = LogFormat::new("vhost_combined").unwrap();
    let (fast, general) = both(&format, line);
    assert_eq!(fast, general);
}
