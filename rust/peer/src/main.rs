//! `rocketroute-instant-peer`: the far end of rocketroute's client benchmarks (`make bench-clients`).
//!
//! `serve` is a RocketMQ name server and broker in one listener that answers at once from canned responses and
//! stores nothing, so that a client's own ceiling shows: every topic's route names the peer itself, heartbeats
//! succeed, every send is SEND_OK with counted ids and queue offsets, and every queue of every topic holds
//! `--messages-per-queue` messages of `--body-size` bytes for pulls (made up when pulled, the same for every
//! consumer; see `pull.rs`), with what push consumers need around them (offsets, groups, locks). It prints
//! `listening HOST:PORT` when ready. `--delay-us N` makes it a slow broker instead: each answer waits N µs (one
//! connection's requests in turn). `--hold-ms N`: how long a long-polling pull at the end of its queue is held.
//!
//! `raw-send` and `raw-pull` are a broker's own ceilings: pre-encoded SEND_MESSAGE_V2 (or PULL_MESSAGE) frames
//! pipelined on one connection, with at most `--window` unanswered; each prints one JSON line (`msgs`, `seconds`,
//! `msgs_per_s`).

mod answers;
mod frame;
mod groups;
mod held;
mod offsets;
mod pull;
mod raw_pull;
mod raw_send;
mod route;
mod send;
mod stored;

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use answers::{Link, Peer, Settings};
use held::Held;
use pull::When;

const USAGE: &str = "usage: rocketroute-instant-peer serve [--host H] [--port P] [--queues N] [--broker-name B] \
[--cluster C] [--delay-us N] [--messages-per-queue N] [--body-size B] [--hold-ms N]
       rocketroute-instant-peer raw-send --addr HOST:PORT [--count N] [--window W] [--body-size B] [--queues N] \
[--topic T]
       rocketroute-instant-peer raw-pull --addr HOST:PORT [--count N] [--window W] [--batch N] [--queues N] \
[--topic T] [--group G]";

/// `--name value` options after the command; unknown names are refused.
struct Options(Vec<(String, String)>);

impl Options {
    fn parse(args: &[String], known: &[&str]) -> Result<Options, String> {
        let mut pairs = Vec::new();
        let mut it = args.iter();
        while let Some(name) = it.next() {
            let key = name
                .strip_prefix("--")
                .filter(|k| known.contains(k))
                .ok_or(format!("unknown option {name}"))?;
            let value = it.next().ok_or(format!("{name} needs a value"))?;
            pairs.push((key.to_string(), value.clone()));
        }
        Ok(Options(pairs))
    }

    fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.0.iter().rev().find(|(k, _)| k == name) {
            None => Ok(default),
            Some((_, v)) => v
                .parse()
                .map_err(|_| format!("--{name} {v}: not a valid value")),
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("raw-send") => raw_send::run(&args[1..]),
        Some("raw-pull") => raw_pull::run(&args[1..]),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("rocketroute-instant-peer: {why}");
            ExitCode::from(2)
        }
    }
}

fn serve(args: &[String]) -> Result<(), String> {
    let o = Options::parse(
        args,
        &[
            "host",
            "port",
            "queues",
            "broker-name",
            "cluster",
            "delay-us",
            "messages-per-queue",
            "body-size",
            "hold-ms",
        ],
    )?;
    let delay = Duration::from_micros(o.get("delay-us", 0)?);
    let host: String = o.get("host", "127.0.0.1".to_string())?;
    let queues: u32 = o.get("queues", 8)?;
    if queues == 0 {
        return Err("--queues must be at least 1".into());
    }
    let messages_per_queue: i64 = o.get("messages-per-queue", 0)?;
    if messages_per_queue < 0 {
        return Err("--messages-per-queue must be at least 0".into());
    }
    let body_size: usize = o.get("body-size", 1024)?;
    if body_size > 4 * 1024 * 1024 {
        return Err("--body-size must be at most 4 MiB (the broker's maxMessageSize)".into());
    }
    let listener =
        TcpListener::bind((host.as_str(), o.get::<u16>("port", 0)?)).map_err(|e| e.to_string())?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let addr = format!("{host}:{}", local.port());
    let peer = Arc::new(Peer::new(Settings {
        addr: addr.clone(),
        host: local.ip(),
        port: local.port(),
        broker_name: o.get("broker-name", "broker-a".to_string())?,
        cluster: o.get("cluster", "DefaultCluster".to_string())?,
        queues,
        messages_per_queue,
        body_size,
        hold: Duration::from_millis(o.get("hold-ms", 1000)?),
    }));
    println!("listening {addr}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let ids = AtomicU64::new(0);
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let peer = Arc::clone(&peer);
        let id = ids.fetch_add(1, Ordering::Relaxed);
        std::thread::spawn(move || {
            let result = connection(&peer, stream, delay, id);
            peer.closed(id);
            if let Err(e) = result {
                eprintln!("rocketroute-instant-peer: connection closed: {e}");
            }
        });
    }
    Ok(())
}

/// Answers one connection's requests in order; the answers to requests that came together go out in one write. An
/// answer to be held goes to the connection's [`Held`] thread, which writes it when its wait is over.
fn connection(peer: &Peer, stream: TcpStream, delay: Duration, id: u64) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::with_capacity(256 * 1024, stream.try_clone()?);
    let writer: Link = Arc::new(Mutex::new(stream));
    peer.opened(id, Arc::clone(&writer));
    let write = |bytes: &[u8]| writer.lock().expect("writer lock").write_all(bytes);
    let mut held: Option<Held> = None;
    let (mut frame, mut out) = (Vec::new(), Vec::with_capacity(256 * 1024));
    while frame::read_frame(&mut reader, &mut frame)? {
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        let start = out.len();
        if let When::After(wait) = peer.answer(&frame, &mut out, id)? {
            let answer = out.split_off(start);
            held.get_or_insert_with(|| Held::start(Arc::clone(&writer)))
                .hold(Instant::now() + wait, answer);
        }
        if reader.buffer().is_empty() || out.len() >= 1 << 20 {
            write(&out)?;
            out.clear();
        }
    }
    write(&out)
}
