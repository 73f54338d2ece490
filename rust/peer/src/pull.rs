//! PULL_MESSAGE (11), and a 5.x lite pull's LITE_PULL_MESSAGE (361), answered as Apache's broker answers it (`DefaultMessageStore.getMessage` and the pull
//! processor), from queues that hold `--messages-per-queue` messages each and store nothing: every topic's queues
//! (its route's read queues) have offsets 0 to that max offset, but a retry or dead-letter topic (`%RETRY%...`,
//! `%DLQ%...`: one queue, as the broker makes them) is empty, so a consumer's own retry subscription brings nothing.
//!
//! - An offset inside the queue: FOUND (code 0) with the messages from it, as many as the broker sends from memory
//!   at once: `maxMsgNums`, at most 32 and at most 256 KiB (or `maxMsgBytes`), at least one;
//! - at the max offset: PULL_NOT_FOUND (19), `OFFSET_OVERFLOW_ONE` (offset 0 of an empty queue: the same code,
//!   `NO_MESSAGE_IN_QUEUE`). A long-polling pull (the suspend flag) is held first, as the broker holds it for new
//!   messages, but for `--hold-ms` (default 1000: the broker's short-polling time; 0 answers at once) rather than the
//!   request's 15 s, since no message ever comes: a consumer at the end pulls once a second per queue instead of
//!   spinning, and can stop at once (the held answer goes out on the connection later);
//! - past the max offset or below 0 (any offset but 0 of an empty queue): PULL_OFFSET_MOVED (21) with the offset to
//!   go on from (the max, or 0).
//!
//! A pull with the commit flag commits its `commitOffset` for the group, as the broker does (`crate::answers`).
//!
//! Every answer carries `nextBeginOffset`, `minOffset` (0), `maxOffset`, `suggestWhichBrokerId` (0, the master),
//! `topicSysFlag` and `groupSysFlag` (0) and the store's status as its remark. The messages: see [`crate::stored`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::frame::{self, Header};
use crate::stored::{Identity, Template};

pub const PULL_MESSAGE: i32 = 11;
/// A 5.x lite pull consumer's pull (Java 5.x sends a pull with the lite flag under this code): answered alike.
pub const LITE_PULL_MESSAGE: i32 = 361;
const SUCCESS: i32 = 0;
const SYSTEM_ERROR: i32 = 1;
const PULL_NOT_FOUND: i32 = 19;
const PULL_OFFSET_MOVED: i32 = 21;
/// `PullSysFlag`: the consumer's offset rides on the pull; the pull may be held.
pub const FLAG_COMMIT_OFFSET: i32 = 0x1;
const FLAG_SUSPEND: i32 = 0x2;
/// The broker's `maxTransferCountOnMessageInMemory` and `maxTransferBytesOnMessageInMemory`.
const MAX_COUNT: i64 = 32;
const MAX_BYTES: i64 = 256 * 1024;
/// Topics the broker makes with one queue, that hold nothing here.
const EMPTY_PREFIXES: [&str; 2] = ["%RETRY%", "%DLQ%"];
/// Templates kept at most (one per topic pulled); past it they are dropped and made again.
const MAX_TEMPLATES: usize = 4096;

pub struct Pulls {
    queues: u32,
    messages_per_queue: i64,
    hold: Duration,
    identity: Identity,
    templates: Mutex<HashMap<String, Arc<Template>>>,
}

/// Whether the answer goes out now or after a wait (a long-polling pull at the end of its queue).
#[derive(Debug, PartialEq)]
pub enum When {
    Now,
    After(Duration),
}

impl Pulls {
    pub fn new(queues: u32, messages_per_queue: i64, hold: Duration, identity: Identity) -> Pulls {
        Pulls {
            queues,
            messages_per_queue,
            hold,
            identity,
            templates: Mutex::new(HashMap::new()),
        }
    }

    /// The topic's read (and write) queues.
    pub fn queues(&self, topic: &str) -> u32 {
        if is_empty_topic(topic) {
            1
        } else {
            self.queues
        }
    }

    /// The max offset of each of the topic's queues.
    pub fn max_offset(&self, topic: &str) -> i64 {
        if is_empty_topic(topic) {
            0
        } else {
            self.messages_per_queue
        }
    }

    /// When the messages were stored (all at once, when the peer started), in ms since the epoch.
    pub fn store_timestamp(&self) -> i64 {
        self.identity.timestamp_ms
    }

