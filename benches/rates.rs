//! Request-rate and Crawl-delay over a month of fetches: `9000/1d` must cost
//! time in proportion to the fetches, not to N × fetches. Prints the time
//! per fetch for 15, 30 and 60 days of synthetic SeznamBot fetches; the
//! figures should stay flat as the period doubles.
//!
//! Run: `cargo bench --bench rates`

use std::time::Instant;

use robots_audit::accesslog::Timestamp;
use robots_audit::audit::{self, Counted, Counting, Policy};
use robots_audit::config::{RateBy, WindowTz};
use robots_audit::crawler::{IdentifiedBy, Verification, profile};
use robots_audit::fetch::{Fetch, Text};
use robots_audit::robots::Robots;

const ROBOTS: &[u8] = b"User-agent: SeznamBot\n\
Disallow: /private/\n\
Request-rate: 9000/1d\n\
Request-rate: 300/1m 0100-0600\n\
Crawl-delay: 1\n";

/// One fetch every `gap` seconds on average, in bursts, over `days`.
fn fetches(days: i64, gap: i64) -> Vec<Counted> {
    let start = 1_796_000_000;
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut t = start;
    let mut out = Vec::new();
    let mut line = 0;
    while t < start + days * 86_400 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        t += (state % (2 * gap as u64 + 1)) as i64;
        line += 1;
        let target = format!("/clanek/{}", state % 100_000);
        out.push(Counted {
            fetch: Fetch::new(
                Timestamp {
                    unix: t,
                    millis: 0,
                    offset_min: 60,
                },
                0,
                line,
                Some(200),
                None,
                Text {
                    client: b"77.75.77.123",
                    method: b"GET",
                    target: target.as_bytes(),
                    user_agent: b"SeznamBot/4.0",
                },
            ),
            crawler: 0,
            verification: Verification::Verified,
            identified_by: IdentifiedBy::UaPtr,
        });
    }
    out
}

fn main() {
    let seznam = profile::builtin_named("SeznamBot").expect("SeznamBot is built in");
    let robots = Robots::new(ROBOTS).read_as(seznam.reads);
    let rules = robots.rules_for(b"SeznamBot");
    let policies = [Policy::new(&seznam, &rules)];
    let counting = Counting {
        rate_by: RateBy::Token,
        window_tz: WindowTz::Utc,
    };
    println!(
        "{:>6} {:>10} {:>10} {:>12} {:>10}",
        "days", "fetches", "rows", "seconds", "ns/fetch"
    );
    for days in [15, 30, 60] {
        let fetches = fetches(days, 6);
        let started = Instant::now();
        let rows = audit::judge_all(&policies, &fetches, &counting);
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{days:>6} {:>10} {:>10} {secs:>12.3} {:>10.0}",
            fetches.len(),
            rows.len(),
            secs * 1e9 / fetches.len() as f64
        );
    }
}
