//! The state folder: fresh, round trip, refusals, atomic writing, the
//! lock, and the bounds on its size.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::*;
use crate::report::lock::OutDir;
use crate::robots::cache::{Recent, RobotsFetch};
use crate::robots::versions::Versions;
use fingerprint::hex;

fn t(s: &str) -> Timestamp {
    parse_rfc3339_or_date(s).unwrap()
}

fn locked(dir: &Path) -> StateDir {
    StateDir::lock(dir, Duration::ZERO, None).unwrap()
}

fn sample() -> State {
    let mut state = State::default();
    let versions = Versions::merge(vec![
        Entry {
            bytes: b"User-agent: *\nDisallow: /a\n".as_slice().into(),
            in_force_from: t("2026-11-29T14:00:00.250+01:00"),
            origin: Origin::History("a".into()),
        },
        Entry {
            bytes: b"User-agent: *\nDisallow: /b\n".as_slice().into(),
            in_force_from: t("2026-11-30T00:00:00Z"),
            origin: Origin::History("b".into()),
        },
    ])
    .unwrap();
    state.remember_versions(&versions);
    state.counts.insert(
        "SeznamBot".into(),
        CountMemory {
            robots_txt: Memory {
                last_fetch: Some(RobotsFetch {
                    time: t("2026-11-30T23:00:00-05:00"),
                    status: 503,
                }),
                last_success_ms: Some(1_796_000_000_000),
                outage_since_ms: Some(1_796_100_000_000),
                outage_last: Some(RobotsFetch {
                    time: t("2026-11-30T23:00:00-05:00"),
                    status: 503,
                }),
                recent: {
                    let mut recent = Recent::default();
                    for (time, status) in [
                        ("2026-11-30T23:00:00-05:00", 503),
                        ("2026-11-29T10:00:00+01:00", 404),
                    ] {
                        recent.insert(
                            RobotsFetch {
                                time: t(time),
                                status,
                            },
                            status != 404,
                        );
                    }
                    recent
                },
                whole_since_ms: Some(1_795_000_000_000),
                verifying: Some(true),
            },
            fetch_times_ms: vec![1, 2, 3],
            proven_times_ms: Some(vec![1, 3]),
        },
    );
    state
        .counts
        .insert("FreshBot".into(), CountMemory::default());
    state.add_fingerprint(fingerprint::of_text(&[], b"a\nb\nc\n", 1_796_000_000_000).fingerprint);
    state.add_night(Night {
        night: "2026-11-30".into(),
        crawler: "SeznamBot".into(),
        fetches: 10,
        violations: [("disallow".to_string(), 2)].into_iter().collect(),
        impostor_fetches: 1,
    });
    state
}

/// The state as loaded, without the file names that loading fills in.
fn without_files(mut state: State) -> State {
    for v in &mut state.versions {
        v.file = PathBuf::new();
    }
    state
}

#[test]
fn a_missing_or_empty_folder_is_a_fresh_state() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("not-yet");
    assert_eq!(locked(&missing).load().unwrap(), State::default());
    assert!(missing.is_dir(), "made, to hold the lock");
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    assert_eq!(locked(&empty).load().unwrap(), State::default());
}

#[test]
fn what_is_saved_is_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let state = sample();
    let store = locked(dir.path());
    store.save(&state).unwrap();
    let loaded = store.load().unwrap();
    assert_eq!(without_files(loaded.clone()), state);
    // The versions name the files that hold them, for messages.
    for v in &loaded.versions {
        assert_eq!(fs::read(&v.file).unwrap(), &*v.bytes);
        assert!(v.file.starts_with(dir.path().join("robots")));
    }
    // And they go back to robots::versions as entries of the state.
    let versions = Versions::merge(loaded.entries()).unwrap();
    assert_eq!(versions.all().len(), 2);
    assert!(matches!(versions.all()[0].origins()[0], Origin::State(_)));
    assert_eq!(
        versions.all()[0].in_force_from().rfc3339(),
        "2026-11-29T14:00:00.250+01:00"
    );
    // Saving what was loaded changes nothing.
    let before = fs::read(dir.path().join("state.json")).unwrap();
    store.save(&loaded).unwrap();
    assert_eq!(fs::read(dir.path().join("state.json")).unwrap(), before);
}

