//! Logs of every kind a webmaster has, chosen by `--log-format auto` (the
//! default) from their first lines (SPEC §1 "Formats"): the real and
//! documented samples of `tests/data/logs/` (sources in its README), each
//! read whole, its format named on standard error and in `run.json`, and
//! its crawler fetches counted exactly; then the choices that must not go
//! wrong — vhost_combined never read as combined, one odd line never
//! turning combined into common, a file that fits nothing an error for
//! that file alone.

use crate::support::audit as common;

use common::{SEZNAM_UA, Site, clf, combined, data};

const ROBOTS: &str = "User-agent: *\nDisallow: /private/\n";

/// A file under `tests/data/logs/`.
fn log(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/logs")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `files[]` entries of the run.json an audit wrote at `--threads 1`.
fn run_files(site: &Site) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(site.path("out-1/run.json")).expect("run.json");
    let run: serde_json::Value = serde_json::from_str(&text).expect("run.json is JSON");
    run["files"].as_array().cloned().unwrap_or_default()
}

/// SeznamBot's (fetches, violations) of kind `disallow` in summary.csv.
fn seznam_disallow(summary: &[u8]) -> (u64, u64) {
    let text = String::from_utf8_lossy(summary);
    let row = text
        .lines()
        .find(|l| l.starts_with("SeznamBot,disallow,"))
        .unwrap_or_else(|| panic!("no SeznamBot disallow row in:\n{text}"));
    let cells: Vec<&str> = row.split(',').collect();
    (
        cells[2].parse().expect("fetches"),
        cells[3].parse().expect("violations"),
    )
}

/// Audits one sample under the default format; checks that the format
/// chosen is `format`, that every line was read (`lines` in all, none
/// skipped, `not_requests` counted apart) and that SeznamBot made
/// `fetches` fetches, `violations` of them disallowed.
#[track_caller]
fn check_sample(
    name: &str,
    format: &str,
    lines: u64,
    not_requests: u64,
    fetches: u64,
    violations: u64,
) -> common::Report {
    let site = Site::new().with("robots.txt", ROBOTS).with(name, log(name));
    let report = site.audit(&["--log", name, "--robots", "robots.txt"]);
    report.assert_code(if violations > 0 { 1 } else { 0 });
    let said = format!("robots-audit: {name} is read as {format} (the format its first lines fit)");
    assert!(
        report.stderr.lines().any(|l| l == said),
        "stderr should say {said:?}:\n{}",
        report.stderr
    );
    assert_eq!(
        seznam_disallow(&report.summary),
        (fetches, violations),
        "{name}"
    );
    let files = run_files(&site);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["format"], format, "{name}");
    assert_eq!(files[0]["lines_read"], lines, "{name}");
    assert_eq!(files[0]["lines_skipped"], 0, "{name}: {}", report.stderr);
    assert_eq!(files[0]["not_requests"], not_requests, "{name}");
    report
}

#[test]
fn iis_log_with_its_fields_changing_mid_file() {
    let report = check_sample("iis.log", "w3c", 31, 0, 4, 2);
    // `+` in IIS user agents is a blank; the query joins the stem.
    let violations = String::from_utf8_lossy(&report.violations);
    assert!(
        violations.contains("/private/report.aspx?id=1")
            && violations.contains("/private/a.aspx?q=%22x%22"),
        "{violations}"
    );
    let impostors = String::from_utf8_lossy(&report.impostors);
    assert_eq!(impostors.lines().count(), 1, "{impostors}");
    // Its lines carry user agents: no warning that they do not.
    assert!(
        !report.stderr.contains("carry no user agent"),
        "{}",
        report.stderr
    );
}

#[test]
fn w3c_warns_of_missing_user_agents_by_what_its_lines_carry() {
    let without = "#Fields: date time c-ip cs-method cs-uri-stem sc-status\n\
                   2026-11-30 00:00:01 77.75.77.1 GET /a 200\n";
    let with = format!(
        "#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n\
         2026-11-30 00:00:02 77.75.77.1 GET /b 200 {}\n",
        SEZNAM_UA.replace(' ', "+")
    );
    let warning = "carry no user agent: crawlers can be found by address only";
    for (text, warned) in [
        (without.to_string(), true),
        (with.clone(), false),
        // Fields that gain a user agent below the first lines.
        (format!("{without}{with}"), false),
    ] {
        let site = Site::new()
            .with("robots.txt", ROBOTS)
            .with("u_ex.log", &text);
        let report = site.audit(&["--log", "u_ex.log", "--robots", "robots.txt", "--quiet"]);
        report.assert_code(0);
        assert_eq!(
            report.stderr.contains(warning),
            warned,
            "{text}\n{}",
            report.stderr
        );
    }
}

/// W3C lines under `#Fields: date time c-ip cs-method cs-uri-stem
/// sc-status`, more than a reader's first chunk (1 MiB) of them.
fn w3c_head_without_user_agents() -> String {
    let mut text = String::from("#Fields: date time c-ip cs-method cs-uri-stem sc-status\n");
    for n in 0..30_000 {
        text.push_str(&format!(
            "2026-11-30 00:{:02}:{:02} 192.0.2.{} GET /page/{n} 200\n",
            n / 60 % 60,
            n % 60,
            n % 250 + 1
        ));
    }
    assert!(text.len() > 1 << 20, "past the first chunk");
    text
}

