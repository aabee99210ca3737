//! Turns a [`Page`] into `report.html` (SPEC §7): one file that requests
//! nothing when opened, readable on a phone and on paper, with no script.
//! Every value goes through maud, which escapes it for HTML; log text was
//! already written as the CSVs write it. A Content-Security-Policy meta
//! comes before the one style element and allows that style by its hash
//! alone. Tables and lines are capped so that the page stays far below
//! 5,000,000 bytes however big the night; each cut says how much more
//! there was. The section of charts is `render/traffic.rs`'s.

use std::borrow::Cow;

use base64::Engine as _;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use sha2::{Digest, Sha256};

mod traffic;

use super::{KINDS, LEVELS, Page, RobotsText};

/// Rows shown at most, per table.
pub const RULES_SHOWN: usize = 50;
/// The digest keeps exactly the pairs shown.
pub const TARGETS_SHOWN: usize = crate::report::digest::TOP_TARGETS;
pub const ADDRESSES_SHOWN: usize = crate::report::digest::TOP_ADDRESSES;
/// robots.txt versions shown as written: those that decided a row and the
/// last, the latest of them.
pub const ROBOTS_VERSIONS_SHOWN: usize = 5;
/// Request-rate lines named under a chart.
const ALLOWED_SHOWN: usize = 10;
pub const FILES_SHOWN: usize = 50;
pub const CRAWLERS_SHOWN: usize = 50;
pub const CHARTS_SHOWN: usize = 12;
/// Crawlers named in the note on charts left out.
const NAMES_LISTED: usize = 20;
/// robots.txt lines shown from the top, then those that decided a row.
pub const ROBOTS_LINES_SHOWN: usize = 1000;
pub const ROBOTS_COUNTED_SHOWN: usize = 200;
/// Characters of one value shown; the rest is in the CSVs.
pub const TEXT_SHOWN: usize = 160;

/// The page's only style. Its SHA-256 goes into the CSP.
const STYLE: &str = "\
:root{color-scheme:light;--line:#d0d4da;--bad:#b3261e;--info:#6b5900;--ok:#1e6b34}\
*{box-sizing:border-box}\
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;padding:0 12px 40px;max-width:1280px;color:#1b1f24;background:#fff}\
h1{font-size:1.5em;margin:.8em 0 .2em}h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid var(--line)}h3{font-size:1.05em;margin:1.2em 0 .3em}\
nav{display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:.9em}\
.scroll{overflow-x:auto}\
table{border-collapse:collapse;margin:.3em 0;font-variant-numeric:tabular-nums}\
th,td{border-bottom:1px solid var(--line);padding:.25em .5em;text-align:left;vertical-align:top}\
th{background:#f3f5f7;font-weight:600}\
td.n,th.n{text-align:right;white-space:nowrap}\
.text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em;overflow-wrap:anywhere}td.text{min-width:14em}\
.bad{color:var(--bad);font-weight:600}.info{color:var(--info)}.ok{color:var(--ok)}\
.verdict{font-size:1.05em;margin:.4em 0}\
.more{color:#5a6270;font-style:italic}\
svg.chart{width:100%;height:auto;max-width:960px;display:block}\
.key{display:flex;flex-wrap:wrap;gap:.2em 1.2em;font-size:.88em;margin:.2em 0}\
.sw{display:inline-block;width:1.6em;height:.7em;margin-right:.35em;vertical-align:middle}\
.sw-f{background:#1f5fa8;height:2px}.sw-a{background:#2e8b57;height:3px}.sw-w{background:#ddeaf7}\
.sw-r{background:#c62828;width:.7em;border-radius:50%}.sw-g{background:#999;height:1px}\
.sw-o{background:#e08a00;height:.35em}\
tr.hit td{background:#fdf0ef}tr.inform td{background:#fbf8e6}\
@media (max-width:600px){body{font-size:14px;padding:0 6px 30px}th,td{padding:.2em .3em}svg.chart{min-width:760px}}\
@media print{nav{display:none}body{max-width:none;font-size:10pt}.scroll{overflow:visible}\
h2,h3,h2+p{break-after:avoid}tr,svg.chart,div.crawler{break-inside:avoid}footer{break-before:avoid}\
a{color:inherit;text-decoration:none}}";

