//! What the peer answers: a route naming itself for every topic (one queue for a retry or dead-letter topic), SUCCESS
//! for heartbeats, a stored-looking SEND_OK for every send (ids and queue offsets counted, bodies dropped), and the
//! consumer's side: pulls from canned queues (`crate::pull`), committed offsets (`crate::offsets`), the queues' min
//! and max offsets and the offset of a time (0 up to the peer's start, the max after), groups and locks
//! (`crate::groups`). CONSUMER_SEND_MSG_BACK (a message the listener failed) is SUCCESS and the message is dropped:
//! the retry topic stays empty, nothing is redelivered. Any other request is REQUEST_CODE_NOT_SUPPORTED (3), and its
//! code is logged once to stderr.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::frame::{self, Header, FLAG_ONEWAY};
use crate::groups::Groups;
use crate::offsets::Offsets;
use crate::pull::{Pulls, When, FLAG_COMMIT_OFFSET, LITE_PULL_MESSAGE, PULL_MESSAGE};
use crate::route::route;
use crate::send::{Sends, SEND_BATCH_MESSAGE, SEND_MESSAGE, SEND_MESSAGE_V2};
use crate::stored::{bench_body, Identity};

pub const QUERY_CONSUMER_OFFSET: i32 = 14;
pub const UPDATE_CONSUMER_OFFSET: i32 = 15;
pub const SEARCH_OFFSET_BY_TIMESTAMP: i32 = 29;
pub const GET_MAX_OFFSET: i32 = 30;
pub const GET_MIN_OFFSET: i32 = 31;
pub const GET_EARLIEST_MSG_STORETIME: i32 = 32;
pub const HEART_BEAT: i32 = 34;
pub const UNREGISTER_CLIENT: i32 = 35;
pub const CONSUMER_SEND_MSG_BACK: i32 = 36;
pub const GET_CONSUMER_LIST_BY_GROUP: i32 = 38;
pub const NOTIFY_CONSUMER_IDS_CHANGED: i32 = 40;
pub const LOCK_BATCH_MQ: i32 = 41;
pub const UNLOCK_BATCH_MQ: i32 = 42;
pub const GET_ROUTEINFO_BY_TOPIC: i32 = 105;

const SUCCESS: i32 = 0;
const SYSTEM_ERROR: i32 = 1;
const REQUEST_CODE_NOT_SUPPORTED: i32 = 3;
const QUERY_NOT_FOUND: i32 = 22;

/// How the peer was started (`serve`'s options).
pub struct Settings {
    pub addr: String,
    pub host: std::net::IpAddr,
    pub port: u16,
    pub broker_name: String,
    pub cluster: String,
    pub queues: u32,
    pub messages_per_queue: i64,
    pub body_size: usize,
    pub hold: Duration,
}

/// One broker (and its name server): the address it gives in routes, the counters of what it "stored", the queues
/// it serves pulls from and what consumers told it.
pub struct Peer {
    queues: u32,
    sends: Sends,
    route: Vec<u8>,
    one_queue_route: Vec<u8>,
    pulls: Pulls,
    offsets: Offsets,
    groups: Groups,
    /// the request codes refused so far (each is logged once)
    refused: Mutex<HashSet<i32>>,
    /// each open connection's writer, for the requests the peer sends on its own (NOTIFY_CONSUMER_IDS_CHANGED)
    links: Mutex<HashMap<u64, Link>>,
    opaque: AtomicI32,
}

/// Where a connection's frames are written (shared with its reader's thread, one frame at a time).
pub type Link = Arc<Mutex<dyn Write + Send>>;

impl Peer {
    pub fn new(s: Settings) -> Peer {
        let timestamp_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let identity = Identity {
            host: s.host,
            port: s.port,
            cluster: s.cluster.clone(),
            timestamp_ms,
            body: bench_body(s.body_size),
        };
        Peer {
            queues: s.queues,
            sends: Sends::new(s.port, s.queues),
            route: route(&s.addr, &s.broker_name, &s.cluster, s.queues),
            one_queue_route: route(&s.addr, &s.broker_name, &s.cluster, 1),
            pulls: Pulls::new(s.queues, s.messages_per_queue, s.hold, identity),
            offsets: Offsets::default(),
            groups: Groups::default(),
            refused: Mutex::new(HashSet::new()),
            links: Mutex::new(HashMap::new()),
            opaque: AtomicI32::new(0),
        }
    }

    /// A connection opened: the peer may write requests of its own to it.
    pub fn opened(&self, connection: u64, link: Link) {
        self.links
            .lock()
            .expect("links lock")
            .insert(connection, link);
    }

