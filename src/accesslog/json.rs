//! JSON access logs, one object a line: takes a mapping from the fields an
//! audit needs to the keys a server writes (Caddy's, Traefik's, nginx's
//! variable names, or `json:client=…,time=…,request=…` given by the user)
//! and gives a `JsonFormat` that reads a line into an `Entry` (SPEC §1
//! "Formats", `json`).
//!
//! One pass over the line (`json_scan`) walks only the keys of the mapping
//! (dotted paths reach nested objects) and skips every other value; the
//! values kept are borrowed raw text, strings still escaped
//! (`LogEscaping::Json`), so a line that is no crawler's costs no allocation
//! and no decoding. A line of a server that writes its own messages among
//! its access lines (Caddy, Traefik) that holds neither a client nor a
//! request, or a Caddy line of another logger than `http.log.access`
//! (its error log repeats the request), is `Skip::NotRequest`: counted
//! apart, neither skipped nor a fetch. In other logs such a line is a
//! misfit, skipped. Time values are read in `json_time.rs`, the other
//! values' types in `json_values.rs`.

use super::entry::LogEscaping;
use super::entry::{Entry, Skip};
use super::fields;
use super::json_scan::{self, Level, insert, insert_flat};
use super::json_shape::ShapeMemory;
use super::json_time::{digit_count, local_time, offset_spelled_apart, seconds, unit_of};
use super::json_values::{chain, first_string, is_access_logger, status_of, string};
use super::time::{Timestamp, clf_prefix, epoch_prefix, iso8601_prefix, rfc3339_seconds};
use super::zone::LogTz;

/// What a mapped key means to the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Client,
    ForwardedClient,
    Time,
    Request,
    Method,
    Target,
    Status,
    UserAgent,
    Xff,
    Vhost,
    /// Caddy's `logger`: only `http.log.access…` lines are requests.
    Logger,
}

const ROLES: [(Role, &str); 11] = [
    (Role::Client, "client"),
    (Role::ForwardedClient, "forwarded_client"),
    (Role::Time, "time"),
    (Role::Request, "request"),
    (Role::Method, "method"),
    (Role::Target, "target"),
    (Role::Status, "status"),
    (Role::UserAgent, "user_agent"),
    (Role::Xff, "xff"),
    (Role::Vhost, "vhost"),
    (Role::Logger, "logger"),
];

/// The most keys a mapping may name, alternatives included.
const MAX_LEAVES: usize = 24;

/// `JsonFormat::single` of a role that names no leaf, and of one that
/// names alternatives.
const NO_LEAF: u8 = u8::MAX;
const MANY_LEAVES: u8 = u8::MAX - 1;

/// Caddy's access log (`http.log.access`, or `http.log.access.NAME`; its
/// error log `http.log.error` and debug messages carry the request too,
/// but are no fetch of their own): the connecting address is
/// `request.remote_ip` (before Caddy 2.5, `request.remote_addr`, with its
/// port); `request.client_ip` is Caddy's own reading of its trusted
/// proxies' headers. Headers are arrays of strings.
pub const CADDY: &str = "client=request.remote_ip|request.remote_addr,forwarded_client=request.client_ip,time=ts,\
method=request.method,target=request.uri,status=status,\
user_agent=request.headers.User-Agent,xff=request.headers.X-Forwarded-For,vhost=request.host,\
logger=logger";

/// Traefik's access log in JSON: `ClientAddr` is `host:port` of the
/// connecting peer, `ClientHost` Traefik's own forwarded reading; request
/// headers are `request_<Name>` and dropped by default.
pub const TRAEFIK: &str = "client=ClientAddr,forwarded_client=ClientHost,\
time=StartUTC|StartLocal|time,method=RequestMethod,target=RequestPath,\
status=DownstreamStatus|OriginStatus,user_agent=request_User-Agent,\
xff=request_X-Forwarded-For,vhost=RequestHost";

/// nginx `log_format … escape=json` whose keys are the variable names.
pub const NGINX: &str = "client=remote_addr,time=time_iso8601|time_local|msec,\
request=request,method=request_method,target=request_uri,status=status,\
user_agent=http_user_agent,xff=http_x_forwarded_for,vhost=host|http_host|server_name";

