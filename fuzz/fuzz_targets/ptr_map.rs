//! A `--ptr-map` file of any bytes: never a panic, linear time, and every
//! name kept is a well-formed host name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::crawler::PtrMap;
use robots_audit::crawler::address::{is_host_name, parse_address};
use robots_audit_fuzz::within_linear_budget;

fuzz_target!(|data: &[u8]| {
    let started = robots_audit_fuzz::thread_cpu_time();
    let (map, bad) = PtrMap::parse(data);
    for line in data.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if let Some(addr) = text.split([' ', '\t', ',']).next().and_then(parse_address) {
            for name in map.names(addr) {
                assert!(is_host_name(name), "{name:?}");
            }
        }
    }
    assert!(bad.len() <= data.split(|&b| b == b'\n').count());
    within_linear_budget(started, data.len());
});