/// The Content-Security-Policy of SPEC §7: nothing but the page's own
/// style, images and fonts only from `data:`, no script at all.
pub fn policy() -> String {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src data:; font-src data:; \
         base-uri 'none'; form-action 'none'"
    )
}

/// At most [`TEXT_SHOWN`] characters of a value as the CSVs write it
/// (SPEC §7), then how many more characters the CSVs hold: counted in the
/// CSVs' own text, so a value they cut (`…[cut N bytes]`) shows their
/// mark among those characters, and nothing in a stranger's value is
/// read as a count.
pub(super) fn cut(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(TEXT_SHOWN) {
        None => Cow::Borrowed(text),
        Some((at, _)) => Cow::Owned(format!(
            "{}…[{} more characters in the CSVs]",
            &text[..at],
            text[at..].chars().count()
        )),
    }
}

/// "N more", when a table was cut.
fn more(total: usize, shown: usize, what: &str) -> Markup {
    html! {
        @if total > shown {
            p.more { (total - shown) " more " (what) " not shown here; the CSVs hold all." }
        }
    }
}

/// The HTML of `report.html`.
pub fn render(page: &Page) -> String {
    let period = match (&page.first_time, &page.last_time) {
        (Some(first), Some(last)) => format!("{first} – {last}"),
        _ => "(no line audited)".to_string(),
    };
    let accused: u64 = page.crawlers.iter().flat_map(|c| c.violations).sum();
    // The crawlers' own: a spoofed fetch is none of them (SPEC §2).
    let audited: u64 = page.crawlers.iter().map(|c| c.fetches).sum();
    let left_out = page.health.left_out.outside_since_until + page.health.left_out.other_hosts;
    let impostor_fetches: u64 = page.crawlers.iter().map(|c| c.impostor_fetches).sum();
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(policy());
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { "robots-audit report " (period) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    h1 { "robots.txt audit" }
                    p { "Period: " (period) ". Exit status " (page.exit_status) "." }
                    p.verdict {
                        // A night not read whole is never shown as clean
                        // (SPEC §1): what was read may still hold rows.
                        @if page.exit_status == 2 {
                            span.bad { "The night could not be audited whole (exit 2): see the run's health below." }
                            @if accused > 0 { " " span.bad { (accused) (if accused == 1 { " violation" } else { " violations" }) " in what was read." } }
                        } @else if accused == 0 && audited == 0 && left_out > 0 {
                            // Nothing audited is no clean night (SPEC §1).
                            span.bad { "No crawler fetch was audited: " (left_out) " fetches claiming a crawler were left out by --since/--until or --host (see the run's health below)." }
                        } @else if accused == 0 && page.health.lines_read == 0 && page.health.already_audited > 0 {
                            // The same night run again: the reports of the
                            // night that audited the lines hold its rows.
                            span.bad { "No new line: every line of the logs given was audited on a night before (see the run's health below)." }
                        } @else if accused == 0 {
                            span.ok { "No crawler broke robots.txt." }
                        } @else {
                            span.bad { (accused) (if accused == 1 { " violation" } else { " violations" }) " of robots.txt." }
                        }
                    }
                    // The page's other question: who pretends to be one.
                    @if impostor_fetches > 0 {
                        p.verdict {
                            span.bad {
                                (impostor_fetches) (if impostor_fetches == 1 { " fetch" } else { " fetches" })
                                " from " (page.impostor_addresses)
                                (if page.impostor_addresses == 1 { " address" } else { " addresses" })
                                " claimed a crawler they are not"
                            }
                            " (see " a href="#impostors" { "impostors" } ")."
                        }
                    }
                    nav {
                        a href="#verdict" { "verdict" }
                        a href="#health" { "health" }
                        a href="#traffic" { "fetches per minute" }
                        a href="#rules" { "rules" }
                        a href="#targets" { "targets" }
                        a href="#impostors" { "impostors" }
                        a href="#robots" { "robots.txt" }
                        @if page.trend.is_some() { a href="#trend" { "trend" } }
                    }
                }
                (verdict(page))
                (health(page))
                (traffic::traffic(page))
                (rules(page))
                (targets(page))
                (impostors(page))
                section #robots {
                    h2 { "robots.txt as written" }
                    @for (i, text) in page.robots.iter().enumerate() {
                        (robots(text, robots_budget(&page.robots[..i], page.robots.len())))
                    }
                    @if page.robots_versions_left_out > 0 {
                        p.more { (page.robots_versions_left_out) " more versions not shown here (none decided a row tonight, or older ones); the state or --robots-history holds them." }
                    }
                }
                @if let Some(trend) = &page.trend { (self::trend(trend)) }
                footer { p.more { "robots-audit " (env!("CARGO_PKG_VERSION")) } }
            }
        }
    };
    let mut page = markup.into_string();
    // A text file ends with a line end; a reader can tell a whole page.
    page.push('\n');
    page
}

