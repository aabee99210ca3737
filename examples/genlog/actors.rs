//! Who fetches from the made-up site: takes a random source, gives pools of
//! client addresses (browsers, Seznam's crawlers, other bots, impostors) with
//! the reverse-DNS names a resolver would return, and writes those names as
//! a `--ptr-map` file (SPEC §1 "Address → name", §2 PTR patterns).

use std::collections::HashSet;
use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::rng::Rng;

/// A client address and what reverse DNS says of it.
#[derive(Debug, Clone)]
pub struct Host {
    pub addr: IpAddr,
    /// The address as logged (`%h`): RFC 5952 text for IPv6.
    pub text: String,
    /// The PTR name, if the address has one.
    pub ptr: Option<String>,
    /// False for the few impostors whose names the map leaves out, so that
    /// their fetches stay `unverified` (SPEC §2).
    pub mapped: bool,
    /// Set once a line logs this address, so the map lists only those.
    pub used: bool,
}

impl Host {
    fn new(addr: IpAddr, ptr: Option<String>) -> Host {
        Host {
            addr,
            text: addr.to_string(),
            ptr,
            mapped: true,
            used: false,
        }
    }
}

/// Seznam's crawlers, as SPEC §2 tells them apart by PTR name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seznam {
    Bot,
    Fresh,
    Test,
}

impl Seznam {
    fn ptr_prefix(self) -> &'static str {
        match self {
            Seznam::Bot => "fulltextrobot-",
            Seznam::Fresh => "fulltextrobot-fresh-",
            Seznam::Test => "fulltextrobot-test-",
        }
    }
}

/// The `<address>` part of a Seznam PTR name: dots or colons become dashes,
/// so `::` becomes `--` (SPEC §2).
pub fn dashed(addr: IpAddr) -> String {
    addr.to_string().replace(['.', ':'], "-")
}

/// A browser: one address and one user agent for all its visits.
#[derive(Debug, Clone)]
pub struct Visitor {
    pub client: String,
    pub agent: u16,
}

pub struct Pools {
    pub visitors: Vec<Visitor>,
    pub seznam_bot: Vec<Host>,
    pub seznam_fresh: Vec<Host>,
    pub seznam_test: Vec<Host>,
    pub googlebot: Vec<Host>,
    pub bingbot: Vec<Host>,
    pub ahrefsbot: Vec<Host>,
    pub mj12bot: Vec<Host>,
    pub gptbot: Vec<Host>,
    pub scripts: Vec<Host>,
    pub impostors: Vec<Host>,
}

/// Seznam's networks: a browser or impostor must never be drawn from them.
fn is_seznam(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            o[0] == 77 && o[1] == 75 && (72..80).contains(&o[2])
        }
        IpAddr::V6(v6) => v6.segments()[0] == 0x2a02 && v6.segments()[1] == 0x0598,
    }
}

/// Networks browsers come from: Czech access providers. IPv4 rows are the
/// first two octets and a range of the third.
const VISITOR_V4: &[[u8; 4]] = &[
    [78, 80, 0, 255],
    [89, 24, 0, 255],
    [46, 135, 0, 255],
    [37, 188, 0, 255],
    [109, 80, 0, 255],
    [90, 176, 0, 255],
    [88, 146, 0, 255],
    [213, 211, 0, 255],
    [185, 62, 0, 255],
    [93, 99, 0, 255],
    [194, 228, 0, 255],
    [62, 24, 0, 255],
    [31, 30, 0, 255],
    [94, 112, 0, 255],
];
const VISITOR_V6: &[[u16; 2]] = &[
    [0x2a00, 0x1028],
    [0x2001, 0x718],
    [0x2a02, 0x8308],
    [0x2a01, 0x510],
];
/// Hosting networks scripts and impostors rent from.
const HOSTING_V4: &[[u8; 4]] = &[
    [45, 133, 0, 255],
    [185, 220, 0, 255],
    [193, 32, 0, 255],
    [103, 152, 0, 255],
    [5, 188, 0, 255],
    [51, 15, 0, 255],
    [138, 68, 0, 255],
    [167, 99, 0, 255],
    [104, 248, 0, 255],
    [194, 58, 0, 255],
    [47, 128, 0, 255],
    [212, 102, 0, 255],
];

struct Draw<'a> {
    rng: &'a mut Rng,
    seen: HashSet<IpAddr>,
}

