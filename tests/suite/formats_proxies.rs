//! Clients behind trusted proxies and the directives read as opaque fields,
//! end to end (SPEC §1 "Client address", "Formats"): a combined log with
//! the forwarded-for header appended, read with and without
//! `--trusted-proxy`, and RHEL's default `ssl_request_log`.

use crate::support::audit as common;

use common::{SEZNAM_UA, Site};

/// Apache's combined format with the forwarded-for header appended, as
/// sites behind a CDN log it.
const COMBINED_XFF: &str =
    r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" "%{X-Forwarded-For}i""#;

const ROBOTS: &str = "User-agent: SeznamBot\nDisallow: /private/\n";

/// Known names: Seznam's crawlers, a CDN edge, and an impostor's host.
const PTR_MAP: &str = "\
77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz
2a02:598:a::78:90 fulltextrobot-2a02-598-a--78-90.seznam.cz
203.0.113.5 edge-5.cdn.example
2001:db8:cd0::1 edge-v6.cdn.example
198.51.100.1 evil.example
";

/// (connecting address, forwarded-for as logged) of each line.
const LINES: &[(&str, &str)] = &[
    // 1: a CDN edge forwarding the genuine crawler.
    ("203.0.113.5", "77.75.77.123"),
    // 2: a client-written left part; the right-most untrusted wins.
    ("203.0.113.5", "1.2.3.4, 77.75.77.123"),
    // 3: a proxy that did not know the address.
    ("203.0.113.5", "77.75.77.123, unknown"),
    // 4: every address a trusted proxy: the left-most.
    ("203.0.113.5", "203.0.113.7, 203.0.113.9"),
    // 5: IPv6 with brackets and a port, through an IPv6 edge.
    ("2001:db8:cd0::1", "[2a02:598:a::78:90]:443"),
    // 6: not a trusted proxy: its header is anyone's.
    ("198.51.100.1", "77.75.77.123"),
    // 7: no header at all.
    ("203.0.113.5", "-"),
];

fn log() -> String {
    LINES
        .iter()
        .zip(1..)
        .map(|((client, xff), line)| {
            format!(
                "{client} - - [30/Nov/2026:10:00:{line:02} +0100] \"GET /private/{line} HTTP/1.1\" 200 512 \"-\" \"{SEZNAM_UA}\" \"{xff}\"\n"
            )
        })
        .collect()
}

/// (line, client, verification) of each violations.csv row, and (line,
/// client, ptr) of each impostors.csv row.
type Outcome = (Vec<(u32, String, String)>, Vec<(u32, String, String)>);

fn outcome(report: &common::Report) -> Outcome {
    let rows = |bytes: &[u8], third: usize| -> Vec<(u32, String, String)> {
        String::from_utf8_lossy(bytes)
            .lines()
            .skip(1)
            .map(|row| {
                let cells: Vec<&str> = row.split(',').collect();
                (
                    cells[2].parse().unwrap(),
                    cells[3].to_string(),
                    cells[third].to_string(),
                )
            })
            .collect()
    };
    (rows(&report.violations, 5), rows(&report.impostors, 4))
}

fn audit(extra: &[&str]) -> common::Report {
    audit_log(&log(), extra)
}

/// `log` audited in COMBINED_XFF with the PTR map, and `extra` flags.
fn audit_log(log: &str, extra: &[&str]) -> common::Report {
    audit_log_as(log, &["--log-format", COMBINED_XFF], extra)
}

/// `log` audited with the PTR map, the `format` flags and `extra` flags.
fn audit_log_as(log: &str, format: &[&str], extra: &[&str]) -> common::Report {
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr-map.txt", PTR_MAP)
        .with("access.log", log);
    let mut args = vec![
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ];
    args.extend(format);
    args.extend(extra);
    site.audit(&args)
}