/// A state an earlier version wrote (format 1: no recent fetches of
/// /robots.txt) is read, as none, and saved in this format.
#[test]
fn a_state_of_format_1_is_read_and_saved_anew() {
    let dir = tempfile::tempdir().unwrap();
    let store = locked(dir.path());
    store.save(&sample()).unwrap();
    let path = dir.path().join("state.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    value["format"] = 1.into();
    for count in value["counts"].as_object_mut().unwrap().values_mut() {
        count["robots_txt"]
            .as_object_mut()
            .unwrap()
            .remove("recent")
            .unwrap();
        count["robots_txt"]
            .as_object_mut()
            .unwrap()
            .remove("recent_unverified")
            .unwrap();
    }
    fs::write(&path, value.to_string()).unwrap();
    let loaded = store.load().unwrap();
    let seznam = &loaded.counts["SeznamBot"].robots_txt;
    assert_eq!(seznam.recent.own().count(), 0);
    assert_eq!(
        seznam.last_fetch,
        sample().counts["SeznamBot"].robots_txt.last_fetch
    );
    store.save(&loaded).unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(value["format"], FORMAT);
}

#[test]
fn the_file_says_its_format_and_the_versions_a_person_knows() {
    let dir = tempfile::tempdir().unwrap();
    locked(dir.path()).save(&sample()).unwrap();
    let text = fs::read_to_string(dir.path().join("state.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["format"], FORMAT);
    assert_eq!(
        value["versions"][0]["robots_version"],
        &*crate::robots::matcher::version_of(b"User-agent: *\nDisallow: /a\n")
    );
}

/// A state.json of one log's fingerprint of 4 lines and 40 bytes, with
/// the digest and checkpoint given (JSON strings) and the checkpoint
/// after `lines` lines.
fn fingerprinted(sha256: &str, prefix: &str, lines: u64) -> String {
    format!(
        "{{\"format\": {FORMAT}, \"versions\": [], \"counts\": {{}}, \"fingerprints\": \
         [{{\"lines\": 4, \"bytes\": 40, \"sha256\": {sha256}, \"checkpoints\": \
         [{{\"lines\": {lines}, \"bytes\": 10, \"prefix\": {prefix}}}], \"audited_ms\": 0}}], \
         \"nights\": []}}"
    )
}

/// (what, state.json, words the error must hold).
#[test]
fn a_state_that_cannot_be_read_is_an_error_naming_it_and_left_alone() {
    let later = format!("{{\"format\": {}, \"whatever\": 1}}", FORMAT + 1);
    let cases: Vec<(&str, String, &str)> = vec![
        ("a later format", later, "later version"),
        ("garbage", "\u{1}\u{2}not json".into(), "not a state"),
        ("empty", String::new(), "not a state"),
        ("no format", "{\"versions\": []}".into(), "no \"format\""),
        ("an array", format!("[{}]", FORMAT + 1), "no \"format\""),
        (
            "a state's fields as an array",
            format!("[{FORMAT}, [], {{}}, [], []]"),
            "no \"format\"",
        ),
        ("a string", "\"state\"".into(), "no \"format\""),
        (
            "the format written twice",
            format!("{{\"format\": 0, \"format\": {}}}", FORMAT + 1),
            "later version",
        ),
        ("format 0", "{\"format\": 0}".into(), "format 0"),
        (
            "a field missing",
            format!("{{\"format\": {FORMAT}, \"versions\": []}}"),
            "missing field",
        ),
        (
            "an unknown field",
            format!(
                "{{\"format\": {FORMAT}, \"versions\": [], \"counts\": {{}}, \
                 \"fingerprints\": [], \"nights\": [], \"extra\": 1}}"
            ),
            "unknown field",
        ),
        (
            "a bad time",
            format!(
                "{{\"format\": {FORMAT}, \"versions\": [{{\"in_force_from\": \"yesterday\", \
                 \"robots_version\": \"x\", \"sha256\": \"{}\"}}], \"counts\": {{}}, \
                 \"fingerprints\": [], \"nights\": []}}",
                hex(&Sha256::digest(b""))
            ),
            "yesterday",
        ),
        (
            "a night that is no date",
            format!(
                "{{\"format\": {FORMAT}, \"versions\": [], \"counts\": {{}}, \
                 \"fingerprints\": [], \"nights\": [{{\"night\": \"2026-13-45\", \
                 \"crawler\": \"SeznamBot\", \"fetches\": 1, \"violations\": {{}}, \
                 \"impostor_fetches\": 0}}]}}"
            ),
            "2026-13-45",
        ),
        (
            "a kind of violation no audit gives",
            format!(
                "{{\"format\": {FORMAT}, \"versions\": [], \"counts\": {{}}, \
                 \"fingerprints\": [], \"nights\": [{{\"night\": \"2026-11-30\", \
                 \"crawler\": \"SeznamBot\", \"fetches\": 1, \"violations\": \
                 {{\"bogus\": 5}}, \"impostor_fetches\": 0}}]}}"
            ),
            "bogus",
        ),
        (
            "a log's digest that is no digest",
            fingerprinted("\"abc\"", "\"0123456789abcdef\"", 1),
            "\"abc\" is no digest",
        ),
        (
            "a checkpoint's prefix that is no digest",
            fingerprinted(&format!("{:?}", "a".repeat(64)), "\"xyz\"", 1),
            "\"xyz\"",
        ),
        (
            "a checkpoint past its log's lines",
            fingerprinted(&format!("{:?}", "a".repeat(64)), "\"0123456789abcdef\"", 9),
            "checkpoint (9 lines",
        ),
        (
            "a status of four digits",
            format!(
                "{{\"format\": {FORMAT}, \"versions\": [], \"counts\": {{\"SeznamBot\": \
                 {{\"robots_txt\": {{\"last_fetch\": {{\"time\": \
                 \"2026-12-01T00:00:00+00:00\", \"status\": 1000}}, \"last_success_ms\": \
                 null, \"outage_since_ms\": null, \"outage_last\": null}}, \
                 \"fetch_times_ms\": []}}}}, \"fingerprints\": [], \"nights\": []}}"
            ),
            "a status of 1000",
        ),
    ];
    for (what, text, words) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        fs::write(&path, &text).unwrap();
        if what == "a bad time" {
            fs::create_dir(dir.path().join("robots")).unwrap();
            fs::write(
                dir.path()
                    .join("robots")
                    .join(format!("{}.txt", hex(&Sha256::digest(b"")))),
                b"",
            )
            .unwrap();
        }
        let err = locked(dir.path()).load().unwrap_err().to_string();
        assert!(err.contains(words), "{what}: {err}");
        assert!(err.contains(&path.display().to_string()), "{what}: {err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), text, "{what}");
    }
}

/// A state another user may write could hide a night's violations (a
/// planted 4xx fetch of /robots.txt excuses every fetch after it): the
/// folder and state.json are held to the DNS cache's rule, refused and
/// left as they are.
#[test]
fn a_state_others_may_write_is_refused_and_left_alone() {
    let saved = |mode_of: &dyn Fn(&Path)| {
        let dir = tempfile::tempdir().unwrap();
        locked(dir.path()).save(&sample()).unwrap();
        mode_of(dir.path());
        let text = fs::read(dir.path().join("state.json")).unwrap();
        let err = StateDir::read_unlocked(dir.path()).unwrap_err().to_string();
        assert_eq!(fs::read(dir.path().join("state.json")).unwrap(), text);
        // Back to the owner's alone, for the temporary folder's removal.
        for path in [dir.path().to_path_buf(), dir.path().join("state.json")] {
            let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o700));
            let _ =
                std::os::unix::fs::chown(&path, Some(rustix::process::geteuid().as_raw()), None);
        }
        err
    };
    let chmod =
        |path: &Path, mode| fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    let err = saved(&|dir| chmod(&dir.join("state.json"), 0o666));
    assert!(
        err.contains("state.json") && err.contains("writable by other users"),
        "{err}"
    );
    let err = saved(&|dir| chmod(dir, 0o1777));
    assert!(
        err.contains("writable by other users") && err.contains("not trusted"),
        "{err}"
    );
    let err = saved(&|dir| chmod(dir, 0o775));
    assert!(err.contains("writable by other users"), "{err}");
    // Another user's: only root can give a file away.
    if rustix::process::geteuid().is_root() {
        let err = saved(&|dir| {
            std::os::unix::fs::chown(dir.join("state.json"), Some(65534), None).unwrap()
        });
        assert!(err.contains("owned by another user"), "{err}");
        let err = saved(&|dir| std::os::unix::fs::chown(dir, Some(65534), None).unwrap());
        assert!(err.contains("owned by another user"), "{err}");
    } else {
        eprintln!("not root: a state of another user's is not tried");
    }
    // Refused, the folder is left as it is: no lock made in it, no
    // leftover of a run swept from it.
    let open = tempfile::tempdir().unwrap();
    fs::write(open.path().join(".tmp-planted"), "x").unwrap();
    chmod(open.path(), 0o1777);
    let err = StateDir::lock(open.path(), Duration::ZERO, None).unwrap_err();
    assert!(err.to_string().contains("not trusted"), "{err}");
    assert!(open.path().join(".tmp-planted").exists());
    assert!(!open.path().join(".robots-audit").exists());
    chmod(open.path(), 0o700);
    // The tool's own folder and file, whatever the umask, are its to read.
    let dir = tempfile::tempdir().unwrap();
    let store = locked(&dir.path().join("new"));
    store.save(&sample()).unwrap();
    assert_eq!(
        without_files(store.load().unwrap()),
        without_files(sample())
    );
}

#[test]
fn a_version_file_missing_or_changed_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = locked(dir.path());
    store.save(&sample()).unwrap();
    let file = store.load().unwrap().versions[0].file.clone();
    fs::write(&file, "User-agent: *\nDisallow: /\n").unwrap();
    let err = store.load().unwrap_err().to_string();
    assert!(err.contains("SHA-256"), "{err}");
    fs::remove_file(&file).unwrap();
    let err = store.load().unwrap_err().to_string();
    assert!(err.contains(&file.display().to_string()), "{err}");
}

