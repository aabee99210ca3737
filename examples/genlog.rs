//! genlog: writes a realistic, deterministic web-server access log for
//! testing and benchmarking robots-audit. Takes a seed, a size and a period;
//! gives Apache/nginx `combined` lines (SPEC §1), plain or gzip, with mostly
//! browser traffic and, among it, every kind of crawler fetch SPEC §2-4
//! judges, steered onto both sides of the rules in `samples/robots.txt`.
//!
//! ```text
//! cargo run --release --example genlog -- [OPTIONS]
//!
//!   --lines N           write N lines (default 10000)
//!   --bytes SIZE        write about SIZE uncompressed bytes instead
//!                       (K, M, G, T = powers of 1024: --bytes 1G)
//!   --seed N            random seed (default 1); same flags, same bytes
//!   --start TIME        first timestamp, RFC 3339 with offset; every line
//!                       carries that offset (default 2026-11-29T00:00:00+01:00)
//!   --span DURATION     period the lines cover: 90s, 15m, 6h, 1d, 2w (default 1d)
//!   --out FILE          write here (default standard output); a name
//!                       ending in .gz implies --gzip
//!   --gzip              compress (one gzip member)
//!   --level N           gzip level 0-9 (default 6); implies --gzip
//!   --out-of-order      let each line overtake up to 16 neighbours, as
//!                       when front-end servers' logs are merged
//!   --ptr-map FILE      write `ADDRESS NAME` pairs for the crawler and
//!                       impostor addresses used (for robots-audit --ptr-map)
//!   --format F          combined (default), common or vhost_combined
//!   --request-time      append nginx's $request_time after the last field
//!   --no-bursts         leave out the SeznamBot bursts that break Request-rate
//!   --crawler-share PCT percent of ordinary lines that are Seznam crawler
//!                       fetches, in place of browser lines (default 1.9,
//!                       at most 93.3)
//!   --off-limits PCT    percent of those fetches aimed at paths
//!                       samples/robots.txt forbids (default 16, at most 94)
//!   --quiet             no summary on standard error
//! ```
//!
//! What the log holds, per 10,000 ordinary lines: about 9,100 browser
//! lines (page views with their assets, referers, 200/304/301/404s), 200
//! from Seznam's crawlers (SeznamBot, FreshBot, SeznamBot-test from
//! 77.75.72.0/21 and 2a02:598::/32, a few logged by host name, a few from
//! Seznam's renderer with a browser user agent), 530 from other bots
//! (Googlebot, bingbot, AhrefsBot, MJ12bot, GPTBot, scripts), 100 from
//! impostors sending Seznam's user agent from other networks, and 30 odd
//! lines (malformed, TLS garbage, `\"` and `\x22` escapes, `OPTIONS *`,
//! `CONNECT`, absolute-form targets). On top come, each day, two SeznamBot
//! bursts: 330 fetches in 50 s at 02:30 UTC (over `Request-rate: 300/1m`)
//! and 130 in 45 s at 10:15 UTC (over `100/1m 0600-2200`). A period that
//! misses both times gets one burst a third of the way in; a log too small
//! to hold its bursts three times over gets none. Every odd kind, every
//! target in `site::EDGE_TARGETS` and every impostor in
//! `actors::TRICK_IMPOSTORS` appears at least once in any log of a few
//! hundred lines or more.
//!
//! Timestamps rise evenly over the span (by lines, or by bytes under
//! `--bytes`), so `--bytes 1G --span 1d` reads like a busy day. Under
//! `--lines` the count is exact; under `--bytes` the size comes within a
//! few kilobytes of the target (bursts are reckoned at 200 bytes a line).
//!
//! `--crawler-share` and `--off-limits` set the violation volume the
//! benches need (issue 10: a crawler-heavy week, 8% Seznam fetches): with
//! many crawler fetches a second, `Crawl-delay` and `Request-rate` rows
//! grow with the share, `disallow` rows with both. The defaults draw exactly
//! the lines drawn before the two flags existed.

#[path = "genlog/actors.rs"]
mod actors;
#[path = "genlog/clock.rs"]
mod clock;
#[path = "genlog/line.rs"]
mod line;
#[path = "genlog/rng.rs"]
mod rng;
#[path = "genlog/sink.rs"]
mod sink;
#[path = "genlog/site.rs"]
mod site;
#[path = "genlog/traffic.rs"]
mod traffic;
#[path = "genlog/vocabulary.rs"]
mod vocabulary;

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clock::Start;
use line::{Format, Layout};
use rng::Rng;
use sink::Sink;
use traffic::{Budget, Mix, Traffic};

