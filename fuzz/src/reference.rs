//! A slow, obviously-correct robots.txt matcher written from SPEC §3 and
//! RFC 9309 alone, for the property tests (`tests/suite/props_*.rs`) and
//! the `robots_matcher` fuzz target to hold the compiled matcher against.
//! Takes a robots.txt, a product token, the extension records the crawler
//! reads and a target (a path starting with `/`, no fragment); gives allowed
//! or not and the deciding line.
//!
//! It follows SPEC §3 word for word, with no cleverness: both the pattern
//! and the target are rewritten into one percent-encoding (`normal`), which
//! leaves a literal `*` and `$` of the target as they are, one octet each;
//! matching is then a plain recursive glob over octets in which a pattern's
//! `%2A` and `%24` match either that one octet or the three octets of the
//! escape (RFC 9309 §2.2.3), a `$` inside it (not its last octet) is the
//! octet `$` alone, and nothing else in a pattern matches a target's `*`
//! or `$` but a wildcard.
//! Exponential in the worst case: keep its inputs small.
//!
//! Only `std` is used, so that the tests can include this file by path.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// `*`: any run of octets.
    Star,
    /// A final `$`: the end of the target.
    End,
    /// `%2A` or `%24`: the literal `*` or `$` (the octet held here) or its
    /// escape.
    Literal(u8),
    Octet(u8),
}

/// A rule as the reference reads it.
#[derive(Debug, Clone)]
pub struct ReferenceRule {
    pub line: usize,
    pub allow: bool,
    /// Octets of the written normal form, `*` and `$` included.
    pub length: usize,
    tokens: Vec<Token>,
}

/// What the reference decides for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReferenceVerdict {
    pub allowed: bool,
    /// The deciding rule's line; `None` when nothing matched or the target
    /// is `/robots.txt`.
    pub line: Option<usize>,
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// RFC 3986 §2.3.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// SPEC §3: octets outside printable ASCII, and space `"` `<` `>` `\` `^`
/// backquote `{` `|` `}`, which RFC 3986 allows nowhere, are escaped.
fn must_escape(b: u8) -> bool {
    !(0x21..=0x7E).contains(&b) || b"\"<>\\^`{|}".contains(&b)
}

/// SPEC §3 normalisation, one octet at a time: `%XX` of an unreserved
/// character decoded, every other `%XX` in upper-case hex, a `%` that
/// starts no escape and every octet that must be escaped written `%XX`.
pub fn normal(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let escape = match (text[i], text.get(i + 1), text.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) => hex(h).zip(hex(l)).map(|(h, l)| h * 16 + l),
            _ => None,
        };
        match escape {
            Some(octet) if unreserved(octet) => out.push(octet),
            Some(octet) => out.extend(format!("%{octet:02X}").bytes()),
            None if text[i] == b'%' || must_escape(text[i]) => {
                out.extend(format!("%{:02X}", text[i]).bytes())
            }
            None => out.push(text[i]),
        }
        i += if escape.is_some() { 3 } else { 1 };
    }
    out
}

/// The target as the matcher compares it: normalised, its `*` and `$`
/// left as the one octet each that they are.
pub fn target_octets(target: &[u8]) -> Vec<u8> {
    normal(target)
}

/// The escape of a literal `*` or `$`.
fn escape_of(literal: u8) -> [u8; 3] {
    if literal == b'*' { *b"%2A" } else { *b"%24" }
}

/// True when the pattern matches a prefix of the target (all of it once
/// `End` is reached).
fn glob(pattern: &[Token], target: &[u8]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((Token::End, _)) => target.is_empty(),
        Some((Token::Star, rest)) => (0..=target.len()).any(|skip| glob(rest, &target[skip..])),
        Some((Token::Literal(c), rest)) => {
            (target.first() == Some(c) && glob(rest, &target[1..]))
                || (target.starts_with(&escape_of(*c)) && glob(rest, &target[3..]))
        }
        Some((Token::Octet(b), rest)) => target.first() == Some(b) && glob(rest, &target[1..]),
    }
}

impl ReferenceRule {
    pub fn new(line: usize, allow: bool, pattern: &[u8], whole_path: bool) -> ReferenceRule {
        let written = normal(pattern);
        let length = written.len();
        let (body, end) = match written.strip_suffix(b"$") {
            Some(body) => (body, true),
            None => (&written[..], false),
        };
        let mut tokens = Vec::new();
        let mut rest = body;
        // `normal` leaves every `%` at the start of a whole escape, so the
        // pattern is read escape by escape.
        while !rest.is_empty() {
            let (token, step) = match rest {
                [b'*', ..] => (Token::Star, 1),
                // A `$` anywhere but at the end is the octet `$`.
                [b'$', ..] => (Token::Octet(b'$'), 1),
                [b'%', b'2', b'A', ..] => (Token::Literal(b'*'), 3),
                [b'%', b'2', b'4', ..] => (Token::Literal(b'$'), 3),
                [b, ..] => (Token::Octet(*b), 1),
                [] => break,
            };
            tokens.push(token);
            rest = &rest[step..];
        }
        // Seznam Robot-version 2.0: the whole path and query, unless the
        // pattern ends with `*`.
        if end || (whole_path && !written.ends_with(b"*")) {
            tokens.push(Token::End);
        }
        ReferenceRule {
            line,
            allow,
            length,
            tokens,
        }
    }