fn verdict(page: &Page) -> Markup {
    let shown = page.crawlers.len().min(CRAWLERS_SHOWN);
    html! {
        section #verdict {
            h2 { "Verdict per crawler" }
            p { "Violations are rows that accuse the crawler; informing rows (a rule the crawler does not read, Seznam's home-page exception) are counted apart and left out of the verdict." }
            @if page.crawlers.is_empty() { p { "No crawler fetch was audited." } }
            @else { div.scroll { table #verdict-table {
                thead { tr {
                    th { "crawler" } th.n { "fetches" }
                    @for kind in KINDS { th.n { (kind) } }
                    th.n { "informing" }
                    @for level in LEVELS { th.n { (level) } }
                    th.n { "impostor fetches" }
                } }
                tbody {
                    @for c in &page.crawlers[..shown] {
                        tr {
                            td { (cut(&c.crawler)) }
                            td.n { (c.fetches) }
                            @for n in c.violations {
                                td.n.bad[n > 0] { (n) }
                            }
                            td.n.info[c.informing.iter().sum::<u64>() > 0] { (c.informing.iter().sum::<u64>()) }
                            @for n in c.verification { td.n { (n) } }
                            td.n.bad[c.impostor_fetches > 0] { (c.impostor_fetches) }
                        }
                    }
                }
            } } }
            (more(page.crawlers.len(), shown, "crawlers"))
        }
    }
}

