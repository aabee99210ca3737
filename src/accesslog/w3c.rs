//! W3C extended logs (IIS, CloudFront and the like): takes the `#Fields:`
//! and `#GMT-Offset:` directives a file writes and gives a `W3cFormat` that
//! reads the lines below them into an `Entry` (SPEC §1 "Formats", `w3c`).
//!
//! Fields are separated by blanks or tabs (IIS writes spaces, CloudFront
//! tabs; neither writes a blank inside a field); a field that opens with
//! `"` is a quoted string, as some CDNs write user agents. `date` and `time` are UTC
//! (IIS writes them so whatever its local-time rollover setting);
//! `date-local`/`time-local` are placed by a `#GMT-Offset:` directive of
//! the file, or else by `--log-tz`, and without either are
//! `Skip::NoOffset`. The target is `cs-uri` (path and query together)
//! or `cs-uri-stem` and `cs-uri-query` (`-` is none); the user agent is
//! decoded as `decode::w3c_user_agent` says. A directive changes the format
//! for the lines below it: `Parser` in `detect.rs` follows them within a
//! chunk, and `carry` hands the fields in force on to the next chunk.

use super::entry::{Entry, LogEscaping, Skip};
use super::fields;
use super::time::{Timestamp, days_from_civil};
use super::zone::LogTz;

/// What a `#Fields:` column means to the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Date,
    Time,
    DateLocal,
    TimeLocal,
    Client,
    Method,
    Stem,
    Query,
    /// `cs-uri`: path and query together, as the W3C draft names it.
    Uri,
    Status,
    UserAgent,
    Xff,
    Vhost,
    /// CloudFront's `x-host-header`: the Host header the viewer sent (the
    /// site's name), where its `cs(Host)` is the distribution's
    /// `*.cloudfront.net` name. The virtual host when present.
    HostHeader,
    Other,
}

/// The fields in force and the file's offset for local times.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct W3cFormat {
    columns: Box<[Column]>,
    /// From `#GMT-Offset:`, in minutes east of UTC.
    local_offset: Option<i16>,
    /// `--log-tz`: places local times where the file gives no offset.
    zone: Option<LogTz>,
}

fn column(name: &str) -> Column {
    match name.to_ascii_lowercase().as_str() {
        "date" => Column::Date,
        "time" => Column::Time,
        "date-local" => Column::DateLocal,
        "time-local" => Column::TimeLocal,
        "c-ip" => Column::Client,
        "cs-method" => Column::Method,
        "cs-uri-stem" => Column::Stem,
        "cs-uri-query" => Column::Query,
        "cs-uri" => Column::Uri,
        "sc-status" => Column::Status,
        "cs(user-agent)" => Column::UserAgent,
        "x-forwarded-for" | "cs(x-forwarded-for)" => Column::Xff,
        "cs-host" | "cs(host)" => Column::Vhost,
        "x-host-header" => Column::HostHeader,
        _ => Column::Other,
    }
}

impl W3cFormat {
    /// The same format with local times that no `#GMT-Offset:` places put
    /// in `zone` (SPEC §1 "Times"); without either they are
    /// `Skip::NoOffset`, never UTC.
    pub fn with_zone(mut self, zone: Option<LogTz>) -> W3cFormat {
        self.zone = zone;
        self
    }

    /// True when `#Fields:` named the columns an audit needs.
    pub fn has_fields(&self) -> bool {
        self.needed().iter().all(|&(named, _)| named)
    }

    /// The fields an audit needs that the `#Fields:` line in force does
    /// not name, when there is one; `None` when none was read or it names
    /// them all.
    pub fn missing_fields(&self) -> Option<String> {
        let missing: Vec<&str> = self
            .needed()
            .iter()
            .filter(|&&(named, _)| !named)
            .map(|&(_, name)| name)
            .collect();
        (!self.columns.is_empty() && !missing.is_empty()).then(|| missing.join(", "))
    }

