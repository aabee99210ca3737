//! The traffic model: takes a random source, a period and a size, gives one
//! access-log line after another (SPEC §1 formats) in time order: browser
//! sessions, Seznam's crawlers and their bursts (SPEC §2, §4 request-rate),
//! other bots, impostors, and the odd lines a real log holds.

#[path = "browsing.rs"]
mod browsing;
#[path = "crawling.rs"]
mod crawling;
#[path = "odd.rs"]
mod odd;

use std::collections::VecDeque;
use std::io;

use crate::actors::{Host, Pools, Seznam, TRICK_IMPOSTORS};
use crate::clock::{Stamp, Start};
use crate::line::{Fields, Layout};
use crate::rng::Rng;
use crate::site::{self, EDGE_TARGETS, ORIGIN, Page, Site};
use browsing::{SESSIONS, Session};
use odd::{ALL_ODDS, Odd, RANDOM_ODDS};

/// How much to write.
#[derive(Debug, Clone, Copy)]
pub enum Budget {
    Lines(u64),
    Bytes(u64),
}

/// The size of `samples/robots.txt`, served whenever it is fetched.
const ROBOTS_SIZE: u64 = 1_247;

/// About how long a burst line is, to leave room for bursts under
/// `Budget::Bytes`.
const BURST_LINE_BYTES: u64 = 200;

/// The bursts of one UTC day: (seconds after midnight UTC, fetches,
/// seconds they take). Sized against `samples/robots.txt`: the night one
/// breaks `Request-rate: 300/1m`, the day one `100/1m 0600-2200`, each by
/// 30 fetches (more where ordinary crawling falls in the same minute).
const DAILY_BURSTS: [(i64, u32, i64); 2] = [
    (2 * 3600 + 30 * 60, 330, 50),
    (10 * 3600 + 15 * 60, 130, 45),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bot {
    Google,
    Bing,
    Ahrefs,
    Mj12,
    Gpt,
    Script,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Browser,
    Seznam(Seznam),
    Bot(Bot),
    /// Seznam's user agent from another network: the impostor at that
    /// index of the pool, or a random one.
    Impostor(Option<u8>),
    Odd(Odd),
    /// SeznamBot fetching `EDGE_TARGETS[i]`.
    Edge(u8),
}

/// What one ordinary line is, per 10,000, under the default `Mix`.
const SLOTS: &[(u32, Slot)] = &[
    (9_140, Slot::Browser),
    (135, Slot::Seznam(Seznam::Bot)),
    (40, Slot::Seznam(Seznam::Fresh)),
    (15, Slot::Seznam(Seznam::Test)),
    (10, Slot::Odd(Odd::Renderer)),
    (220, Slot::Bot(Bot::Google)),
    (130, Slot::Bot(Bot::Bing)),
    (80, Slot::Bot(Bot::Ahrefs)),
    (30, Slot::Bot(Bot::Mj12)),
    (30, Slot::Bot(Bot::Gpt)),
    (40, Slot::Bot(Bot::Script)),
    (100, Slot::Impostor(None)),
    (30, Slot::Odd(Odd::Truncated)), // stands for any of RANDOM_ODDS
];

/// Seznam's crawler fetches per 10,000 ordinary lines in `SLOTS`, and the
/// most a `Mix` may ask for: every browser line given over to them.
const SEZNAM_PER_10K: u32 = 190;
const BROWSER_PER_10K: u32 = 9_140;

/// How much of the log is Seznam's crawlers, and how much of that breaks a
/// Disallow rule: the two knobs that set a log's violation volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    /// Fetches by SeznamBot, FreshBot and SeznamBot-test per million
    /// ordinary lines (bursts come on top); they take the place of browser
    /// lines, so at most `Mix::MAX_SEZNAM_PER_MILLION`.
    pub seznam_per_million: u32,
    /// Of those fetches, per 10,000, the ones aimed at a path
    /// `samples/robots.txt` forbids (at most
    /// `site::MAX_OFF_LIMITS_PER_10K`).
    pub off_limits_per_10k: u32,
}

impl Mix {
    pub const DEFAULT: Mix = Mix {
        seznam_per_million: SEZNAM_PER_10K * 100,
        off_limits_per_10k: site::OFF_LIMITS_PER_10K,
    };
    pub const MAX_SEZNAM_PER_MILLION: u32 = (SEZNAM_PER_10K + BROWSER_PER_10K) * 100;

