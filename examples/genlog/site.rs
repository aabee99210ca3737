//! The made-up web site the generator logs: a Czech news portal with a shop
//! at `www.example.cz`. Takes a random source, gives page and asset paths
//! that look like real traffic, and the paths that
//! `samples/robots.txt` allows and forbids (SPEC §3), so that crawler fetches
//! can be steered onto either side of its rules.

use crate::rng::Rng;
use crate::vocabulary::{
    ACCENTED, CATEGORIES, CHAT_ROOMS, DOCUMENTS, INFO, MISSING, SECTIONS, WORDS,
};

pub const AUTHORITY: &str = "www.example.cz";
pub const ORIGIN: &str = "https://www.example.cz";

/// One page of the site. Small and `Copy`, so a browsing session can keep
/// the page it is on and write it again as the referer of its assets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Home,
    /// `query`: 0 none, 1-3 campaign tags, 4 `?sessionid=` first, 5 a
    /// session id after another parameter, 6 comments view.
    Article {
        id: u32,
        query: u8,
    },
    Section {
        section: u8,
        page: u8,
    },
    Product(u32),
    /// `sort`: 0 none, 1 `?razeni=cena`, 2 `?razeni=nejprodavanejsi`,
    /// 3 `?strana=N&razeni=cena` (the sort not first).
    Category {
        category: u8,
        sort: u8,
        page: u8,
    },
    Search {
        first: u16,
        second: u16,
    },
    SearchHelp,
    Cart,
    Login,
    Account,
    Chat(u8),
    Print(u32),
    /// A PDF under `/dokumenty/` (allowed to SeznamBot) or `/soubory/`.
    Document {
        doc: u8,
        public: bool,
    },
    Info(u8),
    Missing(u8),
    Temporary(u8),
    Sitemap(u8),
    Robots,
}

impl Page {
    /// Pages with a body worth caching by a browser and crawling.
    pub fn is_document(self) -> bool {
        !matches!(self, Page::Missing(_) | Page::Robots | Page::Sitemap(_))
    }
}

/// One subresource of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asset {
    Css,
    VendorJs,
    AppJs,
    Logo,
    Font,
    Favicon,
    TouchIcon,
    Image(u32),
    Thumbnail(u32),
    Comments(u32),
    /// An analytics beacon: the one POST of the site.
    Beacon,
    Manifest,
}

pub struct Site {
    articles: Vec<String>,
    products: Vec<String>,
    build: String,
}

fn slug(rng: &mut Rng, out: &mut String, accented: bool) {
    let words = rng.between(2, 5);
    for i in 0..words {
        if i > 0 {
            out.push('-');
        }
        if accented && i == 0 {
            out.push_str(rng.pick(ACCENTED));
        } else {
            out.push_str(rng.pick(WORDS));
        }
    }
}

fn push_number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Writes `n` in decimal; the generator's one number formatter.
pub fn write_number(out: &mut Vec<u8>, n: u64) {
    push_number(out, n);
}

fn push_hex(out: &mut Vec<u8>, n: u64, digits: u32) {
    for i in (0..digits).rev() {
        out.push(b"0123456789abcdef"[((n >> (i * 4)) & 15) as usize]);
    }
}

/// A stable scramble of a number, so that ids and session tokens written
/// for the same page are the same every time without drawing randomness.
fn scramble(n: u64) -> u64 {
    let mut rng = Rng::new(n);
    rng.next_u64()
}

impl Site {
    pub fn new(rng: &mut Rng, articles: usize, products: usize) -> Site {
        let mut site = Site {
            articles: Vec::with_capacity(articles),
            products: Vec::with_capacity(products),
            build: format!("{:08x}", rng.next_u64() as u32),
        };
        for _ in 0..articles {
            let mut path = String::from("/clanky/");
            path.push_str(rng.pick(SECTIONS));
            path.push('/');
            let accented = rng.chance(500);
            slug(rng, &mut path, accented);
            path.push('-');
            path.push_str(&rng.between(100_000, 999_999).to_string());
            site.articles.push(path);
        }
        for _ in 0..products {
            let mut path = String::from("/zbozi/");
            path.push_str(rng.pick(CATEGORIES));
            path.push('/');
            slug(rng, &mut path, false);
            path.push('-');
            path.push_str(&rng.between(10_000, 99_999).to_string());
            site.products.push(path);
        }
        site
    }

