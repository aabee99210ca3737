//! DNS under fault and attacker-chosen PTR names, through the real binary
//! with `--resolve` (SPEC §1 "Address → name", §2 "A DNS failure … proves
//! nothing: the fetch stays unverified, and the summary counts such
//! failures"). Resolvers here drop every packet, answer late, answer
//! garbage, or set the truncation bit and then hang on TCP: the run ends
//! within its `--dns-deadline`, every such fetch is `unverified`, and the
//! summary says how many addresses could not be checked. Two hundred
//! attacker addresses with silent reverse zones cannot spend the deadline
//! before Seznam's own addresses are asked. PTR names of 255 octets full of
//! CSV and formula metacharacters reach the reports escaped and cannot
//! forge an entry of the DNS cache.

use crate::support;
use crate::support::hostile as common;

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::*;
use support::dns_server::{Behaviour, DnsServer, Zone};

/// How a hostile resolver treats each query.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Never answers.
    Drop,
    /// Answers NXDOMAIN, but only after this long.
    Late(Duration),
    /// Answers bytes that are no DNS message, under the query's ID.
    Garbage,
    /// Answers a header that promises records and holds none.
    Truncated,
    /// Sets the TC bit, so the client retries over TCP, where a listener
    /// accepts and never says a word.
    TcpHang,
}

