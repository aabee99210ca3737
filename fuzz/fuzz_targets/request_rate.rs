//! A `Request-rate` or `Crawl-delay` value of any bytes: never a panic,
//! linear time, and a rate that reads, written back in its report form,
//! reads as the same rate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::robots::limits::{parse_crawl_delay, parse_request_rate};
use robots_audit_fuzz::within_linear_budget;

fuzz_target!(|data: &[u8]| {
    let started = robots_audit_fuzz::thread_cpu_time();
    if let (_, Ok(rate)) = parse_request_rate(data) {
        assert!(rate.requests >= 1 && rate.period_secs >= 1);
        let again = parse_request_rate(rate.canonical().as_bytes()).1;
        assert_eq!(again, Ok(rate), "{}", rate.canonical());
    }
    let _ = parse_crawl_delay(data);
    within_linear_budget(started, data.len());
});