fn health(page: &Page) -> Markup {
    let h = &page.health;
    let shown = h.files.len().min(FILES_SHOWN);
    // Past the cap, the files that failed are the ones shown first (the
    // rows that say why the night is incomplete), then the others, each
    // in the order given.
    let mut chosen: Vec<usize> = (0..h.files.len())
        .filter(|&i| h.files[i].error.is_some())
        .chain((0..h.files.len()).filter(|&i| h.files[i].error.is_none()))
        .take(shown)
        .collect();
    chosen.sort_unstable();
    html! {
        section #health {
            h2 { "Health of the run" }
            ul {
                li { "Lines read: " (h.lines_read) "; skipped: "
                    span.bad[h.lines_skipped > 0] { (h.lines_skipped) }
                    @if !h.skipped.is_empty() {
                        " (" @for (i, (reason, n)) in h.skipped.iter().enumerate() {
                            @if i > 0 { ", " } (reason) ": " (n)
                        } ")"
                    }
                    @if h.already_audited > 0 {
                        "; audited on an earlier night (--state): " (h.already_audited)
                    }
                }
                li { "DNS: "
                    @if !h.dns.asked { "not asked (no --resolve)" }
                    @else if h.dns.resolver_unusable { span.bad { "no usable resolver" } }
                    @else {
                        "asked; " span.bad[h.dns.failures > 0] { (h.dns.failures) } " addresses that could not be checked"
                        @if h.dns.resolver_broken > 0 {
                            "; " span.bad { "the resolver looks broken" } " (" (h.dns.resolver_broken) " addresses inside a crawler's networks denied a name or an address, or named as no crawler they claim)"
                        }
                        @if h.dns.deadline_reached { "; " span.bad { "stopped at --dns-deadline" } }
                        @if h.dns.undecided_fetches > 0 {
                            "; " span.bad { (h.dns.undecided_fetches) " fetches from inside a crawler's networks could not be named" }
                            " (their lookups failed, and only DNS could tell whether they are a crawler's: the night is incomplete, run again)"
                        }
                    }
                }
                li { "robots.txt versions used: "
                    @if h.robots_versions.is_empty() { "none, no line was audited" }
                    @for (i, (version, when)) in h.robots_versions.iter().enumerate() {
                        @if i > 0 { ", " }
                        span.text { (version) }
                        (when)
                    }
                    @match (h.robots_versions_used_more, h.robots_versions_unused) {
                        (0, 0) => {}
                        (more, 0) => { " (and " (more) " more used tonight: run.json lists them)" }
                        (0, unused) if h.robots_versions.is_empty() => { " (" (unused) " known: run.json lists them)" }
                        (0, unused) => { " (and " (unused) " more known, not used tonight: run.json lists them)" }
                        (more, unused) => {
                            " (and " (more) " more used tonight, " (unused)
                            " more known, not used tonight: run.json lists them)"
                        }
                    }
                }
                li { "Fetches excused by the cache grace: " (h.excused_by_cache_grace) }
                @if h.left_out.outside_since_until > 0 {
                    li { "Fetches claiming a crawler outside --since/--until (spoofed ones too), in no report: " span.bad { (h.left_out.outside_since_until) } }
                }
                @if h.left_out.other_hosts > 0 {
                    li { "Crawler fetches of other hosts than --host, in no report: " span.bad { (h.left_out.other_hosts) } }
                }
                @if let Some(error) = &h.state_error {
                    li.bad { "The state was not saved (so the next night reads these logs again): " span.text { (cut(error)) } }
                }
            }
            div.scroll { table #files {
                thead { tr { th { "file" } th { "format" } th.n { "lines read" } th.n { "skipped" } th.n { "audited before" } th { "error" } } }
                tbody { @for f in chosen.iter().map(|&i| &h.files[i]) {
                    tr {
                        td.text { (cut(&f.file)) }
                        td.text { (cut(&f.format)) }
                        td.n { (f.lines_read) }
                        td.n.bad[f.lines_skipped > 0] { (f.lines_skipped) }
                        td.n { (f.already_audited) }
                        td.bad { @if let Some(e) = &f.error { (cut(e)) } }
                    }
                } }
            } }
            @if h.files.len() > shown {
                p.more { (h.files.len() - shown) " more files not shown here; run.json holds them all." }
            }
        }
    }
}

/// A `|`-joined list that may break after each `|`.
fn joined_breakable(list: &str) -> Markup {
    html! {
        @for (i, name) in list.split('|').enumerate() {
            @if i > 0 { "|" wbr; }
            (name)
        }
    }
}

/// Whether more than one robots.txt version is named.
fn several<'a>(mut versions: impl Iterator<Item = &'a str>) -> bool {
    match versions.next() {
        Some(first) => versions.any(|v| v != first),
        None => false,
    }
}

/// A version as the tables name it: its 12 hex digits, or what stood in
/// for robots.txt while it could not be fetched.
fn version_name(version: &str) -> &str {
    if version.is_empty() {
        "unreachable"
    } else {
        version
    }
}

