//! One log line in any of the formats the tool names and a few custom
//! ones (the first byte picks the format): cutting it into fields,
//! decoding escapes, reading the request line, the client and the user
//! agent never panic and take linear time; a time read is one that can be
//! written back and read again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::accesslog::{Fetch, LogFormat, fetch_of, parse_rfc3339_or_date, unescape};
use robots_audit::crawler::{Identifier, parse_client};
use robots_audit::robots::user_agent_token;
use robots_audit_fuzz::within_linear_budget;

const FORMATS: &[&str] = &[
    "combined",
    "common",
    "vhost_combined",
    r#"%h %t %r %>s %{User-Agent}i"#,
    r#"$host $remote_addr [$time_iso8601] "$request" $status "$http_user_agent""#,
    r#"%{sec}t %h "%r" %s"#,
    r#"%{msec}t %h "%r" %s "%{User-agent}i""#,
    r#"[%{%a, %e %B %Y %T %Z}t] %h "%r""#,
    r#"$remote_addr [$msec] "$request" $status "$http_user_agent" $request_time"#,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, line)) = data.split_first() else {
        return;
    };
    let started = robots_audit_fuzz::thread_cpu_time();
    let Ok(format) = LogFormat::new(FORMATS[usize::from(pick) % FORMATS.len()]) else {
        panic!("a built-in format does not compile");
    };
    let Ok(ident) = Identifier::builtin() else {
        panic!("the built-in crawler table does not compile");
    };
    let _ = ident.may_be_crawler(line);
    if let Ok(entry) = format.parse(line) {
        // As the audit reads it: cut, then each part decoded.
        if let Some(parts) = entry.request_parts()
            && let Fetch::Target(request) = fetch_of(&parts.method, &parts.target, parts.protocol)
        {
            assert!(request.target.starts_with(b"/"));
        }
        let _ = parse_client(entry.client);
        if let Some(ua) = entry.user_agent {
            let ua = unescape(ua);
            let _ = user_agent_token(&ua);
            let _ = ident.by_user_agent(&ua);
        }
        let written = entry.time.rfc3339();
        assert_eq!(
            parse_rfc3339_or_date(&written),
            Some(entry.time),
            "{written}"
        );
    }
    within_linear_budget(started, data.len());
});