    /// A connection closed: what its clients registered goes (the rest of their groups are told).
    pub fn closed(&self, connection: u64) {
        self.links.lock().expect("links lock").remove(&connection);
        for group in self.groups.closed(connection) {
            self.notify_members(&group);
        }
    }

    /// NOTIFY_CONSUMER_IDS_CHANGED (oneway) to each connection of the group's members. A connection that cannot be
    /// written to is left to its own thread to close.
    fn notify_members(&self, group: &str) {
        let links: Vec<Link> = {
            let links = self.links.lock().expect("links lock");
            self.groups
                .connections(group)
                .iter()
                .filter_map(|c| links.get(c).cloned())
                .collect()
        };
        if links.is_empty() {
            return;
        }
        let opaque = self.opaque.fetch_add(1, Ordering::Relaxed);
        let ext = [("consumerGroup", group)];
        let mut request = Vec::new();
        frame::write_frame(
            &mut request,
            |h| frame::request_header(h, NOTIFY_CONSUMER_IDS_CHANGED, opaque, FLAG_ONEWAY, &ext),
            &[],
        );
        for link in links {
            let _ = link.lock().expect("link lock").write_all(&request);
        }
    }

    /// Appends the response to `frame` (a request without its length prefix, from `connection`) to `out`; nothing
    /// for a oneway request. An error is a frame the peer cannot read (the connection is closed). `When::After`: the
    /// response appended is to go out only after that wait (a long-polling pull at the end of its queue).
    pub fn answer(
        &self,
        frame: &[u8],
        out: &mut Vec<u8>,
        connection: u64,
    ) -> std::io::Result<When> {
        let (header, body) = frame::split(frame)?;
        let request: Header = serde_json::from_slice(header).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("request header: {e}"),
            )
        })?;
        if request.flag & frame::FLAG_RESPONSE != 0 {
            return Ok(When::Now); // a response to nothing the peer asked
        }
        let oneway = request.flag & FLAG_ONEWAY != 0;
        let opaque = request.opaque;
        let reply = |out: &mut Vec<u8>,
                     code: i32,
                     remark: Option<&str>,
                     ext: &[(&str, &str)],
                     body: &[u8]| {
            if !oneway {
                frame::write_frame(
                    out,
                    |h| frame::response_header(h, code, opaque, remark, ext),
                    body,
                );
            }
        };
        let field = |name: &str| request.field(name).unwrap_or("");
        let number = |name: &str| request.field(name).and_then(|v| v.parse::<i64>().ok());
        let offset_reply = |out: &mut Vec<u8>, offset: i64| {
            reply(out, SUCCESS, None, &[("offset", &offset.to_string())], &[])
        };
        match request.code {
            PULL_MESSAGE | LITE_PULL_MESSAGE => {
                let sys_flag = number("sysFlag").unwrap_or(0);
                if let (true, Some(queue_id), Some(offset)) = (
                    sys_flag & i64::from(FLAG_COMMIT_OFFSET) != 0,
                    number("queueId"),
                    number("commitOffset"),
                ) {
                    let (group, topic) = (field("consumerGroup"), field("topic"));
                    self.offsets.commit(group, topic, queue_id, offset);
                }
                if oneway {
                    return Ok(When::Now);
                }
                return Ok(self.pulls.answer(&request, out));
            }
            QUERY_CONSUMER_OFFSET => {
                let queue_id = number("queueId").unwrap_or(-1);
                match self
                    .offsets
                    .query(field("consumerGroup"), field("topic"), queue_id)
                {
                    Some(offset) => offset_reply(out, offset),
                    None => reply(
                        out,
                        QUERY_NOT_FOUND,
                        Some("no offset committed for this group's queue"),
                        &[],
                        &[],
                    ),
                }
            }
            UPDATE_CONSUMER_OFFSET => {
                if let (Some(queue_id), Some(offset)) = (number("queueId"), number("commitOffset"))
                {
                    self.offsets
                        .commit(field("consumerGroup"), field("topic"), queue_id, offset);
                }
                reply(out, SUCCESS, None, &[], &[]);
            }
            GET_MAX_OFFSET => offset_reply(out, self.pulls.max_offset(field("topic"))),
            GET_MIN_OFFSET => offset_reply(out, 0),
            SEARCH_OFFSET_BY_TIMESTAMP => {
                let stored = self.pulls.store_timestamp();
                let offset = if number("timestamp").unwrap_or(0) <= stored {
                    0
                } else {
                    self.pulls.max_offset(field("topic"))
                };
                offset_reply(out, offset);
            }
            GET_EARLIEST_MSG_STORETIME => {
                let timestamp = self.pulls.store_timestamp().to_string();
                reply(out, SUCCESS, None, &[("timestamp", &timestamp)], &[]);
            }
            GET_ROUTEINFO_BY_TOPIC => {
                let route = if self.pulls.queues(field("topic")) == self.queues {
                    &self.route
                } else {
                    &self.one_queue_route
                };
                reply(out, SUCCESS, None, &[], route);
            }
            HEART_BEAT => {
                let joined = self.groups.heartbeat(body, connection);
                reply(out, SUCCESS, None, &[], &[]);
                for group in joined {
                    self.notify_members(&group);
                }
            }
            UNREGISTER_CLIENT => {
                let group = field("consumerGroup");
                if self.groups.unregister(group, field("clientID")) {
                    self.notify_members(group);
                }
                reply(out, SUCCESS, None, &[], &[]);
            }
            CONSUMER_SEND_MSG_BACK => reply(out, SUCCESS, None, &[], &[]),
            GET_CONSUMER_LIST_BY_GROUP => {
                let group = field("consumerGroup");
                match self.groups.consumer_list(group) {
                    Some(list) => reply(out, SUCCESS, None, &[], &list),
                    None => {
                        let remark = format!("no consumer for this group, {group}");
                        reply(out, SYSTEM_ERROR, Some(&remark), &[], &[]);
                    }
                }
            }
            LOCK_BATCH_MQ => match self.groups.lock(body) {
                Some(locked) => reply(out, SUCCESS, None, &[], &locked),
                None => reply(
                    out,
                    SYSTEM_ERROR,
                    Some("the peer cannot read this lock"),
                    &[],
                    &[],
                ),
            },
            UNLOCK_BATCH_MQ => {
                if self.groups.unlock(body) {
                    reply(out, SUCCESS, None, &[], &[]);
                } else {
                    reply(
                        out,
                        SYSTEM_ERROR,
                        Some("the peer cannot read this unlock"),
                        &[],
                        &[],
                    );
                }
            }
            SEND_MESSAGE | SEND_MESSAGE_V2 | SEND_BATCH_MESSAGE => {
                self.sends.answer(&request, body, |code, remark, ext| {
                    reply(out, code, remark, ext, &[])
                });
            }
            code => {
                if self.refused.lock().expect("refused lock").insert(code) {
                    eprintln!(
                        "rocketroute-instant-peer: request code {code} is not answered (code 3)"
                    );
                }
                let remark = format!("request code {code} is not answered by the instant peer");
                reply(out, REQUEST_CODE_NOT_SUPPORTED, Some(&remark), &[], &[]);
            }
        }
        Ok(When::Now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::send::MESSAGE_ILLEGAL;

    fn request(code: i32, flag: i32, ext: &str, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let header =
            format!("{{\"code\":{code},\"opaque\":5,\"flag\":{flag},\"extFields\":{{{ext}}}}}");
        frame::write_frame(&mut out, |h| h.extend_from_slice(header.as_bytes()), body);
        out.split_off(4)
    }

    fn answer(peer: &Peer, frame: &[u8]) -> (i32, i32, serde_json::Value, Vec<u8>) {
        let mut out = Vec::new();
        peer.answer(frame, &mut out, 1).unwrap();
        let mut buf = Vec::new();
        assert!(frame::read_frame(&mut out.as_slice(), &mut buf).unwrap());
        let (h, body) = frame::split(&buf).unwrap();
        let v: serde_json::Value = serde_json::from_slice(h).unwrap();
        (
            v["code"].as_i64().unwrap() as i32,
            v["opaque"].as_i64().unwrap() as i32,
            v["extFields"].clone(),
            body.to_vec(),
        )
    }

    fn peer() -> Peer {
        Peer::new(Settings {
            addr: "127.0.0.1:9876".into(),
            host: "127.0.0.1".parse().unwrap(),
            port: 9876,
            broker_name: "broker-a".into(),
            cluster: "c".into(),
            queues: 4,
            messages_per_queue: 100,
            body_size: 10,
            hold: Duration::from_millis(500),
        })
    }

    #[test]
    fn a_route_names_the_peer_itself() {
        let (code, opaque, _, body) = answer(
            &peer(),
            &request(GET_ROUTEINFO_BY_TOPIC, 0, "\"topic\":\"T\"", b""),
        );
        assert_eq!((code, opaque), (SUCCESS, 5));
        let route: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            route["brokerDatas"][0]["brokerAddrs"]["0"],
            "127.0.0.1:9876"
        );
        assert_eq!(route["queueDatas"][0]["writeQueueNums"], 4);
    }

    #[test]
    fn sends_count_offsets_per_queue_and_batches_per_message() {
        let p = peer();
        let (code, _, ext, _) = answer(&p, &request(SEND_MESSAGE_V2, 0, "\"e\":\"1\"", b"x"));
        assert_eq!(
            (code, ext["queueId"].as_str(), ext["queueOffset"].as_str()),
            (SUCCESS, Some("1"), Some("0"))
        );
        assert_eq!(ext["msgId"].as_str().unwrap().len(), 32);
        let mut batch = Vec::new();
        for _ in 0..3 {
            batch.extend_from_slice(&8i32.to_be_bytes());
            batch.extend_from_slice(&[0; 4]);
        }
        let (_, _, ext, _) = answer(&p, &request(SEND_BATCH_MESSAGE, 0, "\"e\":\"1\"", &batch));
        assert_eq!(ext["queueOffset"].as_str(), Some("1"));
        assert_eq!(ext["msgId"].as_str().unwrap().split(',').count(), 3);
        let (_, _, ext, _) = answer(&p, &request(SEND_MESSAGE, 0, "\"queueId\":\"5\"", b"x"));
        assert_eq!(ext["queueOffset"].as_str(), Some("4")); // queue 5 of 4 is queue 1
        let (code, _, _, _) = answer(
            &p,
            &request(SEND_BATCH_MESSAGE, 0, "\"e\":\"1\"", &batch[..10]),
        );
        assert_eq!(code, MESSAGE_ILLEGAL);
    }

    #[test]
    fn oneway_requests_get_nothing_and_unknown_codes_a_refusal() {
        let p = peer();
        let mut out = Vec::new();
        p.answer(&request(HEART_BEAT, FLAG_ONEWAY, "", b""), &mut out, 1)
            .unwrap();
        assert!(out.is_empty());
        let (code, _, _, _) = answer(&p, &request(9999, 0, "", b""));
        assert_eq!(code, REQUEST_CODE_NOT_SUPPORTED);
    }

    #[test]
    fn a_retry_topic_has_one_queue() {
        let p = peer();
        let (_, _, _, body) = answer(
            &p,
            &request(GET_ROUTEINFO_BY_TOPIC, 0, "\"topic\":\"%RETRY%g\"", b""),
        );
        let route: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(route["queueDatas"][0]["readQueueNums"], 1);
    }

    #[test]
    fn offsets_are_committed_by_updates_and_by_pulls_and_read_back() {
        let p = peer();
        let q = "\"consumerGroup\":\"g\",\"topic\":\"T\",\"queueId\":\"2\"";
        let (code, ..) = answer(&p, &request(QUERY_CONSUMER_OFFSET, 0, q, b""));
        assert_eq!(code, QUERY_NOT_FOUND);
        let commit = format!("{q},\"commitOffset\":\"7\"");
        let mut out = Vec::new();
        p.answer(
            &request(UPDATE_CONSUMER_OFFSET, FLAG_ONEWAY, &commit, b""),
            &mut out,
            1,
        )
        .unwrap();
        assert!(out.is_empty());
        let (code, _, ext, _) = answer(&p, &request(QUERY_CONSUMER_OFFSET, 0, q, b""));
        assert_eq!((code, ext["offset"].as_str()), (SUCCESS, Some("7")));
        let pull = format!(
            "{q},\"queueOffset\":\"9\",\"maxMsgNums\":\"32\",\"sysFlag\":\"3\",\"commitOffset\":\"9\""
        );
        let (code, _, ext, _) = answer(&p, &request(PULL_MESSAGE, 0, &pull, b""));
        assert_eq!(
            (code, ext["nextBeginOffset"].as_str()),
            (SUCCESS, Some("41"))
        );
        let (_, _, ext, _) = answer(&p, &request(QUERY_CONSUMER_OFFSET, 0, q, b""));
        assert_eq!(ext["offset"].as_str(), Some("9"));
    }

    #[test]
    fn a_lite_pull_is_answered_as_a_pull() {
        let p = peer();
        let pull = "\"consumerGroup\":\"g\",\"topic\":\"T\",\"queueId\":\"1\",\"queueOffset\":\"4\",\"maxMsgNums\":\"10\",\"sysFlag\":\"22\"";
        let (code, _, ext, body) = answer(&p, &request(LITE_PULL_MESSAGE, 0, pull, b""));
        assert_eq!(
            (code, ext["nextBeginOffset"].as_str()),
            (SUCCESS, Some("14"))
        );
        assert!(!body.is_empty());
    }

    #[test]
    fn queue_offsets_are_the_canned_queues() {
        let p = peer();
        let t = "\"topic\":\"T\",\"queueId\":\"0\"";
        let (_, _, max, _) = answer(&p, &request(GET_MAX_OFFSET, 0, t, b""));
        let (_, _, min, _) = answer(&p, &request(GET_MIN_OFFSET, 0, t, b""));
        assert_eq!(
            (max["offset"].as_str(), min["offset"].as_str()),
            (Some("100"), Some("0"))
        );
        let (_, _, retry, _) = answer(
            &p,
            &request(
                GET_MAX_OFFSET,
                0,
                "\"topic\":\"%RETRY%g\",\"queueId\":\"0\"",
                b"",
            ),
        );
        assert_eq!(retry["offset"].as_str(), Some("0"));
        let late = format!("{t},\"timestamp\":\"{}\"", i64::MAX);
        let (_, _, ext, _) = answer(&p, &request(SEARCH_OFFSET_BY_TIMESTAMP, 0, &late, b""));
        assert_eq!(ext["offset"].as_str(), Some("100"));
        let early = format!("{t},\"timestamp\":\"0\"");
        let (_, _, ext, _) = answer(&p, &request(SEARCH_OFFSET_BY_TIMESTAMP, 0, &early, b""));
        assert_eq!(ext["offset"].as_str(), Some("0"));
    }

    #[test]
    fn a_group_lists_the_clients_that_sent_heartbeats_until_they_unregister() {
        let p = peer();
        let g = "\"consumerGroup\":\"g\"";
        let (code, ..) = answer(&p, &request(GET_CONSUMER_LIST_BY_GROUP, 0, g, b""));
        assert_eq!(code, SYSTEM_ERROR);
        let beat =
            br#"{"clientID":"c@1","consumerDataSet":[{"groupName":"g"}],"producerDataSet":[]}"#;
        assert_eq!(answer(&p, &request(HEART_BEAT, 0, "", beat)).0, SUCCESS);
        let (code, _, _, body) = answer(&p, &request(GET_CONSUMER_LIST_BY_GROUP, 0, g, b""));
        let list: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (code, list["consumerIdList"].clone()),
            (SUCCESS, serde_json::json!(["c@1"]))
        );
        let leave = format!("{g},\"clientID\":\"c@1\"");
        assert_eq!(
            answer(&p, &request(UNREGISTER_CLIENT, 0, &leave, b"")).0,
            SUCCESS
        );
        assert_eq!(
            answer(&p, &request(GET_CONSUMER_LIST_BY_GROUP, 0, g, b"")).0,
            SYSTEM_ERROR
        );
    }

    #[test]
    fn a_group_s_members_are_told_when_it_changes() {
        let p = peer();
        let (one, two) = (
            Arc::new(Mutex::new(Vec::new())),
            Arc::new(Mutex::new(Vec::new())),
        );
        p.opened(1, one.clone());
        p.opened(2, two.clone());
        let beat = |client: &str| {
            format!("{{\"clientID\":\"{client}\",\"consumerDataSet\":[{{\"groupName\":\"g\"}}]}}")
        };
        let mut out = Vec::new();
        p.answer(
            &request(HEART_BEAT, 0, "", beat("a").as_bytes()),
            &mut out,
            1,
        )
        .unwrap();
        p.answer(
            &request(HEART_BEAT, 0, "", beat("a").as_bytes()),
            &mut out,
            1,
        )
        .unwrap();
        p.answer(
            &request(HEART_BEAT, 0, "", beat("b").as_bytes()),
            &mut out,
            2,
        )
        .unwrap();
        p.closed(2);
        let notices = |link: &Arc<Mutex<Vec<u8>>>| {
            let bytes = link.lock().unwrap().clone();
            let (mut r, mut buf, mut groups) = (bytes.as_slice(), Vec::new(), Vec::new());
            while frame::read_frame(&mut r, &mut buf).unwrap() {
                let h: Header = serde_json::from_slice(frame::split(&buf).unwrap().0).unwrap();
                assert_eq!((h.code, h.flag), (NOTIFY_CONSUMER_IDS_CHANGED, FLAG_ONEWAY));
                groups.push(h.field("consumerGroup").unwrap().to_string());
            }
            groups
        };
        assert_eq!(notices(&one), ["g", "g", "g"], "a joined, b joined, b left");
        assert_eq!(notices(&two), ["g"], "b joined");
    }
}
