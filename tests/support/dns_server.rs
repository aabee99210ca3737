//! A minimal authoritative DNS responder for tests: UDP on 127.0.0.1, a
//! free port, a thread of its own. Serves PTR, A and AAAA records from a
//! table; a name it does not hold is NXDOMAIN (as a server holding whole
//! `in-addr.arpa.`/`ip6.arpa.` zones answers), a held name without the
//! asked type is NOERROR with no answer. Names may be set to stay silent
//! (to simulate timeouts) or to answer SERVFAIL/REFUSED. Counts queries.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

const TYPE_A: u16 = 1;
const TYPE_PTR: u16 = 12;
const TYPE_CNAME: u16 = 5;
const TYPE_AAAA: u16 = 28;

const RCODE_NOERROR: u8 = 0;
const RCODE_SERVFAIL: u8 = 2;
const RCODE_NXDOMAIN: u8 = 3;
const RCODE_REFUSED: u8 = 5;

#[derive(Debug, Clone)]
enum Data {
    Ptr(String),
    Addr(IpAddr),
    /// An alias, given in answer to a query of any type (the resolver
    /// follows it, or stops at a loop).
    Cname(String),
    /// An alias given to the CNAME question alone (a resolver that strips
    /// it from the others' answers).
    CnameQuestionOnly(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    Silent,
    ServFail,
    Refused,
}

#[derive(Debug, Default)]
pub struct Zone {
    records: HashMap<String, Vec<Data>>,
    behaviours: HashMap<String, Behaviour>,
    /// Behaviours for the CNAME question alone.
    cname_behaviours: HashMap<String, Behaviour>,
}

/// The reverse-lookup name of an address (`4.3.2.1.in-addr.arpa`, nibbles
/// for IPv6).
pub fn reverse_name(addr: IpAddr) -> String {
    match addr {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            format!("{}.{}.{}.{}.in-addr.arpa", o[3], o[2], o[1], o[0])
        }
        IpAddr::V6(v6) => {
            let mut out = String::new();
            for byte in v6.octets().iter().rev() {
                out.push_str(&format!("{:x}.{:x}.", byte & 0xf, byte >> 4));
            }
            out.push_str("ip6.arpa");
            out
        }
    }
}

fn key(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

impl Zone {
    pub fn ptr(mut self, addr: &str, name: &str) -> Zone {
        let addr: IpAddr = addr.parse().expect("address");
        self.records
            .entry(reverse_name(addr))
            .or_default()
            .push(Data::Ptr(name.to_string()));
        self
    }

    pub fn addr(mut self, name: &str, addr: &str) -> Zone {
        let addr: IpAddr = addr.parse().expect("address");
        self.records
            .entry(key(name))
            .or_default()
            .push(Data::Addr(addr));
        self
    }

    /// `name` is an alias of `target`.
    pub fn cname(mut self, name: &str, target: &str) -> Zone {
        self.records
            .entry(key(name))
            .or_default()
            .push(Data::Cname(target.to_string()));
        self
    }

    /// Both PTR and the matching forward record.
    pub fn host(self, addr: &str, name: &str) -> Zone {
        self.ptr(addr, name).addr(name, addr)
    }

    /// How to treat queries for a name (or, given an address, its reverse
    /// name).
    pub fn behave(mut self, name_or_addr: &str, behaviour: Behaviour) -> Zone {
        let name = name_or_reverse(name_or_addr);
        self.behaviours.insert(name, behaviour);
        self
    }

    /// An alias of `name` (or, given an address, of its reverse name)
    /// that only the CNAME question is told.
    pub fn cname_to_cname_question(mut self, name_or_addr: &str, target: &str) -> Zone {
        let name = name_or_reverse(name_or_addr);
        self.records
            .entry(name)
            .or_default()
            .push(Data::CnameQuestionOnly(target.to_string()));
        self
    }

    /// How to treat the CNAME question alone for a name (or, given an
    /// address, its reverse name); other questions are answered from the
    /// records.
    pub fn behave_for_cname(mut self, name_or_addr: &str, behaviour: Behaviour) -> Zone {
        let name = name_or_reverse(name_or_addr);
        self.cname_behaviours.insert(name, behaviour);
        self
    }
}

/// A name as the server keys it, or, given an address, its reverse name.
fn name_or_reverse(name_or_addr: &str) -> String {
    match name_or_addr.parse::<IpAddr>() {
        Ok(addr) => reverse_name(addr),
        Err(_) => key(name_or_addr),
    }
}

pub struct DnsServer {
    pub addr: SocketAddr,
    queries: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<(String, u16)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl DnsServer {
    pub fn start(zone: Zone) -> DnsServer {
        let socket = UdpSocket::bind("127.0.0.1:0").expect("bind");
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .expect("timeout");
        let addr = socket.local_addr().expect("local addr");
        let queries = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (queries, log, stop) = (queries.clone(), log.clone(), stop.clone());
            std::thread::spawn(move || serve(socket, zone, queries, log, stop))
        };
        DnsServer {
            addr,
            queries,
            log,
            stop,
            thread: Some(thread),
        }
    }

    /// Queries received so far, answered or not.
    pub fn queries(&self) -> usize {
        self.queries.load(Ordering::SeqCst)
    }

    /// (name, type) of every query received, in order.
    pub fn log(&self) -> Vec<(String, u16)> {
        self.log.lock().expect("log").clone()
    }
}

impl Drop for DnsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    socket: UdpSocket,
    zone: Zone,
    queries: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<(String, u16)>>>,
    stop: Arc<AtomicBool>,
) {
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::SeqCst) {
        let Ok((len, peer)) = socket.recv_from(&mut buf) else {
            continue;
        };
        let Some(query) = parse_query(&buf[..len]) else {
            continue;
        };
        queries.fetch_add(1, Ordering::SeqCst);
        log.lock()
            .expect("log")
            .push((query.name.clone(), query.qtype));
        if let Some(reply) = answer(&zone, &buf[..len], &query) {
            let _ = socket.send_to(&reply, peer);
        }
    }
}

