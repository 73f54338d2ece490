//! The name server's route model and its conversion to publish and subscribe queues
//! (`MQClientInstance.topicRouteData2TopicPublishInfo` / `topicRouteData2TopicSubscribeInfo`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use crate::compat::Compat;
use crate::error::{JavaError, JavaResult};
use crate::java::{long_hash, parse_int, split, string_compare, string_hash};
use crate::java_collections::OrderedMap;
use crate::message_queue::MessageQueue;
use crate::static_topic::{endpoints_for_static_topic, QueueMapping, TopicQueueMappingInfo};

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
    /// `None` stands for Java's null.
    pub broker_name: Option<Arc<str>>,
    pub read_queue_nums: i32,
    pub write_queue_nums: i32,
    pub perm: i32,
    pub topic_sys_flag: i32,
}

fn opt_hash(s: Option<&str>) -> i32 {
    s.map_or(0, string_hash)
}

fn npe_compare() -> JavaError {
    JavaError::NullPointer("cannot compare a broker name that is None".into())
}

impl QueueData {
    /// Java's `hashCode()`.
    pub fn java_hash_code(&self) -> i32 {
        [
            opt_hash(self.broker_name.as_deref()),
            self.perm,
            self.read_queue_nums,
            self.write_queue_nums,
            self.topic_sys_flag,
        ]
        .into_iter()
        .fold(1i32, |h, x| h.wrapping_mul(31).wrapping_add(x))
    }