impl Draw<'_> {
    /// A fresh address from `make`, never one drawn before or Seznam's
    /// unless `seznam` says it must be.
    fn unique(&mut self, seznam: bool, make: impl Fn(&mut Rng) -> IpAddr) -> IpAddr {
        loop {
            let addr = make(self.rng);
            if is_seznam(addr) == seznam && self.seen.insert(addr) {
                return addr;
            }
        }
    }

    fn v4(&mut self, prefixes: &[[u8; 4]]) -> IpAddr {
        self.unique(false, |rng| {
            let p = rng.pick(prefixes);
            IpAddr::V4(Ipv4Addr::new(
                p[0],
                p[1],
                rng.between(u64::from(p[2]), u64::from(p[3])) as u8,
                rng.between(1, 254) as u8,
            ))
        })
    }

    fn v6(&mut self, prefixes: &[[u16; 2]]) -> IpAddr {
        self.unique(false, |rng| {
            let p = rng.pick(prefixes);
            let r = rng.next_u64();
            IpAddr::V6(Ipv6Addr::new(
                p[0],
                p[1],
                rng.below(0x1000) as u16,
                rng.below(0x100) as u16,
                (r >> 48) as u16,
                (r >> 32) as u16,
                (r >> 16) as u16,
                r as u16,
            ))
        })
    }

    fn seznam(&mut self, kind: Seznam, v6: bool) -> Host {
        let addr = self.unique(true, |rng| {
            if v6 {
                let s = match kind {
                    Seznam::Bot if rng.chance(5000) => [0x64, 0x8a00, 0, 0, 0x3100],
                    Seznam::Bot => [0xa, 0, 0, 0, 0x78],
                    Seznam::Fresh => [0xa, 0, 0, 0, 0x79],
                    Seznam::Test => [0x2, 0, 0, 0, 0x100],
                };
                IpAddr::V6(Ipv6Addr::new(
                    0x2a02,
                    0x598,
                    s[0],
                    s[1],
                    s[2],
                    s[3],
                    s[4],
                    rng.below(0x100) as u16,
                ))
            } else {
                let third = match kind {
                    Seznam::Bot => rng.pick(&[74u8, 77, 78, 79]),
                    Seznam::Fresh => rng.pick(&[72u8, 76]),
                    Seznam::Test => 73,
                };
                IpAddr::V4(Ipv4Addr::new(77, 75, third, rng.between(1, 254) as u8))
            }
        });
        Host::new(
            addr,
            Some(format!("{}{}.seznam.cz", kind.ptr_prefix(), dashed(addr))),
        )
    }

    fn named_v4(&mut self, prefixes: &[[u8; 4]], name: impl Fn(Ipv4Addr) -> String) -> Host {
        let addr = self.v4(prefixes);
        let ptr = match addr {
            IpAddr::V4(v4) => Some(name(v4)),
            IpAddr::V6(_) => None,
        };
        Host::new(addr, ptr)
    }
}

impl Pools {
    /// The pool of one of Seznam's crawlers.
    pub fn seznam_mut(&mut self, kind: Seznam) -> &mut Vec<Host> {
        match kind {
            Seznam::Bot => &mut self.seznam_bot,
            Seznam::Fresh => &mut self.seznam_fresh,
            Seznam::Test => &mut self.seznam_test,
        }
    }
}

fn dashes(v4: Ipv4Addr) -> String {
    let o = v4.octets();
    format!("{}-{}-{}-{}", o[0], o[1], o[2], o[3])
}

