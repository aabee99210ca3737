//! A `--ptr-map` file of any bytes: never a panic, linear time, and every
//! name kept is one field as written (SPEC §1: taken whatever bytes it
//! holds), no longer than a DNS name can be.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::crawler::PtrMap;
use robots_audit::crawler::address::parse_address;
use robots_audit_fuzz::within_linear_budget;

fuzz_target!(|data: &[u8]| {
    let started = robots_audit_fuzz::thread_cpu_time();
    let (map, bad) = PtrMap::parse(data);
    for line in data.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if let Some(addr) = text.split([' ', '\t', ',']).next().and_then(parse_address) {
            for name in map.names(addr) {
                // Up to 254 bytes, each written as at most four (`\xNN`).
                assert!(
                    !name.is_empty()
                        && name.len() <= 4 * 254
                        && !name.contains(|c: char| c.is_ascii_whitespace() || c == ','),
                    "{name:?}"
                );
            }
        }
    }
    assert!(bad.len() <= data.split(|&b| b == b'\n').count());
    within_linear_budget(started, data.len());
});
