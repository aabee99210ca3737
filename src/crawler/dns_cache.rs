//! The persistent `--dns-cache` file (SPEC §1: "answers kept in a cache file
//! so a nightly run asks each address once"). Takes the file and a clock;
//! gives unexpired answers by address, and writes them back atomically.
//!
//! Format: a header line, then one tab-separated line per address:
//! `ADDRESS  UNIX-SECONDS  noname` or
//! `ADDRESS  UNIX-SECONDS  names  NAME  FORWARD  [NAME  FORWARD]...`
//! with FORWARD one of `confirmed`, `elsewhere`, `not-asked`. Failures are
//! never stored: the next run asks again.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use crate::crawler::address::parse_address;
use crate::crawler::verify::{DnsAnswer, Forward, NameCheck};
use crate::side_file::{self, Refusal, untrusted};

const HEADER: &str = "# robots-audit dns cache 1";

/// Answers by address, each with the time (Unix seconds) it was obtained.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsCache {
    entries: HashMap<IpAddr, (u64, DnsAnswer)>,
    /// True when entries were added or dropped since loading.
    changed: bool,
    /// Why the file loaded from must be left as it is: it was ignored as
    /// no cache of ours (a FIFO, a device, another user's file, a file
    /// others may write, or other content). `--dns-cache /dev/null` means
    /// "no cache", never "replace /dev/null".
    keep: Option<String>,
}

impl DnsCache {
    /// Reads the cache, dropping entries older than `max_age` seconds at
    /// `now`. A missing file is an empty cache; an unreadable or damaged
    /// one gives an empty (or partial) cache and a warning, never an error:
    /// the cache only saves time.
    pub fn load(path: &Path, now: u64, max_age: u64) -> (DnsCache, Option<String>) {
        let ignored = |why: String| {
            (
                DnsCache {
                    keep: Some(why.clone()),
                    ..DnsCache::default()
                },
                Some(format!(
                    "DNS cache {} ignored and left as it is: {why}",
                    path.display()
                )),
            )
        };
        let (text, meta) = match side_file::read(path) {
            Ok(read) => read,
            Err(Refusal::Unreadable(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return (DnsCache::default(), None);
            }
            Err(refusal) => return ignored(refusal.to_string()),
        };
        if let Some(why) = untrusted(&meta) {
            return ignored(why.to_string());
        }
        if text.is_empty() {
            // An empty file (made by `touch`) is an empty cache.
            return (DnsCache::default(), None);
        }
        let Ok(text) = String::from_utf8(text) else {
            return ignored("not UTF-8".to_string());
        };
        if text.lines().next() != Some(HEADER) {
            return ignored("not a robots-audit DNS cache".to_string());
        }
        let mut cache = DnsCache::default();
        let mut bad = 0usize;
        // The cache is written whole, every line ended: a last line without
        // its end was cut (a copy, a restore), and a cut list of names
        // would read as an answer that lacks the crawler's name.
        let ended = match text.strip_suffix('\n') {
            Some(whole) => whole,
            None => match text.rsplit_once('\n') {
                Some((kept, _cut)) => {
                    bad += 1;
                    cache.changed = true;
                    kept
                }
                // The header alone.
                None => &text,
            },
        };
        for line in ended.lines().skip(1) {
            if line.is_empty() {
                continue;
            }
            match parse_line(line) {
                Some((addr, time, answer)) => {
                    if now.saturating_sub(time) <= max_age && time <= now.saturating_add(86_400) {
                        cache.entries.insert(addr, (time, answer));
                    } else {
                        cache.changed = true;
                    }
                }
                None => {
                    bad += 1;
                    cache.changed = true;
                }
            }
        }
        let warning = (bad > 0).then(|| {
            format!(
                "DNS cache {}: {bad} damaged line(s) ignored",
                path.display()
            )
        });
        (cache, warning)
    }

    pub fn get(&self, addr: IpAddr) -> Option<&DnsAnswer> {
        self.entries.get(&addr).map(|(_, answer)| answer)
    }

    /// Every address with its answer, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (IpAddr, &DnsAnswer)> {
        self.entries
            .iter()
            .map(|(&addr, (_, answer))| (addr, answer))
    }