impl Pools {
    pub fn new(rng: &mut Rng, visitors: usize) -> Pools {
        let mut draw = Draw {
            rng,
            seen: HashSet::new(),
        };
        let mut pools = Pools {
            visitors: Vec::with_capacity(visitors),
            seznam_bot: Vec::new(),
            seznam_fresh: Vec::new(),
            seznam_test: Vec::new(),
            googlebot: Vec::new(),
            bingbot: Vec::new(),
            ahrefsbot: Vec::new(),
            mj12bot: Vec::new(),
            gptbot: Vec::new(),
            scripts: Vec::new(),
            impostors: Vec::new(),
        };
        for i in 0..visitors {
            let v6 = draw.rng.chance(1800);
            let addr = if v6 {
                draw.v6(VISITOR_V6)
            } else {
                draw.v4(VISITOR_V4)
            };
            // A few front ends log names (HostnameLookups On).
            let client = match addr {
                IpAddr::V4(v4) if i % 97 == 13 => format!("{}.static.example-isp.cz", dashes(v4)),
                _ => addr.to_string(),
            };
            let agent = draw.rng.skewed(crate::vocabulary::BROWSERS.len()) as u16;
            pools.visitors.push(Visitor { client, agent });
        }
        for (kind, v4, v6, pool) in [
            (Seznam::Bot, 48, 12, &mut pools.seznam_bot),
            (Seznam::Fresh, 16, 4, &mut pools.seznam_fresh),
            (Seznam::Test, 4, 2, &mut pools.seznam_test),
        ] {
            for i in 0..v4 + v6 {
                pool.push(draw.seznam(kind, i >= v4));
            }
        }
        for _ in 0..30 {
            let host = draw.named_v4(&[[66, 249, 64, 95]], |a| {
                format!("crawl-{}.googlebot.com", dashes(a))
            });
            pools.googlebot.push(host);
        }
        for _ in 0..20 {
            let host = draw.named_v4(
                &[[157, 55, 39, 39], [40, 77, 167, 167], [207, 46, 13, 13]],
                |a| format!("msnbot-{}.search.msn.com", dashes(a)),
            );
            pools.bingbot.push(host);
        }
        for _ in 0..10 {
            let host = draw.named_v4(&[[54, 36, 148, 149], [5, 39, 1, 1]], |a| {
                format!("ip-{}.a.ahrefs.com", dashes(a))
            });
            pools.ahrefsbot.push(host);
        }
        for _ in 0..6 {
            let addr = draw.v4(HOSTING_V4);
            pools.mj12bot.push(Host::new(addr, None));
        }
        for _ in 0..6 {
            let addr = draw.v4(&[[20, 171, 206, 207]]);
            pools.gptbot.push(Host::new(addr, None));
        }
        for _ in 0..12 {
            let addr = draw.v4(HOSTING_V4);
            pools.scripts.push(Host::new(addr, None));
        }
        pools.impostors = impostors(&mut draw, &pools.seznam_bot);
        pools
    }
}

/// The impostor logged by its host name rather than its address.
pub const NAMED_IMPOSTOR: usize = 1;

/// The impostors that each show one trick of `impostors`, and one whose
/// name the map leaves out: every log shows each of them at least once.
pub const TRICK_IMPOSTORS: &[usize] = &[0, 1, 2, 3, 4, 5, 6, 9];

/// Addresses that send Seznam's user agent without being Seznam. Their
/// names cover the tricks SPEC §2 must see through: a Seznam-looking name
/// with a different address in it, a Seznam-looking name under another
/// domain, another crawler's name, a plain hosting name, and no name at all.
/// One sets its own PTR to the exact Seznam pattern: without forward
/// confirmation (`--resolve`) it can only come out `ptr-only`.
fn impostors(draw: &mut Draw<'_>, genuine: &[Host]) -> Vec<Host> {
    let mut out = Vec::new();
    for i in 0..40u32 {
        let v6 = i % 8 == 0;
        let addr = if v6 {
            draw.v6(&[[0x2a01, 0x4f8], [0x2001, 0x41d0]])
        } else if i == 5 {
            // Next door to Seznam's /21, but not in it.
            draw.unique(false, |rng| {
                IpAddr::V4(Ipv4Addr::new(77, 75, 80, rng.between(1, 254) as u8))
            })
        } else {
            draw.v4(HOSTING_V4)
        };
        let own = dashed(addr);
        let ptr = match i {
            1 => format!("fulltextrobot-{own}.seznam.cz.crawl.example.net"),
            2 => {
                let other = genuine.get(3).map_or(own.clone(), |h| dashed(h.addr));
                format!("fulltextrobot-{other}.seznam.cz")
            }
            3 => format!("fulltextrobot-{own}.seznam.cz"),
            4 => format!("crawl-{own}.googlebot.com"),
            5 => format!("host-{own}.static.example-isp.cz"),
            9 => format!("fulltextrobot-{own}.seznam.com"),
            _ if v6 => format!("{}.ip6.hosting.example", own.replace('-', "")),
            _ => match i % 3 {
                0 => format!("vps-{own}.cloud.example.net"),
                1 => format!("static-{own}.dedicated.example.org"),
                _ => format!("host{}.datacenter.example", 1000 + i),
            },
        };
        let mut host = Host::new(addr, Some(ptr));
        host.mapped = i % 7 != 6;
        out.push(host);
    }
    out
}

