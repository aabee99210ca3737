//! Property: the compiled matcher gives the same verdict and the same
//! deciding line as a slow reference written here from SPEC §3 alone —
//! patterns and targets read into symbols, then a recursive glob match and
//! a plain scan for the longest pattern, Allow winning ties.

use proptest::prelude::*;
use robots_audit::robots::Robots;

/// A symbol of a normalised path: an octet as itself (`< 256`), or an octet
/// that stays escaped (`256 + octet`), which only equals the same escape.
type Symbol = u16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Star,
    End,
    Octet(Symbol),
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~".contains(&b)
}

/// Reads text into tokens and the length of its written normal form. In a
/// pattern `*` is a wildcard and a last `$` the end; in a target both are
/// plain octets.
fn read(text: &[u8], pattern: bool) -> (Vec<Token>, usize) {
    let mut tokens = Vec::new();
    let mut length = 0;
    let mut in_query = false;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let escape = (b == b'%')
            .then(|| Some(hex(*text.get(i + 1)?)? * 16 + hex(*text.get(i + 2)?)?))
            .flatten();
        if let Some(octet) = escape {
            i += 3;
            if unreserved(octet) {
                length += 1;
                tokens.push(Token::Octet(octet.into()));
            } else {
                length += 3;
                let decoded =
                    octet == b'*' || octet == b'$' || (in_query && b":/?@".contains(&octet));
                let symbol = if decoded {
                    octet.into()
                } else {
                    256 + Symbol::from(octet)
                };
                tokens.push(Token::Octet(symbol));
            }
            continue;
        }
        i += 1;
        if b == b'%' {
            length += 3;
            tokens.push(Token::Octet(256 + Symbol::from(b'%')));
        } else if pattern && b == b'*' {
            length += 1;
            tokens.push(Token::Star);
        } else if pattern && b == b'$' && i == text.len() {
            length += 1;
            tokens.push(Token::End);
        } else if !(0x21..=0x7E).contains(&b) {
            length += 3;
            tokens.push(Token::Octet(256 + Symbol::from(b)));
        } else {
            length += 1;
            in_query |= b == b'?';
            tokens.push(Token::Octet(b.into()));
        }
    }
    (tokens, length)
}

/// Matches a pattern against the start of a target (the whole target once
/// `End` is reached).
fn glob(pattern: &[Token], target: &[Symbol]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((Token::End, _)) => target.is_empty(),
        Some((Token::Star, rest)) => (0..=target.len()).any(|skip| glob(rest, &target[skip..])),
        Some((Token::Octet(s), rest)) => target.first() == Some(s) && glob(rest, &target[1..]),
    }
}

#[derive(Debug, Clone)]
struct RuleCase {
    allow: bool,
    group: usize,
    pattern: String,
}

/// One of the reference's rules: where it stands and how it reads.
struct Reference {
    line: usize,
    allow: bool,
    tokens: Vec<Token>,
    length: usize,
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
        let mut lines = 3;
        let mut reference = Vec::new();
        for (group, agent, v2) in [(0, "SeznamBot", version_two.0), (1, "seznambot/4.0", version_two.1)] {
            text.push_str(&format!("User-agent: {agent}\n"));
            lines += 1;
            if v2 {
                text.push_str("Robot-version: 2.0\n");
                lines += 1;
            }
            for rule in rules.iter().filter(|r| r.group == group) {
                let directive = if rule.allow { "Allow" } else { "Disallow" };
                text.push_str(&format!("{directive}: {}\n", rule.pattern));
                lines += 1;
                let (mut tokens, length) = read(rule.pattern.as_bytes(), true);
                if v2 && !matches!(tokens.last(), Some(Token::Star | Token::End)) {
                    tokens.push(Token::End);
                }
                reference.push(Reference { line: lines, allow: rule.allow, tokens, length });
            }
            // A member line, so that the next user-agent line opens a new
            // group even when this one has no rules.
            text.push_str("Crawl-delay: 1\n");
            lines += 1;
        }
        text.push_str("User-agent: SeznamBot-test\nDisallow: /\n");

        let robots = Robots::new(text.as_bytes());
        let compiled = robots.rules_for(b"SeznamBot");
        for target in &targets {
            let (target_tokens, _) = read(target.as_bytes(), false);
            let symbols: Vec<Symbol> = target_tokens
                .iter()
                .map(|t| match t {
                    Token::Octet(s) => *s,
                    _ => unreachable!("targets hold only octets"),
                })
                .collect();
            let mut best: Option<&Reference> = None;
            for rule in reference.iter().filter(|r| glob(&r.tokens, &symbols)) {
                let better = best.is_none_or(|b| {
                    rule.length > b.length || (rule.length == b.length && rule.allow && !b.allow)
                });
                if better {
                    best = Some(rule);
                }
            }
            let verdict = compiled.judge(target.as_bytes());
            prop_assert_eq!(verdict.allowed, best.is_none_or(|b| b.allow), "{} on\n{}", target, text);
            prop_assert_eq!(verdict.rule.map(|r| r.line), best.map(|b| b.line), "{} on\n{}", target, text);
            if let (Some(rule), Some(b)) = (verdict.rule, best) {
                prop_assert_eq!(rule.pattern.len(), b.length);
            }
            prop_assert_eq!(verdict, compiled.judge_by_scan(target.as_bytes()));
        }
    }
}
