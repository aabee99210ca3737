//! SPEC §5's bound on hostile robots.txt files: no target makes wildcard
//! rules cost more than 20 times what as many literal rules cost. A
//! 500 KiB robots.txt of 20,000 wildcard rules (`Disallow: /*x00042*zz`)
//! is judged against targets that hold hundreds of their pieces, then the
//! same targets against 20,000 literal rules (`Disallow: /x00042zz`); the
//! ratio of the times per verdict is printed. Inputs are generated here,
//! from a fixed seed. Run: `cargo bench --bench wildcard`.

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
        // Warm both, then alternate and keep the medians.
        time(&wild, &targets, 1);
        time(&literal, &targets, 1);
        let mut w = Vec::new();
        let mut l = Vec::new();
        for _ in 0..5 {
            w.push(time(&wild, &targets, rounds));
            l.push(time(&literal, &targets, rounds));
        }
        w.sort_by(f64::total_cmp);
        l.sort_by(f64::total_cmp);
        let (w, l) = (w[2], l[2]);
        println!(
            "{pieces:>8} {:>10} {w:>14.0} {l:>14.0} {:>7.1}x",
            targets[0].len(),
            w / l
        );
    }
}
