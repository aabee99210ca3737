//! Choosing a file's format from its first lines (SPEC §1 `auto`).

use super::*;

fn chunk(text: &str) -> Chunk {
    Chunk {
        first_line: 1,
        line_count: text.lines().count() as u64,
        data: text.as_bytes().to_vec(),
        too_long: Vec::new(),
    }
}

fn chosen(text: &str) -> Result<String, String> {
    FormatChoice::new("auto")?
        .choose(Some(&chunk(text)))
        .map(|f| f.name())
        .map_err(|unfit| unfit.cause)
}

const UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";

fn combined(n: usize) -> String {
    (0..n)
        .map(|i| format!("77.75.77.{i} - - [30/Nov/2026:00:00:0{} +0100] \"GET /{i} HTTP/1.1\" 200 5 \"-\" \"{UA}\"\n", i % 10))
        .collect()
}

#[test]
fn each_kind_is_recognised() {
    assert_eq!(chosen(&combined(5)).as_deref(), Ok("combined"));
    let vhost: String = combined(5)
        .lines()
        .map(|l| format!("www.example.cz:443 {l}\n"))
        .collect();
    assert_eq!(chosen(&vhost).as_deref(), Ok("vhost_combined"));
    let common: String = combined(5)
        .lines()
        .map(|l| format!("{}\n", &l[..l.find(" \"-\"").unwrap_or(l.len())]))
        .collect();
    assert_eq!(chosen(&common).as_deref(), Ok("common"));
    let caddy = r#"{"level":"info","ts":1646861401.5,"msg":"using provided configuration"}
{"level":"info","ts":1646861401.5,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"127.0.0.1","method":"GET","uri":"/","headers":{"User-Agent":["curl/7.82.0"]}},"status":200}
"#;
    assert_eq!(chosen(caddy).as_deref(), Ok("json (Caddy)"));
    let traefik = r#"{"ClientAddr":"192.0.2.10:5678","RequestMethod":"GET","RequestPath":"/","DownstreamStatus":200,"StartUTC":"2023-07-18T08:03:58Z"}"#;
    assert_eq!(chosen(traefik).as_deref(), Ok("json (Traefik)"));
    let nginx = r#"{"remote_addr":"77.75.77.1","time_iso8601":"2026-11-30T00:00:01+01:00","request":"GET / HTTP/1.1","status":"200"}"#;
    assert_eq!(chosen(nginx).as_deref(), Ok("json (nginx)"));
    let iis = "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time c-ip cs-method cs-uri-stem sc-status\n2026-11-30 00:00:01 77.75.77.1 GET / 200\n";
    assert_eq!(chosen(iis).as_deref(), Ok("w3c"));
}

#[test]
fn one_odd_line_never_turns_combined_into_common() {
    let mut text = combined(9);
    text.push_str("77.75.77.9 - - [30/Nov/2026:00:00:09 +0100] \"GET / HTTP/1.1\" 200 5\n");
    assert_eq!(chosen(&text).as_deref(), Ok("combined"));
}

#[test]
fn one_line_of_combined_shape_never_turns_common_into_combined() {
    let mut text: String = combined(9)
        .lines()
        .map(|l| format!("{}\n", &l[..l.find(" \"-\"").unwrap_or(l.len())]))
        .collect();
    text.push_str(&combined(1));
    assert_eq!(chosen(&text).as_deref(), Ok("common"));
}