const HELP: &str = "\
genlog: write a deterministic web-server access log (Apache/nginx combined)
with browser traffic, Seznam's crawlers, other bots, impostors and odd lines.

Usage: genlog [OPTIONS]

  --lines N           write N lines (default 10000)
  --bytes SIZE        write about SIZE uncompressed bytes instead (1G, 200M, 64K)
  --seed N            random seed (default 1); same flags give the same bytes
  --start TIME        first timestamp, RFC 3339 with offset
                      (default 2026-11-29T00:00:00+01:00)
  --span DURATION     period covered: 90s, 15m, 6h, 1d, 2w (default 1d)
  --out FILE          output file (default standard output); *.gz implies --gzip
  --gzip              gzip the output
  --level N           gzip level 0-9 (default 6); implies --gzip
  --out-of-order      shuffle lines locally (each may overtake up to 16 others)
  --ptr-map FILE      write ADDRESS NAME pairs of crawler and impostor addresses
  --format F          combined (default), common or vhost_combined
  --request-time      append a request time after the last field
  --no-bursts         no SeznamBot bursts over the sample's Request-rate
  --crawler-share PCT percent of ordinary lines that are Seznam crawler
                      fetches, taken from browser lines (default 1.9, max 93.3)
  --off-limits PCT    percent of those aimed at paths samples/robots.txt
                      forbids (default 16, max 94)
  --quiet             no summary on standard error
  -h, --help          this text
";

struct Options {
    budget: Budget,
    seed: u64,
    start: Start,
    span: u64,
    out: Option<PathBuf>,
    level: Option<u32>,
    out_of_order: bool,
    ptr_map: Option<PathBuf>,
    layout: Layout,
    bursts: bool,
    mix: Mix,
    quiet: bool,
}

/// A percentage (`8`, `8%`, `0.25`) as parts of `whole` (10,000 for per
/// million, 100 for per 10,000), at most `max` parts.
fn parse_percent(flag: &str, text: &str, whole: u32, max: u32) -> Result<u32, String> {
    let number = text.strip_suffix('%').unwrap_or(text);
    let parts = number
        .parse::<f64>()
        .ok()
        .filter(|p| p.is_finite() && *p >= 0.0)
        .map(|p| (p * f64::from(whole)).round())
        .ok_or_else(|| format!("{flag}: {text:?} is not a percentage"))?;
    if parts > f64::from(max) {
        return Err(format!(
            "{flag}: {text:?} is over the {}% it can take",
            f64::from(max) / f64::from(whole)
        ));
    }
    Ok(parts as u32)
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        budget: Budget::Lines(10_000),
        seed: 1,
        start: clock::parse_start("2026-11-29T00:00:00+01:00")?,
        span: 86_400,
        out: None,
        level: None,
        out_of_order: false,
        ptr_map: None,
        layout: Layout {
            format: Format::Combined,
            request_time: false,
        },
        bursts: true,
        mix: Mix::DEFAULT,
        quiet: false,
    };
    let mut gzip = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        // Both `--flag value` and `--flag=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--lines" => {
                let v = value()?;
                let n = v
                    .parse()
                    .map_err(|_| format!("--lines: {v:?} is not a count"))?;
                options.budget = Budget::Lines(n);
            }
            "--bytes" => options.budget = Budget::Bytes(clock::parse_size(&value()?)?),
            "--seed" => {
                let v = value()?;
                options.seed = v
                    .parse()
                    .map_err(|_| format!("--seed: {v:?} is not a number"))?;
            }
            "--start" => options.start = clock::parse_start(&value()?)?,
            "--span" => options.span = clock::parse_span(&value()?)?,
            "--out" | "-o" => options.out = Some(PathBuf::from(value()?)),
            "--gzip" => gzip = true,
            "--level" => {
                let v = value()?;
                match v.parse::<u32>() {
                    Ok(level) if level <= 9 => options.level = Some(level),
                    _ => return Err(format!("--level: {v:?} is not 0-9")),
                }
            }
            "--out-of-order" => options.out_of_order = true,
            "--ptr-map" => options.ptr_map = Some(PathBuf::from(value()?)),
            "--format" => {
                let v = value()?;
                options.layout.format = Format::parse(&v).ok_or_else(|| {
                    format!("--format: {v:?} is not combined, common or vhost_combined")
                })?;
            }
            "--request-time" => options.layout.request_time = true,
            "--no-bursts" => options.bursts = false,
            "--crawler-share" => {
                options.mix.seznam_per_million =
                    parse_percent(&flag, &value()?, 10_000, Mix::MAX_SEZNAM_PER_MILLION)?;
            }
            "--off-limits" => {
                options.mix.off_limits_per_10k =
                    parse_percent(&flag, &value()?, 100, site::MAX_OFF_LIMITS_PER_10K)?;
            }
            "--quiet" | "-q" => options.quiet = true,
            _ => return Err(format!("unknown argument {arg:?} (see --help)")),
        }
        if inline.is_some()
            && matches!(
                flag.as_str(),
                "--gzip" | "--out-of-order" | "--no-bursts" | "--quiet" | "--request-time"
            )
        {
            return Err(format!("{flag} takes no value"));
        }
    }
    let named_gz = options
        .out
        .as_ref()
        .is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")));
    if (gzip || named_gz) && options.level.is_none() {
        options.level = Some(6);
    }
    Ok(Some(options))
}