    /// Each field an audit needs: whether the fields in force name it,
    /// and its name for a message.
    fn needed(&self) -> [(bool, &'static str); 3] {
        let has = |c| self.columns.contains(&c);
        [
            (has(Column::Client), "c-ip"),
            (
                has(Column::Stem) || has(Column::Uri),
                "cs-uri-stem (or cs-uri)",
            ),
            (
                (has(Column::Date) && has(Column::Time))
                    || (has(Column::DateLocal) && has(Column::TimeLocal)),
                "date and time (or date-local and time-local)",
            ),
        ]
    }

    /// True when the fields in force carry a user agent.
    pub fn has_user_agent(&self) -> bool {
        self.columns.contains(&Column::UserAgent)
    }

    /// Takes a directive line (`#…`) into account; gives `Skip::Directive`
    /// for the line itself.
    pub fn follow(&mut self, line: &[u8]) -> Skip {
        let Ok(text) = std::str::from_utf8(line) else {
            return Skip::Directive;
        };
        let Some((name, value)) = text.strip_prefix('#').and_then(|t| t.split_once(':')) else {
            return Skip::Directive;
        };
        if name.trim().eq_ignore_ascii_case("Fields") {
            self.columns = value.split_ascii_whitespace().map(column).collect();
        } else if name.trim().eq_ignore_ascii_case("GMT-Offset") {
            self.local_offset = offset(value.trim());
        }
        Skip::Directive
    }

    /// True when `line` is a directive that changes the format.
    pub fn changes(line: &[u8]) -> bool {
        let name = |n: &[u8]| line.len() > n.len() + 1 && line[1..=n.len()].eq_ignore_ascii_case(n);
        line.first() == Some(&b'#') && (name(b"Fields:") || name(b"GMT-Offset:"))
    }

    /// Reads one line below the directives in force.
    pub fn parse<'a>(&self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        match self.parse_quoting(line, true) {
            // IIS and CloudFront never quote: IIS writes a value that
            // begins with `"` as it came (a user agent `"Mozilla/5.0`,
            // a referer `"http://…`), its blanks as `+`. Such a line is
            // read again with every `"` a plain byte, and taken when its
            // words are exactly the fields `#Fields:` names: a quoting
            // writer's value holds a blank, so its line would have more.
            Err(skip @ (Skip::NoClosingQuote | Skip::Mismatch))
                if memchr::memchr(b'"', line).is_some() =>
            {
                self.parse_quoting(line, false).map_err(|_| skip)
            }
            read => read,
        }
    }

    /// `parse`, with a field that opens with `"` a quoted string when
    /// `quoting`, else a word like any other.
    fn parse_quoting<'a>(&self, line: &'a [u8], quoting: bool) -> Result<Entry<'a>, Skip> {
        // Trailing tabs stay: in a tabbed line, the one before an empty
        // last field is that field's start.
        let end = line
            .iter()
            .rposition(|&b| !matches!(b, b'\r' | b'\n' | b' '))
            .map_or(0, |last| last + 1);
        let line = &line[..end];
        if line.trim_ascii().is_empty() {
            return Err(Skip::Empty);
        }
        if line[0] == b'#' {
            return Err(Skip::Directive);
        }
        if !self.has_fields() {
            return Err(Skip::Mismatch);
        }
        // IIS writes a blank as `+`, CloudFront escapes it: a raw carriage
        // return is no field's, but a file whose records end in CR alone,
        // the rest of the file swallowed into this line's last fields.
        // Skipped, never a clean night.
        if memchr::memchr(b'\r', line).is_some() {
            return Err(Skip::Mismatch);
        }
        let mut entry = Entry {
            escaping: LogEscaping::W3c,
            ..Entry::EMPTY
        };
        let (mut date, mut time, mut local) = (None, None, false);
        let (mut uri, mut host_header) = (None, None);
        // CloudFront separates with tabs and may leave a field empty;
        // IIS separates with a space. A tabbed line is cut at every tab.
        let tabbed = memchr::memchr(b'\t', line).is_some();
        let mut rest = Some(line);
        for &column in self.columns.iter() {
            let Value {
                text: value,
                quoted,
            } = next_value(&mut rest, tabbed, quoting)?;
            let present = (!matches!(value, b"-" | b"")).then_some(value);
            // Times and numbers are never strings: a quoted one means the
            // fields are not where `#Fields:` says. IIS Advanced Logging
            // quotes its client and host (`"77.75.77.123"`, `"example.cz"`):
            // read when what they hold is one (a client is checked below;
            // a quoted host must be a host name, not a user agent or a
            // referer that landed there).
            if quoted {
                match column {
                    Column::Date | Column::Time | Column::DateLocal | Column::TimeLocal => {
                        return Err(Skip::BadTime);
                    }
                    Column::Status => return Err(Skip::BadStatus),
                    Column::Vhost | Column::HostHeader
                        if present.is_some_and(|host| !fields::is_server_host(host)) =>
                    {
                        return Err(Skip::BadHost);
                    }
                    _ => {}
                }
            }
            match column {
                Column::Date => date = Some(value),
                Column::Time => time = Some(value),
                Column::DateLocal if date.is_none() => {
                    date = Some(value);
                    local = true;
                }
                Column::TimeLocal if time.is_none() => time = Some(value),
                Column::Client => entry.client = value,
                Column::Method => entry.method = present,
                Column::Stem => entry.request = value,
                Column::Query => entry.query = present,
                Column::Uri => uri = present,
                Column::Status => {
                    entry.status = match present {
                        None => None,
                        Some(s) if s.len() <= 3 && s.iter().all(u8::is_ascii_digit) => {
                            Some(s.iter().fold(0, |v, &d| v * 10 + u16::from(d - b'0')))
                        }
                        Some(_) => return Err(Skip::BadStatus),
                    }
                }
                Column::UserAgent => {
                    entry.user_agent = present;
                    if quoted {
                        entry.escaping = LogEscaping::W3cQuoted;
                    }
                }
                Column::Xff => entry.forwarded_for = present,
                Column::Vhost => entry.vhost = present,
                Column::HostHeader => host_header = present,
                _ => {}
            }
        }
        // `#Fields:` names every field of the line: a word more means the
        // fields are not where it says (a blank inside an unquoted value,
        // which IIS writes `+` and CloudFront escapes), so the values read
        // may be shifted (the user agent cut at its first blank). Empty
        // fields after the last (a trailing tab) are none.
        if rest.is_some_and(|left| left.iter().any(|&b| b != b' ' && b != b'\t')) {
            return Err(Skip::Mismatch);
        }
        if host_header.is_some() {
            entry.vhost = host_header;
        }
        // `cs-uri` holds the whole target; with the stem and query too,
        // it is the one that lost nothing.
        if let Some(uri) = uri {
            entry.request = uri;
            entry.query = None;
        }
        if entry.client.is_empty() {
            return Err(Skip::NoClient);
        }
        if !fields::is_client(entry.client) {
            return Err(Skip::BadClient);
        }
        // A host is the Host header as the client sent it (IIS's
        // `cs-host`, CloudFront's `x-host-header`), or a name the server
        // gives (CloudFront's `cs(Host)`): taken whatever it holds, as in
        // JSON logs, so that a spoofer's odd Host hides no fetch; such a
        // value names no site. `#Fields:` says where each field is, and a
        // quoted one holds a host name (above).
        let (date, time) = (date.unwrap_or_default(), time.unwrap_or_default());
        // The file's own `#GMT-Offset:` places its local times; `--log-tz`
        // those of a file that gives none.
        entry.time = match (local, self.local_offset, &self.zone) {
            (false, _, _) => timestamp(date, time, 0),
            (true, Some(offset), _) => timestamp(date, time, offset),
            (true, None, Some(zone)) => timestamp(date, time, 0).and_then(|as_utc| {
                let mut placed = zone.from_local_seconds(as_utc.unix)?;
                placed.millis = as_utc.millis;
                Some(placed)
            }),
            (true, None, None) => return Err(Skip::NoOffset),
        }
        .ok_or(Skip::BadTime)?;
        if entry.method.is_none() {
            // A log without cs-method: every line a fetch of its target.
            entry.method = Some(b"GET");
        }
        Ok(entry)
    }
}