/// The schemas `auto` and `json` know, by name.
pub const KNOWN: [(&str, &str); 3] = [("Caddy", CADDY), ("Traefik", TRAEFIK), ("nginx", NGINX)];

/// A compiled JSON mapping. Immutable; share it between threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonFormat {
    /// `Caddy`, `Traefik`, `nginx`, or the mapping as given.
    name: String,
    tree: Level,
    /// Each role's leaves, in order of preference, at the role's index
    /// (`Role as usize`): found without a search on every line.
    /// Boxed: eleven vectors would make every `FileFormat` large.
    roles: Box<[Vec<usize>; ROLES.len()]>,
    /// Each role's one leaf, when it names exactly one (most do): `first`
    /// then reads it without walking `roles`. `NO_LEAF` for none,
    /// `MANY_LEAVES` for alternatives.
    single: [u8; ROLES.len()],
    /// The unit of a time written as a number, when the mapping names
    /// one: 1 (seconds), 1000 (ms), 1_000_000 (µs) or 1_000_000_000 (ns);
    /// 0 when it names none, and the number's size tells (`unit_of`).
    time_scale: i64,
    /// `--log-tz`: where a time written without an offset is placed.
    zone: Option<LogTz>,
    /// The server writes its own messages among the access lines (Caddy,
    /// Traefik to one stream): a line without a client or request is one
    /// of those, counted apart. Other logs hold requests only, so such a
    /// line is a misfit, skipped and counted.
    messages: bool,
    /// The paths of the client, the time and the request (or target), each
    /// with its alternatives: a line that holds one of each is of this
    /// schema, whatever its values (`keys_fit`).
    needed: Vec<Vec<String>>,
    /// Each leaf's path, by leaf index: what a message names.
    paths: Vec<String>,
    /// The client is nginx's `$remote_addr` (the nginx schema): an
    /// address or `unix:`, never a host name.
    address_client: bool,
}