/// A UDP (and, for `TcpHang`, TCP) responder on 127.0.0.1 that misbehaves.
struct HostileResolver {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl HostileResolver {
    fn start(fault: Fault) -> HostileResolver {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let addr = socket.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        if let Fault::TcpHang = fault {
            let listener = TcpListener::bind(addr).unwrap();
            listener.set_nonblocking(true).unwrap();
            let stop = Arc::clone(&stop);
            threads.push(std::thread::spawn(move || {
                let mut held = Vec::new();
                while !stop.load(Ordering::SeqCst) {
                    if let Ok((stream, _)) = listener.accept() {
                        held.push(stream);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            }));
        }
        let udp_stop = Arc::clone(&stop);
        threads.push(std::thread::spawn(move || {
            let mut buf = [0u8; 1500];
            let mut late: Vec<(Instant, Vec<u8>, SocketAddr)> = Vec::new();
            let mut noise: u32 = 0x9e37_79b9;
            while !udp_stop.load(Ordering::SeqCst) {
                let now = Instant::now();
                late.retain(|(due, reply, peer)| {
                    if *due <= now {
                        let _ = socket.send_to(reply, peer);
                        false
                    } else {
                        true
                    }
                });
                let Ok((len, peer)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                if len < 12 {
                    continue;
                }
                let query = &buf[..len];
                match fault {
                    Fault::Drop => {}
                    Fault::Late(delay) => {
                        let mut reply = query.to_vec();
                        reply[2] = 0x81;
                        reply[3] = 0x83; // NXDOMAIN
                        late.push((now + delay, reply, peer));
                    }
                    Fault::Garbage => {
                        let mut reply = query[..2].to_vec();
                        for _ in 0..64 {
                            noise ^= noise << 13;
                            noise ^= noise >> 17;
                            noise ^= noise << 5;
                            reply.push(noise as u8);
                        }
                        let _ = socket.send_to(&reply, peer);
                    }
                    Fault::Truncated => {
                        let mut reply = query[..12].to_vec();
                        reply[2] = 0x81;
                        reply[3] = 0x80;
                        reply[7] = 5; // five answers promised, none sent
                        let _ = socket.send_to(&reply, peer);
                    }
                    Fault::TcpHang => {
                        let mut reply = query.to_vec();
                        reply[2] = 0x83; // QR, TC, RD
                        reply[3] = 0x80;
                        let _ = socket.send_to(&reply, peer);
                    }
                }
            }
        }));
        HostileResolver {
            addr,
            stop,
            threads,
        }
    }
}

impl Drop for HostileResolver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A log of one disallowed fetch from each of `count` addresses whose user
/// agent claims SeznamBot.
fn claimed_fetches(dir: &std::path::Path, count: u32) -> std::path::PathBuf {
    let mut log = String::new();
    for i in 1..=count {
        log.push_str(&line(
            &format!("77.75.77.{i}"),
            &format!("30/Nov/2026:00:{:02}:00 +0100", i % 60),
            &format!("GET /cz/chat/{i} HTTP/1.1"),
            SEZNAM_UA,
        ));
    }
    write(dir, "access.log", log)
}

#[test]
fn a_resolver_that_drops_answers_late_or_answers_garbage_cannot_hold_the_run() {
    let deadline = 3.0;
    for fault in [
        Fault::Drop,
        Fault::Late(Duration::from_secs(2)),
        Fault::Garbage,
        Fault::Truncated,
        Fault::TcpHang,
    ] {
        let resolver = HostileResolver::start(fault);
        let dir = tempfile::tempdir().unwrap();
        let robots = write(dir.path(), "robots.txt", ROBOTS);
        let log = claimed_fetches(dir.path(), 40);
        let server = resolver.addr.to_string();
        let started = Instant::now();
        let run = run_within(
            &[
                "--log",
                s(&log),
                "--robots",
                s(&robots),
                "--resolve",
                "--dns-server",
                &server,
                "--dns-timeout",
                "0.5",
                "--dns-deadline",
                &deadline.to_string(),
                "--no-dns-cache",
            ],
            Duration::from_secs(60),
        );
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs_f64(deadline + 5.0),
            "{fault:?}: {took:?}"
        );
        assert_eq!(run.code(), Some(1), "{fault:?}: {}", run.stderr);
        let rows = rows(&run.stdout);
        assert_eq!(rows.len(), 41, "{fault:?}: {}", run.stderr);
        assert!(
            rows[1..].iter().all(|r| r[5] == "unverified"),
            "{fault:?}: {rows:?}"
        );
        assert!(
            run.stderr
                .contains("40 addresses could not be checked in DNS (left unverified)"),
            "{fault:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn two_hundred_silent_attackers_cannot_starve_the_genuine_crawlers() {
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut zone = Zone::default();
    let mut log = String::new();
    // Attackers outnumber and outfetch the genuine crawlers, and their
    // addresses sort first; their reverse zones never answer.
    for i in 0..200u32 {
        let attacker = format!("6.6.{}.{}", i / 100, i % 100 + 1);
        zone = zone.behave(&attacker, Behaviour::Silent);
        for k in 0..3 {
            log.push_str(&line(
                &attacker,
                &format!("30/Nov/2026:00:{:02}:00 +0100", (i + k) % 60),
                "GET /cz/chat/x HTTP/1.1",
                SEZNAM_UA,
            ));
        }
    }
    // Genuine SeznamBot addresses inside 77.75.72.0/21, one fetch each.
    for i in 1..=5u32 {
        let genuine = format!("77.75.77.{i}");
        zone = zone.host(&genuine, &format!("fulltextrobot-77-75-77-{i}.seznam.cz"));
        log.push_str(&line(
            &genuine,
            &format!("30/Nov/2026:00:00:{i:02} +0100"),
            "GET /cz/chat/y HTTP/1.1",
            SEZNAM_UA,
        ));
    }
    let log = write(dir.path(), "access.log", log);
    let server = DnsServer::start(zone);
    let server_addr = server.addr.to_string();
    // The default per-query timeout (2 s, twice) and concurrency (32); a
    // deadline that one round of silent queries would use up.
    let run = run_within(
        &[
            "--log",
            s(&log),
            "--robots",
            s(&robots),
            "--resolve",
            "--dns-server",
            &server_addr,
            "--dns-deadline",
            "3",
            "--no-dns-cache",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let rows = rows(&run.stdout);
    let verdicts: Vec<(&str, &str)> = rows[1..]
        .iter()
        .filter(|r| r[10] == "disallow")
        .map(|r| (r[3].as_str(), r[5].as_str()))
        .collect();
    assert_eq!(verdicts.len(), 605, "{}", run.stderr);
    for (client, verification) in verdicts {
        let want = if client.starts_with("77.75.77.") {
            "verified"
        } else {
            "unverified"
        };
        assert_eq!(verification, want, "{client}");
    }
    assert!(
        run.stderr.contains("200 addresses could not be checked"),
        "{}",
        run.stderr
    );
}

/// A PTR name of 255 octets on the wire: labels of `=`, `+`, `-`, `@`,
/// quotes, commas, tabs and line ends, and a line of the DNS cache's own
/// format that would, written raw, vouch for another address.
fn hostile_name(forged: &str) -> String {
    let labels = [
        "=cmd|' /C calc'!A0,\"x\"".to_string(),
        format!("\n{forged}\n"),
        "+1\t-1\r@SUM(1)".to_string(),
        "-".repeat(40),
    ];
    let mut name = labels.join(".");
    // Fill up to 253 characters of text, 255 octets on the wire.
    while name.len() < 253 {
        let room = (253 - name.len() - 1).min(63);
        if room == 0 {
            break;
        }
        name.push('.');
        name.push_str(&"=".repeat(room));
    }
    name
}

#[test]
fn ptr_names_of_255_octets_with_csv_metacharacters_are_escaped_and_forge_nothing() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let forged = format!("77.75.77.9\t{now}\tnames\tfulltextrobot-77-75-77-9.seznam.cz\tconfirmed");
    let name = hostile_name(&forged);
    assert!(name.len() >= 250 && name.len() <= 253, "{}", name.len());
    // 77.75.77.9 gets no answer at all: a failure, never cached, so only a
    // forged cache line could make it verified.
    let server = DnsServer::start(
        Zone::default()
            .ptr("6.6.6.6", &name)
            .behave("77.75.77.9", Behaviour::Silent),
    );
    let dir = tempfile::tempdir().unwrap();
    let robots = write(dir.path(), "robots.txt", ROBOTS);
    let mut log = line(
        "6.6.6.6",
        "30/Nov/2026:00:00:01 +0100",
        "GET /cz/chat/a HTTP/1.1",
        SEZNAM_UA,
    );
    log.push_str(&line(
        "77.75.77.9",
        "30/Nov/2026:00:00:02 +0100",
        "GET /cz/chat/b HTTP/1.1",
        SEZNAM_UA,
    ));
    let log = write(dir.path(), "access.log", log);
    let cache = dir.path().join("dns-cache.tsv");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let server_addr = server.addr.to_string();
    let args = [
        "--log",
        s(&log),
        "--robots",
        s(&robots),
        "--resolve",
        "--dns-server",
        &server_addr,
        "--dns-timeout",
        "0.5",
        "--dns-deadline",
        "5",
        "--dns-cache",
        s(&cache),
        "--out",
        s(&out),
    ];
    let run = run(&args);
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let impostors = rows(&std::fs::read(out.join("impostors.csv")).unwrap());
    assert_eq!(impostors.len(), 2, "{impostors:?}");
    let ptr = &impostors[1][4];
    assert!(!ptr.is_empty());
    assert!(
        !ptr.starts_with(['=', '+', '-', '@', '\t', '\r']),
        "{ptr:?}"
    );
    assert!(!ptr.contains(['\n', '\t', '\r']), "{ptr:?}");
    // 77.75.77.9 is not vouched for by anybody: its fetch stays unverified,
    // in this run and in the next, which reads the cache.
    let second = run_within(&args, Duration::from_secs(60));
    for (round, run) in [("first", &run), ("second", &second)] {
        assert_eq!(run.code(), Some(1), "{round}: {}", run.stderr);
        let violations = rows(&std::fs::read(out.join("violations.csv")).unwrap());
        let verdicts: Vec<(&str, &str)> = violations[1..]
            .iter()
            .map(|r| (r[3].as_str(), r[5].as_str()))
            .collect();
        assert_eq!(
            verdicts,
            [("77.75.77.9", "unverified")],
            "{round}: {}",
            run.stderr
        );
    }
    // The hostile name reads back from the cache: no "damaged" warning
    // every night, and 6.6.6.6 is not asked again.
    assert!(!second.stderr.contains("damaged"), "{}", second.stderr);
    let cache_text = std::fs::read_to_string(&cache).unwrap_or_default();
    assert!(
        cache_text.lines().any(|l| l.starts_with("6.6.6.6\t")),
        "{cache_text}"
    );
    assert!(
        !cache_text.lines().any(|l| l.starts_with("77.75.77.9\t")),
        "{cache_text}"
    );
}