    pub fn article_count(&self) -> u32 {
        self.articles.len() as u32
    }

    pub fn product_count(&self) -> u32 {
        self.products.len() as u32
    }

    /// The article path itself, without any query.
    pub fn article_path(&self, id: u32) -> &str {
        self.articles
            .get(id as usize)
            .map_or("/clanky/", String::as_str)
    }

    /// Writes the path and query of `page`.
    pub fn write_page(&self, page: Page, out: &mut Vec<u8>) {
        match page {
            Page::Home => out.push(b'/'),
            Page::Article { id, query } => {
                out.extend_from_slice(self.article_path(id).as_bytes());
                let token = scramble(u64::from(id));
                match query {
                    1 => out.extend_from_slice(
                        b"?utm_source=www.seznam.cz&utm_medium=sekce-z-internetu",
                    ),
                    2 => out.extend_from_slice(b"?utm_source=newsletter&utm_medium=email"),
                    3 => {
                        out.extend_from_slice(b"?fbclid=IwAR");
                        push_hex(out, token, 16);
                    }
                    4 => {
                        out.extend_from_slice(b"?sessionid=");
                        push_hex(out, token, 12);
                    }
                    5 => {
                        out.extend_from_slice(b"?utm_source=rss&sessionid=");
                        push_hex(out, token, 12);
                    }
                    6 => out.extend_from_slice(b"?komentare=1"),
                    _ => {}
                }
            }
            Page::Section { section, page } => {
                out.extend_from_slice(b"/clanky/");
                out.extend_from_slice(SECTIONS[section as usize % SECTIONS.len()].as_bytes());
                out.push(b'/');
                if page > 1 {
                    out.extend_from_slice(b"?strana=");
                    push_number(out, u64::from(page));
                }
            }
            Page::Product(id) => {
                let path = self
                    .products
                    .get(id as usize)
                    .map_or("/zbozi/", String::as_str);
                out.extend_from_slice(path.as_bytes());
            }
            Page::Category {
                category,
                sort,
                page,
            } => {
                out.extend_from_slice(b"/zbozi/");
                out.extend_from_slice(CATEGORIES[category as usize % CATEGORIES.len()].as_bytes());
                out.push(b'/');
                match sort {
                    1 => out.extend_from_slice(b"?razeni=cena"),
                    2 => out.extend_from_slice(b"?razeni=nejprodavanejsi"),
                    3 => {
                        out.extend_from_slice(b"?strana=");
                        push_number(out, u64::from(page.max(2)));
                        out.extend_from_slice(b"&razeni=cena");
                    }
                    _ if page > 1 => {
                        out.extend_from_slice(b"?strana=");
                        push_number(out, u64::from(page));
                    }
                    _ => {}
                }
            }
            Page::Search { first, second } => {
                out.extend_from_slice(b"/hledani?q=");
                out.extend_from_slice(WORDS[first as usize % WORDS.len()].as_bytes());
                if !second.is_multiple_of(3) {
                    out.push(b'+');
                    out.extend_from_slice(WORDS[second as usize % WORDS.len()].as_bytes());
                }
            }
            Page::SearchHelp => out.extend_from_slice(b"/hledani/napoveda"),
            Page::Cart => out.extend_from_slice(b"/kosik"),
            Page::Login => out.extend_from_slice(b"/uzivatel/prihlaseni"),
            Page::Account => out.extend_from_slice(b"/uzivatel/objednavky"),
            Page::Chat(room) => {
                out.extend_from_slice(b"/cz/chat/");
                out.extend_from_slice(CHAT_ROOMS[room as usize % CHAT_ROOMS.len()].as_bytes());
            }
            Page::Print(id) => {
                out.extend_from_slice(b"/tisk/");
                push_number(out, 100_000 + scramble(u64::from(id)) % 900_000);
            }
            Page::Document { doc, public } => {
                out.extend_from_slice(if public { b"/dokumenty/" } else { b"/soubory/" });
                out.extend_from_slice(DOCUMENTS[doc as usize % DOCUMENTS.len()].as_bytes());
                out.extend_from_slice(b".pdf");
            }
            Page::Info(i) => out.extend_from_slice(INFO[i as usize % INFO.len()].as_bytes()),
            Page::Missing(i) => {
                out.extend_from_slice(MISSING[i as usize % MISSING.len()].as_bytes())
            }
            Page::Temporary(i) => {
                out.extend_from_slice(b"/tmp/cache/");
                push_hex(out, scramble(u64::from(i)), 8);
                out.extend_from_slice(b".html");
            }
            Page::Sitemap(i) => out.extend_from_slice(match i % 3 {
                0 => b"/sitemap.xml".as_slice(),
                1 => b"/sitemap-clanky.xml.gz",
                _ => b"/sitemap-zbozi.xml.gz",
            }),
            Page::Robots => out.extend_from_slice(b"/robots.txt"),
        }
    }

