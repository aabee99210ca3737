//! The `lint` report for a script: one JSON object on one line, with the
//! groups as each crawler of the table reads them and the findings
//! (SPEC §3; the lint issue).

use super::{effective, readers_of, records_of, selections};
use crate::robots::Robots;
use crate::robots::findings::{self, Finding, Reader};
use crate::robots::parse::Directive;
use crate::text::{escape_non_utf8, json_string};

fn json_opt(value: Option<String>) -> String {
    value.map_or_else(|| "null".to_string(), |v| json_string(&v))
}

/// `[{"line":N,"text":"…"}, …]`.
fn json_lines<'a>(lines: impl Iterator<Item = (usize, &'a str)>) -> String {
    let items: Vec<String> = lines
        .map(|(line, text)| format!("{{\"line\":{line},\"text\":{}}}", json_string(text)))
        .collect();
    format!("[{}]", items.join(","))
}

/// Group `index` of `robots` as `readers` (the crawlers that obey it) read it.
fn json_group(robots: &Robots, index: usize, readers: &[&Reader]) -> String {
    let group = &robots.groups()[index];
    let records = &robots.file().records;
    let read_by: Vec<String> = readers.iter().map(|r| json_string(&r.token)).collect();
    let agents: Vec<String> = group
        .agents
        .iter()
        .map(|a| {
            format!(
                "{{\"line\":{},\"value\":{},\"token\":{}}}",
                a.line,
                json_string(&a.value),
                json_string(&escape_non_utf8(&a.token))
            )
        })
        .collect();
    let rules: Vec<String> = group
        .rules
        .iter()
        .map(|r| {
            // A cut Allow (`Rule::cut`): what every way on starts with,
            // and that it was cut.
            let cut = match r.cut_prefix() {
                Some(prefix) => format!(
                    ",\"cut\":true,\"cut_prefix\":{}",
                    json_string(&escape_non_utf8(prefix))
                ),
                None => String::new(),
            };
            format!(
                "{{\"line\":{},\"directive\":{},\"pattern\":{},\"text\":{}{cut}}}",
                r.line,
                json_string(if r.allow { "Allow" } else { "Disallow" }),
                json_string(&escape_non_utf8(&r.pattern)),
                json_string(&r.text)
            )
        })
        .collect();
    let rates: Vec<String> = group
        .request_rates
        .iter()
        .map(|r| {
            format!(
                "{{\"line\":{},\"text\":{},\"written\":{},\"window\":{},\"effective\":{},\"error\":{}}}",
                r.line,
                json_string(&r.text),
                json_string(&r.written),
                json_opt(r.rate.and_then(|rate| rate.window).map(|w| w.to_string())),
                json_opt(effective(r, readers)),
                json_opt(r.error.clone())
            )
        })
        .collect();
    let delays: Vec<String> = group
        .crawl_delays
        .iter()
        .map(|d| {
            format!(
                "{{\"line\":{},\"text\":{},\"seconds\":{},\"error\":{}}}",
                d.line,
                json_string(&d.text),
                d.shown().unwrap_or_else(|| "null".to_string()),
                json_opt(d.error.clone())
            )
        })
        .collect();
    let robot_version = group.robot_version.as_ref().map_or_else(
        || "null".to_string(),
        |v| format!("{{\"line\":{},\"text\":{}}}", v.line, json_string(&v.text)),
    );
    let visit_times = json_lines(group.visit_times.iter().map(|v| (v.line, v.text.as_str())));
    // Lines of the group that do nothing: empty rules, misplaced or
    // unknown Robot-version lines.
    let ignored = json_lines(
        group
            .members
            .iter()
            .filter_map(|&m| records.get(m))
            .filter(|r| match r.directive {
                Directive::Allow | Directive::Disallow => r.value.is_empty(),
                Directive::RobotVersion => group
                    .robot_version
                    .as_ref()
                    .is_none_or(|v| v.line != r.line),
                _ => false,
            })
            .map(|r| (r.line, r.text.as_str())),
    );
    format!(
        "{{\"line\":{},\"agents\":[{}],\"read_by\":[{}],\"robot_version\":{robot_version},\"rules\":[{}],\"request_rates\":[{}],\"crawl_delays\":[{}],\"visit_times\":{visit_times},\"ignored\":{ignored}}}",
        group.line,
        agents.join(","),
        read_by.join(","),
        rules.join(","),
        rates.join(","),
        delays.join(","),
    )
}

