//! Verdicts per second of the compiled robots.txt matcher on a realistic
//! ~200-rule file with wildcards and realistic targets, against trying every
//! rule in precedence order (the simple baseline). Inputs are generated here,
//! from a fixed seed. Run: `cargo bench --bench matcher`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use robots_audit::robots::Robots;

/// A small deterministic generator (xorshift64*), so runs compare.
struct Seed(u64);

impl Seed {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const SECTIONS: &[&str] = &[
    "cz",
    "en",
    "de",
    "sk",
    "zpravy",
    "sport",
    "auto",
    "bydleni",
    "cestovani",
    "finance",
    "kultura",
    "zdravi",
    "technika",
    "recepty",
    "hry",
    "video",
    "foto",
    "blog",
    "forum",
    "shop",
];
const PAGES: &[&str] = &[
    "chat",
    "profil",
    "hledat",
    "kosik",
    "objednavka",
    "admin",
    "login",
    "registrace",
    "tisk",
    "archiv",
    "tagy",
    "komentare",
    "galerie",
    "clanek",
    "kategorie",
    "export",
    "api",
    "feed",
];
const PARAMS: &[&str] = &[
    "sort",
    "page",
    "q",
    "utm_source",
    "sessionid",
    "filter",
    "lang",
    "print",
    "ref",
    "id",
];
const EXTENSIONS: &[&str] = &["html", "php", "pdf", "jpg", "xml", "json", "asp", "doc"];

fn robots_txt(seed: &mut Seed) -> String {
    let mut text = String::from("User-agent: *\nDisallow: /admin/\nDisallow: /*?sessionid=\n\n");
    text.push_str("User-agent: SeznamBot\nRequest-rate: 300/1m\nCrawl-delay: 0.5\n");
    for &section in SECTIONS {
        for _ in 0..9 {
            let rule = match seed.below(9) {
                0 => format!("Disallow: /{section}/{}/", seed.pick(PAGES)),
                1 => format!("Allow: /{section}/{}/", seed.pick(PAGES)),
                2 => format!("Disallow: /{section}/*?{}=", seed.pick(PARAMS)),
                3 => format!("Disallow: /{section}/*.{}$", seed.pick(EXTENSIONS)),
                4 => format!("Allow: /{section}/{}/*.html$", seed.pick(PAGES)),
                5 => format!("Disallow: /{section}/{}", seed.pick(PAGES)),
                6 => format!("Disallow: /*/{}/*/{}", seed.pick(PAGES), seed.pick(PAGES)),
                7 => format!(
                    "Disallow: /{section}/*{}*{}",
                    seed.pick(PAGES),
                    seed.pick(PARAMS)
                ),
                _ => format!("Allow: /{section}/{}$", seed.pick(PAGES)),
            };
            text.push_str(&rule);
            text.push('\n');
        }
    }
    for param in PARAMS {
        text.push_str(&format!("Disallow: /*?*{param}=\n"));
    }
    text.push_str("Disallow: /*.pdf$\nAllow: /\n");
    text
}

fn target(seed: &mut Seed) -> String {
    let mut path = format!("/{}", seed.pick(SECTIONS));
    for _ in 0..seed.below(4) {
        path.push('/');
        path.push_str(seed.pick(PAGES));
    }
    match seed.below(4) {
        0 => path.push('/'),
        1 => path.push_str(&format!(
            "/{}.{}",
            seed.next() % 100_000,
            seed.pick(EXTENSIONS)
        )),
        _ => path.push_str(&format!("/{}-{}", seed.pick(PAGES), seed.next() % 1000)),
    }
    if seed.below(3) == 0 {
        path.push_str(&format!("?{}={}", seed.pick(PARAMS), seed.next() % 100));
        if seed.below(2) == 0 {
            path.push_str(&format!("&{}=x", seed.pick(PARAMS)));
        }
    }
    if seed.below(20) == 0 {
        path.push_str("/%c5%a1koda");
    }
    path
}

/// Runs `judge` over every target until at least `budget` has passed;
/// gives verdicts per second.
fn measure(targets: &[String], budget: Duration, judge: impl Fn(&[u8]) -> bool) -> f64 {
    let start = Instant::now();
    let mut verdicts = 0usize;
    while start.elapsed() < budget {
        for target in targets {
            black_box(judge(black_box(target.as_bytes())));
        }
        verdicts += targets.len();
    }
    verdicts as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let mut seed = Seed(0x5EED_2026_0B07_5EED);
    let text = robots_txt(&mut seed);
    let targets: Vec<String> = (0..20_000).map(|_| target(&mut seed)).collect();
    let robots = Robots::new(text.as_bytes());
    let compile_start = Instant::now();
    let rules = robots.rules_for(b"SeznamBot");
    let compile_time = compile_start.elapsed();

    for target in &targets {
        assert_eq!(
            rules.judge(target.as_bytes()),
            rules.judge_by_scan(target.as_bytes()),
            "{target}"
        );
    }

    let disallowed = targets
        .iter()
        .filter(|t| !rules.judge(t.as_bytes()).allowed)
        .count();
    let budget = Duration::from_secs(2);
    let compiled = measure(&targets, budget, |t| rules.judge(t).allowed);
    let scan = measure(&targets, budget, |t| rules.judge_by_scan(t).allowed);
    println!(
        "robots.txt: {} rules for SeznamBot, compiled in {:.1} µs",
        rules.rules().len(),
        compile_time.as_secs_f64() * 1e6
    );
    println!(
        "targets: {} generated, {:.0}% disallowed",
        targets.len(),
        100.0 * disallowed as f64 / targets.len() as f64
    );
    println!("compiled trie matcher: {compiled:>12.0} verdicts/s");
    println!("linear scan baseline:  {scan:>12.0} verdicts/s");
    println!("speed-up: {:.1}x", compiled / scan);
}