    /// Stores an answer obtained at `now`, unless it holds a failure or a
    /// name the file cannot hold (the address is then asked again next
    /// time).
    pub fn insert(&mut self, addr: IpAddr, now: u64, answer: &DnsAnswer) {
        if answer.has_failure() {
            // An older answer that was asked again is no longer believed.
            if self.entries.remove(&addr).is_some() {
                self.changed = true;
            }
            return;
        }
        if let DnsAnswer::Names(checks) = answer
            && !checks.iter().all(|c| is_storable_name(&c.name))
        {
            return;
        }
        self.entries.insert(addr, (now, answer.clone()));
        self.changed = true;
    }

    /// Drops what the cache held for `addr`: an answer asked again that
    /// is not to be kept.
    pub fn forget(&mut self, addr: IpAddr) {
        if self.entries.remove(&addr).is_some() {
            self.changed = true;
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// True when the file on disk no longer says what this cache holds.
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    /// The file's text, lines sorted by address so it diffs well.
    pub fn to_text(&self) -> String {
        let mut addrs: Vec<&IpAddr> = self.entries.keys().collect();
        addrs.sort();
        let mut out = String::with_capacity(64 * addrs.len() + HEADER.len() + 1);
        out.push_str(HEADER);
        out.push('\n');
        for addr in addrs {
            let Some((time, answer)) = self.entries.get(addr) else {
                continue;
            };
            let _ = write!(out, "{addr}\t{time}\t");
            match answer {
                DnsAnswer::NoName => out.push_str("noname"),
                DnsAnswer::Failed => out.push_str("failed"),
                DnsAnswer::Names(checks) => {
                    out.push_str("names");
                    for check in checks {
                        let _ = write!(out, "\t{}\t{}", check.name, forward_word(check.forward));
                    }
                }
            }
            out.push('\n');
        }
        out
    }

    /// False when the file loaded from was ignored and must be left as it
    /// is (its warning said so).
    pub fn may_replace(&self) -> bool {
        self.keep.is_none()
    }

    /// Writes the whole cache to `path` through a temporary file in the
    /// same directory and a rename, so a crash never leaves half a cache.
    /// Refused when the file was ignored on loading, or when `path` is now
    /// anything but missing or a regular file of this user's that others
    /// cannot write: the rename would replace it.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(why) = &self.keep {
            return Err(std::io::Error::other(format!("left as it is ({why})")));
        }
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(meta) if !meta.file_type().is_file() => {
                return Err(std::io::Error::other("left as it is (not a regular file)"));
            }
            Ok(meta) => {
                if let Some(why) = untrusted(&meta) {
                    return Err(std::io::Error::other(format!("left as it is ({why})")));
                }
            }
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&dir)?;
        let file_name = path
            .file_name()
            .map_or_else(|| "dns-cache".into(), |n| n.to_string_lossy().into_owned());
        // Created exclusively under a name nobody can guess (SPEC §5
        // "Temporary files"): a link planted at a predictable name would
        // have let another user choose which file the cache overwrites.
        let prefix = format!(".{file_name}.");
        remove_leftovers(&dir, &prefix);
        let mut temp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .tempfile_in(&dir)?;
        temp.write_all(self.to_text().as_bytes())?;
        temp.as_file().sync_all()?;
        temp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// Removes the temporary files that killed runs left beside the cache
/// (SPEC §5: "leftovers of a killed run are removed by the next"). The
/// cache has no lock, so only those older than an hour go: no run spends
/// that long writing a cache, and a younger one may be another run's.
fn remove_leftovers(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let Some(hour_ago) = std::time::SystemTime::now().checked_sub(LEFTOVER_AGE) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(prefix) || !name.ends_with(".tmp") {
            continue;
        }
        // `DirEntry::metadata` does not follow a link: a planted link is
        // judged (and removed) itself.
        if entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t < hour_ago)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// How old a temporary file beside the cache must be to count as left over.
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// True for a name the file can hold and read back: what a resolver gives
/// in presentation form (RFC 1035 §5.1, every odd octet written `\DDD` or
/// `\c`), so printable ASCII without blanks. A PTR name is chosen by whoever
/// owns the address: a tab or a line end written raw would split the line
/// and could forge another address's entry; and a name that is readable
/// but not a host name (`\=cmd`) must still read back, or every run would
/// call the cache damaged.
fn is_storable_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 1024 && name.bytes().all(|b| b.is_ascii_graphic())
}

