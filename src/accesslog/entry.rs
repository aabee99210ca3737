//! What a parsed line gives: its fields as `Entry` (text still as logged,
//! escaped as `LogEscaping` says), or the `Skip` that says why the line was
//! not read (SPEC §1 "A line that does not parse is skipped and counted by
//! reason"). Made by every reader: `format`, `clf_family`, `json`, `w3c`.

use std::fmt;

use super::time::Timestamp;

/// The fields of one parsed line. Text is raw, as logged: still escaped,
/// in the way `escaping` says; `Entry::request_line` and
/// `Entry::user_agent_text` decode it, once, for the lines that need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// IPv4, IPv6 or a host name, as logged.
    pub client: &'a [u8],
    pub time: Timestamp,
    /// The request line (`GET /a?b HTTP/1.1`), still escaped; see
    /// `escape::unescape` and `request::parse_request`. When `method` is
    /// set (JSON and W3C logs log them apart), the target alone.
    pub request: &'a [u8],
    /// The method, when the log writes it apart from the target.
    pub method: Option<&'a [u8]>,
    /// The query, when the log writes it apart from the target (W3C
    /// `cs-uri-query`), without its `?`.
    pub query: Option<&'a [u8]>,
    /// `None` when logged as `-` or when the format has no status.
    pub status: Option<u16>,
    /// `None` when logged as `-` or empty, or when the format has none.
    pub user_agent: Option<&'a [u8]>,
    /// The virtual host; `None` when logged as `-` or the format has none.
    pub vhost: Option<&'a [u8]>,
    /// The forwarded-for chain as logged (`X-Forwarded-For`), connecting
    /// proxy last; `None` when the format has none.
    pub forwarded_for: Option<&'a [u8]>,
    /// The server's own reading of the client behind its proxies (Caddy's
    /// `client_ip`, Traefik's `ClientHost`): to be believed only when a
    /// trusted proxy connected (SPEC §1 "Client address").
    pub forwarded_client: Option<&'a [u8]>,
    /// How the text fields are escaped.
    pub escaping: LogEscaping,
}

impl Entry<'_> {
    /// An entry with every field empty, to be filled by a parser.
    pub(crate) const EMPTY: Entry<'static> = Entry {
        client: b"",
        time: Timestamp {
            unix: 0,
            millis: 0,
            offset_min: 0,
        },
        request: b"",
        method: None,
        query: None,
        status: None,
        user_agent: None,
        vhost: None,
        forwarded_for: None,
        forwarded_client: None,
        escaping: LogEscaping::Backslash,
    };
}

/// How an entry's text fields are escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogEscaping {
    /// Apache and nginx text logs: `\"`, `\\`, `\xHH` and the like.
    Backslash,
    /// The inside of JSON strings.
    Json,
    /// W3C extended logs: targets as logged; user agents with `+` for a
    /// blank and `%XX` for other bytes.
    W3c,
    /// A W3C line whose user agent is a quoted string: inside it `""` is a
    /// quote and every other byte is itself (a `+` is a `+`).
    W3cQuoted,
}

/// Why a line was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// Nothing on the line.
    Empty,
    /// Longer than `chunk::MAX_LINE`; its text was not kept.
    TooLong,
    /// The line stops before the format's fields do.
    Truncated,
    /// The text between fields is not what the format says.
    Mismatch,
    /// A quoted field has no closing quote.
    NoClosingQuote,
    /// The time field is not a valid time in the format's layout.
    BadTime,
    /// The status is neither `-` nor 1 to 3 digits.
    BadStatus,
    /// The client field is empty.
    NoClient,
    /// The client field holds what is no address or host name
    /// (`host:443`, a quoted string, a date): the fields are shifted.
    BadClient,
    /// A host name in a client field the server writes as an address
    /// (nginx's `$remote_addr`): another field written where the client
    /// should be.
    NameForAddress,
    /// The virtual host field holds what is no host name.
    BadHost,
    /// The time carries no UTC offset and no zone was given for it.
    NoOffset,
    /// Not one JSON object, or a field of the wrong JSON type.
    BadJson,
    /// Not JSON for nginx's default escaping (`\x22` for a quote, `\xHH`
    /// past ASCII): a `log_format` shaped as JSON without `escape=json`.
    NginxEscapes,
    /// Not a skip: a directive of the log itself (W3C `#Fields:`),
    /// counted with the blank lines.
    Directive,
    /// Not a skip: a JSON line that is no request (Caddy's runtime
    /// messages), counted apart.
    NotRequest,
}

impl Skip {
    /// Every reason a line is skipped, in order, for counting skipped
    /// lines by reason (`Directive` and `NotRequest` are no skips).
    pub const ALL: [Skip; 14] = [
        Skip::Empty,
        Skip::TooLong,
        Skip::Truncated,
        Skip::Mismatch,
        Skip::NoClosingQuote,
        Skip::BadTime,
        Skip::BadStatus,
        Skip::NoClient,
        Skip::BadClient,
        Skip::NameForAddress,
        Skip::BadHost,
        Skip::NoOffset,
        Skip::BadJson,
        Skip::NginxEscapes,
    ];

    /// A short reason for the `file:line: reason` message.
    pub fn reason(self) -> &'static str {
        match self {
            Skip::Empty => "empty line",
            Skip::TooLong => "line too long",
            Skip::Truncated => "line ends early",
            Skip::Mismatch => "does not match the log format",
            Skip::NoClosingQuote => "no closing quote",
            Skip::BadTime => "bad time",
            Skip::BadStatus => "bad status",
            Skip::NoClient => "no client address",
            Skip::BadClient => "client is no address or host name",
            Skip::NameForAddress => "client is a host name where the format writes an address",
            Skip::BadHost => "virtual host is no host name",
            Skip::NoOffset => "time without UTC offset (needs --log-tz)",
            Skip::BadJson => "not a JSON object of the format's fields",
            Skip::NginxEscapes => {
                "nginx's \\xHH escapes, not JSON (a log_format without escape=json: give it as --log-format)"
            }
            Skip::Directive => "a directive of the log",
            Skip::NotRequest => "no request (a server message)",
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}