fn rules(page: &Page) -> Markup {
    let shown = page.rules.len().min(RULES_SHOWN);
    // A rule is (robots_version, line, kind) (SPEC §7): with rows of
    // several versions, two rules may read alike but for it.
    let versions = page.rules_of_several_versions;
    html! {
        section #rules {
            h2 { "Rules broken most" }
            @if page.rules.is_empty() { p { "No rule decided a violation." } }
            @else {
                @if page.rules_inform {
                    p { "Rows that only inform (a line the crawler does not read, Seznam's \
                         documented fetch of the home page) accuse no crawler and are not in \
                         the verdict: the informing column counts them, and a rule with no \
                         other rows is shaded." }
                }
                div.scroll { table #rules-table {
                    thead { tr { th.n { "line" } th { "rule" } th { "kind" } th.n { "violations" } th.n { "informing" } th.n { "distinct targets" } th { "crawlers" } th { "first" } th { "last" } @if versions { th { "robots.txt" } } } }
                    tbody { @for r in &page.rules[..shown] {
                        tr.inform[r.informing == r.violations] {
                            td.n { @if r.rule_line > 0 { (r.rule_line) } }
                            td.text { (cut(&r.rule)) }
                            td { (r.kind) }
                            td.n.bad[r.violations > r.informing] { (r.violations - r.informing) }
                            td.n { (r.informing) }
                            td.n { (r.distinct_targets) }
                            td { (joined_breakable(&cut(&r.crawlers))) }
                            td { (r.first_time) }
                            td { (r.last_time) }
                            @if versions { td.text { (version_name(&r.robots_version)) } }
                        }
                    } }
                } }
                (more(usize::try_from(page.rules_total).unwrap_or(usize::MAX), shown, "rules"))
            }
        }
    }
}

fn targets(page: &Page) -> Markup {
    let shown = page.targets.len().min(TARGETS_SHOWN);
    let versions = several(page.targets.iter().map(|t| t.robots_version.as_str()));
    html! {
        section #targets {
            h2 { "Targets fetched most against a rule" }
            p { "By the rows that accuse: the (rule, target) pairs fetched most, over all rules." }
            @if page.targets.is_empty() { p { "None." } }
            @else {
                div.scroll { table #targets-table {
                    thead { tr { th.n { "violations" } th { "target" } th { "kind" } th.n { "line" } th { "rule" } @if versions { th { "robots.txt" } } } }
                    tbody { @for t in &page.targets[..shown] {
                        tr {
                            td.n { (t.violations) }
                            td.text { (cut(&t.target)) }
                            td { (t.kind) }
                            td.n { @if t.rule_line > 0 { (t.rule_line) } }
                            td.text { (cut(&t.rule)) }
                            @if versions { td.text { (version_name(&t.robots_version)) } }
                        }
                    } }
                } }
                (more(
                    usize::try_from(page.targets_total)
                        .unwrap_or(usize::MAX)
                        .max(page.targets.len()),
                    shown,
                    "targets",
                ))
            }
        }
    }
}

fn impostors(page: &Page) -> Markup {
    let shown = page.impostors.len().min(ADDRESSES_SHOWN);
    html! {
        section #impostors {
            h2 { "Impostor addresses" }
            @if page.impostors.is_empty() { p { "No fetch pretended to be a crawler from an address that disproves it." } }
            @else {
                div.scroll { table #impostors-table {
                    thead { tr { th { "address" } th { "claimed" } th.n { "fetches" } th { "PTR name" } th { "reason" } th { "first" } th { "last" } } }
                    tbody { @for a in &page.impostors[..shown] {
                        tr {
                            td.text { (cut(&a.client)) }
                            td { (cut(&a.claimed_crawlers)) }
                            td.n { (a.fetches) }
                            td.text { (cut(&a.ptr)) }
                            td { (a.reason) }
                            td { (a.first_time) }
                            td { (a.last_time) }
                        }
                    } }
                } }
                (more(
                    usize::try_from(page.impostor_addresses).unwrap_or(usize::MAX),
                    shown,
                    "addresses",
                ))
            }
        }
    }
}

/// Bytes the robots.txt tables may take in all: one version's lines
/// written with the most escaping (`"` is `&quot;`) take about 1.3 MB, and
/// five versions would pass the page's 5,000,000 bytes (SPEC §7).
pub const ROBOTS_BYTES_SHOWN: usize = 1_500_000;

/// Bytes a robots.txt line's row may take, about: the markup around it
/// and its text as HTML writes it.
fn robots_row_bytes(line: &super::RobotsLine) -> usize {
    let text: usize = cut(&line.text)
        .chars()
        .map(|c| match c {
            '"' => 6,
            '&' => 5,
            '<' | '>' => 4,
            c => c.len_utf8(),
        })
        .sum();
    160 + text
}