/// The report for a script: one JSON object on one line.
pub fn json(path: &str, robots: &Robots, readers: &[Reader], findings: &[Finding]) -> String {
    let file = robots.file();
    let selections = selections(robots, readers);
    let listing = &selections.listing;
    let groups: Vec<String> = (0..listing.groups().len())
        .map(|index| json_group(listing, index, &readers_of(&selections, index)))
        .collect();
    let crawlers: Vec<String> = selections
        .readers
        .iter()
        .map(|placed| {
            let reader = placed.reader;
            let names: Vec<String> = reader.crawlers.iter().map(|c| json_string(c)).collect();
            let lines: Vec<String> = placed.groups().iter().map(ToString::to_string).collect();
            // A crawler that groups the file otherwise gets the groups it
            // obeys as it reads them; the key is there only then.
            let own = match placed.placed {
                Some(_) => String::new(),
                None => {
                    let robots = &placed.selection.robots;
                    let groups: Vec<String> = placed
                        .selection
                        .rules
                        .groups()
                        .iter()
                        .map(|&g| json_group(robots, g, &[reader]))
                        .collect();
                    format!(",\"groups_as_read\":[{}]", groups.join(","))
                }
            };
            format!(
                "{{\"token\":{},\"crawlers\":[{}],\"groups\":[{}]{own}}}",
                json_string(&reader.token),
                names.join(","),
                lines.join(",")
            )
        })
        .collect();
    let sitemaps: Vec<String> = records_of(robots, Directive::Sitemap)
        .map(|r| {
            format!(
                "{{\"line\":{},\"url\":{}}}",
                r.line,
                json_string(&escape_non_utf8(&r.value))
            )
        })
        .collect();
    let unknown: Vec<String> = records_of(robots, Directive::Unknown)
        .map(|r| {
            format!(
                "{{\"line\":{},\"key\":{},\"text\":{}}}",
                r.line,
                json_string(&r.key),
                json_string(&r.text)
            )
        })
        .collect();
    let orphans = json_lines(
        robots
            .orphans()
            .iter()
            .filter_map(|&i| file.records.get(i))
            .map(|r| (r.line, r.text.as_str())),
    );
    let strays = json_lines(file.strays.iter().map(|s| (s.line, s.text.as_str())));
    let findings_json: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "{{\"line\":{},\"name\":{},\"severity\":{},\"message\":{}}}",
                f.line.map_or_else(|| "null".to_string(), |l| l.to_string()),
                json_string(f.name),
                json_string(f.severity.name()),
                json_string(&f.message)
            )
        })
        .collect();
    format!(
        "{{\"file\":{},\"size\":{},\"lines\":{},\"bom\":{},\"truncated\":{},\"crawlers\":[{}],\"groups\":[{}],\"outside_groups\":{orphans},\"sitemaps\":[{}],\"unknown_directives\":[{}],\"strays\":{strays},\"findings\":[{}],\"clean\":{}}}\n",
        json_string(path),
        file.size,
        file.lines,
        file.bom,
        file.truncated,
        crawlers.join(","),
        groups.join(","),
        sitemaps.join(","),
        unknown.join(","),
        findings_json.join(","),
        findings::is_clean(findings),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawler::profile;
    use crate::lint::readers;

    #[test]
    fn json_is_one_object() {
        let robots = Robots::new(b"User-agent: *\nDisallow: /a\"b\nRequest-rate: 1/x\n");
        let readers = readers(&profile::builtin());
        let findings = findings::lint(&robots, &readers);
        let out = json("r\"obots.txt", &robots, &readers, &findings);
        assert!(out.starts_with("{\"file\":\"r\\\"obots.txt\","));
        assert!(out.ends_with("}\n"));
        assert_eq!(out.matches('\n').count(), 1);
        assert!(out.contains("\"pattern\":\"/a%22b\""), "{out}");
        assert!(out.contains("\"effective\":null"), "{out}");
        assert!(out.contains("\"name\":\"bad-request-rate\",\"severity\":\"error\""));
        assert!(out.contains("\"clean\":false"));
    }
}
