//! Profile files (`--profiles FILE`): more crawlers, or other patterns for
//! built-in ones, as plain text (SPEC §2 "more may be added by a profile
//! file"). Takes the file; gives profiles merged into the table.
//!
//! ```text
//! # comment
//! crawler: Googlebot
//! token: Googlebot                 (default: the crawler's name)
//! user-agent: Googlebot            (any number)
//! host: crawl-<address>.googlebot.com
//! host: *.google.com               (any number)
//! rate-floor: none                 (or N/T[s|m|h|d]; default none)
//! reads: Crawl-delay, Request-rate (extension records it reads besides
//!                                   Allow and Disallow; default none)
//! homepage-exception: no           (yes: fetches of `/` under a `*`
//!                                   group's Disallow only inform)
//! network: 66.249.64.0/19          (any number; CIDR, the operator's own;
//!                                   `none` for none)
//! ```
//!
//! An entry named like a built-in crawler replaces its patterns; every
//! other fact it does not give (token, rate floor, records read, home-page
//! exception, networks) stays the built-in's: a webmaster who adds a host
//! pattern for SeznamBot keeps Seznam's floor and home-page exception.

use std::path::Path;

use ipnet::IpNet;

use crate::crawler::profile::{HostPattern, Profile, RateFloor, UaPattern};
use crate::error::{Error, Position, Result};
use crate::robots::group::Reads;
use crate::robots::parse::Directive;
use crate::side_file;

/// Reads `N/T[s|m|h|d]` (`1/30s`), or `none`.
pub fn parse_rate_floor(text: &str) -> Result<Option<RateFloor>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let bad = || format!("rate floor {text:?} is not N/T[s|m|h|d] or none");
    let (n, t) = text.split_once('/').ok_or_else(bad)?;
    let fetches: u32 = n.trim().parse().map_err(|_| bad())?;
    let t = t.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    let count: u32 = if digits.is_empty() {
        1
    } else {
        digits.parse().map_err(|_| bad())?
    };
    let seconds = count.checked_mul(scale).ok_or_else(bad)?;
    if fetches == 0 || seconds == 0 {
        return Err(bad());
    }
    Ok(Some(RateFloor { fetches, seconds }))
}

/// Reads `reads:`: robots.txt extension record names, separated by commas
/// or spaces, or `none`.
pub fn parse_reads(text: &str) -> Result<Reads, String> {
    let mut reads = Reads::RULES_ONLY;
    for name in text.split([',', ' ', '\t']).filter(|n| !n.is_empty()) {
        if name.eq_ignore_ascii_case("none") {
            continue;
        }
        let directive = Directive::from_key(name.as_bytes());
        match directive {
            Directive::CrawlDelay
            | Directive::RequestRate
            | Directive::RobotVersion
            | Directive::VisitTime => reads = reads.with(directive),
            Directive::Allow | Directive::Disallow => {}
            _ => {
                return Err(format!(
                    "{name:?} is no robots.txt extension record (Crawl-delay, Request-rate, Robot-version, Visit-time)"
                ));
            }
        }
    }
    Ok(reads)
}

/// One entry of a profile file: the profile as written, and which of its
/// facts the entry gave (the others default, or come from the crawler it
/// replaces).
#[derive(Debug, Clone)]
pub struct Entry {
    pub profile: Profile,
    given: Given,
}

/// The facts an entry gave, besides its patterns.
#[derive(Debug, Clone, Copy, Default)]
struct Given {
    token: bool,
    rate_floor: bool,
    reads: bool,
    homepage_exception: bool,
    networks: bool,
}