#[test]
fn leftovers_and_versions_no_longer_named_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let store = locked(dir.path());
    let mut state = sample();
    store.save(&state).unwrap();
    // A killed run's temporaries.
    fs::write(dir.path().join(".tmp-abc"), "half").unwrap();
    fs::write(dir.path().join("robots").join(".tmp-def"), "half").unwrap();
    store.load().unwrap();
    assert!(!dir.path().join(".tmp-abc").exists());
    assert!(!dir.path().join("robots").join(".tmp-def").exists());
    // One version fewer: its file goes after the new state.json is in place.
    state.versions.remove(0);
    store.save(&state).unwrap();
    let mut files: Vec<String> = fs::read_dir(dir.path().join("robots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec![format!(
            "{}.txt",
            hex(&Sha256::digest(&state.versions[0].bytes))
        )]
    );
    let mut top: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, vec![".robots-audit", "robots", "state.json"]);
}

#[test]
fn one_run_at_a_time_and_one_lock_when_out_is_the_same_folder() {
    let dir = tempfile::tempdir().unwrap();
    let first = locked(dir.path());
    let err = StateDir::lock(dir.path(), Duration::ZERO, None).unwrap_err();
    assert!(
        err.to_string().contains("another robots-audit run holds"),
        "{err}"
    );
    drop(first);
    let out = OutDir::lock(dir.path(), Duration::ZERO).unwrap();
    // The --out lock held by this run covers the state in the same folder.
    let state = StateDir::lock(dir.path(), Duration::ZERO, Some(&out)).unwrap();
    state.save(&sample()).unwrap();
    // Another folder gets its own lock.
    let other = tempfile::tempdir().unwrap();
    let _own = StateDir::lock(other.path(), Duration::ZERO, Some(&out)).unwrap();
    assert!(StateDir::lock(other.path(), Duration::ZERO, None).is_err());
}