#[test]
fn a_format_that_fits_a_minority_never_wins_for_its_fields() {
    // Two vhost_combined lines around four combined ones: vhost_combined
    // has more fields, but combined fits most of the lines (SPEC §1).
    let vhost = |l: &str| format!("www.example.cz:443 {l}\n");
    let lines: Vec<String> = combined(6).lines().map(str::to_string).collect();
    let mut text = vhost(&lines[0]);
    for l in &lines[1..5] {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str(&vhost(&lines[5]));
    assert_eq!(chosen(&text).as_deref(), Ok("combined"));
    // Three of nine: the same.
    let mut text = combined(6);
    for l in &lines[..3] {
        text.push_str(&vhost(l));
    }
    assert_eq!(chosen(&text).as_deref(), Ok("combined"));
    // Half and half: both fit half, and the one with the most fields is
    // read (its odd lines skipped and counted, never read shifted).
    let mut text = combined(3);
    for l in &lines[..3] {
        text.push_str(&vhost(l));
    }
    assert_eq!(chosen(&text).as_deref(), Ok("vhost_combined"));
}

#[test]
fn the_first_misfit_is_named_by_its_line() {
    let text = "\n\nhello world\n";
    let unfit = FormatChoice::new("auto")
        .expect("known")
        .choose(Some(&chunk(text)))
        .expect_err("fits nothing");
    assert_eq!(unfit.line, Some(3));
}

#[test]
fn a_vhost_combined_line_never_reads_as_combined() {
    let line = format!("www.example.cz:443 {}", combined(1));
    let format = LogFormat::new(COMBINED).expect("compiles");
    assert_eq!(
        format.parse(line.trim_end().as_bytes()),
        Err(Skip::BadClient)
    );
}

#[test]
fn nothing_fits() {
    let err = chosen("hello world\nthis is no log\n").expect_err("fits nothing");
    assert!(err.contains("closest is"), "{err}");
    let json = r#"{"ip":"1.2.3.4","when":"x","what":"GET /"}"#;
    let err = chosen(json).expect_err("unknown keys");
    assert!(
        err.contains("ip, ") && err.contains("when") && err.contains("json:client="),
        "{err}"
    );
    let local = "#Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status\n2026-11-30 00:00:01 77.75.77.1 GET / 200\n";
    let err = chosen(local).expect_err("no offset");
    assert!(err.contains("needs --log-tz"), "{err}");
}

#[test]
fn the_reason_given_is_the_lines_own() {
    // Every candidate reads nothing; the one whose fields fit the shape
    // of the line names the value that failed.
    let ua = "Mozilla/5.0 (compatible; SeznamBot/4.0)";
    let cases = [
        (
            format!(
                "77.75.77.123 - - [2026-11-29 10:00:00] \"GET /a HTTP/1.1\" 200 1 \"-\" \"{ua}\""
            ),
            "closest is combined, which reads 0 of 1 lines, the first misfit here: bad time",
        ),
        (
            format!(
                "77.75.77.123:5555 - - [29/Nov/2026:00:06:24 +0100] \"GET /a HTTP/1.1\" 200 1 \"-\" \"{ua}\""
            ),
            "closest is combined, which reads 0 of 1 lines, the first misfit here: client is no address or host name",
        ),
        (
            "#Fields: date time c-ip cs-method sc-status\n2026-11-29 10:00:00 77.75.77.123 GET 200"
                .to_string(),
            "a W3C log whose #Fields: line names no cs-uri-stem (or cs-uri)",
        ),
        (
            // IIS and CloudFront lines whose header was cut off: no format
            // reads them, and the missing `#Fields:` line is the cause.
            "2026-11-28 23:01:41 10.0.0.5 GET /a - 443 - 77.75.77.123 SeznamBot/4.0 - 200 0 0 15
\
             2026-11-28\t23:01:42\tPRG50\t512\t77.75.77.123\tGET\td1.cloudfront.net\t/a\t200"
                .to_string(),
            "look like W3C extended lines (IIS, CloudFront: a date and a time, then fields apart \
             by blanks), but no #Fields: line among the first names their fields",
        ),
    ];
    for (log, want) in cases {
        let err = chosen(&format!("{log}\n")).expect_err("fits nothing");
        assert!(err.contains(want), "{err}");
    }
    // A foreign line no candidate reads: the closest named is combined,
    // not the candidate with most fields.
    let aiohttp = "77.75.77.123 [28/Nov/2026:23:01:41 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"SeznamBot/4.0\"\n";
    let err = chosen(aiohttp).expect_err("fits nothing");
    assert!(err.contains("the closest is combined,"), "{err}");
    // A vhost_combined log whose only fault is its time: a value failed,
    // so the candidate of most fields whose shape fits is named.
    let vhost = "www.a.cz:443 77.75.77.1 - - [2026-10-10T13:55:36+02:00] \"GET /a HTTP/1.1\" 200 5 \"-\" \"SeznamBot/4.0\"\n";
    let err = chosen(vhost).expect_err("fits nothing");
    assert!(err.contains("the closest is vhost_combined,"), "{err}");
    // A time-first line with quoted fields is another format's, not W3C's.
    let custom =
        "2026-11-28 23:01:41 77.75.77.123 \"GET /a HTTP/1.1\" 200 512 \"-\" \"SeznamBot/4.0\"\n";
    let err = chosen(custom).expect_err("fits nothing");
    assert!(!err.contains("W3C"), "{err}");
}

#[test]
fn fixed_formats_are_not_chosen() {
    let choice = FormatChoice::new("common").expect("known");
    assert!(!choice.chooses());
    let format = choice.choose(Some(&chunk(&combined(3)))).expect("fixed");
    assert_eq!(format.name(), "common");
    assert!(FormatChoice::new("json:client=a").is_err());
    assert_eq!(
        FormatChoice::new("json:client=a,time=b,request=c")
            .and_then(|c| c.choose(None).map(|f| f.name()).map_err(|u| u.cause))
            .as_deref(),
        Ok("json (client=a,time=b,request=c)")
    );
}

#[test]
fn json_chooses_among_the_known_schemas_only() {
    let traefik = r#"{"ClientAddr":"192.0.2.10:5678","RequestMethod":"GET","RequestPath":"/","DownstreamStatus":200,"StartUTC":"2023-07-18T08:03:58Z"}"#;
    let json = FormatChoice::new("json").expect("known");
    assert!(json.chooses());
    assert_eq!(
        json.choose(Some(&chunk(traefik))).map(|f| f.name()),
        Ok("json (Traefik)".to_string())
    );
    let unfit = json
        .choose(Some(&chunk(&combined(3))))
        .expect_err("no JSON");
    assert!(unfit.cause.contains("closest is json"), "{}", unfit.cause);
    let custom = r#"%h [%t] "%r" %>s"#;
    assert_eq!(
        FormatChoice::new(custom)
            .and_then(|c| c.choose(None).map(|f| f.name()).map_err(|u| u.cause)),
        Ok(custom.to_string())
    );
}

#[test]
fn fields_travel_from_chunk_to_chunk() {
    let first = chunk(
        "#Fields: date time c-ip cs-method cs-uri-stem sc-status\n2026-11-30 00:00:01 77.75.77.1 GET / 200\n",
    );
    let second = chunk(
        "2026-11-30 00:00:02 77.75.77.1 GET /b 200\n#Fields: date time cs-method cs-uri-stem c-ip sc-status\n2026-11-30 00:00:03 GET /c 77.75.77.2 200\n",
    );
    let start = FormatChoice::new("w3c")
        .expect("known")
        .choose(Some(&first))
        .expect("w3c");
    let at_second = carry(&start, &first);
    let mut parser = at_second.parser();
    let read: Vec<Vec<u8>> = second
        .lines()
        .filter_map(|l| parser.parse(l.text).ok())
        .map(|e| e.client.to_vec())
        .collect();
    assert_eq!(read, [b"77.75.77.1".to_vec(), b"77.75.77.2".to_vec()]);
    // A chunk without directives hands on the same format.
    let plain = chunk("2026-11-30 00:00:02 77.75.77.1 GET /b 200\n");
    assert!(Arc::ptr_eq(&carry(&at_second, &plain), &at_second));
}

fn prague() -> super::super::LogTz {
    super::super::LogTz::parse("Europe/Prague").expect("the system knows Prague")
}

/// The time of the first line `format` reads from `text`, as written back.
fn first_time(format: &FileFormat, text: &str) -> Option<String> {
    let mut parser = format.parser();
    text.lines()
        .find_map(|l| parser.parse(l.as_bytes()).ok())
        .map(|e| e.time.rfc3339())
}

#[test]
fn json_times_without_an_offset_need_a_zone() {
    let mapping = "json:client=ip,time=time,request=req";
    let text = "{\"ip\":\"77.75.77.1\",\"time\":\"2026-11-29T14:00:00+01:00\",\"req\":\"GET / HTTP/1.1\"}\n\
                {\"ip\":\"77.75.77.1\",\"time\":\"2026-11-29 14:00:01\",\"req\":\"GET / HTTP/1.1\"}\n";
    let unfit = FormatChoice::new(mapping)
        .expect("compiles")
        .choose(Some(&chunk(text)))
        .expect_err("never read as UTC");
    assert_eq!(unfit.line, Some(2));
    assert!(unfit.cause.contains("needs --log-tz"), "{}", unfit.cause);
    let format = FormatChoice::new(mapping)
        .expect("compiles")
        .with_zone(Some(prague()))
        .choose(Some(&chunk(text)))
        .expect("placed in Prague");
    let local = text.lines().nth(1).unwrap_or_default();
    assert_eq!(
        first_time(&format, local).as_deref(),
        Some("2026-11-29T14:00:01+01:00")
    );
    // A time with an offset keeps its own.
    assert_eq!(
        first_time(&format, text).as_deref(),
        Some("2026-11-29T14:00:00+01:00")
    );
}

#[test]
fn a_known_json_schema_with_local_times_asks_for_a_zone_not_a_mapping() {
    let text = "{\"remote_addr\":\"77.75.77.1\",\"time_iso8601\":\"2026-11-29T14:00:00.250\",\"request\":\"GET / HTTP/1.1\",\"status\":\"200\"}\n";
    let err = chosen(text).expect_err("no offset");
    assert!(
        err.contains("json (nginx)") && err.contains("needs --log-tz"),
        "{err}"
    );
    let format = FormatChoice::new("auto")
        .expect("known")
        .with_zone(Some(prague()))
        .choose(Some(&chunk(text)))
        .expect("placed in Prague");
    assert_eq!(format.name(), "json (nginx)");
    assert_eq!(
        first_time(&format, text).as_deref(),
        Some("2026-11-29T14:00:00.250+01:00")
    );
}

/// nginx JSON of the user's own key names (a shop's `request_type`,
/// `request_path`) whose times carry no offset: no known schema holds its
/// request, so it is asked for a mapping; asked for a zone first, the user
/// gave one only to be asked for the mapping on the next run.
#[test]
fn unknown_keys_with_local_times_ask_for_a_mapping_not_a_zone() {
    let line = r#"{"remote_addr":"77.75.77.123","remote_user":"-","run_time":"6","time_local":"2019-01-22 00:26:14.000","request_type":"GET","request_path":"/a","request_protocol":"HTTP/1.1","status":"200","size":"30577","referer":"-","user_agent":"SeznamBot/4.0"}"#;
    let text = format!("{line}\n").repeat(3);
    for zone in [None, Some(prague())] {
        let cause = FormatChoice::new("auto")
            .expect("known")
            .with_zone(zone)
            .choose(Some(&chunk(&text)))
            .expect_err("no known schema")
            .cause;
        assert!(
            cause.contains("neither Caddy's, Traefik's nor nginx's")
                && cause.contains("request_path")
                && !cause.contains("--log-tz"),
            "{cause}"
        );
    }
}

#[test]
fn w3c_local_times_take_the_zone_unless_the_file_gives_its_offset() {
    let local = "#Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status\n\
                 2026-10-25 02:30:00 77.75.77.1 GET / 200\n";
    let format = FormatChoice::new("auto")
        .expect("known")
        .with_zone(Some(prague()))
        .choose(Some(&chunk(local)))
        .expect("placed in Prague");
    assert_eq!(format.name(), "w3c");
    // 02:30 happens twice that night: the earlier, summer time.
    assert_eq!(
        first_time(&format, local).as_deref(),
        Some("2026-10-25T02:30:00+02:00")
    );
    let stated = format!("#GMT-Offset: +01:00\n{local}");
    assert_eq!(
        first_time(&format, &stated).as_deref(),
        Some("2026-10-25T02:30:00+01:00")
    );
    // UTC fields need no zone.
    let utc = local.replace("date-local time-local", "date time");
    let format = FormatChoice::new("w3c")
        .expect("known")
        .choose(Some(&chunk(&utc)))
        .expect("UTC");
    assert_eq!(
        first_time(&format, &utc).as_deref(),
        Some("2026-10-25T02:30:00+00:00")
    );
}

#[test]
fn w3c_fields_turning_local_in_the_first_lines_need_a_zone() {
    let text = "#Fields: date time c-ip cs-method cs-uri-stem sc-status\n\
                2026-11-30 00:00:01 77.75.77.1 GET / 200\n\
                2026-11-30 00:00:02 77.75.77.1 GET / 200\n\
                #Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status\n\
                2026-11-30 01:00:03 77.75.77.1 GET / 200\n";
    for choice in ["auto", "w3c"] {
        let unfit = FormatChoice::new(choice)
            .expect("known")
            .choose(Some(&chunk(text)))
            .expect_err("never read as UTC");
        assert_eq!(unfit.line, Some(5), "{choice}");
        assert!(unfit.cause.contains("needs --log-tz"), "{}", unfit.cause);
        FormatChoice::new(choice)
            .expect("known")
            .with_zone(Some(prague()))
            .choose(Some(&chunk(text)))
            .expect("placed in Prague");
    }
}

#[test]
fn a_last_line_the_server_is_still_writing_does_not_choose_the_format() {
    // A live log of one combined line and one cut in its user agent: the
    // cut line fits common, and two of two lines against one of two
    // would choose it if the tie went to the fewer fields.
    let text = format!(
        "{}77.75.77.2 - - [30/Nov/2026:00:00:02 +0100] \"GET /b HTTP/1.1\" 200 5 \"-\" \"Mozilla/5.0 (compat\n",
        combined(1)
    );
    let choice = FormatChoice::new("auto").unwrap();
    let name = |unfinished| {
        choice
            .choose_by(Some(&chunk(&text)), unfinished)
            .map(|f| f.name())
            .map_err(|unfit| unfit.cause)
    };
    assert_eq!(name(true).as_deref(), Ok("combined"));
    assert_eq!(name(false).as_deref(), Ok("combined"));
    // A file of that one cut line is still chosen by it.
    let alone = chunk(text.lines().nth(1).unwrap());
    assert!(choice.choose_by(Some(&alone), true).is_ok());
    // So is a file whose other lines choose nothing: a junk line, then a
    // request not ended yet.
    let junk_first = format!("junk\n{}", combined(1).trim_end());
    assert_eq!(
        choice
            .choose_by(Some(&chunk(&junk_first)), true)
            .map(|f| f.name())
            .map_err(|unfit| unfit.cause)
            .as_deref(),
        Ok("combined")
    );
}

#[test]
fn a_json_log_that_starts_with_its_servers_messages_is_known_by_them() {
    // More of the server's own messages than the sample holds, then a
    // request: a debug start-up or a burst of TLS handshake errors in a
    // Docker log. The messages name the server.
    let caddy_message = r#"{"level":"debug","ts":1795913991.0,"logger":"http.stdlib","msg":"http: TLS handshake error from 45.148.10.1:40000: EOF"}"#;
    let caddy_request = r#"{"level":"info","ts":1795913999.5,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"77.75.77.182","method":"GET","uri":"/private/1","headers":{"User-Agent":["SeznamBot/4.0"]}},"status":200}"#;
    let traefik_v2 = r#"{"level":"debug","msg":"Configuration received","providerName":"docker","time":"2026-11-29T11:40:00Z"}"#;
    let traefik_v3 = r#"{"level":"debug","message":"Configuration received","providerName":"docker","time":"2026-11-29T11:40:00Z"}"#;
    let many =
        |line: &str, last: &str| format!("{}{last}\n", format!("{line}\n").repeat(SAMPLE + 20));
    for (text, name) in [
        (many(caddy_message, caddy_request), "json (Caddy)"),
        (many(caddy_message, ""), "json (Caddy)"),
        (many(traefik_v2, ""), "json (Traefik)"),
        (many(traefik_v3, ""), "json (Traefik)"),
    ] {
        assert_eq!(chosen(&text).as_deref(), Ok(name), "{}", &text[..60]);
        let json = FormatChoice::new("json").expect("known");
        assert_eq!(
            json.choose(Some(&chunk(&text))).map(|f| f.name()),
            Ok(name.to_string())
        );
    }
    // JSON of no known server, messages or not, still asks for a mapping.
    let unknown = r#"{"level":"info","msg":"started","at":"2026-11-29T11:40:00Z"}"#;
    let cause = chosen(&many(unknown, "")).expect_err("unknown keys");
    assert!(
        cause.contains("neither Caddy's, Traefik's nor nginx's"),
        "{cause}"
    );
}

/// JSON with a known server's keys whose values fail on every line is
/// that server's log with bad values: the message names the schema and
/// the value, not "keys neither Caddy's, Traefik's nor nginx's" (SPEC §1:
/// "naming the closest format and why its lines do not fit").
#[test]
fn a_known_schema_whose_values_fail_is_named_with_the_value() {
    let lines = |line: &str| format!("{line}\n").repeat(3);
    for (line, schema, reason) in [
        (
            r#"{"time_iso8601":"2026-11-29T10:00:01 CET","remote_addr":"77.75.77.1","request":"GET /a HTTP/1.1","status":200,"http_user_agent":"SeznamBot/4.0"}"#,
            "json (nginx)",
            "bad time",
        ),
        (
            r#"{"time_iso8601":"2026-11-29T10:00:01+01:00","remote_addr":"2026-11-29","request":"GET /a HTTP/1.1","status":200,"http_user_agent":"SeznamBot/4.0"}"#,
            "json (nginx)",
            "client is no address",
        ),
        (
            r#"{"level":"info","ts":"yesterday","logger":"http.log.access","msg":"handled request","request":{"remote_ip":"77.75.77.1","method":"GET","uri":"/a","headers":{"User-Agent":["SeznamBot/4.0"]}},"status":200}"#,
            "json (Caddy)",
            "bad time",
        ),
    ] {
        let cause = chosen(&lines(line)).expect_err("no line reads");
        assert!(
            cause.contains(&format!("the closest is {schema}")) && cause.contains(reason),
            "{cause}"
        );
    }
}

/// nginx JSON whose client, time and request are nginx's variables but
/// whose user agent or status the log_format names its own way: read as
/// nginx's, no crawler would be found by name and the night would end
/// clean, so the file asks for the mapping (SPEC §1: never a silent
/// clean night); `json-nginx` given reads it as nginx's still.
#[test]
fn nginx_json_with_its_user_agent_under_another_key_asks_for_a_mapping() {
    let line = |ua_key: &str, status_key: &str| {
        format!(
            "{{\"remote_addr\":\"77.75.77.1\",\"time_local\":\"30/Nov/2026:00:00:01 +0100\",\
             \"request\":\"GET / HTTP/1.1\",\"{status_key}\":200,\"{ua_key}\":\"{UA}\"}}\n"
        )
    };
    let own = line("agent", "response").repeat(3);
    let cause = chosen(&own).expect_err("keys of its own");
    assert!(
        cause.contains("http_user_agent (user_agent)")
            && cause.contains("status (status)")
            && cause.contains(
                "json:client=remote_addr,time=time_local,request=request,status=FIELD,\
                 user_agent=FIELD"
            ),
        "{cause}"
    );
    let json = FormatChoice::new("json").expect("known");
    assert!(json.choose(Some(&chunk(&own))).is_err());
    // The status alone under nginx's name: only the user agent is asked.
    let cause = chosen(&line("user_agent", "status")).expect_err("agent of its own");
    assert!(
        cause.contains("holds http_user_agent (user_agent):") && !cause.contains("(status)"),
        "{cause}"
    );
    // Held by a later line of the sample: the schema reads the file.
    let text = line("agent", "status") + &line("http_user_agent", "status");
    assert_eq!(chosen(&text).as_deref(), Ok("json (nginx)"));
    // Only nginx's variables, none a user agent: a log_format that logs
    // none, read with the warning.
    let bare = r#"{"remote_addr":"77.75.77.1","time_iso8601":"2026-11-30T00:00:01+01:00","request":"GET / HTTP/1.1","status":"200","body_bytes_sent":5,"http_referer":"-","upstream_addr":"10.0.0.1:80","http2":"h2","proxy_host":"backend"}"#;
    assert_eq!(chosen(bare).as_deref(), Ok("json (nginx)"));
    // A key of its own on a later line of the sample is asked about too.
    let later = format!("{bare}\n{}", line("agent", "status"));
    assert!(chosen(&later).is_err(), "{later}");
    let fixed = FormatChoice::new("json-nginx").expect("known");
    assert_eq!(
        fixed.choose(Some(&chunk(&own))).map(|f| f.name()),
        Ok("json (nginx)".to_string())
    );
}