fn forward_word(forward: Forward) -> &'static str {
    match forward {
        Forward::Confirmed => "confirmed",
        Forward::Elsewhere => "elsewhere",
        Forward::Failed => "failed",
        Forward::NotAsked => "not-asked",
    }
}

fn parse_line(line: &str) -> Option<(IpAddr, u64, DnsAnswer)> {
    let mut fields = line.split('\t');
    let addr = parse_address(fields.next()?)?;
    let time: u64 = fields.next()?.parse().ok()?;
    let answer = match fields.next()? {
        "noname" => DnsAnswer::NoName,
        "names" => {
            let rest: Vec<&str> = fields.by_ref().collect();
            if rest.is_empty() || !rest.len().is_multiple_of(2) {
                return None;
            }
            let mut checks = Vec::with_capacity(rest.len() / 2);
            for pair in rest.chunks(2) {
                let forward = match pair[1] {
                    "confirmed" => Forward::Confirmed,
                    "elsewhere" => Forward::Elsewhere,
                    "not-asked" => Forward::NotAsked,
                    _ => return None,
                };
                if !is_storable_name(pair[0]) {
                    return None;
                }
                checks.push(NameCheck {
                    name: pair[0].to_string(),
                    forward,
                });
            }
            DnsAnswer::Names(checks)
        }
        _ => return None,
    };
    if fields.next().is_some() {
        return None;
    }
    Some((addr, time, answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn names(list: &[(&str, Forward)]) -> DnsAnswer {
        DnsAnswer::Names(
            list.iter()
                .map(|(n, f)| NameCheck {
                    name: n.to_string(),
                    forward: *f,
                })
                .collect(),
        )
    }

    #[test]
    fn round_trip_and_expiry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/dns-cache.tsv");
        let mut cache = DnsCache::default();
        cache.insert(
            ip("77.75.77.1"),
            1000,
            &names(&[("fulltextrobot-77-75-77-1.seznam.cz", Forward::Confirmed)]),
        );
        cache.insert(
            ip("2a02:598:a::78:90"),
            2000,
            &names(&[
                ("a.example.com", Forward::NotAsked),
                (
                    "fulltextrobot-2a02-598-a--78-90.seznam.cz",
                    Forward::Elsewhere,
                ),
            ]),
        );
        cache.insert(ip("6.6.6.6"), 1500, &DnsAnswer::NoName);
        cache.insert(ip("6.6.6.7"), 1500, &DnsAnswer::Failed);
        cache.insert(
            ip("6.6.6.8"),
            1500,
            &names(&[("fulltextrobot-6-6-6-8.seznam.cz", Forward::Failed)]),
        );
        assert_eq!(cache.len(), 3, "failures are not stored");
        cache.save(&path).unwrap();

        let (loaded, warning) = DnsCache::load(&path, 2000, 10_000);
        assert_eq!(warning, None);
        assert_eq!(loaded.entries, cache.entries);
        assert!(!loaded.is_changed());

        // At 2600 with a 1200 s limit, the entry from 1000 has expired.
        let (loaded, _) = DnsCache::load(&path, 2600, 1200);
        assert_eq!(loaded.len(), 2);
        assert!(loaded.get(ip("77.75.77.1")).is_none());
        assert_eq!(loaded.get(ip("6.6.6.6")), Some(&DnsAnswer::NoName));
        assert!(loaded.is_changed());
    }

    #[test]
    fn names_chosen_by_an_address_owner_read_back_or_are_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dns-cache.tsv");
        // As the resolver writes odd octets: escaped, so storable.
        let escaped = "\\=cmd\\|\\'\\040\\/C.\\0127.7.7.7\\011names.example";
        // Raw line ends and tabs would forge an entry for 7.7.7.7.
        let forged = "x\n7.7.7.7\t100\tnames\tfulltextrobot-7-7-7-7.seznam.cz\tconfirmed\nx";
        let mut cache = DnsCache::default();
        cache.insert(ip("6.6.6.6"), 100, &names(&[(escaped, Forward::NotAsked)]));
        cache.insert(ip("6.6.6.7"), 100, &names(&[(forged, Forward::NotAsked)]));
        cache.insert(ip("6.6.6.8"), 100, &names(&[("a b", Forward::NotAsked)]));
        assert_eq!(cache.len(), 1);
        cache.save(&path).unwrap();
        let (loaded, warning) = DnsCache::load(&path, 100, 1000);
        assert_eq!(warning, None);
        assert_eq!(loaded.entries, cache.entries);
        assert!(loaded.get(ip("7.7.7.7")).is_none());
    }

    #[test]
    fn damage_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dns-cache.tsv");
        let cases: &[(&[u8], usize, bool)] = &[
            (b"garbage\n", 0, true),
            (b"\xff\xfe", 0, true),
            (b"", 0, false),
            (
                b"# robots-audit dns cache 1\n1.2.3.4\t100\tnoname\n1.2.3\t100\tnoname\n\
                  1.2.3.5\tx\tnoname\n1.2.3.6\t100\tnames\ta.b\tsure\n1.2.3.7\t100\tnames\n\
                  1.2.3.8\t100\tnoname\textra\n",
                1,
                true,
            ),
            (
                b"# robots-audit dns cache 1\n1.2.3.4\t100\tnoname\n",
                1,
                false,
            ),
            // A last line without its end was cut: its list of names may
            // lack the crawler's, so it is no answer.
            (
                b"# robots-audit dns cache 1\n1.2.3.4\t100\tnoname\n\
                  77.75.77.2\t100\tnames\tfoo.example.com\tnot-asked",
                1,
                true,
            ),
            (b"# robots-audit dns cache 1", 0, false),
        ];
        for (text, kept, warns) in cases {
            std::fs::write(&path, text).unwrap();
            let (cache, warning) = DnsCache::load(&path, 100, 1000);
            assert_eq!(cache.len(), *kept, "{}", String::from_utf8_lossy(text));
            assert_eq!(
                warning.is_some(),
                *warns,
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        let (cache, warning) = DnsCache::load(&dir.path().join("missing"), 100, 1000);
        assert!(cache.is_empty() && warning.is_none());
        let (cache, warning) = DnsCache::load(dir.path(), 100, 1000);
        assert!(
            cache.is_empty() && warning.is_some(),
            "a directory is unreadable"
        );
    }

    /// A cache another user could write would let them verify an impostor
    /// (SPEC §1): it is ignored, with a warning naming it.
    #[test]
    fn a_cache_others_may_write_is_ignored_with_a_warning() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dns-cache.tsv");
        let mut cache = DnsCache::default();
        cache.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);
        cache.save(&path).unwrap();
        assert_eq!(DnsCache::load(&path, 100, 1000).0.len(), 1);
        for mode in [0o620, 0o602, 0o666] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let (loaded, warning) = DnsCache::load(&path, 100, 1000);
            assert!(loaded.is_empty(), "{mode:o}");
            let warning = warning.unwrap_or_default();
            assert!(warning.contains(&path.display().to_string()), "{warning}");
            assert!(warning.contains("writable by other users"), "{warning}");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(DnsCache::load(&path, 100, 1000).0.len(), 1);
        // Another owner: only root can hand a file over; others skip this.
        let nobody = Some(rustix::process::Uid::from_raw(65_534));
        if rustix::fs::chown(&path, nobody, None).is_ok() {
            let (loaded, warning) = DnsCache::load(&path, 100, 1000);
            assert!(loaded.is_empty());
            assert!(
                warning
                    .unwrap_or_default()
                    .contains("owned by another user")
            );
        }
    }

    /// A file ignored on loading is never replaced: `--dns-cache
    /// /dev/null` run as root must not turn `/dev/null` into a cache, nor a
    /// FIFO, another user's file or a file of other content.
    #[test]
    fn an_ignored_cache_is_left_as_it_is() {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let mut fresh = DnsCache::default();
        fresh.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);

        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "my notes\n").unwrap();
        let (mut loaded, warning) = DnsCache::load(&notes, 100, 1000);
        assert!(warning.unwrap_or_default().contains("left as it is"));
        loaded.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);
        assert!(loaded.save(&notes).is_err());
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");

        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let (mut loaded, _) = DnsCache::load(&fifo, 100, 1000);
        loaded.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);
        assert!(loaded.save(&fifo).is_err());
        // Even a cache not loaded from there never replaces one.
        assert!(fresh.save(&fifo).is_err());
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo());

        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&notes, &link).unwrap();
        assert!(fresh.save(&link).is_err());
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());

        let shared = dir.path().join("shared.tsv");
        fresh.save(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(fresh.save(&shared).is_err());
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o600)).unwrap();
        fresh.save(&shared).unwrap();

        // An empty file is an empty cache, written over.
        let empty = dir.path().join("empty.tsv");
        std::fs::write(&empty, "").unwrap();
        let (mut loaded, warning) = DnsCache::load(&empty, 100, 1000);
        assert!(warning.is_none());
        loaded.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);
        loaded.save(&empty).unwrap();
        assert_eq!(DnsCache::load(&empty, 100, 1000).0.len(), 1);
    }

    #[test]
    fn a_fifo_as_cache_is_ignored_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dns-cache.tsv");
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(made.unwrap().success());
        let (loaded, warning) = DnsCache::load(&path, 100, 1000);
        assert!(loaded.is_empty());
        assert!(warning.unwrap_or_default().contains("FIFO"));
    }

    /// The temporary file is made exclusively under a random name: links
    /// planted at every name the earlier version would have used are left
    /// alone, and so are the files they point to.
    #[test]
    fn save_never_writes_through_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep\n").unwrap();
        let path = dir.path().join("dns-cache.tsv");
        let planted = dir
            .path()
            .join(format!(".dns-cache.tsv.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let mut cache = DnsCache::default();
        cache.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);
        cache.save(&path).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep\n");
        assert!(planted.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(DnsCache::load(&path, 100, 1000).0.len(), 1);
    }

    #[test]
    fn old_leftovers_of_killed_runs_are_removed_young_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dns-cache.tsv");
        let old = dir.path().join(".dns-cache.tsv.4242.tmp");
        let young = dir.path().join(".dns-cache.tsv.AbCdEf.tmp");
        let other = dir.path().join(".notes.tmp");
        for file in [&old, &young, &other] {
            std::fs::write(file, b"x").unwrap();
        }
        let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        for file in [&old, &other] {
            std::fs::File::options()
                .write(true)
                .open(file)
                .unwrap()
                .set_modified(two_hours_ago)
                .unwrap();
        }
        let mut cache = DnsCache::default();
        cache.insert(ip("6.6.6.6"), 100, &DnsAnswer::NoName);
        cache.save(&path).unwrap();
        assert!(!old.exists());
        assert!(young.exists() && other.exists());
    }
}
