//! Lint checks on groups: takes the groups and their selections, gives
//! findings for user-agent lines that name nothing, miss Seznam's token or
//! repeat another group's, empty groups, and the Seznam extensions
//! (Request-rate, Robot-version, Visit-time) and Crawl-delay
//! (RFC 9309 §2.2.1; SPEC §2, §3).

use std::collections::{HashMap, HashSet};

use super::super::agent::{product_token, robot_of};
use super::super::group::{Agent, Group};
use super::super::limits::RequestRate;
use super::super::parse::Directive;
use super::{Finding, Reader, Scope, Selection, Severity, Users, edit_distance};

pub(super) fn check(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    let groups = scope.robots.groups();
    // The line of the first group naming each token (lower case; `*` for
    // the default group).
    let mut named: HashMap<String, usize> = HashMap::new();
    for (index, group) in groups.iter().enumerate() {
        agents(scope, group, &mut named, findings);
        // An empty `*` group changes nothing: crawlers without a group of
        // their own are allowed everything either way (RFC 9309 allows a
        // group without rules).
        // The line the size limit cut counts for nothing here either.
        let records = &scope.robots.file().records;
        let read = group
            .members
            .iter()
            .filter(|&&m| records.get(m).is_some_and(|r| !r.cut))
            .count();
        if read == 0 && !group.agents.iter().all(|a| a.wildcard) {
            findings.push(Finding::new(
                group.line,
                "empty-group",
                Severity::Warning,
                format!(
                    "The group of `{}` has nothing after its User-agent lines, so it gives \
                     its crawlers no rules and takes them out of the `*` group.",
                    group.label()
                ),
            ));
        }
        members(scope, index, findings);
        request_rates(scope, index, findings);
        crawl_delays(scope, index, findings);
    }
    ignored_limits(scope, findings);
    rules_left_behind(scope, findings);
}