    /// Writes the path of `asset`.
    pub fn write_asset(&self, asset: Asset, out: &mut Vec<u8>) {
        let build = self.build.as_bytes();
        match asset {
            Asset::Css => {
                out.extend_from_slice(b"/static/css/main.");
                out.extend_from_slice(build);
                out.extend_from_slice(b".css");
            }
            Asset::VendorJs => {
                out.extend_from_slice(b"/static/js/vendor.");
                out.extend_from_slice(build);
                out.extend_from_slice(b".js");
            }
            Asset::AppJs => {
                out.extend_from_slice(b"/static/js/app.");
                out.extend_from_slice(build);
                out.extend_from_slice(b".js");
            }
            Asset::Logo => out.extend_from_slice(b"/img/logo.svg"),
            Asset::Font => out.extend_from_slice(b"/fonts/inter-var.woff2"),
            Asset::Favicon => out.extend_from_slice(b"/favicon.ico"),
            Asset::TouchIcon => out.extend_from_slice(b"/apple-touch-icon.png"),
            Asset::Image(id) | Asset::Thumbnail(id) => {
                out.extend_from_slice(b"/img/clanky/");
                push_number(out, 100_000 + scramble(u64::from(id)) % 900_000);
                if let Asset::Image(_) = asset {
                    out.extend_from_slice(b"/hlavni.webp?w=1280");
                } else {
                    out.extend_from_slice(b"/nahled.jpg?w=320&h=180");
                }
            }
            Asset::Comments(id) => {
                out.extend_from_slice(b"/api/v1/komentare?clanek=");
                push_number(out, 100_000 + scramble(u64::from(id)) % 900_000);
            }
            Asset::Beacon => out.extend_from_slice(b"/api/v1/udalosti"),
            Asset::Manifest => out.extend_from_slice(b"/manifest.webmanifest"),
        }
    }
}

/// A page a browser visits, popular ones more often.
pub fn browse(rng: &mut Rng, site: &Site) -> Page {
    let kind = rng.weighted(&[
        (450u32, 0u8),
        (120, 1),
        (100, 2),
        (120, 3),
        (60, 4),
        (50, 5),
        (30, 6),
        (20, 7),
        (15, 8),
        (10, 9),
        (10, 10),
        (8, 11),
        (7, 12),
    ]);
    match kind {
        0 => Page::Article {
            id: rng.skewed(site.article_count() as usize) as u32,
            query: rng.weighted(&[
                (820u32, 0u8),
                (60, 1),
                (30, 2),
                (50, 3),
                (5, 4),
                (5, 5),
                (50, 6),
            ]),
        },
        1 => Page::Home,
        2 => Page::Section {
            section: rng.below(SECTIONS.len() as u64) as u8,
            page: if rng.chance(2500) {
                rng.between(2, 20) as u8
            } else {
                0
            },
        },
        3 => Page::Product(rng.skewed(site.product_count() as usize) as u32),
        4 => Page::Category {
            category: rng.below(CATEGORIES.len() as u64) as u8,
            sort: rng.weighted(&[(6u32, 0u8), (2, 1), (1, 2), (1, 3)]),
            page: rng.between(1, 12) as u8,
        },
        5 => Page::Search {
            first: rng.below(WORDS.len() as u64) as u16,
            second: rng.below(WORDS.len() as u64 * 3) as u16,
        },
        6 => Page::Cart,
        7 => Page::Chat(rng.below(CHAT_ROOMS.len() as u64) as u8),
        8 => {
            if rng.chance(5000) {
                Page::Login
            } else {
                Page::Account
            }
        }
        9 => Page::Info(rng.below(INFO.len() as u64) as u8),
        10 => Page::Document {
            doc: rng.below(DOCUMENTS.len() as u64) as u8,
            public: rng.chance(6000),
        },
        11 => Page::Print(rng.skewed(site.article_count() as usize) as u32),
        _ => Page::Missing(rng.below(MISSING.len() as u64) as u8),
    }
}

