//! Crawler traffic: Seznam's crawlers (SPEC §2: SeznamBot, FreshBot,
//! SeznamBot-test, and the renderer known only by its PTR name), other bots,
//! and impostors sending Seznam's user agent from other networks. Takes the
//! traffic generator's buffers, gives one line each.

use super::{Bot, Traffic, take_client};
use crate::actors::Seznam;
use crate::site::{self, Asset, EDGE_TARGETS};
use crate::vocabulary;

impl Traffic {
    /// An ordinary fetch by one of Seznam's crawlers.
    pub(super) fn seznam(&mut self, t: i64, kind: Seznam) {
        self.target.clear();
        if self.rng.chance(200) {
            let edge = self.rng.pick(EDGE_TARGETS);
            self.target.extend_from_slice(edge.as_bytes());
        } else {
            let page = site::crawl_aiming(&mut self.rng, &self.site, self.off_limits);
            self.site.write_page(page, &mut self.target);
        }
        let named = self.rng.chance(500);
        let method = if self.rng.chance(300) { "HEAD" } else { "GET" };
        self.seznam_line(t, kind, None, named, method, None);
    }

    /// A Seznam crawler's line for the target in the buffer. `host` picks
    /// the address (else random), `agent` overrides the user agent.
    pub(super) fn seznam_line(
        &mut self,
        t: i64,
        kind: Seznam,
        host: Option<usize>,
        named: bool,
        method: &str,
        agent: Option<&'static str>,
    ) {
        let pool = self.pools.seznam_mut(kind);
        let len = pool.len() as u64;
        let i = host.unwrap_or_else(|| self.rng.below(len) as usize);
        if let Some(h) = pool.get_mut(i) {
            take_client(h, named, &mut self.client);
        }
        let agent = agent.unwrap_or_else(|| match kind {
            Seznam::Bot => vocabulary::SEZNAMBOT_UA,
            Seznam::Fresh if self.rng.chance(5_000) => vocabulary::FRESHBOT_UA,
            Seznam::Fresh => vocabulary::SEZNAMBOT_UA,
            Seznam::Test if self.rng.chance(2_000) => vocabulary::SEZNAMBOT_UA,
            Seznam::Test => vocabulary::SEZNAMBOT_TEST_UA,
        });
        let status = if self.target == b"/robots.txt" {
            200
        } else {
            self.rng
                .weighted(&[(800u32, 200u16), (60, 304), (40, 301), (80, 404), (20, 503)])
        };
        let size = if method == "HEAD" {
            None
        } else {
            self.body(status, 6_000, 180_000)
        };
        self.set_request(method, "HTTP/1.1");
        self.set_referer("-");
        self.emit(t, b"-", status, size, agent.as_bytes());
    }

    pub(super) fn bot(&mut self, t: i64, bot: Bot) {
        let (pool, agent) = match bot {
            Bot::Google => (
                &mut self.pools.googlebot,
                self.rng.pick(vocabulary::GOOGLEBOT_UAS),
            ),
            Bot::Bing => (&mut self.pools.bingbot, vocabulary::BINGBOT_UA),
            Bot::Ahrefs => (&mut self.pools.ahrefsbot, vocabulary::AHREFSBOT_UA),
            Bot::Mj12 => (&mut self.pools.mj12bot, vocabulary::MJ12BOT_UA),
            Bot::Gpt => (&mut self.pools.gptbot, vocabulary::GPTBOT_UA),
            Bot::Script => (
                &mut self.pools.scripts,
                self.rng.pick(vocabulary::SCRIPT_UAS),
            ),
        };
        let i = self.rng.below(pool.len() as u64) as usize;
        if let Some(h) = pool.get_mut(i) {
            take_client(h, false, &mut self.client);
        }
        self.target.clear();
        let mut user: &[u8] = b"-";
        if bot == Bot::Script && self.rng.chance(2_000) {
            // A monitor with basic authentication: `%u` is set.
            self.target.extend_from_slice(b"/server-status?auto");
            user = b"monitor";
        } else {
            let page = site::crawl(&mut self.rng, &self.site);
            self.site.write_page(page, &mut self.target);
        }
        let status =
            self.rng
                .weighted(&[(820u32, 200u16), (50, 304), (40, 301), (80, 404), (10, 503)]);
        let size = self.body(status, 6_000, 180_000);
        self.set_request("GET", "HTTP/1.1");
        self.set_referer("-");
        self.emit(t, user, status, size, agent.as_bytes());
    }

    /// Seznam's user agent from an address that is not Seznam's.
    /// `host` picks the impostor (else a random one, a few busier than the
    /// rest); `named` logs its PTR name instead of its address.
    pub(super) fn impostor(
        &mut self,
        t: i64,
        host: Option<usize>,
        named: bool,
        agent: Option<&'static str>,
    ) {
        let i = host.unwrap_or_else(|| self.rng.skewed(self.pools.impostors.len()));
        if let Some(h) = self.pools.impostors.get_mut(i) {
            take_client(h, named, &mut self.client);
        }
        self.target.clear();
        let status = if self.rng.chance(6_000) {
            let page = site::crawl(&mut self.rng, &self.site);
            self.site.write_page(page, &mut self.target);
            self.rng.weighted(&[(9u32, 200u16), (1, 404)])
        } else {
            self.target
                .extend_from_slice(self.rng.pick(vocabulary::MISSING).as_bytes());
            self.rng.weighted(&[(8u32, 404u16), (2, 403)])
        };
        let agent = agent.unwrap_or_else(|| self.rng.pick(vocabulary::IMPOSTOR_UAS));
        let size = self.body(status, 6_000, 180_000);
        self.set_request("GET", "HTTP/1.1");
        self.set_referer("-");
        self.emit(t, b"-", status, size, agent.as_bytes());
    }

    /// Seznam's renderer loading a page or one of its assets with a
    /// browser's user agent: only the PTR name says it is SeznamBot.
    pub(super) fn renderer(&mut self, t: i64) {
        let i = self.rng.below(self.pools.seznam_bot.len() as u64) as usize;
        if let Some(h) = self.pools.seznam_bot.get_mut(i) {
            take_client(h, false, &mut self.client);
        }
        let page = site::crawl(&mut self.rng, &self.site);
        self.target.clear();
        if self.rng.chance(5_000) {
            self.site.write_page(page, &mut self.target);
            self.set_referer("-");
        } else {
            let asset = self
                .rng
                .pick(&[Asset::Css, Asset::AppJs, Asset::VendorJs, Asset::Font]);
            self.site.write_asset(asset, &mut self.target);
            self.set_referer_page(page);
        }
        let size = self.body(200, 6_000, 180_000);
        self.set_request("GET", "HTTP/1.1");
        self.emit(t, b"-", 200, size, vocabulary::RENDERER_UA.as_bytes());
    }
}