    /// `target` as [`target_octets`] gives it.
    pub fn matches(&self, target: &[u8]) -> bool {
        glob(&self.tokens, target)
    }
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// LF, CR and CRLF each end a line.
fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\n' || text[i] == b'\r' {
            out.push(&text[start..i]);
            if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn product_token(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|&b| !(b.is_ascii_alphabetic() || b == b'-' || b == b'_'))
        .unwrap_or(value.len());
    &value[..end]
}

#[derive(Default)]
struct Group {
    names: Vec<Vec<u8>>,
    wildcard: bool,
    whole_path: bool,
    /// (line, allow, pattern)
    rules: Vec<(usize, bool, Vec<u8>)>,
}

/// The rules a crawler with product token `token` obeys in a robots.txt
/// (which must be shorter than the 500 KiB limit). `reads` lists, lower
/// case, the extension records the crawler reads (Seznam's:
/// `request-rate`, `robot-version`): with `allow` and `disallow` they end a
/// run of user-agent lines; every other record is passed over (SPEC §3).
pub fn rules_for(robots: &[u8], token: &[u8], reads: &[&str]) -> Vec<ReferenceRule> {
    // A byte-order mark, whole or cut (SPEC §1).
    let robots = [&b"\xEF\xBB\xBF"[..], b"\xEF\xBB", b"\xEF"]
        .iter()
        .find_map(|bom| robots.strip_prefix(*bom))
        .unwrap_or(robots);
    let mut groups: Vec<Group> = Vec::new();
    // True while the last group-relevant line was a user-agent line.
    let mut in_agents = false;
    // True when the record just before was a user-agent line.
    let mut just_after_agent = false;
    for (index, raw) in lines(robots).into_iter().enumerate() {
        let number = index + 1;
        let content = match raw.iter().position(|&b| b == b'#') {
            Some(i) => &raw[..i],
            None => raw,
        };
        let content = trim(content);
        let Some(colon) = content.iter().position(|&b| b == b':') else {
            continue;
        };
        let key = trim(&content[..colon]).to_ascii_lowercase();
        let value = trim(&content[colon + 1..]);
        let was_after_agent = std::mem::replace(&mut just_after_agent, false);
        match key.as_slice() {
            b"user-agent" => {
                if !in_agents {
                    groups.push(Group::default());
                    in_agents = true;
                }
                just_after_agent = true;
                if let Some(group) = groups.last_mut() {
                    group.names.push(product_token(value).to_ascii_lowercase());
                    group.wildcard |= value == b"*"
                        || (value.first() == Some(&b'*') && value[1].is_ascii_whitespace());
                }
            }
            _ if key == b"allow"
                || key == b"disallow"
                || reads.iter().any(|r| r.as_bytes() == key.as_slice()) =>
            {
                let Some(group) = groups.last_mut() else {
                    continue;
                };
                in_agents = false;
                match key.as_slice() {
                    b"allow" | b"disallow" if !value.is_empty() => {
                        group.rules.push((number, key == b"allow", value.to_vec()));
                    }
                    b"robot-version" if was_after_agent && is_two(value) => {
                        group.whole_path = true;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let token = token.to_ascii_lowercase();
    let named = |g: &&Group| !token.is_empty() && g.names.contains(&token);
    let chosen: Vec<&Group> = if groups.iter().any(|g| named(&g)) {
        groups.iter().filter(named).collect()
    } else {
        groups.iter().filter(|g| g.wildcard).collect()
    };
    let mut rules = Vec::new();
    for group in chosen {
        for (line, allow, pattern) in &group.rules {
            // Robot-version 2.0 only changes the rules that follow it.
            let after_version = group.whole_path;
            rules.push(ReferenceRule::new(*line, *allow, pattern, after_version));
        }
    }
    rules
}

fn is_two(value: &[u8]) -> bool {
    let mut parts = value.split(|&b| b == b'.');
    parts.next() == Some(b"2") && parts.all(|p| !p.is_empty() && p.iter().all(|&b| b == b'0'))
}

/// The verdict on a target: `/robots.txt` (that path, no query) is always
/// allowed; otherwise the longest matching pattern decides, Allow winning a
/// tie, the earlier line among equals; no match means allowed.
pub fn judge(rules: &[ReferenceRule], target: &[u8]) -> ReferenceVerdict {
    if normal(target) == b"/robots.txt" {
        return ReferenceVerdict {
            allowed: true,
            line: None,
        };
    }
    let target = target_octets(target);
    let mut best: Option<&ReferenceRule> = None;
    for rule in rules.iter().filter(|r| r.matches(&target)) {
        let better = match best {
            None => true,
            Some(b) => {
                rule.length > b.length
                    || (rule.length == b.length && rule.allow && !b.allow)
                    || (rule.length == b.length && rule.allow == b.allow && rule.line < b.line)
            }
        };
        if better {
            best = Some(rule);
        }
    }
    ReferenceVerdict {
        allowed: best.is_none_or(|b| b.allow),
        line: best.map(|b| b.line),
    }
}
