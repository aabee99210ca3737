//! The odd lines of an access log, besides page views and crawls: damaged
//! lines, escapes, requests that are not fetches, and crawler fetches on the
//! edges of SPEC §2 (host-name clients, IPv6, HEAD, renderer). Takes the
//! traffic generator's buffers, gives one line each.

use super::{Traffic, take_client};
use crate::actors::{NAMED_IMPOSTOR, Seznam};
use crate::line::Format;
use crate::site::{self, Page};
use crate::vocabulary;

/// Lines that are not a plain page view or crawl. Each appears at least
/// once in a log of a few hundred lines or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Odd {
    /// A line cut short, as when a disk filled up.
    Truncated,
    /// NUL bytes in front of a line, as `copytruncate` rotation leaves.
    NulPadding,
    /// An hour of 25 in `%t`.
    BadStamp,
    /// `combined` without its referer and user agent.
    MissingFields,
    /// An error-log line in the access log.
    ErrorLog,
    /// A TLS handshake sent to the plain-HTTP port, escaped by Apache.
    Tls,
    /// A connection closed before a request: `"-" 408`.
    EmptyRequest,
    /// Apache's internal dummy connection: not a fetch.
    OptionsStar,
    /// A proxy probe: not a fetch.
    Connect,
    /// A proxy probe: an absolute-form target naming another host.
    ProxyProbe,
    /// Apache's `\"` inside a user agent.
    QuotedAgent,
    /// nginx's `\x22` inside a user agent and a referer.
    NginxQuoted,
    /// Raw bytes, some not UTF-8, in a user agent.
    RawBytes,
    /// An impostor whose user agent a spreadsheet would run as a formula.
    FormulaImpostor,
    /// An impostor with `\"` in its SeznamBot user agent.
    QuotedImpostor,
    /// SeznamBot logged by host name, fetching a forbidden path.
    NamedSeznam,
    /// FreshBot logged by host name.
    NamedFresh,
    /// An impostor logged by a host name that only looks like Seznam's.
    NamedImpostor,
    /// SeznamBot over IPv6, fetching a forbidden path.
    SeznamV6,
    /// SeznamBot asking HEAD of a forbidden path.
    SeznamHead,
    /// SeznamBot-test.
    TestBot,
    /// A FreshBot address sending SeznamBot's user agent.
    FreshAsSeznam,
    /// Seznam's renderer: a browser user agent from a SeznamBot address.
    Renderer,
}

pub(super) const ALL_ODDS: &[Odd] = &[
    Odd::Truncated,
    Odd::NulPadding,
    Odd::BadStamp,
    Odd::MissingFields,
    Odd::ErrorLog,
    Odd::Tls,
    Odd::EmptyRequest,
    Odd::OptionsStar,
    Odd::Connect,
    Odd::ProxyProbe,
    Odd::QuotedAgent,
    Odd::NginxQuoted,
    Odd::RawBytes,
    Odd::FormulaImpostor,
    Odd::QuotedImpostor,
    Odd::NamedSeznam,
    Odd::NamedFresh,
    Odd::NamedImpostor,
    Odd::SeznamV6,
    Odd::SeznamHead,
    Odd::TestBot,
    Odd::FreshAsSeznam,
    Odd::Renderer,
];

/// The odd lines drawn at random; the crawler ones happen by themselves.
pub(super) const RANDOM_ODDS: &[Odd] = &[
    Odd::Truncated,
    Odd::NulPadding,
    Odd::BadStamp,
    Odd::MissingFields,
    Odd::ErrorLog,
    Odd::Tls,
    Odd::EmptyRequest,
    Odd::OptionsStar,
    Odd::Connect,
    Odd::ProxyProbe,
    Odd::QuotedAgent,
    Odd::NginxQuoted,
    Odd::RawBytes,
];

impl Traffic {
    /// A client that is neither browser nor crawler: a scanner.
    fn scanner(&mut self) {
        let i = self.rng.below(self.pools.scripts.len() as u64) as usize;
        if let Some(h) = self.pools.scripts.get_mut(i) {
            take_client(h, false, &mut self.client);
        }
        self.set_referer("-");
    }

