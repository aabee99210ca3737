//! Compiling a format string: takes an Apache `LogFormat` string
//! (`%h %l %u %t "%r" %>s %b`) or an nginx `log_format` string
//! (`$remote_addr - $remote_user [$time_local] "$request" $status`) and
//! gives the text before the first field and the fields, each with the text
//! that follows it (SPEC §1 "Formats").
//!
//! Which dialect a string is, is told by which kind of field it holds more
//! of. A string pasted from a configuration file may keep its quoting: outer
//! quotes around a string that holds `\"`, or outer single quotes, are
//! removed, and `\"`, `\'`, `\\`, `\t`, `\n` are read as escapes.
//! The string is cut into tokens in `compile/tokens.rs`, a dialect each.

use super::layout::TimeLayout;
use super::program::{Slot, Step, Text};

mod tokens;

use tokens::{apache_tokens, nginx_tokens};

/// A piece of a format string, before the fields are ranked.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(Vec<u8>),
    /// A field; among fields of the same slot, the highest rank is used and
    /// the rest are skipped (`%>s` over `%s`, `%a` over `%{c}a`).
    Field {
        slot: Slot,
        /// For a time field, how it is written.
        layout: Option<TimeLayout>,
        rank: u8,
        name: String,
        /// Logged only for some statuses (`%!200t`, `%400{sec}t`): Apache
        /// writes `-` in its place on the other lines.
        dash: bool,
    },
}

fn field(slot: Slot, rank: u8, name: &[u8]) -> Token {
    Token::Field {
        slot,
        layout: None,
        rank,
        name: String::from_utf8_lossy(name).into_owned(),
        dash: false,
    }
}

fn time_field(layout: TimeLayout, name: &[u8]) -> Token {
    Token::Field {
        slot: Slot::Time,
        layout: Some(layout),
        rank: 1,
        name: String::from_utf8_lossy(name).into_owned(),
        dash: false,
    }
}

/// Whether a `%{…}t` directive is of the time the request ended
/// (`%{end:msec_frac}t`), not the time it began (`%t`, `%{begin:…}t`,
/// and every other `%{…}t`): a fraction of the one is no part of the
/// other.
fn of_end(name: &str) -> bool {
    name.contains("{end:")
}

/// A compiled format string.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Compiled {
    /// The text before the first field.
    pub lead: Vec<u8>,
    pub steps: Vec<Step>,
    /// How the one time field used is written.
    pub time: TimeLayout,
    /// How the other time fields are written (`Slot::OtherTime`).
    pub skipped_times: Vec<TimeLayout>,
}

/// The Apache directive letters, for telling the dialect and for rejecting
/// typos: mod_log_config's, mod_logio's (`I`, `O`, `S`), mod_ssl's (`c`,
/// `x`) and ModSecurity's (`M`).
const APACHE_LETTERS: &[u8] = b"aABbcCDefhHiIklLmMnoOpPqrRsStTuUvVxX";

/// How many fields of each dialect a string seems to hold.
fn dialect_votes(spec: &[u8]) -> (usize, usize) {
    let mut apache = 0;
    let mut nginx = 0;
    for pair in spec.windows(2) {
        match pair {
            [b'%', next] if APACHE_LETTERS.contains(next) || b"{<>!".contains(next) => apache += 1,
            [b'$', next] if next.is_ascii_alphabetic() || *next == b'_' || *next == b'{' => {
                nginx += 1
            }
            _ => {}
        }
    }
    (apache, nginx)
}

/// Removes the quoting a string pasted from a configuration file keeps.
fn unquote(spec: &str) -> &str {
    let spec = spec.trim();
    // Cut by the quote characters themselves, never by byte position: the
    // string may start or end with a character wider than one byte.
    if let Some(inner) = spec.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return inner;
    }
    if let Some(inner) = spec.strip_prefix('"').and_then(|s| s.strip_suffix('"'))
        && inner.contains("\\\"")
    {
        return inner;
    }
    spec
}

/// The slots of which a format keeps one field, by index; `None` for
/// those that may repeat.
fn slot_kind(slot: &Slot) -> Option<usize> {
    Some(match slot {
        Slot::Client => 0,
        Slot::Time => 1,
        Slot::Request => 2,
        Slot::Status => 3,
        Slot::UserAgent => 4,
        Slot::Vhost => 5,
        Slot::ForwardedFor => 6,
        Slot::Fraction(_) => 7,
        Slot::Offset => 8,
        Slot::Method => 9,
        Slot::Target => 10,
        Slot::Other | Slot::Number | Slot::Word | Slot::Port { .. } | Slot::OtherTime(_) => {
            return None;
        }
    })
}