impl JsonFormat {
    /// Compiles `client=PATH,time=PATH[:s|ms|us|ns],request=PATH,…`; a
    /// role may name alternatives, `time=a|b`, the first present wins.
    pub fn new(name: &str, mapping: &str) -> Result<JsonFormat, String> {
        let mut format = JsonFormat {
            name: name.to_string(),
            tree: Level::default(),
            roles: Default::default(),
            single: [NO_LEAF; ROLES.len()],
            time_scale: 0,
            zone: None,
            messages: matches!(name, "Caddy" | "Traefik"),
            needed: Vec::new(),
            paths: Vec::new(),
            address_client: name == "nginx",
        };
        let mut request_paths = Vec::new();
        let mut leaves = 0;
        // A mapping given by the user may name a key written with dots
        // (`url.original`, as ECS loggers write it) as it names a nested
        // one; the servers' own schemas write none.
        let flat = !KNOWN.iter().any(|&(known, _)| known == name);
        for pair in mapping.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (role_name, paths) = pair
                .split_once('=')
                .ok_or_else(|| format!("{pair:?} is not ROLE=FIELD"))?;
            let role = ROLES
                .iter()
                .find(|(_, n)| *n == role_name.trim())
                .map(|(r, _)| *r)
                .ok_or_else(|| {
                    format!(
                        "{role_name:?} is no field of a JSON mapping (client, time, request, \
                         method, target, status, user_agent, xff, forwarded_client, vhost, \
                         logger)"
                    )
                })?;
            let mut paths = paths.trim();
            if role == Role::Time
                && let Some((rest, unit)) = paths.rsplit_once(':')
            {
                format.time_scale = match unit {
                    "s" => 1,
                    "ms" => 1000,
                    "us" => 1_000_000,
                    "ns" => 1_000_000_000,
                    other => return Err(format!("time unit {other:?} is none of s, ms, us, ns")),
                };
                paths = rest;
            }
            let mut chosen = Vec::new();
            let alternatives: Vec<String> =
                paths.split('|').map(|p| p.trim().to_string()).collect();
            match role {
                Role::Client | Role::Time => format.needed.push(alternatives),
                Role::Request | Role::Target => request_paths.extend(alternatives),
                _ => {}
            }
            for path in paths.split('|').map(str::trim) {
                if path.is_empty() || path.split('.').any(str::is_empty) {
                    return Err(format!("{role_name}={paths:?} names an empty field"));
                }
                if leaves == MAX_LEAVES {
                    return Err(format!("a JSON mapping names at most {MAX_LEAVES} fields"));
                }
                insert(&mut format.tree, path, leaves)?;
                if flat && path.contains('.') {
                    insert_flat(&mut format.tree, path, leaves)?;
                }
                chosen.push(leaves);
                format.paths.push(path.to_string());
                leaves += 1;
            }
            format.roles[role as usize].extend(chosen);
        }
        for (single, leaves) in format.single.iter_mut().zip(format.roles.iter()) {
            *single = match leaves.as_slice() {
                [] => NO_LEAF,
                // Below MAX_LEAVES, which fits a byte.
                &[leaf] => leaf as u8,
                _ => MANY_LEAVES,
            };
        }
        let has = |role: Role| !format.roles[role as usize].is_empty();
        if !has(Role::Client) {
            return Err("a JSON mapping needs client=FIELD".to_string());
        }
        if !has(Role::Time) {
            return Err("a JSON mapping needs time=FIELD".to_string());
        }
        if !has(Role::Request) && !has(Role::Target) {
            return Err("a JSON mapping needs request=FIELD, or target=FIELD".to_string());
        }
        format.needed.push(request_paths);
        Ok(format)
    }

    /// Whether a line whose keys (dotted, `keys`) are `keys` names this
    /// mapping's client, time and request or target: a line of this
    /// schema, even when a value of it does not read.
    pub fn keys_fit(&self, keys: &[String]) -> bool {
        self.needed
            .iter()
            .all(|paths| paths.iter().any(|path| keys.contains(path)))
    }

    /// Of the status and the user agent, those the mapping names but
    /// none of whose keys is among `keys` (a line's, dotted, `keys`): as
    /// (role, the keys it reads).
    pub fn lacks(&self, keys: &[String]) -> Vec<(&'static str, Vec<&str>)> {
        [Role::Status, Role::UserAgent]
            .into_iter()
            .filter_map(|role| {
                let paths: Vec<&str> = self.roles[role as usize]
                    .iter()
                    .map(|&leaf| self.paths[leaf].as_str())
                    .collect();
                let found = paths.iter().any(|path| keys.iter().any(|k| k == path));
                let name = ROLES.iter().find(|(r, _)| *r == role).map(|(_, n)| *n)?;
                (!paths.is_empty() && !found).then_some((name, paths))
            })
            .collect()
    }

    /// The mapping that reads a line whose keys are `keys`: each role as
    /// the first of its keys the line holds, and `FIELD` for those of
    /// `lacking` (`lacks`): what a message asks the user to complete.
    pub fn mapping_for(&self, keys: &[String], lacking: &[&str]) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (role, name) in ROLES {
            if lacking.contains(&name) {
                parts.push(format!("{name}=FIELD"));
                continue;
            }
            let held = self.roles[role as usize]
                .iter()
                .map(|&leaf| self.paths[leaf].as_str())
                .find(|path| keys.iter().any(|k| k == path));
            if let Some(path) = held {
                parts.push(format!("{name}={path}"));
            }
        }
        parts.join(",")
    }

    /// The same mapping with times written without an offset placed in
    /// `zone` (SPEC §1 "Times"); without one such a time is
    /// `Skip::NoOffset`, never UTC.
    pub fn with_zone(mut self, zone: Option<LogTz>) -> JsonFormat {
        self.zone = zone;
        self
    }

    /// The mapping's name, as shown on standard error and in `run.json`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True when `line` is one of the server's own messages as this
    /// schema's server writes them (not a request): Caddy's carry `level`,
    /// `ts` and `msg` (and `logger`, but for its default logger's);
    /// Traefik's `level`, `time` and `msg` (v2) or `message` (v3), and no
    /// `logger`. Lets `auto` know a log that starts with hundreds of them
    /// (a debug start-up, a burst of TLS handshake errors) by its server,
    /// where no request is there to decide; and tells them from another
    /// server's lines, which are misfits. Read by serde_json, the rare
    /// case: a line that holds no request.
    pub fn owns_message(&self, line: &[u8]) -> bool {
        let line = line.trim_ascii();
        let parsed = serde_json::from_slice::<serde_json::Value>(line).or_else(|_| {
            // A message may quote bytes that are not UTF-8 (a client's
            // TLS garbage): its keys are what tell.
            serde_json::from_str::<serde_json::Value>(&String::from_utf8_lossy(line))
        });
        let Ok(serde_json::Value::Object(map)) = parsed else {
            return false;
        };
        let has = |key: &str| map.contains_key(key);
        match self.name.as_str() {
            "Caddy" => has("level") && has("ts") && has("msg"),
            "Traefik" => {
                has("level") && has("time") && (has("msg") || has("message")) && !has("logger")
            }
            _ => false,
        }
    }

    /// True when the mapping names a user agent.
    pub fn has_user_agent(&self) -> bool {
        !self.roles[Role::UserAgent as usize].is_empty()
    }

    /// The value of `role`'s first leaf the line holds, `null` counting as
    /// none.
    #[inline(always)]
    fn first<'a>(&self, found: &[Option<&'a [u8]>], role: Role) -> Option<&'a [u8]> {
        let present = |leaf: usize| found.get(leaf).copied().flatten().filter(|v| *v != b"null");
        match self.single[role as usize] {
            NO_LEAF => None,
            MANY_LEAVES => self.roles[role as usize]
                .iter()
                .find_map(|&leaf| present(leaf)),
            leaf => present(usize::from(leaf)),
        }
    }

    /// Reads one line.
    pub fn parse<'a>(&self, line: &'a [u8]) -> Result<Entry<'a>, Skip> {
        self.parse_remembering(line, None)
    }

    /// `parse`, for the lines of one file in turn: `memory` keeps the
    /// shape of the lines read before (`json_shape`), which most lines
    /// share, so that a line of that shape is read by compares alone. What
    /// it gives is what `parse` gives.
    pub fn parse_remembering<'a>(
        &self,
        line: &'a [u8],
        mut memory: Option<&mut ShapeMemory>,
    ) -> Result<Entry<'a>, Skip> {
        let line = line.trim_ascii();
        if line.is_empty() {
            return Err(Skip::Empty);
        }
        if line[0] != b'{' {
            return Err(Skip::BadJson);
        }
        let mut found: [Option<&'a [u8]>; MAX_LEAVES] = [None; MAX_LEAVES];
        let by_shape = memory
            .as_deref_mut()
            .is_some_and(|memory| memory.read(line, &mut found));
        if !by_shape {
            json_scan::extract(line, &self.tree, &mut found).map_err(|_| bad_json(line))?;
            if let Some(memory) = memory {
                memory.learn(line, &found);
            }
        }
        self.entry(&found, line)
    }

    /// The entry of `line`, whose mapped values are `found`.
    #[inline(always)]
    fn entry<'a>(&self, found: &[Option<&'a [u8]>], line: &[u8]) -> Result<Entry<'a>, Skip> {
        if let Some(logger) = self.first(found, Role::Logger)
            && !is_access_logger(logger)
        {
            return Err(Skip::NotRequest);
        }
        let client = self.first(found, Role::Client);
        let request = self.first(found, Role::Request);
        let target = self.first(found, Role::Target);
        if client.is_none() && request.is_none() && target.is_none() {
            // A server's own message is told by its own keys: another
            // server's request line in the stream (an nginx line among
            // Caddy's) is a misfit, skipped and counted, never set apart
            // unseen as a message.
            return Err(if self.messages && self.owns_message(line) {
                Skip::NotRequest
            } else {
                Skip::Mismatch
            });
        }
        let mut entry = Entry {
            escaping: LogEscaping::Json,
            ..Entry::EMPTY
        };
        // A line without a request is of another schema, whatever its
        // time: told before the time, so that a file of unknown keys whose
        // times carry no offset is asked for a mapping, not for a zone.
        if request.is_none() && target.is_none() {
            return Err(Skip::Mismatch);
        }
        let client = string(client.ok_or(Skip::NoClient)?)?.ok_or(Skip::NoClient)?;
        entry.client = self.client(client)?;
        entry.time = self.time(self.first(found, Role::Time).ok_or(Skip::BadTime)?)?;
        match (request, target) {
            (Some(request), _) => entry.request = string(request)?.unwrap_or_default(),
            (None, Some(target)) => {
                entry.request = string(target)?.unwrap_or_default();
                entry.method = match self.first(found, Role::Method) {
                    Some(method) => string(method)?,
                    // A mapping without a method: every line a fetch.
                    None => Some(b"GET"),
                };
            }
            (None, None) => return Err(Skip::Mismatch),
        }
        if let Some(status) = self.first(found, Role::Status) {
            entry.status = status_of(status)?;
        }
        entry.user_agent = self
            .first(found, Role::UserAgent)
            .map(first_string)
            .transpose()?
            .flatten()
            .filter(|ua| !matches!(*ua, b"" | b"-"));
        entry.forwarded_for = self
            .first(found, Role::Xff)
            .map(chain)
            .transpose()?
            .flatten()
            .filter(|v| !matches!(*v, b"" | b"-"));
        entry.forwarded_client = self
            .first(found, Role::ForwardedClient)
            .map(string)
            .transpose()?
            .flatten()
            .filter(|v| !v.is_empty());
        entry.vhost = self
            .first(found, Role::Vhost)
            .map(string)
            .transpose()?
            .flatten()
            .filter(|v| !matches!(*v, b"" | b"-"));
        // A host is taken as the client wrote it, whatever it holds: a
        // keyed field cannot be read shifted, and a Host header the server
        // served from a catch-all site (`evil!.cz`, `a.cz:99999`) must not
        // hide a spoofer's fetch as a skipped line. It names no site a
        // `--host` gives.
        Ok(entry)
    }

    /// The client's host: the client field without a port or the brackets
    /// that set one apart (`[2a02:598:a::78:90]:5555`, Traefik's
    /// `ClientAddr`), checked to be a client.
    #[inline(always)]
    fn client<'a>(&self, client: &'a [u8]) -> Result<&'a [u8], Skip> {
        // Most clients are IPv4 addresses without a port: said so in one
        // pass, without a search for a port.
        if fields::is_ipv4(client) {
            return Ok(client);
        }
        // nginx behind a proxy on a unix socket: `unix:` is the client as
        // a text log has it, no host `unix` with an empty port, so that
        // `--trusted-proxy unix:` names it.
        if client == super::proxy::UNIX_SOCKET {
            return Ok(client);
        }
        let (host, _port) = if client.first() == Some(&b'[') || client.contains(&b':') {
            fields::split_port(client)
        } else {
            (client, &[][..])
        };
        let host = match host {
            [b'[', inner @ .., b']'] => inner,
            host => host,
        };
        if host.is_empty() {
            return Err(Skip::NoClient);
        }
        if !fields::is_client(host) {
            return Err(Skip::BadClient);
        }
        // nginx's `$remote_addr` is an address, never a name.
        if self.address_client && !fields::is_address_client(host) {
            return Err(Skip::NameForAddress);
        }
        Ok(host)
    }

    /// A time: a number in the mapping's unit (or, when it names none,
    /// the unit its size tells), or a string holding an RFC 3339 time, a
    /// CLF time (bare or in `%t`'s brackets), such a number, or a date and
    /// time of day without offset
    /// (`2026-11-23 10:00:00`, Caddy's `wall` `2026/11/23 10:00:00`).
    fn time(&self, raw: &[u8]) -> Result<Timestamp, Skip> {
        // The form nearly every JSON log writes (nginx `$time_iso8601`,
        // Traefik), quoted, without an escape: read at once.
        if let [b'"', inner @ .., b'"'] = raw
            && let Ok(fixed) = <&[u8; 25]>::try_from(inner)
            && let Some(time) = rfc3339_seconds(fixed)
        {
            return Ok(time);
        }
        if let Some((time, whole)) = seconds(raw)
            && match self.time_scale {
                // Eleven digits, leading zeros and all, are seconds
                // without counting them.
                0 => whole <= 11 || unit_of(digit_count(time.unix)) == 1,
                scale => scale == 1,
            }
        {
            return Ok(time);
        }
        // A string's escapes are decoded: a writer that escapes every
        // slash (PHP's `json_encode`) logs `30\/Nov\/2026:…`.
        let decoded;
        let text = match string(raw) {
            Ok(Some(inner)) => {
                decoded = super::decode::json_unescape(inner);
                &decoded[..]
            }
            _ => raw,
        };
        let whole = |read: Option<(Timestamp, usize)>| {
            read.filter(|&(_, used)| used == text.len()).map(|(t, _)| t)
        };
        if text.first().is_some_and(u8::is_ascii_digit)
            && text.iter().all(|b| b.is_ascii_digit() || *b == b'.')
        {
            return self.epoch(text).ok_or(Skip::BadTime);
        }
        if let Some(time) = whole(iso8601_prefix(text)).or_else(|| whole(clf_prefix(text))) {
            return Ok(time);
        }
        // A CLF time in the brackets of `%t` (nginx formats that log
        // `"time": "[$time_local]"`): the same time, whole inside them.
        if let [b'[', inner @ .., b']'] = text
            && let Some((time, used)) = clf_prefix(inner)
            && used == inner.len()
        {
            return Ok(time);
        }
        // The offset written apart or short (Go's `time.String()`,
        // `… +01:00`, `… UTC`, `…+01`): a time with an offset all the same,
        // never one that needs --log-tz.
        if let Some(iso) = offset_spelled_apart(text)
            && let Some((time, used)) = iso8601_prefix(&iso)
            && used == iso.len()
        {
            return Ok(time);
        }
        // A date and time of day without an offset: a local time, which
        // only a given zone can place (SPEC §1 "Times").
        if text.len() >= 19
            && matches!(text[4], b'-' | b'/')
            && text[13] == b':'
            && text.iter().all(|b| b.is_ascii_graphic() || *b == b' ')
        {
            // Only a time that is one without its offset asks for a zone:
            // any other text is no time (a message that said "needs
            // --log-tz" would send the user after the wrong cause).
            let civil = local_time(text).ok_or(Skip::BadTime)?;
            let zone = self.zone.as_ref().ok_or(Skip::NoOffset)?;
            return zone.timestamp(civil).ok_or(Skip::BadTime);
        }
        Err(Skip::BadTime)
    }

    /// A number of the mapping's unit, or of the unit its size tells; a
    /// fraction of a millisecond or finer unit is dropped (Caddy's
    /// `unix_milli_float` writes `1764000000123.456`).
    fn epoch(&self, text: &[u8]) -> Option<Timestamp> {
        let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
        let (whole, fraction) = text.split_at(digits);
        let fraction_read = match fraction {
            [] => true,
            [b'.', fraction @ ..] => {
                !fraction.is_empty() && fraction.iter().all(u8::is_ascii_digit)
            }
            _ => false,
        };
        if digits == 0 || !fraction_read {
            return None;
        }
        let scale = match self.time_scale {
            0 => unit_of(digits),
            scale => scale,
        };
        if scale == 1 {
            return epoch_prefix(text, 1)
                .filter(|&(_, used)| used == text.len())
                .map(|(t, _)| t);
        }
        let (whole, scale) = match scale {
            // Nanoseconds outgrow what `epoch_prefix` reads: drop the
            // last three digits, which no report shows.
            1_000_000_000 => (&whole[..whole.len().saturating_sub(3)], 1_000_000),
            scale => (whole, scale),
        };
        epoch_prefix(whole, scale)
            .filter(|&(_, used)| used == whole.len())
            .map(|(t, _)| t)
    }
}

