//! Cutting a format string into tokens, in each dialect: takes an Apache
//! `LogFormat` string (`%h`, `%{Referer}i`, `%>s`, `%{%d/%b/%Y %T}t`, the
//! conditions `%!200t`) or an nginx `log_format` string (`$remote_addr`,
//! `${var}`); gives its literals and fields, each field with its slot and
//! rank (SPEC §1 "Formats"; README "Log formats"). `compile.rs` chooses
//! the dialect and turns the tokens into steps.

use super::super::layout::{TimeLayout, TimePart};
use super::super::program::Slot;
use super::{APACHE_LETTERS, Token, field, time_field};

/// Reads a backslash escape of a configuration string at `spec[at]`
/// (`spec[at] == '\\'`); gives the byte and the bytes used.
fn config_escape(spec: &[u8], at: usize) -> (u8, usize) {
    match spec.get(at + 1) {
        Some(b'"') => (b'"', 2),
        Some(b'\'') => (b'\'', 2),
        Some(b'\\') => (b'\\', 2),
        Some(b't') => (b'\t', 2),
        Some(b'n') => (b'\n', 2),
        _ => (b'\\', 1),
    }
}

fn push_literal(tokens: &mut Vec<Token>, byte: u8) {
    if let Some(Token::Literal(text)) = tokens.last_mut() {
        text.push(byte);
    } else {
        tokens.push(Token::Literal(vec![byte]));
    }
}

/// Adds the literal at `spec[at]` (a byte, or a configuration escape)
/// unless it is `opens`, the byte a field starts with; gives the bytes it
/// used, or `None` where a field starts.
fn literal_at(spec: &[u8], at: usize, opens: u8, tokens: &mut Vec<Token>) -> Option<usize> {
    match spec[at] {
        b'\\' => {
            let (byte, used) = config_escape(spec, at);
            push_literal(tokens, byte);
            Some(used)
        }
        byte if byte == opens => None,
        other => {
            push_literal(tokens, other);
            Some(1)
        }
    }
}

pub(super) fn apache_tokens(spec: &[u8]) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < spec.len() {
        if let Some(used) = literal_at(spec, at, b'%', &mut tokens) {
            at += used;
            continue;
        }
        let start = at;
        at += 1;
        let mut argument: Option<&[u8]> = None;
        let mut final_status = false;
        let mut conditional = false;
        // Conditions (`!`, status lists) and `<`/`>` may come in any order
        // before the letter, as mod_log_config reads them.
        loop {
            match spec.get(at) {
                None => return Err("the format ends inside a % directive".to_string()),
                Some(b'!' | b',' | b'0'..=b'9') => {
                    conditional = true;
                    at += 1;
                }
                Some(b'<') => at += 1,
                Some(b'>') => {
                    final_status = true;
                    at += 1;
                }
                Some(b'{') => {
                    let close = memchr::memchr(b'}', &spec[at..])
                        .ok_or("a %{ in the format has no closing }")?;
                    argument = Some(&spec[at + 1..at + close]);
                    at += close + 1;
                }
                Some(_) => break,
            }
        }
        let letter = spec[at];
        at += 1;
        let name = &spec[start..at];
        if letter == b'%' && at == start + 2 {
            push_literal(&mut tokens, b'%');
            continue;
        }
        if letter == b'^' {
            // %{name}^ti, %{name}^to: trailers; %^FB: time to first byte
            // (mod_logio).
            let tag = spec.get(at..at + 2).unwrap_or_default();
            if !matches!(tag, b"ti" | b"to" | b"FB") {
                return Err(format!(
                    "unknown directive {} in the log format",
                    String::from_utf8_lossy(&spec[start..(at + 2).min(spec.len())])
                ));
            }
            at += 2;
            tokens.push(field(Slot::Other, 0, &spec[start..at]));
            continue;
        }
        let token = match (letter, argument) {
            (b'a', None) => field(Slot::Client, 3, name),
            (b'h', None) => field(Slot::Client, 2, name),
            (b'a' | b'h', Some(_)) => field(Slot::Client, 1, name),
            (b't', None) if conditional => {
                // `%t` writes its own brackets, and `-` without them on the
                // lines its condition leaves out: one field for both.
                let TimePart::Time(layout) = TimeLayout::apache(b"[%d/%b/%Y:%H:%M:%S %z]")? else {
                    return Err("the CLF time layout gives no time".to_string());
                };
                tokens.push(unconditional_first(time_field(layout, name), conditional));
                continue;
            }
            (b't', None) => {
                // `%t` writes its own brackets.
                push_literal(&mut tokens, b'[');
                tokens.push(unconditional_first(
                    time_field(TimeLayout::Clf, name),
                    conditional,
                ));
                push_literal(&mut tokens, b']');
                continue;
            }
            (b't', Some(argument)) => match TimeLayout::apache(argument)? {
                // The fetch's time is when the request began (`%t`, SPEC
                // §4's "a fetch at time t"): an end time is used only
                // where no begin time is written, wherever it stands.
                TimePart::Time(layout) => {
                    let mut token = time_field(layout, name);
                    if let Token::Field { rank, name, .. } = &mut token
                        && super::of_end(name)
                    {
                        *rank = 0;
                    }
                    token
                }
                TimePart::Fraction(digits) => field(Slot::Fraction(digits), 1, name),
                TimePart::Offset => field(Slot::Offset, 1, name),
                // A part of a time is no time, but is read by its
                // layout: `%{%a %d}t` holds a blank that ends nothing.
                // Glued to the field before it (`%{pid}P%{%H%M}t`), one
                // that writes no blank is read with that field as one
                // opaque field, as before; one that does cannot be cut
                // from it, and the format is refused.
                TimePart::Opaque => Token::Field {
                    slot: Slot::Other,
                    layout: TimeLayout::opaque(argument).filter(|layout| {
                        !matches!(tokens.last(), Some(Token::Field { .. }))
                            || layout.may_write_blank()
                    }),
                    rank: 0,
                    name: String::from_utf8_lossy(name).into_owned(),
                    dash: false,
                },
            },
            (b'r', _) => field(Slot::Request, 1, name),
            (b'm', None) => field(Slot::Method, 1, name),
            (b's', _) => field(Slot::Status, if final_status { 2 } else { 1 }, name),
            (b'i', Some(header)) if header.eq_ignore_ascii_case(b"user-agent") => {
                field(Slot::UserAgent, 1, name)
            }
            (b'i', Some(header)) if header.eq_ignore_ascii_case(b"host") => {
                field(Slot::Vhost, 1, name)
            }
            (b'i', Some(header)) if header.eq_ignore_ascii_case(b"x-forwarded-for") => {
                field(Slot::ForwardedFor, 1, name)
            }
            (b'v', _) => field(Slot::Vhost, 3, name),
            (b'V', _) => field(Slot::Vhost, 2, name),
            (b'l' | b'u', None) => field(Slot::Word, 0, name),
            (b'b' | b'B' | b'D' | b'I' | b'O' | b'S' | b'k', None) | (b'T', _) => {
                field(Slot::Number, 0, name)
            }
            (b'p', _) => field(Slot::Port { or_none: false }, 0, name),
            (letter, _) if APACHE_LETTERS.contains(&letter) => field(Slot::Other, 0, name),
            // A module's own directive (`%{…}x` and `%{…}c` of mod_ssl,
            // `%{…}M` of ModSecurity, and those of modules not listed):
            // httpd refuses letters no module registered, so one with an
            // argument is a field of some module, read as opaque.
            (letter, Some(_)) if letter.is_ascii_alphabetic() => field(Slot::Other, 0, name),
            _ => {
                return Err(format!(
                    "unknown directive {} in the log format",
                    String::from_utf8_lossy(name)
                ));
            }
        };
        tokens.push(unconditional_first(token, conditional));
    }
    Ok(tokens)
}