fn create(path: &PathBuf) -> Result<File, String> {
    File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))
}

fn run(options: Options) -> Result<(), String> {
    let began = Instant::now();
    let file: Box<dyn Write + Send> = match &options.out {
        Some(path) if path.as_os_str() != "-" => Box::new(create(path)?),
        _ => Box::new(io::stdout()),
    };
    let mut rng = Rng::new(options.seed);
    // Drawn whether or not it is used, so that --out-of-order changes the
    // order of the lines and nothing else.
    let shuffle = rng.split();
    let mut traffic = Traffic::new(
        rng,
        options.start,
        options.span,
        options.budget,
        options.layout,
        options.bursts,
        options.mix,
    );
    let mut sink = Sink::new(file, options.level, options.out_of_order.then_some(shuffle));
    let what = |e: io::Error| format!("cannot write the log: {e}");
    let lines = traffic.generate(|line| sink.push(line)).map_err(what)?;
    let bytes = sink.finish().map_err(what)?;
    if let Some(path) = &options.ptr_map {
        let mut map = io::BufWriter::new(create(path)?);
        actors::write_ptr_map(&mut map, traffic.pools(), options.seed)
            .and_then(|()| map.flush())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if !options.quiet {
        let secs = began.elapsed().as_secs_f64();
        eprintln!(
            "genlog: {lines} lines, {bytes} bytes uncompressed in {secs:.2} s ({:.0} MB/s)",
            bytes as f64 / 1e6 / secs.max(1e-9)
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(None) => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Ok(Some(options)) => match run(options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("genlog: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("genlog: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Option<Options>, String> {
        parse_args(s.split_whitespace().map(String::from))
    }

    #[test]
    fn flags_are_read() {
        let o = args("--bytes 1G --seed=7 --span 6h --out x.log.gz --out-of-order")
            .unwrap()
            .unwrap();
        assert!(matches!(o.budget, Budget::Bytes(1_073_741_824)));
        assert_eq!(
            (o.seed, o.span, o.level, o.out_of_order),
            (7, 21_600, Some(6), true)
        );
        let o = args("--lines 5 --level 1 --format common")
            .unwrap()
            .unwrap();
        assert!(matches!(o.budget, Budget::Lines(5)));
        assert_eq!(o.level, Some(1));
        assert_eq!(o.layout.format, Format::Common);
        assert!(args("--help").unwrap().is_none());
        let o = args("--crawler-share 8 --off-limits=2.5%")
            .unwrap()
            .unwrap();
        assert_eq!(o.mix.seznam_per_million, 80_000);
        assert_eq!(o.mix.off_limits_per_10k, 250);
        assert_eq!(args("").unwrap().unwrap().mix, Mix::DEFAULT);
        for bad in [
            "--lines",
            "--lines x",
            "--level 10",
            "--span 1y",
            "--what",
            "--gzip=1",
            "--crawler-share 94",
            "--crawler-share -1",
            "--crawler-share x",
            "--off-limits 95",
            "--off-limits NaN",
        ] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }
}