    /// `SLOTS` per million, Seznam's three crawlers scaled to the share
    /// asked for in their old proportions and browsers making up the rest.
    /// Per million rather than per 10,000 so that a share like 0.25% is
    /// exact; `Rng::weighted` draws the same from weights all a hundred
    /// times larger, so the default mix writes the same bytes as before.
    fn slots(self) -> Vec<(u32, Slot)> {
        let share = self.seznam_per_million.min(Self::MAX_SEZNAM_PER_MILLION);
        let scaled = |kind: Seznam| {
            let per_10k = SLOTS
                .iter()
                .find(|&&(_, slot)| slot == Slot::Seznam(kind))
                .map_or(0, |&(weight, _)| weight);
            (u64::from(share) * u64::from(per_10k) / u64::from(SEZNAM_PER_10K)) as u32
        };
        let (bot, fresh) = (scaled(Seznam::Bot), scaled(Seznam::Fresh));
        SLOTS
            .iter()
            .map(|&(weight, slot)| {
                let weight = match slot {
                    Slot::Browser => (BROWSER_PER_10K + SEZNAM_PER_10K) * 100 - share,
                    Slot::Seznam(Seznam::Bot) => bot,
                    Slot::Seznam(Seznam::Fresh) => fresh,
                    // The rounding remainder, so the three add up to `share`.
                    Slot::Seznam(Seznam::Test) => share - bot - fresh,
                    _ => weight * 100,
                };
                (weight, slot)
            })
            .collect()
    }
}

#[derive(Debug, Clone, Copy)]
struct Burst {
    at: i64,
    count: u32,
    spread: i64,
}

#[derive(Debug, Clone, Copy)]
struct BurstFetch {
    time: i64,
    kind: Seznam,
    host: usize,
}

/// Clock positions are drawn in cells this many times finer than a line.
const SUBSTEPS: u64 = 1_024;

pub struct Traffic {
    rng: Rng,
    site: Site,
    pools: Pools,
    layout: Layout,
    /// `SLOTS` as the `Mix` reshaped them, per million.
    slots: Vec<(u32, Slot)>,
    off_limits: u32,
    stamp: Stamp,
    start: Start,
    span: u64,
    /// Ordinary lines (or their bytes) to write; bursts come on top.
    total: u64,
    by_bytes: bool,
    /// Fewer lines than seconds: a visit's lines then come together, a
    /// second or two apart, rather than spread over minutes of clock.
    sparse: bool,
    /// The time of the latest line written; no line goes before it.
    last: i64,
    bursts: Vec<Burst>,
    pending: VecDeque<BurstFetch>,
    /// Slots written at least once, spread evenly over the log.
    forced: Vec<Slot>,
    sessions: Vec<Session>,
    line: Vec<u8>,
    client: Vec<u8>,
    target: Vec<u8>,
    request: Vec<u8>,
    referer: Vec<u8>,
}

fn schedule(start: i64, span: u64) -> Vec<Burst> {
    let end = start + span as i64;
    let mut bursts = Vec::new();
    for day in start.div_euclid(86_400)..=end.div_euclid(86_400) {
        for (offset, count, spread) in DAILY_BURSTS {
            let at = day * 86_400 + offset;
            if at >= start && at + spread < end {
                bursts.push(Burst { at, count, spread });
            }
        }
    }
    if bursts.is_empty() {
        // A period that misses both times still gets one burst, over both
        // rates whatever the hour.
        let (_, count, spread) = DAILY_BURSTS[0];
        bursts.push(Burst {
            at: start + span as i64 / 3,
            count,
            spread: spread.min(span as i64 / 3).max(1),
        });
    }
    bursts
}

/// Copies the client field of `host` into `client`: its PTR name when
/// `named` (a front end with HostnameLookups On), else its address, which
/// then belongs in the PTR map.
fn take_client(host: &mut Host, named: bool, client: &mut Vec<u8>) {
    client.clear();
    match &host.ptr {
        Some(name) if named => client.extend_from_slice(name.as_bytes()),
        _ => {
            host.used = true;
            client.extend_from_slice(host.text.as_bytes());
        }
    }
}