fn owned(rows: &[(u32, &str, &str)]) -> Vec<(u32, String, String)> {
    rows.iter()
        .map(|&(line, a, b)| (line, a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn trusted_proxies_give_the_forwarded_client() {
    let report = audit(&[
        "--trusted-proxy",
        "203.0.113.0/24",
        "--trusted-proxy",
        "2001:db8:cd0::/48",
    ]);
    report.assert_code(1);
    let (violations, impostors) = outcome(&report);
    assert_eq!(
        violations,
        owned(&[
            (1, "77.75.77.123", "ptr-only"),
            (2, "77.75.77.123", "ptr-only"),
            (3, "unknown", "unverified"),
            (4, "203.0.113.7", "unverified"),
            (5, "2a02:598:a::78:90", "ptr-only"),
        ])
    );
    // The untrusted connecting address and the trusted edge without a
    // header are what they are: names that are not Seznam's.
    assert_eq!(
        impostors,
        owned(&[
            (6, "198.51.100.1", "evil.example"),
            (7, "203.0.113.5", "edge-5.cdn.example"),
        ])
    );
}

#[test]
fn without_trusted_proxies_the_header_is_ignored() {
    let report = audit(&[]);
    // Every fetch came from an address whose known name is not Seznam's:
    // the genuine crawler behind the CDN looks spoofed, as SPEC §1 warns.
    report.assert_code(0);
    let (violations, impostors) = outcome(&report);
    assert_eq!(violations, Vec::new());
    let clients: Vec<(u32, String)> = impostors
        .into_iter()
        .map(|(line, client, _)| (line, client))
        .collect();
    let expected: Vec<(u32, String)> = LINES
        .iter()
        .zip(1..)
        .map(|((client, _), line)| (line, client.to_string()))
        .collect();
    assert_eq!(clients, expected);
}

#[test]
fn rhel_ssl_request_log_is_read() {
    // RHEL's ssl.conf logs TLS requests without a user agent:
    // CustomLog logs/ssl_request_log "%t %h %{SSL_PROTOCOL}x %{SSL_CIPHER}x \"%r\" %b"
    // so the crawler is found by its address's name.
    let log = "\
[30/Nov/2026:10:00:01 +0100] 77.75.77.123 TLSv1.3 TLS_AES_256_GCM_SHA384 \"GET /private/a HTTP/1.1\" 512
[30/Nov/2026:10:00:02 +0100] 192.0.2.44 TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256 \"GET /private/b HTTP/1.1\" -
[30/Nov/2026:10:00:03 +0100] 77.75.77.123 - - \"GET /public HTTP/1.1\" 512
";
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr-map.txt", PTR_MAP)
        .with("ssl_request_log", log);
    let report = site.audit(&[
        "--log",
        "ssl_request_log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--log-format",
        r#"%t %h %{SSL_PROTOCOL}x %{SSL_CIPHER}x "%r" %b"#,
    ]);
    report.assert_code(1);
    let violations = String::from_utf8_lossy(&report.violations).into_owned();
    let rows: Vec<&str> = violations.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "2026-11-30T10:00:01+01:00,ssl_request_log,1,77.75.77.123,SeznamBot,ptr-only,ptr,GET,/private/a,,disallow,SeznamBot,2,Disallow: /private/,,"
        ],
        "{}",
        report.stderr
    );
    let summary = String::from_utf8_lossy(&report.summary).into_owned();
    assert!(
        summary.contains("SeznamBot,disallow,2,1,1,"),
        "both fetches counted:\n{summary}"
    );
    assert!(
        report.stderr.contains("3 lines read, 0 skipped"),
        "every line read:\n{}",
        report.stderr
    );
}

/// A Caddy access line whose connecting address is `remote` and whose own
/// reading of the client (`client_ip`) is `client`, with no forwarded-for
/// header.
fn caddy_line(remote: &str, client: &str, ts: u32) -> String {
    format!(
        r#"{{"level":"info","ts":{ts}.5,"logger":"http.log.access","msg":"handled request","request":{{"remote_ip":"{remote}","remote_port":"41342","client_ip":"{client}","proto":"HTTP/1.1","method":"GET","host":"example.cz","uri":"/private/x","headers":{{"User-Agent":["{SEZNAM_UA}"]}}}},"bytes_read":0,"user_id":"","duration":0.001,"size":10,"status":200,"resp_headers":{{}}}}"#
    ) + "\n"
}

#[test]
fn caddys_client_ip_is_believed_only_behind_a_trusted_proxy() {
    let site = Site::new().with("robots.txt", ROBOTS).with(
        "access.log",
        [
            caddy_line("10.0.0.5", "77.75.77.123", 1_764_547_200),
            // Not from the proxy: its own claim is not believed.
            caddy_line("6.6.6.6", "77.75.77.124", 1_764_547_260),
        ]
        .concat(),
    );
    let clients = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--out",
            "o",
        ];
        args.extend_from_slice(extra);
        let run = site.run(&args);
        assert_eq!(run.code, 1, "{}", run.stderr);
        let text = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
        text.lines()
            .skip(1)
            .map(|line| line.split(',').nth(3).unwrap().to_string())
            .collect()
    };
    assert_eq!(clients(&[]), ["10.0.0.5", "6.6.6.6"]);
    assert_eq!(
        clients(&["--trusted-proxy", "10.0.0.0/8"]),
        ["77.75.77.123", "6.6.6.6"]
    );
}