/// How many slots `slot_kind` numbers.
const SLOT_KINDS: usize = 11;

/// True when the field's value shows by itself where it ends.
fn ends_by_itself(slot: &Slot) -> bool {
    matches!(
        slot,
        Slot::Time | Slot::OtherTime(_) | Slot::Status | Slot::Fraction(_) | Slot::Offset
    )
}

/// Whether a field, by its name in the format, is the request's host:
/// never holds a `/`.
fn names_host(name: &str) -> bool {
    let name = apache_core(name);
    matches!(&*name, "host" | "http_host" | "server_name" | "%v" | "%V")
        || name.eq_ignore_ascii_case("%{Host}i")
}

/// An Apache directive without its status conditions (`%!200V` is `%V`,
/// `%400,501{Host}i` is `%{Host}i`); an nginx name as it is.
fn apache_core(name: &str) -> std::borrow::Cow<'_, str> {
    match name.strip_prefix('%') {
        Some(rest) => {
            let core = rest.trim_start_matches(|c: char| c.is_ascii_digit() || "!,<>".contains(c));
            if core.len() == rest.len() {
                name.into()
            } else {
                format!("%{core}").into()
            }
        }
        None => name.into(),
    }
}

/// Whether a field, by its name in the format, holds a host taken
/// whatever it holds: one the client chose — the Host header as sent
/// (Apache's `%{Host}i`, nginx's `$http_host`) or the server's reading of
/// it (nginx's `$host`, which lets `evil!.cz` or `2026-11-29` through;
/// Apache's `%V` under `UseCanonicalName Off`) — or nginx's
/// `$server_name`, the first name of the `server_name` directive as
/// written (`*.example.cz`, `www.example.*`, a `~` regex). A line skipped
/// for one would hide a spoofer. Apache's own name (`%v`, its ServerName,
/// a host name or address) is checked as a host.
fn names_host_as_sent(name: &str) -> bool {
    let name = apache_core(name);
    matches!(&*name, "http_host" | "host" | "server_name" | "%V")
        || name.eq_ignore_ascii_case("%{Host}i")
}

/// Whether a field, by its name in the format, is one of nginx's
/// `$upstream_*` variables, which list a value per upstream tried
/// (`10.0.0.1:80, 10.0.0.2:80 : 10.0.0.3:80`, ngx_http_upstream_module).
fn names_upstream_list(name: &str) -> bool {
    name.starts_with("upstream_")
}

/// Whether a field, by its name in the format, is the request's path,
/// which starts with `/` (nginx's `$request_uri`, `$uri`, `$document_uri`;
/// Apache's `%U`).
fn names_path(name: &str) -> bool {
    matches!(name, "request_uri" | "uri" | "document_uri" | "%U")
}

