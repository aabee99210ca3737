//! SPEC §5's bound on hostile robots.txt files: no target makes wildcard
//! rules cost more than 20 times what as many literal rules cost. A
//! 500 KiB robots.txt of 20,000 wildcard rules (`Disallow: /*x00042*zz`)
//! is judged against targets that hold hundreds of their pieces, then the
//! same targets against 20,000 literal rules (`Disallow: /x00042zz`); the
//! ratio of the times per verdict is printed. Then pieces that end one
//! another: 900 rules `Disallow: /*a…a*b` (`a` once to 900 times) against
//! targets of `/` and 1,000 `a`s, where each new state of the pass reports
//! every shorter run of `a`s, and the same as 900 literal rules
//! (`Disallow: /a…ab`), with the other families SPEC §5's bound was
//! measured on: rules that share their first pieces, a narrow tree of
//! one-letter pieces against random text, runs of one letter. Inputs are
//! generated here, from a fixed seed. Run: `cargo bench --bench wildcard`.

use std::hint::black_box;
use std::time::Instant;

use robots_audit::robots::Robots;

const RULES: usize = 20_000;

/// A small deterministic generator (xorshift64*), so runs compare.
struct Seed(u64);

impl Seed {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}

fn robots(wildcard: bool) -> Vec<u8> {
    let mut text = String::from("User-agent: *\n");
    for i in 0..RULES {
        if wildcard {
            text.push_str(&format!("Disallow: /*x{i:05}*zz\n"));
        } else {
            text.push_str(&format!("Disallow: /x{i:05}zz\n"));
        }
    }
    text.into_bytes()
}

/// Targets of `pieces` rule pieces each: `zz` before them (every rule
/// fails late), after them (the first matches), or nowhere.
fn targets(seed: &mut Seed, count: usize, pieces: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|n| {
            let body: String = (0..pieces)
                .map(|_| format!("x{:05}", seed.below(RULES)))
                .collect();
            match n % 3 {
                0 => format!("/zz{body}"),
                1 => format!("/{body}zz"),
                _ => format!("/{body}"),
            }
            .into_bytes()
        })
        .collect()
}

/// Nanoseconds per verdict over `rounds` passes.
fn time(robots: &Robots, targets: &[Vec<u8>], rounds: usize) -> f64 {
    let rules = robots.rules_for(b"SeznamBot");
    let started = Instant::now();
    let mut disallowed = 0usize;
    for _ in 0..rounds {
        for target in targets {
            disallowed += usize::from(!black_box(rules.judge(black_box(target))).allowed);
        }
    }
    black_box(disallowed);
    started.elapsed().as_nanos() as f64 / (rounds * targets.len()) as f64
}

/// Medians of five alternating rounds, wildcard then literal, per verdict.
fn compare(wild: &Robots, literal: &Robots, targets: &[Vec<u8>], rounds: usize) -> (f64, f64) {
    time(wild, targets, 1);
    time(literal, targets, 1);
    let mut w = Vec::new();
    let mut l = Vec::new();
    for _ in 0..5 {
        w.push(time(wild, targets, rounds));
        l.push(time(literal, targets, rounds));
    }
    w.sort_by(f64::total_cmp);
    l.sort_by(f64::total_cmp);
    (w[2], l[2])
}

/// The `k`th rule's text after `/*`.
type Piece = fn(usize) -> String;

/// 900 rules whose pieces end one another, `/*` then `piece(k)` for `k`
/// from 1 to 900, as wildcard rules, or as literal rules without the `*`s.
fn runs_of(piece: impl Fn(usize) -> String, wildcard: bool) -> Vec<u8> {
    let mut text = String::from("User-agent: *\n");
    for k in 1..=900 {
        let piece = piece(k);
        if wildcard {
            text.push_str(&format!("Disallow: /*{piece}\n"));
        } else {
            text.push_str(&format!("Disallow: /{}\n", piece.replace('*', "")));
        }
    }
    text.into_bytes()
}