    /// Appends the answer to a PULL_MESSAGE request.
    pub fn answer(&self, request: &Header, out: &mut Vec<u8>) -> When {
        let opaque = request.opaque;
        let number = |name: &str| request.field(name).and_then(|v| v.parse::<i64>().ok());
        let (Some(topic), Some(queue_id), Some(offset)) = (
            request.field("topic"),
            number("queueId"),
            number("queueOffset"),
        ) else {
            let remark = "the pull names no topic, queueId or queueOffset";
            frame::write_frame(
                out,
                |h| frame::response_header(h, SYSTEM_ERROR, opaque, Some(remark), &[]),
                &[],
            );
            return When::Now;
        };
        let queues = self.queues(topic);
        if !(0..i64::from(queues)).contains(&queue_id) {
            let remark = format!(
                "queueId[{queue_id}] is illegal, topic:[{topic}] topicConfig.readQueueNums:[{queues}]"
            );
            frame::write_frame(
                out,
                |h| frame::response_header(h, SYSTEM_ERROR, opaque, Some(&remark), &[]),
                &[],
            );
            return When::Now;
        }
        let max = self.max_offset(topic);
        let (code, status, next) = if max == 0 {
            let code = if offset == 0 {
                PULL_NOT_FOUND
            } else {
                PULL_OFFSET_MOVED
            };
            (code, "NO_MESSAGE_IN_QUEUE", 0)
        } else if offset < 0 {
            (PULL_OFFSET_MOVED, "OFFSET_TOO_SMALL", 0)
        } else if offset == max {
            (PULL_NOT_FOUND, "OFFSET_OVERFLOW_ONE", offset)
        } else if offset > max {
            (PULL_OFFSET_MOVED, "OFFSET_OVERFLOW_BADLY", max)
        } else {
            (SUCCESS, "FOUND", offset)
        };
        let (template, count) = if code == SUCCESS {
            let template = self.template(topic);
            let max_nums = number("maxMsgNums").unwrap_or(MAX_COUNT);
            let max_bytes = number("maxMsgBytes").unwrap_or(i64::MAX).max(100);
            let count = batch_count(template.size() as i64, max_nums, max_bytes, max - offset);
            (Some(template), count)
        } else {
            (None, 0)
        };
        let (next, max_s) = ((next + count).to_string(), max.to_string());
        let ext = [
            ("suggestWhichBrokerId", "0"),
            ("nextBeginOffset", next.as_str()),
            ("minOffset", "0"),
            ("maxOffset", max_s.as_str()),
            ("topicSysFlag", "0"),
            ("groupSysFlag", "0"),
        ];
        frame::write_frame_with(
            out,
            |h| frame::response_header(h, code, opaque, Some(status), &ext),
            |body| {
                if let Some(t) = &template {
                    body.reserve(t.size() * count as usize);
                    for i in 0..count {
                        t.append(body, queue_id as u32, offset + i, queues);
                    }
                }
            },
        );
        let suspend = number("sysFlag").unwrap_or(0) & i64::from(FLAG_SUSPEND) != 0;
        if code == PULL_NOT_FOUND && suspend && !self.hold.is_zero() {
            let asked =
                Duration::from_millis(number("suspendTimeoutMillis").unwrap_or(0).max(0) as u64);
            When::After(self.hold.min(asked))
        } else {
            When::Now
        }
    }

    fn template(&self, topic: &str) -> Arc<Template> {
        let mut templates = self.templates.lock().expect("templates lock");
        if let Some(t) = templates.get(topic) {
            return Arc::clone(t);
        }
        if templates.len() >= MAX_TEMPLATES {
            templates.clear();
        }
        let t = Arc::new(Template::new(&self.identity, topic));
        templates.insert(topic.to_string(), Arc::clone(&t));
        t
    }
}

fn is_empty_topic(topic: &str) -> bool {
    EMPTY_PREFIXES.iter().any(|p| topic.starts_with(p))
}