/// Ranks a field logged only for some statuses (`%400,501{User-agent}i`,
/// `%!200a`: `-` on every other line) below every field of its slot logged
/// always, wherever they stand, also one that ranks below it logged
/// always (`%h` beside `%!200a`); alone, it is still the field.
fn unconditional_first(token: Token, conditional: bool) -> Token {
    match token {
        Token::Field {
            slot,
            layout,
            rank,
            name,
            dash,
        } => Token::Field {
            slot,
            layout,
            rank: rank + if conditional { 0 } else { ALWAYS },
            name,
            dash: dash || conditional,
        },
        literal => literal,
    }
}

/// Added to the rank of a field logged always: above every rank a
/// directive has (at most 3).
const ALWAYS: u8 = 64;

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

pub(super) fn nginx_tokens(spec: &[u8]) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < spec.len() {
        if let Some(used) = literal_at(spec, at, b'$', &mut tokens) {
            at += used;
            continue;
        }
        let (name, used) = if spec.get(at + 1) == Some(&b'{') {
            let close =
                memchr::memchr(b'}', &spec[at..]).ok_or("a ${ in the format has no closing }")?;
            (&spec[at + 2..at + close], close + 1)
        } else {
            let length = spec[at + 1..]
                .iter()
                .take_while(|&&b| is_name_byte(b))
                .count();
            (&spec[at + 1..at + 1 + length], length + 1)
        };
        if name.is_empty() {
            push_literal(&mut tokens, b'$');
            at += 1;
            continue;
        }
        at += used;
        let token = match name {
            b"remote_addr" => field(Slot::Client, 3, name),
            b"realip_remote_addr" => field(Slot::Client, 1, name),
            b"time_local" => time_field(TimeLayout::Clf, name),
            b"time_iso8601" => time_field(TimeLayout::Iso8601, name),
            b"msec" => time_field(TimeLayout::Epoch(1), name),
            b"request" => field(Slot::Request, 1, name),
            b"request_method" => field(Slot::Method, 1, name),
            // The target as the client sent it. Apache's `%U` and nginx's
            // `$uri` are the server's decoded reading of it (`%2F` as `/`,
            // slashes merged, dot segments gone), which robots.txt rules
            // are not matched against (RFC 9309 §2.2.2): a crawler that
            // fetched `//private/x` would be accused of `/private/x`. They
            // stay opaque.
            b"request_uri" => field(Slot::Target, 1, name),
            b"status" => field(Slot::Status, 1, name),
            b"http_user_agent" => field(Slot::UserAgent, 1, name),
            b"host" => field(Slot::Vhost, 3, name),
            b"server_name" => field(Slot::Vhost, 2, name),
            b"http_host" => field(Slot::Vhost, 1, name),
            b"http_x_forwarded_for" => field(Slot::ForwardedFor, 1, name),
            // The header's chain with `$remote_addr` appended, as nginx
            // forwards it: the same chain walked one trusted hop longer.
            b"proxy_add_x_forwarded_for" => field(Slot::ForwardedFor, 0, name),
            b"remote_user" => field(Slot::Word, 0, name),
            // Empty for a unix socket.
            b"remote_port" | b"server_port" => field(Slot::Port { or_none: true }, 0, name),
            b"body_bytes_sent"
            | b"bytes_sent"
            | b"request_length"
            | b"request_time"
            | b"connection"
            | b"connection_requests" => field(Slot::Number, 0, name),
            _ => field(Slot::Other, 0, name),
        };
        tokens.push(token);
    }
    Ok(tokens)
}
