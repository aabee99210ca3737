//! `disallow` rows (SPEC §4): the robots.txt verdict for the crawler's
//! token and the fetched target, with the deciding rule. Seznam's documented
//! habit of fetching `/` under `User-agent: *` + `Disallow: /` is still a
//! row, marked with a note.

use rayon::prelude::*;

use super::{Fetch, Kind, Policy, Violation};

/// The note on a fetch of `/` that Seznam documents it makes anyway.
pub const HOMEPAGE_EXCEPTION: &str = "seznam-homepage-exception";

/// One row for every fetch its crawler's rules disallow, in fetch order.
pub fn judge<'r>(policies: &[Policy<'r>], fetches: &[Fetch]) -> Vec<Violation<'r>> {
    fetches
        .par_iter()
        .enumerate()
        .filter_map(|(index, fetch)| {
            let policy = &policies[fetch.crawler];
            let verdict = policy.rules.judge(&fetch.target);
            if verdict.allowed {
                return None;
            }
            let rule = verdict.rule?;
            let note = if policy.homepage_exception
                && fetch.target == b"/"
                && policy.rules.is_default_group(rule.group)
            {
                HOMEPAGE_EXCEPTION
            } else {
                ""
            };
            Some(Violation {
                fetch: index,
                kind: Kind::Disallow,
                group: policy.rules.group_label(rule.group),
                rule_line: rule.line,
                rule: &rule.text,
                robots_version: policy.rules.version(),
                detail: String::new(),
                note,
            })
        })
        .collect()
}