/// Compiles a format string into the text before the first field and the
/// steps.
pub(crate) fn compile(spec: &str) -> Result<Compiled, String> {
    let spec = unquote(spec).as_bytes();
    let (apache, nginx) = dialect_votes(spec);
    let mut tokens = if nginx > apache {
        nginx_tokens(spec)?
    } else {
        apache_tokens(spec)?
    };

    // Keep one field of each slot: the first of the highest rank.
    let mut best: [Option<(u8, usize)>; SLOT_KINDS] = [None; SLOT_KINDS];
    for (index, token) in tokens.iter().enumerate() {
        if let Token::Field { slot, rank, .. } = token
            && let Some(kind) = slot_kind(slot)
            && best[kind].is_none_or(|(r, _)| *rank > r)
        {
            best[kind] = Some((*rank, index));
        }
    }
    // The fraction of a second kept is one of the time's own moment:
    // `%t` is when the request began, `%{end:msec_frac}t` a part of when
    // it ended, and the two glued would make a time that never was.
    let time_of_end = best[1]
        .is_some_and(|(_, at)| matches!(&tokens[at], Token::Field { name, .. } if of_end(name)));
    best[7] = None;
    for (index, token) in tokens.iter().enumerate() {
        if let Token::Field {
            slot: Slot::Fraction(_),
            rank,
            name,
            ..
        } = token
            && of_end(name) == time_of_end
            && best[7].is_none_or(|(r, _)| *rank > r)
        {
            best[7] = Some((*rank, index));
        }
    }
    // The request line, when logged, is read whole; its parts are read
    // only without it.
    if best[2].is_some() {
        best[9] = None;
        best[10] = None;
    }
    let mut time = TimeLayout::Clf;
    let mut skipped_times = Vec::new();
    for (index, token) in tokens.iter_mut().enumerate() {
        if let Token::Field { slot, layout, .. } = token {
            let kind = slot_kind(slot);
            // A field no slot uses: one of a kind kept elsewhere, or a
            // part of a time, which only has a layout.
            let unused = match kind {
                Some(kind) => best[kind].map(|(_, i)| i) != Some(index),
                None => layout.is_some(),
            };
            if unused {
                // A time not used is still read by its layout: its blanks
                // (`%{end:%d/%b/%Y %T}t`) end nothing.
                *slot = match layout.take() {
                    Some(layout) if skipped_times.len() < usize::from(u8::MAX) => {
                        skipped_times.push(layout);
                        Slot::OtherTime((skipped_times.len() - 1) as u8)
                    }
                    _ => Slot::Other,
                };
            } else if let Some(layout) = layout.take() {
                time = layout;
            }
        }
    }
    for (kind, what) in [
        (0, "client address (%h, %a or $remote_addr)"),
        (1, "time (%t or $time_local)"),
        (
            2,
            "request line (%r or $request, or $request_uri; %U and $uri are the \
             server's decoded reading of the target, which robots.txt is not matched \
             against)",
        ),
    ] {
        if best[kind].is_none() && !(kind == 2 && best[10].is_some()) {
            let parts = skipped_times.len();
            if kind == 1 && parts > 0 {
                // A date and an hour in fields of their own
                // (`%{%Y-%m-%d}t %{%H:%M:%S}t`): each is read for its
                // length, but neither is a time.
                return Err(format!(
                    "the log format has no time: its {parts} %{{…}}t field(s) each give a part of \
                     a time only (a date, an hour); write the time as one field (%t, or a \
                     %{{…}}t holding a date and an hour, such as %{{%Y-%m-%d %H:%M:%S}}t)"
                ));
            }
            return Err(format!("the log format has no {what}"));
        }
    }

    let mut lead = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for token in tokens {
        match token {
            Token::Literal(text) => match steps.last_mut() {
                Some(step) => step.after = Text::new(text),
                None => lead = text,
            },
            Token::Field {
                slot, name, dash, ..
            } => {
                if let Some(previous) = steps.last_mut()
                    && previous.after.bytes().is_empty()
                    && !ends_by_itself(&previous.slot)
                {
                    if names.last().is_some_and(|n| names_host(n)) && names_path(&name) {
                        // A host, then a path (`$host$request_uri`): the
                        // host ends at the path's first `/`.
                        previous.until_slash = true;
                    } else if matches!(
                        previous.slot,
                        Slot::Other | Slot::Number | Slot::Word | Slot::Port { .. }
                    ) && matches!(
                        slot,
                        Slot::Other | Slot::Number | Slot::Word | Slot::Port { .. }
                    ) {
                        // Two skipped fields in a row (`%U%q`) read as one,
                        // whose value need not be a number.
                        if previous.slot == Slot::Number || slot == Slot::Number {
                            previous.slot = Slot::Other;
                        }
                        continue;
                    } else {
                        return Err(format!(
                            "nothing separates {} from {} in the log format, so a line cannot be cut there",
                            names.last().map_or("", String::as_str),
                            name
                        ));
                    }
                }
                steps.push(Step {
                    upstream_list: slot == Slot::Other && names_upstream_list(&name),
                    host_as_sent: slot == Slot::Vhost && names_host_as_sent(&name),
                    address_only: slot == Slot::Client && name == "remote_addr",
                    empty_user_quoted: slot == Slot::Word && apache_core(&name) == "%u",
                    dash,
                    slot,
                    quoted: false,
                    colons_after: 0,
                    run_end: None,
                    until_slash: false,
                    after: Text::default(),
                });
                names.push(name);
            }
        }
    }
    // A field is quoted when a `"` opens it and its next text starts with one.
    let mut before_ends_with_quote = lead.ends_with(b"\"");
    for step in &mut steps {
        step.quoted = before_ends_with_quote && step.after.bytes().starts_with(b"\"");
        before_ends_with_quote = step.after.bytes().ends_with(b"\"");
    }
    for index in 0..steps.len() {
        // A client or a virtual host: an IPv6 address, when not bracketed,
        // holds `:`s of its own.
        if matches!(steps[index].slot, Slot::Client | Slot::Vhost)
            && !steps[index].quoted
            && steps[index].after.bytes().starts_with(b":")
        {
            let (colons, run_end) = colons_before_blank(&steps[index..]);
            steps[index].colons_after = colons;
            steps[index].run_end = run_end;
        }
    }
    Ok(Compiled {
        lead,
        steps,
        time,
        skipped_times,
    })
}