#[test]
fn fields_that_change_past_the_first_chunk_decide_the_warning_and_the_zone() {
    let head = w3c_head_without_user_agents();
    let ua = SEZNAM_UA.replace(' ', "+");
    // User agents appear only past the first chunk: no warning.
    let gained = format!(
        "{head}#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n\
         2026-11-30 01:00:00 77.75.77.1 GET /private/x 200 {ua}\n"
    );
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("u_ex.log", &gained);
    let report = site.audit(&["--log", "u_ex.log", "--robots", "robots.txt", "--quiet"]);
    report.assert_code(1);
    assert!(
        !report.stderr.contains("carry no user agent"),
        "{}",
        report.stderr
    );
    // Never any: warned, though the first chunk could not tell.
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("u_ex.log", &head);
    let report = site.audit(&["--log", "u_ex.log", "--robots", "robots.txt", "--quiet"]);
    report.assert_code(0);
    assert!(
        report
            .stderr
            .contains("u_ex.log: its lines (w3c) carry no user agent"),
        "{}",
        report.stderr
    );
    // Local times past the first chunk: the file is refused at their first
    // line, never read as UTC; with --log-tz it is read.
    let local = format!(
        "{head}#Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status cs(User-Agent)\n\
         2026-11-30 02:00:00 77.75.77.1 GET /private/y 200 {ua}\n"
    );
    let first_local = head.lines().count() + 2;
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("u_ex.log", &local);
    let run = site.run(&["--log", "u_ex.log", "--robots", "robots.txt", "--quiet"]);
    assert_eq!(run.code, 2, "stderr:\n{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("u_ex.log:{first_local}:"))
            && run.stderr.contains("needs --log-tz"),
        "{}",
        run.stderr
    );
    let report = site.audit(&[
        "--log",
        "u_ex.log",
        "--robots",
        "robots.txt",
        "--quiet",
        "--log-tz",
        "Europe/Prague",
    ]);
    report.assert_code(1);
    let violations = String::from_utf8_lossy(&report.violations);
    assert!(
        violations.contains("2026-11-30T02:00:00+01:00") && violations.contains("/private/y"),
        "{violations}"
    );
}

#[test]
fn cloudfront_log_with_tabs_and_percent_encoded_user_agents() {
    let report = check_sample("cloudfront.log", "w3c", 6, 0, 2, 1);
    let violations = String::from_utf8_lossy(&report.violations);
    assert!(
        violations.contains("/private/feed.xml?page=2"),
        "{violations}"
    );
}

#[test]
fn caddy_log_with_runtime_messages_counted_apart() {
    let report = check_sample("caddy.log", "json (Caddy)", 9, 4, 4, 3);
    assert!(
        report.stderr.contains("4 no request (server messages)"),
        "{}",
        report.stderr
    );
    let violations = String::from_utf8_lossy(&report.violations);
    // Caddy's `ts` is seconds since the epoch, kept to the millisecond;
    // a JSON-escaped target (`\/private\/b`) is decoded once.
    assert!(
        violations.contains("2022-03-09T21:30:02.250+00:00"),
        "{violations}"
    );
    assert!(violations.contains(",/private/b,404,"), "{violations}");
}

#[test]
fn traefik_log_with_its_request_headers_kept() {
    let report = check_sample("traefik.log", "json (Traefik)", 4, 0, 3, 1);
    let violations = String::from_utf8_lossy(&report.violations);
    // `ClientAddr` without its port; `\u0026` decoded.
    assert!(
        violations.contains(",77.75.77.123,") && violations.contains("/private/x?a=1&b=2"),
        "{violations}"
    );
}

#[test]
fn traefik_log_without_headers_warns_that_user_agents_are_missing() {
    let name = "traefik-no-headers.log";
    let site = Site::new().with("robots.txt", ROBOTS).with(name, log(name));
    let report = site.audit(&["--log", name, "--robots", "robots.txt", "--quiet"]);
    report.assert_code(0);
    assert!(
        report
            .stderr
            .contains("carry no user agent: crawlers can be found by address only"),
        "{}",
        report.stderr
    );
}

