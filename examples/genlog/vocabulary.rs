//! The words of the made-up site and the user agents of its visitors:
//! section and product names, paths scanners probe, browsers', bots' and
//! Seznam's user agents (SPEC §2 table), referers. Data only.

pub const SECTIONS: &[&str] = &[
    "zpravy",
    "domaci",
    "zahranici",
    "sport",
    "ekonomika",
    "kultura",
    "auto",
    "bydleni",
    "cestovani",
    "zdravi",
    "veda",
    "technologie",
];

pub const CATEGORIES: &[&str] = &[
    "elektronika",
    "mobily",
    "notebooky",
    "televize",
    "domacnost",
    "zahrada",
    "hracky",
    "knihy",
    "obleceni",
    "boty",
    "sport",
    "kosmetika",
];

pub const WORDS: &[&str] = &[
    "praha",
    "brno",
    "ostrava",
    "plzen",
    "vlada",
    "volby",
    "pocasi",
    "zima",
    "snih",
    "hokej",
    "fotbal",
    "tenis",
    "ceny",
    "energie",
    "inflace",
    "banka",
    "hypoteky",
    "byty",
    "recept",
    "vanoce",
    "advent",
    "trhy",
    "koncert",
    "divadlo",
    "film",
    "kniha",
    "vystava",
    "elektromobil",
    "dalnice",
    "vlak",
    "letiste",
    "dovolena",
    "hory",
    "more",
    "chripka",
    "lekar",
    "nemocnice",
    "vyzkum",
    "vesmir",
    "telefon",
    "pocitac",
    "umela",
    "inteligence",
    "skola",
    "maturita",
    "univerzita",
    "kava",
    "cokolada",
    "darky",
    "slevy",
    "nakupy",
    "hrad",
    "zamek",
    "reka",
    "les",
    "tramvaj",
    "metro",
];

/// Words with Czech letters, percent-encoded as browsers send them; the
/// last is in lower-case hex, which RFC 9309 §2.2.2 normalisation must
/// treat as the same octets.
pub const ACCENTED: &[&str] = &[
    "%C4%8Desko",
    "%C5%A1kola",
    "%C5%BEivot",
    "p%C5%99%C3%ADroda",
    "z%C3%A1jezd",
    "%c5%a1est-d%c3%adl%c5%af",
];

pub const CHAT_ROOMS: &[&str] = &["lobby", "sport", "auto", "pokec", "seznamka", "poradna"];

pub const DOCUMENTS: &[&str] = &[
    "cenik",
    "obchodni-podminky",
    "reklamacni-rad",
    "vyrocni-zprava-2025",
    "navod-k-obsluze",
];

pub const INFO: &[&str] = &[
    "/kontakt",
    "/o-nas",
    "/obchodni-podminky",
    "/kariera",
    "/reklama",
    "/ochrana-osobnich-udaju",
];

/// What scanners and broken links ask for; the site answers 404 or 403.
pub const MISSING: &[&str] = &[
    "/wp-login.php",
    "/.env",
    "/.git/config",
    "/xmlrpc.php",
    "/phpmyadmin/index.php",
    "/wp-content/plugins/",
    "/cgi-bin/luci",
    "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php",
    "/server-status",
    "/clanky/sport/stary-clanek-100001",
    "/apple-app-site-association",
    "/ads.txt",
];

pub const BROWSERS: &[&str] = &[
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:145.0) Gecko/20100101 Firefox/145.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36 Edg/142.0.0.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) SznProhlizec/13.2.1 Chrome/140.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/28.0 Chrome/130.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 26_1_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:145.0) Gecko/20100101 Firefox/145.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Android 15; Mobile; rv:145.0) Gecko/145.0 Firefox/145.0",
    "Mozilla/5.0 (iPad; CPU OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:145.0) Gecko/20100101 Firefox/145.0",
    "Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36 OPR/124.0.0.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/142.0.7444.77 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:144.0) Gecko/20100101 Firefox/144.0",
    "Mozilla/5.0 (Linux; Android 12; M2101K6G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Linux; Android 14; SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile Safari/537.36 Seznam.cz/7.14",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
];

/// Where a visitor came from when landing on a page (`-` most often).
pub const LANDING_REFERERS: &[&str] = &[
    "-",
    "-",
    "-",
    "https://www.seznam.cz/",
    "https://www.seznam.cz/",
    "https://search.seznam.cz/?q=zpravy+dnes",
    "https://www.google.com/",
    "https://www.google.cz/",
    "https://www.facebook.com/",
    "https://l.facebook.com/",
    "android-app://com.google.android.gm/",
    "https://www.bing.com/",
    "https://duckduckgo.com/",
    "https://t.co/",
    "https://www.novinky.cz/",
];

pub const SEZNAMBOT_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";

pub const FRESHBOT_UA: &str =
    "Mozilla/5.0 (compatible; FreshBot/1.0; +http://napoveda.seznam.cz/seznambot-intro/)";

pub const SEZNAMBOT_TEST_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/3.2-test4; +http://napoveda.seznam.cz/en/seznambot-intro/)";

/// What Seznam's page renderer sends: a plain browser user agent, so only
/// the address's PTR name tells it is SeznamBot (SPEC §2, `ptr`).
pub const RENDERER_UA: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

pub const GOOGLEBOT_UAS: &[&str] = &[
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.7444.59 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Googlebot-Image/1.0",
];

pub const BINGBOT_UA: &str =
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";

pub const AHREFSBOT_UA: &str = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";

pub const MJ12BOT_UA: &str = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";

pub const GPTBOT_UA: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";

pub const SCRIPT_UAS: &[&str] = &[
    "curl/8.5.0",
    "python-requests/2.32.3",
    "Go-http-client/1.1",
    "Wget/1.21.4",
    "-",
];

/// User agents impostors send: mostly Seznam's own, byte for byte.
pub const IMPOSTOR_UAS: &[&str] = &[
    SEZNAMBOT_UA,
    SEZNAMBOT_UA,
    SEZNAMBOT_UA,
    SEZNAMBOT_UA,
    SEZNAMBOT_UA,
    FRESHBOT_UA,
    SEZNAMBOT_TEST_UA,
    "SeznamBot/4.0",
    "Mozilla/5.0 (compatible; seznambot/4.0)",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_but_seznam_names_seznam_crawlers() {
        let quiet = BROWSERS
            .iter()
            .chain(GOOGLEBOT_UAS)
            .chain(SCRIPT_UAS)
            .chain([
                &RENDERER_UA,
                &BINGBOT_UA,
                &AHREFSBOT_UA,
                &MJ12BOT_UA,
                &GPTBOT_UA,
            ]);
        for ua in quiet {
            let lower = ua.to_ascii_lowercase();
            assert!(
                !lower.contains("seznambot") && !lower.contains("freshbot"),
                "{ua}"
            );
        }
    }
}