/// Why a line the JSON reader refused is no JSON: nginx's default
/// escaping when it holds an `\xHH` escape that no backslash escapes
/// (which JSON has no such escape for), else bad JSON.
#[cold]
fn bad_json(line: &[u8]) -> Skip {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &line[at..]) {
        let start = at + found;
        let run = line[start..].iter().take_while(|&&b| b == b'\\').count();
        let after = start + run;
        if run % 2 == 1
            && line.get(after) == Some(&b'x')
            && line
                .get(after + 1..after + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
        {
            return Skip::NginxEscapes;
        }
        at = after;
    }
    Skip::BadJson
}

/// The keys of a line, dotted down to nested objects, for the message that
/// asks for a mapping; `None` when the line is no JSON object.
pub fn keys(line: &[u8]) -> Option<Vec<String>> {
    let value: serde_json::Value = serde_json::from_slice(line.trim_ascii()).ok()?;
    let mut keys = Vec::new();
    fn walk(prefix: &str, value: &serde_json::Value, keys: &mut Vec<String>) {
        if let serde_json::Value::Object(map) = value {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                match inner {
                    serde_json::Value::Object(_) => walk(&path, inner, keys),
                    _ => keys.push(path),
                }
            }
        }
    }
    value.is_object().then(|| walk("", &value, &mut keys))?;
    Some(keys)
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