/// How many crawler fetches in 10,000 `crawl` aims at a path
/// `samples/robots.txt` forbids to SeznamBot: about one in six.
pub const OFF_LIMITS_PER_10K: u32 = 1_600;

/// The most `crawl_aiming` takes: robots.txt and the sitemaps keep their
/// 6%.
pub const MAX_OFF_LIMITS_PER_10K: u32 = 9_400;

/// A page a crawler fetches: `robots.txt` and sitemaps now and then, mostly
/// content, and about one fetch in six onto a path `samples/robots.txt`
/// forbids to SeznamBot.
pub fn crawl(rng: &mut Rng, site: &Site) -> Page {
    crawl_aiming(rng, site, OFF_LIMITS_PER_10K)
}

/// `crawl` with `off_limits` fetches in 10,000 aimed at forbidden paths
/// (at most `MAX_OFF_LIMITS_PER_10K`), which sets how many `disallow` rows
/// a log makes. The weights are ten times `crawl`'s old per-mille ones, so
/// the default draws exactly what it drew before the knob existed.
pub fn crawl_aiming(rng: &mut Rng, site: &Site, off_limits: u32) -> Page {
    let off_limits = off_limits.min(MAX_OFF_LIMITS_PER_10K);
    let content = MAX_OFF_LIMITS_PER_10K - off_limits;
    match rng.weighted(&[(400u32, 0u8), (200, 1), (content, 2), (off_limits, 3)]) {
        0 => Page::Robots,
        1 => Page::Sitemap(rng.below(3) as u8),
        2 => match rng.weighted(&[
            (55u32, 0u8),
            (8, 1),
            (10, 2),
            (15, 3),
            (6, 4),
            (3, 5),
            (3, 6),
        ]) {
            0 => Page::Article {
                id: rng.below(u64::from(site.article_count())) as u32,
                query: if rng.chance(300) { 5 } else { 0 },
            },
            1 => Page::Home,
            2 => Page::Section {
                section: rng.below(SECTIONS.len() as u64) as u8,
                page: rng.between(0, 30) as u8,
            },
            3 => Page::Product(rng.below(u64::from(site.product_count())) as u32),
            4 => Page::Category {
                category: rng.below(CATEGORIES.len() as u64) as u8,
                sort: if rng.chance(3000) { 3 } else { 0 },
                page: rng.between(1, 40) as u8,
            },
            5 if rng.chance(3_000) => Page::SearchHelp,
            5 => Page::Info(rng.below(INFO.len() as u64) as u8),
            _ => Page::Document {
                doc: rng.below(DOCUMENTS.len() as u64) as u8,
                public: true,
            },
        },
        _ => match rng.below(10) {
            0 | 1 => Page::Chat(rng.below(CHAT_ROOMS.len() as u64) as u8),
            2 => Page::Search {
                first: rng.below(WORDS.len() as u64) as u16,
                second: rng.below(WORDS.len() as u64 * 3) as u16,
            },
            3 => Page::Print(rng.below(u64::from(site.article_count())) as u32),
            4 => Page::Article {
                id: rng.below(u64::from(site.article_count())) as u32,
                query: 4,
            },
            5 => Page::Category {
                category: rng.below(CATEGORIES.len() as u64) as u8,
                sort: 1 + rng.below(2) as u8,
                page: 1,
            },
            6 => Page::Document {
                doc: rng.below(DOCUMENTS.len() as u64) as u8,
                public: false,
            },
            7 => Page::Cart,
            8 => Page::Login,
            _ => Page::Temporary(rng.below(64) as u8),
        },
    }
}