/// (line, client) of each row of a report.
type Clients = Vec<(u32, String)>;

/// The (line, client) of each violations.csv row and each impostors.csv
/// row of an audit of `log` behind the trusted proxy 10.0.0.0/8, with the
/// PTR map that names 77.75.77.1 Seznam's and 6.6.6.6 an impostor's host.
fn behind_the_proxy(log: &str, format: &[&str]) -> (Clients, Clients) {
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with(
            "ptr-map.txt",
            "77.75.77.1 fulltextrobot-77-75-77-1.seznam.cz\n6.6.6.6 evil.example\n",
        )
        .with("access.log", log);
    let mut args = vec![
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--trusted-proxy",
        "10.0.0.0/8",
    ];
    args.extend_from_slice(format);
    let report = site.audit(&args);
    let rows = |bytes: &[u8]| -> Clients {
        String::from_utf8_lossy(bytes)
            .lines()
            .skip(1)
            .map(|row| {
                let cells: Vec<&str> = row.split(',').collect();
                (cells[2].parse().unwrap(), cells[3].to_string())
            })
            .collect()
    };
    (rows(&report.violations), rows(&report.impostors))
}

fn one(line: u32, client: &str) -> Clients {
    vec![(line, client.to_string())]
}

#[test]
fn an_unquoted_chain_is_read_whole() {
    // Proxies join the chain with `, `; unquoted, the blanks are inside
    // it. Read to its first blank, it would be the left-most entry alone,
    // the one the client wrote: a genuine crawler's address accused of an
    // impostor's fetch.
    let last = format!(
        "10.0.0.1 - - [29/Nov/2026:14:00:05 +0100] \"GET /private/f HTTP/1.1\" 200 1 \"-\" \"{SEZNAM_UA}\" 77.75.77.1, 6.6.6.6\n"
    );
    let nginx = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $http_x_forwarded_for"#;
    assert_eq!(
        behind_the_proxy(&last, &["--log-format", nginx]),
        (vec![], one(1, "6.6.6.6"))
    );
    // In the middle of the format, before `%l`.
    let middle = format!(
        "10.0.0.1 6.6.6.6, 77.75.77.1 - - [29/Nov/2026:14:00:05 +0100] \"GET /private/f HTTP/1.1\" 200 1 \"-\" \"{SEZNAM_UA}\"\n"
    );
    let apache = r#"%h %{X-Forwarded-For}i %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;
    assert_eq!(
        behind_the_proxy(&middle, &["--log-format", apache]),
        (one(1, "77.75.77.1"), vec![])
    );
}

/// A client that writes a blank into its own header (`X-Forwarded-For:
/// 77.75.77.1 x`, to which the proxy joins `, 6.6.6.6`) cuts an unquoted
/// chain short at that blank when fields follow it: read so, the chain
/// would be `77.75.77.1`, the entry the client wrote, and the impostor's
/// fetch a genuine crawler's violation. Such a line does not fit: skipped,
/// never read with the chain cut short; the line of a whole chain is read.
#[test]
fn an_unquoted_chain_a_client_cut_with_a_blank_does_not_fit() {
    let line = |second: u32, chain: &str| {
        format!(
            "10.0.0.1 [29/Nov/2026:10:00:{second:02} +0100] \"GET /private/{second} HTTP/1.1\" 200 \"{SEZNAM_UA}\" {chain} 0.005\n"
        )
    };
    let nginx = r#"$remote_addr [$time_local] "$request" $status "$http_user_agent" $http_x_forwarded_for $request_time"#;
    let apache = r#"%h %t "%r" %>s "%{User-agent}i" %{X-Forwarded-For}i %D"#;
    for format in [nginx, apache] {
        // The comma in the field after the chain, or in the text after
        // the format's last field.
        for cut in ["77.75.77.1 x, 6.6.6.6", "77.75.77.1 x y, 6.6.6.6"] {
            let log = line(1, cut) + &line(2, "77.75.77.1, 6.6.6.6");
            assert_eq!(
                behind_the_proxy(&log, &["--log-format", format]),
                (vec![], one(2, "6.6.6.6")),
                "{format}: {cut}"
            );
        }
    }
}

