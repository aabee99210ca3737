//! Stage 4 and 5, what judging and writing do on the threads
//! `pipeline.rs` starts: each fetch's identity decided (SPEC §2) and its
//! `disallow` verdict, the batches handed from judge to writer, the
//! totals of a judged batch gathered (`report::Digest`); and the rules
//! each crawler is judged by, compiled once per version.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use crate::audit::{self, Counted, Impostor, Policy, SpoofReason, Violation};
use crate::crawler::{Client, CrawlerId, Identifier, Identity, Knowledge, Verification};
use crate::fetch::Fetch;
use crate::report::{self, Digest};
use crate::robots::AgentRules;
use crate::robots::group::Reads;
use crate::robots::matcher::{Robots, SelectionKey};
use crate::robots::versions::{Version, Versions};
use crate::state::NightRows;

/// What a fetch turned out to be, once its address's names are known.
pub(super) enum Decided<'r> {
    /// A crawler's, with its `disallow` row if it has one.
    Counted(Counted, Option<Violation<'r>>),
    Impostor(Impostor),
    /// Nobody's: a crawler host's fetch that no crawler claims after all.
    Nobody,
    /// A crawler's, of another virtual host than `--host` names: not
    /// judged by this robots.txt.
    OtherHost,
    /// A crawler's fetch of `/robots.txt` before `--since`: it tells the
    /// judge what the crawler knew, and is neither counted nor written.
    Before(Counted),
}

/// Bytes an identity the judge remembers holds, about (its client field,
/// its PTR name, the maps' overhead): the cache's share of `--memory`
/// (a twentieth) is divided by it.
pub(super) const IDENTITY_BYTES: usize = 320;

/// Who a client field with a claim is: the same for every fetch of it, so
/// decided once per distinct pair (matching PTR names against the crawlers'
/// patterns is the costly part), with why an impostor is one.
pub(super) type Identities = HashMap<
    Option<CrawlerId>,
    HashMap<Box<[u8]>, Option<(Identity, Option<SpoofReason>)>, foldhash::fast::RandomState>,
    foldhash::fast::RandomState,
>;

/// Who `client` with `claim` is.
pub(super) fn identify(
    ident: &Identifier,
    knowledge: &Knowledge,
    client: &[u8],
    claim: Option<CrawlerId>,
) -> Option<(Identity, Option<SpoofReason>)> {
    let client = crate::crawler::parse_client(client);
    let identity = knowledge.decide(ident, &client, claim)?;
    if identity.verification != Verification::Spoofed {
        return Some((identity, None));
    }
    // A name of the claimed crawler's own form is refuted only by its
    // forward lookup; any other name, by being another's.
    let addr = match client {
        Client::Addr(addr) => Some(addr),
        _ => None,
    };
    let reason = match identity.ptr.as_deref() {
        None => SpoofReason::NoPtr,
        Some(name) => match ident.by_name_claimed(name, addr, Some(identity.crawler)) {
            Some(id) if ident.same_token(id, identity.crawler) => SpoofReason::ForwardMismatch,
            _ => SpoofReason::PtrMismatch,
        },
    };
    Some((identity, Some(reason)))
}

/// Who made `fetch`, and the `disallow` verdict for a crawler's under the
/// robots.txt version in force at its time.
pub(super) fn decide<'r>(
    identities: &Identities,
    policies: &[Vec<Policy<'r>>],
    versions: Option<&Versions>,
    fetch: Fetch,
) -> Decided<'r> {
    let known = identities
        .get(&fetch.claim)
        .and_then(|clients| clients.get(fetch.client()));
    let Some(Some((identity, reason))) = known else {
        return Decided::Nobody;
    };
    if let Some(reason) = *reason {
        if fetch.before_period {
            return Decided::Nobody;
        }
        return Decided::Impostor(Impostor {
            claimed: identity.crawler.index(),
            ptr: identity.ptr.clone(),
            reason,
            fetch,
        });
    }
    let counted = |fetch| Counted {
        fetch,
        crawler: identity.crawler.index(),
        verification: identity.verification,
        identified_by: identity.identified_by,
    };
    match (fetch.before_period, fetch.other_host) {
        (true, true) => return Decided::Nobody,
        (true, false) => return Decided::Before(counted(fetch)),
        (false, true) => return Decided::OtherHost,
        (false, false) => {}
    }
    let crawler = identity.crawler.index();
    let version = versions.map_or(0, |v| v.index_at(fetch.time.instant_ms()));
    let disallow = audit::disallow::judge(&policies[version][crawler], fetch.target());
    Decided::Counted(counted(fetch), disallow)
}

