//! The compiled matcher against the slow reference of `src/reference.rs`
//! (SPEC §3): the first input line is the target, the rest a robots.txt.
//! Verdict and deciding line must agree. Kept small: the reference is
//! exponential in the number of `*`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use robots_audit::crawler::profile;
use robots_audit::robots::Robots;
use robots_audit::robots::group::Reads;
use robots_audit_fuzz::reference;

fuzz_target!(|data: &[u8]| {
    if data.len() > 600 {
        return;
    }
    let (target, robots) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => return,
    };
    // The reference reads only a path: no fragment, no absolute URL, no
    // line end inside.
    if target.first() != Some(&b'/') || target.iter().any(|&b| b == b'#' || b == b'\r') {
        return;
    }
    if robots.iter().filter(|&&b| b == b'*').count() > 12 {
        return;
    }
    let plain = Robots::new(robots);
    let seznam = profile::builtin_named("SeznamBot")
        .map(|p| p.reads)
        .unwrap_or_default();
    // SeznamBot reads its extensions; `x` names no crawler and reads only
    // Allow and Disallow.
    let readers: [(&[u8], _, &[&str]); 2] = [
        (b"SeznamBot", seznam, &["request-rate", "robot-version"]),
        (b"x", Reads::RULES_ONLY, &[]),
    ];
    for (token, reads, names) in readers {
        let compiled = plain.read_as(reads);
        let rules = compiled.rules_for(token);
        let got = rules.judge(target);
        let want = reference::judge(&reference::rules_for(robots, token, names), target);
        assert_eq!(
            (got.allowed, got.rule.map(|r| r.line)),
            (want.allowed, want.line),
            "target {:?}\nrobots {:?}",
            String::from_utf8_lossy(target),
            String::from_utf8_lossy(robots)
        );
    }
});
