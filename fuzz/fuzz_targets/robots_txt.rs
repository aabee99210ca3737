//! robots.txt of any bytes: parsing, grouping, compiling and judging never
//! panic, take linear time, and the compiled matcher agrees with a plain
//! scan of the same rules. The last line of the input is also used as a
//! target, so that targets and patterns share their bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::robots::Robots;
use robots_audit_fuzz::within_linear_budget;

fuzz_target!(|data: &[u8]| {
    let started = robots_audit_fuzz::thread_cpu_time();
    let robots = Robots::new(data);
    let target = match data.iter().rposition(|&b| b == b'\n') {
        Some(i) => &data[i + 1..],
        None => data,
    };
    for token in [&b"SeznamBot"[..], b"seznambot/4.0", b"*", b""] {
        let rules = robots.rules_for(token);
        for target in [target, b"/", b"/robots.txt"] {
            let fast = rules.judge(target);
            assert_eq!(fast, rules.judge_by_scan(target), "{target:?}");
        }
        for line in rules.request_rates() {
            if let Some(rate) = line.rate {
                let _ = rate.canonical();
            }
        }
        let _ = rules.rate_at(0);
        let _ = rules.crawl_delay();
    }
    let _ = robots.groups().iter().map(|g| g.label()).count();
    within_linear_budget(started, data.len());
});
