//! How well each candidate format reads a file's first lines, and, when
//! none does, why (SPEC §1 `auto`: "a file that fits none is exit 2 for
//! that file, naming the closest format and what did not fit"). Takes a
//! candidate and the sample; gives its `Fit`, and from all the fits the
//! message that names the closest format and its first misfit.

use super::{FileFormat, Parser};
use crate::accesslog::entry::Skip;
use crate::accesslog::json::{self, JsonFormat};

/// Why a file whose times carry no offset is not read without a zone.
pub(super) fn without_offset(name: &str) -> String {
    format!(
        "read as {name}, its times carry no UTC offset and are never taken as UTC: \
         needs --log-tz ZONE (an IANA name such as Europe/Prague, or +HHMM)"
    )
}

/// How well a candidate reads the sample.
#[derive(Debug, Default)]
pub(super) struct Fit {
    /// Lines read.
    pub(super) read: usize,
    /// Lines that were neither read nor misread: directives, runtime
    /// messages.
    neutral: usize,
    /// Lines that did not fit: the first of them and why, and how many
    /// did not fit for want of a zone.
    pub(super) misfits: usize,
    first_misfit: Option<(usize, Skip)>,
    no_offset: usize,
    /// The first line whose time carries no offset.
    pub(super) first_no_offset: Option<usize>,
    /// The candidate's fields, for ranking those that fit.
    pub(super) rank: usize,
    /// Set for a W3C candidate when the file named its fields.
    w3c_fields: bool,
    /// For a W3C candidate, the needed fields a `#Fields:` line of the
    /// file left out.
    w3c_missing: Option<String>,
    /// For a Caddy or Traefik candidate, the lines that are its server's
    /// own messages (`JsonFormat::owns_message`).
    own_messages: usize,
}

impl Fit {
    pub(super) fn of(candidate: &FileFormat, sample: &[&[u8]]) -> Fit {
        let mut fit = Fit {
            rank: match candidate {
                FileFormat::Text(format, _) => format.steps.len(),
                FileFormat::Json(_) | FileFormat::W3c(_) => 0,
            },
            ..Fit::default()
        };
        let mut parser = candidate.parser();
        for (index, line) in sample.iter().enumerate() {
            match parser.parse(line) {
                // vhost_combined is Apache's own format, whose `%h` is the
                // connection's address, never `-`; but a combined line cut
                // in the wrong places gives it one: an unbracketed IPv6
                // client split as `host:port`, nginx's identd `-` read as
                // the client. Such a line is no evidence for it (README
                // "Log formats"): a misfit. A combined-shaped log may well
                // hold `-` clients (`$http_x_forwarded_for` as the client
                // of a health check), so for the others it is a line read.
                Ok(entry)
                    if entry.client == b"-"
                        && matches!(candidate, FileFormat::Text(format, _) if format.has_vhost()) =>
                {
                    fit.misfits += 1;
                    fit.first_misfit.get_or_insert((index, Skip::BadClient));
                }
                Ok(_) => fit.read += 1,
                Err(Skip::NotRequest) => {
                    fit.neutral += 1;
                    if let FileFormat::Json(json) = candidate
                        && json.owns_message(line)
                    {
                        fit.own_messages += 1;
                    }
                }
                Err(Skip::Directive | Skip::Empty) => fit.neutral += 1,
                Err(skip) => {
                    fit.misfits += 1;
                    if skip == Skip::NoOffset {
                        fit.no_offset += 1;
                        fit.first_no_offset.get_or_insert(index);
                    }
                    fit.first_misfit.get_or_insert((index, skip));
                }
            }
        }
        fit.w3c_fields = matches!(parser, Parser::W3c(ref f) if f.has_fields());
        if let Parser::W3c(ref f) = parser {
            fit.w3c_missing = f.missing_fields();
        }
        fit
    }