#[test]
fn recent_fetch_times_are_bounded() {
    // (times, horizon, at most, kept)
    let cases: [(&[i64], i64, usize, &[i64]); 7] = [
        (&[], 1000, 10, &[]),
        (&[5], 0, 10, &[5]),
        (&[1, 2, 3, 1000, 1500, 2000], 1000, 10, &[1500, 2000]),
        // (t − T, t]: a fetch exactly T before the last is out.
        (&[1000, 1001, 2000], 1000, 10, &[1001, 2000]),
        (&[3, 1, 2], 10, 10, &[1, 2, 3]),
        (&[1, 2, 3, 4], 10, 2, &[3, 4]),
        // The last is always kept, for the next crawl delay.
        (&[1, 2], 0, 0, &[2]),
    ];
    for (times, horizon, at_most, kept) in cases {
        let mut count = CountMemory {
            fetch_times_ms: times.to_vec(),
            ..CountMemory::default()
        };
        count.keep_recent(horizon, at_most);
        assert_eq!(count.fetch_times_ms, kept, "{times:?} {horizon} {at_most}");
    }
}

#[test]
fn nights_add_up_and_expire_with_fingerprints() {
    let mut state = State::default();
    let row = |night: &str, crawler: &str, fetches| Night {
        night: night.into(),
        crawler: crawler.into(),
        fetches,
        violations: [("disallow".to_string(), fetches / 2)]
            .into_iter()
            .collect(),
        impostor_fetches: 1,
    };
    state.add_night(row("2026-11-30", "SeznamBot", 10));
    state.add_night(row("2026-08-31", "SeznamBot", 4));
    state.add_night(row("2026-11-30", "FreshBot", 6));
    state.add_night(row("2026-11-30", "SeznamBot", 4));
    let got: Vec<(&str, &str, u64, u64, u64)> = state
        .nights
        .iter()
        .map(|n| {
            (
                n.night.as_str(),
                n.crawler.as_str(),
                n.fetches,
                n.violations["disallow"],
                n.impostor_fetches,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("2026-08-31", "SeznamBot", 4, 2, 1),
            ("2026-11-30", "FreshBot", 6, 3, 1),
            ("2026-11-30", "SeznamBot", 14, 7, 2),
        ]
    );
    assert_eq!(state.trend("SeznamBot", 30).len(), 2);
    assert_eq!(state.trend("SeznamBot", 1)[0].night, "2026-11-30");

    let now = t("2026-12-01T04:30:00Z").instant_ms();
    let old = fingerprint::of_text(&[], b"old\n", now - 91 * DAY_MS).fingerprint;
    let young = fingerprint::of_text(&[], b"young\n", now - 89 * DAY_MS).fingerprint;
    state.add_fingerprint(old);
    state.add_fingerprint(young.clone());
    // The same log met again renews its time instead of adding a copy.
    let mut again = young.clone();
    again.audited_ms = now;
    state.add_fingerprint(again);
    assert_eq!(state.fingerprints.len(), 2);
    state.expire(now, 90);
    assert_eq!(state.fingerprints.len(), 1);
    assert_eq!(state.fingerprints[0].audited_ms, now);
    let nights: Vec<&str> = state.nights.iter().map(|n| n.night.as_str()).collect();
    assert_eq!(nights, vec!["2026-11-30", "2026-11-30"]);

    // A night of zeros a year ahead (a stray line) pushes no real night
    // out: expiry counts back from the newest night with a fetch.
    state.add_night(Night {
        night: "2027-12-21".to_string(),
        crawler: "SeznamBot".to_string(),
        fetches: 0,
        violations: BTreeMap::new(),
        impostor_fetches: 0,
    });
    state.expire(now, 90);
    let nights: Vec<&str> = state.nights.iter().map(|n| n.night.as_str()).collect();
    assert_eq!(nights, vec!["2026-11-30", "2026-11-30", "2027-12-21"]);
}

/// README: nights *more than* `--state-days` before the newest expire; a
/// night exactly that many days before it stays.
#[test]
fn a_night_exactly_state_days_before_the_newest_stays() {
    let mut state = State::default();
    for night in ["2026-11-19", "2026-11-20", "2026-11-30"] {
        state.add_night(Night {
            night: night.to_string(),
            crawler: "SeznamBot".to_string(),
            fetches: 1,
            violations: BTreeMap::new(),
            impostor_fetches: 0,
        });
    }
    state.expire(t("2026-12-01T04:30:00Z").instant_ms(), 10);
    let nights: Vec<&str> = state.nights.iter().map(|n| n.night.as_str()).collect();
    assert_eq!(nights, vec!["2026-11-20", "2026-11-30"]);
}

#[test]
fn the_night_of_a_fetch_is_its_date_in_the_log_offset() {
    for (time, night) in [
        ("2026-11-30T23:30:00+01:00", "2026-11-30"),
        ("2026-11-30T23:30:00-05:00", "2026-11-30"),
        ("2026-12-01T00:30:00+01:00", "2026-12-01"),
        ("1969-12-31T23:59:59Z", "1969-12-31"),
    ] {
        assert_eq!(night_of(&t(time)), night, "{time}");
    }
}

#[test]
fn the_dns_cache_lives_in_the_state() {
    assert_eq!(
        StateDir::dns_cache(Path::new("/var/lib/robots-audit")),
        PathBuf::from("/var/lib/robots-audit/dns-cache")
    );
}

/// A versions folder that is a link is swept by nobody: the leftovers a
/// run removes are its own, never those of the folder the link names.
#[test]
fn leftovers_are_never_swept_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(elsewhere.path().join(".tmp-theirs"), "x").unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("robots")).unwrap();
    fs::write(dir.path().join(".tmp-ours"), "x").unwrap();
    locked(dir.path()).load().unwrap();
    assert!(elsewhere.path().join(".tmp-theirs").exists());
    assert!(!dir.path().join(".tmp-ours").exists());
}