/// A field the audit does not use ends at its first blank (the README's
/// "Proxies"): one that only fits by holding blanks (`%D` as `a b c`
/// before ` [%t]`) means the line was cut in the wrong places.
#[test]
fn an_opaque_field_holding_blanks_does_not_fit() {
    let log = "77.75.77.1 a b c [29/Nov/2026:10:00:00 +0100] \"GET /private/a HTTP/1.1\"\n\
               77.75.77.1 17 [29/Nov/2026:10:00:01 +0100] \"GET /private/b HTTP/1.1\"\n";
    for format in [
        r#"%h %D %t "%r""#,
        r#"%h %{X}x %t "%r""#,
        r#"%h %{Foo}i %t "%r""#,
    ] {
        assert_eq!(
            behind_the_proxy(log, &["--log-format", format]),
            (one(2, "77.75.77.1"), vec![]),
            "{format}"
        );
    }
}

#[test]
fn nginx_proxy_add_x_forwarded_for_is_the_chain_too() {
    // `$proxy_add_x_forwarded_for` is the header's chain with the
    // connecting address appended, as nginx passes it on.
    let line = format!(
        "10.0.0.1 - - [29/Nov/2026:14:00:05 +0100] \"GET /private/f HTTP/1.1\" 200 1 \"-\" \"{SEZNAM_UA}\" \"77.75.77.1, 6.6.6.6, 10.0.0.1\"\n"
    );
    let nginx = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$proxy_add_x_forwarded_for""#;
    assert_eq!(
        behind_the_proxy(&line, &["--log-format", nginx]),
        (vec![], one(1, "6.6.6.6"))
    );
}

#[test]
fn a_chain_logged_as_several_header_lines_is_one_chain() {
    // Caddy logs each header line apart; a proxy that adds its own line
    // (HAProxy) leaves the client's first. Together they are one chain
    // (RFC 9110 §5.3), walked from its right end.
    let caddy = format!(
        r#"{{"level":"info","ts":1764547200.5,"logger":"http.log.access","msg":"handled request","request":{{"remote_ip":"10.0.0.1","remote_port":"41342","proto":"HTTP/1.1","method":"GET","host":"example.cz","uri":"/private/a","headers":{{"User-Agent":["{SEZNAM_UA}"],"X-Forwarded-For":["77.75.77.1", "6.6.6.6"]}}}},"bytes_read":0,"user_id":"","duration":0.001,"size":10,"status":200,"resp_headers":{{}}}}"#
    ) + "\n";
    assert_eq!(behind_the_proxy(&caddy, &[]), (vec![], one(1, "6.6.6.6")));
}

#[test]
fn an_iis_chain_with_plus_for_blanks_is_walked() {
    // IIS writes a blank as `+`, CloudFront as `%20`.
    for chain in ["77.75.77.1,+6.6.6.6", "77.75.77.1,%206.6.6.6"] {
        let w3c = format!(
            "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent) cs(X-Forwarded-For)\n2026-11-30 09:00:00 10.0.0.1 GET /private/a 200 SeznamBot/4.0 {chain}\n"
        );
        assert_eq!(
            behind_the_proxy(&w3c, &[]),
            (vec![], one(3, "6.6.6.6")),
            "{chain}"
        );
    }
}