    /// `compareTo`: the broker names (UTF-16 order); a null name on either side is an NPE.
    pub fn compare_to(&self, o: &QueueData) -> JavaResult<i32> {
        match (self.broker_name.as_deref(), o.broker_name.as_deref()) {
            (Some(a), Some(b)) => Ok(string_compare(a, b)),
            _ => Err(npe_compare()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct BrokerData {
    pub cluster: Option<String>,
    pub broker_name: Arc<str>,
    /// Broker id -> address, in the order given (a later address of an id replacing the earlier one, as
    /// `HashMap.put`); `None` stands for Java's null map.
    pub broker_addrs: Option<BrokerAddrs>,
    /// 5.x `zoneName`.
    pub zone_name: Option<String>,
    /// 5.x `enableActingMaster`.
    pub enable_acting_master: bool,
}

impl BrokerData {
    pub fn new(
        cluster: Option<String>,
        broker_name: Arc<str>,
        broker_addrs: Option<BrokerAddrs>,
    ) -> Self {
        BrokerData {
            cluster,
            broker_name,
            broker_addrs,
            zone_name: None,
            enable_acting_master: false,
        }
    }

    pub fn has_master(&self) -> Option<bool> {
        self.broker_addrs
            .as_ref()
            .map(|a| a.iter().any(|(id, _)| *id == MASTER_ID))
    }

    /// Java's `hashCode()`: the addresses (a `HashMap`'s sum of entry hashes) and the broker name.
    pub fn java_hash_code(&self) -> i32 {
        let addrs = self.broker_addrs.as_ref().map_or(0, |m| {
            m.iter().fold(0i32, |h, (id, a)| {
                h.wrapping_add(long_hash(*id) ^ opt_hash(a.as_deref()))
            })
        });
        31i32
            .wrapping_add(addrs)
            .wrapping_mul(31)
            .wrapping_add(string_hash(&self.broker_name))
    }

    /// `compareTo`: the broker names (UTF-16 order).
    pub fn compare_to(&self, o: &BrokerData) -> i32 {
        string_compare(&self.broker_name, &o.broker_name)
    }
}

/// Java's `equals`: the broker name and the addresses, compared as maps. The cluster, `zoneName` and
/// `enableActingMaster` do not take part.
impl PartialEq for BrokerData {
    fn eq(&self, o: &Self) -> bool {
        self.broker_name == o.broker_name && self.broker_addrs == o.broker_addrs
    }
}

impl Eq for BrokerData {}

/// A broker's id -> address map.
pub type BrokerAddrs = OrderedMap<i64, Option<String>>;

/// `filterServerTable`: broker address -> its filter servers (`None` stands for a null list).
pub type FilterServerTable = OrderedMap<String, Option<Vec<String>>>;

/// A topic's route as the name server sends it. `None` fields stand for Java's nulls; every field takes part
/// in equality (Java's `equals`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicRouteData {
    pub queue_datas: Option<Vec<QueueData>>,
    pub broker_datas: Option<Vec<BrokerData>>,
    pub order_topic_conf: Option<String>,
    pub filter_server_table: Option<FilterServerTable>,
    /// 5.x `topicQueueMappingByBroker` (static topics).
    pub topic_queue_mapping_by_broker: Option<QueueMapping>,
}

/// 5.3.3's `new TopicRouteData()`: empty lists and filter table, no mapping.
impl Default for TopicRouteData {
    fn default() -> Self {
        TopicRouteData {
            queue_datas: Some(Vec::new()),
            broker_datas: Some(Vec::new()),
            order_topic_conf: None,
            filter_server_table: Some(OrderedMap::new()),
            topic_queue_mapping_by_broker: None,
        }
    }
}

fn list_hash<T>(v: Option<&[T]>, h: impl Fn(&T) -> i32) -> i32 {
    v.map_or(0, |v| {
        v.iter()
            .fold(1i32, |acc, e| acc.wrapping_mul(31).wrapping_add(h(e)))
    })
}

/// `Collections.sort` by `compareTo` on a copy: stable; a list of two or more holding a null name throws
/// (every element takes part in a comparison).
fn sort_queue_datas(v: &mut [QueueData]) -> JavaResult<()> {
    if v.len() >= 2 && v.iter().any(|q| q.broker_name.is_none()) {
        return Err(npe_compare());
    }
    v.sort_by(|a, b| a.compare_to(b).unwrap_or(0).cmp(&0));
    Ok(())
}

fn npe(what: &str) -> JavaError {
    JavaError::NullPointer(format!("{what} is None"))
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

    /// Whether `topicRouteData2TopicPublishInfo` takes 5.3.3's static-topic path: no `orderTopicConf` at all
    /// (null, not empty) and a non-empty mapping.
    pub fn publishes_logic_queues(&self, compat: Compat) -> bool {
        compat == Compat::V5_3 && self.order_topic_conf.is_none() && self.has_mapping()
    }

    fn has_mapping(&self) -> bool {
        self.topic_queue_mapping_by_broker
            .as_ref()
            .is_some_and(|m| !m.is_empty())
    }

    /// Queue datas in the order `Collections.sort` leaves them: by broker name, stable.
    pub fn sorted_queue_datas(&self) -> JavaResult<Vec<QueueData>> {
        let mut v = self.queue_datas.clone().ok_or_else(|| npe("queue_datas"))?;
        sort_queue_datas(&mut v)?;
        Ok(v)
    }

    /// Java's `hashCode()`; 4.9.8's route has no mapping term.
    pub fn java_hash_code(&self, compat: Compat) -> i32 {
        let filter = self.filter_server_table.as_ref().map_or(0, |m| {
            m.iter().fold(0i32, |h, (k, v)| {
                h.wrapping_add(
                    string_hash(k) ^ list_hash(v.as_deref(), |s: &String| string_hash(s)),
                )
            })
        });
        let mut terms = vec![
            list_hash(self.broker_datas.as_deref(), BrokerData::java_hash_code),
            opt_hash(self.order_topic_conf.as_deref()),
            list_hash(self.queue_datas.as_deref(), QueueData::java_hash_code),
            filter,
        ];
        if compat == Compat::V5_3 {
            terms.push(self.topic_queue_mapping_by_broker.as_ref().map_or(0, |m| {
                m.iter().fold(0i32, |h, (k, v)| {
                    h.wrapping_add(string_hash(k) ^ v.java_hash_code())
                })
            }));
        }
        terms
            .into_iter()
            .fold(1i32, |h, x| h.wrapping_mul(31).wrapping_add(x))
    }

    /// 5.3.3's copy constructor `new TopicRouteData(route)`: null lists and filter table become empty.
    pub fn copy(&self) -> TopicRouteData {
        TopicRouteData {
            queue_datas: Some(self.queue_datas.clone().unwrap_or_default()),
            broker_datas: Some(self.broker_datas.clone().unwrap_or_default()),
            order_topic_conf: self.order_topic_conf.clone(),
            filter_server_table: Some(self.filter_server_table.clone().unwrap_or_default()),
            topic_queue_mapping_by_broker: self.topic_queue_mapping_by_broker.clone(),
        }
    }

    fn containers_set(&self) -> JavaResult<()> {
        if self.queue_datas.is_none() {
            return Err(npe("queue_datas"));
        }
        if self.broker_datas.is_none() {
            return Err(npe("broker_datas"));
        }
        if self.filter_server_table.is_none() {
            return Err(npe("filter_server_table"));
        }
        Ok(())
    }

    /// `cloneTopicRouteData()`: 5.3.3 throws on a null list or filter table, 4.9.8 treats them as empty.
    pub fn clone_topic_route_data(&self, compat: Compat) -> JavaResult<TopicRouteData> {
        if compat == Compat::V5_3 {
            self.containers_set()?;
        }
        Ok(self.copy())
    }

    /// 5.3.3's `deepCloneTopicRouteData()`: throws on a null list or filter table.
    /// `deepCloneTopicRouteData()`: as 5.3.3's clone, and each filter server list (`new ArrayList<>(list)`)
    /// and each mapping's `currIdMap` (`new ConcurrentHashMap<>(map)`) is copied, so a null one throws.
    pub fn deep_clone_topic_route_data(&self) -> JavaResult<TopicRouteData> {
        self.containers_set()?;
        let filters = self.filter_server_table.as_ref().expect("checked above");
        if let Some((host, _)) = filters.iter().find(|(_, list)| list.is_none()) {
            return Err(npe(&format!("the filter server list of {host:?}")));
        }
        if let Some(mapping) = &self.topic_queue_mapping_by_broker {
            if let Some((broker, _)) = mapping.iter().find(|(_, i)| i.curr_id_map.is_none()) {
                return Err(npe(&format!("curr_id_map of the mapping of {broker:?}")));
            }
        }
        Ok(self.copy())
    }

    /// 5.3.3's `now.topicRouteDataChanged(old)`: no old route is a change; else both are copied, their queue
    /// and broker datas sorted, and compared.
    pub fn topic_route_data_changed(&self, old: Option<&TopicRouteData>) -> JavaResult<bool> {
        let Some(old) = old else { return Ok(true) };
        let (mut o, mut n) = (old.copy(), self.copy());
        for r in [&mut o, &mut n] {
            sort_queue_datas(r.queue_datas.as_mut().expect("copy sets it"))?;
            r.broker_datas
                .as_mut()
                .expect("copy sets it")
                .sort_by(|a, b| a.compare_to(b).cmp(&0));
        }
        Ok(o != n)
    }

    /// 5.3.3's `topicRouteData2EndpointsForStaticTopic`, in Java's `ConcurrentHashMap` order.
    pub fn endpoints_for_static_topic(
        &self,
        topic: &str,
    ) -> JavaResult<Vec<(MessageQueue, Option<Arc<str>>)>> {
        endpoints_for_static_topic(topic, self.topic_queue_mapping_by_broker.as_ref())
    }

    /// The publish queues and whether the topic is ordered (`topicRouteData2TopicPublishInfo`). On 5.3 a
    /// route with no `orderTopicConf` (null, not empty) and a non-empty mapping publishes to its logic queues.
    pub fn publish_queues(
        &self,
        topic: &str,
        compat: Compat,
    ) -> JavaResult<(Vec<MessageQueue>, bool)> {
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
        if self.publishes_logic_queues(compat) {
            let mut mqs: Vec<MessageQueue> = self
                .endpoints_for_static_topic(&topic)?
                .into_iter()
                .map(|(mq, _)| mq)
                .collect();
            mqs.sort_by_key(|m| m.queue_id());
            return Ok((mqs, false));
        }
        let qds = self.sorted_queue_datas()?;
        // Java takes the first broker data of each name, scanning the list per writeable queue data
        let mut first_broker_data: Option<HashMap<&str, &BrokerData>> = None;
        let mut plan = Vec::new();
        for qd in qds {
            if !perm::is_writeable(qd.perm) {
                continue;
            }
            let firsts = match &mut first_broker_data {
                Some(f) => f,
                None => {
                    let bds = self
                        .broker_datas
                        .as_ref()
                        .ok_or_else(|| npe("broker_datas"))?;
                    let mut f = HashMap::new();
                    for bd in bds {
                        f.entry(&*bd.broker_name).or_insert(bd);
                    }
                    first_broker_data.insert(f)
                }
            };
            let Some(bd) = qd.broker_name.as_deref().and_then(|n| firsts.get(n)) else {
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
            let broker = qd.broker_name.expect("matched a broker data");
            out.extend(MessageQueue::series(
                &topic,
                &broker,
                0..qd.write_queue_nums,
            ));
        }
        Ok((out, false))
    }

    /// The queues a consumer reads, without duplicates, sorted by `MessageQueue.compareTo`. On 5.3 a route
    /// with a non-empty mapping gives its logic queues.
    pub fn subscribe_queues(&self, topic: &str, compat: Compat) -> JavaResult<Vec<MessageQueue>> {
        if compat == Compat::V5_3 && self.has_mapping() {
            let mut mqs: Vec<MessageQueue> = self
                .endpoints_for_static_topic(topic)?
                .into_iter()
                .map(|(mq, _)| mq)
                .collect();
            mqs.sort_by(|a, b| a.java_cmp(b));
            return Ok(mqs);
        }
        let qds = self
            .queue_datas
            .as_ref()
            .ok_or_else(|| npe("queue_datas"))?;
        let readable = || qds.iter().filter(|q| perm::is_readable(q.perm));
        budget(readable().map(|q| q.read_queue_nums.max(0) as i64).sum())?;
        let topic: Arc<str> = Arc::from(topic);
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for qd in readable() {
            let queues: Box<dyn Iterator<Item = MessageQueue>> = match &qd.broker_name {
                Some(b) => Box::new(MessageQueue::series(&topic, b, 0..qd.read_queue_nums)),
                None => Box::new(
                    (0..qd.read_queue_nums)
                        .map(|i| MessageQueue::new(Some(topic.clone()), None, i)),
                ),
            };
            for mq in queues {
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
        let queue_datas = match opt_list(field(obj, "queueDatas", "queue_datas"), "queueDatas")? {
            None => None,
            Some(qds) => {
                let mut out = Vec::with_capacity(qds.len());
                for q in qds {
                    out.push(queue_data(q)?);
                }
                Some(out)
            }
        };
        let broker_datas = match opt_list(field(obj, "brokerDatas", "broker_datas"), "brokerDatas")?
        {
            None => None,
            Some(bds) => {
                let mut out = Vec::with_capacity(bds.len());
                for b in bds {
                    out.push(broker_data(b)?);
                }
                Some(out)
            }
        };
        let order_topic_conf = opt_string(
            field(obj, "orderTopicConf", "order_topic_conf"),
            "order_topic_conf",
        )?;
        let filter_server_table = match field(obj, "filterServerTable", "filter_server_table") {
            None => Some(OrderedMap::new()),
            Some(Value::Null) => None,
            Some(Value::Object(m)) => {
                let mut t = OrderedMap::new();
                for (k, v) in m {
                    let list = match v {
                        Value::Null => None,
                        Value::Array(a) => Some(
                            a.iter()
                                .map(|s| match s {
                                    Value::String(s) => Ok(s.clone()),
                                    _ => Err(illegal("a filter server must be a str")),
                                })
                                .collect::<JavaResult<Vec<_>>>()?,
                        ),
                        _ => return Err(illegal("filterServerTable values must be lists")),
                    };
                    t.put(k.clone(), list);
                }
                Some(t)
            }
            Some(_) => return Err(illegal("filterServerTable must be an object")),
        };
        // Java's name server writes `topicQueueMappingByBroker`; RocketMQ-Rust's, `topicQueueMappingInfo`
        let mapping_value = [
            "topicQueueMappingByBroker",
            "topic_queue_mapping_by_broker",
            "topicQueueMappingInfo",
        ]
        .iter()
        .find_map(|k| obj.get(*k));
        let topic_queue_mapping_by_broker = match mapping_value {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => {
                let mut t = OrderedMap::new();
                for (k, v) in m {
                    t.put(k.clone(), Arc::new(mapping_info(v)?));
                }
                Some(t)
            }
            Some(_) => return Err(illegal("topicQueueMappingByBroker must be an object")),
        };
        Ok(TopicRouteData {
            queue_datas,
            broker_datas,
            order_topic_conf,
            filter_server_table,
            topic_queue_mapping_by_broker,
        })
    }
}

fn queue_data(q: &Value) -> JavaResult<QueueData> {
    let q = q
        .as_object()
        .ok_or_else(|| illegal("each queueDatas entry must be an object"))?;
    Ok(QueueData {
        broker_name: opt_string(field(q, "brokerName", "broker_name"), "broker_name")?
            .map(Arc::from),
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
    })
}

fn broker_data(b: &Value) -> JavaResult<BrokerData> {
    let b = b
        .as_object()
        .ok_or_else(|| illegal("each brokerDatas entry must be an object"))?;
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
            Some(addrs)
        }
        Some(_) => return Err(illegal("brokerAddrs must be an object")),
    };
    Ok(BrokerData {
        cluster: opt_string(b.get("cluster"), "cluster")?,
        broker_name: name(field(b, "brokerName", "broker_name"), "broker_name")?,
        broker_addrs,
        zone_name: opt_string(field(b, "zoneName", "zone_name"), "zone_name")?,
        enable_acting_master: boolean(
            field(b, "enableActingMaster", "enable_acting_master"),
            "enable_acting_master",
        )?,
    })
}

fn mapping_info(v: &Value) -> JavaResult<TopicQueueMappingInfo> {
    let m = v
        .as_object()
        .ok_or_else(|| illegal("each mapping info must be an object"))?;
    let scope = match m.get("scope") {
        None => Some(crate::static_topic::METADATA_SCOPE_GLOBAL.to_owned()),
        s => opt_string(s, "scope")?,
    };
    let curr_id_map = match field(m, "currIdMap", "curr_id_map") {
        None => Some(OrderedMap::new()),
        Some(Value::Null) => None,
        Some(Value::Object(ids)) => {
            let mut t = OrderedMap::new();
            for (k, v) in ids {
                let id = broker_id(k)
                    .ok()
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| {
                        JavaError::IllegalArgument(format!("currIdMap key '{k}' is not a Java int"))
                    })?;
                if v.is_null() {
                    // Java's ConcurrentHashMap takes no null value
                    return Err(JavaError::IllegalArgument(format!(
                        "currIdMap value of key '{k}' must be an int, not null"
                    )));
                }
                t.put(id, int(Some(v), "currIdMap value")?);
            }
            Some(t)
        }
        Some(_) => return Err(illegal("currIdMap must be an object")),
    };
    let epoch = match m.get("epoch") {
        None | Some(Value::Null) => 0,
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| JavaError::IllegalArgument(format!("epoch {n} is not a Java long")))?,
        Some(_) => return Err(illegal("epoch must be an int")),
    };
    Ok(TopicQueueMappingInfo {
        topic: opt_string(m.get("topic"), "topic")?,
        scope,
        total_queues: int(field(m, "totalQueues", "total_queues"), "total_queues")?,
        bname: opt_string(m.get("bname"), "bname")?,
        epoch,
        dirty: boolean(m.get("dirty"), "dirty")?,
        curr_id_map,
    })
}

fn opt_string(v: Option<&Value>, what: &str) -> JavaResult<Option<String>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(JavaError::IllegalArgument(format!(
            "{what} must be a str or None"
        ))),
    }
}