#[test]
fn nginx_escape_json_log() {
    let report = check_sample("nginx-json.log", "json (nginx)", 4, 0, 3, 2);
    let violations = String::from_utf8_lossy(&report.violations);
    // `\"` inside the JSON string is a quote of the target (CSV doubles it).
    assert!(violations.contains(r#""/private/""q""""#), "{violations}");
}

/// A JSON writer that escapes every slash (PHP's `json_encode`) writes the
/// protocol `HTTP\/1.1`: it is the protocol all the same, not the end of
/// the target, so `$` rules see the target as sent.
#[test]
fn an_escaped_slash_in_a_json_protocol_ends_the_target() {
    let line = |second: u32, target: &str| {
        format!(
            r#"{{"time_iso8601":"2026-11-30T00:00:0{second}+01:00","remote_addr":"77.75.77.123","request":"GET {target} HTTP\/1.1","status":"200","http_user_agent":"{SEZNAM_UA}"}}"#
        ) + "\n"
    };
    let text = line(1, r"\/a.pdf") + &line(2, "/b.pdf");
    let site = Site::new()
        .with("robots.txt", "User-agent: *\nDisallow: /*.pdf$\n")
        .with("access.log", text);
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt", "--quiet"]);
    report.assert_code(1);
    let violations = String::from_utf8_lossy(&report.violations);
    for target in ["/a.pdf", "/b.pdf"] {
        assert!(
            violations.contains(&format!(",GET,{target},200,disallow,")),
            "{violations}"
        );
    }
}

/// nginx formats that log `"time_local":"[$time_local]"` (the brackets
/// of `%t` kept inside the string) are chosen and read under auto.
#[test]
fn a_bracketed_clf_time_in_nginx_json_is_read_under_auto() {
    let line = |second: u32, target: &str| {
        format!(
            r#"{{"remote_addr":"77.75.77.123","remote_user":"-","time_local":"[30/Nov/2026:12:00:0{second} +0100]","request":"GET {target} HTTP/1.1","status":"200","body_bytes_sent":"612","http_referer":"-","http_user_agent":"{SEZNAM_UA}"}}"#
        ) + "\n"
    };
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", line(1, "/private/a") + &line(2, "/ok"));
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(1);
    assert!(
        report.stderr.contains("access.log is read as json (nginx)"),
        "{}",
        report.stderr
    );
    let violations = String::from_utf8_lossy(&report.violations);
    assert!(
        violations.contains("2026-11-30T12:00:01+01:00,access.log,1,77.75.77.123,"),
        "{violations}"
    );
    assert!(!violations.contains("/ok"), "{violations}");
}

/// A line of another server's JSON among Caddy's or Traefik's is a request
/// the schema cannot read, not the server's own message: skipped and
/// counted, so it can never vanish into "no request" on a clean night.
/// A file mostly of nginx lines is read as nginx's, its Caddy line skipped.
#[test]
fn another_servers_json_lines_are_never_taken_for_server_messages() {
    let nginx = |second: u32, target: &str| {
        format!(
            r#"{{"time_iso8601":"2026-11-30T12:00:0{second}+01:00","remote_addr":"77.75.77.123","request":"GET {target} HTTP/1.1","status":"200","http_user_agent":"{SEZNAM_UA}"}}"#
        ) + "\n"
    };
    let caddy = format!(
        r#"{{"level":"info","ts":1764500403.0,"logger":"http.log.access","msg":"handled request","request":{{"remote_ip":"77.75.77.123","method":"GET","uri":"/ok","headers":{{"User-Agent":["{SEZNAM_UA}"]}}}},"status":200}}"#
    ) + "\n";
    let site = Site::new().with("robots.txt", ROBOTS).with(
        "mixed.log",
        nginx(1, "/private/a") + &nginx(2, "/private/b") + &caddy,
    );
    for format in ["auto", "json"] {
        let report = site.audit(&[
            "--log",
            "mixed.log",
            "--robots",
            "robots.txt",
            "--log-format",
            format,
        ]);
        report.assert_code(1);
        assert!(
            report.stderr.contains("mixed.log is read as json (nginx)")
                && report.stderr.contains("1 of 3 lines skipped"),
            "{}",
            report.stderr
        );
        let violations = String::from_utf8_lossy(&report.violations);
        assert!(
            violations.contains("/private/a") && violations.contains("/private/b"),
            "{violations}"
        );
    }
    // Read as Caddy's (most of its lines are), the nginx line is a misfit,
    // never a message: its fetch is not lost unseen.
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("caddy.log", caddy.repeat(3) + &nginx(4, "/private/c"));
    let report = site.audit(&["--log", "caddy.log", "--robots", "robots.txt"]);
    assert!(
        report.stderr.contains("caddy.log is read as json (Caddy)")
            && report.stderr.contains("1 skipped")
            && !report.stderr.contains("no request"),
        "{}",
        report.stderr
    );
}

#[test]
fn vhost_combined_is_chosen_and_read_with_its_true_clients() {
    let site = Site::new()
        .with("robots.txt", data("formats/robots.txt"))
        .with("ptr-map.txt", data("formats/ptr-map.txt"))
        .with("access.log", data("formats/vhost_combined.log"));
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    assert!(
        report
            .stderr
            .contains("access.log is read as vhost_combined (the format"),
        "{}",
        report.stderr
    );
    let expected = |n: &str| common::data_text(&format!("formats/expected/{n}.csv"));
    report.assert_reports(
        &expected("violations"),
        &expected("impostors"),
        &expected("summary"),
    );
}

#[test]
fn a_vhost_combined_log_read_as_combined_is_skipped_never_shifted() {
    let line = format!(
        "www.example.cz:443 {}",
        combined(
            "77.75.77.123",
            &clf(1),
            "GET /private/ HTTP/1.1",
            200,
            SEZNAM_UA
        )
    );
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", line);
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--log-format",
        "combined",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("client is no address or host name"),
        "{}",
        run.stderr
    );
}

/// `text` as `access.log` beside the suite's robots.txt, audited into `o`
/// with `extra` flags first.
fn audit_text(text: &str, extra: &[&str]) -> (Site, common::Run) {
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", text);
    let mut args = extra.to_vec();
    args.extend([
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--out",
        "o",
    ]);
    let run = site.run(&args);
    (site, run)
}

/// Anyone may send `Authorization: Basic` with a user name holding a
/// blank, which nginx logs as sent. Two hundred such requests at the
/// start of a night used to make every sampled line a misfit, so the file
/// fitted no format and the crawler's fetches after them went unjudged.
#[test]
fn user_names_with_a_blank_at_the_start_do_not_stop_the_file() {
    let mut text: String = (0..200)
        .map(|i| {
            format!(
                "6.6.6.6 - a b [{}] \"GET /x{i} HTTP/1.1\" 200 5 \"-\" \"curl\"\n",
                clf(0)
            )
        })
        .collect();
    text.push_str(&combined(
        "77.75.77.123",
        &clf(1),
        "GET /private/ HTTP/1.1",
        200,
        SEZNAM_UA,
    ));
    let (site, run) = audit_text(&text, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
    assert!(violations.contains(",/private/,"), "{violations}");
}

/// From an IPv6 client written without brackets, the same requests also
/// fit vhost_combined: the address split as `host:port` before its last
/// `:`, nginx's identd `-` as the client. Such lines were counted for
/// vhost_combined, which has the most fields, and half of the sample made
/// it the file's format: every combined line after them skipped, a
/// genuine crawler's fetch unjudged, the spoofed ones rows of client `-`.
#[test]
fn user_names_with_a_blank_from_ipv6_never_make_a_log_vhost_combined() {
    let ptr_map = "2001:db8::5:1 attacker.example.net\n\
                   77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz\n";
    let request = |i: usize, user: &str| {
        format!(
            "2001:db8::5:1 - {user} [{}] \"GET /private/x{i} HTTP/1.1\" 401 5 \"-\" \"{SEZNAM_UA}\"\n",
            clf(0)
        )
    };
    let genuine = combined(
        "77.75.77.123",
        &clf(1),
        "GET /private/ HTTP/1.1",
        200,
        SEZNAM_UA,
    );
    // Half of the sample, then ordinary lines and the crawler's fetch.
    let mut text: String = (0..100).map(|i| request(i, "a b")).collect();
    for i in 0..100 {
        text.push_str(&combined(
            "192.0.2.7",
            &clf(0),
            &format!("GET /page{i} HTTP/1.1"),
            200,
            "curl/8.4.0",
        ));
    }
    text.push_str(&genuine);
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr.map", ptr_map)
        .with("access.log", &text);
    let args = [
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr.map",
        "--out",
        "o",
    ];
    let run = site.run(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("read as combined"), "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
    assert_eq!(violations.lines().count(), 2, "{violations}");
    assert!(violations.contains(",/private/,"), "{violations}");
    let impostors = std::fs::read_to_string(site.path("o/impostors.csv")).unwrap();
    assert_eq!(impostors.lines().count(), 101, "{impostors}");
    // `a -` skips its line in combined, as from an IPv4 client: a night
    // that opens with two hundred of them is refused, never read as
    // vhost_combined with `-` clients.
    let mut text: String = (0..200).map(|i| request(i, "a -")).collect();
    text.push_str(&genuine);
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr.map", ptr_map)
        .with("access.log", &text);
    let run = site.run(&args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("fit no log format"), "{}", run.stderr);
}

/// The user name with a blank is read after any address as servers write
/// one: bracketed and zoned IPv6 clients too (regression review).
#[test]
fn user_names_with_a_blank_after_bracketed_or_zoned_ipv6_are_read() {
    let text: String = [
        "[2001:db8::5:1]",
        "fe80::1%eth0",
        "2001:db8::5:1",
        "6.6.6.6",
    ]
    .iter()
    .enumerate()
    .map(|(i, client)| {
        format!(
            "{client} - a b [{}] \"GET /private/{i} HTTP/1.1\" 200 5 \"-\" \"{SEZNAM_UA}\"\n",
            clf(0)
        )
    })
    .collect();
    let (site, run) = audit_text(&text, &["--log-format", "combined"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
    assert_eq!(violations.lines().count(), 5, "{violations}");
    // A word that is an address, zoned or bracketed too, is a shifted
    // line's: skipped.
    let shifted: String = ["a fe80::1%eth0", "a [2001:db8::1]", "a 6.6.6.6", "a -"]
        .iter()
        .map(|user| {
            format!(
                "77.75.77.9 - {user} [{}] \"GET /private/x HTTP/1.1\" 200 5 \"-\" \"{SEZNAM_UA}\"\n",
                clf(0)
            )
        })
        .collect();
    let (_, run) = audit_text(&shifted, &["--log-format", "combined"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// A proxy format whose client is `X-Forwarded-For` logs `-` for a load
/// balancer's health checks: under `auto` they are lines read, so half a
/// sample of them and one line cut short never turn the log into common,
/// which would drop every user agent (regression review).
#[test]
fn health_checks_with_the_client_dash_keep_a_log_combined() {
    let check = |s: u32| {
        combined(
            "-",
            &clf(s),
            "GET /healthz HTTP/1.1",
            200,
            "ELB-HealthChecker/2.0",
        )
    };
    let mut text = String::new();
    for s in 0..100 {
        text.push_str(&check(s));
    }
    for s in 0..99 {
        text.push_str(&combined(
            "77.75.77.9",
            &clf(s),
            &format!("GET /private/{s} HTTP/1.1"),
            200,
            SEZNAM_UA,
        ));
    }
    text.push_str("198.51.100.9 - - [29/Nov/2026:03:00:03 +0100] \"GET /a HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (Windows NT 10.0\n");
    let (site, run) = audit_text(&text, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("read as combined"), "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
    assert_eq!(violations.lines().count(), 100, "{violations}");
}

#[test]
fn a_virtual_host_in_front_of_common_is_never_read_shifted() {
    // Apache's "Common Log Format with Virtual Host" (`%v %h %l %u …`)
    // fits combined only with the client's address as `%l` and `- -` as
    // `%u`: the site's own host name would be the client of every line,
    // and genuine crawler fetches impostors'. One-word fields hold no
    // blank, so it fits none of the named formats.
    let text: String = (0..4)
        .map(|i| {
            format!(
                "www.example.cz {}",
                combined(
                    "77.75.77.123",
                    &clf(i),
                    "GET /private/ HTTP/1.1",
                    200,
                    SEZNAM_UA
                )
            )
        })
        .collect();
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", &text);
    for format in ["auto", "combined"] {
        let run = site.run(&[
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--log-format",
            format,
            "--out",
            "o",
        ]);
        assert_eq!(run.code, 2, "{format}: {}", run.stderr);
        let impostors = std::fs::read_to_string(site.path("o/impostors.csv")).unwrap();
        assert_eq!(impostors.lines().count(), 1, "{format}: {impostors}");
    }
    // Told the format, it is read with its true clients.
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--log-format",
        r#"%v %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#,
        "--out",
        "o",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
    assert_eq!(violations.lines().count(), 5, "{violations}");
    assert!(
        violations
            .lines()
            .skip(1)
            .all(|l| l.contains(",77.75.77.123,"))
    );
}

/// A line that lacks a field, in a log whose lines carry fields after the
/// format's last (a site's `$request_time`, a second user agent), fits
/// only by moving every later value over by one: a browser's user agent
/// read as the referer and the appended field as the user agent, or an
/// address read as a size. Apache and nginx write a quote in no value
/// bare, and a size is a number: such lines are skipped, never read
/// shifted, and the lines around them read as written.
#[test]
fn a_line_that_lacks_a_field_is_skipped_never_read_shifted() {
    let browser = "Mozilla/5.0 (Windows NT 10.0; rv:120.0) Gecko/20100101 Firefox/120.0";
    let whole = |i: u32| {
        format!(
            "77.75.77.123 - - [{}] \"GET /private/{i} HTTP/1.1\" 200 512 \"-\" \"{SEZNAM_UA}\" \"x\"\n",
            clf(i)
        )
    };
    let cases: [(&str, String, String); 3] = [
        (
            "combined",
            // No %b: the referer's quote where the size stands.
            format!(
                "6.6.6.6 - - [{}] \"GET /private/a HTTP/1.1\" 200 \"-\" \"{browser}\" \"{SEZNAM_UA}\"\n",
                clf(5)
            ),
            (0..4).map(whole).collect(),
        ),
        (
            "combined",
            // A quote written bare in the user field, where no server
            // writes one.
            format!(
                "6.6.6.6 - \"-\" [{}] \"GET /private/b HTTP/1.1\" 200 5 \"-\" \"{SEZNAM_UA}\"\n",
                clf(5)
            ),
            (0..4).map(whole).collect(),
        ),
        (
            r#"[$time_local] "$request" $status $request_length $remote_addr "$http_user_agent""#,
            // No $request_length: the address where a number stands.
            format!(
                "[{}] \"GET /private/c HTTP/1.1\" 200 6.6.6.6 \"{SEZNAM_UA}\" \"x\"\n",
                clf(5)
            ),
            (0..4)
                .map(|i| {
                    format!(
                        "[{}] \"GET /private/{i} HTTP/1.1\" 200 310 77.75.77.123 \"{SEZNAM_UA}\" \"x\"\n",
                        clf(i)
                    )
                })
                .collect(),
        ),
    ];
    for (format, odd, around) in cases {
        let site = Site::new()
            .with("robots.txt", ROBOTS)
            .with("access.log", format!("{around}{odd}"));
        let run = site.run(&[
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--log-format",
            format,
            "--out",
            "o",
        ]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert!(
            run.stderr.contains("access.log:5: skipped"),
            "{format}: {}",
            run.stderr
        );
        let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
        assert_eq!(violations.lines().count(), 5, "{format}: {violations}");
        assert!(
            violations
                .lines()
                .skip(1)
                .all(|l| l.contains(",77.75.77.123,")),
            "{format}: {violations}"
        );
    }
}

/// A quote Apache escaped (`\"`) in a field written without quotes is
/// no bare quote: the line is read.
#[test]
fn an_escaped_quote_in_an_unquoted_field_is_read() {
    let text: String = (0..3)
        .map(|i| {
            format!(
                "77.75.77.123 - - [{}] \"GET /private/{i} HTTP/1.1\" 200 512 a\\\"b \"{SEZNAM_UA}\"\n",
                clf(i)
            )
        })
        .collect();
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", text);
    let run = site.run(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--log-format",
        r#"%h %l %u %t "%r" %>s %b %{X-Note}i "%{User-agent}i""#,
        "--out",
        "o",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let violations = std::fs::read_to_string(site.path("o/violations.csv")).unwrap();
    assert_eq!(violations.lines().count(), 4, "{violations}");
}

/// SeznamBot's fetch of a disallowed page, as combined writes it, at
/// `clf(i)`.
fn private_fetch(i: u32) -> String {
    combined(
        "77.75.77.123",
        &clf(i),
        "GET /private/x HTTP/1.1",
        200,
        SEZNAM_UA,
    )
}

#[test]
fn one_odd_line_never_turns_combined_into_common() {
    let mut text: String = (0..9).map(private_fetch).collect();
    text.push_str(&format!(
        "77.75.77.123 - - [{}] \"GET /private/y HTTP/1.1\" 200 512\n",
        clf(10)
    ));
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", text);
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(1);
    assert!(
        report
            .stderr
            .contains("access.log is read as combined (the format"),
        "{}",
        report.stderr
    );
    assert_eq!(seznam_disallow(&report.summary), (9, 9));
}

#[test]
fn a_file_that_fits_nothing_is_an_error_for_that_file_alone() {
    let good = private_fetch(1);
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("good.log", good)
        .with(
            "odd.log",
            "<html><body>not a log</body></html>\nnor is this\n",
        )
        .with(
            "keys.log",
            "{\"ip\":\"77.75.77.123\",\"when\":1,\"what\":\"GET /\"}\n",
        );
    let report = site.audit(&[
        "--log",
        "good.log",
        "--log",
        "odd.log",
        "--log",
        "keys.log",
        "--robots",
        "robots.txt",
    ]);
    report.assert_code(2);
    assert!(
        report
            .stderr
            .contains("odd.log:1: its first lines fit no log format")
            && report.stderr.contains("the closest is"),
        "{}",
        report.stderr
    );
    assert!(
        report
            .stderr
            .contains("keys.log:1: JSON whose keys are neither")
            && report.stderr.contains("json:client=FIELD"),
        "{}",
        report.stderr
    );
    // The good log is still audited and reported.
    assert_eq!(seznam_disallow(&report.summary), (1, 1));
    let files = run_files(&site);
    assert_eq!(files[0]["format"], "combined");
    assert_eq!(files[1]["format"], "auto");
    assert!(
        files[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("closest"))
    );
}

#[test]
fn local_times_without_an_offset_need_a_zone() {
    let text = "#Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status\n2026-11-30 00:00:01 77.75.77.1 GET / 200\n";
    let site = Site::new().with("robots.txt", ROBOTS).with("iis.log", text);
    let run = site.run(&["--log", "iis.log", "--robots", "robots.txt"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("iis.log") && run.stderr.contains("needs --log-tz"),
        "{}",
        run.stderr
    );
    // A #GMT-Offset directive places them.
    let placed = format!("#GMT-Offset: +01:00\n{text}");
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("iis.log", placed);
    let run = site.run(&["--log", "iis.log", "--robots", "robots.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn json_keys_named_by_hand() {
    let line = format!(
        "{{\"src\":{{\"ip\":\"77.75.77.123\"}},\"when\":1764460801123,\"verb\":\"GET\",\"path\":\"/private/q\",\"code\":200,\"ua\":\"{SEZNAM_UA}\"}}\n"
    );
    let site = Site::new().with("robots.txt", ROBOTS).with("app.log", line);
    let report = site.audit(&[
        "--log",
        "app.log",
        "--robots",
        "robots.txt",
        "--log-format",
        "json:client=src.ip,time=when:ms,method=verb,target=path,status=code,user_agent=ua",
    ]);
    report.assert_code(1);
    assert_eq!(seznam_disallow(&report.summary), (1, 1));
    let violations = String::from_utf8_lossy(&report.violations);
    assert!(
        violations.contains("2025-11-30T00:00:01.123+00:00"),
        "{violations}"
    );
}

#[test]
fn w3c_fields_changed_past_the_first_chunks_are_followed_at_every_thread_count() {
    // Some megabytes of IIS lines, so that the change of fields falls in a
    // later chunk than the one the format was chosen from; the workers
    // read chunks in parallel and each must know the fields in force.
    let ua = SEZNAM_UA.replace(' ', "+");
    let mut text = String::from(
        "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port c-ip cs(User-Agent) sc-status\n",
    );
    let mut seznam = 0;
    for i in 0..40_000u32 {
        let (h, m, s) = (i / 3600 % 24, i / 60 % 60, i % 60);
        if i % 1000 == 0 {
            seznam += 1;
            text.push_str(&format!("2026-11-30 {h:02}:{m:02}:{s:02} 10.0.0.1 GET /private/{i} - 443 77.75.77.123 {ua} 200\n"));
        } else {
            text.push_str(&format!("2026-11-30 {h:02}:{m:02}:{s:02} 10.0.0.1 GET /page/{i} q=1 443 198.51.100.{} Mozilla/5.0+(X11) 200\n", i % 250));
        }
    }
    assert!(text.len() > 3 << 20);
    // Other fields in another order: read by the old ones, these lines
    // would have `GET` as client and be skipped.
    text.push_str("#Fields: date time cs-method c-ip cs-uri-stem sc-status cs(User-Agent)\n");
    for i in 0..5 {
        seznam += 1;
        text.push_str(&format!(
            "2026-11-30 23:59:5{i} GET 77.75.77.124 /private/late{i} 200 {ua}\n"
        ));
    }
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("u_ex.log", &text);
    let report = site.audit(&["--log", "u_ex.log", "--robots", "robots.txt"]);
    report.assert_code(1);
    assert_eq!(seznam_disallow(&report.summary), (seznam, seznam));
    let files = run_files(&site);
    assert_eq!(files[0]["lines_skipped"], 0, "{}", report.stderr);
    let violations = String::from_utf8_lossy(&report.violations);
    assert!(
        violations.contains(",77.75.77.124,") && violations.contains("/private/late4"),
        "{violations}"
    );
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_no_part_of_it() {
    // IIS writes its UTF-8 W3C logs with a byte-order mark before
    // `#Software:`; the mark must not hide the directives, nor a combined
    // log's first client.
    let w3c = "\u{feff}#Software: Microsoft Internet Information Services 10.0\n\
               #Version: 1.0\n\
               #Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) sc-status\n\
               2026-11-30 09:00:00 10.0.0.2 GET /private/a - 443 - 77.75.77.1 Mozilla/5.0+(compatible;+SeznamBot/4.0) 200\n";
    let text = format!(
        "\u{feff}{}",
        combined(
            "77.75.77.1",
            &clf(1),
            "GET /private/b HTTP/1.1",
            200,
            SEZNAM_UA
        )
    );
    for (log, line) in [(w3c.to_string(), 4), (text, 1)] {
        let site = Site::new()
            .with("robots.txt", ROBOTS)
            .with("access.log", &log);
        let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
        report.assert_code(1);
        let rows = String::from_utf8_lossy(&report.violations).into_owned();
        let cells: Vec<&str> = rows.lines().nth(1).unwrap_or_default().split(',').collect();
        assert_eq!(
            cells.get(2..4),
            Some(&[&*line.to_string(), "77.75.77.1"][..]),
            "{rows}"
        );
        assert!(report.stderr.contains("0 skipped"), "{}", report.stderr);
    }
}

/// A crawler's name that the log writes in its own escapes — JSON's
/// `\u0053`, CloudFront's `%53` — is found once decoded, as the same name
/// written plainly: the line is neither dropped unread nor let off.
#[test]
fn crawler_names_written_in_the_logs_escapes_are_found() {
    let caddy = |remote: &str, ts: u32, uri: &str| {
        format!(
            r#"{{"level":"info","ts":{}.5,"logger":"http.log.access","msg":"handled request","request":{{"remote_ip":"{remote}","method":"GET","host":"x","uri":"{uri}","headers":{{"User-Agent":["\u0053eznamBot/4.0 \u0028x\u0029"]}}}},"status":200}}"#,
            1_764_460_800 + ts
        ) + "\n"
    };
    let cloudfront = "#Version: 1.0\n\
        #Fields: date time x-edge-location c-ip cs-method cs(Host) cs-uri-stem sc-status cs(User-Agent)\n\
        2026-11-29\t04:00:02\tPRG50-C1\t77.75.77.123\tGET\td1.cloudfront.net\t/private/a\t200\t%53eznamBot/4.0%20(x)\n\
        2026-11-29\t04:00:03\tPRG50-C1\t6.6.6.6\tGET\td1.cloudfront.net\t/private/b\t200\tMozilla/5.0%20(compatible;%20%53eznam%42ot/4.0)\n";
    // Some writers quote a W3C user agent (the draft's quoted string).
    let quoted = "#Fields: date time c-ip cs-method cs(User-Agent) cs-uri-stem sc-status\n\
        2026-11-29 04:00:04 77.75.77.123 GET \"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)\" /private/c 200\n";
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with(
            "ptr-map.txt",
            "77.75.77.123 fulltextrobot-77-75-77-123.seznam.cz\n6.6.6.6 evil.example.com\n",
        )
        .with(
            "caddy.log",
            caddy("77.75.77.123", 0, "/private/d") + &caddy("6.6.6.6", 1, "/private/e"),
        )
        .with("cloudfront.log", cloudfront)
        .with("quoted.log", quoted);
    let report = site.audit(&[
        "--log",
        "caddy.log",
        "--log",
        "cloudfront.log",
        "--log",
        "quoted.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    report.assert_code(1);
    let violations = String::from_utf8_lossy(&report.violations);
    for target in ["/private/a", "/private/c", "/private/d"] {
        assert!(
            violations.contains(&format!(",SeznamBot,ptr-only,ua+ptr,GET,{target},")),
            "{target}:\n{violations}"
        );
    }
    let impostors = String::from_utf8_lossy(&report.impostors);
    assert!(
        impostors.contains(",SeznamBot,GET,/private/b,200,Mozilla/5.0 (compatible; SeznamBot/4.0)"),
        "{impostors}"
    );
    assert!(
        impostors.contains(",SeznamBot,GET,/private/e,200,SeznamBot/4.0 (x)"),
        "{impostors}"
    );
}

/// A log of two lines, one combined and one of common's shape, is read as
/// combined (a tie goes to the most fields, SPEC §1 "one odd line never
/// turns a combined log into common"): the odd line is skipped and
/// counted, the other's user agent read — here an impostor's.
#[test]
fn a_tie_between_combined_and_common_goes_to_combined() {
    let text = format!(
        "1.2.3.4 - - [{}] \"GET / HTTP/1.1\" 200 12\n{}",
        clf(0),
        combined(
            "6.6.6.6",
            &clf(1),
            "GET /private/1 HTTP/1.1",
            200,
            SEZNAM_UA
        )
    );
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("ptr-map.txt", "6.6.6.6 evil.example.com\n")
        .with("access.log", text);
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--ptr-map",
        "ptr-map.txt",
    ]);
    assert!(
        report
            .stderr
            .contains("access.log is read as combined (the format"),
        "{}",
        report.stderr
    );
    let impostors = String::from_utf8_lossy(&report.impostors);
    assert!(
        impostors.contains(",6.6.6.6,evil.example.com,SeznamBot,"),
        "{impostors}"
    );
    let files = run_files(&site);
    assert_eq!(files[0]["format"], "combined");
    assert_eq!(files[0]["lines_skipped"], 1);
}

/// A log with no line to choose a format by is given none: run.json says
/// `auto`, beside the error that it is empty.
#[test]
fn an_empty_log_has_no_format_chosen() {
    for text in ["", "\n\n"] {
        let site = Site::new()
            .with("robots.txt", ROBOTS)
            .with("access.log", text);
        let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
        report.assert_code(2);
        let files = run_files(&site);
        assert_eq!(files[0]["format"], "auto", "{text:?}");
    }
}

/// `--log-format json` (or `w3c`) given for a log of another kind: the
/// file is an error (exit 2) whose message says the lines are not of the
/// format given, never that no `--log-format` was given.
#[test]
fn a_log_not_of_the_format_given_is_said_so() {
    let line = private_fetch(1);
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", line.repeat(3));
    for (given, closest) in [
        ("json", "the closest is json"),
        ("w3c", "the closest is w3c"),
    ] {
        let report = site.audit(&[
            "--log",
            "access.log",
            "--robots",
            "robots.txt",
            "--log-format",
            given,
        ]);
        report.assert_code(2);
        assert!(
            report
                .stderr
                .contains("access.log:1: its first lines are not of the --log-format given")
                && report.stderr.contains(closest)
                && !report.stderr.contains("give --log-format"),
            "{given}: {}",
            report.stderr
        );
    }
}

/// nginx's `$host $remote_addr - [$time_local] …` fits combined only with
/// the site's host as the client and the crawler's address as the ident:
/// read so, the host would be the client, its name no Seznam PTR name, and
/// the crawler an impostor. An address as the ident or user is a line cut
/// in the wrong places: under `auto` the file fits no format (exit 2,
/// loud); given its format, it is read as written.
#[test]
fn a_host_in_front_of_the_client_is_never_read_as_combined() {
    let text: String = (0..5)
        .map(|i| {
            format!(
                "www.example.cz 77.75.77.123 - [{}] \"GET /private/x{i} HTTP/1.1\" 200 5 \"-\" \"{SEZNAM_UA}\"\n",
                clf(i)
            )
        })
        .collect();
    let site = Site::new()
        .with("robots.txt", ROBOTS)
        .with("access.log", text);
    let report = site.audit(&["--log", "access.log", "--robots", "robots.txt"]);
    report.assert_code(2);
    assert_eq!(
        String::from_utf8_lossy(&report.impostors).lines().count(),
        1,
        "no impostor rows: {}",
        String::from_utf8_lossy(&report.impostors)
    );
    let report = site.audit(&[
        "--log",
        "access.log",
        "--robots",
        "robots.txt",
        "--log-format",
        r#"%v %h %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#,
    ]);
    report.assert_code(1);
    assert_eq!(seznam_disallow(&report.summary), (5, 5));
    assert_eq!(
        String::from_utf8_lossy(&report.impostors).lines().count(),
        1
    );
}
