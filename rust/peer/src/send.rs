//! SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): a stored-looking SEND_OK for every send,
//! with queue offsets counted per queue and offset message ids counted over the whole peer; the bodies are dropped.

use std::sync::atomic::{AtomicI64, Ordering};

use crate::frame::Header;

pub const SEND_MESSAGE: i32 = 10;
pub const SEND_MESSAGE_V2: i32 = 310;
pub const SEND_BATCH_MESSAGE: i32 = 320;
const SUCCESS: i32 = 0;
pub const MESSAGE_ILLEGAL: i32 = 13;

pub struct Sends {
    queues: u32,
    port_hex: String,
    queue_offsets: Vec<AtomicI64>,
    commit_log: AtomicI64,
}

impl Sends {
    pub fn new(port: u16, queues: u32) -> Sends {
        Sends {
            queues,
            port_hex: format!("{port:08X}"),
            queue_offsets: (0..queues.max(1)).map(|_| AtomicI64::new(0)).collect(),
            commit_log: AtomicI64::new(0),
        }
    }

    /// Answers a send through `reply(code, remark, ext fields)`: SEND_OK (the response code SUCCESS) with the
    /// queue, its offset and one id per message, or MESSAGE_ILLEGAL for a send the peer cannot read.
    pub fn answer(
        &self,
        request: &Header,
        body: &[u8],
        reply: impl FnOnce(i32, Option<&str>, &[(&str, &str)]),
    ) {
        let queue_field = if request.code == SEND_MESSAGE {
            "queueId"
        } else {
            "e"
        };
        let queue_id = request
            .field(queue_field)
            .and_then(|q| q.parse::<u32>().ok());
        let count = if request.code == SEND_BATCH_MESSAGE {
            batch_count(body)
        } else {
            Some(1)
        };
        let (Some(queue_id), Some(count @ 1..)) = (queue_id, count) else {
            return reply(
                MESSAGE_ILLEGAL,
                Some("the instant peer cannot read this send"),
                &[],
            );
        };
        let counter = &self.queue_offsets[(queue_id % self.queues.max(1)) as usize];
        let queue_offset = counter.fetch_add(count as i64, Ordering::Relaxed);
        let first = self.commit_log.fetch_add(count as i64, Ordering::Relaxed);
        let ids: Vec<String> = (0..count)
            .map(|i| format!("7F000001{}{:016X}", self.port_hex, first + i as i64))
            .collect();
        let (queue_id, queue_offset, msg_id) = (
            queue_id.to_string(),
            queue_offset.to_string(),
            ids.join(","),
        );
        let ext = [
            ("msgId", msg_id.as_str()),
            ("queueId", queue_id.as_str()),
            ("queueOffset", queue_offset.as_str()),
            ("MSG_REGION", "DefaultRegion"),
            ("TRACE_ON", "true"),
        ];
        reply(SUCCESS, None, &ext);
    }
}

/// The messages of a batch body or of a pull's answer (each starts with its int32 total size), or `None` when the
/// sizes do not add up.
pub fn batch_count(body: &[u8]) -> Option<usize> {
    let (mut pos, mut count) = (0usize, 0usize);
    while pos < body.len() {
        let size = i32::from_be_bytes(body.get(pos..pos + 4)?.try_into().ok()?);
        if size < 4 {
            return None;
        }
        pos = pos.checked_add(size as usize)?;
        count += 1;
    }
    (pos == body.len()).then_some(count)
}
