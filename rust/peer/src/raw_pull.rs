//! A broker's own pull ceiling: PULL_MESSAGE frames encoded once (offset 0 of each queue in turn, `--batch`
//! messages each, the subscription `*` in the request so that no heartbeat is needed, no long polling), written
//! back to back on one connection with at most `window` unanswered; a second thread counts the messages of the
//! answers until `count`.

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rocketroute_core::frame::{json_header, JsonHeader};

use crate::frame::{self, Header};
use crate::send::batch_count;
use crate::Options;

/// `PullSysFlag`: the subscription rides on the request.
const FLAG_SUBSCRIPTION: i32 = 0x4;

pub fn run(args: &[String]) -> Result<(), String> {
    let o = Options::parse(
        args,
        &[
            "addr", "count", "window", "batch", "queues", "topic", "group",
        ],
    )?;
    let addr: String = o.get("addr", String::new())?;
    if addr.is_empty() {
        return Err("--addr HOST:PORT is needed".into());
    }
    let count: u64 = o.get("count", 1_000_000)?;
    let window: u64 = o.get("window", 16)?;
    let (batch, queues): (u32, u32) = (o.get("batch", 32)?, o.get("queues", 8)?);
    let topic: String = o.get("topic", "BenchConsume".to_string())?;
    let group: String = o.get("group", "bench-raw-pull".to_string())?;
    if window == 0 || queues == 0 || batch == 0 {
        return Err("--window, --batch and --queues must be at least 1".into());
    }
    let frames: Vec<Vec<u8>> = (0..queues)
        .map(|q| pull_frame(&group, &topic, q, batch))
        .collect();
    let stream = TcpStream::connect(&addr).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (answered, sent) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    // done: the reader has its count; stopped: the writer sent its last pull (the reader reads the rest of the answers
    // before the connection closes, so the broker sees a clean end)
    let (done, stopped) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let start = Instant::now();
    let reader = {
        let (answered, sent, done, stopped) = (
            Arc::clone(&answered),
            Arc::clone(&sent),
            Arc::clone(&done),
            Arc::clone(&stopped),
        );
        let stream = stream.try_clone().map_err(|e| e.to_string())?;
        let writer_thread = std::thread::current();
        std::thread::spawn(move || -> Result<(u64, u64, Duration), String> {
            let mut r = BufReader::with_capacity(1024 * 1024, stream);
            let (mut buf, mut msgs, mut pulls) = (Vec::new(), 0u64, 0u64);
            while msgs < count {
                if !frame::read_frame(&mut r, &mut buf).map_err(|e| e.to_string())? {
                    return Err("the broker closed the connection".into());
                }
                let (h, body) = frame::split(&buf).map_err(|e| e.to_string())?;
                let h: Header = serde_json::from_slice(h).map_err(|e| e.to_string())?;
                if h.code != 0 {
                    return Err(format!(
                        "a pull was answered with code {} ({})",
                        h.code,
                        h.remark.as_deref().unwrap_or("no remark")
                    ));
                }
                msgs += batch_count(body).ok_or("a pull's body is not whole messages")? as u64;
                pulls += 1;
                answered.store(pulls, Ordering::Release);
                writer_thread.unpark();
            }
            let elapsed = start.elapsed();
            done.store(true, Ordering::Release);
            writer_thread.unpark();
            while !stopped.load(Ordering::Acquire) {
                std::thread::park_timeout(Duration::from_millis(1));
            }
            for _ in pulls..sent.load(Ordering::Acquire) {
                if !frame::read_frame(&mut r, &mut buf).map_err(|e| e.to_string())? {
                    break;
                }
            }
            Ok((msgs, pulls, elapsed))
        })
    };
    let mut w = stream;
    let (mut written, mut chunk) = (0u64, Vec::new());
    let wrote = loop {
        if done.load(Ordering::Acquire) || reader.is_finished() {
            break Ok(());
        }
        let room = window - (written - answered.load(Ordering::Acquire)).min(window);
        if room == 0 {
            std::thread::park_timeout(Duration::from_millis(1));
            continue;
        }
        chunk.clear();
        for _ in 0..room {
            chunk.extend_from_slice(&frames[(written % u64::from(queues)) as usize]);
            written += 1;
        }
        if let Err(e) = w.write_all(&chunk) {
            break Err(e.to_string());
        }
        sent.store(written, Ordering::Release);
    };
    stopped.store(true, Ordering::Release);
    wrote?;
    let (msgs, pulls, elapsed) = reader
        .join()
        .map_err(|_| "the reader panicked".to_string())??;
    let seconds = elapsed.as_secs_f64();
    println!(
        "{{\"msgs\":{msgs},\"pulls\":{pulls},\"window\":{window},\"seconds\":{seconds:.6},\"msgs_per_s\":{:.1}}}",
        msgs as f64 / seconds
    );
    Ok(())
}

/// A PULL_MESSAGE request for offset 0 of `queue`, with its length prefix.
fn pull_frame(group: &str, topic: &str, queue: u32, batch: u32) -> Vec<u8> {
    let version = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
        .to_string();
    let (queue_s, batch_s, flag_s) = (
        queue.to_string(),
        batch.to_string(),
        FLAG_SUBSCRIPTION.to_string(),
    );
    let ext = [
        ("consumerGroup", group),
        ("topic", topic),
        ("queueId", queue_s.as_str()),
        ("queueOffset", "0"),
        ("maxMsgNums", batch_s.as_str()),
        ("sysFlag", flag_s.as_str()),
        ("commitOffset", "0"),
        ("suspendTimeoutMillis", "0"),
        ("subscription", "*"),
        ("subVersion", version.as_str()),
        ("expressionType", "TAG"),
    ];
    let request = JsonHeader {
        code: 11,
        language: "JAVA",
        version: 453,
        opaque: queue.into(),
        flag: 0,
        remark: None,
    };
    let header = json_header(&request, ext);
    let mut out = Vec::new();
    frame::write_frame(&mut out, |h| h.extend_from_slice(&header), &[]);
    out
}
