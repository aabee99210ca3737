//! Browser traffic: visits that land on a page, load its assets with the
//! page as referer, and go on to a few more pages. Takes the traffic
//! generator's buffers, gives one line at a time, with visits interleaved
//! in a dense log and one after another in a sparse one.

use super::Traffic;
use crate::site::{self, Asset, Page};
use crate::vocabulary;

/// A visitor part way through a visit: the page it is on, the assets of
/// that page still to load, the pages still to see, when it last fetched.
#[derive(Debug, Clone, Copy)]
pub(super) struct Session {
    visitor: usize,
    page: Page,
    assets: u8,
    /// How many assets of this page were loaded; indexes the sequence.
    loaded: u8,
    /// The first page of a visit loads everything, later ones what the
    /// browser has not cached.
    landing: bool,
    pages: u8,
    last: i64,
}

/// The order a page's subresources load in, on the first page of a visit
/// and on later ones.
const LANDING_ASSETS: &[Asset] = &[
    Asset::Css,
    Asset::VendorJs,
    Asset::AppJs,
    Asset::Font,
    Asset::Logo,
    Asset::Image(0),
    Asset::Thumbnail(1),
    Asset::Thumbnail(2),
    Asset::Comments(0),
    Asset::Beacon,
    Asset::Favicon,
    Asset::Manifest,
    Asset::TouchIcon,
];
const LATER_ASSETS: &[Asset] = &[
    Asset::Image(0),
    Asset::Thumbnail(1),
    Asset::Comments(0),
    Asset::Beacon,
];

/// At most this many visits are interleaved at once.
pub(super) const SESSIONS: usize = 32;
/// A visit idle this long (seconds) is over.
const SESSION_IDLE: i64 = 1_800;

/// The HTTP version a visitor's browser speaks, fixed per visitor.
fn protocol(visitor: usize) -> &'static str {
    match visitor % 10 {
        0..=5 => "HTTP/2.0",
        6..=8 => "HTTP/1.1",
        _ => "HTTP/1.0",
    }
}

impl Traffic {
    pub(super) fn browser(&mut self, t: i64) {
        if !self.sessions.is_empty() && self.rng.chance(6_500) {
            let newest = self.sessions.len() - 1;
            // In a sparse log a visit finishes before the next begins.
            let i = if self.sparse && self.rng.chance(9_000) {
                newest
            } else {
                self.rng.below(self.sessions.len() as u64) as usize
            };
            let s = self.sessions[i];
            // A visit goes on a second or two after its last fetch, or now,
            // whichever is earlier, and never before the line above.
            let at = t.min(self.last + self.rng.between(0, 2) as i64).max(s.last);
            if s.assets > 0 && t - s.last <= SESSION_IDLE {
                self.sessions[i].assets -= 1;
                self.sessions[i].loaded += 1;
                self.sessions[i].last = at;
                self.asset(at, s);
                return;
            }
            if s.pages > 0 && t - s.last <= SESSION_IDLE {
                let page = site::browse(&mut self.rng, &self.site);
                self.set_referer_page(s.page);
                let at = t.min(at + self.rng.between(3, 40) as i64);
                let status = self.page_view(at, s.visitor, page);
                // The second page of a visit finds most assets cached.
                let assets = if status == 200 && page.is_document() {
                    self.rng.between(0, LATER_ASSETS.len() as u64) as u8
                } else {
                    0
                };
                self.sessions[i] = Session {
                    page,
                    assets,
                    loaded: 0,
                    landing: false,
                    pages: s.pages - 1,
                    last: at,
                    ..s
                };
                return;
            }
            self.sessions.remove(i);
        }
        let visitor = self.rng.skewed(self.pools.visitors.len());
        let page = site::browse(&mut self.rng, &self.site);
        let landing = self.rng.pick(vocabulary::LANDING_REFERERS);
        self.set_referer(landing);
        let status = self.page_view(t, visitor, page);
        let assets = if status == 200 && page.is_document() {
            self.rng.between(3, LANDING_ASSETS.len() as u64) as u8
        } else {
            0
        };
        let pages = self
            .rng
            .weighted(&[(40u32, 0u8), (25, 1), (15, 2), (10, 3), (10, 6)]);
        self.sessions.push(Session {
            visitor,
            page,
            assets,
            loaded: 0,
            landing: true,
            pages,
            last: t,
        });
        if self.sessions.len() > SESSIONS {
            self.sessions.remove(0);
        }
    }

