//! `robots-audit check`: may a crawler fetch these URLs? For each target,
//! the verdict, the group used and the deciding rule with its line
//! (SPEC §3), as text for a person, or CSV or JSON for a script. With
//! `--at TIME` (and versions from `--robots-history` or `--state`), the
//! answer comes from the robots.txt version in force at that moment, named
//! with the time it came into force and why it is the one (SPEC §6).

use std::fmt::Write as _;

use crate::accesslog::request::origin_form;
use crate::accesslog::time::Timestamp;
use crate::config::{CheckConfig, OutputFormat};
use crate::crawler::identify::Identifier;
use crate::error::Result;
use crate::report::columns::{csv_error, finish, writer};
use crate::report::escape::{Escaping, name_bytes};
use crate::robots::group::Reads;
use crate::robots::matcher::is_robots_txt;
use crate::robots::versions::{Version, Versions};
use crate::robots::{AgentRules, Robots, agent};
use crate::text::{escape_non_utf8, json_string};

/// One answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The target as given.
    pub target: String,
    /// The path and query that was matched.
    pub path: String,
    pub allowed: bool,
    /// False for a target the audit never judges (`no-target`): no
    /// verdict, though nothing is disallowed.
    pub judged: bool,
    /// Labels of the groups used for the token, `|`-joined each.
    pub group: String,
    pub rule_line: Option<usize>,
    pub rule: String,
    /// Why, in words: the rule, "always allowed", "no rule matches".
    pub reason: String,
}

/// A target as matched: a full URL loses its scheme and host (as in a
/// log's request line); an empty target is `/`.
pub fn path_of(target: &str) -> String {
    if target.is_empty() {
        return "/".into();
    }
    match origin_form(target.as_bytes()) {
        Some(path) => String::from_utf8_lossy(&path).into_owned(),
        None => target.into(),
    }
}

/// The crawler `check` judges for: the token whose groups it reads, the
/// records it reads and whether its homepage habit applies.
pub struct Reader {
    pub token: String,
    pub reads: Reads,
    pub homepage_exception: bool,
}

impl Reader {
    /// Identifies a user agent exactly as the audit identifies a log's
    /// (SPEC §3): a known crawler's profile decides its token and what it
    /// reads; anything else is reduced to its product token and reads only
    /// `Allow` and `Disallow`.
    ///
    /// A string that no crawler's user-agent pattern holds but whose
    /// product token is a known crawler's name or robots.txt token
    /// (`--user-agent Yandex` for a profile of token `Yandex` whose user
    /// agents say `YandexBot`) is that crawler: the crawler of that name,
    /// else the first of that token in the table.
    pub fn of(ident: &Identifier, user_agent: &str) -> Reader {
        let token = agent::user_agent_token(user_agent.as_bytes());
        let id = ident.by_user_agent(user_agent.as_bytes()).or_else(|| {
            ident.find(&token).or_else(|| {
                ident.ids().find(|&id| {
                    agent::product_token(ident.profile(id).token.as_bytes())
                        .eq_ignore_ascii_case(token.as_bytes())
                })
            })
        });
        match id {
            Some(id) => {
                let profile = ident.profile(id);
                Reader {
                    token: profile.token.clone(),
                    reads: profile.reads,
                    homepage_exception: profile.homepage_exception,
                }
            }
            None => Reader {
                token,
                reads: Reads::RULES_ONLY,
                homepage_exception: false,
            },
        }
    }
}