    pub(super) fn odd(&mut self, t: i64, odd: Odd) {
        match odd {
            Odd::Truncated => {
                self.browser(t);
                let len = self.line.len() as u64;
                let cut = self.rng.between(20, len.saturating_sub(3).max(20)) as usize;
                self.line.truncate(cut.min(self.line.len().saturating_sub(1)));
                self.line.push(b'\n');
            }
            Odd::NulPadding => {
                let pad = self.rng.between(16, 300) as usize;
                self.line.resize(pad, 0);
                self.browser(t);
            }
            Odd::BadStamp => {
                self.browser(t);
                // `[dd/Mon/yyyy:HH:`: the hour sits 13 bytes into the stamp,
                // the first `[` of the line.
                if let Some(open) = self.line.iter().position(|&b| b == b'[')
                    && let Some(hour) = self.line.get_mut(open + 13..open + 15)
                {
                    hour.copy_from_slice(b"25");
                }
            }
            Odd::MissingFields => {
                self.browser(t);
                if self.layout.format == Format::Common {
                    return; // it has no referer or user agent to lose
                }
                if let Some(end) = self.line.windows(2).rposition(|w| w == b" \"") {
                    // Cut before the referer: `... 200 5120`.
                    if let Some(start) = self.line[..end].windows(2).rposition(|w| w == b" \"") {
                        self.line.truncate(start);
                        self.line.push(b'\n');
                    }
                }
            }
            Odd::ErrorLog => {
                let local = t + i64::from(self.start.offset);
                let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][local.div_euclid(86_400).rem_euclid(7) as usize];
                let stamp = self.stamp.render(t).to_vec();
                self.line.extend_from_slice(b"[");
                self.line.extend_from_slice(weekday.as_bytes());
                self.line.push(b' ');
                self.line.extend_from_slice(&stamp[4..7]);
                self.line.push(b' ');
                self.line.extend_from_slice(&stamp[1..3]);
                self.line.push(b' ');
                self.line.extend_from_slice(&stamp[13..21]);
                self.line.extend_from_slice(b".204113 ");
                self.line.extend_from_slice(&stamp[8..12]);
                self.line.extend_from_slice(
                    b"] [core:error] [pid 2210:tid 2230] [client 203.0.113.7:51234] AH10244: invalid URI path (/cgi-bin/.%2e/.%2e/.%2e/bin/sh)\n",
                );
            }
            Odd::Tls => {
                self.scanner();
                self.request.clear();
                self.request.extend_from_slice(b"\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xfc\\x03\\x03\\xd4\\x1b");
                self.emit(t, b"-", 400, Some(226), b"-");
            }
            Odd::EmptyRequest => {
                self.scanner();
                self.request.clear();
                self.request.push(b'-');
                self.emit(t, b"-", 408, None, b"-");
            }
            Odd::OptionsStar => {
                self.client.clear();
                self.client.extend_from_slice(b"::1");
                self.target.clear();
                self.target.push(b'*');
                self.set_request("OPTIONS", "HTTP/1.0");
                self.set_referer("-");
                self.emit(t, b"-", 200, None, b"Apache/2.4.62 (Debian) (internal dummy connection)");
            }
            Odd::Connect => {
                self.scanner();
                self.target.clear();
                self.target.extend_from_slice(b"www.google.com:443");
                self.set_request("CONNECT", "HTTP/1.1");
                self.emit(t, b"-", 405, Some(226), b"Go-http-client/1.1");
            }
            Odd::ProxyProbe => {
                self.scanner();
                self.target.clear();
                // Another site's URL: the server answers with its own page.
                self.target
                    .extend_from_slice(b"http://ip-check.example.net/azenv.php");
                self.set_request("GET", "HTTP/1.1");
                self.emit(t, b"-", 200, Some(31_337), b"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.51 Safari/537.36");
            }
            Odd::QuotedAgent => {
                self.browser(t);
                self.replace_agent(b"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \\\"Chrome\\\"/142.0.0.0 Safari/537.36");
            }
            Odd::NginxQuoted => {
                self.browser(t);
                self.replace_agent(b"Mozilla/5.0 (X11; Linux x86_64) \\x22quoted\\x22 Firefox/145.0");
            }
            Odd::RawBytes => {
                self.browser(t);
                self.replace_agent(b"Mozilla/5.0 (Prohl\xc3\xad\xc5\xbee\xc4\x8d; \xff\xfe) Gecko/20100101");
            }
            Odd::FormulaImpostor => {
                self.impostor(t, None, false, Some("=HYPERLINK(\\\"http://crawl.example.net/\\\",\\\"SeznamBot/4.0\\\")"))
            }
            Odd::QuotedImpostor => self.impostor(
                t,
                None,
                false,
                Some("Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/) \\\"verified\\\""),
            ),
            Odd::NamedSeznam => {
                self.target.clear();
                let room = self.rng.below(6) as u8;
                self.site.write_page(Page::Chat(room), &mut self.target);
                self.seznam_line(t, Seznam::Bot, None, true, "GET", None);
            }
            Odd::NamedFresh => {
                self.target.clear();
                let page = site::crawl(&mut self.rng, &self.site);
                self.site.write_page(page, &mut self.target);
                self.seznam_line(t, Seznam::Fresh, None, true, "GET", None);
            }
            Odd::NamedImpostor => self.impostor(
                t,
                Some(NAMED_IMPOSTOR),
                true,
                Some(vocabulary::SEZNAMBOT_UA),
            ),
            Odd::SeznamV6 => {
                self.target.clear();
                self.site.write_page(Page::Print(7), &mut self.target);
                let v6 = self.pools.seznam_bot.iter().position(|h| h.addr.is_ipv6());
                self.seznam_line(t, Seznam::Bot, v6, false, "GET", None);
            }
            Odd::SeznamHead => {
                self.target.clear();
                self.site.write_page(Page::Cart, &mut self.target);
                self.seznam_line(t, Seznam::Bot, None, false, "HEAD", None);
            }
            Odd::TestBot => {
                self.target.clear();
                let page = site::crawl(&mut self.rng, &self.site);
                self.site.write_page(page, &mut self.target);
                self.seznam_line(t, Seznam::Test, None, false, "GET", Some(vocabulary::SEZNAMBOT_TEST_UA));
            }
            Odd::FreshAsSeznam => {
                self.target.clear();
                let page = site::crawl(&mut self.rng, &self.site);
                self.site.write_page(page, &mut self.target);
                self.seznam_line(t, Seznam::Fresh, None, false, "GET", Some(vocabulary::SEZNAMBOT_UA));
            }
            Odd::Renderer => self.renderer(t),
        }
    }

    /// Replaces the user agent of the line just written, keeping whatever
    /// follows it (`--request-time`). `common` has no user agent to replace.
    fn replace_agent(&mut self, agent: &[u8]) {
        if self.layout.format == Format::Common {
            return;
        }
        // The agent is the last quoted field: from the last ` "` to the
        // last `"`.
        let close = self.line.iter().rposition(|&b| b == b'"');
        let open = self.line.windows(2).rposition(|w| w == b" \"");
        if let (Some(open), Some(close)) = (open, close)
            && open + 1 < close
        {
            self.line.splice(open + 2..close, agent.iter().copied());
        }
    }
}