/// How many `:`s the format writes from the end of `steps[0]`'s field to
/// its next blank (the fields between taken to hold neither), and the
/// first other byte it writes before that blank which no address or port
/// holds (the `,` of `$remote_addr:$remote_port,$time_iso8601`): the run
/// of the line the colons are counted in ends there too, since the fields
/// after it may hold `:`s of their own.
fn colons_before_blank(steps: &[Step]) -> (u8, Option<u8>) {
    let mut colons = 0u8;
    for step in steps {
        for &b in step.after.bytes() {
            match b {
                b' ' | b'\t' => return (colons, None),
                b':' => colons = colons.saturating_add(1),
                // An address or a port may hold these (an IPv6 zone,
                // `%br-lan`, more: `colon_end` passes over it).
                b if b.is_ascii_hexdigit() || matches!(b, b'.' | b'%' | b'[' | b']') => {}
                b => return (colons, Some(b)),
            }
        }
    }
    (colons, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(spec: &str) -> Result<(String, Vec<String>), String> {
        let Compiled { lead, steps, .. } = compile(spec)?;
        let steps = steps
            .iter()
            .map(|s| {
                let slot = match &s.slot {
                    Slot::Client => "client",
                    Slot::Time => "time",
                    Slot::Request => "request",
                    Slot::Method => "method",
                    Slot::Target => "target",
                    Slot::Status => "status",
                    Slot::UserAgent => "ua",
                    Slot::Vhost => "vhost",
                    Slot::ForwardedFor => "xff",
                    Slot::Fraction(3) => "ms",
                    Slot::Fraction(_) => "us",
                    Slot::Offset => "offset",
                    Slot::Other => "-",
                    Slot::Number => "number",
                    Slot::Word => "word",
                    Slot::Port { or_none: false } => "port",
                    Slot::Port { or_none: true } => "port-or-none",
                    Slot::OtherTime(_) => "other-time",
                };
                let quote = if s.quoted { "q" } else { "" };
                format!("{slot}{quote}|{}", String::from_utf8_lossy(s.after.bytes()))
            })
            .collect();
        Ok((String::from_utf8_lossy(&lead).into_owned(), steps))
    }

    #[test]
    fn shapes() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                // The request in parts, the target as the client sent it.
                r#"$remote_addr [$time_local] "$request_method $request_uri $server_protocol" $status"#,
                "",
                &[
                    "client| [",
                    "time|] \"",
                    "method| ",
                    "target| ",
                    "-|\" ",
                    "status|",
                ],
            ),
            (
                // The request line wins over its parts.
                r#"%h %t "%r" %m %U %q"#,
                "",
                &["client| [", "time|] \"", "requestq|\" ", "-| ", "-| ", "-|"],
            ),
            (
                // The server's decoded reading of the target is opaque.
                r#"$remote_addr $time_iso8601 $uri $request_uri"#,
                "",
                &["client| ", "time| ", "-| ", "target|"],
            ),
            (
                r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#,
                "",
                &[
                    "client| ",
                    "word| ",
                    "word| [",
                    "time|] \"",
                    "requestq|\" ",
                    "status| ",
                    "number| \"",
                    "-q|\" \"",
                    "uaq|\"",
                ],
            ),
            (
                r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#,
                "",
                &[
                    "client| - ",
                    "word| [",
                    "time|] \"",
                    "requestq|\" ",
                    "status| ",
                    "number| \"",
                    "-q|\" \"",
                    "uaq|\"",
                ],
            ),
            (
                // Pasted from httpd.conf, quotes and all.
                r#""%v:%p %h %l %u %t \"%r\" %>s %O""#,
                "",
                &[
                    "vhost|:",
                    "port| ",
                    "client| ",
                    "word| ",
                    "word| [",
                    "time|] \"",
                    "requestq|\" ",
                    "status| ",
                    "number|",
                ],
            ),
            (
                // Pasted from nginx.conf in single quotes; ${} names.
                r#"'${host} $remote_addr [$time_iso8601] "$request" $status $request_time'"#,
                "",
                &[
                    "vhost| ",
                    "client| [",
                    "time|] \"",
                    "requestq|\" ",
                    "status| ",
                    "number|",
                ],
            ),
            (
                // %s and %>s: the final status wins; %a over %{c}a.
                r#"%{c}a %a %s %>s %{%d/%b/%Y %T}t.%{msec_frac}t "%r" 100%%"#,
                "",
                &[
                    "-| ",
                    "client| ",
                    "-| ",
                    "status| ",
                    "time|.",
                    "ms| \"",
                    "requestq|\" 100%",
                ],
            ),
            (
                // The time the request began is the fetch's, also when
                // its end is written first.
                r#"%h %{end:%d/%b/%Y:%H:%M:%S %z}t %t "%r""#,
                "",
                &["client| ", "other-time| [", "time|] \"", "requestq|\""],
            ),
            (
                // RHEL's default ssl_request_log: mod_ssl's %{…}x opaque.
                r#"%t %h %{SSL_PROTOCOL}x %{SSL_CIPHER}x "%r" %b"#,
                "[",
                &[
                    "time|] ",
                    "client| ",
                    "-| ",
                    "-| \"",
                    "requestq|\" ",
                    "number|",
                ],
            ),
            (
                // Apache's documented split time: strftime, fraction, offset.
                r#"%{%d/%b/%Y %T}t.%{msec_frac}t %{%z}t %h "%r" %{X-Forwarded-For}i %{UNIQUE_ID}e %{SSL_CLIENT_S_DN_CN}c %{id}M %{Trailer}^ti %^FB %{%A}t"#,
                "",
                &[
                    "time|.",
                    "ms| ",
                    "offset| ",
                    "client| \"",
                    "requestq|\" ",
                    "xff| ",
                    "-| ",
                    "-| ",
                    "-| ",
                    "-| ",
                    "-| ",
                    // `%{%A}t`, a part of a time, read by its layout.
                    "other-time|",
                ],
            ),
            (
                r#"$remote_addr [$time_local] "$request" "$http_x_forwarded_for" $ssl_protocol $upstream_addr"#,
                "",
                &[
                    "client| [",
                    "time|] \"",
                    "requestq|\" \"",
                    "xffq|\" ",
                    "-| ",
                    "-|",
                ],
            ),
            (
                r#"[%{%Y-%m-%d %H:%M:%S %z}t] %!200,304{Host}i %h %U%q "%r""#,
                "[",
                &["time|] ", "vhost| ", "client| ", "-| \"", "requestq|\""],
            ),
        ];
        for &(spec, lead, steps) in cases {
            let (got_lead, got_steps) = shape(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(got_lead, lead, "{spec}");
            assert_eq!(got_steps, steps, "{spec}");
        }
    }

    #[test]
    fn quotes_around_wide_characters() {
        // A string that starts or ends with a character of several bytes
        // once made the unquoting slice inside it.
        let cases: &[(&str, &str)] = &[
            ("é", "é"),
            ("\"é", "\"é"),
            ("é\"", "é\""),
            ("'é'", "é"),
            ("'", "'"),
            ("''", ""),
            ("\"%h \\\"%r\\\" é\"", "%h \\\"%r\\\" é"),
        ];
        for &(spec, inner) in cases {
            assert_eq!(unquote(spec), inner, "{spec}");
        }
        assert!(compile("é").is_err());
        assert!(compile("'%h %t \"%r\" ř'").is_ok());
    }

    #[test]
    fn errors() {
        let cases: &[(&str, &str)] = &[
            ("%h %t", "no request line"),
            ("%h %t %m %q", "no request line"),
            ("%h %t \"%m %U%q %H\"", "decoded reading of the target"),
            (
                "$remote_addr [$time_local] \"$request_method $uri$is_args$args\"",
                "decoded reading of the target",
            ),
            ("%t \"%r\"", "no client address"),
            ("%h \"%r\"", "no time"),
            ("%h %t \"%r\" %", "ends inside"),
            ("%h %t \"%r\" %{Referer", "no closing }"),
            ("%h %t \"%r\" %J", "unknown directive %J"),
            ("%h%u %t \"%r\"", "nothing separates %h from %u"),
            ("%h %{%H:%M}t \"%r\"", "no time"),
            (
                "%h %{%Y-%m-%d}t %{%H:%M:%S}t \"%r\"",
                "2 %{…}t field(s) each give a part of a time only",
            ),
            ("%h %t \"%r\" %{x}^tx", "unknown directive %{x}^tx"),
            ("%h %t \"%r\" %y", "unknown directive %y"),
            (
                "$remote_addr$remote_user [$time_local] \"$request\"",
                "nothing separates",
            ),
        ];
        for &(spec, wanted) in cases {
            match compile(spec) {
                Ok(_) => panic!("{spec} compiled"),
                Err(e) => assert!(e.contains(wanted), "{spec}: {e}"),
            }
        }
    }
}
