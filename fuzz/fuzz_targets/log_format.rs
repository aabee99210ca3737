//! A custom `--log-format` string (the first input line, as UTF-8) and a
//! line to read with it (the rest): compiling and parsing never panic and
//! take linear time.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::accesslog::LogFormat;
use robots_audit_fuzz::within_linear_budget;

fuzz_target!(|data: &[u8]| {
    let (spec, line) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let Ok(spec) = std::str::from_utf8(spec) else {
        return;
    };
    let started = robots_audit_fuzz::thread_cpu_time();
    if let Ok(format) = LogFormat::new(spec)
        && let Ok(entry) = format.parse(line)
    {
        let _ = entry.request_parts();
        let _ = entry.time.rfc3339();
    }
    within_linear_budget(started, data.len());
});
