//! The name server's route model and its conversion to publish and subscribe queues
//! (`MQClientInstance.topicRouteData2TopicPublishInfo` / `topicRouteData2TopicSubscribeInfo`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::error::{JavaError, JavaResult};
use crate::java::{parse_int, split, string_compare};
use crate::message_queue::MessageQueue;

/// `MixAll.MASTER_ID`.
pub const MASTER_ID: i64 = 0;

/// Most queues one conversion may produce; Java would try to allocate any count and run out of memory.
pub const MAX_QUEUES: usize = 1 << 20;

/// `PermName`.
pub mod perm {
    pub const PERM_PRIORITY: i32 = 0x1 << 3;
    pub const PERM_READ: i32 = 0x1 << 2;
    pub const PERM_WRITE: i32 = 0x1 << 1;
    pub const PERM_INHERIT: i32 = 0x1;

    pub fn is_readable(perm: i32) -> bool {
        perm & PERM_READ == PERM_READ
    }
    pub fn is_writeable(perm: i32) -> bool {
        perm & PERM_WRITE == PERM_WRITE
    }
    pub fn is_inherited(perm: i32) -> bool {
        perm & PERM_INHERIT == PERM_INHERIT
    }
    pub fn is_priority(perm: i32) -> bool {
        perm & PERM_PRIORITY == PERM_PRIORITY
    }
    pub fn is_valid(perm: i32) -> bool {
        (0..PERM_PRIORITY).contains(&perm)
    }
    pub fn is_accessible(perm: i32) -> bool {
        is_readable(perm) || is_writeable(perm)
    }
    pub fn to_string(perm: i32) -> String {
        let mut s = String::with_capacity(3);
        s.push(if is_readable(perm) { 'R' } else { '-' });
        s.push(if is_writeable(perm) { 'W' } else { '-' });
        s.push(if is_inherited(perm) { 'X' } else { '-' });
        s
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueData {
    pub broker_name: Arc<str>,
    pub read_queue_nums: i32,
    pub write_queue_nums: i32,
    pub perm: i32,
    pub topic_sys_flag: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerData {
    pub cluster: Option<String>,
    pub broker_name: Arc<str>,
    /// Broker id -> address, in the order given; `None` stands for Java's null map.
    pub broker_addrs: Option<Vec<(i64, Option<String>)>>,
}

impl BrokerData {
    pub fn has_master(&self) -> Option<bool> {
        self.broker_addrs
            .as_ref()
            .map(|a| a.iter().any(|(id, _)| *id == MASTER_ID))
    }
}

/// Builds a broker's id -> address map in first-seen order, a later address of an id replacing the
/// earlier one (as `HashMap.put`), in linear time.
#[derive(Default)]
pub struct BrokerAddrs {
    addrs: Vec<(i64, Option<String>)>,
    index: HashMap<i64, usize>,
}

impl BrokerAddrs {
    pub fn put(&mut self, id: i64, addr: Option<String>) {
        match self.index.get(&id) {
            Some(&i) => self.addrs[i].1 = addr,
            None => {
                self.index.insert(id, self.addrs.len());
                self.addrs.push((id, addr));
            }
        }
    }

    pub fn into_vec(self) -> Vec<(i64, Option<String>)> {
        self.addrs
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicRouteData {
    pub queue_datas: Vec<QueueData>,
    pub broker_datas: Vec<BrokerData>,
    pub order_topic_conf: Option<String>,
}

fn budget(total: i64) -> JavaResult<()> {
    if total > MAX_QUEUES as i64 {
        return Err(JavaError::IllegalArgument(format!(
            "route has more than {MAX_QUEUES} queues ({total})"
        )));
    }
    Ok(())
}

/// `orderTopicConf` ("broker-a:4;broker-b:4") as `(broker, nums)` pairs, failing as Java does.
pub fn parse_order_topic_conf(conf: &str) -> JavaResult<Vec<(&str, i32)>> {
    let mut out = Vec::new();
    for broker in split(conf, ';') {
        let item = split(broker, ':');
        if item.len() < 2 {
            return Err(JavaError::IndexOutOfBounds(format!(
                "Index 1 out of bounds for length {}",
                item.len()
            )));
        }
        out.push((item[0], parse_int(item[1])?));
    }
    Ok(out)
}

impl TopicRouteData {
    pub fn is_order_topic(&self) -> bool {
        self.order_topic_conf
            .as_deref()
            .is_some_and(|c| !c.is_empty())
    }

    /// Queue datas in the order `Collections.sort` leaves them: by broker name, stable.
    pub fn sorted_queue_datas(&self) -> Vec<QueueData> {
        let mut v = self.queue_datas.clone();
        v.sort_by(|a, b| string_compare(&a.broker_name, &b.broker_name).cmp(&0));
        v
    }

    /// The publish queues and whether the topic is ordered.
    pub fn publish_queues(&self, topic: &str) -> JavaResult<(Vec<MessageQueue>, bool)> {
        let topic: Arc<str> = Arc::from(topic);
        let mut out = Vec::new();
        if let Some(conf) = self.order_topic_conf.as_deref().filter(|c| !c.is_empty()) {
            let entries = parse_order_topic_conf(conf)?;
            budget(entries.iter().map(|(_, n)| (*n).max(0) as i64).sum())?;
            for (broker, nums) in entries {
                out.extend(MessageQueue::series(&topic, &Arc::from(broker), 0..nums));
            }
            return Ok((out, true));
        }
        // Java takes the first broker data of each name, scanning the list per queue data
        let mut first_broker_data: HashMap<&str, &BrokerData> = HashMap::new();
        for bd in &self.broker_datas {
            first_broker_data.entry(&bd.broker_name).or_insert(bd);
        }
        let mut plan = Vec::new();
        for qd in self.sorted_queue_datas() {
            if !perm::is_writeable(qd.perm) {
                continue;
            }
            let Some(bd) = first_broker_data.get(&*qd.broker_name) else {
                continue;
            };
            match bd.has_master() {
                None => {
                    return Err(JavaError::NullPointer(format!(
                        "brokerAddrs of broker '{}' is None",
                        bd.broker_name
                    )))
                }
                Some(false) => continue,
                Some(true) => plan.push(qd),
            }
        }
        budget(plan.iter().map(|q| q.write_queue_nums.max(0) as i64).sum())?;
        for qd in plan {
            out.extend(MessageQueue::series(
                &topic,
                &qd.broker_name,
                0..qd.write_queue_nums,
            ));
        }
        Ok((out, false))
    }

    /// The queues a consumer reads, without duplicates, sorted by `MessageQueue.compareTo`.
    pub fn subscribe_queues(&self, topic: &str) -> JavaResult<Vec<MessageQueue>> {
        let readable = || {
            self.queue_datas
                .iter()
                .filter(|q| perm::is_readable(q.perm))
        };
        budget(readable().map(|q| q.read_queue_nums.max(0) as i64).sum())?;
        let topic: Arc<str> = Arc::from(topic);
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for qd in readable() {
            for mq in MessageQueue::series(&topic, &qd.broker_name, 0..qd.read_queue_nums) {
                if seen.insert(mq.clone()) {
                    out.push(mq);
                }
            }
        }
        out.sort_by(|a, b| a.java_cmp(b));
        Ok(out)
    }

    /// Parses the name server's JSON (camelCase keys; snake_case accepted too). The name server
    /// writes with fastjson, whose maps with numeric keys come out unquoted (`"brokerAddrs":{0:"..."}`);
    /// that text is accepted too.
    pub fn from_json_str(text: &str) -> JavaResult<Self> {
        // Java's and Python's parsers take `\ud800` escapes that pair with nothing, serde_json does not: they
        // are masked so that syntax errors still come first, then the document is refused for holding one
        let masked = mask_lone_surrogate_escapes(text);
        let text = masked.as_deref().unwrap_or(text);
        let v: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(strict) => serde_json::from_str(&quote_numeric_keys(text)).map_err(|_| {
                JavaError::IllegalArgument(format!("route is not valid JSON: {strict}"))
            })?,
        };
        if masked.is_some() {
            return Err(illegal(LONE_SURROGATE_IN_JSON));
        }
        Self::from_json_value(&v)
    }

    pub fn from_json_value(v: &Value) -> JavaResult<Self> {
        let obj = v
            .as_object()
            .ok_or_else(|| illegal("route JSON must be an object"))?;
        let qds = list(field(obj, "queueDatas", "queue_datas"), "queueDatas")?;
        let bds = list(field(obj, "brokerDatas", "broker_datas"), "brokerDatas")?;
        let mut queue_datas = Vec::with_capacity(qds.len());
        for q in qds {
            let q = q
                .as_object()
                .ok_or_else(|| illegal("each queueDatas entry must be an object"))?;
            queue_datas.push(QueueData {
                broker_name: name(field(q, "brokerName", "broker_name"), "broker_name")?,
                read_queue_nums: int(
                    field(q, "readQueueNums", "read_queue_nums"),
                    "read_queue_nums",
                )?,
                write_queue_nums: int(
                    field(q, "writeQueueNums", "write_queue_nums"),
                    "write_queue_nums",
                )?,
                perm: int(field(q, "perm", "perm"), "perm")?,
                topic_sys_flag: int(field(q, "topicSysFlag", "topic_sys_flag"), "topic_sys_flag")?,
            });
        }
        let mut broker_datas = Vec::with_capacity(bds.len());
        for b in bds {
            let b = b
                .as_object()
                .ok_or_else(|| illegal("each brokerDatas entry must be an object"))?;
            let cluster = match b.get("cluster") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err(illegal("cluster must be a str or None")),
            };
            let broker_addrs = match field(b, "brokerAddrs", "broker_addrs") {
                None | Some(Value::Null) => None,
                Some(Value::Object(m)) => {
                    let mut addrs = BrokerAddrs::default();
                    for (k, a) in m {
                        let addr = match a {
                            Value::Null => None,
                            Value::String(s) => Some(s.clone()),
                            _ => return Err(illegal("broker address must be a str or None")),
                        };
                        addrs.put(broker_id(k)?, addr);
                    }
                    Some(addrs.into_vec())
                }
                Some(_) => return Err(illegal("brokerAddrs must be an object")),
            };
            broker_datas.push(BrokerData {
                cluster,
                broker_name: name(field(b, "brokerName", "broker_name"), "broker_name")?,
                broker_addrs,
            });
        }
        let order_topic_conf = match field(obj, "orderTopicConf", "order_topic_conf") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(illegal("order_topic_conf must be a str or None")),
        };
        Ok(TopicRouteData {
            queue_datas,
            broker_datas,
            order_topic_conf,
        })
    }
}

/// A route whose strings hold a lone surrogate: no name can (UTF-8, RocketMQ's wire encoding, has none).
pub const LONE_SURROGATE_IN_JSON: &str =
    "route JSON contains a lone surrogate, which UTF-8 cannot carry";

/// `text` with every `\uXXXX` escape of an unpaired surrogate replaced by `\uFFFD` (as long, so error
/// offsets hold), or `None` when it has none. A high surrogate escape pairs only with a low one right after.
pub fn mask_lone_surrogate_escapes(text: &str) -> Option<String> {
    fn unit(b: &[u8]) -> Option<u16> {
        let hex = std::str::from_utf8(b.get(2..6)?).ok()?;
        if b[1] != b'u' || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(hex, 16).ok()
    }
    let b = text.as_bytes();
    let mut lone = Vec::new();
    let mut high: Option<usize> = None; // a high surrogate escape waiting for its low half
    let mut i = 0;
    while i < b.len() {
        let u = if b[i] == b'\\' { unit(&b[i..]) } else { None };
        let is_low = matches!(u, Some(0xDC00..=0xDFFF));
        match (high.take(), is_low) {
            (Some(_), true) => {} // a pair
            (Some(h), false) => lone.push(h),
            (None, true) => lone.push(i),
            (None, false) => {}
        }
        if matches!(u, Some(0xD800..=0xDBFF)) {
            high = Some(i);
        }
        i += match (b[i], u) {
            (_, Some(_)) => 6,
            (b'\\', None) => 2, // another escape, `\\` included
            _ => 1,
        };
    }
    lone.extend(high);
    if lone.is_empty() {
        return None;
    }
    let mut out = b.to_vec();
    for at in lone {
        out[at + 2..at + 6].copy_from_slice(b"FFFD");
    }
    String::from_utf8(out).ok()
}

/// fastjson's object keys that are bare integers (`{0:"a", -1:"b"}`), quoted so the text is JSON.
pub fn quote_numeric_keys(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let (mut i, mut start) = (0, 0);
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'{' | b',' => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                let key_start = j;
                if j < b.len() && b[j] == b'-' {
                    j += 1;
                }
                let digits = j;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let key_end = j;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if key_end > digits && j < b.len() && b[j] == b':' {
                    out.push_str(&text[start..key_start]);
                    out.push('"');
                    out.push_str(&text[key_start..key_end]);
                    out.push('"');
                    start = key_end;
                    i = key_end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&text[start..]);
    out
}

fn illegal(msg: &str) -> JavaError {
    JavaError::IllegalArgument(msg.to_owned())
}

fn field<'a>(
    obj: &'a serde_json::Map<String, Value>,
    camel: &str,
    snake: &str,
) -> Option<&'a Value> {
    obj.get(camel).or_else(|| obj.get(snake))
}