struct Query {
    name: String,
    qtype: u16,
    /// Where the question section ends in the packet.
    question_end: usize,
}

fn parse_query(packet: &[u8]) -> Option<Query> {
    if packet.len() < 12 || u16::from_be_bytes([packet[4], packet[5]]) != 1 {
        return None;
    }
    let mut pos = 12;
    let mut labels = Vec::new();
    loop {
        let len = usize::from(*packet.get(pos)?);
        pos += 1;
        if len == 0 {
            break;
        }
        if len > 63 {
            return None;
        }
        labels.push(String::from_utf8_lossy(packet.get(pos..pos + len)?).to_ascii_lowercase());
        pos += len;
    }
    let qtype = u16::from_be_bytes([*packet.get(pos)?, *packet.get(pos + 1)?]);
    Some(Query {
        name: labels.join("."),
        qtype,
        question_end: pos + 4,
    })
}

fn encode_name(out: &mut Vec<u8>, name: &str) {
    // The root name `.` is no label at all.
    for label in name.split('.').filter(|label| !label.is_empty()) {
        out.push(label.len() as u8);
        out.extend_from_slice(label.as_bytes());
    }
    out.push(0);
}

fn answer(zone: &Zone, packet: &[u8], query: &Query) -> Option<Vec<u8>> {
    let behaviour = match query.qtype {
        TYPE_CNAME => zone
            .cname_behaviours
            .get(&query.name)
            .or(zone.behaviours.get(&query.name)),
        _ => zone.behaviours.get(&query.name),
    };
    let rcode = match behaviour {
        Some(Behaviour::Silent) => return None,
        Some(Behaviour::ServFail) => RCODE_SERVFAIL,
        Some(Behaviour::Refused) => RCODE_REFUSED,
        None if zone.records.contains_key(&query.name) => RCODE_NOERROR,
        None => RCODE_NXDOMAIN,
    };
    let mut rdatas: Vec<(u16, Vec<u8>)> = Vec::new();
    if rcode == RCODE_NOERROR {
        for data in zone.records.get(&query.name).into_iter().flatten() {
            match (data, query.qtype) {
                (Data::Ptr(name), TYPE_PTR) => {
                    let mut rdata = Vec::new();
                    encode_name(&mut rdata, name);
                    rdatas.push((TYPE_PTR, rdata));
                }
                (Data::Addr(IpAddr::V4(v4)), TYPE_A) => rdatas.push((TYPE_A, v4.octets().to_vec())),
                (Data::Addr(IpAddr::V6(v6)), TYPE_AAAA) => {
                    rdatas.push((TYPE_AAAA, v6.octets().to_vec()))
                }
                (Data::Cname(target), _) | (Data::CnameQuestionOnly(target), TYPE_CNAME) => {
                    let mut rdata = Vec::new();
                    encode_name(&mut rdata, target);
                    rdatas.push((TYPE_CNAME, rdata));
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::with_capacity(512);
    out.extend_from_slice(&packet[0..2]); // id
    let rd = packet[2] & 0x01;
    out.push(0x80 | 0x04 | rd); // QR, AA, RD echoed
    out.push(0x80 | rcode); // RA
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&(rdatas.len() as u16).to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&packet[12..query.question_end]);
    for (rtype, rdata) in rdatas {
        out.extend_from_slice(&[0xC0, 12]); // the question's name
        out.extend_from_slice(&rtype.to_be_bytes());
        out.extend_from_slice(&1u16.to_be_bytes()); // IN
        out.extend_from_slice(&60u32.to_be_bytes());
        out.extend_from_slice(&(rdata.len() as u16).to_be_bytes());
        out.extend_from_slice(&rdata);
    }
    Some(out)
}

pub const QTYPE_A: u16 = TYPE_A;
pub const QTYPE_AAAA: u16 = TYPE_AAAA;
pub const QTYPE_PTR: u16 = TYPE_PTR;