/// Writes `ADDRESS NAME` lines for every mapped address a line used, in the
/// spellings SPEC §1 must accept: now and then a comma or tab between the
/// two, an upper-case or uncompressed IPv6 address, a trailing dot.
pub fn write_ptr_map(out: &mut impl Write, pools: &Pools, seed: u64) -> io::Result<()> {
    writeln!(
        out,
        "# Reverse-DNS names of the addresses in the log made by genlog --seed {seed}."
    )?;
    writeln!(
        out,
        "# ADDRESS NAME, one pair a line; addresses are compared as addresses."
    )?;
    let groups: [(&str, &[Host]); 10] = [
        ("SeznamBot", &pools.seznam_bot),
        ("FreshBot", &pools.seznam_fresh),
        ("SeznamBot-test", &pools.seznam_test),
        ("Googlebot", &pools.googlebot),
        ("bingbot", &pools.bingbot),
        ("AhrefsBot", &pools.ahrefsbot),
        ("MJ12bot", &pools.mj12bot),
        ("GPTBot", &pools.gptbot),
        ("scripts", &pools.scripts),
        (
            "impostors: SeznamBot's user agent, not Seznam's address",
            &pools.impostors,
        ),
    ];
    let mut n = 0usize;
    for (title, hosts) in groups {
        let mut titled = false;
        for host in hosts.iter().filter(|h| h.used && h.mapped) {
            let Some(name) = &host.ptr else { continue };
            if !titled {
                writeln!(out, "\n# {title}")?;
                titled = true;
            }
            n += 1;
            let addr = match host.addr {
                IpAddr::V6(v6) if n.is_multiple_of(5) => {
                    let s = v6.segments();
                    format!(
                        "{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}",
                        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
                    )
                }
                IpAddr::V6(_) if n.is_multiple_of(3) => host.text.to_ascii_uppercase(),
                _ => host.text.clone(),
            };
            let sep = match n % 11 {
                4 => ",",
                7 => "\t",
                _ => " ",
            };
            let dot = if n % 13 == 6 { "." } else { "" };
            writeln!(out, "{addr}{sep}{name}{dot}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seznam_names_follow_the_pattern() {
        let mut rng = Rng::new(5);
        let pools = Pools::new(&mut rng, 10);
        for (pool, prefix) in [
            (&pools.seznam_bot, "fulltextrobot-"),
            (&pools.seznam_fresh, "fulltextrobot-fresh-"),
            (&pools.seznam_test, "fulltextrobot-test-"),
        ] {
            for host in pool {
                assert!(is_seznam(host.addr), "{}", host.text);
                let want = format!("{prefix}{}.seznam.cz", dashed(host.addr));
                assert_eq!(host.ptr.as_deref(), Some(want.as_str()));
            }
        }
        for host in pools.impostors.iter().chain(&pools.googlebot) {
            assert!(!is_seznam(host.addr), "{}", host.text);
        }
    }

    #[test]
    fn tricks_sit_where_listed() {
        let pools = Pools::new(&mut Rng::new(5), 10);
        let imp = &pools.impostors;
        let name = |i: usize| imp[i].ptr.clone().unwrap_or_default();
        assert!(imp[0].addr.is_ipv6());
        assert!(name(NAMED_IMPOSTOR).ends_with(".seznam.cz.crawl.example.net"));
        assert!(name(2).starts_with("fulltextrobot-77-75-"));
        assert!(!name(2).contains(&dashed(imp[2].addr)));
        assert_eq!(
            name(3),
            format!("fulltextrobot-{}.seznam.cz", dashed(imp[3].addr))
        );
        assert!(name(4).ends_with(".googlebot.com"));
        assert!(imp[5].text.starts_with("77.75.80."));
        assert!(!imp[6].mapped);
        assert!(name(9).ends_with(".seznam.com"));
    }

    #[test]
    fn dashes_replace_separators() {
        for (addr, want) in [
            ("77.75.77.123", "77-75-77-123"),
            ("2a02:598:64:8a00::3100:0", "2a02-598-64-8a00--3100-0"),
            ("2a02:598:a::78:90", "2a02-598-a--78-90"),
        ] {
            let addr: IpAddr = addr.parse().unwrap();
            assert_eq!(dashed(addr), want);
        }
    }

    #[test]
    fn map_lists_used_mapped_hosts_only() {
        let mut rng = Rng::new(5);
        let mut pools = Pools::new(&mut rng, 10);
        pools.seznam_bot[0].used = true;
        pools.impostors[6].used = true; // not mapped
        let mut out = Vec::new();
        write_ptr_map(&mut out, &pools, 5).unwrap();
        let text = String::from_utf8(out).unwrap();
        let pairs: Vec<&str> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        assert_eq!(pairs.len(), 1, "{text}");
        assert!(pairs[0].starts_with(&pools.seznam_bot[0].text));
    }
}
