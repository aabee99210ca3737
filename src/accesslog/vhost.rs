//! The site's own host names (`--host`, README "Audit last night's logs")
//! and a virtual-host field as they are compared: takes the names given and the virtual hosts
//! of fetches as logged (`%v`, `$host`, `cs-host`, Caddy's `request.host`);
//! gives `SiteHosts`, which says whether a fetch's host is the site's, and
//! `host_key`, the one form both are compared in.

use super::{fields, ipv6};
use crate::error::{Error, Result};

/// The site's own host names (`--host`), compared as a virtual-host field
/// holds them: case aside, without a port or a trailing dot.
#[derive(Debug, Clone, Default)]
pub struct SiteHosts {
    names: Vec<Vec<u8>>,
}

impl SiteHosts {
    pub fn new(names: &[String]) -> Result<SiteHosts> {
        let mut hosts = SiteHosts::default();
        for name in names {
            let name_bytes = name.trim().as_bytes();
            // A host name or an address as a server names itself, with a
            // port of 0 to 65535 or none: `https://www.site.cz/` is a URL,
            // not the host `https`; `site.cz:65536` and `a..cz` name no
            // host a log can hold, and would leave every fetch out.
            let host = host_key(name_bytes);
            if name_bytes == b"-"
                || !fields::is_server_host(name_bytes)
                || host.is_empty()
                || !fields::is_host(&host)
            {
                return Err(Error::Usage(format!("--host {name:?} is no host name")));
            }
            hosts.names.push(host);
        }
        Ok(hosts)
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names given, each as `host_key` writes it.
    pub fn names(&self) -> impl Iterator<Item = &[u8]> {
        self.names.iter().map(Vec::as_slice)
    }

    /// Whether a fetch of a virtual host whose `host_key` is `key` is the
    /// site's.
    pub(crate) fn holds(&self, key: &[u8]) -> bool {
        self.names.iter().any(|name| name == key)
    }
}

/// A virtual host as compared: lower case, without a port, brackets or a
/// trailing dot; an IPv6 address in its one canonical form, so that
/// `--host 2001:db8::1` names `[2001:DB8:0::1]:443`. A value whose part
/// after its `:` is no port (`a.cz:abc`, `a.cz:99999`, `a.cz:`, which a
/// client may write in a Host header that Caddy logs as it came) is no
/// host and port: it is kept whole, lower case, and so names no site.
pub fn host_key(vhost: &[u8]) -> Vec<u8> {
    let (host, port) = fields::split_port(vhost);
    if host.len() < vhost.len() && !fields::is_port_number(port) {
        return vhost.to_ascii_lowercase();
    }
    let host = match host {
        [b'[', inner @ .., b']'] => inner,
        host => host,
    };
    let host = host.strip_suffix(b".").unwrap_or(host);
    if host.contains(&b':')
        && let Some(addr) = ipv6::parse_ipv6(host)
    {
        return addr.to_string().into_bytes();
    }
    host.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::{SiteHosts, host_key};

    #[test]
    fn a_site_host_is_a_host_with_a_port_of_digits_at_most() {
        for good in [
            "www.site.cz",
            "www.site.cz:443",
            "[2001:db8::1]:443",
            "2001:db8::1",
        ] {
            assert!(SiteHosts::new(&[good.to_string()]).is_ok(), "{good}");
        }
        // A URL is not the host `https`; a port is digits.
        for bad in [
            "https://www.site.cz/",
            "www.site.cz:abc",
            "www.site.cz/",
            "*.site.cz",
            // No port past 65535, no empty label: such a name fits no
            // log's host and would leave every fetch out unseen.
            "www.site.cz:65536",
            "www.site.cz:99999999999999999999",
            "[::1]:99999",
            "www..site.cz",
            "www.site.cz:",
            "-",
        ] {
            assert!(SiteHosts::new(&[bad.to_string()]).is_err(), "{bad}");
        }
        for good in [
            "www.site.cz:65535",
            "www.site.cz:0",
            "localhost",
            "1.2.3.4:80",
        ] {
            assert!(SiteHosts::new(&[good.to_string()]).is_ok(), "{good}");
        }
    }

    #[test]
    fn virtual_hosts_compare_by_their_key() {
        let same: &[(&str, &str)] = &[
            ("www.example.cz", "WWW.Example.CZ."),
            ("www.example.cz", "www.example.cz:443"),
            ("2001:db8::1", "[2001:DB8:0::1]:443"),
            ("2001:db8::1", "[2001:db8:0:0:0:0:0:1]"),
            ("77.75.77.1", "77.75.77.1:80"),
        ];
        for (a, b) in same {
            assert_eq!(host_key(a.as_bytes()), host_key(b.as_bytes()), "{a} {b}");
        }
        assert_ne!(host_key(b"2001:db8::1"), host_key(b"2001:db8::2"));
        assert_ne!(host_key(b"example.cz"), host_key(b"www.example.cz"));
        // After a `:`, a port or nothing of the site's: a Host header as a
        // client wrote it.
        for odd in [
            "www.example.cz:abc",
            "www.example.cz:99999",
            "www.example.cz:",
            "[2001:db8::1]:x",
        ] {
            assert_ne!(
                host_key(odd.as_bytes()),
                host_key(b"www.example.cz"),
                "{odd}"
            );
            assert_ne!(host_key(odd.as_bytes()), host_key(b"2001:db8::1"), "{odd}");
        }
        assert_eq!(host_key(b"www.example.cz:65535"), b"www.example.cz");
    }
}