#[test]
fn trusted_proxies_for_a_log_without_forwarded_for_are_warned_about() {
    let plain: String = LINES
        .iter()
        .zip(1..)
        .map(|((client, _), line)| {
            format!(
                "{client} - - [30/Nov/2026:10:00:{line:02} +0100] \"GET /private/{line} HTTP/1.1\" 200 512 \"-\" \"{SEZNAM_UA}\"\n"
            )
        })
        .collect();
    // A format with the field whose lines leave it empty says so.
    let empty: String = plain
        .lines()
        .map(|line| format!("{line} \"-\"\n"))
        .collect();
    let named = "access.log: --trusted-proxy is given, but it is read as combined, which has no \
                 forwarded-for field: give --log-format with it";
    let unfilled =
        "access.log: --trusted-proxy is given, but its lines carry no forwarded-for value";
    for (log, format, warned) in [
        (plain, "combined", Some(named)),
        (log(), COMBINED_XFF, None),
        (empty, COMBINED_XFF, Some(unfilled)),
    ] {
        let site = Site::new()
            .with("robots.txt", ROBOTS)
            .with("ptr-map.txt", PTR_MAP)
            .with("access.log", &log);
        let report = site.audit(&[
            "--log",
            "access.log",
            "--log-format",
            format,
            "--robots",
            "robots.txt",
            "--ptr-map",
            "ptr-map.txt",
            "--trusted-proxy",
            "203.0.113.0/24",
            "--quiet",
        ]);
        for said in [named, unfilled] {
            assert_eq!(
                report.stderr.contains(said),
                warned == Some(said),
                "{}",
                report.stderr
            );
        }
    }
}

/// A vhost_combined line of `client` fetching `target` at `second`.
fn vhost_line(vhost: &str, client: &str, second: u32, target: &str) -> String {
    format!(
        "{vhost}:443 {client} - - [30/Nov/2026:10:00:{second:02} +0100] \"GET {target} HTTP/1.1\" 200 512 \"-\" \"{SEZNAM_UA}\"\n"
    )
}

/// `log` audited as vhost_combined, quietly, with `extra` flags.
fn audit_vhosts(log: &str, extra: &[&str]) -> common::Report {
    audit_as(log, "vhost_combined", extra)
}

/// `log` audited in `format`, quietly, with `extra` flags.
fn audit_as(log: &str, format: &str, extra: &[&str]) -> common::Report {
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr-map.txt", PTR_MAP)
        .with("access.log", log);
    let args = [
        "--log",
        "access.log",
        "--log-format",
        format,
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
        "--quiet",
    ];
    site.audit(&[&args[..], extra].concat())
}

/// One column of each row of a report.
fn column(csv: &[u8], at: usize) -> Vec<String> {
    String::from_utf8_lossy(csv)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(at).unwrap_or_default().to_string())
        .collect()
}

#[test]
fn fetches_of_other_virtual_hosts_are_warned_about_or_left_out_with_host() {
    let client = "77.75.77.123";
    let log = [
        vhost_line("www.example.cz", client, 1, "/private/a"),
        vhost_line("shop.other.cz", client, 2, "/private/b"),
        vhost_line("WWW.Example.CZ.", client, 3, "/private/c"),
    ]
    .concat();
    let report = audit_vhosts(&log, &[]);
    report.assert_code(1);
    assert!(
        report.stderr.contains(
            "warning: fetches claiming a crawler name 2 virtual hosts (www.example.cz 2, shop.other.cz 1), all judged"
        ),
        "{}",
        report.stderr
    );
    assert_eq!(
        column(&report.violations, 8),
        ["/private/a", "/private/b", "/private/c"]
    );
    // The site named: the other host's fetch is neither judged nor warned.
    let report = audit_vhosts(&log, &["--host", "www.example.cz"]);
    report.assert_code(1);
    assert!(
        !report.stderr.contains("virtual hosts"),
        "{}",
        report.stderr
    );
    assert_eq!(column(&report.violations, 8), ["/private/a", "/private/c"]);
    // The hosts named are those judged: not of fetches --since/--until
    // left out (regression review).
    let report = audit_vhosts(&log, &["--since", "2026-11-30T10:00:02+01:00"]);
    assert!(
        report.stderr.contains(
            "fetches claiming a crawler name 2 virtual hosts (shop.other.cz 1, www.example.cz 1)"
        ),
        "{}",
        report.stderr
    );
    let report = audit_vhosts(&log, &["--since", "2026-11-30T10:00:03+01:00"]);
    assert!(
        !report.stderr.contains("virtual hosts"),
        "{}",
        report.stderr
    );
}