/// The share of `ROBOTS_BYTES_SHOWN` the next of `total` versions may
/// take after the versions `before` it: an equal share of what those left.
fn robots_budget(before: &[RobotsText], total: usize) -> usize {
    let mut left = ROBOTS_BYTES_SHOWN;
    for (i, text) in before.iter().enumerate() {
        let share = left / (total - i);
        let used = robots_rows(text, share).1;
        left -= used.min(left);
    }
    left / (total - before.len()).max(1)
}

/// The lines of `text` shown within `budget` bytes: of the first
/// `ROBOTS_LINES_SHOWN` and of those past them that decided a row (at most
/// `ROBOTS_COUNTED_SHOWN`), the lines that decided a row first, then the
/// others from the top, while the budget lasts — so a file of long
/// comments never crowds out the rules the night is about — in file
/// order; and the bytes they take.
fn robots_rows(text: &RobotsText, budget: usize) -> (Vec<&super::RobotsLine>, usize) {
    let head = text.lines.len().min(ROBOTS_LINES_SHOWN);
    let decided = |l: &&super::RobotsLine| l.accusing + l.informing > 0;
    let counted = text.lines[head..]
        .iter()
        .filter(decided)
        .take(ROBOTS_COUNTED_SHOWN);
    let deciding = text.lines[..head].iter().filter(decided).chain(counted);
    let others = text.lines[..head].iter().filter(|l| !decided(l));
    let mut used = 0;
    let mut rows = Vec::new();
    for line in deciding.chain(others) {
        let bytes = robots_row_bytes(line);
        if used + bytes > budget {
            continue;
        }
        used += bytes;
        rows.push(line);
    }
    rows.sort_by_key(|l| l.number);
    (rows, used)
}

fn robots(text: &RobotsText, budget: usize) -> Markup {
    let (rows, _) = robots_rows(text, budget);
    let shown = rows.len();
    html! {
        div.version id=(format!("robots-{}", text.robots_version)) {
            p { "Version " span.text { (text.robots_version) } ". Each line with the violations it decided and, apart, the informing rows." }
            div.scroll { table id=(format!("robots-table-{}", text.robots_version)) {
                thead { tr { th.n { "line" } th.n { "violations" } th.n { "informing" } th { "text" } } }
                tbody { @for l in rows {
                    tr.hit[l.accusing > 0].inform[l.accusing == 0 && l.informing > 0] {
                        td.n { (l.number) }
                        td.n.bad[l.accusing > 0] { @if l.accusing > 0 { (l.accusing) } }
                        td.n.info[l.informing > 0] { @if l.informing > 0 { (l.informing) } }
                        td.text { (cut(&l.text)) }
                    }
                } }
            } }
            @if text.lines.len() > shown {
                p.more { (text.lines.len() - shown) " more lines not shown here; the robots.txt file holds them." }
            }
        }
    }
}

fn trend(nights: &[super::Night]) -> Markup {
    let mut names: Vec<&str> = nights
        .iter()
        .flat_map(|n| n.crawlers.iter().map(|(c, _, _)| c.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names.truncate(CHARTS_SHOWN);
    let start = nights.len().saturating_sub(30);
    html! {
        section #trend {
            h2 { "The last nights" }
            div.scroll { table #trend-table {
                thead {
                    tr { th { "night" } @for name in &names { th.n colspan="2" { (cut(name)) } } }
                    tr { th {} @for _ in &names { th.n { "fetches" } th.n { "violations" } } }
                }
                tbody { @for night in &nights[start..] {
                    tr {
                        td { (cut(&night.date)) }
                        @for name in &names {
                            @let found = night.crawlers.iter().find(|(c, _, _)| c == name);
                            td.n { (found.map_or(0, |f| f.1)) }
                            td.n.bad[found.is_some_and(|f| f.2 > 0)] { (found.map_or(0, |f| f.2)) }
                        }
                    }
                } }
            } }
        }
    }
}
