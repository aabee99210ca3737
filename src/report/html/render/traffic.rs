//! The "fetches per minute against the allowed Request-rate" section of
//! report.html (SPEC §7: per crawler, fetches per minute over the audited
//! period against the allowed Request-rate, windows and the Seznam floor
//! drawn, violations marked): takes the page's charts; gives the section,
//! at most `CHARTS_SHOWN` charts, chosen and named as its note says.

use maud::{Markup, PreEscaped, html};

use super::super::chart::{self, Axis};
use super::super::{Page, Traffic, WindowClock};
use super::{ALLOWED_SHOWN, CHARTS_SHOWN, NAMES_LISTED, cut};
use crate::accesslog::zone::format_offset;

pub(super) fn traffic(page: &Page) -> Markup {
    let (first, last) = super::super::charts_span(&page.charts);
    let (shown, left_out) = charts_shown(&page.charts);
    html! {
        section #traffic {
            h2 { "Fetches per minute against the allowed Request-rate" }
            @if let (Some(first), Some(last)) = (first, last) {
                @let axis = Axis::new(first, last, page.offset_min);
                // The versions the night used, not only those with a
                // Request-rate line: a caption's "(line 3)" is then of a
                // version named.
                @let several_versions = page.health.robots_versions.len()
                    + page.health.robots_versions_used_more > 1;
                // Only what some chart shown draws.
                @let allowed = shown.iter().flat_map(|t| &t.allowed);
                @let rates = allowed.clone().next().is_some();
                @let floors = allowed.clone().any(|a| a.floor.is_some());
                @let windows = allowed.clone().any(|a| a.window.is_some());
                @let rate_rows = shown.iter().any(|t| t.rate_violations.total() > 0);
                @let other_rows = shown
                    .iter()
                    .any(|t| t.violations.total() > t.rate_violations.total());
                p.key {
                    span { span.sw.sw-f {} "fetches in the busiest minute of each step" }
                    @if rates { span { span.sw.sw-a {} "allowed per minute (the rate that holds)" } }
                    @if floors { span { span.sw.sw-g {} "written rate, where the Seznam floor raises it" } }
                    @if windows { span { span.sw.sw-w {} "Request-rate window" } }
                    @if rate_rows { span { span.sw.sw-r {} "request-rate violations in that step" } }
                    @if other_rows { span { span.sw.sw-o {} "other violations in that step (disallow, crawl-delay)" } }
                }
                p { "Times at UTC" (format_offset(page.offset_min)) ", the offset of the first fetch; \
                     Request-rate windows read in " (page.window_clock.name)
                    @if page.window_clock.changes_within(first, last) {
                        ", whose offset changes during the period: the windows are shaded where \
                         they were in force"
                    } "."
                    @if axis.step > 1 { " Each step is " (axis.step) " minutes." }
                }
                @if rates { p { "A fetch breaks " span.text { "Request-rate: N/T" } " when more than N \
                     fetches fall in the T seconds up to it, whatever minute they are in: \
                     the green line is N/T per minute, so where T is longer than a minute a \
                     burst can rise above it unbroken, and a rate can be broken under it."
                } }
                @if !page.shared_counts.is_empty() { p {
                    @for (i, group) in page.shared_counts.iter().enumerate() {
                        @if i > 0 { " " }
                        (group_names(group)) " share one count, as the site sees one robot \
                         (" span.text { "--rate-by crawler" } " counts each apart): a mark on \
                         one's chart may come from the others' fetches before it"
                        @let together = super::super::count_chart_name(group);
                        @if page.charts.iter().any(|t| t.crawler == together) {
                            ", and the chart " span.text { (cut(&together)) } " draws their \
                             fetches together, as their rates and delays are judged"
                        }
                        "."
                    }
                } }
                @for t in &shown { (one_chart(t, &axis, &page.window_clock, several_versions)) }
                @if !left_out.is_empty() {
                    p.more {
                        (left_out.len()) " more crawlers not charted here (the charts shown are \
                         of those with the most request-rate rows, then violations, then \
                         fetches): "
                        @for (i, t) in left_out.iter().take(NAMES_LISTED).enumerate() {
                            @if i > 0 { ", " }
                            (cut(&t.crawler))
                        }
                        @if left_out.len() > NAMES_LISTED { ", …" }
                        "; summary.csv counts them."
                    }
                }
            } @else {
                p { "No crawler fetch." }
            }
        }
    }
}

/// Names joined as a sentence: `A and B`, `A, B and C`.
fn group_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The charts shown, in name order, and those left out past
/// `CHARTS_SHOWN`: the crawlers with the most request-rate rows, then
/// the most violations, then the most fetches are shown, so that the cap
/// drops the chart of a rate broken only when more than `CHARTS_SHOWN`
/// crawlers broke one.
fn charts_shown(charts: &[Traffic]) -> (Vec<&Traffic>, Vec<&Traffic>) {
    use std::cmp::Reverse;
    let mut ranked: Vec<&Traffic> = charts.iter().collect();
    // Each chart's sums once, not at every comparison.
    ranked.sort_by_cached_key(|t| {
        (
            Reverse(t.rate_violations.total()),
            Reverse(t.violations.total()),
            Reverse(t.fetches.total()),
            t.crawler.clone(),
        )
    });
    let mut left_out = ranked.split_off(ranked.len().min(CHARTS_SHOWN));
    ranked.sort_by(|a, b| a.crawler.cmp(&b.crawler));
    left_out.sort_by(|a, b| a.crawler.cmp(&b.crawler));
    (ranked, left_out)
}

fn one_chart(t: &Traffic, axis: &Axis, clock: &WindowClock, several_versions: bool) -> Markup {
    let violations = t.violations.total();
    let allowed = chart::allowed_during(&t.allowed, axis);

    html! {
        div.crawler {
        h3 { (cut(&t.crawler)) }
        p { (t.fetches.total()) " fetches, "
            span.bad[violations > 0] { (violations) (if violations == 1 { " violation" } else { " violations" }) } "; "
            @if allowed.is_empty() { "robots.txt sets no Request-rate it reads." }
            @else {
                "allowed: "
                @for (i, a) in allowed.iter().take(ALLOWED_SHOWN).enumerate() {
                    @if i > 0 { "; " }
                    span.text { (cut(&a.text)) } " (line " (a.rule_line)
                    @if several_versions { " of robots.txt " span.text { (a.version) } }
                    ")"
                    @if let Some((n, s)) = a.floor { ", effective " (n) "/" (s) "s (the crawler's floor)" }
                }
                @if allowed.len() > ALLOWED_SHOWN {
                    "; and " (allowed.len() - ALLOWED_SHOWN) " more Request-rate lines (see robots.txt below)"
                }
            }
        }
        @match chart::draw(t, axis, clock) {
            // On a phone the chart keeps a width its labels read at, and
            // scrolls.
            Ok(svg) => div.scroll { (PreEscaped(svg)) },
            Err(why) => p.bad { "The chart could not be drawn: " (why) },
        }
        }
    }
}