#[test]
fn with_host_impostors_of_other_hosts_are_still_listed_and_a_name_that_fits_none_is_told() {
    // 198.51.100.1 is evil.example in the PTR map: a spoofer on either host.
    let log = [
        vhost_line("site.cz", "198.51.100.1", 1, "/private/1"),
        vhost_line("other.cz", "198.51.100.1", 2, "/private/2"),
        vhost_line("other.cz", "77.75.77.123", 3, "/private/3"),
        vhost_line("site.cz", "77.75.77.123", 4, "/private/4"),
    ]
    .concat();
    let report = audit_vhosts(&log, &["--host", "site.cz"]);
    report.assert_code(1);
    assert_eq!(column(&report.violations, 2), ["4"]);
    assert_eq!(column(&report.impostors, 2), ["1", "2"]);
    assert!(
        !report.stderr.contains("every crawler fetch"),
        "{}",
        report.stderr
    );
    // A name the log never writes leaves every crawler fetch out: said.
    let report = audit_vhosts(&log, &["--host", "www.site.cz"]);
    report.assert_code(0);
    assert_eq!(column(&report.impostors, 2), ["1", "2"]);
    assert!(
        report.stderr.contains(
            "warning: every crawler fetch (2) was of another host than --host names \
             (the virtual hosts of fetches claiming a crawler, spoofed ones too: \
             other.cz 2, site.cz 2)"
        ),
        "{}",
        report.stderr
    );
}

/// A `--host` that names none of the crawler's hosts is told also when
/// other fetches were judged (another `--host`, or a fetch without a host):
/// a typo among several must not pass for the site's night (README).
#[test]
fn a_host_that_names_none_of_the_fetches_is_told_beside_others_judged() {
    let client = "77.75.77.123";
    let log = [
        vhost_line("www.example.cz", client, 1, "/private/a"),
        vhost_line("shop.example.cz", client, 2, "/private/b"),
        vhost_line("-", client, 3, "/private/c"),
    ]
    .concat();
    let report = audit_vhosts(
        &log,
        &["--host", "www.example.cz", "--host", "shop.exmaple.cz"],
    );
    report.assert_code(1);
    assert_eq!(column(&report.violations, 8), ["/private/a", "/private/c"]);
    assert!(
        report.stderr.contains(
            "warning: --host shop.exmaple.cz names none of the fetches claiming a crawler, \
             whose virtual hosts are shop.example.cz 1, www.example.cz 1"
        ),
        "{}",
        report.stderr
    );
    assert!(
        !report.stderr.contains("--host www.example.cz names"),
        "{}",
        report.stderr
    );
    // Each name given names a host of the fetches: nothing said.
    let report = audit_vhosts(
        &log,
        &["--host", "www.example.cz", "--host", "shop.example.cz"],
    );
    assert!(!report.stderr.contains("names none"), "{}", report.stderr);
}

/// A Host header as a client wrote it, logged whole (`%{Host}i`, Caddy's
/// `request.host`): after its `:` a value that is no port makes it no host
/// the site's `--host` names.
#[test]
fn a_host_with_no_port_after_its_colon_is_no_site_named() {
    let log: String = ["www.example.cz:443", "www.example.cz:abc", "www.example.cz:99999", "www.example.cz:"]
        .iter()
        .zip(1..)
        .map(|(host, second)| {
            format!(
                "77.75.77.123 - - [30/Nov/2026:10:00:{second:02} +0100] \"GET /private/{second} HTTP/1.1\" \
                 200 512 \"-\" \"{SEZNAM_UA}\" \"{host}\"\n"
            )
        })
        .collect();
    let report = audit_as(
        &log,
        "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\" \"%{Host}i\"",
        &["--host", "www.example.cz"],
    );
    report.assert_code(1);
    assert_eq!(column(&report.violations, 8), ["/private/1"]);
}

/// A spoofer chooses its Host header: one that is no host name, logged as
/// sent (`%{Host}i`), hides no fetch from impostors.csv (README `--host`).
#[test]
fn an_odd_host_header_hides_no_impostor() {
    // 198.51.100.1 is evil.example in the PTR map.
    let log: String = ["site.cz", "site.cz:abc", "[::1", "a\\x1bb"]
        .iter()
        .zip(1..)
        .map(|(host, second)| {
            format!(
                "{host} 198.51.100.1 - - [30/Nov/2026:10:00:{second:02} +0100] \"GET /p HTTP/1.1\" \
                 200 5 \"-\" \"{SEZNAM_UA}\"\n"
            )
        })
        .collect();
    let report = audit_as(
        &log,
        "%{Host}i %h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"",
        &[],
    );
    assert_eq!(
        column(&report.impostors, 2),
        ["1", "2", "3", "4"],
        "{}",
        report.stderr
    );
    assert!(!report.stderr.contains("skipped"), "{}", report.stderr);
}

