//! `rocketroute-instant-peer`: the far end of rocketroute's client benchmarks (`make bench-clients`).
//!
//! `serve` is a RocketMQ name server and broker in one listener that answers at once from canned responses and
//! stores nothing, so that a client's own ceiling shows: every topic's route names the peer itself, heartbeats
//! succeed, every send is SEND_OK with counted ids and queue offsets. It prints `listening HOST:PORT` when ready.
//! `--delay-us N` makes it a slow broker instead: each answer waits N µs (one connection's requests in turn).
//!
//! `raw-send` is the peer's own ceiling: pre-encoded SEND_MESSAGE_V2 frames pipelined on one connection, with at
//! most `--window` unanswered; it prints one JSON line (`msgs`, `seconds`, `msgs_per_s`).

mod answers;
mod frame;
mod raw_send;

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::Arc;

use answers::Peer;

const USAGE: &str = "usage: rocketroute-instant-peer serve [--host H] [--port P] [--queues N] [--broker-name B] \
[--cluster C] [--delay-us N]\n       rocketroute-instant-peer raw-send --addr HOST:PORT [--count N] [--window W] [--body-size B] \
[--queues N] [--topic T]";

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
        ],
    )?;
    let delay = std::time::Duration::from_micros(o.get("delay-us", 0)?);
    let host: String = o.get("host", "127.0.0.1".to_string())?;
    let queues: u32 = o.get("queues", 8)?;
    if queues == 0 {
        return Err("--queues must be at least 1".into());
    }
    let listener =
        TcpListener::bind((host.as_str(), o.get::<u16>("port", 0)?)).map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let addr = format!("{host}:{port}");
    let peer = Arc::new(Peer::new(
        addr.clone(),
        port,
        o.get("broker-name", "broker-a".to_string())?,
        o.get("cluster", "DefaultCluster".to_string())?,
        queues,
    ));
    println!("listening {addr}");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let peer = Arc::clone(&peer);
        std::thread::spawn(move || {
            if let Err(e) = connection(&peer, stream, delay) {
                eprintln!("rocketroute-instant-peer: connection closed: {e}");
            }
        });
    }
    Ok(())
}

/// Answers one connection's requests in order; the answers to requests that came together go out in one write.
fn connection(peer: &Peer, stream: TcpStream, delay: std::time::Duration) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::with_capacity(256 * 1024, stream.try_clone()?);
    let mut writer = stream;
    let (mut frame, mut out) = (Vec::new(), Vec::with_capacity(256 * 1024));
    while frame::read_frame(&mut reader, &mut frame)? {
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        peer.answer(&frame, &mut out)?;
        if reader.buffer().is_empty() || out.len() >= 1 << 20 {
            writer.write_all(&out)?;
            out.clear();
        }
    }
    writer.write_all(&out)
}