/// Judges every target for `reader`; `robots` is grouped as it reads.
pub fn answers(robots: &Robots, reader: &Reader, targets: &[String]) -> Vec<Answer> {
    let robots = robots.read_as(reader.reads);
    let rules: AgentRules = robots.rules_for(reader.token.as_bytes());
    let groups: Vec<String> = rules
        .groups()
        .iter()
        .map(|&g| robots.groups()[g].label())
        .collect();
    targets
        .iter()
        .map(|target| {
            let path = path_of(target);
            if target.is_empty() || origin_form(target.as_bytes()).is_none() {
                // `a`, `?x`, `example.cz/a`, and nothing at all (a request
                // line `GET  HTTP/1.1`, a JSON target `""`): the audit
                // makes no fetch of a log line with such a target, so no
                // verdict either.
                return Answer {
                    target: target.clone(),
                    path,
                    allowed: true,
                    judged: false,
                    group: String::new(),
                    rule_line: None,
                    rule: String::new(),
                    reason: "no request target: it starts with neither / nor scheme://, \
                             and the audit judges no log line with it"
                        .to_string(),
                };
            }
            let mut verdict = rules.judge(path.as_bytes());
            let one_reading = !verdict.allowed && !rules.accuses(path.as_bytes());
            // Allowed by RFC 9309, disallowed by Google's reading of such a
            // line: no violation either, and said so.
            let googles_only = verdict.allowed && rules.disallowed_by_google(path.as_bytes());
            // Disallowed in one reading of a `User-agent NAME` line without
            // its colon only: the audit makes no row, nor does check.
            verdict.allowed |= one_reading;
            let (group, rule_line, rule, mut reason) = match verdict.rule {
                Some(rule) => {
                    let mut reason = format!("{} (line {})", rule.text, rule.line);
                    if one_reading && rules.allowed_by_seznam_wildcards(path.as_bytes()) {
                        reason.push_str(
                            "; allowed where Seznam reads `?`, `[set]` and `\\` in a \
                             Robot-version 2.0 group as wildcards, as it documents: no violation",
                        );
                    } else if one_reading {
                        reason.push_str(&format!(
                            "; disallowed in one reading only of {}: no violation",
                            robots.two_way_lines()
                        ));
                    }
                    if !verdict.allowed
                        && reader.homepage_exception
                        && crate::robots::matcher::is_home_page(path.as_bytes())
                        && rules.is_default_group(rule.group)
                    {
                        // The audit's row for this fetch only informs.
                        reason.push_str(
                            "; the crawler documents fetching / anyway (seznam-homepage-exception)",
                        );
                    }
                    (
                        rules.group_label(rule.group).to_string(),
                        Some(rule.line),
                        rule.text.clone(),
                        reason,
                    )
                }
                None => {
                    let why = if is_robots_txt(path.as_bytes()) {
                        "/robots.txt is always allowed"
                    } else if groups.is_empty() {
                        "no group applies"
                    } else {
                        "no rule matches"
                    };
                    (groups.join(" + "), None, String::new(), why.to_string())
                }
            };
            if googles_only {
                reason.push_str(&format!(
                    "; disallowed only in the second reading of {}: no violation",
                    robots.two_way_lines()
                ));
            }
            Answer {
                target: target.clone(),
                path,
                allowed: verdict.allowed,
                judged: true,
                group,
                rule_line,
                rule,
                reason,
            }
        })
        .collect()
}

/// Which version answers, and why: for `--at`, and whenever versions come
/// from more than one `--robots` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// `--at` as given, in RFC 3339; `None` for the latest version.
    pub at: Option<String>,
    pub robots_version: String,
    pub in_force_from: String,
    /// When the next version came into force, if there is one.
    pub until: Option<String>,
    /// Why this version, in words, with the sources that gave it.
    pub why: String,
}