/// A crawler of the table whose own groups hold lines but no Allow or
/// Disallow (a Request-rate, a Crawl-delay, a Robot-version alone) reads
/// none of the `*` group's rules (RFC 9309 §2.2.1: a crawler obeys the
/// groups that name it, else `*`): `User-agent: SeznamBot` with only
/// `Request-rate: 1/10s` frees it of every Disallow written for all.
/// An empty `Disallow:` says "allow everything" on purpose; a group with
/// nothing after its user-agent lines is `empty-group`.
fn rules_left_behind(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    // The line of each such group, with the crawlers it holds and the
    // `*` rules they leave behind.
    let mut left: Vec<(usize, String, Vec<String>, usize)> = Vec::new();
    for (reader, selection) in &scope.readers {
        let groups = selection.robots.groups();
        let records = &selection.robots.file().records;
        let own: Vec<&Group> = selection
            .rules
            .groups()
            .iter()
            .map(|&g| &groups[g])
            .collect();
        let writes_rules = |group: &Group| {
            group.members.iter().any(|&m| {
                records
                    .get(m)
                    .is_some_and(|r| matches!(r.directive, Directive::Allow | Directive::Disallow))
            })
        };
        if own.is_empty()
            || own.iter().any(|g| g.is_default())
            || own.iter().all(|g| g.members.is_empty())
            || own.iter().any(|g| writes_rules(g))
        {
            continue;
        }
        let behind: usize = groups
            .iter()
            .filter(|g| g.is_default())
            .map(|g| g.rules.len())
            .sum();
        if behind == 0 {
            continue;
        }
        let name = reader.name();
        match left.iter_mut().find(|(line, ..)| *line == own[0].line) {
            Some((_, _, names, _)) => {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            None => left.push((own[0].line, own[0].label(), vec![name], behind)),
        }
    }
    for (line, label, names, behind) in left {
        let rules = if behind == 1 { "rule" } else { "rules" };
        let (obeys, they, reads, them) = if names.len() == 1 {
            ("obeys", "it", "reads", "it")
        } else {
            ("obey", "they", "read", "them")
        };
        findings.push(Finding::new(
            line,
            "rules-left-behind",
            Severity::Warning,
            format!(
                "{} {obeys} the group of `{label}`, which has no Allow or Disallow line, so \
                 {they} {reads} none of the {behind} {rules} of the `*` group and may fetch \
                 what they forbid. If they are meant for {them} too, repeat them in this group.",
                names.join(", ")
            ),
        ));
    }
}

/// User-agent lines that name no crawler, or not the one meant, or one an
/// earlier group already names.
fn agents(
    scope: &Scope<'_>,
    group: &Group,
    named: &mut HashMap<String, usize>,
    findings: &mut Vec<Finding>,
) {
    // Whether the group names each reader's token, asked once a group:
    // asked for each of its user-agent lines, a group of 40,000 of them
    // took seconds (each ask walks every line).
    let mut names_reader: Vec<Option<bool>> = vec![None; scope.readers.len()];
    for agent in &group.agents {
        let line = agent.line;
        if !agent.wildcard && agent.token.is_empty() {
            let message = if agent.value.is_empty() {
                "`User-agent:` has no value, so it names no crawler.".to_string()
            } else {
                format!(
                    "`{}` starts with no crawler name (letters, `-` and `_`) and is not `*` \
                     alone, so it names no crawler.",
                    agent.value
                )
            };
            findings.push(Finding::new(
                line,
                "agent-names-nothing",
                Severity::Warning,
                message,
            ));
        }
        let token = String::from_utf8_lossy(&agent.token).to_ascii_lowercase();
        if let Some(finding) = misnamed(scope, group, &mut names_reader, agent, &token) {
            findings.push(finding);
        }
        let (key, name) = if agent.wildcard {
            ("*".to_string(), "*".to_string())
        } else if agent.token.is_empty() {
            continue;
        } else {
            (token, String::from_utf8_lossy(&agent.token).into_owned())
        };
        match named.get(&key) {
            Some(&earlier) if earlier != group.line => findings.push(Finding::new(
                line,
                "duplicate-agent",
                Severity::Warning,
                format!(
                    "`{name}` is also named by the group at line {earlier}; crawlers merge \
                     the two groups, which may not be what was meant."
                ),
            )),
            Some(_) => {}
            None => {
                named.insert(key, group.line);
            }
        }
    }
}

/// A user-agent line that names a crawler of the table by the wrong name:
/// a crawler's own name where its token is read (`FreshBot` for
/// `SeznamBot`), or a near miss of a token (`Seznam`, `Seznam-Bot`), in a
/// group that does not name the token anyway.
fn misnamed(
    scope: &Scope<'_>,
    group: &Group,
    names_reader: &mut [Option<bool>],
    agent: &Agent,
    token: &str,
) -> Option<Finding> {
    let (line, written) = (agent.line, &agent.token[..]);
    // A profile's token is compared as its product token, as the audit
    // and `check` compare it (`MegaIndex.ru` reads `MegaIndex` groups).
    let own = |reader: &Reader| product_token(reader.token.as_bytes()).to_ascii_lowercase();
    if token.is_empty()
        || scope
            .readers
            .iter()
            .any(|(r, _)| own(r).eq_ignore_ascii_case(token.as_bytes()))
    {
        return None;
    }
    let written = String::from_utf8_lossy(written);
    scope
        .readers
        .iter()
        .enumerate()
        .find_map(|(index, (reader, _))| {
            let want = String::from_utf8_lossy(&own(reader)).into_owned();
            if want.is_empty()
                || *names_reader[index].get_or_insert_with(|| group.names(want.as_bytes()))
            {
                return None;
            }
            let message = if reader
                .crawlers
                .iter()
                .any(|c| c.eq_ignore_ascii_case(token))
            {
                format!(
                    "`{written}` reaches no crawler: {} obeys the groups for `{}`.",
                    reader.label(),
                    reader.token
                )
            } else if (want.starts_with(token) && token.len() * 2 >= want.len())
                || edit_distance(token.as_bytes(), want.as_bytes()) <= 2
            {
                format!(
                    "`{written}` does not name {}, since names are compared whole; write `{}`.",
                    reader.token, reader.token
                )
            } else if agent.value.to_ascii_lowercase().contains(&want) {
                // A whole user-agent string, or a list of names: the line
                // names its first word alone (RFC 9309 §2.2.1).
                format!(
                    "`User-agent: {}` names `{written}` only (a User-agent line is read up \
                     to its first character that is no letter, `-` or `_`), not {}: give it \
                     a line of its own, `User-agent: {}`.",
                    agent.value, reader.token, reader.token
                )
            } else {
                return None;
            };
            Some(Finding::new(
                line,
                "misnamed-agent",
                Severity::Warning,
                message,
            ))
        })
}

/// Robot-version and Visit-time lines.
fn members(scope: &Scope<'_>, index: usize, findings: &mut Vec<Finding>) {
    let records = &scope.robots.file().records;
    let group = &scope.robots.groups()[index];
    for &member in &group.members {
        let Some(record) = records.get(member) else {
            continue;
        };
        match record.directive {
            Directive::RobotVersion => {
                let after_agent = member
                    .checked_sub(1)
                    .and_then(|before| records.get(before))
                    .is_some_and(|before| before.directive == Directive::UserAgent);
                let effective = group
                    .robot_version
                    .as_ref()
                    .is_some_and(|v| v.line == record.line);
                if scope.robots.late_versions().contains(&record.line) {
                    findings.push(Finding::new(
                        record.line,
                        "misplaced-robot-version",
                        Severity::Warning,
                        format!(
                            "`{}` stands after a record Seznam does not read, not right after \
                             the group's User-agent lines: whether Seznam reads the group as 2.0 \
                             is unknown, so the audit accuses only what both readings disallow. \
                             Put it right after the User-agent lines.",
                            record.text
                        ),
                    ));
                } else if !after_agent {
                    findings.push(Finding::new(
                        record.line,
                        "misplaced-robot-version",
                        Severity::Warning,
                        format!(
                            "`{}` counts only as the line right after a group's User-agent \
                             lines, so here it has no effect.",
                            record.text
                        ),
                    ));
                } else if !effective && !is_version_one(&record.value) {
                    findings.push(Finding::new(
                        record.line,
                        "unknown-robot-version",
                        Severity::Warning,
                        format!(
                            "Seznam knows only `Robot-version: 2.0` (1.0 is the default), so \
                             `{}` has no effect.",
                            record.text
                        ),
                    ));
                }
            }
            Directive::VisitTime => {
                let rated: Vec<&str> = scope
                    .readers_of(record.line)
                    .filter(|(r, _)| r.reads.reads(Directive::RequestRate))
                    .map(|(r, _)| r.token.as_str())
                    .collect();
                let advice = if rated.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; to slow {} down at some hours, give a Request-rate a window, like \
                         `Request-rate: 1/10s 0800-1800`",
                        rated.join(", ")
                    )
                };
                let reading = scope.names_reading(Directive::VisitTime);
                let who = if reading.is_empty() {
                    "no crawler the tool knows reads it".to_string()
                } else {
                    format!(
                        "of the crawlers the tool knows only {} read it",
                        reading.join(", ")
                    )
                };
                findings.push(Finding::new(
                    record.line,
                    "visit-time",
                    Severity::Note,
                    format!("`{}` is in no standard and {who}{advice}.", record.text),
                ));
            }
            _ => {}
        }
    }
}

