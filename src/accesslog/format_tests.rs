//! Unit tests of `LogFormat::parse`: one table per format, each row a log
//! line and the fields expected of it (or the reason it is skipped).

use super::*;

/// What a test expects of a parsed line: client, RFC 3339 time, request,
/// status, user agent, vhost.
type Fields = (
    &'static str,
    &'static str,
    &'static [u8],
    Option<u16>,
    Option<&'static [u8]>,
    Option<&'static [u8]>,
);

fn check(spec: &str, cases: &[(&[u8], Result<Fields, Skip>)]) {
    let format = LogFormat::new(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    for (line, expected) in cases {
        let got = format.parse(line).map(|e| {
            (
                String::from_utf8_lossy(e.client).into_owned(),
                e.time.rfc3339(),
                e.request.to_vec(),
                e.status,
                e.user_agent.map(<[u8]>::to_vec),
                e.vhost.map(<[u8]>::to_vec),
            )
        });
        let expected = expected.map(|(c, t, r, s, u, v)| {
            (
                c.to_string(),
                t.to_string(),
                r.to_vec(),
                s,
                u.map(<[u8]>::to_vec),
                v.map(<[u8]>::to_vec),
            )
        });
        assert_eq!(got, expected, "{spec}\n{}", String::from_utf8_lossy(line));
    }
}

const UA: &[u8] =
    b"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";
const T: &str = "2000-10-10T13:55:36-07:00";

#[test]
fn combined() {
    let cases: &[(&[u8], Result<Fields, Skip>)] = &[
        (
            br#"77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET /a?b HTTP/1.1" 200 2326 "-" "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)""#,
            Ok(("77.75.77.123", T, b"GET /a?b HTTP/1.1", Some(200), Some(UA), None)),
        ),
        (
            // CRLF, and a trailing LF, are not part of the line.
            b"1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 404 - \"http://x/\" \"-\"\r\n",
            Ok(("1.2.3.4", T, b"GET / HTTP/1.0", Some(404), None, None)),
        ),
        (
            // IPv6 and a host name as the client.
            br#"2a02:598:64:8a00::3100:0 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/2.0" 200 1 "-" "ua""#,
            Ok(("2a02:598:64:8a00::3100:0", T, b"GET / HTTP/2.0", Some(200), Some(b"ua"), None)),
        ),
        (
            br#"fulltextrobot-77-75-77-123.seznam.cz - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua""#,
            Ok(("fulltextrobot-77-75-77-123.seznam.cz", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), None)),
        ),
        (
            // Apache escapes: \" never closes a field, \\ before a closing quote.
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /\"q\" HTTP/1.1" 200 1 "-" "say \"hi\" \\""#,
            Ok(("1.2.3.4", T, br#"GET /\"q\" HTTP/1.1"#, Some(200), Some(br#"say \"hi\" \\"#), None)),
        ),
        (
            // nginx escapes quotes as \x22.
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /\x22q HTTP/1.1" 200 1 "-" "a\x22b""#,
            Ok(("1.2.3.4", T, br#"GET /\x22q HTTP/1.1"#, Some(200), Some(br#"a\x22b"#), None)),
        ),
        (
            // Fields appended after the format's last one are ignored.
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua" 0.003 "10.0.0.1" upstream=1"#,
            Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), None)),
        ),
        (
            // A raw quote inside the user agent: it ends the field only when
            // a blank follows, since sites append fields after it.
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "a"b""#,
            Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), Some(br#"a"b"#), None)),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "a"b" c""#,
            Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), Some(br#"a"b"#), None)),
        ),
        (
            // A server that does not escape: a backslash before the quote.
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua\""#,
            Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), Some(br"ua\"), None)),
        ),
        (
            // Garbage requests are still parsed lines.
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "\x16\x03\x01\x00\xa5\x01" 400 226 "-" "-""#,
            Ok(("1.2.3.4", T, br"\x16\x03\x01\x00\xa5\x01", Some(400), None, None)),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "-" 408 - "-" "-""#,
            Ok(("1.2.3.4", T, b"-", Some(408), None, None)),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "" 400 0 "" """#,
            Ok(("1.2.3.4", T, b"", Some(400), None, None)),
        ),
        (
            // Bytes that are not UTF-8 pass through untouched.
            b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /\xff\xfe HTTP/1.1\" 200 1 \"-\" \"\xc3\xa9\"",
            Ok(("1.2.3.4", T, b"GET /\xff\xfe HTTP/1.1", Some(200), Some(b"\xc3\xa9"), None)),
        ),
        (
            // Odd offsets, far past and far future.
            br#"1.2.3.4 - - [01/Jan/0001:05:45:00 +0545] "GET / HTTP/1.1" 200 1 "-" "-""#,
            Ok(("1.2.3.4", "0001-01-01T05:45:00+05:45", b"GET / HTTP/1.1", Some(200), None, None)),
        ),
        (
            br#"1.2.3.4 - - [31/Dec/9999:23:59:59 -0930] "GET / HTTP/1.1" 200 1 "-" "-""#,
            Ok(("1.2.3.4", "9999-12-31T23:59:59-09:30", b"GET / HTTP/1.1", Some(200), None, None)),
        ),
        (b"", Err(Skip::Empty)),
        (b"\r\n", Err(Skip::Empty)),
        (b"   \t ", Err(Skip::Empty)),
        (b"garbage", Err(Skip::Truncated)),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1"#,
            Err(Skip::NoClosingQuote),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua"#,
            Err(Skip::NoClosingQuote),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1"#,
            Err(Skip::Truncated),
        ),
        (
            br#"1.2.3.4 - - [31/Feb/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "-""#,
            Err(Skip::BadTime),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36] "GET / HTTP/1.1" 200 1 "-" "-""#,
            Err(Skip::BadTime),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" OK 1 "-" "-""#,
            Err(Skip::BadStatus),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 2000 1 "-" "-""#,
            Err(Skip::BadStatus),
        ),
        // A status is three digits: one or two is no status, but for the
        // lone `0` Traefik writes for a request it got no status for.
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 5 1 "-" "-""#,
            Err(Skip::BadStatus),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/2.0" 0 0 "-" "-""#,
            Ok(("1.2.3.4", T, b"GET / HTTP/2.0", Some(0), None, None)),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 00 1 "-" "-""#,
            Err(Skip::BadStatus),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 50 1 "-" "-""#,
            Err(Skip::BadStatus),
        ),
        (
            // SPEC §2: a `-` (or a single word) in the client field is read;
            // it only gives no PTR name.
            br#"- - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "-""#,
            Ok(("-", T, b"GET / HTTP/1.1", Some(200), None, None)),
        ),
        (
            br#" - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "-""#,
            Err(Skip::NoClient),
        ),
        (
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] GET / HTTP/1.1 200 1 "-" "-""#,
            Err(Skip::Mismatch),
        ),
    ];
    check("combined", cases);
    // The default is combined; nginx's own combined reads the same lines.
    check("", cases);
    // nginx's `$remote_addr` is an address: a name or a word there is
    // another field written where the client should be.
    let nginx: Vec<(&[u8], Result<Fields, Skip>)> = cases
        .iter()
        .map(|(line, read)| {
            let read = match read {
                Ok(fields) if !fields::is_address_client(fields.0.as_bytes()) => {
                    Err(Skip::NameForAddress)
                }
                other => *other,
            };
            (*line, read)
        })
        .collect();
    assert!(
        nginx
            .iter()
            .filter(|(_, r)| *r == Err(Skip::NameForAddress))
            .count()
            >= 2
    );
    check(
        r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#,
        &nginx,
    );
}

#[test]
fn common() {
    let format = LogFormat::new("common").unwrap();
    assert!(!format.has_user_agent());
    assert!(LogFormat::new("combined").unwrap().has_user_agent());
    check(
        "common",
        &[
            (
                br#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#,
                Ok(("127.0.0.1", T, b"GET /apache_pb.gif HTTP/1.0", Some(200), None, None)),
            ),
            (
                // A combined line read as common: the rest is ignored.
                br#"127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 - "-" "SeznamBot""#,
                Ok(("127.0.0.1", T, b"GET / HTTP/1.0", Some(200), None, None)),
            ),
            (
                br#"::1 - - [10/Oct/2000:13:55:36 -0700] "OPTIONS * HTTP/1.0" - -"#,
                Ok(("::1", T, b"OPTIONS * HTTP/1.0", None, None, None)),
            ),
        ],
    );
}

#[test]
fn vhost_combined() {
    check(
        "vhost_combined",
        &[
            (
                br#"www.example.cz:443 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Ok(("77.75.77.123", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), Some(b"www.example.cz"))),
            ),
            (
                br#"-:80 ::1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Ok(("::1", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), None)),
            ),
            (
                br#"77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Err(Skip::Truncated),
            ),
            // `%p` is a port: a line with a time in front (`kubectl logs
            // --timestamps`) is not a host and a port, never read shifted.
            (
                br#"2026-11-29T09:00:01.123456789Z 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Err(Skip::Mismatch),
            ),
            (
                br#"www.example.cz:abc 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Err(Skip::Mismatch),
            ),
            (
                br#"www.example.cz:65536 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Err(Skip::Mismatch),
            ),
            // Apache's `%p` is always a number: a syslog tag in front of a
            // combined line is no host with an empty port.
            (
                br#"nginx: 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Err(Skip::Mismatch),
            ),
            (
                br#"www.example.cz:- 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Err(Skip::Mismatch),
            ),
            // An unbracketed IPv6 host keeps its own `:`s.
            (
                br#"2001:db8::1:443 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Ok(("77.75.77.123", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), Some(b"2001:db8::1"))),
            ),
            (
                br#"[2001:db8::1]:443 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Ok(("77.75.77.123", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), Some(b"[2001:db8::1]"))),
            ),
            (
                br#"www.example.cz:65535 77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "ua""#,
                Ok(("77.75.77.123", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), Some(b"www.example.cz"))),
            ),
        ],
    );
}

#[test]
fn custom_apache() {
    check(
        r#"%a %{Host}i %D "%{User-Agent}i" [%{%Y-%m-%d %H:%M:%S %z}t] "%r" %>s"#,
        &[(
            br#"10.1.1.1 example.cz 1234 "SeznamBot/4.0" [2000-10-10 13:55:36 -0700] "GET /x HTTP/1.1" 301 trailing"#,
            Ok(("10.1.1.1", T, b"GET /x HTTP/1.1", Some(301), Some(b"SeznamBot/4.0"), Some(b"example.cz"))),
        )],
    );
    check(
        r#"%{sec}t %h "%r" %s"#,
        &[(
            br#"971211336 1.2.3.4 "GET / HTTP/1.1" 200"#,
            Ok((
                "1.2.3.4",
                "2000-10-10T20:55:36+00:00",
                b"GET / HTTP/1.1",
                Some(200),
                None,
                None,
            )),
        )],
    );
    // Pasted from httpd.conf with the quotes.
    check(
        r#""%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"""#,
        &[(
            br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua""#,
            Ok((
                "1.2.3.4",
                T,
                b"GET / HTTP/1.1",
                Some(200),
                Some(b"ua"),
                None,
            )),
        )],
    );
}

#[test]
fn an_address_before_its_port_is_read_whole() {
    // nginx's `$remote_addr:$remote_port` and Apache's `%a:%{remote}p`: an
    // IPv6 address holds `:`s of its own, and is never cut at the first.
    let lines: &[(&[u8], &str)] = &[
        (
            b"2a02:598::1:5555 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            "2a02:598::1",
        ),
        (
            b"2001:db8::66:5555 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            "2001:db8::66",
        ),
        (
            b"::1:80 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            "::1",
        ),
        (
            b"77.75.77.1:5555 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            "77.75.77.1",
        ),
        (
            b"[2a02:598::1]:5555 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            "[2a02:598::1]",
        ),
        (
            b"crawler.example.cz:5555 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            "crawler.example.cz",
        ),
    ];
    for (spec, names) in [
        (
            r#"$remote_addr:$remote_port [$time_local] "$request" $status"#,
            false,
        ),
        (r#"%a:%{remote}p %t "%r" %>s"#, true),
    ] {
        // A name is a client of Apache's only (`HostnameLookups On`).
        let cases: Vec<(&[u8], Result<Fields, Skip>)> = lines
            .iter()
            .map(|&(line, client)| {
                let name = client.ends_with(".cz");
                let read = Ok((client, T, &b"GET / HTTP/1.1"[..], Some(200), None, None));
                (
                    line,
                    if name && !names {
                        Err(Skip::NameForAddress)
                    } else {
                        read
                    },
                )
            })
            .collect();
        check(spec, &cases);
    }
    // nginx writes no port for a unix socket's peer; Apache always one.
    let no_port: &[u8] = b"unix:: [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200";
    check(
        r#"$remote_addr:$remote_port [$time_local] "$request" $status"#,
        &[(
            no_port,
            Ok(("unix:", T, b"GET / HTTP/1.1", Some(200), None, None)),
        )],
    );
    check(
        r#"%a:%{remote}p %t "%r" %>s"#,
        &[(no_port, Err(Skip::Mismatch))],
    );
    // Fields apart by `,` or `|`, whose values hold `:`s of their own:
    // the address's run ends at the separator.
    check(
        r#"$remote_addr:$remote_port,$time_iso8601,"$request",$status"#,
        &[
            (
                b"77.75.77.1:5555,2000-10-10T13:55:36-07:00,\"GET / HTTP/1.1\",200",
                Ok(("77.75.77.1", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
            (
                b"2a02:598::1:5555,2000-10-10T13:55:36-07:00,\"GET / HTTP/1.1\",200",
                Ok(("2a02:598::1", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
        ],
    );
    // A `-` after the port ends the run (the time after it holds `:`s)...
    check(
        r#"$remote_addr:$remote_port-$time_iso8601 "$request" $status"#,
        &[
            (
                b"77.75.77.1:5555-2000-10-10T13:55:36-07:00 \"GET / HTTP/1.1\" 200",
                Ok(("77.75.77.1", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
            (
                b"2a02:598::1:5555-2000-10-10T13:55:36-07:00 \"GET / HTTP/1.1\" 200",
                Ok(("2a02:598::1", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
        ],
    );
    // ...but not inside an IPv6 zone, which may hold one.
    check(
        r#"%a:%{remote}p-%{ms}T %t "%r" %>s"#,
        &[(
            b"fe80::1%br-lan:5555-12 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            Ok((
                "fe80::1%br-lan",
                T,
                b"GET / HTTP/1.1",
                Some(200),
                None,
                None,
            )),
        )],
    );
    check(
        r#"%v:%p|%h|%t|"%r"|%>s"#,
        &[(
            b"www.example.cz:443|1.2.3.4|[10/Oct/2000:13:55:36 -0700]|\"GET / HTTP/1.1\"|200",
            Ok((
                "1.2.3.4",
                T,
                b"GET / HTTP/1.1",
                Some(200),
                None,
                Some(b"www.example.cz"),
            )),
        )],
    );
    // Two `:`s after the address: the second from the right.
    check(
        r#"$remote_addr:$remote_port:$connection [$time_local] "$request" $status"#,
        &[(
            b"2a02:598::1:5555:17 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200",
            Ok(("2a02:598::1", T, b"GET / HTTP/1.1", Some(200), None, None)),
        )],
    );
}

#[test]
fn a_field_logged_for_some_statuses_gives_way_to_the_same_field_logged_always() {
    let line: &[u8] =
        br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 "-" "SeznamBot/4.0""#;
    let read = Ok((
        "1.2.3.4",
        T,
        &b"GET / HTTP/1.1"[..],
        Some(200),
        Some(&b"SeznamBot/4.0"[..]),
        None,
    ));
    for spec in [
        r#"%h %t "%r" %>s "%400,501{User-agent}i" "%{User-agent}i""#,
        r#"%h %t "%r" %>s "%!200{User-agent}i" "%{User-agent}i""#,
    ] {
        check(spec, &[(line, read)]);
    }
    // Alone, it is still the user agent.
    check(
        r#"%h %t "%r" %>s "%!404{User-agent}i""#,
        &[(
            br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 "SeznamBot/4.0""#,
            read,
        )],
    );
    // It gives way also to a field of its slot that ranks below it when
    // both are logged always: `%!200a` is `-` on the 200s, `%h` never is.
    check(
        r#"%h %t "%r" %>s "-" "%{User-agent}i" %!200a"#,
        &[(
            br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 "-" "SeznamBot/4.0" -"#,
            read,
        )],
    );
}

#[test]
fn a_second_time_field_is_read_by_its_layout() {
    // Only one time is used; the other's blanks must not end it.
    check(
        r#"%h %t %{end:%d/%b/%Y %T}t %>s "%r" "%{User-agent}i""#,
        &[
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 10/Oct/2000 13:55:37 200 "GET / HTTP/1.1" "ua""#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), Some(b"ua"), None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 10/Oct/2000 xx:55:37 200 "GET / HTTP/1.1" "ua""#,
                Err(Skip::BadTime),
            ),
        ],
    );
}

#[test]
fn a_part_of_a_time_is_read_by_its_layout() {
    // `%{%a %d}t` gives no time but holds a blank: read by its layout, it
    // does not cut the status off.
    check(
        r#"%h %t "%r" %{%a %d}t %>s"#,
        &[
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" Tue 10 404"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(404), None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" Tue xx 404"#,
                Err(Skip::BadTime),
            ),
        ],
    );
    // tzdata's numeric abbreviations (`+03`, `+0545`) are zone names too.
    check(
        r#"%h %t %{%Z}t "%r" %>s"#,
        &[
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] +03 "GET / HTTP/1.1" 200"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] +0545 "GET / HTTP/1.1" 200"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] CEST "GET / HTTP/1.1" 200"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
        ],
    );
    // Glued to an opaque field, a part of a time is read with it as one.
    check(
        r#"%h %t %{pid}P%{%H%M}t "%r" %>s"#,
        &[(
            br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 4711x1355 "GET / HTTP/1.1" 200"#,
            Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
        )],
    );
    // One with a blank cannot be cut from the field it is glued to.
    assert!(LogFormat::new(r#"%h %t %{pid}P%{%a %d}t %>s "%r""#).is_err());
    // Checked in a leap year: 02/29 is a day.
    check(
        r#"%h %t %{%m/%d}t "%r" %>s"#,
        &[(
            br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 02/29 "GET / HTTP/1.1" 200"#,
            Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
        )],
    );
}

#[test]
fn an_unquoted_request_last_ends_with_its_protocol() {
    // SPEC §1: fields after the format's last one are ignored; the
    // request line ends with its protocol, not with the line.
    check(
        "%h %t %>s %r",
        &[
            (
                b"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 200 GET /page.html HTTP/1.1 0.004",
                Ok((
                    "1.2.3.4",
                    T,
                    b"GET /page.html HTTP/1.1",
                    Some(200),
                    None,
                    None,
                )),
            ),
            (
                b"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 200 GET /page.html HTTP/1.1",
                Ok((
                    "1.2.3.4",
                    T,
                    b"GET /page.html HTTP/1.1",
                    Some(200),
                    None,
                    None,
                )),
            ),
        ],
    );
}

#[test]
fn a_user_name_with_a_blank_is_read_where_it_cannot_be_a_shift() {
    // nginx logs `$remote_user` as sent (`Authorization: Basic` of `a b`),
    // Apache `%u` too: after the identd `-` and before the bracketed time
    // the blank is the name's own.
    for spec in [
        r#"%h %l %u %t "%r" %>s"#,
        r#"$remote_addr - $remote_user [$time_local] "$request" $status"#,
    ] {
        check(
            spec,
            &[(
                br#"6.6.6.6 - a b [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
                Ok(("6.6.6.6", T, b"GET / HTTP/1.1", Some(200), None, None)),
            )],
        );
    }
    // A virtual host in front puts an address (or `-`) in `%l` and `- -`
    // in `%u`, an extra field its words: still lines cut in the wrong
    // places.
    for spec in [
        r#"%h %l %u %t "%r" %>s"#,
        r#"$remote_addr - $remote_user [$time_local] "$request" $status"#,
    ] {
        let format = LogFormat::new(spec).unwrap();
        for line in [
            &br#"www.site.cz 77.75.77.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#[..],
            br#"www.site.cz - - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
            br#"10.0.0.5 - 77.75.77.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
            br#"77.75.77.1 - - 9.9.9.9 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
            // nginx's `$host $remote_addr - [$time_local]`: the client as
            // the ident, the host taken for the client.
            br#"www.site.cz 77.75.77.1 - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
            br#"www.site.cz 2001:db8::1 - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
            br#"6.6.6.6 - 77.75.77.1 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
        ] {
            assert!(
                format.parse(line).is_err(),
                "{spec}: {}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

/// Apache writes `%u` of an empty user name (Basic auth with none given,
/// answered 401) as `""`: a value of its own, not the next field's quote.
/// In `%u`'s place only: `""` in another unquoted field still means a
/// field is missing.
#[test]
fn apaches_empty_user_name_is_read() {
    let cases: [(&str, &[u8]); 3] = [
        (
            r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#,
            br#"77.75.77.1 - "" [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 401 381 "-" "SeznamBot/4.0""#,
        ),
        (
            r#"%h %t %u "%r" %>s %b "%{Referer}i" "%{User-agent}i""#,
            br#"77.75.77.1 [10/Oct/2000:13:55:36 -0700] "" "GET /a HTTP/1.1" 401 381 "-" "SeznamBot/4.0""#,
        ),
        (
            r#"%h %l %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" %u"#,
            br#"77.75.77.1 - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 401 381 "-" "SeznamBot/4.0" """#,
        ),
    ];
    for (spec, line) in cases {
        check(
            spec,
            &[(
                line,
                Ok((
                    "77.75.77.1",
                    T,
                    b"GET /a HTTP/1.1",
                    Some(401),
                    Some(b"SeznamBot/4.0"),
                    None,
                )),
            )],
        );
    }
    let format = LogFormat::new(r#"%h %l %u %t "%r" %>s %b %{X}e "%{User-agent}i""#).unwrap();
    let line = br#"77.75.77.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 5 "" "SeznamBot/4.0""#;
    assert!(format.parse(line).is_err());
    // Nor in `%l`, the identd's, which Apache never writes so: a virtual
    // host in front of such a line puts the user's `""` there.
    let format =
        LogFormat::new(r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#).unwrap();
    for line in [
        &br#"www.example.com "" - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 5 "-" "SeznamBot/4.0""#[..],
        br#"77.75.77.1 "" - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 5 "-" "SeznamBot/4.0""#,
    ] {
        assert!(format.parse(line).is_err(), "{}", String::from_utf8_lossy(line));
    }
}

/// A status as the format's last field: what follows it is taken for
/// fields the site appended, so the status itself must end where a word
/// ends. `0.005 200` is a `$request_time` where the status should be,
/// not status 0; and a format whose fields are joined by a byte a target
/// may hold (nginx writes `|` raw) never puts a short number in the
/// status by cutting the target.
#[test]
fn a_status_is_three_digits_ending_a_word() {
    check(
        r#"%h %t "%r" %>s"#,
        &[
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 0.005"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" - 0.005"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", None, None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 0.005 200"#,
                Err(Skip::BadStatus),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200x"#,
                Err(Skip::BadStatus),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 0"#,
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(0), None, None)),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 0.005"#,
                Err(Skip::BadStatus),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 0x"#,
                Err(Skip::BadStatus),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200.5"#,
                Err(Skip::BadStatus),
            ),
            (
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" -1"#,
                Err(Skip::BadStatus),
            ),
        ],
    );
    check(
        "$remote_addr|$time_iso8601|$request_method|$request_uri|$status|$http_user_agent",
        &[
            (
                b"1.2.3.4|2000-10-10T13:55:36-07:00|GET|/a|200|Mozilla/5.0",
                Ok(("1.2.3.4", T, b"/a", Some(200), Some(b"Mozilla/5.0"), None)),
            ),
            // An unquoted field ends at the first `|`: a short number
            // there is no status, nor is Traefik's lone `0`.
            (
                b"1.2.3.4|2000-10-10T13:55:36-07:00|GET|/a|5|b|200|Mozilla/5.0",
                Err(Skip::BadStatus),
            ),
            (
                b"1.2.3.4|2000-10-10T13:55:36-07:00|GET|/x|0|y|200|Mozilla/5.0",
                Err(Skip::BadStatus),
            ),
            (
                b"1.2.3.4|2000-10-10T13:55:36-07:00|GET|/a|50|b|200|Mozilla/5.0",
                Err(Skip::BadStatus),
            ),
            // The user agent, last, may hold the separator.
            (
                b"1.2.3.4|2000-10-10T13:55:36-07:00|GET|/a|200|Mozilla|5.0|x",
                Ok(("1.2.3.4", T, b"/a", Some(200), Some(b"Mozilla|5.0|x"), None)),
            ),
        ],
    );
    // The format's own text after the status says where it ends.
    for (spec, line) in [
        (
            r#"%h %t "%r" %>s.%B"#,
            r#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200.5"#,
        ),
        (
            r#"%h %t "%r" %>sms"#,
            r#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200ms"#,
        ),
        (
            r#"%h %t "%r" %>s%B"#,
            r#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 2001234"#,
        ),
    ] {
        check(
            spec,
            &[(
                line.as_bytes(),
                Ok(("1.2.3.4", T, b"GET / HTTP/1.1", Some(200), None, None)),
            )],
        );
    }
}

#[test]
fn unquoted_request_and_user_agent() {
    check(
        "%h %t %r %>s %{User-Agent}i",
        &[
            (
                b"1.2.3.4 [10/Oct/2000:13:55:36 -0700] GET /a b HTTP/1.1 200 Mozilla/5.0 (compatible; SeznamBot/4.0) \r\n",
                Ok(("1.2.3.4", T, b"GET /a b HTTP/1.1", Some(200), Some(b"Mozilla/5.0 (compatible; SeznamBot/4.0)"), None)),
            ),
            (
                b"1.2.3.4 [10/Oct/2000:13:55:36 -0700] GET / 200 -",
                Err(Skip::BadStatus),
            ),
        ],
    );
}

/// A host written straight before the path (`$scheme://$host$request_uri`,
/// `%v%U`, a common proxy and WAF format): the host ends at the path's
/// `/`, and a line without one there is cut elsewhere.
#[test]
fn a_host_written_straight_before_its_path() {
    check(
        r#"$remote_addr [$time_iso8601] "$request_method $scheme://$host$request_uri $server_protocol" $status"#,
        &[
            (
                br#"1.2.3.4 [2000-10-10T13:55:36-07:00] "GET https://www.ex.cz/a/b?c HTTP/1.1" 200"#,
                Ok(("1.2.3.4", T, b"/a/b?c", Some(200), None, Some(b"www.ex.cz"))),
            ),
            (
                br#"1.2.3.4 [2000-10-10T13:55:36-07:00] "GET https://www.ex.cz HTTP/1.1" 200"#,
                Err(Skip::Mismatch),
            ),
        ],
    );
    check(
        r#"%h %t "%r" %>s %v%U"#,
        &[(
            br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 ex.cz:8080/a"#,
            Ok((
                "1.2.3.4",
                T,
                b"GET /a HTTP/1.1",
                Some(200),
                None,
                Some(b"ex.cz:8080"),
            )),
        )],
    );
}

#[test]
fn custom_nginx() {
    check(
        r#"$host $remote_addr [$time_iso8601] "$request" $status "$http_user_agent" "$http_x_forwarded_for" $request_time"#,
        &[
            (
                br#"example.cz 2001:db8::1 [2000-10-10T13:55:36-07:00] "GET /a HTTP/2.0" 200 "ua" "-" 0.001"#,
                Ok(("2001:db8::1", T, b"GET /a HTTP/2.0", Some(200), Some(b"ua"), Some(b"example.cz"))),
            ),
            (
                br#"example.cz 2001:db8::1 [2000-10-10T20:55:36+00:00] "GET /a HTTP/2.0" 200 "ua" "1.1.1.1, 2.2.2.2" 0.001"#,
                Ok(("2001:db8::1", "2000-10-10T20:55:36+00:00", b"GET /a HTTP/2.0", Some(200), Some(b"ua"), Some(b"example.cz"))),
            ),
            (
                br#"example.cz 2001:db8::1 [2000-10-10T20:55:36Z] "GET /a HTTP/2.0" 200 "ua" "-" 0.001"#,
                Ok(("2001:db8::1", "2000-10-10T20:55:36+00:00", b"GET /a HTTP/2.0", Some(200), Some(b"ua"), Some(b"example.cz"))),
            ),
            // `$remote_addr` is an address, never a name as Apache's `%h`
            // may be: a line of `$remote_addr $host` given as `$host
            // $remote_addr` would make the site's name the client.
            (
                br#"2001:db8::1 example.cz [2000-10-10T20:55:36Z] "GET /a HTTP/2.0" 200 "ua" "-" 0.001"#,
                Err(Skip::NameForAddress),
            ),
            (
                br#"example.cz unix: [2000-10-10T20:55:36Z] "GET /a HTTP/2.0" 200 "ua" "-" 0.001"#,
                Ok(("unix:", "2000-10-10T20:55:36+00:00", b"GET /a HTTP/2.0", Some(200), Some(b"ua"), Some(b"example.cz"))),
            ),
        ],
    );
    // Apache's `%h` holds a name under `HostnameLookups On`.
    check(
        r#"%v %h %t "%r" %>s"#,
        &[(
            br#"example.cz crawler.example.net [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#,
            Ok((
                "crawler.example.net",
                T,
                b"GET / HTTP/1.1",
                Some(200),
                None,
                Some(b"example.cz"),
            )),
        )],
    );
    check(
        r#"$msec $remote_addr "$request" $status"#,
        &[(
            br#"971211336.123 1.2.3.4 "GET / HTTP/1.1" 499"#,
            Ok((
                "1.2.3.4",
                "2000-10-10T20:55:36.123+00:00",
                b"GET / HTTP/1.1",
                Some(499),
                None,
                None,
            )),
        )],
    );
}

#[test]
fn named_formats_compile_and_bad_ones_do_not() {
    for spec in ["combined", "common", "vhost_combined", " combined "] {
        assert!(LogFormat::new(spec).is_ok(), "{spec}");
    }
    for spec in ["%h %t", "$remote_addr $request", "nonsense", "%Z %t %r %h"] {
        assert!(LogFormat::new(spec).is_err(), "{spec}");
    }
}

#[test]
fn lines_too_long_are_skipped() {
    use crate::accesslog::chunk::Line;
    let format = LogFormat::default();
    let line = Line {
        number: 7,
        text: b"",
        too_long: true,
    };
    assert_eq!(format.parse_line(&line), Err(Skip::TooLong));
    assert_eq!(Skip::TooLong.to_string(), "line too long");
}

mod never_panics {
    use super::*;
    use crate::accesslog::request::parse_request;
    use crate::accesslog::time::parse_iso8601;
    use crate::accesslog::time_given::parse_rfc3339_or_date;
    use crate::accesslog::unescape;
    use proptest::prelude::*;

    const SPECS: &[&str] = &[
        "combined",
        "common",
        "vhost_combined",
        "%h %t %r %>s %{User-Agent}i",
        r#"$host $remote_addr [$time_iso8601] "$request" $status "$http_user_agent""#,
        r#"%{sec}t %h "%r" %s"#,
        r#"[%{%a, %e %B %Y %T %Z}t] %h "%r""#,
    ];

    /// Lines made of the bytes that matter to the parser, so that near
    /// misses are common.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![
            Just(b'"'),
            Just(b'\\'),
            Just(b' '),
            Just(b'-'),
            Just(b'['),
            Just(b']'),
            Just(b':'),
            Just(b'/'),
            Just(b'\r'),
            b'0'..=b'9',
            any::<u8>(),
        ];
        proptest::collection::vec(byte, 0..120)
    }

    proptest! {
        #[test]
        fn parse_any_bytes(tail in line(), prefix in 0usize..4) {
            let prefixes: [&[u8]; 4] = [
                b"",
                b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"",
                b"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1 \"",
                b"h:80 1.2.3.4 - - [",
            ];
            let mut text = prefixes[prefix].to_vec();
            text.extend_from_slice(&tail);
            for spec in SPECS {
                let format = LogFormat::new(spec).unwrap();
                if let Ok(entry) = format.parse(&text) {
                    let _ = parse_request(&unescape(entry.request));
                    let _ = entry.time.rfc3339();
                }
            }
            let _ = parse_iso8601(&tail);
            let _ = parse_rfc3339_or_date(&String::from_utf8_lossy(&tail));
        }

        #[test]
        fn format_strings_never_panic(spec in "[%${}a-zA-Z<>!,0-9 \"\\[\\]:_\\\\-]{0,40}") {
            let _ = LogFormat::new(&spec);
        }
    }
}

#[test]
fn rhel_ssl_request_log() {
    // RHEL's default ssl.conf: CustomLog logs/ssl_request_log
    // "%t %h %{SSL_PROTOCOL}x %{SSL_CIPHER}x \"%r\" %b"
    check(
        r#"%t %h %{SSL_PROTOCOL}x %{SSL_CIPHER}x "%r" %b"#,
        &[
            (
                br#"[10/Oct/2000:13:55:36 -0700] 77.75.77.123 TLSv1.3 TLS_AES_256_GCM_SHA384 "GET /a HTTP/1.1" 2326"#,
                Ok(("77.75.77.123", T, b"GET /a HTTP/1.1", None, None, None)),
            ),
            (
                br#"[10/Oct/2000:13:55:36 -0700] 2a02:598:a::78:90 - - "GET / HTTP/1.1" -"#,
                Ok(("2a02:598:a::78:90", T, b"GET / HTTP/1.1", None, None, None)),
            ),
            (
                br#"[10/Oct/2000:13:55:36 -0700] 77.75.77.123 TLSv1.3 "GET / HTTP/1.1" 1"#,
                Err(Skip::Truncated),
            ),
        ],
    );
}

/// The time as written back, or the skip, of each line under `format`.
fn times(format: &LogFormat, lines: &[&[u8]]) -> Vec<Result<String, Skip>> {
    lines
        .iter()
        .map(|line| format.parse(line).map(|e| e.time.rfc3339()))
        .collect()
}

#[test]
fn split_time_with_fraction_and_offset() {
    // mod_log_config's own example of a time with milliseconds.
    let format =
        LogFormat::new(r#"[%{%d/%b/%Y %T}t.%{msec_frac}t %{%z}t] %h "%r" %{usec_frac}t"#).unwrap();
    assert!(!format.needs_zone());
    let got = times(
        &format,
        &[
            br#"[10/Oct/2000 13:55:36.042 -0700] 1.2.3.4 "GET / HTTP/1.1" 042123"#,
            br#"[10/Oct/2000 13:55:36.04 -0700] 1.2.3.4 "GET / HTTP/1.1" 042123"#,
            br#"[10/Oct/2000 13:55:36.042 0700] 1.2.3.4 "GET / HTTP/1.1" 042123"#,
        ],
    );
    assert_eq!(
        got,
        [
            Ok("2000-10-10T13:55:36.042-07:00".to_string()),
            Err(Skip::BadTime),
            Err(Skip::BadTime),
        ]
    );
    // The ISO 8601 recipe sites copy: no text between fraction and offset.
    let format = LogFormat::new(r#"%{%Y-%m-%dT%T}t.%{msec_frac}t%{%z}t %a "%r""#).unwrap();
    let got = times(
        &format,
        &[br#"2026-10-25T02:30:00.123+0200 1.2.3.4 "GET / HTTP/1.1""#],
    );
    assert_eq!(got, [Ok("2026-10-25T02:30:00.123+02:00".to_string())]);
    let format = LogFormat::new(r#"%{sec}t.%{usec_frac}t %h "%r""#).unwrap();
    let got = times(&format, &[br#"971211336.999999 1.2.3.4 "GET / HTTP/1.1""#]);
    assert_eq!(got, [Ok("2000-10-10T20:55:36.999+00:00".to_string())]);
}

/// A host the client chose is taken whatever it holds (a spoofer's fetch
/// must not go unlisted for an odd Host): the Host header as sent, and
/// the server's reading of it (nginx's `$host` lets `evil!.cz` and
/// `2026-11-29` through; Apache's `%V` under `UseCanonicalName Off`); so
/// is nginx's `$server_name`, its `server_name` as written
/// (`*.example.cz`, a `~` regex). Apache's own name (`%v`) must be a host
/// name or an address, or the line was cut in the wrong places.
#[test]
fn a_host_the_client_chose_is_taken_whatever_it_holds() {
    for host in [
        "site.cz:abc",
        "evil!.cz",
        "2026-11-29",
        "a..b",
        "www.site.cz:99999",
        "*.site.cz",
        "~^(?<sub>.+)\\.site\\.cz$",
    ] {
        let line = format!(r#"{host} 1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1""#);
        for (spec, taken) in [
            (r#"%{Host}i %h %t "%r""#, true),
            (r#"$http_host $remote_addr [$time_local] "$request""#, true),
            (r#"$host $remote_addr [$time_local] "$request""#, true),
            (r#"%V %h %t "%r""#, true),
            (r#"%!200V %h %t "%r""#, true),
            (r#"%400,501{Host}i %h %t "%r""#, true),
            (
                r#"$server_name $remote_addr [$time_local] "$request""#,
                true,
            ),
            (r#"%v %h %t "%r""#, false),
            (r#"%!200v %h %t "%r""#, false),
        ] {
            let format = LogFormat::new(spec).unwrap();
            let got = format
                .parse(line.as_bytes())
                .map(|e| e.vhost.map(<[u8]>::to_vec));
            if taken {
                assert_eq!(got, Ok(Some(host.as_bytes().to_vec())), "{spec} {host}");
            } else {
                assert_eq!(got, Err(Skip::BadHost), "{spec} {host}");
            }
        }
    }
    // The server's own name as servers write it is read.
    for host in [
        "www.site.cz",
        "_",
        "1.2.3.4",
        "[2001:db8::1]",
        "WWW.Site.CZ.",
    ] {
        let line = format!(r#"{host} 1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1""#);
        let format = LogFormat::new(r#"%v %h %t "%r""#).unwrap();
        let got = format
            .parse(line.as_bytes())
            .map(|e| e.vhost.map(<[u8]>::to_vec));
        assert_eq!(got, Ok(Some(host.as_bytes().to_vec())), "{host}");
    }
    // vhost_combined's `%v:%p`, read in one pass or by the steps alike.
    let format = LogFormat::new(VHOST_COMBINED).unwrap();
    for (host, read) in [
        ("www.site.cz:443", true),
        ("2026-11-29:443", false),
        ("a..b:80", false),
    ] {
        let line = format!(
            r#"{host} 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "x""#
        );
        assert_eq!(format.parse(line.as_bytes()).is_ok(), read, "{host}");
        assert_eq!(format.parse_steps(line.as_bytes()).is_ok(), read, "{host}");
    }
}

#[test]
fn a_fraction_is_one_of_the_time_it_follows_from() {
    // `%t` is when the request began; `%{end:msec_frac}t` a part of when
    // it ended (mod_log_config): glued, they make a time that never was.
    let line: &[u8] = br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 990 "GET / HTTP/1.1""#;
    for spec in [
        r#"%h %t %{end:msec_frac}t "%r""#,
        r#"%h %t %{begin:msec_frac}t "%r""#,
        r#"%h %t %{msec_frac}t "%r""#,
    ] {
        let format = LogFormat::new(spec).unwrap();
        let expected = if spec.contains("end:") {
            "2000-10-10T13:55:36-07:00"
        } else {
            "2000-10-10T13:55:36.990-07:00"
        };
        assert_eq!(
            times(&format, &[line]),
            [Ok(expected.to_string())],
            "{spec}"
        );
    }
    // The time in use is the first; of the two fractions, its own.
    let format =
        LogFormat::new(r#"%h %{begin:sec}t.%{end:msec_frac}t %{end:sec}t.%{msec_frac}t "%r""#)
            .unwrap();
    assert_eq!(
        times(
            &format,
            &[br#"1.2.3.4 971211336.250 971211337.990 "GET / HTTP/1.1""#]
        ),
        [Ok("2000-10-10T20:55:36.990+00:00".to_string())]
    );
}

#[test]
fn a_time_left_out_by_its_status_condition_is_a_dash() {
    // mod_log_config writes `-` for a directive whose status condition
    // the request does not meet; `%t` then without its brackets.
    let lines: &[&[u8]] = &[
        br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] - "GET / HTTP/1.1""#,
        br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] [10/Oct/2000:13:55:37 -0700] "GET / HTTP/1.1""#,
    ];
    let format = LogFormat::new(r#"%h %t %!200t "%r""#).unwrap();
    assert_eq!(
        times(&format, lines),
        [
            Ok("2000-10-10T13:55:36-07:00".to_string()),
            Ok("2000-10-10T13:55:36-07:00".to_string())
        ]
    );
    let format = LogFormat::new(r#"%h %t %400{sec}t.%400{msec_frac}t "%r""#).unwrap();
    assert_eq!(
        times(
            &format,
            &[
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] -.- "GET / HTTP/1.1""#,
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] 971211336.990 "GET / HTTP/1.1""#,
            ]
        ),
        // The fraction, of the same moment as `%t`, is `%t`'s when logged.
        [
            Ok("2000-10-10T13:55:36-07:00".to_string()),
            Ok("2000-10-10T13:55:36.990-07:00".to_string())
        ]
    );
    // The only time, left out: the line has none.
    let format = LogFormat::new(r#"%h %!404t "%r""#).unwrap();
    assert_eq!(
        times(
            &format,
            &[
                br#"1.2.3.4 - "GET / HTTP/1.1""#,
                br#"1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1""#,
            ]
        ),
        [
            Err(Skip::BadTime),
            Ok("2000-10-10T13:55:36-07:00".to_string())
        ]
    );
    // A time logged always takes no `-`.
    let format = LogFormat::new(r#"%h %t "%r""#).unwrap();
    assert!(times(&format, &[br#"1.2.3.4 - "GET / HTTP/1.1""#])[0].is_err());
}

#[test]
fn local_times_need_a_zone() {
    let spec = r#"%h [%{%Y-%m-%d %H:%M:%S}t] "%r""#;
    let lines: &[&[u8]] = &[
        br#"1.2.3.4 [2026-10-25 01:59:59] "GET / HTTP/1.1""#,
        br#"1.2.3.4 [2026-10-25 02:30:00] "GET / HTTP/1.1""#,
        br#"1.2.3.4 [2026-10-25 03:00:00] "GET / HTTP/1.1""#,
        br#"1.2.3.4 [2026-03-29 02:30:00] "GET / HTTP/1.1""#,
    ];
    let bare = LogFormat::new(spec).unwrap();
    assert!(bare.needs_zone());
    assert!(times(&bare, lines).iter().all(|t| *t == Err(Skip::BadTime)));

    let prague = bare.with_zone(Some(LogTz::parse("Europe/Prague").unwrap()));
    assert!(!prague.needs_zone());
    assert_eq!(
        times(&prague, lines),
        [
            Ok("2026-10-25T01:59:59+02:00".to_string()),
            Ok("2026-10-25T02:30:00+02:00".to_string()),
            Ok("2026-10-25T03:00:00+01:00".to_string()),
            Err(Skip::BadTime),
        ]
    );
    // Formats whose times carry their offset need no zone.
    for spec in [
        "combined",
        r#"%{sec}t %h "%r""#,
        r#"[%{%F %T %z}t] %h "%r""#,
    ] {
        assert!(!LogFormat::new(spec).unwrap().needs_zone(), "{spec}");
    }
    // A zone name is no offset: the format needs a zone (SPEC §1, a
    // `%{…}t` without `%z`). With it, GMT is read as +00:00 and CEST is
    // placed by the zone.
    let named = LogFormat::new(r#"[%{%a, %e %B %Y %T %Z}t] %h "%r""#).unwrap();
    assert!(named.needs_zone());
    let lines: &[&[u8]] = &[
        br#"[Sun, 25 October 2026 02:30:00 GMT] 1.2.3.4 "GET / HTTP/1.1""#,
        br#"[Sun, 25 October 2026 02:30:00 CEST] 1.2.3.4 "GET / HTTP/1.1""#,
    ];
    assert_eq!(
        times(&named, lines),
        [
            Ok("2026-10-25T02:30:00+00:00".to_string()),
            Err(Skip::BadTime)
        ]
    );
    let named = named.with_zone(Some(LogTz::parse("Europe/Prague").unwrap()));
    assert!(!named.needs_zone());
    assert_eq!(
        times(&named, lines),
        [
            Ok("2026-10-25T02:30:00+00:00".to_string()),
            Ok("2026-10-25T02:30:00+02:00".to_string())
        ]
    );
}

#[test]
fn forwarded_for_field() {
    type Case = (&'static str, &'static [u8], Option<&'static [u8]>);
    let cases: &[Case] = &[
        (
            r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" "%{X-Forwarded-For}i""#,
            br#"203.0.113.5 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua" "77.75.77.123, 203.0.113.9""#,
            Some(b"77.75.77.123, 203.0.113.9"),
        ),
        (
            r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" "%{X-Forwarded-For}i""#,
            br#"203.0.113.5 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua" "-""#,
            None,
        ),
        (
            r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for""#,
            br#"203.0.113.5 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua" "[2a02:598:a::78:90]:443""#,
            Some(b"[2a02:598:a::78:90]:443"),
        ),
        ("combined", br#"203.0.113.5 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua" "77.75.77.123""#, None),
    ];
    for &(spec, line, expected) in cases {
        let format = LogFormat::new(spec).unwrap();
        let entry = format.parse(line).unwrap();
        assert_eq!(entry.forwarded_for, expected, "{spec}");
        assert_eq!(entry.client, b"203.0.113.5");
    }
}

/// An unquoted forwarded-for chain holds blanks on either side of its
/// commas (an HTTP list, RFC 9110 §5.6.1; the client writes the left
/// part as it likes): the chain is read whole, its right-most entries
/// too, which name the client. Text after it that no comma joins is no
/// part of a chain: the line does not fit.
#[test]
fn an_unquoted_chain_is_read_whole_whatever_its_blanks() {
    let last = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $http_x_forwarded_for"#;
    let middle = r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" %{X-Forwarded-For}i %D"#;
    let head = r#"203.0.113.5 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1 "-" "ua" "#;
    let cases: &[(&str, &str, Result<&str, Skip>)] = &[
        (last, "77.75.77.123, 6.6.6.6", Ok("77.75.77.123, 6.6.6.6")),
        (
            last,
            "77.75.77.123,  9.9.9.9, 6.6.6.6",
            Ok("77.75.77.123,  9.9.9.9, 6.6.6.6"),
        ),
        (last, "77.75.77.123 , 6.6.6.6", Ok("77.75.77.123 , 6.6.6.6")),
        (last, "6.6.6.6 ,77.75.77.123", Ok("6.6.6.6 ,77.75.77.123")),
        (
            last,
            "6.6.6.6\t,\t77.75.77.123 ",
            Ok("6.6.6.6\t,\t77.75.77.123"),
        ),
        (last, "77.75.77.123 x, 6.6.6.6", Err(Skip::Mismatch)),
        // Fields appended after the last (`$request_time`) are ignored.
        (last, "77.75.77.123 6.6.6.6", Ok("77.75.77.123")),
        (last, "77.75.77.1 0.001", Ok("77.75.77.1")),
        (
            last,
            "77.75.77.1, 6.6.6.6 0.001 -",
            Ok("77.75.77.1, 6.6.6.6"),
        ),
        (last, "1.2.3.4 x, 6.6.6.6", Err(Skip::Mismatch)),
        (
            middle,
            "77.75.77.123 , 6.6.6.6 1234",
            Ok("77.75.77.123 , 6.6.6.6"),
        ),
        (
            middle,
            "77.75.77.123,6.6.6.6 1234",
            Ok("77.75.77.123,6.6.6.6"),
        ),
    ];
    for &(spec, chain, ref expected) in cases {
        let format = LogFormat::new(spec).unwrap();
        let line = format!("{head}{chain}");
        let got = format
            .parse(line.as_bytes())
            .map(|e| String::from_utf8_lossy(e.forwarded_for.unwrap_or_default()).into_owned());
        assert_eq!(got, (*expected).map(str::to_string), "{spec}\n{line}");
    }
    // Before a bracketed time, a bracketed address after a comma and two
    // blanks is the chain's: the ` [` the time's field starts with stands
    // there too. The line had been skipped as a bad time.
    let before_time = r#"$remote_addr $http_x_forwarded_for [$time_local] "$request" $status"#;
    let tail = r#" [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200"#;
    let cases: &[(&str, Result<&str, Skip>)] = &[
        ("77.75.77.1, [2a02:598::5]", Ok("77.75.77.1, [2a02:598::5]")),
        (
            "77.75.77.1,  [2a02:598::5]",
            Ok("77.75.77.1,  [2a02:598::5]"),
        ),
        (
            "77.75.77.1 ,\t [2a02:598::5]:80",
            Ok("77.75.77.1 ,\t [2a02:598::5]:80"),
        ),
        ("77.75.77.1,   2a02:598::5", Ok("77.75.77.1,   2a02:598::5")),
        ("77.75.77.1", Ok("77.75.77.1")),
        // A chain that ends with its comma (a client's empty header joined
        // to a proxy's): the time's `[` opens no entry of it.
        ("77.75.77.1, ", Ok("77.75.77.1, ")),
        ("77.75.77.1,\t", Ok("77.75.77.1,\t")),
        ("77.75.77.1 , ", Ok("77.75.77.1 , ")),
    ];
    // A format joined by bare commas: the chain's own commas have a blank
    // after them. Cut at the first, the chain kept only the entry the
    // client wrote, and that entry was taken for the client.
    let commas =
        "$remote_addr,[$time_local],$request,$status,$http_x_forwarded_for,$http_user_agent";
    let format = LogFormat::new(commas).unwrap();
    for (chain, expected) in [
        ("77.75.77.1, 6.6.6.6", "77.75.77.1, 6.6.6.6"),
        (
            "77.75.77.1,  6.6.6.6, [2a02:598::5]",
            "77.75.77.1,  6.6.6.6, [2a02:598::5]",
        ),
        ("6.6.6.6", "6.6.6.6"),
    ] {
        let line = format!(
            "10.0.0.1,[10/Oct/2000:13:55:36 -0700],GET / HTTP/1.1,200,{chain},Mozilla/5.0 (x, y)"
        );
        let entry = format.parse(line.as_bytes()).unwrap();
        assert_eq!(entry.forwarded_for, Some(expected.as_bytes()), "{line}");
        assert_eq!(entry.user_agent, Some(&b"Mozilla/5.0 (x, y)"[..]), "{line}");
    }
    for &(chain, ref expected) in cases {
        let format = LogFormat::new(before_time).unwrap();
        let line = format!("10.0.0.1 {chain}{tail}");
        let got = format
            .parse(line.as_bytes())
            .map(|e| String::from_utf8_lossy(e.forwarded_for.unwrap_or_default()).into_owned());
        assert_eq!(
            got,
            (*expected).map(str::to_string),
            "{before_time}\n{line}"
        );
    }
}

/// A file whose lines end in CR alone reads as one line: its first record
/// parses and every later one would be ignored as trailing fields. A raw
/// CR (servers escape control bytes) among the ignored fields skips the
/// line instead, so such a file is "no line parsed", never a clean night.
/// A CRLF line end is a line end, and a CR inside a quoted field is the
/// field's.
#[test]
fn a_raw_cr_among_ignored_fields_skips_the_line() {
    let ua = "Mozilla/5.0 (compatible; SeznamBot/4.0)";
    let record = |path: &str| {
        format!(
            "77.75.77.1 - - [30/Nov/2026:00:00:01 +0100] \"GET {path} HTTP/1.1\" 200 1 \"-\" \"{ua}\""
        )
    };
    let cr_file = format!("{}\r{}\r{}\r", record("/a"), record("/b"), record("/c"));
    for spec in [
        COMBINED,
        COMMON,
        // A custom format takes the general reader.
        r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" %D"#,
    ] {
        let format = LogFormat::new(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(
            format.parse(cr_file.as_bytes()).map(|_| ()),
            Err(Skip::Mismatch),
            "{spec}"
        );
        assert_eq!(
            format
                .parse_steps(cr_file.trim_end().as_bytes())
                .map(|_| ()),
            Err(Skip::Mismatch),
            "{spec}: the general reader"
        );
    }
    let format = LogFormat::new(COMBINED).unwrap_or_default();
    for fine in [
        format!("{}\r\n", record("/a")),
        format!("{}\r", record("/a")),
        format!("{} 1234\n", record("/a")),
    ] {
        assert!(format.parse(fine.as_bytes()).is_ok(), "{fine:?}");
    }
}

/// nginx's `$upstream_*` variables list a value per upstream tried:
/// `a, b` for retries and `a : b` after an internal redirect. Unquoted
/// before the status, the field runs on through those separators; the
/// line is read with nothing shifted.
#[test]
fn upstream_lists_before_the_status() {
    let spec = r#"$remote_addr - $remote_user [$time_local] "$request" $upstream_addr $status $body_bytes_sent "$http_referer" "$http_user_agent" $upstream_response_time $upstream_status"#;
    let ok = Ok((
        "77.75.77.123",
        T,
        &b"GET /a HTTP/1.1"[..],
        Some(200),
        Some(UA),
        None,
    ));
    let line = |upstream: &str, tail: &str| {
        format!(
            "77.75.77.123 - - [10/Oct/2000:13:55:36 -0700] \"GET /a HTTP/1.1\" {upstream} 200 5 \"-\" \"{}\" {tail}",
            String::from_utf8_lossy(UA)
        )
        .into_bytes()
    };
    let lines = [
        line("10.0.0.1:8080", "0.010 200"),
        line("10.0.0.1:8080, 10.0.0.2:8080", "0.010, 0.020 502, 200"),
        line("10.0.0.1:8080 : 10.0.0.3:8080", "0.010 : 0.020 404 : 200"),
        line(
            "10.0.0.1:8080, unix:/run/app.sock : 10.0.0.3:8080",
            "0.010, 0.011 : 0.020 502, 404 : 200",
        ),
        line("-", "- -"),
    ];
    let cases: Vec<(&[u8], Result<Fields, Skip>)> = lines.iter().map(|l| (&l[..], ok)).collect();
    check(spec, &cases);
}
