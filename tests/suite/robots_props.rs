//! Property: the compiled matcher gives the same verdict and the same
//! deciding line as the slow reference of `fuzz/src/reference.rs`, written
//! from SPEC §3 alone, on two merged SeznamBot groups (each perhaps under
//! Robot-version 2.0) among groups that must be ignored.

use crate::support::reference;

use proptest::prelude::*;
use robots_audit::crawler::profile;
use robots_audit::robots::Robots;

#[derive(Debug, Clone)]
struct RuleCase {
    allow: bool,
    group: usize,
    pattern: String,
}

fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "/", "/", "a", "b", "A", "*", "*", "$", "%2F", "%2f", "%41", "%61", "%2A", "%24", "?",
        "%3F", "%", "=", "%E3",
    ])
}

fn text_of(pieces: Vec<&'static str>) -> String {
    pieces.concat()
}

fn rule_case() -> impl Strategy<Value = RuleCase> {
    (
        any::<bool>(),
        0..2usize,
        prop::collection::vec(piece(), 0..6).prop_map(text_of),
    )
        .prop_map(|(allow, group, tail)| RuleCase {
            allow,
            group,
            pattern: if tail.starts_with('*') {
                tail
            } else {
                format!("/{tail}")
            },
        })
}

fn target() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "/", "/", "a", "b", "A", "%2F", "%2f", "%41", "%61", "?", "%3F", "*", "$", "%2A",
            "%24", "%", "=", "%E3", "\u{e3}",
        ]),
        0..8,
    )
    .prop_map(|pieces| format!("/{}", pieces.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 600,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn compiled_matcher_agrees_with_reference(
        rules in prop::collection::vec(rule_case(), 0..12),
        version_two in (any::<bool>(), any::<bool>()),
        targets in prop::collection::vec(target(), 1..8),
    ) {
        // Two groups that both name SeznamBot (merged), each perhaps under
        // Robot-version 2.0, and two groups that must be ignored.
        let mut text = String::from("User-agent: *\nDisallow: /\nAllow: /a\n");
        for (group, agent, v2) in [(0, "SeznamBot", version_two.0), (1, "seznambot/4.0", version_two.1)] {
            text.push_str(&format!("User-agent: {agent}\n"));
            if v2 {
                text.push_str("Robot-version: 2.0\n");
            }
            for rule in rules.iter().filter(|r| r.group == group) {
                let directive = if rule.allow { "Allow" } else { "Disallow" };
                text.push_str(&format!("{directive}: {}\n", rule.pattern));
            }
            // A record Seznam reads, so that the next user-agent line opens
            // a new group even when this one has no rules.
            text.push_str("Request-rate: 1/10s\n");
        }
        text.push_str("User-agent: SeznamBot-test\nDisallow: /\n");

        let seznam = profile::builtin_named("SeznamBot").expect("built in");
        let robots = Robots::new(text.as_bytes()).read_as(seznam.reads);
        let compiled = robots.rules_for(b"SeznamBot");
        let reference = reference::rules_for(text.as_bytes(), b"SeznamBot", &["request-rate", "robot-version"]);
        for target in &targets {
            let want = reference::judge(&reference, target.as_bytes());
            let verdict = compiled.judge(target.as_bytes());
            prop_assert_eq!(
                (verdict.allowed, verdict.rule.map(|r| r.line)),
                (want.allowed, want.line),
                "{} on\n{}", target, text
            );
            prop_assert_eq!(verdict, compiled.judge_by_scan(target.as_bytes()));
        }
    }
}
