//! Product tokens: takes a `User-agent` line's value or a full user-agent
//! string, gives the token that robots.txt groups are matched on
//! (RFC 9309 §2.2.1; SPEC §3).

/// Octets a product token is made of (RFC 9309 §2.2.1).
fn is_token_octet(octet: u8) -> bool {
    octet.is_ascii_alphabetic() || matches!(octet, b'-' | b'_')
}

/// The leading run of ASCII letters, `-` and `_`: `SeznamBot/4.0` gives
/// `SeznamBot`, `*` gives nothing.
pub fn product_token(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .position(|&octet| !is_token_octet(octet))
        .unwrap_or(value.len());
    &value[..end]
}

/// The name of the robot a crawler's token stands for: its product token
/// in lower case, so that `SeznamBot`, `seznambot` and `SeznamBot/4.0`,
/// which read the same groups, are one robot whose fetches share their
/// counts (SPEC §4) and whose robots.txt fetches are the same crawler's.
pub fn robot_of(token: &str) -> String {
    String::from_utf8_lossy(product_token(token.as_bytes())).to_ascii_lowercase()
}

/// True when a `User-agent` value opens the default group: its first word
/// is `*` (`*`, `* # all`, `* foo`), but not `*bot`.
pub fn is_wildcard(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => next.is_ascii_whitespace(),
        _ => false,
    }
}

/// True when a `User-agent` value names the crawler whose token is `token`:
/// the value's product token equals it, ignoring ASCII case. So
/// `SeznamBot/4.0` names `SeznamBot`; `SeznamBot-test` and `SeznamBotX` do not.
pub fn names(value: &[u8], token: &[u8]) -> bool {
    let own = product_token(value);
    !own.is_empty() && own.eq_ignore_ascii_case(token)
}

/// Products that every browser-like user agent carries, so they say
/// nothing about who is fetching.
const GENERIC: &[&str] = &[
    "mozilla",
    "applewebkit",
    "khtml",
    "like",
    "gecko",
    "chrome",
    "chromium",
    "safari",
    "version",
    "mobile",
    "firefox",
    "edg",
    "edge",
    "opr",
    "opera",
    "trident",
    "presto",
    "msie",
    "compatible",
    "headlesschrome",
];

fn is_generic(token: &[u8]) -> bool {
    GENERIC
        .iter()
        .any(|g| token.eq_ignore_ascii_case(g.as_bytes()))
}

/// The pieces of a user-agent string: the products outside parentheses and
/// the `;`-separated items of each parenthesised comment.
struct Pieces<'a> {
    products: Vec<&'a [u8]>,
    comment_items: Vec<&'a [u8]>,
}

fn split_pieces(full: &[u8]) -> Pieces<'_> {
    let mut products = Vec::new();
    let mut comment_items = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, &octet) in full.iter().enumerate() {
        let boundary = match octet {
            b'(' => {
                depth += 1;
                true
            }
            b')' => {
                depth = depth.saturating_sub(1);
                true
            }
            b';' | b',' => depth > 0,
            b' ' | b'\t' => depth == 0,
            _ => false,
        };
        if boundary {
            let piece = full[start..i].trim_ascii();
            if !piece.is_empty() {
                // The depth before this octet decides where the piece was.
                let inside = match octet {
                    b'(' => depth > 1,
                    b')' => true,
                    _ => depth > 0,
                };
                if inside {
                    comment_items.push(piece);
                } else {
                    products.push(piece);
                }
            }
            start = i + 1;
        }
    }
    let piece = full[start..].trim_ascii();
    if !piece.is_empty() {
        if depth > 0 {
            comment_items.push(piece);
        } else {
            products.push(piece);
        }
    }
    Pieces {
        products,
        comment_items,
    }
}