/// The next field of a line: up to the next tab in a tabbed line (an empty
/// field is a field), else up to the next run of blanks. A field that
/// opens with `"` is a quoted string (the W3C draft's `<string>`, as some
/// CDNs write user agents and referers): it runs to the quote that closes
/// it, `""` standing for a quote inside, and gives its inside with
/// `quoted` set. A quoted field must be followed by its separator or the
/// line's end; one that is not, or that never closes, does not fit: the
/// line is skipped rather than read with its fields shifted. Without
/// `quoting`, a `"` is a byte like any other.
fn next_value<'a>(
    rest: &mut Option<&'a [u8]>,
    tabbed: bool,
    quoting: bool,
) -> Result<Value<'a>, Skip> {
    // `None`: the line has no field left; `Some(b"")` after a tab: an empty
    // last field.
    let Some(mut left) = *rest else {
        return Err(Skip::Truncated);
    };
    if !tabbed {
        let start = left
            .iter()
            .position(|&b| b != b' ')
            .ok_or(Skip::Truncated)?;
        left = &left[start..];
    }
    let separator = if tabbed { b'\t' } else { b' ' };
    if quoting && left.first() == Some(&b'"') {
        let mut at = 1;
        let close = loop {
            let quote = at + memchr::memchr(b'"', &left[at..]).ok_or(Skip::NoClosingQuote)?;
            if left.get(quote + 1) == Some(&b'"') {
                at = quote + 2;
            } else {
                break quote;
            }
        };
        let text = &left[1..close];
        *rest = match left[close + 1..].split_first() {
            None => None,
            Some((&b, tail)) if b == separator => Some(tail),
            Some(_) => return Err(Skip::Mismatch),
        };
        return Ok(Value { text, quoted: true });
    }
    let text = match memchr::memchr(separator, left) {
        Some(end) => {
            *rest = Some(&left[end + 1..]);
            &left[..end]
        }
        None => {
            *rest = None;
            left
        }
    };
    Ok(Value {
        text,
        quoted: false,
    })
}