fn list<'a>(v: Option<&'a Value>, what: &str) -> JavaResult<&'a [Value]> {
    match v {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(JavaError::IllegalArgument(format!("{what} must be a list"))),
    }
}

fn name(v: Option<&Value>, what: &str) -> JavaResult<Arc<str>> {
    match v {
        None | Some(Value::Null) => Err(JavaError::NullPointer(format!("{what} is None"))),
        Some(Value::String(s)) => Ok(Arc::from(s.as_str())),
        Some(_) => Err(JavaError::IllegalArgument(format!("{what} must be a str"))),
    }
}

fn int(v: Option<&Value>, what: &str) -> JavaResult<i32> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => i32::try_from(i).map_err(|_| {
                JavaError::IllegalArgument(format!("{what} {i} is out of the Java int range"))
            }),
            // an integer literal past the long range (kept as written: arbitrary_precision)
            None if n.is_u64() || is_integer_literal(&n.to_string()) => Err(
                JavaError::IllegalArgument(format!("{what} {n} is out of the Java int range")),
            ),
            None => Err(JavaError::IllegalArgument(format!(
                "{what} must be an int, not float"
            ))),
        },
        Some(_) => Err(JavaError::IllegalArgument(format!("{what} must be an int"))),
    }
}

fn is_integer_literal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A broker id key of `brokerAddrs`: a decimal string (JSON object keys are strings).
pub fn broker_id(k: &str) -> JavaResult<i64> {
    let digits = k.strip_prefix(['+', '-']).unwrap_or(k);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(JavaError::IllegalArgument(format!(
            "broker id '{k}' is not a number"
        )));
    }
    k.parse::<i64>().map_err(|_| {
        JavaError::IllegalArgument(format!("broker id '{k}' is out of the Java long range"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_are_masked_in_place_and_pairs_kept() {
        let m = |t: &str| mask_lone_surrogate_escapes(t);
        assert_eq!(m(r#"{"a":"x\ud83d\ude00"}"#), None);
        assert_eq!(m(r#"{"a":"x\\ud800"}"#), None); // an escaped backslash, then text
        assert_eq!(m(r#"{"a":"\ud800"}"#).unwrap(), r#"{"a":"\uFFFD"}"#);
        assert_eq!(m(r#"["\udc00\ud800"]"#).unwrap(), r#"["\uFFFD\uFFFD"]"#);
        assert_eq!(
            m(r#"["\uD83D\uD83D\uDE00"]"#).unwrap(),
            r#"["\uFFFD\uD83D\uDE00"]"#
        );
        assert_eq!(m(r#"["\ud800x\\"]"#).unwrap(), r#"["\uFFFDx\\"]"#);
        assert_eq!(m(r#"\ud800"#).unwrap(), r#"\uFFFD"#);
        assert_eq!(m("\\u"), None);
    }

    #[test]
    fn a_route_with_a_lone_surrogate_is_refused_after_syntax_errors() {
        let err = |t: &str| TopicRouteData::from_json_str(t).unwrap_err().to_string();
        assert!(err(r#"{"queueDatas":[{"brokerName":"a\ud800"}]}"#).contains("lone surrogate"));
        assert!(err(r#"{"queueDatas":[{"brokerName":"a\ud800"}]"#).contains("not valid JSON"));
        let ok = r#"{"queueDatas":[],"brokerDatas":[{"cluster":"\ud83d\ude00","brokerName":"b","brokerAddrs":{}}]}"#;
        assert!(TopicRouteData::from_json_str(ok).is_ok());
    }

    const ROUTE: &str = r#"{"orderTopicConf":null,
      "queueDatas":[{"brokerName":"broker-b","readQueueNums":2,"writeQueueNums":2,"perm":6,"topicSysFlag":0},
                    {"brokerName":"broker-a","readQueueNums":3,"writeQueueNums":1,"perm":6,"topicSysFlag":0},
                    {"brokerName":"broker-c","readQueueNums":1,"writeQueueNums":1,"perm":4,"topicSysFlag":0}],
      "brokerDatas":[{"cluster":"c","brokerName":"broker-a","brokerAddrs":{"0":"10.0.0.1:10911"}},
                     {"cluster":"c","brokerName":"broker-b","brokerAddrs":{"0":"10.0.0.2:10911"}},
                     {"cluster":"c","brokerName":"broker-c","brokerAddrs":{"0":"10.0.0.3:10911"}}]}"#;

    #[test]
    fn publish_sorts_brokers_and_skips_read_only() {
        let r = TopicRouteData::from_json_str(ROUTE).unwrap();
        let (mqs, order) = r.publish_queues("T").unwrap();
        assert!(!order);
        let names: Vec<String> = mqs.iter().map(|m| m.to_string()).collect();
        assert_eq!(
            names,
            [
                "MessageQueue [topic=T, brokerName=broker-a, queueId=0]",
                "MessageQueue [topic=T, brokerName=broker-b, queueId=0]",
                "MessageQueue [topic=T, brokerName=broker-b, queueId=1]",
            ]
        );
        let sub = r.subscribe_queues("T").unwrap();
        assert_eq!(sub.len(), 6);
        assert_eq!(sub[0], MessageQueue::of("T", "broker-a", 0));
    }

    #[test]
    fn order_topic_conf_fails_like_java() {
        let mut r = TopicRouteData {
            order_topic_conf: Some("broker-a:2;broker-b:1".into()),
            ..Default::default()
        };
        let (mqs, order) = r.publish_queues("T").unwrap();
        assert!(order);
        assert_eq!(mqs.len(), 3);
        r.order_topic_conf = Some(";broker-a:4".into());
        assert_eq!(
            r.publish_queues("T").unwrap_err(),
            JavaError::IndexOutOfBounds("Index 1 out of bounds for length 1".into())
        );
        r.order_topic_conf = Some("broker-a: 4".into());
        assert!(matches!(
            r.publish_queues("T"),
            Err(JavaError::NumberFormat(_))
        ));
        r.order_topic_conf = Some("broker-a:2147483647".into());
        assert!(matches!(
            r.publish_queues("T"),
            Err(JavaError::IllegalArgument(_))
        ));
    }

    #[test]
    fn null_broker_addrs_is_npe() {
        let r = TopicRouteData::from_json_str(
            r#"{"queueDatas":[{"brokerName":"b","readQueueNums":1,"writeQueueNums":1,"perm":6}],
                "brokerDatas":[{"brokerName":"b","brokerAddrs":null}]}"#,
        )
        .unwrap();
        assert!(matches!(
            r.publish_queues("T"),
            Err(JavaError::NullPointer(_))
        ));
    }

    #[test]
    fn fastjson_numeric_keys_are_accepted() {
        let text = r#"{"queueDatas":[{"brokerName":"b","readQueueNums":1,"writeQueueNums":1,"perm":6}],
            "brokerDatas":[{"brokerName":"b","brokerAddrs":{0:"10.0.0.1:10911", 1 : "x{0:1}"}}]}"#;
        let r = TopicRouteData::from_json_str(text).unwrap();
        assert_eq!(
            r.broker_datas[0].broker_addrs,
            Some(vec![
                (0, Some("10.0.0.1:10911".into())),
                (1, Some("x{0:1}".into()))
            ])
        );
        assert_eq!(
            quote_numeric_keys(r#"{"a":[1,2],-3:4}"#),
            r#"{"a":[1,2],"-3":4}"#
        );
        assert!(TopicRouteData::from_json_str("{0:").is_err());
    }

    #[test]
    fn perm_strings() {
        assert_eq!(perm::to_string(6), "RW-");
        assert_eq!(perm::to_string(-2), "RW-");
        assert!(!perm::is_valid(8));
    }
}