/// Picks the version in force at `at` (the latest without it) and says
/// why, as SPEC §6 reads the time line.
pub fn choose<'v>(versions: &'v Versions, at: Option<&Timestamp>) -> (&'v Version, Chosen) {
    let version = match at {
        Some(t) => versions.at(t.instant_ms()),
        None => versions.latest(),
    };
    let count = versions.all().len();
    let reason = match at {
        _ if count == 1 => "the only version known, in force for all time".to_string(),
        Some(t) if t.instant_ms() < version.in_force_from().instant_ms() => {
            "before the oldest version known, which is taken to be in force before its time"
                .to_string()
        }
        Some(t) => {
            let before = versions
                .all()
                .iter()
                .filter(|v| v.in_force_from().instant_ms() <= t.instant_ms())
                .count();
            match before {
                1 => format!(
                    "the only one of {count} versions that came into force at or before that \
                     time"
                ),
                _ if before == count => {
                    format!("the latest of {count} versions, all in force at or before that time")
                }
                _ => format!(
                    "the latest of the {before} versions (of {count}) that came into force at \
                     or before that time"
                ),
            }
        }
        None => format!("the latest of {count} versions"),
    };
    let sources: Vec<String> = version.origins().iter().map(ToString::to_string).collect();
    let chosen = Chosen {
        at: at.map(Timestamp::rfc3339),
        robots_version: version.robots_version().to_string(),
        in_force_from: version.in_force_from().rfc3339(),
        until: versions.next(version).map(|v| v.in_force_from().rfc3339()),
        why: format!("{reason}; from {}", sources.join(", ")),
    };
    (version, chosen)
}

fn chosen_text(chosen: &Chosen) -> String {
    let when = match &chosen.at {
        Some(at) => format!("robots.txt at {at}"),
        None => "robots.txt".to_string(),
    };
    let until = match &chosen.until {
        Some(until) => format!(" until {until}"),
        None => String::new(),
    };
    format!(
        "{when}: version {}, in force from {}{until}\n  why: {}\n",
        chosen.robots_version, chosen.in_force_from, chosen.why
    )
}

fn text(robots: &Robots, reader: &Reader, answers: &[Answer], chosen: Option<&Chosen>) -> String {
    let robots = robots.read_as(reader.reads);
    let token = &reader.token;
    let rules = robots.rules_for(token.as_bytes());
    let mut out = chosen.map(chosen_text).unwrap_or_default();
    let used: Vec<String> = rules
        .groups()
        .iter()
        .map(|&g| {
            let group = &robots.groups()[g];
            format!("\"{}\" (line {})", group.label(), group.line)
        })
        .collect();
    if used.is_empty() {
        let _ = writeln!(out, "{token}: no group applies; everything is allowed");
    } else {
        let _ = writeln!(out, "{token}: uses group {}", used.join(" + "));
    }
    // Columns line up for ordinary targets; a monster target (past 80
    // characters) is not padded to, so the formatter's width limit and the
    // terminal are both spared.
    let width = answers
        .iter()
        .map(|a| a.target.chars().count())
        .filter(|&n| n <= 80)
        .max()
        .unwrap_or(0);
    for a in answers {
        let verdict = match (a.judged, a.allowed) {
            (false, _) => "no-target ",
            (true, true) => "allowed   ",
            (true, false) => "DISALLOWED",
        };
        let _ = writeln!(out, "{verdict}  {:width$}  {}", a.target, a.reason);
    }
    out
}

impl Answer {
    /// The verdict as the CSV and JSON outputs name it: a target that is
    /// no request target gets none (`no-target`), though it counts as
    /// allowed for the exit status.
    fn verdict(&self) -> &'static str {
        match (self.judged, self.allowed) {
            (false, _) => "no-target",
            (true, true) => "allowed",
            (true, false) => "disallowed",
        }
    }
}

fn csv(answers: &[Answer]) -> Result<String> {
    let mut w = writer();
    w.write_record(["target", "path", "verdict", "group", "rule_line", "rule"])
        .map_err(csv_error)?;
    // As the reports write text (SPEC §5): a field a spreadsheet would run
    // as a formula (a robots.txt's `User-agent: =…`) gets its `'`, and
    // robots.txt text is escaped once.
    let safe = |text: &[u8]| Escaping::Safe.apply(text).into_owned();
    for a in answers {
        w.write_record([
            safe(a.target.as_bytes()),
            safe(a.path.as_bytes()),
            a.verdict().as_bytes().to_vec(),
            safe(&name_bytes(&a.group)),
            a.rule_line
                .map(|l| l.to_string())
                .unwrap_or_default()
                .into_bytes(),
            safe(&name_bytes(&a.rule)),
        ])
        .map_err(csv_error)?;
    }
    Ok(escape_non_utf8(&finish(w)?).into_owned())
}