/// Targets that sit on the edges of `samples/robots.txt` for SeznamBot, as
/// they stand in the log (escapes still written). Each is fetched at least
/// once in any log long enough, so the sample exercises every rule of
/// RFC 9309 §2.2.2-2.2.3 and SPEC §3-4 that it can.
pub const EDGE_TARGETS: &[&str] = &[
    // %63 is `c`, unreserved: normalised to /cz/chat/, disallowed.
    "/%63z/chat/lobby",
    // %2F stays distinct from `/`: allowed.
    "/cz%2Fchat/lobby",
    // No trailing slash: `Disallow: /cz/chat/` does not match.
    "/cz/chat",
    // Matching is case-sensitive: allowed.
    "/Kosik",
    // The longer `Allow: /hledani/napoveda` wins over `Disallow: /hledani`.
    "/hledani/napoveda/vyhledavani",
    // `Allow: /dokumenty/*.pdf$` beats `Disallow: /*.pdf$` by length.
    "/dokumenty/cenik.pdf",
    // `$` anchors the end: with a query neither `.pdf$` rule matches.
    "/soubory/cenik.pdf?v=2",
    "/soubory/cenik.pdf",
    "/soubory/cenik.PDF",
    // `/*?sessionid=` needs the parameter first.
    "/clanky/sport/hokej-praha-vlada-123456?utm_source=rss&sessionid=4f2a9c01be77",
    "/clanky/sport/hokej-praha-vlada-123456?sessionid=4f2a9c01be77",
    // `Disallow: /tmp` is a prefix: it takes /tmpl too.
    "/tmpl/sablona.html",
    "/tmp",
    // Escapes in the logged request: decoded before matching, and the
    // non-UTF-8 octets written back as \xNN in reports.
    "/cz/chat/\\xff\\xfe",
    "/hledani?q=\\\"vanoce\\\"",
    // Absolute-form targets: scheme and host are removed.
    "http://www.example.cz/cz/chat/pokec",
    "https://www.example.cz/clanky/",
    // `/*?razeni=` needs the sort first.
    "/zbozi/mobily/?strana=2&razeni=cena",
    "/zbozi/mobily/?razeni=cena",
    // Always allowed, whatever the rules.
    "/robots.txt",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn page(site: &Site, page: Page) -> String {
        let mut out = Vec::new();
        site.write_page(page, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn pages_are_written_as_paths() {
        let mut rng = Rng::new(3);
        let site = Site::new(&mut rng, 10, 10);
        for (p, want) in [
            (Page::Home, "/"),
            (
                Page::Section {
                    section: 3,
                    page: 0,
                },
                "/clanky/sport/",
            ),
            (
                Page::Section {
                    section: 3,
                    page: 4,
                },
                "/clanky/sport/?strana=4",
            ),
            (
                Page::Category {
                    category: 1,
                    sort: 3,
                    page: 1,
                },
                "/zbozi/mobily/?strana=2&razeni=cena",
            ),
            (Page::Chat(0), "/cz/chat/lobby"),
            (
                Page::Document {
                    doc: 0,
                    public: false,
                },
                "/soubory/cenik.pdf",
            ),
            (Page::Robots, "/robots.txt"),
            (Page::SearchHelp, "/hledani/napoveda"),
        ] {
            assert_eq!(page(&site, p), want);
        }
        let article = page(&site, Page::Article { id: 2, query: 4 });
        assert!(article.starts_with("/clanky/"), "{article}");
        assert!(article.contains("?sessionid="), "{article}");
    }

    #[test]
    fn crawled_pages_stay_on_the_site() {
        let mut rng = Rng::new(9);
        let site = Site::new(&mut rng, 50, 50);
        for _ in 0..1000 {
            let p = page(&site, crawl(&mut rng, &site));
            assert!(p.starts_with('/'), "{p}");
            assert!(!p.contains(' ') && !p.contains('"'), "{p}");
        }
    }
}