/// Reads a profile file into `profiles`: a profile named like an existing
/// one replaces it in place, others are added after (lowest precedence).
pub fn load_profiles(path: &Path, profiles: &mut Vec<Profile>) -> Result<()> {
    // A FIFO, a device or a file past 16 MiB is refused (SPEC §1).
    let (bytes, _) = side_file::read(path).map_err(|refusal| Error::Open {
        path: path.to_path_buf(),
        source: refusal.into_io(),
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let extra = parse_entries(&text).map_err(|(line, cause)| Error::Format {
        path: path.to_path_buf(),
        at: Position::Line(line),
        cause,
    })?;
    merge_profiles(profiles, extra);
    Ok(())
}

/// A profile named like an existing one (case-insensitively) replaces it in
/// place, keeping its precedence, each kind of pattern (user agents,
/// hosts) the entry gives none of, and every fact it does not give; the
/// others go last.
pub fn merge_profiles(profiles: &mut Vec<Profile>, extra: Vec<Entry>) {
    for Entry { profile, given } in extra {
        match profiles
            .iter_mut()
            .find(|p| p.name.eq_ignore_ascii_case(&profile.name))
        {
            Some(slot) => {
                let old = std::mem::replace(slot, profile);
                // Each kind of pattern the entry gives replaces that kind;
                // a kind it does not give stays (a `host:` line alone keeps
                // the crawler's user agents).
                if slot.user_agents.is_empty() {
                    slot.user_agents = old.user_agents;
                }
                if slot.hosts.is_empty() {
                    slot.hosts = old.hosts;
                }
                if !given.token {
                    slot.token = old.token;
                }
                if !given.rate_floor {
                    slot.rate_floor = old.rate_floor;
                }
                if !given.reads {
                    slot.reads = old.reads;
                }
                if !given.homepage_exception {
                    slot.homepage_exception = old.homepage_exception;
                }
                if !given.networks {
                    slot.networks = old.networks;
                }
            }
            // A new crawler's facts not given are the defaults.
            None => profiles.push(profile),
        }
    }
}

/// The profiles of a profile file as written, each fact not given at its
/// default; an error gives the 1-based line and cause.
pub fn parse_profiles(text: &str) -> Result<Vec<Profile>, (u64, String)> {
    Ok(parse_entries(text)?
        .into_iter()
        .map(|entry| entry.profile)
        .collect())
}

/// The entries of a profile file; an error gives the 1-based line and
/// cause.
pub fn parse_entries(text: &str) -> Result<Vec<Entry>, (u64, String)> {
    let mut out: Vec<(u64, Entry)> = Vec::new();
    // The single-value keys the current entry gave, with their lines.
    let mut given: Vec<(String, u64)> = Vec::new();
    let mut last_line = 0;
    for (index, raw) in text.lines().enumerate() {
        let number = index as u64 + 1;
        last_line = number;
        let content = raw.split('#').next().unwrap_or_default().trim();
        if content.is_empty() {
            continue;
        }
        let (key, value) = content
            .split_once(':')
            .ok_or_else(|| (number, format!("expected `key: value`, found {content:?}")))?;
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        if key == "crawler" {
            if value.is_empty() {
                return Err((number, "crawler needs a name".to_string()));
            }
            // Reports join crawlers' names with `|` (rules.csv).
            if value.contains('|') {
                return Err((number, format!("crawler name {value:?} holds `|`")));
            }
            given.clear();
            if let Some((start, entry)) = out.last() {
                check_profile(&entry.profile).map_err(|cause| (*start, cause))?;
            }
            // A second entry of one name would replace the first whole:
            // its patterns lost, its fetches never found, without a word.
            if let Some((start, _)) = out
                .iter()
                .find(|(_, entry)| entry.profile.name.eq_ignore_ascii_case(value))
            {
                return Err((
                    number,
                    format!(
                        "crawler {value:?} is already described at line {start}: give each \
                         crawler one entry, with all its user-agent and host lines"
                    ),
                ));
            }
            out.push((
                number,
                Entry {
                    profile: Profile {
                        name: value.to_string(),
                        token: value.to_string(),
                        user_agents: Vec::new(),
                        hosts: Vec::new(),
                        rate_floor: None,
                        reads: Reads::RULES_ONLY,
                        homepage_exception: false,
                        networks: Vec::new(),
                    },
                    given: Given::default(),
                },
            ));
            continue;
        }
        let Some((
            _,
            Entry {
                profile,
                given: facts,
            },
        )) = out.last_mut()
        else {
            return Err((number, format!("{key} before the first `crawler:` line")));
        };
        // A key of one value given twice: the second would drop the first
        // without a word.
        if matches!(
            key.as_str(),
            "token" | "rate-floor" | "reads" | "homepage-exception"
        ) {
            if let Some((_, first)) = given.iter().find(|(k, _)| *k == key) {
                return Err((
                    number,
                    format!("{key} is given twice for this crawler (first at line {first})"),
                ));
            }
            given.push((key.clone(), number));
        }
        match key.as_str() {
            "token" if !value.is_empty() => {
                check_token(value).map_err(|e| (number, e))?;
                profile.token = value.to_string();
                facts.token = true;
            }
            "user-agent" => profile
                .user_agents
                .push(UaPattern::parse(value).map_err(|e| (number, e))?),
            "host" => profile
                .hosts
                .push(HostPattern::parse(value).map_err(|e| (number, e))?),
            "rate-floor" => {
                profile.rate_floor = parse_rate_floor(value).map_err(|e| (number, e))?;
                facts.rate_floor = true;
            }
            "reads" => {
                profile.reads = parse_reads(value).map_err(|e| (number, e))?;
                facts.reads = true;
            }
            "homepage-exception" => {
                facts.homepage_exception = true;
                profile.homepage_exception = match value.to_ascii_lowercase().as_str() {
                    "yes" | "true" => true,
                    "no" | "false" => false,
                    _ => {
                        return Err((
                            number,
                            format!("homepage-exception {value:?} is not yes or no"),
                        ));
                    }
                }
            }
            "network" => {
                facts.networks = true;
                if !value.eq_ignore_ascii_case("none") {
                    profile
                        .networks
                        .push(parse_network(value).map_err(|e| (number, e))?);
                }
            }
            _ => return Err((number, format!("unknown or empty key {key:?}"))),
        }
    }
    if let Some((start, entry)) = out.last() {
        check_profile(&entry.profile).map_err(|cause| (*start, cause))?;
    }
    if out.is_empty() {
        return Err((last_line.max(1), "no `crawler:` entry".to_string()));
    }
    Ok(out.into_iter().map(|(_, entry)| entry).collect())
}

/// Reads `ADDRESS/PREFIX` (`77.75.72.0/21`, `2a02:598::/32`); host bits
/// written after the prefix are dropped, as routers read them.
pub fn parse_network(text: &str) -> Result<IpNet, String> {
    text.parse::<IpNet>()
        .map(|n| n.trunc())
        .map_err(|_| format!("network {text:?} is not ADDRESS/PREFIX"))
}

fn check_profile(p: &Profile) -> Result<(), String> {
    // An entry named like a built-in crawler keeps the patterns it gives
    // none of (`merge_profiles`): `crawler: FreshBot` / `reads:
    // Crawl-delay` changes one fact.
    let builtin = crate::crawler::profile::builtin()
        .iter()
        .any(|b| b.name.eq_ignore_ascii_case(&p.name));
    if p.user_agents.is_empty() && p.hosts.is_empty() && !builtin {
        return Err(format!(
            "crawler {} has neither a user-agent nor a host pattern",
            p.name
        ));
    }
    // The token defaults to the name, which may be no token.
    check_token(&p.token).map_err(|e| format!("{e} (give the crawler a `token:` line)"))
}

/// A crawler's robots.txt token is compared as its product token, the
/// leading run of letters, `-` and `_` (SPEC §3): one with none (`*`,
/// `360Spider`) would never name a group, so its crawler would be judged
/// by the `*` group whatever group the site wrote for it.
fn check_token(token: &str) -> Result<(), String> {
    if crate::robots::agent::product_token(token.as_bytes()).is_empty() {
        return Err(format!(
            "token {token:?} names no robots.txt group: its product token (the leading \
             letters, `-` and `_`, as `User-agent:` lines are read) is empty"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawler::profile::builtin;

    #[test]
    fn rate_floors() {
        let cases: &[(&str, Option<(u32, u32)>)] = &[
            ("1/30s", Some((1, 30))),
            ("1/30", Some((1, 30))),
            ("10/m", Some((10, 60))),
            ("2/1h", Some((2, 3600))),
            ("none", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                parse_rate_floor(text).unwrap(),
                want.map(|(fetches, seconds)| RateFloor { fetches, seconds }),
                "{text}"
            );
        }
        for bad in ["", "1", "0/1s", "1/0s", "x/1s", "1/1w"] {
            assert!(parse_rate_floor(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn profile_file_adds_and_replaces() {
        let text = "# extra crawlers\n\
            crawler: Googlebot\n\
            user-agent: Googlebot\n\
            host: crawl-<address>.googlebot.com\n\
            host: *.google.com\n\
            network: 66.249.64.0/19\n\
            network: 2001:4860:4801::1/48\n\
            \n\
            crawler: seznambot\n\
            token: SeznamBot\n\
            user-agent: SeznamBot\n\
            host: robot-<address>.seznam.cz   # renamed\n\
            rate-floor: 1/10s\n\
            reads: Request-rate, crawl-delay\n\
            homepage-exception: yes\n";
        let mut profiles = builtin();
        merge_profiles(&mut profiles, parse_entries(text).unwrap());
        assert_eq!(profiles.len(), 4);
        assert_eq!(profiles[2].hosts[0].text, "robot-<address>.seznam.cz");
        assert_eq!(
            profiles[2].rate_floor,
            Some(RateFloor {
                fetches: 1,
                seconds: 10
            })
        );
        assert_eq!(profiles[3].name, "Googlebot");
        assert_eq!(profiles[3].token, "Googlebot");
        assert_eq!(profiles[3].hosts.len(), 2);
        assert_eq!(profiles[3].rate_floor, None);
        assert_eq!(profiles[3].reads, Reads::RULES_ONLY);
        assert!(!profiles[3].homepage_exception);
        assert_eq!(
            profiles[2].reads,
            Reads::RULES_ONLY
                .with(Directive::RequestRate)
                .with(Directive::CrawlDelay)
        );
        assert!(profiles[2].homepage_exception);
        assert!(parse_reads("Sitemap").is_err());
        assert!(parse_reads("Request-rate Robot-version").is_ok());
        assert_eq!(
            profiles[3].networks,
            ["66.249.64.0/19", "2001:4860:4801::/48"].map(|n| n.parse::<IpNet>().unwrap())
        );
        // A profile that replaces a built-in one and says nothing of its
        // networks keeps the built-in's.
        assert_eq!(profiles[2].networks, builtin()[2].networks);
        assert!(!profiles[2].networks.is_empty());
    }

    /// An entry that replaces a built-in crawler to give other patterns
    /// keeps every fact it does not give (SPEC §3's floor and §4's home
    /// page for SeznamBot; FreshBot's token), and gives up those it says.
    #[test]
    fn a_replacement_keeps_what_it_does_not_say() {
        let mut profiles = builtin();
        let at = |profiles: &[Profile], name: &str| {
            profiles.iter().position(|p| p.name == name).unwrap()
        };
        let (seznam_at, fresh_at) = (at(&profiles, "SeznamBot"), at(&profiles, "FreshBot"));
        let seznam = profiles[seznam_at].clone();
        assert_eq!(profiles[fresh_at].token, "SeznamBot");
        assert!(profiles[fresh_at].homepage_exception);
        let text = "crawler: SeznamBot\n\
            user-agent: SeznamBot\n\
            host: robot-<address>.seznam.cz\n\
            \n\
            crawler: FreshBot\n\
            user-agent: FreshBot\n\
            rate-floor: none\n\
            homepage-exception: no\n\
            reads: none\n\
            network: none\n";
        merge_profiles(&mut profiles, parse_entries(text).unwrap());
        let (new_seznam, new_fresh) = (&profiles[seznam_at], &profiles[fresh_at]);
        assert_eq!(new_seznam.hosts.len(), 1);
        assert_eq!(new_seznam.hosts[0].text, "robot-<address>.seznam.cz");
        assert_eq!(new_seznam.token, seznam.token);
        assert!(seznam.rate_floor.is_some());
        assert_eq!(new_seznam.rate_floor, seznam.rate_floor);
        assert_eq!(new_seznam.reads, seznam.reads);
        assert!(new_seznam.homepage_exception);
        assert_eq!(new_seznam.networks, seznam.networks);
        assert_eq!(new_fresh.token, "SeznamBot");
        assert_eq!(new_fresh.rate_floor, None);
        assert!(!new_fresh.homepage_exception);
        assert_eq!(new_fresh.reads, Reads::RULES_ONLY);
        assert!(new_fresh.networks.is_empty());
        // A kind of pattern not given stays: SeznamBot's host patterns
        // are replaced, FreshBot's (none given) kept.
        assert_eq!(new_fresh.hosts, builtin()[fresh_at].hosts);
        // An entry of host lines alone keeps the user agents.
        let mut profiles = builtin();
        let hosts_only = "crawler: SeznamBot\nhost: x-<address>.example.com\n";
        merge_profiles(&mut profiles, parse_entries(hosts_only).unwrap());
        assert_eq!(profiles[seznam_at].user_agents, seznam.user_agents);
        assert_eq!(profiles[seznam_at].hosts.len(), 1);
        assert_eq!(profiles[seznam_at].hosts[0].text, "x-<address>.example.com");
        // An entry of facts alone, no pattern, changes those facts of a
        // built-in crawler (README "Other crawlers"); a new crawler still
        // needs a pattern.
        let mut profiles = builtin();
        let facts_only =
            "crawler: FreshBot\nreads: Crawl-delay\n\ncrawler: seznambot\nrate-floor: none\n";
        merge_profiles(&mut profiles, parse_entries(facts_only).unwrap());
        assert_eq!(
            profiles[fresh_at].user_agents,
            builtin()[fresh_at].user_agents
        );
        assert_eq!(profiles[fresh_at].token, "SeznamBot");
        assert!(profiles[fresh_at].reads.reads(Directive::CrawlDelay));
        assert_eq!(profiles[seznam_at].user_agents, seznam.user_agents);
        assert_eq!(profiles[seznam_at].rate_floor, None);
        assert!(parse_entries("crawler: NewBot\nreads: Crawl-delay\n").is_err());
    }

    #[test]
    fn profile_file_errors_name_the_line() {
        let cases: &[(&str, u64)] = &[
            ("user-agent: X\n", 1),
            ("crawler: X\n", 1),
            ("crawler: X\nuser-agent: X\nhost: a b\n", 3),
            ("crawler: X\nuser-agent: X\ncolour: red\n", 3),
            ("crawler: X\nno colon\n", 2),
            ("crawler: X\nuser-agent: X\nnetwork: 77.75.72.0\n", 3),
            ("crawler: X\nuser-agent: X\nnetwork: 77.75.72.0/33\n", 3),
            ("\n# nothing\n", 2),
            // One crawler in two entries: the second would drop the first.
            (
                "crawler: G\nuser-agent: Gbot\n\ncrawler: g\nhost: *.g.example\n",
                4,
            ),
            // Tokens that name no group, or split one robot's counts.
            ("crawler: X\nuser-agent: X\ntoken: *\n", 3),
            ("crawler: X\nuser-agent: X\ntoken: 360Spider\n", 3),
            ("crawler: 360Spider\nuser-agent: 360Spider\n", 1),
            // A key of one value given twice.
            ("crawler: X\nuser-agent: X\ntoken: X\ntoken: Y\n", 4),
            (
                "crawler: X\nuser-agent: X\nreads: Request-rate\nreads: Crawl-delay\n",
                4,
            ),
            ("crawler: A|B\nuser-agent: X\n", 1),
        ];
        for (text, line) in cases {
            assert_eq!(parse_profiles(text).unwrap_err().0, *line, "{text}");
        }
    }
}