    /// Reads at least half as many lines as the candidate that reads
    /// most: among such candidates the most fields win, so a combined log
    /// with a few lines of common's shape stays combined (also a log of
    /// two lines, one of each: the odd line is skipped and counted, where
    /// reading the other as common would drop its user agent unseen),
    /// while a common log with one line that also reads as combined stays
    /// common. A W3C
    /// file whose sample holds only directives fits W3C, and a Caddy or
    /// Traefik log whose sample holds only its server's messages fits its
    /// schema.
    pub(super) fn close_to(&self, most: usize) -> bool {
        if most == 0 {
            return self.misfits == 0
                && self.neutral > 0
                && (self.w3c_fields || self.own_messages > 0);
        }
        self.read * 2 >= most
    }
}

/// Under `auto` or `json`, why the nginx schema cannot read `sample`
/// whole, and the index of its first JSON line: no line of the schema's
/// client, time and request keys holds a key of its status or user agent
/// (`http_user_agent`, `status`), and the first holds a key that is no
/// nginx variable's name (`agent`, `response`): the log_format may name
/// them so, and read as nginx's the night would find no crawler by its
/// user agent and no status of a fetch of /robots.txt. None when some
/// line holds each, or the keys are all nginx's variables (a log_format
/// that logs no user agent: crawlers are found by address, with the
/// warning). `--log-format json-nginx` reads such a file as nginx's, as
/// the message says.
pub(super) fn nginx_lacks(format: &JsonFormat, sample: &[&[u8]]) -> Option<(usize, String)> {
    let mut first: Option<(usize, Vec<String>)> = None;
    let mut lacking: Option<Vec<&'static str>> = None;
    // A key of the log_format's own on any line of the schema.
    let mut own_key = false;
    for (index, line) in sample.iter().enumerate() {
        if line.trim_ascii_start().first() != Some(&b'{') {
            continue;
        }
        let Some(keys) = json::keys(line) else {
            continue;
        };
        if !format.keys_fit(&keys) {
            continue;
        }
        own_key |= keys.iter().any(|key| !is_nginx_variable(key));
        let lacks: Vec<&'static str> = format.lacks(&keys).into_iter().map(|(r, _)| r).collect();
        // What no line holds.
        lacking = Some(match lacking {
            None => lacks,
            Some(before) => before.into_iter().filter(|r| lacks.contains(r)).collect(),
        });
        if first.is_none() {
            first = Some((index, keys));
        }
        if lacking.as_ref().is_some_and(Vec::is_empty) {
            return None;
        }
    }
    let (index, keys) = first?;
    let lacking = lacking?;
    if !own_key {
        return None;
    }
    let named: Vec<String> = format
        .lacks(&[])
        .into_iter()
        .filter(|(role, _)| lacking.contains(role))
        .map(|(role, paths)| format!("{} ({role})", paths.join(" or ")))
        .collect();
    let mut shown: Vec<String> = keys.iter().take(30).cloned().collect();
    if keys.len() > 30 {
        shown.push("…".to_string());
    }
    let cause = format!(
        "JSON with nginx's variable names for the client, the time and the request, but no \
         line among the first holds {}: the lines' keys are {}; name the fields with \
         --log-format 'json:{}' (or, for a log_format that logs none, --log-format json-nginx)",
        named.join(" nor "),
        shown.join(", "),
        format.mapping_for(&keys, &lacking),
    );
    Some((index, cause))
}