/// Reduces a full user-agent string to the product token a crawler would
/// look for in robots.txt, by this rule:
/// 1. a parenthesised comment that holds `compatible` names the crawler in
///    its first item written `Name/version` whose name is not generic
///    (`Mozilla/5.0 (compatible; SeznamBot/4.0; +http://…)` → `SeznamBot`);
/// 2. otherwise the first product outside comments that is not a generic
///    browser product (Mozilla, AppleWebKit, Chrome, Safari, Gecko, …);
/// 3. otherwise the leading product token.
pub fn user_agent_token(full: &[u8]) -> String {
    let full = full.trim_ascii();
    let pieces = split_pieces(full);
    let compatible = pieces
        .comment_items
        .iter()
        .any(|item| item.eq_ignore_ascii_case(b"compatible"));
    fn named<'a>(piece: &&'a [u8]) -> Option<&'a [u8]> {
        // The item's name: before its `/version`, or the whole item. A name
        // of letters, digits, `-`, `_` and `.` is a product's, reduced to
        // its product token as a user-agent line's value is (`MJ12bot/v1.4`
        // and `allowbot2` name `MJ` and `allowbot`); one with other bytes
        // (`+http://…`, `http://…`) is not.
        let name = piece.split(|&b| b == b'/').next().unwrap_or_default();
        let token = product_token(name);
        let plain = name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        (!token.is_empty() && plain && !is_generic(token)).then_some(token)
    }
    let found = compatible
        .then(|| {
            pieces
                .comment_items
                .iter()
                .filter(|item| item.contains(&b'/'))
                .find_map(named)
        })
        .flatten()
        .or_else(|| pieces.products.iter().find_map(named))
        .unwrap_or_else(|| product_token(full));
    String::from_utf8_lossy(found).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_tokens() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"SeznamBot", b"SeznamBot"),
            (b"SeznamBot/4.0", b"SeznamBot"),
            (b"SeznamBot-test", b"SeznamBot-test"),
            (b"Seznam_Bot x", b"Seznam_Bot"),
            (b"Googlebot-Image/1.0", b"Googlebot-Image"),
            (b"*", b""),
            (b"", b""),
            (b"1bot", b""),
            (b"bot1", b"bot"),
        ];
        for &(value, token) in cases {
            assert_eq!(product_token(value), token, "{value:?}");
        }
    }

    #[test]
    fn which_values_name_seznambot() {
        let cases: &[(&[u8], bool)] = &[
            (b"SeznamBot", true),
            (b"seznambot", true),
            (b"SEZNAMBOT", true),
            (b"SeznamBot/4.0", true),
            (b"SeznamBot/3.2-test4", true),
            (b"SeznamBot foo", true),
            (b"SeznamBot-test", false),
            (b"SeznamBotX", false),
            (b"Seznam", false),
            (b"*", false),
            (b"", false),
            (b"Mozilla/5.0 (compatible; SeznamBot/4.0)", false),
        ];
        for &(value, expected) in cases {
            assert_eq!(
                names(value, b"SeznamBot"),
                expected,
                "{}",
                String::from_utf8_lossy(value)
            );
        }
        assert!(!names(b"", b""));
        assert!(!names(b"*", b""));
    }

    #[test]
    fn wildcard_values() {
        let cases: &[(&[u8], bool)] = &[
            (b"*", true),
            (b"* ", true),
            (b"*\tfoo", true),
            (b"*bot", false),
            (b"*/1.0", false),
            (b"", false),
            (b"SeznamBot", false),
        ];
        for &(value, expected) in cases {
            assert_eq!(is_wildcard(value), expected, "{value:?}");
        }
    }

    #[test]
    fn full_user_agents_reduce_to_their_token() {
        let cases: &[(&str, &str)] = &[
            (
                "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
                "SeznamBot",
            ),
            (
                "Mozilla/5.0 (compatible; SeznamBot/4.0-test; +http://napoveda.seznam.cz/seznambot-intro/)",
                "SeznamBot",
            ),
            ("SeznamBot/3.2-test4", "SeznamBot"),
            ("SeznamBot", "SeznamBot"),
            ("FreshBot/1.0", "FreshBot"),
            (
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                "Googlebot",
            ),
            (
                "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                "Googlebot",
            ),
            (
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
                "bingbot",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
                "Mozilla",
            ),
            ("curl/8.5.0", "curl"),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Gecko/20100101 Firefox/121.0 MyCrawler/1.2",
                "MyCrawler",
            ),
            // A name with digits is reduced as a user-agent line's value
            // is (`User-agent: MJ12bot` names `MJ`): the short and the full
            // name of one crawler get one verdict.
            (
                "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)",
                "MJ",
            ),
            ("Mozilla allowbot2 99.9", "allowbot"),
            ("  ", ""),
        ];
        for &(full, token) in cases {
            assert_eq!(user_agent_token(full.as_bytes()), token, "{full}");
        }
    }
}