    /// A browser's page view, the referer already set. Tells the status.
    fn page_view(&mut self, t: i64, visitor: usize, page: Page) -> u16 {
        let v = &self.pools.visitors[visitor];
        let agent = vocabulary::BROWSERS[usize::from(v.agent) % vocabulary::BROWSERS.len()];
        self.client.clear();
        self.client.extend_from_slice(v.client.as_bytes());
        self.target.clear();
        self.site.write_page(page, &mut self.target);
        let method = match page {
            Page::Login if self.rng.chance(3_000) => "POST",
            _ if self.rng.chance(40) => "HEAD",
            _ => "GET",
        };
        let status = match page {
            Page::Missing(_) => self.rng.weighted(&[(8u32, 404u16), (2, 403)]),
            Page::Cart | Page::Login | Page::Account => {
                self.rng.weighted(&[(8u32, 200u16), (2, 302)])
            }
            _ => self.rng.weighted(&[
                (850u32, 200u16),
                (30, 304),
                (40, 301),
                (60, 404),
                (5, 500),
                (2, 503),
            ]),
        };
        let size = if method == "HEAD" {
            None
        } else {
            self.body(status, 8_000, 140_000)
        };
        self.set_request(method, protocol(visitor));
        self.emit(t, b"-", status, size, agent.as_bytes());
        status
    }

    fn asset(&mut self, t: i64, s: Session) {
        let article = match s.page {
            Page::Article { id, .. } => id,
            _ => self.rng.skewed(self.site.article_count() as usize) as u32,
        };
        let sequence = if s.landing {
            LANDING_ASSETS
        } else {
            LATER_ASSETS
        };
        // Image and thumbnail numbers are offsets from the page's article,
        // so a page shows the same pictures whenever it is loaded.
        let asset = match sequence[usize::from(s.loaded) % sequence.len()] {
            Asset::Image(k) => Asset::Image(article.wrapping_add(k)),
            Asset::Thumbnail(k) => Asset::Thumbnail(article.wrapping_add(k * 7_919)),
            Asset::Comments(_) if !matches!(s.page, Page::Article { .. }) => Asset::Beacon,
            Asset::Comments(_) => Asset::Comments(article),
            other => other,
        };
        self.target.clear();
        self.site.write_asset(asset, &mut self.target);
        self.set_referer_page(s.page);
        let (method, status) = match asset {
            Asset::Beacon => ("POST", 204),
            Asset::TouchIcon => ("GET", self.rng.weighted(&[(7u32, 404u16), (3, 200)])),
            Asset::Comments(_) => ("GET", 200),
            _ => (
                "GET",
                self.rng.weighted(&[(60u32, 200u16), (37, 304), (3, 404)]),
            ),
        };
        let (lo, hi) = match asset {
            Asset::Css => (28_000, 96_000),
            Asset::VendorJs => (180_000, 420_000),
            Asset::AppJs => (40_000, 160_000),
            Asset::Image(_) => (60_000, 380_000),
            Asset::Thumbnail(_) => (6_000, 32_000),
            Asset::Font => (48_000, 110_000),
            Asset::Comments(_) => (300, 24_000),
            _ => (400, 16_000),
        };
        let size = self.body(status, lo, hi);
        let v = &self.pools.visitors[s.visitor];
        let agent = vocabulary::BROWSERS[usize::from(v.agent) % vocabulary::BROWSERS.len()];
        self.client.clear();
        self.client.extend_from_slice(v.client.as_bytes());
        self.set_request(method, protocol(s.visitor));
        self.emit(t, b"-", status, size, agent.as_bytes());
    }
}
