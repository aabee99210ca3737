//! JSON lines as Caddy, Traefik and nginx write them, and mappings given by
//! hand (SPEC §1 `json`).

use super::*;

const CADDY_LINE: &str = r#"{"level":"info","ts":1646861401.5241024,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"127.0.0.1","remote_port":"41342","client_ip":"203.0.113.9","proto":"HTTP/2.0","method":"GET","host":"localhost","uri":"/a\u0026b?q=\"x\"","headers":{"User-Agent":["curl/7.82.0","second"],"Accept":["*/*"],"X-Forwarded-For":["203.0.113.9, 10.0.0.1"]},"tls":{"resumed":false,"version":772}},"bytes_read":0,"user_id":"","duration":0.000929675,"size":10900,"status":200,"resp_headers":{"Server":["Caddy"]}}"#;

fn known(name: &str) -> JsonFormat {
    let (_, mapping) = KNOWN
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a known schema");
    JsonFormat::new(name, mapping).expect("compiles")
}

#[test]
fn caddy_access_line() {
    let entry = known("Caddy").parse(CADDY_LINE.as_bytes()).expect("parses");
    assert_eq!(entry.client, b"127.0.0.1");
    assert_eq!(entry.forwarded_client, Some(&b"203.0.113.9"[..]));
    assert_eq!(entry.forwarded_for, Some(&b"203.0.113.9, 10.0.0.1"[..]));
    assert_eq!(entry.time.unix, 1_646_861_401);
    assert_eq!(entry.time.millis, 524);
    assert_eq!(entry.status, Some(200));
    assert_eq!(entry.vhost, Some(&b"localhost"[..]));
    assert_eq!(&*entry.request_line(), br#"GET /a&b?q="x""#);
    assert_eq!(
        entry.user_agent_text().as_deref(),
        Some(&b"curl/7.82.0"[..])
    );
}

/// A Host header is the client's to write, and Caddy logs what it served
/// from a catch-all site: a line whose host is no host name is still a
/// fetch (a spoofer's among them), never skipped.
#[test]
fn a_host_that_is_no_host_name_is_kept_as_written() {
    for host in [
        "evil!.cz",
        "a'b.cz",
        "*.cz",
        "site.cz%00",
        "a.cz:99999",
        "a b",
    ] {
        let line = CADDY_LINE.replace(r#""host":"localhost""#, &format!(r#""host":"{host}""#));
        let entry = known("Caddy").parse(line.as_bytes()).expect("parses");
        assert_eq!(entry.vhost, Some(host.as_bytes()), "{host}");
    }
}

/// Every `time_format` of Caddy's JSON encoder, as its documentation lists
/// them, for 2022-03-09T21:30:01.524Z; those without an offset are read
/// only with a zone (SPEC §1 "Times").
#[test]
fn caddy_time_formats() {
    let utc = known("Caddy").with_zone(Some(
        crate::accesslog::LogTz::parse("+0000").expect("an offset"),
    ));
    let bare = known("Caddy");
    let line = |ts: &str| CADDY_LINE.replace("1646861401.5241024", ts);
    let want = "2022-03-09T21:30:01.524+00:00";
    for (format, ts, offset) in [
        ("unix_seconds_float", "1646861401.5241024", true),
        ("unix_milli_float", "1646861401524.1024", true),
        ("unix_nano", "1646861401524102400", true),
        ("iso8601", r#""2022-03-09T21:30:01.524Z""#, true),
        ("rfc3339", r#""2022-03-09T21:30:01Z""#, true),
        ("rfc3339_nano", r#""2022-03-09T21:30:01.5241024Z""#, true),
        ("wall", r#""2022/03/09 21:30:01""#, false),
        ("wall_milli", r#""2022/03/09 21:30:01.524""#, false),
        ("wall_nano", r#""2022/03/09 21:30:01.524102400""#, false),
        ("common_log", r#""09/Mar/2022:21:30:01 +0000""#, true),
    ] {
        let read = utc.parse(line(ts).as_bytes()).map(|e| e.time);
        let time = read.unwrap_or_else(|e| panic!("{format}: {e:?}"));
        let whole_seconds = matches!(format, "rfc3339" | "wall" | "common_log");
        let expected = if whole_seconds {
            want.replace(".524", "")
        } else {
            want.to_string()
        };
        assert_eq!(time.rfc3339(), expected, "{format}");
        let without_zone = bare.parse(line(ts).as_bytes()).map(|e| e.time.unix);
        if offset {
            assert_eq!(without_zone, Ok(1_646_861_401), "{format}");
        } else {
            assert_eq!(without_zone, Err(Skip::NoOffset), "{format}");
        }
    }
    // zap's iso8601 writes a numeric offset without a colon.
    let read = bare
        .parse(line(r#""2022-03-09T22:30:01.524+0100""#).as_bytes())
        .map(|e| e.time.rfc3339());
    assert_eq!(read.as_deref(), Ok("2022-03-09T22:30:01.524+01:00"));
}

/// A number that names no unit is read in the unit its size tells; a unit
/// the mapping names is kept to.
#[test]
fn epoch_units_by_size_unless_named() {
    let line = |t: &str| format!(r#"{{"c":"77.75.77.1","t":{t},"r":"GET / HTTP/1.1"}}"#);
    let by_size = JsonFormat::new("x", "client=c,time=t,request=r").expect("compiles");
    for (t, unix, millis) in [
        ("1764460801", 1_764_460_801, 0),
        ("1764460801.25", 1_764_460_801, 250),
        ("99999999999", 99_999_999_999, 0),
        ("1764460801123", 1_764_460_801, 123),
        ("1764460801123.9", 1_764_460_801, 123),
        ("\"1764460801123\"", 1_764_460_801, 123),
        ("1764460801123456", 1_764_460_801, 123),
        ("1764460801123456789", 1_764_460_801, 123),
    ] {
        let time = by_size
            .parse(line(t).as_bytes())
            .map(|e| (e.time.unix, e.time.millis));
        assert_eq!(time, Ok((unix, millis)), "{t}");
    }
    for bad in ["\"1.2.3\"", "\"17644608011.\"", "\"1764460801123.x\""] {
        assert_eq!(
            by_size.parse(line(bad).as_bytes()).map(|_| ()),
            Err(Skip::BadTime),
            "{bad}"
        );
    }
    // Named seconds stay seconds, even past the size seconds have today.
    let seconds = JsonFormat::new("x", "client=c,time=t:s,request=r").expect("compiles");
    assert_eq!(
        seconds
            .parse(line("100000000000").as_bytes())
            .map(|e| e.time.unix),
        Ok(100_000_000_000)
    );
    let millis = JsonFormat::new("x", "client=c,time=t:ms,request=r").expect("compiles");
    assert_eq!(
        millis
            .parse(line("1764460801").as_bytes())
            .map(|e| e.time.unix),
        Ok(1_764_460)
    );
}

/// Caddy before 2.5 wrote the connecting address with its port as
/// `request.remote_addr`, and neither `remote_ip` nor `client_ip`.
#[test]
fn caddy_before_2_5_remote_addr() {
    let line = r#"{"level":"info","ts":1646861401.5241024,"logger":"http.log.access","msg":"handled request","request":{"remote_addr":"[2a02:598:a::78:90]:41342","proto":"HTTP/2.0","method":"GET","host":"localhost","uri":"/x","headers":{"User-Agent":["Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)"]}},"common_log":"","duration":0.000929675,"size":10900,"status":200,"resp_headers":{"Server":["Caddy"]}}"#;
    let entry = known("Caddy").parse(line.as_bytes()).expect("parses");
    assert_eq!(entry.client, b"2a02:598:a::78:90");
    assert_eq!(entry.forwarded_client, None);
    let v4 = line.replace("[2a02:598:a::78:90]:41342", "77.75.77.123:41342");
    let entry = known("Caddy").parse(v4.as_bytes()).expect("parses");
    assert_eq!(entry.client, b"77.75.77.123");
}

#[test]
fn caddy_runtime_messages_are_no_requests() {
    let format = known("Caddy");
    for line in [
        r#"{"level":"info","ts":1646861401.52,"msg":"using provided configuration","config_file":"/etc/caddy/Caddyfile"}"#,
        r#"{"level":"info","ts":1646861401.6,"logger":"tls.cache.maintenance","msg":"started background certificate maintenance"}"#,
    ] {
        assert_eq!(
            format.parse(line.as_bytes()),
            Err(Skip::NotRequest),
            "{line}"
        );
    }
}

#[test]
fn caddy_error_and_debug_lines_repeat_a_request_and_are_none() {
    let format = known("Caddy");
    // The error log and the reverse proxy's debug message of a request
    // carry the whole request, beside its own access line in one stream.
    let request = r#""request":{"remote_ip":"77.75.77.123","remote_port":"41342","client_ip":"77.75.77.123","proto":"HTTP/2.0","method":"GET","host":"www.example.cz","uri":"/a","headers":{"User-Agent":["SeznamBot/4.0"]}}"#;
    for logger in [
        "http.log.error",
        "http.log.error.log0",
        "http.handlers.reverse_proxy",
        "http.log.accessor",
    ] {
        let line = format!(
            r#"{{"level":"error","ts":1764370000.5,"logger":"{logger}","msg":"x",{request},"status":502}}"#
        );
        assert_eq!(
            format.parse(line.as_bytes()).map(|_| ()),
            Err(Skip::NotRequest),
            "{line}"
        );
    }
    // A named access log, and a line without a logger, are requests.
    for logger in [r#""logger":"http.log.access.log0","#, ""] {
        let line = format!(
            r#"{{"level":"info","ts":1764370000.5,{logger}"msg":"handled request",{request},"status":502}}"#
        );
        let entry = format.parse(line.as_bytes()).expect("a request");
        assert_eq!(entry.client, b"77.75.77.123");
    }
}

#[test]
fn traefik_line() {
    let line = r#"{"ClientAddr":"[2a02:598:a::78:90]:41694","ClientHost":"2a02:598:a::78:90","ClientPort":"41694","DownstreamStatus":404,"RequestHost":"example.cz","RequestMethod":"GET","RequestPath":"/x?y=1\u0026z=2","RequestProtocol":"HTTP/1.1","StartLocal":"2023-07-18T10:03:58.009808429+02:00","StartUTC":"2023-07-18T08:03:58.009808429Z","level":"info","msg":"","request_User-Agent":"Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)","time":"2023-07-18T08:03:58Z"}"#;
    let entry = known("Traefik").parse(line.as_bytes()).expect("parses");
    // The host of `ClientAddr`: the address, without its brackets.
    assert_eq!(entry.client, b"2a02:598:a::78:90");
    assert_eq!(entry.time.rfc3339(), "2023-07-18T08:03:58.009+00:00");
    assert_eq!(entry.status, Some(404));
    assert_eq!(&*entry.request_line(), b"GET /x?y=1&z=2");
    assert!(entry.user_agent.is_some());
    // Traefik drops request headers unless told to keep them.
    let bare = r#"{"ClientAddr":"192.0.2.10:5678","RequestMethod":"GET","RequestPath":"/","DownstreamStatus":200,"StartUTC":"2023-07-18T08:03:58Z"}"#;
    let entry = known("Traefik").parse(bare.as_bytes()).expect("parses");
    assert_eq!((entry.client, entry.user_agent), (&b"192.0.2.10"[..], None));
}

#[test]
fn nginx_escape_json_line() {
    let line = r#"{"remote_addr":"77.75.77.123","time_local":"30/Nov/2026:00:00:01 +0100","request":"GET /a\"b HTTP/1.1","status":"200","http_user_agent":"Mozilla/5.0 (compatible; SeznamBot/4.0)","http_x_forwarded_for":"-"}"#;
    let entry = known("nginx").parse(line.as_bytes()).expect("parses");
    assert_eq!(entry.time.rfc3339(), "2026-11-30T00:00:01+01:00");
    assert_eq!(&*entry.request_line(), br#"GET /a"b HTTP/1.1"#);
    assert_eq!(entry.method, None);
    assert_eq!(entry.status, Some(200));
    assert_eq!(entry.forwarded_for, None);
    // `$remote_addr` is an address (or `unix:`), never a name: one there
    // is another variable written under its key.
    let named = line.replace("77.75.77.123", "fulltextrobot-77-75-77-123.seznam.cz");
    assert_eq!(
        known("nginx").parse(named.as_bytes()).err(),
        Some(Skip::NameForAddress)
    );
    let unix = line.replace("77.75.77.123", "unix:");
    assert!(known("nginx").parse(unix.as_bytes()).is_ok());
    // A mapping of the user's own reads a name there (Apache's %h may
    // hold one).
    let own = JsonFormat::new("own", "client=remote_addr,time=time_local,request=request")
        .expect("mapping");
    assert!(own.parse(named.as_bytes()).is_ok());
}

#[test]
fn nginx_writes_bytes_past_ascii_raw_and_they_are_read() {
    // `escape=json` escapes `"`, `\` and control bytes only: a Latin-1
    // user agent or target reaches the log as raw bytes, not UTF-8.
    let line = b"{\"remote_addr\":\"77.75.77.123\",\"time_iso8601\":\"2026-11-30T10:00:05+01:00\",\"request\":\"GET /caf\xe9 HTTP/1.1\",\"status\":\"200\",\"http_user_agent\":\"SeznamBot/4.0 \xff\"}";
    let entry = known("nginx").parse(line).expect("parses");
    assert_eq!(&*entry.request_line(), b"GET /caf\xe9 HTTP/1.1");
    assert_eq!(
        entry.user_agent_text().as_deref(),
        Some(&b"SeznamBot/4.0 \xff"[..])
    );
}

#[test]
fn mappings_given_by_hand() {
    let format = JsonFormat::new(
        "custom",
        "client=src.ip,time=when:ms,method=verb,target=path,status=code,user_agent=ua,xff=fwd",
    )
    .expect("compiles");
    let line = r#"{"src":{"ip":"77.75.77.123","port":1},"when":1764460801123,"verb":"HEAD","path":"\/robots.txt","code":304,"ua":"SeznamBot","fwd":"1.2.3.4"}"#;
    let entry = format.parse(line.as_bytes()).expect("parses");
    assert_eq!(entry.time.unix, 1_764_460_801);
    assert_eq!(entry.time.millis, 123);
    assert_eq!(&*entry.request_line(), b"HEAD /robots.txt");
    assert_eq!(entry.forwarded_for, Some(&b"1.2.3.4"[..]));
    let ns = JsonFormat::new("ns", "client=c,time=t:ns,request=r").expect("compiles");
    let entry = ns
        .parse(br#"{"c":"::1","t":1764460801123456789,"r":"GET / HTTP/1.1"}"#)
        .expect("parses");
    assert_eq!((entry.time.unix, entry.time.millis), (1_764_460_801, 123));
    // No method: every line a fetch of its target.
    let target_only = JsonFormat::new("t", "client=c,time=t,target=p").expect("compiles");
    let entry = target_only
        .parse(br#"{"c":"::1","t":"2026-11-30T00:00:00Z","p":"/x"}"#)
        .expect("parses");
    assert_eq!(&*entry.request_line(), b"GET /x");
}

/// A mapping's dotted path names a key written with its dots as well as
/// nested objects: Elastic's ECS loggers write `"url.original"` flat. The
/// servers' own schemas keep to nesting.
#[test]
fn a_dotted_path_names_a_flat_key_with_dots_too() {
    let format = JsonFormat::new(
        "ecs",
        "client=source.ip,time=@timestamp,method=http.request.method,target=url.original,\
         user_agent=user_agent.original",
    )
    .expect("compiles");
    let flat = r#"{"@timestamp":"2026-11-29T10:00:01+01:00","source.ip":"77.75.77.1","http.request.method":"HEAD","url.original":"/x1","user_agent.original":"SeznamBot/4.0"}"#;
    let nested = r#"{"@timestamp":"2026-11-29T10:00:01+01:00","source":{"ip":"77.75.77.1"},"http":{"request":{"method":"HEAD"}},"url":{"original":"/x1"},"user_agent":{"original":"SeznamBot/4.0"}}"#;
    for line in [flat, nested] {
        let entry = format.parse(line.as_bytes()).expect(line);
        assert_eq!(entry.client, b"77.75.77.1", "{line}");
        assert_eq!(&*entry.request_line(), b"HEAD /x1", "{line}");
        assert_eq!(
            entry.user_agent_text().as_deref(),
            Some(&b"SeznamBot/4.0"[..]),
            "{line}"
        );
    }
    // Only the whole path is one key: `{"url":{"original.x":…}}` is not
    // `url.original.x`, nor a key that merely ends like the path.
    let format = JsonFormat::new("ecs", "client=c,time=t,target=url.original.x").expect("compiles");
    for line in [
        r#"{"c":"::1","t":"2026-11-30T00:00:00Z","url":{"original.x":"/x"}}"#,
        r#"{"c":"::1","t":"2026-11-30T00:00:00Z","a.url.original.x":"/x"}"#,
    ] {
        assert!(format.parse(line.as_bytes()).is_err(), "{line}");
    }
    // Caddy's schema reads no flat `request.remote_ip`.
    let caddy = known("Caddy");
    let line = CADDY_LINE.replace(
        r#""request":{"remote_ip":"127.0.0.1","#,
        r#""request.remote_ip":"10.0.0.1","request":{"#,
    );
    assert_eq!(caddy.parse(line.as_bytes()).err(), Some(Skip::NoClient));
}

/// A string's escapes are decoded in the time, the status and Caddy's
/// `logger` as in the request: PHP's `json_encode` escapes every slash,
/// so its CLF times read `30\/Nov\/2026:…`; such a whole log was refused
/// as bad times.
#[test]
fn escapes_are_decoded_in_times_statuses_and_loggers() {
    let format = JsonFormat::new("php", "client=ip,time=t,request=r,status=s,user_agent=ua")
        .expect("compiles");
    let line = r#"{"ip":"77.75.77.1","t":"30\/Nov\/2026:00:00:01 +0100","r":"GET \/a.pdf HTTP\/1.1","s":"\u0032\u0030\u0030","ua":"Mozilla\/5.0"}"#;
    let entry = format.parse(line.as_bytes()).expect("parses");
    assert_eq!(entry.time.rfc3339(), "2026-11-30T00:00:01+01:00");
    assert_eq!(entry.status, Some(200));
    assert_eq!(&*entry.request_line(), b"GET /a.pdf HTTP/1.1");
    let iso = r#"{"ip":"77.75.77.1","t":"2026-11-30T00:00:01\u002b01:00","r":"GET / HTTP/1.1"}"#;
    let entry = format.parse(iso.as_bytes()).expect("parses");
    assert_eq!(entry.time.rfc3339(), "2026-11-30T00:00:01+01:00");
    let caddy = CADDY_LINE.replace(
        r#""logger":"http.log.access""#,
        r#""logger":"http.log.access\u002esite1""#,
    );
    assert!(known("Caddy").parse(caddy.as_bytes()).is_ok());
    let error_log = CADDY_LINE.replace(
        r#""logger":"http.log.access""#,
        r#""logger":"http.log.\u0065rror""#,
    );
    assert_eq!(
        known("Caddy").parse(error_log.as_bytes()).err(),
        Some(Skip::NotRequest)
    );
}

/// nginx formats that log `"time_local": "[$time_local]"`: `%t`'s
/// brackets around a CLF time, read as the time; anything else in or
/// around them is no time.
#[test]
fn a_clf_time_in_brackets_is_the_time() {
    let format = JsonFormat::new("nginx", "client=ip,time=t,request=r").expect("compiles");
    let with = |t: &str| format!(r#"{{"ip":"77.75.77.1","t":"{t}","r":"GET / HTTP/1.1"}}"#);
    let line = with("[30/Nov/2026:00:00:01 +0100]");
    let entry = format.parse(line.as_bytes()).expect("parses");
    assert_eq!(entry.time.rfc3339(), "2026-11-30T00:00:01+01:00");
    for bad in [
        "[30/Nov/2026:00:00:01 +0100",
        "30/Nov/2026:00:00:01 +0100]",
        "[30/Nov/2026:00:00:01 +0100] ",
        "[ 30/Nov/2026:00:00:01 +0100]",
        "[30/Nov/2026:00:00:01 +0100]]",
        "[[30/Nov/2026:00:00:01 +0100]]",
        "[30/Nov/2026:24:00:01 +0100]",
        "[]",
    ] {
        let line = with(bad);
        assert_eq!(
            format.parse(line.as_bytes()).err(),
            Some(Skip::BadTime),
            "{bad}"
        );
    }
}

#[test]
fn bad_mappings() {
    for (mapping, wanted) in [
        ("time=t,request=r", "client"),
        ("client=c,request=r", "time"),
        ("client=c,time=t", "request"),
        ("client=c,time=t:h,request=r", "unit"),
        ("client=c,time=t,request=r,colour=x", "no field"),
        ("client=c,time=t,request=a..b", "empty"),
        ("client=c,time=c,request=r", "twice"),
        ("client", "ROLE=FIELD"),
    ] {
        match JsonFormat::new("x", mapping) {
            Ok(_) => panic!("{mapping} compiled"),
            Err(e) => assert!(e.contains(wanted), "{mapping}: {e}"),
        }
    }
}

#[test]
fn bad_lines() {
    let format = JsonFormat::new("x", "client=c,time=t,request=r,status=s").expect("compiles");
    let cases: &[(&str, Result<(), Skip>)] = &[
        ("", Err(Skip::Empty)),
        ("not json", Err(Skip::BadJson)),
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET / HTTP/1.1""#,
            Err(Skip::BadJson),
        ),
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET / HTTP/1.1"} x"#,
            Err(Skip::BadJson),
        ),
        // A port in a named client field cannot shift anything: dropped.
        (r#"{"c":"1.2.3.4:80","t":1,"r":"GET /"}"#, Ok(())),
        (
            r#"{"c":"host name","t":1,"r":"GET /"}"#,
            Err(Skip::BadClient),
        ),
        (r#"{"t":1,"r":"GET /"}"#, Err(Skip::NoClient)),
        (r#"{"c":"1.2.3.4","r":"GET /"}"#, Err(Skip::BadTime)),
        (
            r#"{"c":"1.2.3.4","t":"yesterday","r":"GET /"}"#,
            Err(Skip::BadTime),
        ),
        (
            r#"{"c":"1.2.3.4","t":"2026-11-30T10:00:00","r":"GET /"}"#,
            Err(Skip::NoOffset),
        ),
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET /","s":"2000"}"#,
            Err(Skip::BadStatus),
        ),
        (r#"{"c":"1.2.3.4","t":1,"r":7}"#, Err(Skip::BadJson)),
        // nginx's default escaping (a `log_format` without `escape=json`):
        // told apart, since the remedy is the user's; a backslash that is
        // itself escaped starts no such escape.
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET /\x22q\x22 HTTP/1.1"}"#,
            Err(Skip::NginxEscapes),
        ),
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET /a\\\xC3\xA9 HTTP/1.1"}"#,
            Err(Skip::NginxEscapes),
        ),
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET /\\x41 HTTP/1.1"} x"#,
            Err(Skip::BadJson),
        ),
        (
            r#"{"c":"1.2.3.4","t":1,"r":"GET /\xZZ"}"#,
            Err(Skip::BadJson),
        ),
        (r#"{"c":"1.2.3.4","t":1,"r":"GET /\x4"#, Err(Skip::BadJson)),
        // Only Caddy and Traefik write their own messages among the
        // access lines: elsewhere a line without the fields is a misfit.
        (r#"{"level":"info"}"#, Err(Skip::Mismatch)),
    ];
    for &(line, want) in cases {
        assert_eq!(format.parse(line.as_bytes()).map(|_| ()), want, "{line}");
    }
}

#[test]
fn an_offset_after_a_blank_or_in_hours_is_an_offset() {
    let format = JsonFormat::new("x", "client=c,time=t,request=r").expect("compiles");
    let read = |time: &str| {
        format
            .parse(format!(r#"{{"c":"77.75.77.1","t":"{time}","r":"GET / HTTP/1.1"}}"#).as_bytes())
            .map(|e| e.time.rfc3339())
    };
    for (time, want) in [
        ("2026-11-29T10:00:00 +01:00", "2026-11-29T10:00:00+01:00"),
        ("2026-11-29 10:00:00 +0100", "2026-11-29T10:00:00+01:00"),
        // Go's time.String().
        (
            "2026-11-29 10:00:00.123456789 +0100 CET",
            "2026-11-29T10:00:00.123+01:00",
        ),
        ("2026-11-29 10:00:00 UTC", "2026-11-29T10:00:00+00:00"),
        ("2026-11-29 10:00:00 -07", "2026-11-29T10:00:00-07:00"),
        ("2026-11-29T10:00:00+01", "2026-11-29T10:00:00+01:00"),
        // Go: a zone without a letter abbreviation, and time.Now()'s
        // monotonic clock reading.
        ("2026-11-29 10:00:00 +0400 +04", "2026-11-29T10:00:00+04:00"),
        (
            "2026-11-29 10:00:00.5 +0100 CET m=+0.012345",
            "2026-11-29T10:00:00.500+01:00",
        ),
        ("2026-11-29 10:00:00 +0000 UTC", "2026-11-29T10:00:00+00:00"),
    ] {
        assert_eq!(read(time), Ok(want.to_string()), "{time}");
    }
    for time in [
        "2026-11-29 10:00:00 +0100 CET extra",
        "2026-11-29 10:00:00 UTC+1",
        "2026-11-29 10:00:00 UTC x",
        "2026-11-29 10:00:00+0100x",
        "2026-11-29 25:00:00 +0100",
        "2026-11-29 10:00:00 +01:0",
        "2026-11-29 10:00:00 +01:00 UTC",
        "2026-11-29 10:00:00 +0100 CET m=x",
        "2026-11-29 10:00:00 +0100 CET m=+1 x",
    ] {
        assert_eq!(read(time), Err(Skip::BadTime), "{time}");
    }
}

#[test]
fn times_without_an_offset_are_placed_by_the_zone_only() {
    let line = |time: &str| format!(r#"{{"c":"77.75.77.1","t":"{time}","r":"GET / HTTP/1.1"}}"#);
    let bare = JsonFormat::new("x", "client=c,time=t,request=r").expect("compiles");
    let prague = bare.clone().with_zone(Some(
        crate::accesslog::LogTz::parse("Europe/Prague").expect("known zone"),
    ));
    let read = |format: &JsonFormat, time: &str| {
        format
            .parse(line(time).as_bytes())
            .map(|e| e.time.rfc3339())
    };
    for (time, want) in [
        ("2026-11-29 14:00:00", Ok("2026-11-29T14:00:00+01:00")),
        ("2026-11-29T14:00:00.5", Ok("2026-11-29T14:00:00.500+01:00")),
        (
            "2026-07-01t14:00:00.123456789",
            Ok("2026-07-01T14:00:00.123+02:00"),
        ),
        // The hour skipped in spring is no time.
        ("2026-03-29 02:30:00", Err(Skip::BadTime)),
        ("2026-02-30 10:00:00", Err(Skip::BadTime)),
        // An offset of a form not read is never dropped.
        ("2026-11-29 14:00:00 +1", Err(Skip::BadTime)),
        ("2026-11-29 14:00:00 CET", Err(Skip::BadTime)),
        ("2026-11-29 14:00:00.", Err(Skip::BadTime)),
    ] {
        assert_eq!(read(&prague, time), want.map(str::to_string), "{time}");
        assert_eq!(
            read(&bare, time).ok(),
            None,
            "{time}: never read without a zone"
        );
    }
    assert_eq!(read(&bare, "2026-11-29 14:00:00"), Err(Skip::NoOffset));
    // A time with its offset needs no zone and keeps its offset.
    assert_eq!(
        read(&prague, "2026-11-29T14:00:00+00:00").as_deref(),
        Ok("2026-11-29T14:00:00+00:00")
    );
}

#[test]
fn keys_for_the_mapping_message() {
    assert_eq!(
        keys(br#"{"a":1,"b":{"c":"x","d":[1]}}"#),
        Some(vec!["a".to_string(), "b.c".to_string(), "b.d".to_string()])
    );
    assert_eq!(keys(b"[1]"), None);
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn json_lines(line in prop::collection::vec(any::<u8>(), 0..200)) {
            for (name, mapping) in KNOWN {
                let format = JsonFormat::new(name, mapping).expect("compiles");
                let _ = format.parse(&line);
            }
        }

        #[test]
        fn json_shaped_lines(line in "\\{(\"[a-zA-Z_.]{0,8}\":(\"[^\"]{0,12}\"|[0-9.e+-]{1,12}|\\[\"[^\"]{0,6}\"\\]|\\{\\}|null),?){0,6}\\}") {
            for (name, mapping) in KNOWN {
                let format = JsonFormat::new(name, mapping).expect("compiles");
                if let Ok(entry) = format.parse(line.as_bytes()) {
                    let _ = entry.request_line();
                    let _ = entry.user_agent_text();
                }
            }
        }

        #[test]
        fn w3c_lines(line in prop::collection::vec(any::<u8>(), 0..200)) {
            let mut format = super::super::super::w3c::W3cFormat::default();
            let _ = format.follow(b"#Fields: date time c-ip cs-method cs-uri-stem cs-uri-query sc-status cs(User-Agent)");
            if let Ok(entry) = format.parse(&line) {
                let _ = entry.request_line();
                let _ = entry.user_agent_text();
            }
            let _ = format.follow(&line);
        }
    }
}

/// Every status of up to five bytes of digits, quotes and a few others:
/// what `status_of` gives is what a status reads as by the rule written
/// out (a number or a string of one to three digits; `-`, empty and
/// `null` none; anything else refused).
#[test]
fn statuses_read_by_the_rule() {
    fn by_the_rule(raw: &[u8]) -> Result<Option<u16>, Skip> {
        let text = match raw {
            [b'"', inner @ .., b'"'] => inner,
            b"null" => return Ok(None),
            number => number,
        };
        match text {
            b"-" | b"" => Ok(None),
            digits if digits.len() <= 3 && digits.iter().all(u8::is_ascii_digit) => Ok(Some(
                digits.iter().fold(0, |v, &d| v * 10 + u16::from(d - b'0')),
            )),
            _ => Err(Skip::BadStatus),
        }
    }
    let alphabet = b"0259\"-x ";
    let mut raws: Vec<Vec<u8>> = vec![Vec::new(), b"null".to_vec(), b"\"null\"".to_vec()];
    let mut level: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..5 {
        level = level
            .iter()
            .flat_map(|r| alphabet.iter().map(move |&b| [r.as_slice(), &[b]].concat()))
            .collect();
        raws.extend(level.iter().cloned());
    }
    for raw in &raws {
        assert_eq!(
            status_of(raw),
            by_the_rule(raw),
            "{}",
            String::from_utf8_lossy(raw)
        );
    }
}

/// A role's value is its first leaf the line holds that is not `null`:
/// for a role of one leaf (read without walking its alternatives) and of
/// several alike.
#[test]
fn a_role_reads_its_first_leaf_that_is_not_null() {
    let json = JsonFormat::new("test", "client=a|b,time=t,target=u,status=s,user_agent=ua")
        .expect("compiles");
    let entry = json
        .parse(
            r#"{"a":null,"b":"192.0.2.7","t":1646861401,"u":"/x","s":null,"ua":"bot"}"#.as_bytes(),
        )
        .expect("parses");
    assert_eq!(entry.client, b"192.0.2.7");
    assert_eq!(entry.status, None);
    assert_eq!(entry.user_agent, Some(&b"bot"[..]));
    let entry = json
        .parse(
            r#"{"a":"192.0.2.8","b":"192.0.2.7","t":1646861401,"u":"/x","s":404,"ua":null}"#
                .as_bytes(),
        )
        .expect("parses");
    assert_eq!(entry.client, b"192.0.2.8");
    assert_eq!(entry.status, Some(404));
    assert_eq!(entry.user_agent, None);
    // A leaf the line lacks is none, as `null` is.
    let entry = json
        .parse(r#"{"b":"192.0.2.9","t":1646861401,"u":"/x"}"#.as_bytes())
        .expect("parses");
    assert_eq!(entry.client, b"192.0.2.9");
    assert_eq!((entry.status, entry.user_agent), (None, None));
    assert!(matches!(
        json.parse(br#"{"a":null,"b":null,"t":1646861401,"u":"/x"}"#),
        Err(Skip::NoClient)
    ));
}