/// Fetches whose user agent claims no crawler, from addresses inside a
/// crawler's networks whose reverse lookup failed: only DNS could say
/// whether they are a crawler's, so they are in no report, and the run
/// cannot be called whole (`Knowledge::undecided`).
#[derive(Debug, Default)]
pub(super) struct Undecided {
    pub(super) fetches: u64,
    /// The first few addresses, for the message.
    pub(super) addresses: Vec<IpAddr>,
}

impl Undecided {
    /// Addresses named in the message at most.
    pub(super) const SHOWN: usize = 3;

    pub(super) fn note(&mut self, ident: &Identifier, knowledge: &Knowledge, client: &[u8]) {
        let client = crate::crawler::parse_client(client);
        if !knowledge.undecided(ident, &client) {
            return;
        }
        self.fetches += 1;
        if let crate::crawler::Client::Addr(addr) = client {
            let addr = addr.to_canonical();
            if self.addresses.len() < Self::SHOWN && !self.addresses.contains(&addr) {
                self.addresses.push(addr);
            }
        }
    }
}

/// Addresses inside a crawler's networks whose fetches claim it and
/// whose reverse lookup named them otherwise: a lying or filtering
/// resolver's answer, not believed (`Knowledge::belied`); said after
/// judging and counted among the DNS failures.
#[derive(Debug, Default)]
pub(super) struct Belied {
    /// The addresses, up to `KEPT`, and the first with its name.
    pub(super) addresses: std::collections::HashSet<IpAddr>,
    pub(super) first: Option<(IpAddr, String)>,
}

impl Belied {
    /// Distinct addresses counted at most: those of the operator's own
    /// networks that sent the night's fetches, a few.
    const KEPT: usize = 1 << 16;

    pub(super) fn note(
        &mut self,
        ident: &Identifier,
        knowledge: &Knowledge,
        client: &[u8],
        claim: Option<CrawlerId>,
    ) {
        let client = crate::crawler::parse_client(client);
        let Some((addr, name)) = knowledge.belied(ident, &client, claim) else {
            return;
        };
        if self.addresses.len() < Self::KEPT {
            self.addresses.insert(addr);
        }
        self.first.get_or_insert((addr, name));
    }
}

/// Fetches judged at once: identity and `disallow` in parallel, the rest
/// in order. Bounded in bytes too, since a fetch may hold a whole target
/// of up to a line's 1 MiB. Three batches are alive in the judging phase
/// (one merged while one is decided, one being written), so each is half
/// of what two once were.
pub(super) const BATCH: usize = 2048;
pub(super) const BATCH_BYTES: usize = 2 << 20;

/// What the judge hands to the writer, in order: a crawler's fetch with
/// the rows it made, or an impostor's fetch.
pub(super) enum Judged<'r> {
    Counted(Counted, Vec<Violation<'r>>),
    Impostor(Impostor),
}

/// Batches judged but not yet written, beside the one being judged, the
/// next one being merged and the one being written: none, the judge hands
/// each batch over in person, so the judging phase holds three batches
/// (`BATCH_BYTES` each) and the rows' text of one, whatever the log.
pub(super) const BATCHES_IN_FLIGHT: usize = 0;