/// True when `key` is the name of an nginx variable (of its core and
/// stock modules), which a `log_format` of nginx's variable names writes;
/// a key of the log_format's own (`agent`, `response`, `referrer`, a
/// dotted one) is not.
fn is_nginx_variable(key: &str) -> bool {
    const PREFIXES: [&str; 17] = [
        "http_",
        "fastcgi_",
        "otel_",
        "connections_",
        "sent_http_",
        "sent_trailer_",
        "upstream_",
        "ssl_",
        "arg_",
        "cookie_",
        "geoip_",
        "geoip2_",
        "proxy_protocol_",
        "tcpinfo_",
        "realip_",
        "jwt_",
        "limit_",
    ];
    const NAMES: [&str; 61] = [
        "ancient_browser",
        "http2",
        "http3",
        "proxy_add_x_forwarded_for",
        "proxy_host",
        "proxy_port",
        "request_body_file",
        "secure_link",
        "secure_link_expires",
        "slice_range",
        "uid_got",
        "uid_reset",
        "uid_set",
        "args",
        "binary_remote_addr",
        "body_bytes_sent",
        "bytes_sent",
        "connection",
        "connection_requests",
        "connection_time",
        "content_length",
        "content_type",
        "date_gmt",
        "date_local",
        "document_root",
        "document_uri",
        "gzip_ratio",
        "host",
        "hostname",
        "https",
        "invalid_referer",
        "is_args",
        "modern_browser",
        "msec",
        "msie",
        "nginx_version",
        "pid",
        "pipe",
        "query_string",
        "realpath_root",
        "remote_addr",
        "remote_port",
        "remote_user",
        "request",
        "request_body",
        "request_completion",
        "request_filename",
        "request_id",
        "request_length",
        "request_method",
        "request_time",
        "request_uri",
        "scheme",
        "server_addr",
        "server_name",
        "server_port",
        "server_protocol",
        "status",
        "time_iso8601",
        "time_local",
        "uri",
    ];
    NAMES.contains(&key)
        || PREFIXES
            .iter()
            .any(|prefix| key.len() > prefix.len() && key.starts_with(prefix))
}