/// A Host header is the client's to write: the warning that names the
/// hosts keeps each to 8 KiB, as the reports keep log text.
#[test]
fn a_long_host_is_cut_in_the_warning() {
    let long = format!("{}.cz", "a".repeat(100_000));
    let log: String = [long.as_str(), "b.cz"]
        .iter()
        .zip(1..)
        .map(|(host, second)| {
            format!(
                "{host} 77.75.77.123 - - [30/Nov/2026:10:00:{second:02} +0100] \"GET /p HTTP/1.1\" \
                 200 5 \"-\" \"{SEZNAM_UA}\"\n"
            )
        })
        .collect();
    let report = audit_as(
        &log,
        "%{Host}i %h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"",
        &[],
    );
    assert!(
        report.stderr.contains("2 virtual hosts"),
        "{}",
        report.stderr.len()
    );
    assert!(
        report.stderr.contains("…[cut 91811 bytes]"),
        "{}",
        report.stderr.len()
    );
    assert!(report.stderr.len() < 9_000, "{}", report.stderr.len());
}

/// nginx behind a local proxy over a unix socket logs the client `unix:`:
/// the line is read (a word naming no host, as `unknown`), and with
/// `--trusted-proxy unix:` the forwarded-for chain names the client.
#[test]
fn a_unix_socket_client_is_read_and_trusted_only_when_named() {
    let log: String = [("unix:", "77.75.77.123"), ("unix:", "1.2.3.4, 77.75.77.123")]
        .iter()
        .zip(1..)
        .map(|((client, xff), line)| {
            format!(
                "{client} - - [30/Nov/2026:10:00:{line:02} +0100] \"GET /private/{line} HTTP/1.1\" 200 512 \"-\" \"{SEZNAM_UA}\" \"{xff}\"\n"
            )
        })
        .collect();
    let run = |extra: &[&str]| audit_log(&log, extra);
    let trusted = run(&["--trusted-proxy", "unix:"]);
    trusted.assert_code(1);
    assert_eq!(
        outcome(&trusted).0,
        owned(&[
            (1, "77.75.77.123", "ptr-only"),
            (2, "77.75.77.123", "ptr-only"),
        ])
    );
    // Not named: the socket is the client, of which nothing is known.
    let untrusted = run(&["--trusted-proxy", "203.0.113.0/24"]);
    untrusted.assert_code(1);
    assert_eq!(
        outcome(&untrusted).0,
        owned(&[(1, "unix:", "unverified"), (2, "unix:", "unverified")])
    );
    // The same lines as nginx writes them with `escape=json`: the client
    // is `unix:` there too, never a host `unix` with an empty port, so a
    // spoofer behind the socket is no SeznamBot.
    let json: String = [("77.75.77.123", 1), ("198.51.100.1", 2)]
        .iter()
        .map(|(xff, line)| {
            format!(
                "{{\"time_iso8601\":\"2026-11-30T10:00:{line:02}+01:00\",\"remote_addr\":\"unix:\",\
                 \"request\":\"GET /private/{line} HTTP/1.1\",\"status\":\"200\",\
                 \"http_user_agent\":\"{SEZNAM_UA}\",\"http_x_forwarded_for\":\"{xff}\"}}\n"
            )
        })
        .collect();
    let audit_json = |extra: &[&str]| audit_log_as(&json, &[], extra);
    let trusted = audit_json(&["--trusted-proxy", "unix:"]);
    trusted.assert_code(1);
    let (violations, impostors) = outcome(&trusted);
    assert_eq!(violations, owned(&[(1, "77.75.77.123", "ptr-only")]));
    assert_eq!(
        impostors,
        owned(&[(2, "198.51.100.1", "evil.example")]),
        "{}",
        trusted.stderr
    );
    let untrusted = audit_json(&[]);
    assert_eq!(
        outcome(&untrusted).0,
        owned(&[(1, "unix:", "unverified"), (2, "unix:", "unverified")])
    );
}