/// One field of a line, and whether it was written as a quoted string.
struct Value<'a> {
    text: &'a [u8],
    quoted: bool,
}

/// `+HH:MM`, `+HHMM`, `-H`… as `#GMT-Offset:` writes it.
fn offset(text: &str) -> Option<i16> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => (1, text),
    };
    let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
    let (hours, minutes) = match digits.len() {
        1 | 2 => (digits.parse::<i16>().ok()?, 0),
        3 | 4 => {
            let split = digits.len() - 2;
            (digits[..split].parse().ok()?, digits[split..].parse().ok()?)
        }
        _ => return None,
    };
    (hours < 24 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}

/// `2026-11-30` and `13:55:36` (a fraction of a second kept to the
/// millisecond), written at `offset` minutes east of UTC.
fn timestamp(date: &[u8], time: &[u8], offset: i16) -> Option<Timestamp> {
    let number = |s: &[u8]| -> Option<u32> {
        if s.is_empty() || s.len() > 4 || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(s.iter().fold(0, |v, &d| v * 10 + u32::from(d - b'0')))
    };
    let mut parts = date.split(|&b| b == b'-');
    let (year, month, day) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    if parts.next().is_some() || !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    let (clock, fraction) = match time.iter().position(|&b| b == b'.') {
        Some(at) => (&time[..at], &time[at + 1..]),
        None => (time, &b""[..]),
    };
    let mut parts = clock.split(|&b| b == b':');
    let (hour, minute, second) = (
        number(parts.next()?)?,
        number(parts.next()?)?,
        number(parts.next()?)?,
    );
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if !(1..=12).contains(&month)
        || day == 0
        || day > super::time::days_in_month(i64::from(year), month)
    {
        return None;
    }
    let days = days_from_civil(i64::from(year), month, day);
    let millis = fraction
        .iter()
        .chain(std::iter::repeat(&b'0'))
        .take(3)
        .fold(0u16, |v, &d| v * 10 + u16::from(d - b'0'));
    let local = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    let mut time = super::time::at_local(local, offset)?;
    time.millis = millis;
    Some(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(directives: &[&str]) -> W3cFormat {
        let mut format = W3cFormat::default();
        for line in directives {
            assert_eq!(format.follow(line.as_bytes()), Skip::Directive);
        }
        format
    }

    #[test]
    fn iis_line() {
        let format = format(&[
            "#Software: Microsoft Internet Information Services 10.0",
            "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken",
        ]);
        let line = b"2026-11-30 13:55:36 10.0.0.1 GET /a/b.aspx id=3&x=%22 443 - 77.75.77.123 Mozilla/5.0+(compatible;+SeznamBot/4.0;++http://napoveda.seznam.cz/seznambot-intro/) - 200 0 0 15";
        let entry = format.parse(line).expect("parses");
        assert_eq!(entry.client, b"77.75.77.123");
        assert_eq!(entry.time.rfc3339(), "2026-11-30T13:55:36+00:00");
        assert_eq!(&*entry.request_line(), b"GET /a/b.aspx?id=3&x=%22");
        assert_eq!(entry.status, Some(200));
        assert_eq!(
            entry.user_agent_text().as_deref(),
            Some(&b"Mozilla/5.0 (compatible; SeznamBot/4.0;  http://napoveda.seznam.cz/seznambot-intro/)"[..])
        );
    }

    #[test]
    fn local_times_need_an_offset() {
        let fields = "#Fields: date-local time-local c-ip cs-method cs-uri-stem sc-status";
        let line: &[u8] = b"2026-11-30 14:55:36 77.75.77.123 GET / 200";
        assert_eq!(format(&[fields]).parse(line), Err(Skip::NoOffset));
        let entry = format(&["#GMT-Offset: +01:00", fields])
            .parse(line)
            .expect("parses");
        assert_eq!(entry.time.rfc3339(), "2026-11-30T14:55:36+01:00");
        assert_eq!(entry.time.unix % 86_400, 13 * 3600 + 55 * 60 + 36);
    }

    #[test]
    fn cs_uri_is_the_whole_target() {
        let entry = format(&["#Fields: date time c-ip cs-method cs-uri sc-status cs(User-Agent)"])
            .parse(b"2026-11-29 10:00:00 77.75.77.123 GET /private/a?x=1 200 SeznamBot/4.0")
            .expect("parses");
        assert_eq!(entry.request_line().as_ref(), b"GET /private/a?x=1");
        // Beside the stem and query, cs-uri is the one read.
        let entry = format(&["#Fields: date time c-ip cs-uri-stem cs-uri-query cs-uri"])
            .parse(b"2026-11-29 10:00:00 77.75.77.123 /a - /a?b=1")
            .expect("parses");
        assert_eq!(entry.request_line().as_ref(), b"GET /a?b=1");
        // A `-` in cs-uri is no target: the stem and query are.
        let entry = format(&["#Fields: date time c-ip cs-uri-stem cs-uri-query cs-uri"])
            .parse(b"2026-11-29 10:00:00 77.75.77.123 /a b=2 -")
            .expect("parses");
        assert_eq!(entry.request_line().as_ref(), b"GET /a?b=2");
    }

    #[test]
    fn cloudfronts_host_header_is_the_virtual_host() {
        // `cs(Host)` is the distribution's name; `x-host-header` the site's.
        let fields =
            "#Fields: date time c-ip cs-method cs(Host) cs-uri-stem sc-status x-host-header";
        let entry = format(&[fields])
            .parse(b"2026-11-29\t04:00:02\t77.75.77.250\tGET\td111111abcdef8.cloudfront.net\t/private/a\t200\twww.example.cz")
            .expect("parses");
        assert_eq!(entry.vhost, Some(&b"www.example.cz"[..]));
        // Without it, `cs(Host)` is all there is.
        let entry = format(&[fields])
            .parse(b"2026-11-29\t04:00:02\t77.75.77.250\tGET\td111111abcdef8.cloudfront.net\t/private/a\t200\t-")
            .expect("parses");
        assert_eq!(entry.vhost, Some(&b"d111111abcdef8.cloudfront.net"[..]));
    }

    #[test]
    fn bad_lines() {
        let format = format(&["#Fields: date time c-ip cs-method cs-uri-stem sc-status"]);
        let cases: &[(&[u8], Skip)] = &[
            (b"2026-11-30 13:55:36 77.75.77.123 GET", Skip::Truncated),
            (b"2026-11-31 13:55:36 77.75.77.123 GET / 200", Skip::BadTime),
            (b"2026-11-30 25:55:36 77.75.77.123 GET / 200", Skip::BadTime),
            // A leap second past 9999 would be the year 10000.
            (b"9999-12-31 23:59:60 77.75.77.123 GET / 200", Skip::BadTime),
            // A raw CR: records ending in CR alone, one swallowing the rest.
            (
                b"2026-11-30 13:55:36 77.75.77.123 GET / 200\r2026-11-30",
                Skip::Mismatch,
            ),
            (b"2026-11-30 13:55:36 host:443 GET / 200", Skip::BadClient),
            (
                b"2026-11-30 13:55:36 77.75.77.123 GET / 2000",
                Skip::BadStatus,
            ),
            (b"#Remark: hello", Skip::Directive),
            (b"", Skip::Empty),
            // A word more than `#Fields:` names: the fields may be shifted.
            (
                b"2026-11-30 13:55:36 77.75.77.123 GET / 200 15",
                Skip::Mismatch,
            ),
            (
                b"2026-11-30\t13:55:36\t77.75.77.123\tGET\t/\t200\tx",
                Skip::Mismatch,
            ),
        ];
        for &(line, want) in cases {
            assert_eq!(
                format.parse(line),
                Err(want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            W3cFormat::default().parse(b"2026-11-30 13:55:36 1.2.3.4 GET / 200"),
            Err(Skip::Mismatch)
        );
        // Empty fields past the last, a trailing tab, are none.
        assert!(
            format
                .parse(b"2026-11-30\t13:55:36\t77.75.77.123\tGET\t/\t200\t\t")
                .is_ok()
        );
    }

    #[test]
    fn quoted_strings_are_one_field() {
        let format =
            format(&["#Fields: date time c-ip cs-method cs(User-Agent) cs-uri-stem sc-status"]);
        // A quoted user agent keeps its blanks and its `+`; `""` is a quote.
        let entry = format
            .parse(br#"2026-11-29 13:00:01 77.75.77.123 GET "Mozilla/5.0 ""x"" (compatible; SeznamBot/4.0; +http://a/)" /private/a 200"#)
            .expect("parses");
        assert_eq!(
            entry.user_agent_text().as_deref(),
            Some(&br#"Mozilla/5.0 "x" (compatible; SeznamBot/4.0; +http://a/)"#[..])
        );
        assert_eq!(entry.request_line().as_ref(), b"GET /private/a");
        assert_eq!(entry.status, Some(200));
        // Blanks around a quoted field are separators as anywhere else; a
        // quoted field may close the line, and `""` or `"-"` is none.
        let format = self::format(&["#Fields: date time c-ip cs-uri-stem cs(User-Agent)"]);
        let entry = format
            .parse(br#"2026-11-29 13:00:01  77.75.77.123  /a   "SeznamBot/4.0""#)
            .expect("parses");
        assert_eq!(
            entry.user_agent_text().as_deref(),
            Some(&b"SeznamBot/4.0"[..])
        );
        for none in [
            &br#"2026-11-29 13:00:01 1.2.3.4 /a """#[..],
            br#"2026-11-29 13:00:01 1.2.3.4 /a "-""#,
        ] {
            assert_eq!(format.parse(none).expect("parses").user_agent, None);
        }
        // Unquoted, `+` is IIS's blank, as before.
        let entry = format
            .parse(b"2026-11-29 13:00:01 1.2.3.4 /a SeznamBot/4.0+(x)")
            .expect("parses");
        assert_eq!(
            entry.user_agent_text().as_deref(),
            Some(&b"SeznamBot/4.0 (x)"[..])
        );
        // In a tabbed line, too.
        let entry = format
            .parse(b"2026-11-29\t13:00:01\t1.2.3.4\t/a\t\"Seznam\tBot\"")
            .expect("parses");
        assert_eq!(
            entry.user_agent_text().as_deref(),
            Some(&b"Seznam\tBot"[..])
        );
    }

    #[test]
    fn a_tabbed_lines_empty_last_field_is_a_field() {
        let format = format(&["#Fields: date time c-ip cs-uri-stem cs(User-Agent) x-a"]);
        for line in [
            &b"2026-11-29\t13:00:01\t1.2.3.4\t/a\tSeznamBot/4.0\t"[..],
            b"2026-11-29\t13:00:01\t1.2.3.4\t/a\tSeznamBot/4.0\t\r\n",
            b"2026-11-29\t13:00:01\t1.2.3.4\t/a\tSeznamBot/4.0\t\t",
        ] {
            let entry = format.parse(line).expect("parses");
            assert_eq!(entry.user_agent, Some(&b"SeznamBot/4.0"[..]));
        }
        assert_eq!(
            format.parse(b"2026-11-29\t13:00:01\t1.2.3.4\t/a\tSeznamBot/4.0"),
            Err(Skip::Truncated)
        );
        assert_eq!(format.parse(b"\t\t\t\r\n"), Err(Skip::Empty));
    }

    /// IIS Advanced Logging quotes the client, the user agent, the
    /// referer and the host: read when each holds what its field must.
    #[test]
    fn iis_advanced_logging_quotes_its_client_and_host() {
        let format =
            format(&["#Fields: date time c-ip cs(User-Agent) cs(Host) cs-uri-stem sc-status"]);
        let line =
            br#"2026-11-29 13:00:01 "77.75.77.123" "SeznamBot/4.0 (+x)" "www.example.cz" /a 200"#;
        let entry = format.parse(line).expect("quoted client and host");
        assert_eq!(entry.client, b"77.75.77.123");
        assert_eq!(entry.vhost, Some(&b"www.example.cz"[..]));
        // A user agent where the host should be is no host.
        let shifted = br#"2026-11-29 13:00:01 "77.75.77.123" "x" "SeznamBot/4.0 (+x)" /a 200"#;
        assert_eq!(format.parse(shifted).err(), Some(Skip::BadHost));
        let dash = br#"2026-11-29 13:00:01 "77.75.77.123" "x" "-" /a 200"#;
        assert_eq!(format.parse(dash).map(|e| e.vhost), Ok(None));
    }

    #[test]
    fn a_quoted_field_that_does_not_fit_skips_the_line() {
        let format =
            format(&["#Fields: date time c-ip cs-method cs(User-Agent) cs-uri-stem sc-status"]);
        let cases: &[(&[u8], Skip)] = &[
            // Never closed, and a word more than the fields: a quoting
            // writer's value with a blank, cut.
            (
                br#"2026-11-29 13:00:01 1.2.3.4 GET "SeznamBot/4.0 x /private/a 200"#,
                Skip::NoClosingQuote,
            ),
            // Closed, but run into the next field, and a field short.
            (
                br#"2026-11-29 13:00:01 1.2.3.4 GET "SeznamBot/4.0"/private/a 200"#,
                Skip::Mismatch,
            ),
            // A quoted time or status is none; a quoted client must be
            // one (IIS Advanced Logging quotes it).
            (
                br#"2026-11-29 13:00:01 "1.2.3.4 x" GET "SeznamBot/4.0" /a 200"#,
                Skip::BadClient,
            ),
            (
                br#""2026-11-29" 13:00:01 1.2.3.4 GET "SeznamBot/4.0" /a 200"#,
                Skip::BadTime,
            ),
            (
                br#"2026-11-29 13:00:01 1.2.3.4 GET "SeznamBot/4.0" /a "200""#,
                Skip::BadStatus,
            ),
            // Cut inside the quoted field.
            (br#"2026-11-29 13:00:01 1.2.3.4 GET """#, Skip::Truncated),
        ];
        for &(line, want) in cases {
            assert_eq!(
                format.parse(line),
                Err(want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    /// IIS writes a value that begins with `"` as it came, with `+` for
    /// its blanks: a line whose words are exactly its fields is read so.
    #[test]
    fn an_iis_value_that_begins_with_a_quote_is_read_as_written() {
        let format = format(&[
            "#Fields: date time c-ip cs-method cs-uri-stem cs(User-Agent) cs(Referer) sc-status",
        ]);
        let cases: &[(&[u8], &[u8])] = &[
            (
                br#"2026-11-29 13:00:01 1.2.3.4 GET /a "Mozilla/5.0+(compatible;+SeznamBot/4.0) - 200"#,
                br#""Mozilla/5.0+(compatible;+SeznamBot/4.0)"#,
            ),
            (
                br#"2026-11-29 13:00:01 1.2.3.4 GET /a "Mozilla/5.0"+(SeznamBot/4.0) - 200"#,
                br#""Mozilla/5.0"+(SeznamBot/4.0)"#,
            ),
            // A referer that begins with a quote.
            (
                br#"2026-11-29 13:00:01 1.2.3.4 GET /a SeznamBot/4.0 "http://x/ 200"#,
                b"SeznamBot/4.0",
            ),
        ];
        for &(line, user_agent) in cases {
            let entry = format.parse(line).expect("read as written");
            assert_eq!(entry.user_agent, Some(user_agent));
            assert_eq!(entry.escaping, LogEscaping::W3c);
            assert_eq!(entry.status, Some(200));
            assert_eq!(entry.request, b"/a");
        }
    }

    #[test]
    fn offsets() {
        for (text, want) in [
            ("+01:00", Some(60)),
            ("-0530", Some(-330)),
            ("+2", Some(120)),
            ("x", None),
            ("+25:00", None),
        ] {
            assert_eq!(offset(text), want, "{text}");
        }
    }
}