/// Why no candidate fits, and the index in the sample of the first line
/// that did not fit the closest candidate.
pub(super) fn explain(
    candidates: &[FileFormat],
    fits: &[Fit],
    sample: &[&[u8]],
) -> (String, Option<usize>) {
    let json_lines = sample.iter().filter(|l| l.first() == Some(&b'{')).count();
    let first_keys = sample
        .iter()
        .enumerate()
        .find_map(|(index, l)| json::keys(l).map(|keys| (index, keys)));
    // The JSON schemas whose client, time and request keys the first JSON
    // line holds: one of them is the file's, whatever failed in its values.
    let keys_fit: Vec<bool> = candidates
        .iter()
        .map(|c| match (c, &first_keys) {
            (FileFormat::Json(json), Some((_, keys))) => json.keys_fit(keys),
            _ => false,
        })
        .collect();
    // JSON whose keys no known schema holds: say which keys there are and
    // what mapping to give.
    if json_lines * 2 > sample.len()
        && fits
            .iter()
            .zip(candidates)
            .filter(|(_, c)| matches!(c, FileFormat::Json(_)))
            // A schema whose lines fit but for a time without offset is
            // known: the zone is what is missing, not a mapping.
            .all(|(f, _)| f.read == 0 && f.no_offset == 0)
        && !keys_fit.contains(&true)
        && let Some((index, keys)) = first_keys
    {
        let mut shown: Vec<String> = keys.into_iter().take(30).collect();
        if shown.len() == 30 {
            shown.push("…".to_string());
        }
        let cause = format!(
            "JSON whose keys are neither Caddy's, Traefik's nor nginx's (the first line has {}): \
             name them with --log-format 'json:client=FIELD,time=FIELD[:s|ms|us|ns],request=FIELD' \
             (or method=FIELD,target=FIELD; status=, user_agent=, xff= too; dotted paths reach \
             nested fields)",
            shown.join(", ")
        );
        return (cause, Some(index));
    }
    // A W3C file that names its fields but not those an audit needs.
    if let Some(missing) = fits.iter().find_map(|f| f.w3c_missing.as_ref()) {
        let cause = format!(
            "a W3C log whose #Fields: line names no {missing}: the audit needs the client, \
             the target and the time of each request"
        );
        return (cause, None);
    }
    // W3C lines (IIS, CloudFront) whose `#Fields:` line is not in the
    // file (cut off by `grep -v '^#'` or `tail`): no format can read them.
    let w3c_named = fits.iter().any(|f| f.w3c_fields);
    let w3c_candidate = candidates.iter().any(|c| matches!(c, FileFormat::W3c(_)));
    // A W3C line holds no quote (IIS writes `+` for a blank, CloudFront
    // escapes): a quoted field is another format's time-first line.
    let looks_w3c = |l: &&[u8]| starts_w3c_date_time(l) && !l.contains(&b'"');
    let lines = sample.iter().filter(|l| !l.trim_ascii().is_empty()).count();
    let dated = sample.iter().filter(|l| looks_w3c(l)).count();
    if w3c_candidate && !w3c_named && dated > 0 && dated * 2 >= lines {
        let first = sample.iter().position(looks_w3c);
        let cause = "its lines look like W3C extended lines (IIS, CloudFront: a date and a \
                     time, then fields apart by blanks), but no #Fields: line among the first \
                     names their fields: give the log with its header lines, as the server \
                     wrote it (or, for another format, give --log-format)"
            .to_string();
        return (cause, first);
    }
    // Lines that only lack a zone fit in all else: such a candidate is
    // closer than one whose fields do not fit at all; then a JSON schema
    // whose keys the line holds; then one whose fields fit the line's
    // shape and only a value failed (a bad time, a client with a port), so
    // that the reason given is the line's own.
    let closest = fits
        .iter()
        .enumerate()
        .max_by_key(|(index, fit)| {
            let shaped = fit.first_misfit.is_some_and(|(_, skip)| {
                !matches!(
                    skip,
                    Skip::Truncated
                        | Skip::Mismatch
                        | Skip::NoClosingQuote
                        | Skip::BadJson
                        | Skip::NginxEscapes
                        | Skip::TooLong
                )
            });
            // With no line read and no value to blame, the most fields
            // say nothing of closeness (vhost_combined's would be named
            // for every foreign log): the commonest format is named
            // instead.
            let fields = if fit.read > 0 || shaped { fit.rank } else { 0 };
            let commonest = candidates
                .get(*index)
                .is_some_and(|c| c.name() == "combined");
            (
                fit.read,
                fit.no_offset,
                keys_fit[*index],
                shaped,
                fields,
                commonest,
                std::cmp::Reverse(*index),
            )
        })
        .map(|(index, _)| index)
        .unwrap_or_default();
    let fit = &fits[closest];
    let misfit = fit.first_misfit.map(|(index, _)| index);
    let name = candidates
        .get(closest)
        .map(FileFormat::name)
        .unwrap_or_default();
    if fit.no_offset > 0 && fit.no_offset * 2 >= fit.misfits {
        return (without_offset(&name), fit.first_no_offset);
    }
    let why = match fit.first_misfit {
        Some((_, skip)) => format!(", the first misfit here: {}", skip.reason()),
        None => String::new(),
    };
    let considered: Vec<String> = candidates.iter().map(FileFormat::name).collect();
    // `--log-format json` or `w3c` was given: the choice is among that
    // kind's readings only, and asking for a --log-format would say that
    // none was given.
    let (opening, advice) = if !considered.iter().any(|name| name == "combined") {
        (
            "its first lines are not of the --log-format given",
            "give the format the log is written in (`json:client=…,time=…,request=…` names a \
             JSON log's fields)",
        )
    } else {
        ("its first lines fit no log format", "give --log-format")
    };
    let cause = format!(
        "{opening}: no line parsed as any of {}; the closest is {name}, which reads {} of {} \
         lines{why}: {advice}",
        considered.join(", "),
        fit.read,
        sample.len()
    );
    (cause, misfit)
}

/// True when `line` starts as a W3C extended line of IIS or CloudFront
/// does: `YYYY-MM-DD`, a blank or tab, `HH:MM:SS`, a blank or tab.
fn starts_w3c_date_time(line: &[u8]) -> bool {
    let digits = |range: std::ops::Range<usize>| {
        line.get(range)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let blank = |at: usize| matches!(line.get(at), Some(b' ' | b'\t'));
    digits(0..4)
        && line.get(4) == Some(&b'-')
        && digits(5..7)
        && line.get(7) == Some(&b'-')
        && digits(8..10)
        && blank(10)
        && digits(11..13)
        && line.get(13) == Some(&b':')
        && digits(14..16)
        && line.get(16) == Some(&b':')
        && digits(17..19)
        && blank(19)
}
