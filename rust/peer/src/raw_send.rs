//! The peer's own ceiling: SEND_MESSAGE_V2 frames encoded once, written back to back on one connection with at
//! most `window` unanswered, the answers counted by a second thread.

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rocketroute_core::frame::{json_header, JsonHeader};

use crate::frame::{self, Header};
use crate::Options;

pub fn run(args: &[String]) -> Result<(), String> {
    let o = Options::parse(
        args,
        &["addr", "count", "window", "body-size", "queues", "topic"],
    )?;
    let addr: String = o.get("addr", String::new())?;
    if addr.is_empty() {
        return Err("--addr HOST:PORT is needed".into());
    }
    let count: u64 = o.get("count", 200_000)?;
    let window: u64 = o.get("window", 256)?;
    let (body_size, queues): (usize, u32) = (o.get("body-size", 1024)?, o.get("queues", 8)?);
    let topic: String = o.get("topic", "BenchTopic".to_string())?;
    if window == 0 || queues == 0 {
        return Err("--window and --queues must be at least 1".into());
    }
    let frames: Vec<Vec<u8>> = (0..queues)
        .map(|q| send_frame(&topic, q, body_size))
        .collect();
    let stream = TcpStream::connect(&addr).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let answered = Arc::new(AtomicU64::new(0));
    let reader = {
        let (answered, stream) = (
            Arc::clone(&answered),
            stream.try_clone().map_err(|e| e.to_string())?,
        );
        let writer_thread = std::thread::current();
        std::thread::spawn(move || -> Result<(), String> {
            let mut r = BufReader::with_capacity(256 * 1024, stream);
            let mut buf = Vec::new();
            for _ in 0..count {
                if !frame::read_frame(&mut r, &mut buf).map_err(|e| e.to_string())? {
                    return Err("the peer closed the connection".into());
                }
                let (h, _) = frame::split(&buf).map_err(|e| e.to_string())?;
                let h: Header = serde_json::from_slice(h).map_err(|e| e.to_string())?;
                if h.code != 0 {
                    return Err(format!("a send was answered with code {}", h.code));
                }
                answered.fetch_add(1, Ordering::Release);
                writer_thread.unpark();
            }
            Ok(())
        })
    };
    let mut w = stream;
    let start = Instant::now();
    let (mut sent, mut chunk) = (0u64, Vec::with_capacity(64 * (body_size + 512)));
    while sent < count {
        let room = window - (sent - answered.load(Ordering::Acquire)).min(window);
        if room == 0 {
            std::thread::park_timeout(Duration::from_millis(1));
            continue;
        }
        chunk.clear();
        for _ in 0..room.min(64).min(count - sent) {
            chunk.extend_from_slice(&frames[(sent % queues as u64) as usize]);
            sent += 1;
        }
        w.write_all(&chunk).map_err(|e| e.to_string())?;
    }
    reader
        .join()
        .map_err(|_| "the reader panicked".to_string())??;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"msgs\":{count},\"window\":{window},\"seconds\":{seconds:.6},\"msgs_per_s\":{:.1}}}",
        count as f64 / seconds
    );
    Ok(())
}

/// A SEND_MESSAGE_V2 request (`WAIT=true`, a body of `body_size` bytes) to `queue`, with its length prefix.
fn send_frame(topic: &str, queue: u32, body_size: usize) -> Vec<u8> {
    let born = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let (queue_s, born_s) = (queue.to_string(), born.to_string());
    let ext = [
        ("a", "bench"),
        ("b", topic),
        ("c", "TBW102"),
        ("d", "4"),
        ("e", queue_s.as_str()),
        ("f", "0"),
        ("g", born_s.as_str()),
        ("h", "0"),
        ("i", "WAIT\u{1}true\u{2}"),
        ("j", "0"),
        ("k", "false"),
        ("m", "false"),
    ];
    let request = JsonHeader {
        code: 310,
        language: "JAVA",
        version: 453,
        opaque: queue.into(),
        flag: 0,
        remark: None,
    };
    let header = json_header(&request, ext);
    let mut out = Vec::new();
    frame::write_frame(
        &mut out,
        |h| h.extend_from_slice(&header),
        &vec![b'x'; body_size],
    );
    out
}