fn json(token: &str, answers: &[Answer], chosen: Option<&Chosen>) -> String {
    let mut out = format!("{{\"token\":{},", json_string(token));
    if let Some(c) = chosen {
        let opt = |v: &Option<String>| v.as_deref().map_or("null".to_string(), json_string);
        let _ = write!(
            out,
            "\"at\":{},\"robots_version\":{},\"in_force_from\":{},\"until\":{},\"why\":{},",
            opt(&c.at),
            json_string(&c.robots_version),
            json_string(&c.in_force_from),
            opt(&c.until),
            json_string(&c.why),
        );
    }
    out.push_str("\"results\":[");
    for (i, a) in answers.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"target\":{},\"path\":{},\"verdict\":\"{}\",\"allowed\":{},\"group\":{},\"rule_line\":{},\"rule\":{},\"reason\":{}}}",
            json_string(&a.target),
            json_string(&a.path),
            a.verdict(),
            a.allowed,
            json_string(&a.group),
            a.rule_line.map_or("null".to_string(), |l| l.to_string()),
            json_string(&a.rule),
            json_string(&a.reason),
        );
    }
    out.push_str("]}\n");
    out
}

/// Runs `check`; true when every target is allowed.
pub fn run(config: &CheckConfig) -> Result<bool> {
    let kept = match &config.state {
        Some(dir) => crate::state::StateDir::read_unlocked(dir)?.entries(),
        None => Vec::new(),
    };
    let only_robots = config.robots.history.is_none() && config.state.is_none();
    let (robots, chosen) = match (&config.robots.file, config.at) {
        // One file and no moment: the file as it is, as always.
        (Some(file), None) if only_robots => (Robots::read(file)?, None),
        _ => {
            let versions = Versions::gather(&config.robots, kept)?;
            let (version, chosen) = choose(&versions, config.at.as_ref());
            (version.robots().clone(), Some(chosen))
        }
    };
    // An HTML error page or UTF-16 text is read as any robots.txt is
    // (most hold no line a crawler reads): said, so that its verdicts are
    // not taken for the site's intent.
    if let Some(what) = crate::robots::findings::unreadable(&robots) {
        crate::warn!(
            "robots-audit: warning: the robots.txt read looks like {what}, not a robots.txt: \
             the verdicts below are those of whatever lines in it read as records"
        );
    }
    let ident = Identifier::with_profiles(config.profiles.as_deref())?;
    let reader = Reader::of(&ident, &config.user_agent);
    let answers = answers(&robots, &reader, &config.targets);
    let output = match config.format {
        OutputFormat::Text => text(&robots, &reader, &answers, chosen.as_ref()),
        OutputFormat::Csv => csv(&answers)?,
        OutputFormat::Json => json(&reader.token, &answers, chosen.as_ref()),
    };
    // robots.txt and the targets are a stranger's text: no terminal escape.
    let output = match config.format {
        OutputFormat::Json => std::borrow::Cow::Borrowed(output.as_str()),
        _ => crate::text::terminal_safe(&output),
    };
    crate::write_stdout(output.as_bytes())?;
    Ok(answers.iter().all(|a| a.allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--at` says how many versions had come into force by then: the
    /// only one, some of them, or all.
    #[test]
    fn the_version_chosen_at_a_moment_counts_those_in_force_by_then() {
        use crate::accesslog::time_given::parse_rfc3339_or_date;
        use crate::robots::versions::{Entry, Origin};
        let entry = |bytes: &str, time: &str| Entry {
            bytes: bytes.as_bytes().into(),
            in_force_from: parse_rfc3339_or_date(time).unwrap(),
            origin: Origin::History(std::path::PathBuf::from(time)),
        };
        let versions = Versions::merge(vec![
            entry("User-agent: *\nDisallow: /a\n", "2026-11-01T00:00:00Z"),
            entry("User-agent: *\nDisallow: /b\n", "2026-11-10T00:00:00Z"),
            entry("User-agent: *\nDisallow: /c\n", "2026-11-20T00:00:00Z"),
        ])
        .unwrap();
        let cases = [
            (
                "2026-11-05T00:00:00Z",
                "the only one of 3 versions that came into force at or before that time",
            ),
            (
                "2026-11-15T00:00:00Z",
                "the latest of the 2 versions (of 3) that came into force at or before that time",
            ),
            (
                "2026-11-25T00:00:00Z",
                "the latest of 3 versions, all in force at or before that time",
            ),
            (
                "2026-10-01T00:00:00Z",
                "before the oldest version known, which is taken to be in force before its time",
            ),
        ];
        for (at, why) in cases {
            let (_, chosen) = choose(&versions, Some(&parse_rfc3339_or_date(at).unwrap()));
            assert!(chosen.why.starts_with(why), "{at}: {}", chosen.why);
        }
    }

    #[test]
    fn full_urls_lose_scheme_and_host() {
        let cases = [
            ("/a/b?c", "/a/b?c"),
            ("https://www.example.cz/a?b", "/a?b"),
            ("HTTP://example.cz", "/"),
            ("http://example.cz?x=1", "/?x=1"),
            ("relative/path", "relative/path"),
            ("", "/"),
        ];
        for (input, expected) in cases {
            assert_eq!(path_of(input), expected, "{input}");
        }
    }

    #[test]
    fn targets_the_audit_never_judges_get_no_verdict() {
        let robots = Robots::new(b"User-agent: SeznamBot\nDisallow: /\n");
        let ident = Identifier::builtin().unwrap();
        let reader = Reader::of(&ident, "SeznamBot/4.0");
        // An empty target too: the audit makes no fetch of `GET  HTTP/1.1`.
        let empty = answers(&robots, &reader, &[String::new()]);
        assert!(
            empty[0].allowed
                && !empty[0].judged
                && empty[0].reason.starts_with("no request target"),
            "{:?}",
            empty[0].reason
        );
        let robots = Robots::new(b"User-agent: SeznamBot\nDisallow: /a\nDisallow: /*x\n");
        let targets: Vec<String> = ["a", "ax", "?x", "example.cz/a", "/ax"]
            .map(String::from)
            .to_vec();
        let got: Vec<(bool, bool)> = answers(&robots, &reader, &targets)
            .iter()
            .map(|a| {
                (
                    a.allowed,
                    !a.judged && a.reason.starts_with("no request target"),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (true, true),
                (true, true),
                (true, true),
                (true, true),
                (false, false)
            ]
        );
        // Every output names it so: CSV's and JSON's `verdict`.
        let got = answers(&robots, &reader, &targets);
        let json = json("SeznamBot", &got, None);
        assert_eq!(
            json.matches("\"verdict\":\"no-target\"").count(),
            4,
            "{json}"
        );
        assert_eq!(
            json.matches("\"verdict\":\"disallowed\"").count(),
            1,
            "{json}"
        );
        let csv = csv(&got).expect("CSV");
        assert_eq!(csv.matches(",no-target,").count(), 4, "{csv}");
    }

    #[test]
    fn the_home_page_with_a_fragment_gets_the_audits_note() {
        // The audit drops a fragment: `/#top` is the home page, its row
        // informs (seznam-homepage-exception); check says so too.
        let robots = Robots::new(b"User-agent: *\nDisallow: /\n");
        let ident = Identifier::builtin().unwrap();
        let reader = Reader::of(&ident, "SeznamBot/4.0");
        let targets: Vec<String> = ["/", "/#top", "http://example.cz#x", "/a#top"]
            .map(String::from)
            .to_vec();
        let noted: Vec<bool> = answers(&robots, &reader, &targets)
            .iter()
            .map(|a| !a.allowed && a.reason.contains("seznam-homepage-exception"))
            .collect();
        assert_eq!(noted, [true, true, true, false]);
    }

    #[test]
    fn a_user_agent_line_without_colon_accuses_only_where_both_readings_do() {
        let ident = Identifier::builtin().unwrap();
        let reader = Reader::of(&ident, "SeznamBot/4.0");
        let allowed = |robots: &str, target: &str| {
            let robots = Robots::new(robots.as_bytes());
            answers(&robots, &reader, &[target.to_string()])[0].allowed
        };
        // Google: Disallow: / is Googlebot's; RFC 9309: SeznamBot's.
        let mistyped =
            "User-agent: SeznamBot\nDisallow: /private/\n\nUser-agent Googlebot\nDisallow: /\n";
        assert!(allowed(mistyped, "/clanek/1"));
        assert!(!allowed(mistyped, "/private/x"));
        // Both readings allow: RFC 9309 by Allow: / in *, Google by its group.
        assert!(allowed(
            "User-agent: *\nDisallow: /\nUser-agent SeznamBot\nAllow: /\n",
            "/x"
        ));
        // The readings differ for the crawler the line names.
        assert!(allowed(
            "User-agent: *\nDisallow: /\nUser-agent SeznamBot\nDisallow:\n",
            "/x"
        ));
        // Both readings disallow, for the crawler the line names too:
        // RFC 9309 by the `*` group the line joins, Google by the group
        // the line opens.
        let named = "User-agent: *\nDisallow: /admin\n\nUser-agent SeznamBot\nDisallow: /\n";
        assert!(!allowed(named, "/admin/x"));
        assert!(!allowed(named, "/clanky/1"));
        // Google's group for the crawler may allow what RFC 9309's forbids,
        // or the other way round: a row only where both disallow.
        let other =
            "User-agent: SeznamBot\nDisallow: /\nUser-agent Googlebot\nDisallow: /private\n";
        assert!(!allowed(other, "/private/x"));
        assert!(!allowed(other, "/x"));
        let typo = "User-agent: *\nDisallow: /a\nUseragent: SeznamBot\nDisallow: /b\n";
        assert!(allowed(typo, "/a/x"));
        assert!(!allowed(typo, "/b/x"));
        // Allowed by RFC 9309 only: allowed, and check says why.
        let robots =
            Robots::new(b"User-agent: a\nDisallow: /a\nUser agent: SeznamBot\nDisallow: /b\n");
        let got = &answers(&robots, &reader, &["/b".to_string(), "/a".to_string()]);
        assert!(
            got[0].allowed
                && got[0].reason.contains("only in the second reading")
                && got[0].reason.contains("Google's parser"),
            "{}",
            got[0].reason
        );
        assert!(got[1].allowed && !got[1].reason.contains("Google"));
        // The line last in the file: a group without rules to Google.
        assert!(allowed(
            "User-agent: *\nDisallow: /\nUser-agent SeznamBot\n",
            "/x"
        ));
        // Without such a line, nothing changes.
        assert!(!allowed("User-agent: *\nDisallow: /\n", "/x"));
    }

    #[test]
    fn answers_name_the_deciding_rule() {
        let robots = Robots::new(b"User-agent: *\nDisallow: /\n\nUser-agent: SeznamBot\nDisallow: /cz/chat/\nAllow: /cz/\n");
        let targets: Vec<String> = ["/cz/chat/x", "/cz/a", "/robots.txt", "/other"]
            .map(String::from)
            .to_vec();
        let ident = Identifier::builtin().unwrap();
        let reader = Reader::of(
            &ident,
            "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)",
        );
        assert_eq!(reader.token, "SeznamBot");
        let got = answers(&robots, &reader, &targets);
        let summary: Vec<(bool, Option<usize>)> =
            got.iter().map(|a| (a.allowed, a.rule_line)).collect();
        assert_eq!(
            summary,
            vec![
                (false, Some(5)),
                (true, Some(6)),
                (true, None),
                (true, None)
            ]
        );
        assert_eq!(got[0].group, "SeznamBot");
        assert_eq!(got[2].reason, "/robots.txt is always allowed");
        assert_eq!(got[3].reason, "no rule matches");
    }
}