impl Traffic {
    pub fn new(
        mut rng: Rng,
        start: Start,
        span: u64,
        budget: Budget,
        layout: Layout,
        bursts: bool,
        mix: Mix,
    ) -> Traffic {
        let mut planned = if bursts {
            schedule(start.utc, span)
        } else {
            Vec::new()
        };
        let burst_lines: u64 = planned.iter().map(|b| u64::from(b.count)).sum();
        let (total, by_bytes, estimate) = match budget {
            Budget::Lines(n) => (n, false, n),
            Budget::Bytes(n) => (n, true, n / 250),
        };
        let reserve = if by_bytes {
            burst_lines * BURST_LINE_BYTES
        } else {
            burst_lines
        };
        // Bursts would swamp a tiny log: leave them out there.
        let total = if reserve * 3 <= total {
            total - reserve
        } else {
            planned.clear();
            total
        };
        let sparse = estimate <= span;
        let scale = |div: u64, lo: u64, hi: u64| (estimate / div).clamp(lo, hi) as usize;
        let site = Site::new(&mut rng, scale(150, 40, 20_000), scale(300, 30, 10_000));
        let pools = Pools::new(&mut rng, scale(25, 40, 200_000));
        let mut forced: Vec<Slot> = ALL_ODDS.iter().map(|&o| Slot::Odd(o)).collect();
        forced.extend((0..EDGE_TARGETS.len()).map(|i| Slot::Edge(i as u8)));
        forced.extend(
            TRICK_IMPOSTORS
                .iter()
                .map(|&i| Slot::Impostor(Some(i as u8))),
        );
        Traffic {
            rng,
            site,
            pools,
            layout,
            slots: mix.slots(),
            off_limits: mix.off_limits_per_10k,
            stamp: Stamp::new(start.offset),
            start,
            span,
            total,
            by_bytes,
            sparse,
            last: start.utc,
            bursts: planned,
            pending: VecDeque::new(),
            forced,
            sessions: Vec::with_capacity(SESSIONS + 1),
            line: Vec::with_capacity(4096),
            client: Vec::with_capacity(128),
            target: Vec::with_capacity(512),
            request: Vec::with_capacity(512),
            referer: Vec::with_capacity(512),
        }
    }

    pub fn pools(&self) -> &Pools {
        &self.pools
    }