/// `1`, `1.0`, `1.00`: the version every crawler assumes anyway.
fn is_version_one(value: &[u8]) -> bool {
    let mut parts = value.split(|&b| b == b'.');
    parts.next() == Some(b"1") && parts.all(|p| !p.is_empty() && p.iter().all(|&b| b == b'0'))
}

fn request_rates(scope: &Scope<'_>, index: usize, findings: &mut Vec<Finding>) {
    let group = &scope.robots.groups()[index];
    for line in &group.request_rates {
        let rate = match (&line.rate, &line.error) {
            (Some(rate), _) => rate,
            (None, error) => {
                findings.push(Finding::new(
                    line.line,
                    "bad-request-rate",
                    Severity::Error,
                    format!(
                        "`{}` cannot be read ({}), so it sets no rate; write it like \
                         `Request-rate: 1/10s` or `Request-rate: 100/1m 0100-0600`.",
                        line.text,
                        error.as_deref().unwrap_or("unknown form")
                    ),
                ));
                continue;
            }
        };
        for (reader, _) in scope
            .readers_of(line.line)
            .filter(|(r, _)| r.reads.reads(Directive::RequestRate))
        {
            let Some((fetches, seconds)) = reader.floor else {
                continue;
            };
            if rate.floored(fetches, seconds).is_some() {
                let per = if fetches == 1 {
                    format!("one fetch per {seconds} s")
                } else {
                    format!("{fetches} fetches per {seconds} s")
                };
                findings.push(Finding::new(
                    line.line,
                    "slow-request-rate",
                    Severity::Warning,
                    format!(
                        "`{}` is slower than {token}'s floor of {per}, so {token} fetches at \
                         {fetches}/{seconds}s anyway.",
                        line.written,
                        token = reader.name()
                    ),
                ));
            }
        }
        if let Some(window) = rate.window
            && window.start_min == window.end_min
            && !line.text.contains("2400")
        {
            findings.push(Finding::new(
                line.line,
                "empty-window",
                Severity::Warning,
                format!(
                    "The window of `{}` starts and ends at the same time, so it is read as \
                     the whole day; drop the window if that is meant.",
                    line.text
                ),
            ));
        }
    }
}

