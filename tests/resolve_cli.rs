//! `--resolve` through the binary, against a DNS server the test starts on
//! 127.0.0.1: genuine crawlers become `verified`, a forged PTR and an
//! address with no name become impostors, silence leaves a fetch
//! `unverified`, and the cache spares the second night's queries.

mod support;

use std::process::Command;

use support::dns_server::{Behaviour, DnsServer, Zone};

const SEZNAM_UA: &str =
    "Mozilla/5.0 (compatible; SeznamBot/4.0; +http://napoveda.seznam.cz/seznambot-intro/)";

fn line(addr: &str, second: u32, target: &str, ua: &str) -> String {
    format!(
        "{addr} - - [30/Nov/2026:00:00:{second:02} +0000] \"GET {target} HTTP/1.1\" 200 5 \"-\" \"{ua}\"\n"
    )
}

fn zone() -> Zone {
    Zone::default()
        .host("77.75.77.1", "fulltextrobot-77-75-77-1.seznam.cz")
        .host(
            "2a02:598:a::78:91",
            "fulltextrobot-fresh-2a02-598-a--78-91.seznam.cz",
        )
        .ptr("6.6.6.6", "fulltextrobot-6-6-6-6.seznam.cz")
        .addr("fulltextrobot-6-6-6-6.seznam.cz", "77.75.77.66")
        .behave("6.6.6.9", Behaviour::Silent)
}

fn audit(server: &DnsServer, dir: &std::path::Path, log: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_robots-audit"))
        .arg("--log")
        .arg(log)
        .args([
            "--robots",
            "tests/data/check/robots.txt",
            "--resolve",
            "--dns-server",
        ])
        .arg(server.addr.to_string())
        .args([
            "--dns-timeout",
            "0.3",
            "--dns-deadline",
            "20",
            "--dns-cache",
        ])
        .arg(dir.join("cache.tsv"))
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("run robots-audit")
}

#[test]
fn live_dns_verifies_and_exposes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let log = dir.path().join("access.log");
    let text = [
        line("77.75.77.1", 1, "/cz/chat/a", SEZNAM_UA),
        line("2a02:598:a::78:91", 2, "/cz/chat/b", SEZNAM_UA),
        line("6.6.6.6", 3, "/cz/chat/c", SEZNAM_UA),
        line("6.6.6.8", 4, "/cz/chat/d", SEZNAM_UA),
        line("6.6.6.9", 5, "/cz/chat/e", SEZNAM_UA),
        line("10.1.1.1", 6, "/cz/chat/f", "Mozilla/5.0 Firefox/120.0"),
    ]
    .concat();
    std::fs::write(&log, text).unwrap();
    let server = DnsServer::start(zone());

    let out = audit(&server, dir.path(), &log);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = log.display().to_string();
    let violations = std::fs::read_to_string(dir.path().join("out/violations.csv")).unwrap();
    assert_eq!(
        violations,
        format!(
            "time,file,line,client,crawler,verification,identified_by,method,target,status,kind,group,rule_line,rule,detail,note\n\
             2026-11-30T00:00:01+00:00,{file},1,77.75.77.1,SeznamBot,verified,ua+ptr,GET,/cz/chat/a,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,\n\
             2026-11-30T00:00:02+00:00,{file},2,2a02:598:a::78:91,FreshBot,verified,ua+ptr,GET,/cz/chat/b,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,\n\
             2026-11-30T00:00:05+00:00,{file},5,6.6.6.9,SeznamBot,unverified,ua,GET,/cz/chat/e,200,disallow,SeznamBot,6,Disallow: /cz/chat/,,\n"
        )
    );
    let impostors = std::fs::read_to_string(dir.path().join("out/impostors.csv")).unwrap();
    assert_eq!(
        impostors,
        format!(
            "time,file,line,client,ptr,claimed_crawler,method,target,status,user_agent\n\
             2026-11-30T00:00:03+00:00,{file},3,6.6.6.6,fulltextrobot-6-6-6-6.seznam.cz,SeznamBot,GET,/cz/chat/c,200,{SEZNAM_UA}\n\
             2026-11-30T00:00:04+00:00,{file},4,6.6.6.8,,SeznamBot,GET,/cz/chat/d,200,{SEZNAM_UA}\n"
        )
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 address could not be checked"),
        "{stderr}"
    );
    let browsers_asked = server
        .log()
        .iter()
        .any(|(name, _)| name.contains("1.1.1.10"));
    assert!(
        !browsers_asked,
        "a browser's address was looked up: {:?}",
        server.log()
    );

    // The next night: the answers that were had come from the cache; only
    // the address that failed is asked again.
    let before = server.queries();
    let again = audit(&server, dir.path(), &log);
    assert_eq!(again.status.code(), Some(1));
    let asked: Vec<String> = server.log()[before..]
        .iter()
        .map(|(name, _)| name.clone())
        .collect();
    assert!(
        asked.iter().all(|name| name.contains("9.6.6.6")),
        "second run asked {asked:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/violations.csv")).unwrap(),
        violations
    );
}
