//! A slow, obviously-correct robots.txt matcher written from SPEC §3 and
//! RFC 9309 alone, for the property tests (`tests/props_matcher.rs`) and
//! the `robots_matcher` fuzz target to hold the compiled matcher against.
//! Takes a robots.txt, a product token and a target (a path starting with
//! `/`, no fragment); gives allowed or not and the deciding line.
//!
//! Everything is read into symbols first: an octet that stands for itself,
//! or an octet that stays percent-encoded and so equals only the same
//! escape. Matching is then a plain recursive glob over symbols, which is
//! exponential in the worst case: keep its inputs small.
//!
//! Only `std` is used, so that the tests can include this file by path.

/// One octet of a normalised path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbol {
    /// Written as itself in the matching form.
    Plain(u8),
    /// Written `%XX` in the matching form.
    Escaped(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Star,
    End,
    Octet(Symbol),
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

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Reads a pattern (`pattern` true: `*` is a wildcard, a last `$` the end)
/// or a target into tokens, with the length of its written normal form.
fn read(text: &[u8], pattern: bool) -> (Vec<Token>, usize) {
    let mut tokens = Vec::new();
    let mut length = 0;
    let mut in_query = false;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b == b'%'
            && let (Some(h), Some(l)) = (
                text.get(i + 1).copied().and_then(hex),
                text.get(i + 2).copied().and_then(hex),
            )
        {
            let octet = h * 16 + l;
            i += 3;
            if unreserved(octet) {
                length += 1;
                tokens.push(Token::Octet(Symbol::Plain(octet)));
            } else {
                // Written as an escape, but compared as the octet itself
                // for `*` and `$` (RFC 9309 §2.2.3) and for the query's
                // `: / ? @` (RFC 9309 §2.2.2 table, row 2).
                length += 3;
                let plain = matches!(octet, b'*' | b'$')
                    || (in_query && matches!(octet, b':' | b'/' | b'?' | b'@'));
                tokens.push(Token::Octet(if plain {
                    Symbol::Plain(octet)
                } else {
                    Symbol::Escaped(octet)
                }));
            }
            continue;
        }
        i += 1;
        if pattern && b == b'*' {
            length += 1;
            tokens.push(Token::Star);
        } else if pattern && b == b'$' && i == text.len() {
            length += 1;
            tokens.push(Token::End);
        } else if b == b'%' || !(0x21..=0x7E).contains(&b) {
            // A `%` that starts no escape is a literal percent sign.
            length += 3;
            tokens.push(Token::Octet(Symbol::Escaped(b)));
        } else {
            length += 1;
            in_query |= b == b'?';
            tokens.push(Token::Octet(Symbol::Plain(b)));
        }
    }
    (tokens, length)
}

/// The target as symbols.
pub fn symbols(target: &[u8]) -> Vec<Symbol> {
    read(target, false)
        .0
        .into_iter()
        .filter_map(|t| match t {
            Token::Octet(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// True when the pattern matches a prefix of the target (all of it once
/// `End` is reached).
fn glob(pattern: &[Token], target: &[Symbol]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((Token::End, _)) => target.is_empty(),
        Some((Token::Star, rest)) => (0..=target.len()).any(|skip| glob(rest, &target[skip..])),
        Some((Token::Octet(s), rest)) => target.first() == Some(s) && glob(rest, &target[1..]),
    }
}

impl ReferenceRule {
    pub fn new(line: usize, allow: bool, pattern: &[u8], whole_path: bool) -> ReferenceRule {
        let (mut tokens, length) = read(pattern, true);
        if whole_path && !matches!(tokens.last(), Some(Token::Star | Token::End)) {
            tokens.push(Token::End);
        }
        ReferenceRule {
            line,
            allow,
            length,
            tokens,
        }
    }

    pub fn matches(&self, target: &[Symbol]) -> bool {
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
/// (which must be shorter than the 500 KiB limit).
pub fn rules_for(robots: &[u8], token: &[u8]) -> Vec<ReferenceRule> {
    let robots = robots.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(robots);
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
            b"allow" | b"disallow" | b"crawl-delay" | b"request-rate" | b"robot-version"
            | b"visit-time" => {
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

/// The verdict on a target: `/robots.txt` is always allowed; otherwise the
/// longest matching pattern decides, Allow winning a tie, the earlier line
/// among equals; no match means allowed.
pub fn judge(rules: &[ReferenceRule], target: &[u8]) -> ReferenceVerdict {
    let target = symbols(target);
    let path_end = target
        .iter()
        .position(|s| *s == Symbol::Plain(b'?'))
        .unwrap_or(target.len());
    let robots_txt: Vec<Symbol> = symbols(b"/robots.txt");
    if target[..path_end] == robots_txt[..] {
        return ReferenceVerdict {
            allowed: true,
            line: None,
        };
    }
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
