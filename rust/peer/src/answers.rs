//! What the peer answers: a route naming itself for every topic, SUCCESS for heartbeats, and a stored-looking
//! SEND_OK for every send (ids and queue offsets counted, bodies dropped).

use std::sync::atomic::{AtomicI64, Ordering};

use rocketroute_core::frame::write_json_string;

use crate::frame::{self, Header, FLAG_ONEWAY};

pub const SEND_MESSAGE: i32 = 10;
pub const HEART_BEAT: i32 = 34;
pub const UNREGISTER_CLIENT: i32 = 35;
pub const GET_ROUTEINFO_BY_TOPIC: i32 = 105;
pub const SEND_MESSAGE_V2: i32 = 310;
pub const SEND_BATCH_MESSAGE: i32 = 320;

const SUCCESS: i32 = 0;
const REQUEST_CODE_NOT_SUPPORTED: i32 = 3;
const MESSAGE_ILLEGAL: i32 = 13;

/// One broker (and its name server): the address it gives in routes and the counters of what it "stored".
pub struct Peer {
    queues: u32,
    port_hex: String,
    queue_offsets: Vec<AtomicI64>,
    commit_log: AtomicI64,
    route: Vec<u8>,
}

impl Peer {
    pub fn new(addr: String, port: u16, broker_name: String, cluster: String, queues: u32) -> Peer {
        let mut route = Vec::new();
        route.extend_from_slice(b"{\"brokerDatas\":[{\"brokerAddrs\":{\"0\":");
        write_json_string(&mut route, &addr);
        route.extend_from_slice(b"},\"brokerName\":");
        write_json_string(&mut route, &broker_name);
        route.extend_from_slice(b",\"cluster\":");
        write_json_string(&mut route, &cluster);
        route.extend_from_slice(b"}],\"filterServerTable\":{},\"queueDatas\":[{\"brokerName\":");
        write_json_string(&mut route, &broker_name);
        route.extend_from_slice(
            format!(",\"perm\":6,\"readQueueNums\":{queues},\"topicSysFlag\":0,\"writeQueueNums\":{queues}}}]}}")
                .as_bytes(),
        );
        Peer {
            port_hex: format!("{port:08X}"),
            queues,
            queue_offsets: (0..queues.max(1)).map(|_| AtomicI64::new(0)).collect(),
            commit_log: AtomicI64::new(0),
            route,
        }
    }

    /// Appends the response to `frame` (a request without its length prefix) to `out`; nothing for a oneway
    /// request. An error is a frame the peer cannot read (the connection is closed).
    pub fn answer(&self, frame: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
        let (header, body) = frame::split(frame)?;
        let request: Header = serde_json::from_slice(header).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("request header: {e}"),
            )
        })?;
        if request.flag & frame::FLAG_RESPONSE != 0 {
            return Ok(()); // a response to nothing the peer asked
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
        match request.code {
            GET_ROUTEINFO_BY_TOPIC => reply(out, SUCCESS, None, &[], &self.route),
            HEART_BEAT | UNREGISTER_CLIENT => reply(out, SUCCESS, None, &[], &[]),
            SEND_MESSAGE | SEND_MESSAGE_V2 | SEND_BATCH_MESSAGE => {
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
                match (queue_id, count) {
                    (Some(queue_id), Some(count)) if count > 0 => {
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
                        reply(out, SUCCESS, None, &ext, &[]);
                    }
                    _ => reply(
                        out,
                        MESSAGE_ILLEGAL,
                        Some("the instant peer cannot read this send"),
                        &[],
                        &[],
                    ),
                }
            }
            code => {
                let remark = format!("request code {code} is not answered by the instant peer");
                reply(out, REQUEST_CODE_NOT_SUPPORTED, Some(&remark), &[], &[]);
            }
        }
        Ok(())
    }
}

/// The messages of a batch body (each starts with its int32 total size), or `None` when the sizes do not add up.
fn batch_count(body: &[u8]) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn request(code: i32, flag: i32, ext: &str, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let header =
            format!("{{\"code\":{code},\"opaque\":5,\"flag\":{flag},\"extFields\":{{{ext}}}}}");
        frame::write_frame(&mut out, |h| h.extend_from_slice(header.as_bytes()), body);
        out.split_off(4)
    }

    fn answer(peer: &Peer, frame: &[u8]) -> (i32, i32, serde_json::Value, Vec<u8>) {
        let mut out = Vec::new();
        peer.answer(frame, &mut out).unwrap();
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
        Peer::new(
            "127.0.0.1:9876".into(),
            9876,
            "broker-a".into(),
            "c".into(),
            4,
        )
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
        p.answer(&request(HEART_BEAT, FLAG_ONEWAY, "", b""), &mut out)
            .unwrap();
        assert!(out.is_empty());
        let (code, _, _, _) = answer(&p, &request(11, 0, "", b""));
        assert_eq!(code, REQUEST_CODE_NOT_SUPPORTED);
    }
}