/// The Request-rate that keeps one fetch every `millis` ms, in whole
/// seconds (`1.5` s is `2/3s`), and what the crawler's floor makes of it.
fn rate_instead(millis: u64, floor: Option<(u32, u64)>) -> String {
    let common = gcd(1000, millis);
    let (fetches, seconds) = (1000 / common, millis / common);
    let mut text = format!("; write `Request-rate: {fetches}/{seconds}s` instead");
    // Slower than the floor (fewer fetches a second): read as the floor.
    if let Some((floor_fetches, floor_seconds)) = floor
        && u128::from(fetches) * u128::from(floor_seconds)
            < u128::from(floor_fetches) * u128::from(seconds)
    {
        text.push_str(&format!(
            ", though {fetches}/{seconds}s is read as {floor_fetches}/{floor_seconds}s, \
             the slowest rate the crawler honours"
        ));
    }
    text
}

/// Minutes a Request-rate window's time of day runs over.
const MINUTES_A_DAY: u16 = 24 * 60;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Crawl-delay in a group read by a crawler that does not read it but
/// reads Request-rate (Seznam's): a warning with the Request-rate to write,
/// or a note when its selection already has a Request-rate. Elsewhere
/// nothing: other crawlers may read it, and advice for one crawler has no
/// place in another's group.
fn crawl_delays(scope: &Scope<'_>, index: usize, findings: &mut Vec<Finding>) {
    let group = &scope.robots.groups()[index];
    let records = &scope.robots.file().records;
    for delay in &group.crawl_delays {
        // The user-agent lines written right before it, whose crawlers it
        // was written for: in `User-agent: baidu` / `Crawl-delay: 1` /
        // `User-agent: *`, SeznamBot reads the group only because the
        // record ends no run for it (`ambiguous-group` says so), and a
        // Request-rate in its place would end baidu's group for Seznam,
        // taking it out of the `*` rules below: no advice to write one.
        let since = group
            .members
            .iter()
            .filter_map(|&m| records.get(m))
            .map(|r| r.line)
            .filter(|&line| line < delay.line)
            .max()
            .unwrap_or(0);
        let meant: Vec<_> = group
            .agents
            .iter()
            .filter(|a| a.line > since && a.line < delay.line)
            .collect();
        let meant_for = |reader: &Reader| {
            let token = robot_of(&reader.token);
            meant.is_empty()
                || meant
                    .iter()
                    .any(|a| a.wildcard || a.token.eq_ignore_ascii_case(token.as_bytes()))
        };
        let readers: Vec<&(&Reader, Selection)> = scope
            .readers_of(delay.line)
            .filter(|(r, _)| r.reads_rate_for_delay() && meant_for(r))
            .collect();
        // One finding a line: the first crawler without a rate of its own
        // gets the advice, else a note naming the rate kept to.
        // A Request-rate that cannot be read is none; one with a window
        // holds only within it.
        let unrated = readers
            .iter()
            .find(|(_, s)| s.rules.request_rates().iter().all(|r| r.rate.is_none()));
        // Lines with windows hold a limit all day when, together, their
        // windows cover every minute of it (`0000-2400`, `0600-2200` with
        // `2200-0600`), as one without a window does.
        let part_time = readers.iter().find_map(|(reader, s)| {
            let rates = s.rules.request_rates();
            let (_, all_day) = kept_to(rates);
            let windowed: Vec<_> = rates
                .iter()
                .filter(|r| r.rate.as_ref().is_some_and(|rate| rate.window.is_some()))
                .collect();
            (!all_day && !windowed.is_empty()).then_some((reader, windowed))
        });
        if let Some((reader, _)) = unrated {
            let mut instead = match delay.millis {
                Some(millis) if millis > 0 => rate_instead(millis, reader.floor),
                Some(_) => String::new(),
                None => " (and this value is not a number of seconds)".to_string(),
            };
            // User-agent lines after it that the crawler reads as the same
            // group: a Request-rate in its place would end the group there.
            if !instead.is_empty()
                && let Some(next) = group.agents.iter().find(|a| a.line > delay.line)
            {
                instead.push_str(&format!(
                    ", and repeat in this group the rules it now reads from the User-agent \
                     line {} on (a Request-rate ends its run of User-agent lines)",
                    next.line
                ));
            }
            findings.push(Finding::new(
                delay.line,
                "crawl-delay",
                Severity::Warning,
                format!(
                    "`{}` is not part of RFC 9309 and {} does not read it, as it reads \
                     Request-rate{instead}.",
                    delay.text,
                    reader.name()
                ),
            ));
        } else if let Some((reader, windowed)) = part_time {
            let (its, it) = match windowed.len() {
                1 => ("its window", "it"),
                _ => ("their windows", "them"),
            };
            findings.push(Finding::new(
                delay.line,
                "crawl-delay",
                Severity::Warning,
                format!(
                    "{} does not read `{}`; it keeps to {} within {its} only, and to no \
                     limit outside {it}: add a Request-rate without a window.",
                    reader.name(),
                    delay.text,
                    named(&windowed)
                ),
            ));
        } else if let Some((reader, selection)) = readers.first() {
            let (all_day, _) = kept_to(selection.rules.request_rates());
            if all_day.is_empty() {
                continue;
            }
            findings.push(Finding::new(
                delay.line,
                "crawl-delay",
                Severity::Note,
                format!(
                    "{} does not read `{}`; it keeps to {} instead.",
                    reader.name(),
                    delay.text,
                    named(&all_day)
                ),
            ));
        }
    }
}

