//! How to ask DNS: takes `--dns-server`'s text and the environment's cache
//! directory, and gives `DnsOptions`, with the defaults the command line
//! shows for the DNS flags (SPEC §1 "Address → name").

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// How to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsOptions {
    /// Ask this server (`--dns-server`) instead of the system's
    /// (`/etc/resolv.conf`).
    pub server: Option<SocketAddr>,
    /// How long one query may wait for its answer.
    pub timeout: Duration,
    /// How many times a query is sent before it counts as failed.
    pub attempts: usize,
    /// How long all the lookups together may take; what is unanswered by
    /// then is a failure.
    pub deadline: Duration,
    /// How many addresses are looked up at once.
    pub concurrency: usize,
    /// Where answers are kept between runs; None keeps none.
    pub cache_path: Option<PathBuf>,
    /// Leave the writing of the cache to the caller (`DnsStats::unsaved`):
    /// a cache that is part of `--state` is written with it, only by a
    /// run that saves its state (SPEC §6).
    pub defer_save: bool,
    /// How old a cached answer may be and still be used.
    pub max_age: Duration,
}

/// `--dns-timeout`'s default: seconds to wait for one answer.
pub const DEFAULT_TIMEOUT_SECS: f64 = 2.0;
/// `--dns-deadline`'s default: seconds all lookups together may take.
pub const DEFAULT_DEADLINE_SECS: f64 = 60.0;
/// `--dns-cache-days`'s default: days a cached answer stays good.
pub const DEFAULT_CACHE_DAYS: u64 = 7;

impl Default for DnsOptions {
    /// The options the command line gives when no DNS flag is set.
    fn default() -> DnsOptions {
        DnsOptions {
            server: None,
            timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS),
            attempts: 2,
            deadline: Duration::from_secs_f64(DEFAULT_DEADLINE_SECS),
            concurrency: 32,
            cache_path: default_cache_path(),
            defer_save: false,
            max_age: Duration::from_secs(DEFAULT_CACHE_DAYS * 86_400),
        }
    }
}

/// `$XDG_CACHE_HOME/robots-audit/dns-cache.tsv`, else
/// `~/.cache/robots-audit/dns-cache.tsv`; None when neither is known.
pub fn default_cache_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".cache"))
        })?;
    Some(base.join("robots-audit").join("dns-cache.tsv"))
}

/// Reads `--dns-server ADDR[:PORT]`: `192.0.2.1`, `192.0.2.1:5353`,
/// `2001:db8::1`, `[2001:db8::1]:5353`. The port defaults to 53.
pub fn parse_server(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(socket) = text.parse::<SocketAddr>() {
        // Port 0 is no server's: every lookup would fail, each one
        // unverified, where the flag's user meant a port.
        if socket.port() == 0 {
            return Err(format!("{text:?} names port 0, which no server listens on"));
        }
        return Ok(socket);
    }
    let bare = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    bare.parse::<IpAddr>()
        .map(|ip| SocketAddr::new(ip, 53))
        .map_err(|_| format!("{text:?} is not ADDRESS or ADDRESS:PORT"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_spellings() {
        let cases: &[(&str, Option<&str>)] = &[
            ("192.0.2.1", Some("192.0.2.1:53")),
            ("192.0.2.1:5353", Some("192.0.2.1:5353")),
            ("2001:db8::1", Some("[2001:db8::1]:53")),
            ("[2001:db8::1]", Some("[2001:db8::1]:53")),
            ("[2001:db8::1]:5353", Some("[2001:db8::1]:5353")),
            ("dns.example", None),
            ("192.0.2.1:x", None),
            ("192.0.2.1:0", None),
            ("[::1]:0", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                parse_server(text).ok(),
                want.map(|w| w.parse::<SocketAddr>().unwrap()),
                "{text}"
            );
        }
    }
}