fn boolean(v: Option<&Value>, what: &str) -> JavaResult<bool> {
    match v {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(JavaError::IllegalArgument(format!("{what} must be a bool"))),
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

/// A JSON list field: absent is an empty list (5.3.3's constructor), `null` is Java's null.
fn opt_list<'a>(v: Option<&'a Value>, what: &str) -> JavaResult<Option<&'a [Value]>> {
    match v {
        None => Ok(Some(&[])),
        Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
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
        let (mqs, order) = r.publish_queues("T", Compat::V5_3).unwrap();
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
        let sub = r.subscribe_queues("T", Compat::V5_3).unwrap();
        assert_eq!(sub.len(), 6);
        assert_eq!(sub[0], MessageQueue::of("T", "broker-a", 0));
    }

    #[test]
    fn order_topic_conf_fails_like_java() {
        let mut r = TopicRouteData {
            order_topic_conf: Some("broker-a:2;broker-b:1".into()),
            ..Default::default()
        };
        let (mqs, order) = r.publish_queues("T", Compat::V5_3).unwrap();
        assert!(order);
        assert_eq!(mqs.len(), 3);
        r.order_topic_conf = Some(";broker-a:4".into());
        assert_eq!(
            r.publish_queues("T", Compat::V5_3).unwrap_err(),
            JavaError::IndexOutOfBounds("Index 1 out of bounds for length 1".into())
        );
        r.order_topic_conf = Some("broker-a: 4".into());
        assert!(matches!(
            r.publish_queues("T", Compat::V5_3),
            Err(JavaError::NumberFormat(_))
        ));
        r.order_topic_conf = Some("broker-a:2147483647".into());
        assert!(matches!(
            r.publish_queues("T", Compat::V5_3),
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
            r.publish_queues("T", Compat::V5_3),
            Err(JavaError::NullPointer(_))
        ));
    }

    #[test]
    fn fastjson_numeric_keys_are_accepted() {
        let text = r#"{"queueDatas":[{"brokerName":"b","readQueueNums":1,"writeQueueNums":1,"perm":6}],
            "brokerDatas":[{"brokerName":"b","brokerAddrs":{0:"10.0.0.1:10911", 1 : "x{0:1}"}}]}"#;
        let r = TopicRouteData::from_json_str(text).unwrap();
        assert_eq!(
            r.broker_datas.as_ref().unwrap()[0]
                .broker_addrs
                .as_ref()
                .map(|a| a.iter().map(|(k, v)| (*k, v.clone())).collect::<Vec<_>>()),
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