/// How many messages of `size` bytes one answer carries (`DefaultMessageStore.isTheBatchFull`, the messages in
/// memory): the first always, then while within `max_nums`, `max_bytes`, 32 messages and 256 KiB; at most `left`.
fn batch_count(size: i64, max_nums: i64, max_bytes: i64, left: i64) -> i64 {
    let mut count = 0;
    while count < left {
        let bytes = count * size;
        let full = count > 0
            && (count + 1 > max_nums
                || bytes + size > max_bytes
                || bytes + size > MAX_BYTES
                || count >= MAX_COUNT);
        if full {
            break;
        }
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stored::{bench_body, tests::decode};

    fn pulls(per_queue: i64, hold_ms: u64) -> Pulls {
        let identity = Identity {
            host: "127.0.0.1".parse().unwrap(),
            port: 9876,
            cluster: "DefaultCluster".into(),
            timestamp_ms: 1_700_000_000_000,
            body: bench_body(1024),
        };
        Pulls::new(4, per_queue, Duration::from_millis(hold_ms), identity)
    }

    /// The answer's code, remark, ext fields, body and when it goes out.
    fn pull(p: &Pulls, ext: &str) -> (i64, String, serde_json::Value, Vec<u8>, When) {
        let header = format!("{{\"code\":11,\"opaque\":9,\"flag\":0,\"extFields\":{{{ext}}}}}");
        let request: Header = serde_json::from_str(&header).unwrap();
        let mut out = Vec::new();
        let when = p.answer(&request, &mut out);
        let mut buf = Vec::new();
        assert!(frame::read_frame(&mut out.as_slice(), &mut buf).unwrap());
        let (h, body) = frame::split(&buf).unwrap();
        let v: serde_json::Value = serde_json::from_slice(h).unwrap();
        assert_eq!(v["opaque"], 9);
        let remark = v["remark"].as_str().unwrap_or("").to_string();
        (
            v["code"].as_i64().unwrap(),
            remark,
            v["extFields"].clone(),
            body.to_vec(),
            when,
        )
    }

    fn fields(topic: &str, queue: i64, offset: i64, more: &str) -> String {
        format!(
            "\"consumerGroup\":\"g\",\"topic\":\"{topic}\",\"queueId\":\"{queue}\",\"queueOffset\":\"{offset}\",\
             \"maxMsgNums\":\"32\",\"sysFlag\":\"2\",\"suspendTimeoutMillis\":\"15000\"{more}"
        )
    }

    #[test]
    fn a_pull_inside_the_queue_finds_the_messages_from_its_offset() {
        let p = pulls(100, 1000);
        let (code, remark, ext, body, when) = pull(&p, &fields("T", 2, 90, ""));
        assert_eq!((code, remark.as_str(), when), (0, "FOUND", When::Now));
        assert_eq!(ext["nextBeginOffset"], "100");
        assert_eq!(
            (ext["minOffset"].as_str(), ext["maxOffset"].as_str()),
            (Some("0"), Some("100"))
        );
        assert_eq!(ext["suggestWhichBrokerId"], "0");
        let msgs = decode(&body);
        let offsets: Vec<i64> = msgs.iter().map(|m| m.queue_offset).collect();
        assert_eq!(offsets, (90..100).collect::<Vec<_>>());
        assert!(msgs
            .iter()
            .all(|m| m.queue_id == 2 && m.topic == "T" && m.body == bench_body(1024)));
        let (_, _, ext, body, _) = pull(&p, &fields("T", 0, 0, ""));
        assert_eq!(
            (ext["nextBeginOffset"].as_str(), decode(&body).len()),
            (Some("32"), 32)
        );
    }

    #[test]
    fn a_batch_stops_at_max_msg_nums_and_at_the_bytes_limits() {
        assert_eq!(batch_count(1100, 32, i64::MAX, 1000), 32);
        assert_eq!(batch_count(1100, 8, i64::MAX, 1000), 8);
        assert_eq!(batch_count(1100, 32, 5000, 1000), 4);
        assert_eq!(batch_count(17_000, 32, i64::MAX, 1000), 15); // 256 KiB
        assert_eq!(batch_count(300_000, 32, 100, 1000), 1); // the first always
        assert_eq!(batch_count(1100, 32, i64::MAX, 3), 3);
        let (_, _, _, body, _) = pull(
            &pulls(100, 0),
            &fields("T", 1, 0, ",\"maxMsgBytes\":\"3000\""),
        );
        assert_eq!(decode(&body).len(), 2);
    }

    #[test]
    fn at_the_end_a_long_poll_is_held_then_not_found() {
        let p = pulls(100, 1000);
        let (code, remark, ext, body, when) = pull(&p, &fields("T", 0, 100, ""));
        assert_eq!((code, remark.as_str()), (19, "OFFSET_OVERFLOW_ONE"));
        assert_eq!(
            (ext["nextBeginOffset"].as_str(), body.len()),
            (Some("100"), 0)
        );
        assert_eq!(when, When::After(Duration::from_millis(1000)));
        let short = fields("T", 0, 100, "").replace("15000", "300");
        assert_eq!(pull(&p, &short).4, When::After(Duration::from_millis(300)));
        let no_suspend = fields("T", 0, 100, "").replace("\"sysFlag\":\"2\"", "\"sysFlag\":\"0\"");
        assert_eq!(pull(&p, &no_suspend).4, When::Now);
        assert_eq!(pull(&pulls(100, 0), &fields("T", 0, 100, "")).4, When::Now);
    }

    #[test]
    fn offsets_outside_the_queue_move_and_retry_topics_are_empty() {
        let p = pulls(100, 1000);
        let (code, remark, ext, _, when) = pull(&p, &fields("T", 0, 150, ""));
        assert_eq!(
            (code, remark.as_str(), when),
            (21, "OFFSET_OVERFLOW_BADLY", When::Now)
        );
        assert_eq!(ext["nextBeginOffset"], "100");
        let (code, remark, ext, ..) = pull(&p, &fields("T", 0, -5, ""));
        assert_eq!(
            (code, remark.as_str(), ext["nextBeginOffset"].as_str()),
            (21, "OFFSET_TOO_SMALL", Some("0"))
        );
        let (code, remark, ext, _, when) = pull(&p, &fields("%RETRY%g", 0, 0, ""));
        assert_eq!((code, remark.as_str()), (19, "NO_MESSAGE_IN_QUEUE"));
        assert_eq!(
            (ext["maxOffset"].as_str(), when),
            (Some("0"), When::After(Duration::from_secs(1)))
        );
        assert_eq!(pull(&p, &fields("%RETRY%g", 0, 3, "")).0, 21);
        assert_eq!(p.queues("%RETRY%g"), 1);
        assert_eq!(
            pull(&p, &fields("%RETRY%g", 1, 0, "")).0,
            1,
            "a queue the topic does not have"
        );
        assert_eq!(pull(&p, &fields("T", 4, 0, "")).0, 1);
        assert_eq!(pull(&p, "\"topic\":\"T\"").0, 1);
    }
}