fn main() {
    let wild_text = robots(true);
    let literal_text = robots(false);
    println!(
        "robots.txt: {} bytes of wildcard rules, {} bytes of literal rules",
        wild_text.len(),
        literal_text.len()
    );
    let started = Instant::now();
    let wild = Robots::new(&wild_text);
    wild.rules_for(b"SeznamBot");
    println!("compile 20,000 wildcard rules: {:?}", started.elapsed());
    let literal = Robots::new(&literal_text);
    let mut seed = Seed(0x5EED_CAFE_F00D_BEEF);
    println!(
        "{:>8} {:>10} {:>14} {:>14} {:>8}",
        "pieces", "bytes", "wildcard ns", "literal ns", "ratio"
    );
    for pieces in [10, 100, 300, 1000] {
        let targets = targets(&mut seed, 300, pieces);
        let rounds = (30_000 / pieces).max(3);
        let (w, l) = compare(&wild, &literal, &targets, rounds);
        println!(
            "{pieces:>8} {:>10} {w:>14.0} {l:>14.0} {:>7.1}x",
            targets[0].len(),
            w / l
        );
    }

    let cases: [(&str, Piece, usize); 4] = [
        // Short overlapping waits: each `aa` may take the next but one.
        (
            "/*aa*aa*…(32 times)*cN",
            |k| format!("{}*c{k}", ["aa"; 32].join("*")),
            8000,
        ),
        ("/*a…a*b", |k| format!("{}*b", "a".repeat(k)), 1000),
        ("/*a…a*a…a", |k| format!("{a}*{a}", a = "a".repeat(k)), 2000),
        (
            "/*a…ab*a…a",
            |k| format!("{a}b*{a}", a = "a".repeat(k)),
            1000,
        ),
    ];
    // Rules that share their first pieces: every target holding them
    // moves all 20,000 patterns.
    let shared = |wildcard: bool| {
        let mut text = String::from("User-agent: *\n");
        for i in 0..RULES {
            if wildcard {
                text.push_str(&format!("Disallow: /*.php*sid*x{i:05}\n"));
            } else {
                text.push_str(&format!("Disallow: /.phpsidx{i:05}\n"));
            }
        }
        text.into_bytes()
    };
    let wild = Robots::new(&shared(true));
    let literal = Robots::new(&shared(false));
    let targets: Vec<Vec<u8>> = ["/a.php?sid=1", "/index.php?sid=2&q=x00042", "/a.php"]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
    let (w, l) = compare(&wild, &literal, &targets, 20);
    println!(
        "20,000 rules /*.php*sid*xNNNNN, short targets: wildcard {w:.0} ns, literal {l:.0} ns, {:.1}x",
        w / l
    );
    // A narrow tree of one-letter pieces: every path of three of sixteen
    // letters, then a piece of nine that random text hardly holds; random
    // text reaches every node, and each node's move used to wake every
    // state that reports its letter.
    let letters = b"abcdefghijklmnop";
    let mut seed = Seed(0x0DDB_A11C_AFE5_EED5);
    let word = |n: usize, seed: &mut Seed| -> String {
        (0..n)
            .map(|_| char::from(letters[seed.below(letters.len())]))
            .collect()
    };
    let mut wild_text = String::from("User-agent: *\n");
    let mut literal_text = String::from("User-agent: *\n");
    for path in 0..4096 {
        let [x, y, z] = [path >> 8, (path >> 4) & 15, path & 15].map(|i| char::from(letters[i]));
        let end = word(9, &mut seed);
        wild_text.push_str(&format!("Disallow: /*{x}*{y}*{z}*{end}\n"));
        literal_text.push_str(&format!("Disallow: /{x}{y}{z}{end}\n"));
    }
    let wild = Robots::new(wild_text.as_bytes());
    let literal = Robots::new(literal_text.as_bytes());
    let targets: Vec<Vec<u8>> = (0..3)
        .map(|_| format!("/{}", word(8000, &mut seed)).into_bytes())
        .collect();
    let (w, l) = compare(&wild, &literal, &targets, 5);
    println!(
        "4,096 rules /*x*y*z*(9 letters), random targets of 8,000 letters: wildcard {w:.0} ns, literal {l:.0} ns, {:.1}x",
        w / l
    );
    for (name, piece, len) in cases {
        let wild = Robots::new(&runs_of(piece, true));
        let literal = Robots::new(&runs_of(piece, false));
        let targets: Vec<Vec<u8>> = [len, len - 1, len / 2]
            .iter()
            .map(|&n| format!("/{}", "a".repeat(n)).into_bytes())
            .collect();
        let (w, l) = compare(&wild, &literal, &targets, 20);
        println!(
            "900 rules {name}, targets /a…a: wildcard {w:.0} ns, literal {l:.0} ns, {:.1}x",
            w / l
        );
    }
}