    /// Hands every line, in order, to `push`; tells how many there were.
    pub fn generate(&mut self, mut push: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<u64> {
        let mut done = 0u64;
        let mut lines = 0u64;
        let mut next_burst = 0;
        let mut next_forced = 0;
        let total = self.total;
        // Each line falls at a random point of its own stretch of the
        // period (under --bytes, a stretch as wide as a short line), so the
        // clock rises evenly overall without ticking like a metronome.
        let cell = if self.by_bytes { 64 } else { 1 };
        let mut clock = self.start.utc;
        while done < total {
            let position = u128::from(done) * u128::from(SUBSTEPS)
                + u128::from(self.rng.below(cell * SUBSTEPS));
            let offset =
                u128::from(self.span) * position / (u128::from(total) * u128::from(SUBSTEPS));
            // The period is half-open: nothing at start + span itself.
            let offset = (offset as i64).min(self.span as i64 - 1);
            clock = clock.max(self.start.utc + offset);
            let t = clock;
            while next_burst < self.bursts.len() && self.bursts[next_burst].at <= t {
                self.expand(self.bursts[next_burst]);
                next_burst += 1;
            }
            while let Some(&fetch) = self.pending.front() {
                if fetch.time > t {
                    break;
                }
                self.pending.pop_front();
                self.burst_fetch(fetch);
                push(&self.line)?;
                lines += 1;
            }
            let due = (next_forced as u64 + 1) * total / (self.forced.len() as u64 + 1);
            let slot = if next_forced < self.forced.len() && done >= due {
                next_forced += 1;
                self.forced[next_forced - 1]
            } else {
                match self.rng.weighted(&self.slots) {
                    Slot::Odd(Odd::Truncated) => Slot::Odd(self.rng.pick(RANDOM_ODDS)),
                    slot => slot,
                }
            };
            self.line.clear();
            self.fill(slot, t);
            push(&self.line)?;
            lines += 1;
            done += if self.by_bytes {
                self.line.len() as u64
            } else {
                1
            };
        }
        while next_burst < self.bursts.len() {
            self.expand(self.bursts[next_burst]);
            next_burst += 1;
        }
        while let Some(fetch) = self.pending.pop_front() {
            self.burst_fetch(fetch);
            push(&self.line)?;
            lines += 1;
        }
        Ok(lines)
    }

    /// Queues the fetches of one burst: mostly SeznamBot from three
    /// addresses, some FreshBot and SeznamBot-test, which share its
    /// robots.txt token and so its count (SPEC §4).
    fn expand(&mut self, burst: Burst) {
        let bots = self.pools.seznam_bot.len() as u64;
        let hosts = [
            self.rng.below(bots) as usize,
            self.rng.below(bots) as usize,
            self.rng.below(bots) as usize,
        ];
        let fresh = self.rng.below(self.pools.seznam_fresh.len() as u64) as usize;
        let test = self.rng.below(self.pools.seznam_test.len() as u64) as usize;
        for k in 0..burst.count {
            let kind =
                self.rng
                    .weighted(&[(80u32, Seznam::Bot), (15, Seznam::Fresh), (5, Seznam::Test)]);
            let host = match kind {
                Seznam::Bot => hosts[k as usize % 3],
                Seznam::Fresh => fresh,
                Seznam::Test => test,
            };
            let time = burst.at + i64::from(k) * burst.spread / i64::from(burst.count);
            self.pending.push_back(BurstFetch { time, kind, host });
        }
    }

    fn burst_fetch(&mut self, fetch: BurstFetch) {
        self.line.clear();
        // A crawler in full swing has robots.txt already.
        let mut page = site::crawl_aiming(&mut self.rng, &self.site, self.off_limits);
        while page == Page::Robots {
            page = site::crawl_aiming(&mut self.rng, &self.site, self.off_limits);
        }
        self.target.clear();
        self.site.write_page(page, &mut self.target);
        self.seznam_line(fetch.time, fetch.kind, Some(fetch.host), false, "GET", None);
    }

    fn fill(&mut self, slot: Slot, t: i64) {
        match slot {
            Slot::Browser => self.browser(t),
            Slot::Seznam(kind) => self.seznam(t, kind),
            Slot::Bot(bot) => self.bot(t, bot),
            Slot::Impostor(host) => self.impostor(t, host.map(usize::from), false, None),
            Slot::Odd(odd) => self.odd(t, odd),
            Slot::Edge(i) => {
                self.target.clear();
                let edge = EDGE_TARGETS.get(usize::from(i)).copied().unwrap_or("/");
                self.target.extend_from_slice(edge.as_bytes());
                self.seznam_line(t, Seznam::Bot, None, false, "GET", None);
            }
        }
    }

    /// `%r` from the target buffer.
    fn set_request(&mut self, method: &str, protocol: &str) {
        self.request.clear();
        self.request.extend_from_slice(method.as_bytes());
        self.request.push(b' ');
        self.request.extend_from_slice(&self.target);
        self.request.push(b' ');
        self.request.extend_from_slice(protocol.as_bytes());
    }

    fn set_referer_page(&mut self, page: Page) {
        self.referer.clear();
        self.referer.extend_from_slice(ORIGIN.as_bytes());
        self.site.write_page(page, &mut self.referer);
    }

    fn set_referer(&mut self, text: &str) {
        self.referer.clear();
        self.referer.extend_from_slice(text.as_bytes());
    }

    /// Appends the line made of the buffers and these fields.
    fn emit(&mut self, t: i64, user: &[u8], status: u16, size: Option<u64>, agent: &[u8]) {
        self.last = self.last.max(t);
        let millis = self.rng.below(1500) as u32;
        Fields {
            client: &self.client,
            user,
            stamp: self.stamp.render(t),
            request: &self.request,
            status,
            size,
            referer: &self.referer,
            agent,
            millis,
        }
        .write(self.layout, &mut self.line);
    }

    /// A response size fitting the status and the target in the buffer:
    /// `-` where Apache logs no body.
    fn body(&mut self, status: u16, lo: u64, hi: u64) -> Option<u64> {
        match status {
            200 if self.target == b"/robots.txt" => Some(ROBOTS_SIZE),
            204 | 304 => None,
            301 | 302 => Some(self.rng.between(228, 262)),
            403 => Some(self.rng.between(199, 320)),
            404 => Some(self.rng.between(1_100, 5_200)),
            400 | 405 | 408 => Some(self.rng.between(226, 420)),
            500..=599 => Some(self.rng.between(300, 620)),
            _ => Some(self.rng.between(lo, hi)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_start;
    use crate::line::Format;

    fn layout() -> Layout {
        Layout {
            format: Format::Combined,
            request_time: false,
        }
    }

    fn lines(seed: u64, budget: Budget, bursts: bool) -> Vec<Vec<u8>> {
        lines_in(seed, budget, bursts, layout())
    }

    fn lines_in(seed: u64, budget: Budget, bursts: bool, layout: Layout) -> Vec<Vec<u8>> {
        let start = parse_start("2026-11-29T00:00:00+01:00").unwrap();
        let mut traffic = Traffic::new(
            Rng::new(seed),
            start,
            86_400,
            budget,
            layout,
            bursts,
            Mix::DEFAULT,
        );
        let mut out = Vec::new();
        traffic
            .generate(|l| {
                out.push(l.to_vec());
                Ok(())
            })
            .unwrap();
        out
    }

    fn count(lines: &[Vec<u8>], needle: &[u8]) -> usize {
        lines
            .iter()
            .filter(|l| l.windows(needle.len()).any(|w| w == needle))
            .count()
    }

    #[test]
    fn line_budget_is_exact_and_deterministic() {
        for (n, bursts) in [
            (0u64, true),
            (1, true),
            (50, true),
            (3_000, true),
            (3_000, false),
        ] {
            let a = lines(4, Budget::Lines(n), bursts);
            assert_eq!(a.len() as u64, n);
            assert_eq!(a, lines(4, Budget::Lines(n), bursts));
            assert!(
                a.iter()
                    .all(|l| l.ends_with(b"\n") && l.iter().filter(|&&b| b == b'\n').count() == 1)
            );
        }
    }

    #[test]
    fn byte_budget_is_close() {
        let want = 2_000_000u64;
        let got: u64 = lines(2, Budget::Bytes(want), true)
            .iter()
            .map(|l| l.len() as u64)
            .sum();
        assert!(got.abs_diff(want) < want / 100, "{got} bytes for {want}");
    }

    #[test]
    fn every_kind_appears() {
        let log = lines(1, Budget::Lines(4_000), true);
        for needle in [
            &b"SeznamBot/4.0"[..],
            b"FreshBot/1.0",
            b"SeznamBot/3.2-test4",
            b"Googlebot",
            b"bingbot",
            b"AhrefsBot",
            b"\"OPTIONS * HTTP/1.0\"",
            b"\"CONNECT ",
            b"\"GET http://www.example.cz/",
            b"\"GET http://ip-check.example.net/",
            b"\\x16\\x03\\x01",
            b"\\\"",
            b"\\x22",
            b"\x00\x00",
            b":25:",
            b"[core:error]",
            b"fulltextrobot-",
            b"fulltextrobot-fresh-",
            b"=HYPERLINK",
            b"/%63z/chat/lobby",
            b"/cz/chat/\\xff\\xfe",
        ] {
            assert!(
                count(&log, needle) > 0,
                "no line holds {:?}",
                String::from_utf8_lossy(needle)
            );
        }
        // The two bursts: over 460 fetches of Seznam's crawlers.
        assert!(count(&log, b"SeznamBot/") > 460);
    }

    #[test]
    fn timestamps_rise_within_the_span() {
        for budget in [
            Budget::Lines(300),
            Budget::Lines(2_000),
            Budget::Lines(200_000),
            Budget::Bytes(3_000_000),
        ] {
            let log = lines(3, budget, true);
            assert!(
                count(&log[..1], b"[29/Nov/2026:00:0") == 1,
                "{}",
                String::from_utf8_lossy(&log[0])
            );
            assert!(count(&log, b"[29/Nov/2026:23:") > 0);
            assert_eq!(count(&log, b"[30/Nov/2026"), 0);
            let key = b"[29/Nov/2026:";
            let mut previous: &[u8] = b"00:00:00";
            for line in &log {
                let Some(at) = line.windows(key.len()).position(|w| w == key) else {
                    continue;
                };
                let from = at + key.len();
                let (Some(time), Some(b" +0100]")) =
                    (line.get(from..from + 8), line.get(from + 8..from + 15))
                else {
                    continue; // cut short
                };
                if time.starts_with(b"25") {
                    continue; // the deliberately broken stamp
                }
                assert!(
                    time >= previous,
                    "{} after {}",
                    String::from_utf8_lossy(time),
                    String::from_utf8_lossy(previous)
                );
                previous = time;
            }
        }
    }

    #[test]
    fn every_layout_keeps_its_fields() {
        for (format, request_time) in [
            (Format::Combined, true),
            (Format::Common, false),
            (Format::VhostCombined, false),
        ] {
            let log = lines_in(
                5,
                Budget::Lines(1_500),
                true,
                Layout {
                    format,
                    request_time,
                },
            );
            for line in &log {
                let text = String::from_utf8_lossy(line);
                if line.starts_with(b"\0") || line.starts_with(b"[") {
                    continue; // NUL padding, error-log line
                }
                match format {
                    Format::VhostCombined => {
                        assert!(text.starts_with("www.example.cz:443 "), "{text}")
                    }
                    Format::Common => assert!(!text.contains("\" \""), "{text}"),
                    Format::Combined => {}
                }
                if request_time && text.contains("\\\"Chrome\\\"") {
                    let tail = &text[text.rfind('"').unwrap()..];
                    assert_eq!(tail.len(), "\" 0.000\n".len(), "{text}");
                }
            }
            assert!(
                count(&log, b"/2026:25:") > 0,
                "the broken hour, in the stamp"
            );
        }
    }

    #[test]
    fn mix_reshapes_only_browsers_and_seznam() {
        let weights = |mix: Mix| mix.slots().iter().map(|&(w, _)| u64::from(w)).sum::<u64>();
        let default: Vec<(u32, Slot)> = SLOTS.iter().map(|&(w, s)| (w * 100, s)).collect();
        assert_eq!(Mix::DEFAULT.slots(), default);
        for share in [0, 1, 2_500, 19_000, 80_000, Mix::MAX_SEZNAM_PER_MILLION] {
            let mix = Mix {
                seznam_per_million: share,
                ..Mix::DEFAULT
            };
            assert_eq!(weights(mix), 1_000_000, "share {share}");
            let seznam: u32 = mix
                .slots()
                .iter()
                .filter(|(_, s)| matches!(s, Slot::Seznam(_)))
                .map(|&(w, _)| w)
                .sum();
            assert_eq!(seznam, share);
        }
    }

    /// Seznam's ordinary fetches, and among them those whose target
    /// `samples/robots.txt` forbids to SeznamBot, by the generator's own
    /// lines: the user agent and a few forbidden prefixes.
    fn seznam_counts(mix: Mix) -> (usize, usize, usize) {
        let start = parse_start("2026-11-29T00:00:00+01:00").unwrap();
        let mut traffic = Traffic::new(
            Rng::new(9),
            start,
            86_400,
            Budget::Lines(40_000),
            layout(),
            false,
            mix,
        );
        let (mut all, mut seznam, mut forbidden) = (0, 0, 0);
        traffic
            .generate(|l| {
                all += 1;
                let text = String::from_utf8_lossy(l);
                if text.contains("SeznamBot/") && text.starts_with("77.75.") {
                    seznam += 1;
                    if [
                        "\"GET /kosik",
                        "\"GET /uzivatel/",
                        "\"GET /hledani",
                        "\"GET /cz/chat/",
                        "\"GET /tisk/",
                        "\"GET /tmp",
                    ]
                    .iter()
                    .any(|p| text.contains(p))
                    {
                        forbidden += 1;
                    }
                }
                Ok(())
            })
            .unwrap();
        (all, seznam, forbidden)
    }

    #[test]
    fn mix_sets_crawler_share_and_off_limits() {
        let (all, seznam, forbidden) = seznam_counts(Mix {
            seznam_per_million: 80_000,
            off_limits_per_10k: 1_600,
        });
        // 8% of 40,000 is 3,200; the IPv4 ones are most of them.
        assert!((2_000..3_400).contains(&seznam), "{seznam} of {all}");
        let (_, heavy, heavy_forbidden) = seznam_counts(Mix {
            seznam_per_million: 80_000,
            off_limits_per_10k: 8_000,
        });
        assert!(heavy.abs_diff(seznam) < seznam / 10, "{heavy} vs {seznam}");
        // Five times the aim, about five times the forbidden fetches.
        assert!(
            heavy_forbidden > forbidden * 4 && heavy_forbidden < forbidden * 6,
            "{heavy_forbidden} vs {forbidden}"
        );
        let (_, few, _) = seznam_counts(Mix {
            seznam_per_million: 20_000,
            off_limits_per_10k: 1_600,
        });
        assert!(few * 3 < seznam, "{few} vs {seznam}");
    }

    #[test]
    fn bursts_fall_where_planned() {
        let start = parse_start("2026-11-29T00:00:00+01:00").unwrap();
        let day = schedule(start.utc, 86_400);
        let times: Vec<i64> = day.iter().map(|b| (b.at - start.utc) / 60).collect();
        // 02:30 and 10:15 UTC are 03:30 and 11:15 at +01:00.
        assert_eq!(times, vec![210, 675]);
        let hour = schedule(start.utc, 3_600);
        assert_eq!(hour.len(), 1);
        assert_eq!(hour[0].at, start.utc + 1_200);
    }
}