/// The totals and the night's counts of one judged batch, in its order.
pub(super) fn count_judged(
    batch: &[Judged<'_>],
    digest: &mut Digest<'_>,
    gather: &mut report::html::build::Gather,
    mut nightly: Option<&mut NightRows>,
) {
    for judged in batch {
        match judged {
            Judged::Counted(counted, made) => {
                digest.counted(counted);
                gather.counted(counted);
                if let Some(nightly) = nightly.as_deref_mut() {
                    nightly.counted(counted.crawler, &counted.fetch.time);
                    for row in made.iter().filter(|row| row.accuses()) {
                        let time = &counted.fetch.time;
                        nightly.violation(counted.crawler, time, row.kind.as_str());
                    }
                }
                for row in made {
                    digest.violation(counted, row);
                    gather.violation(counted, row);
                }
            }
            Judged::Impostor(impostor) => {
                if let Some(nightly) = nightly.as_deref_mut() {
                    nightly.impostor(impostor.claimed, &impostor.fetch.time);
                }
                digest.impostor(impostor);
                gather.impostor(impostor);
            }
        }
    }
}

/// The rules each crawler is judged by: for each robots.txt version
/// judged, the rules of each selection (a robots.txt token and the records
/// it reads), compiled once. Versions that hold the same records (a CMS
/// that writes the time into a comment makes a version an hour) share one
/// compiled copy; each keeps its own `robots_version`.
pub(super) struct Compiled {
    /// The distinct compiled rules, and the index into them of each
    /// selection (tokens that select the same groups share them).
    rules: Vec<(Vec<AgentRules>, Vec<usize>)>,
    /// By version: its `robots_version` and its index into `rules`.
    versions: Vec<(Arc<str>, usize)>,
    /// By crawler (profile): its selection.
    token_of: Vec<usize>,
}

impl Compiled {
    pub(super) fn new(ident: &Identifier, judged: &[Version]) -> Compiled {
        // One compiled selection per robots.txt token and the records read:
        // SeznamBot, FreshBot and SeznamBot-test all read the SeznamBot groups
        // alike.
        let mut selections: Vec<(String, Reads)> = Vec::new();
        let token_of: Vec<usize> = ident
            .profiles()
            .iter()
            .map(|p| {
                let key = (crate::robots::agent::robot_of(&p.token), p.reads);
                selections
                    .iter()
                    .position(|s| *s == key)
                    .unwrap_or_else(|| {
                        selections.push(key);
                        selections.len() - 1
                    })
            })
            .collect();
        let mut rules: Vec<(Vec<AgentRules>, Vec<usize>)> = Vec::new();
        let mut versions = Vec::with_capacity(judged.len());
        // The version before, parsed, with its index into `rules`: the
        // parse is let go once the next version is compared with it.
        let mut before: Option<(Robots, usize)> = None;
        for version in judged {
            let robots = version.parse();
            let at = match &before {
                Some((earlier, at)) if earlier.file().same_records(robots.file()) => *at,
                _ => {
                    rules.push(compile_selections(&robots, &selections));
                    rules.len() - 1
                }
            };
            versions.push((Arc::from(version.robots_version()), at));
            before = Some((robots, at));
        }
        Compiled {
            rules,
            versions,
            token_of,
        }
    }

    /// By version, each crawler's policy (SPEC §3, §4).
    pub(super) fn policies<'c>(&'c self, ident: &'c Identifier) -> Vec<Vec<Policy<'c>>> {
        self.versions
            .iter()
            .map(|(version, at)| {
                let (rules, shared) = &self.rules[*at];
                ident
                    .profiles()
                    .iter()
                    .zip(&self.token_of)
                    .map(|(profile, &selection)| Policy {
                        version,
                        ..Policy::new(profile, &rules[shared[selection]])
                    })
                    .collect()
            })
            .collect()
    }
}

/// A version's rules for each selection, tokens that select the same
/// groups sharing one compiled copy: (rules, the index into them of each
/// selection).
fn compile_selections(
    robots: &Robots,
    selections: &[(String, Reads)],
) -> (Vec<AgentRules>, Vec<usize>) {
    let mut compiled: Vec<(Reads, SelectionKey, AgentRules)> = Vec::new();
    let mut read: Vec<(Reads, Robots)> = Vec::new();
    let shared = selections
        .iter()
        .map(|(token, reads)| {
            let at = read
                .iter()
                .position(|(r, _)| r == reads)
                .unwrap_or_else(|| {
                    read.push((*reads, robots.read_as(*reads)));
                    read.len() - 1
                });
            let robots = &read[at].1;
            let key = robots.selection_key(token.as_bytes());
            let found = compiled
                .iter()
                .position(|(r, k, _)| r == reads && *k == key);
            found.unwrap_or_else(|| {
                compiled.push((*reads, key, robots.rules_for(token.as_bytes())));
                compiled.len() - 1
            })
        })
        .collect();
    (
        compiled.into_iter().map(|(_, _, rules)| rules).collect(),
        shared,
    )
}