#[test]
fn a_versions_folder_that_is_a_link_or_open_to_others_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("robots")).unwrap();
    let err = locked(dir.path()).save(&sample()).unwrap_err().to_string();
    assert!(err.contains("not a directory"), "{err}");
    assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert!(!dir.path().join("state.json").exists());

    let open = tempfile::tempdir().unwrap();
    fs::create_dir(open.path().join("robots")).unwrap();
    fs::set_permissions(
        open.path().join("robots"),
        fs::Permissions::from_mode(0o777),
    )
    .unwrap();
    let err = locked(open.path()).save(&sample()).unwrap_err().to_string();
    assert!(err.contains("writable by other users"), "{err}");
}

/// A state whose night counts were edited to the largest there is keeps
/// them there: a night's counts added never wrap around to small ones.
#[test]
fn night_counts_saturate_rather_than_wrap() {
    let mut state = State::default();
    let row = |n: u64| Night {
        night: "2026-11-30".into(),
        crawler: "FreshBot".into(),
        fetches: n,
        violations: [("disallow".to_string(), n)].into_iter().collect(),
        impostor_fetches: n,
    };
    state.add_night(row(u64::MAX));
    state.add_night(row(3));
    let kept = &state.nights[0];
    assert_eq!(
        (
            kept.fetches,
            kept.violations["disallow"],
            kept.impostor_fetches
        ),
        (u64::MAX, u64::MAX, u64::MAX)
    );
}