/// The Request-rate lines a crawler keeps to at some minute of the day
/// (there, the first windowed line that covers it, else the first line
/// without a window: SPEC §3), in file order; and whether every minute
/// has one. Lines that cannot be read are none.
fn kept_to(rates: &[RequestRate]) -> (Vec<&RequestRate>, bool) {
    let read: Vec<&RequestRate> = rates.iter().filter(|r| r.rate.is_some()).collect();
    let window = |r: &RequestRate| r.rate.as_ref().and_then(|rate| rate.window);
    let plain = read.iter().position(|r| window(r).is_none());
    let mut in_force = vec![false; read.len()];
    let mut every_minute = true;
    for minute in 0..MINUTES_A_DAY {
        let at = read
            .iter()
            .position(|r| window(r).is_some_and(|w| w.contains(minute)))
            .or(plain);
        match at {
            Some(at) => in_force[at] = true,
            None => every_minute = false,
        }
    }
    let kept = read
        .into_iter()
        .zip(in_force)
        .filter_map(|(rate, kept)| kept.then_some(rate))
        .collect();
    (kept, every_minute)
}

/// Request-rate lines as a finding names them: `` `text` (line N) ``,
/// joined by "and".
fn named(rates: &[&RequestRate]) -> String {
    rates
        .iter()
        .map(|rate| format!("`{}` (line {})", rate.text, rate.line))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Request-rate and Crawl-delay lines that never apply: for every crawler
/// whose selection holds them, another line always wins (SPEC §3, §4).
/// Judged as crawlers that keep to the limit read the file: one that keeps
/// to a Crawl-delay reads it, so there it ends a run of User-agent lines.
fn ignored_limits(scope: &Scope<'_>, findings: &mut Vec<Finding>) {
    // The Request-rate line each selection uses at each minute of the day,
    // found once (a file of thousands of Request-rate lines asks it of
    // each), and the lines it ever uses.
    let [rated, delayed] = &scope.keepers;
    let (rated_users, delayed_users) = (Users::new(rated), Users::new(delayed));
    let by_minute: Vec<Vec<Option<&RequestRate>>> = rated
        .iter()
        .map(|s| {
            if s.rules.request_rates().is_empty() {
                return Vec::new();
            }
            (0..1440u16).map(|m| s.rules.rate_at(m)).collect()
        })
        .collect();
    let used: Vec<HashSet<usize>> = by_minute
        .iter()
        .map(|minutes| minutes.iter().flatten().map(|r| r.line).collect())
        .collect();
    for group in scope.robots.groups() {
        for line in group.request_rates.iter().filter(|l| l.rate.is_some()) {
            let users = rated_users.of(line.line);
            let Some(&first) = users.first() else {
                continue;
            };
            let ignored = users.iter().all(|&s| !used[s].contains(&line.line));
            // Name the lines that hold when this one would: in its window,
            // or, for a line without one, at every time of the day.
            if !ignored {
                continue;
            }
            let window = line.rate.and_then(|r| r.window);
            let mut winners: Vec<&RequestRate> = Vec::new();
            let mut named = HashSet::new();
            for minute in (0..1440u16).filter(|&m| window.is_none_or(|w| w.contains(m))) {
                if let Some(&Some(winner)) = by_minute[first].get(usize::from(minute))
                    && named.insert(winner.line)
                {
                    winners.push(winner);
                }
            }
            winners.sort_by_key(|w| w.line);
            if !winners.is_empty() {
                findings.push(ignored_rate(line.line, &line.text, &winners));
            }
        }
        for delay in group.crawl_delays.iter().filter(|d| d.millis.is_some()) {
            let users = delayed_users.of(delay.line);
            let Some(first) = users.first().map(|&s| &delayed[s].rules) else {
                continue;
            };
            let ignored = users.iter().all(|&s| {
                delayed[s]
                    .rules
                    .crawl_delay()
                    .is_some_and(|d| d.line != delay.line)
            });
            if let (true, Some(winner)) = (ignored, first.crawl_delay()) {
                findings.push(Finding::new(
                    delay.line,
                    "ignored-crawl-delay",
                    Severity::Warning,
                    format!(
                        "`{}` never applies: `{}` (line {}) comes first for the same crawlers.",
                        delay.text, winner.text, winner.line
                    ),
                ));
            }
        }
    }
}

fn ignored_rate(line: usize, text: &str, winners: &[&RequestRate]) -> Finding {
    let named: Vec<String> = winners
        .iter()
        .map(|w| format!("`{}` (line {})", w.text, w.line))
        .collect();
    let (who, verb) = match named.len() {
        1 => (named[0].clone(), "holds"),
        _ => (named.join(" and "), "together hold"),
    };
    Finding::new(
        line,
        "ignored-request-rate",
        Severity::Warning,
        format!(
            "`{text}` never applies: {who} {verb} at every time it would, for the same crawlers."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::{found, lint_text};

    /// An ignored Request-rate names every line that wins over it: one
    /// window alone would be a false account of the day.
    #[test]
    fn an_ignored_rate_names_the_lines_that_win_over_it() {
        let message = |text: &str| {
            lint_text(text.as_bytes())
                .into_iter()
                .find(|f| f.name == "ignored-request-rate")
                .map(|f| f.message)
                .unwrap_or_default()
        };
        let two = message(
            "User-agent: SeznamBot\nRequest-rate: 1/10s\nRequest-rate: 5/1m 2300-0100\nRequest-rate: 5/1m 0100-2300\n",
        );
        assert!(
            two.contains("(line 3) and `Request-rate: 5/1m 0100-2300` (line 4) together hold"),
            "{two}"
        );
        let one = message("User-agent: SeznamBot\nRequest-rate: 1/10s\nRequest-rate: 1/20s\n");
        assert!(
            one.contains("`Request-rate: 1/10s` (line 2) holds at every time"),
            "{one}"
        );
    }

    #[test]
    fn group_findings() {
        // (robots.txt, finding, lines)
        let cases: &[(&str, &str, &[usize])] = &[
            (
                "User-agent: SeznamBot\nUser-agent: FreshBot\nDisallow: /x\n",
                "misnamed-agent",
                &[],
            ),
            (
                "User-agent: SeznamBot-test\nDisallow: /x\n",
                "misnamed-agent",
                &[1],
            ),
            (
                "User-agent: Seznam-Bot\nDisallow: /x\n",
                "misnamed-agent",
                &[1],
            ),
            (
                "User-agent: Googlebot\nDisallow: /x\n",
                "misnamed-agent",
                &[],
            ),
            ("User-agent:\nDisallow: /x\n", "agent-names-nothing", &[1]),
            (
                "User-agent: *\nDisallow: /a\nUser-agent: *\nDisallow: /b\nUser-agent: *\nDisallow: /c\n",
                "duplicate-agent",
                &[3, 5],
            ),
            (
                "User-agent: a\nUser-agent: b\nDisallow: /a\nUser-agent: B/2.0\nDisallow: /b\n",
                "duplicate-agent",
                &[4],
            ),
            (
                "User-agent: a\nRobot-version: 2.0\nDisallow: /a\n",
                "misplaced-robot-version",
                &[],
            ),
            (
                "User-agent: a\nRobot-version: 1.0\nDisallow: /a\n",
                "unknown-robot-version",
                &[],
            ),
            (
                "User-agent: a\nDisallow: /a\nRobot-version: 1.0\n",
                "misplaced-robot-version",
                &[3],
            ),
            // No Seznam advice in another crawler's group.
            (
                "User-agent: Googlebot\nCrawl-delay: 5\n",
                "crawl-delay",
                &[],
            ),
            // The floor matters only where Seznam reads the group.
            (
                "User-agent: Googlebot\nRequest-rate: 1/60s\n",
                "slow-request-rate",
                &[],
            ),
            (
                "User-agent: *\nRequest-rate: 1/1h\n",
                "slow-request-rate",
                &[2],
            ),
            (
                "User-agent: *\nRequest-rate: 120/1h\n",
                "slow-request-rate",
                &[],
            ),
            (
                "User-agent: *\nRequest-rate: 1/10s 0000-2400\n",
                "empty-window",
                &[],
            ),
            // Windows win over a plain rate; only lines never used are flagged.
            (
                "User-agent: *\nRequest-rate: 1/10s\nRequest-rate: 1/5s 0100-0200\n",
                "ignored-request-rate",
                &[],
            ),
            (
                "User-agent: *\nRequest-rate: 1/10s 0100-0300\nRequest-rate: 1/5s 0100-0200\n",
                "ignored-request-rate",
                &[3],
            ),
            (
                "User-agent: *\nRequest-rate: 1/10s 0000-0000\nRequest-rate: 1/5s\n",
                "ignored-request-rate",
                &[3],
            ),
            // Merged groups: the first line of the file wins.
            (
                "User-agent: SeznamBot\nRequest-rate: 1/10s\n\nUser-agent: SeznamBot\nRequest-rate: 1/20s\n",
                "ignored-request-rate",
                &[5],
            ),
            // A line another crawler still reads is not ignored: a crawler
            // that keeps to Crawl-delay reads it, so it ends the run.
            (
                "User-agent: a\nCrawl-delay: 2\n\nUser-agent: a\nUser-agent: b\nCrawl-delay: 1\n",
                "ignored-crawl-delay",
                &[],
            ),
            (
                "User-agent: a\nCrawl-delay: 2\n\nUser-agent: a\nCrawl-delay: 1\n",
                "ignored-crawl-delay",
                &[5],
            ),
        ];
        for &(text, name, lines) in cases {
            assert_eq!(found(text, name), lines, "{text:?} {name}");
        }
    }

    #[test]
    fn an_ignored_line_without_a_window_names_the_unwindowed_winner() {
        let text = "User-agent: SeznamBot\nRequest-rate: 10/m\nRequest-rate: 1/5\n\
                    Request-rate: 1/60s 2300-0100\n";
        let findings = super::super::lint_text(text.as_bytes());
        let ignored: Vec<&str> = findings
            .iter()
            .filter(|f| f.name == "ignored-request-rate")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(ignored.len(), 1, "{ignored:?}");
        assert!(ignored[0].contains("(line 2)"), "{}", ignored[0]);
    }
}
