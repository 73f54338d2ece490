//! The 5.x gRPC client's load balancers (apache/rocketmq-clients, Java 5.2.1): `PublishingLoadBalancer`
//! (the producer's queue choice) and `SubscriptionLoadBalancer` (the simple consumer's), over the gRPC
//! route model (`Endpoints`, `GrpcMessageQueue` = Java's `MessageQueueImpl` with its `Broker`).
//!
//! * Both keep the master (`broker id == 0`) queues that are writable (publishing) or readable
//!   (subscription), in route order; none is `IllegalArgumentException` with Java's message (its
//!   `topiRouteData` typo included).
//! * The round-robin index is Java's `AtomicInteger`: a lock-free `AtomicI32` whose `getAndIncrement`
//!   wraps, read with a floor mod (`IntMath.mod`), shared with the balancers `update` builds.
//! * `takeMessageQueues(excluded, count)`: one `getAndIncrement`, a scan from there taking at most one
//!   queue per broker *name* and skipping excluded endpoints until `count`; if that takes nothing, a
//!   second scan without the exclusion. `count <= 0` still gives one queue.
//! * `takeMessageQueueByMessageGroup`: `queues[LongMath.mod(sipHash24(utf8(group)), n)]`.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use crate::error::{JavaError, JavaResult};
use crate::java::JavaRandom;
use crate::profiles::siphash24;
use crate::route::MAX_QUEUES;

/// Java's `Utilities.MASTER_BROKER_ID`.
pub const MASTER_BROKER_ID: i32 = 0;

/// `AddressScheme`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressScheme {
    IPv4,
    IPv6,
    DomainName,
}

impl AddressScheme {
    pub const ALL: [AddressScheme; 3] = [
        AddressScheme::IPv4,
        AddressScheme::IPv6,
        AddressScheme::DomainName,
    ];

    /// The enum constant's name (`IPv4`, `IPv6`, `DOMAIN_NAME`).
    pub fn name(self) -> &'static str {
        match self {
            AddressScheme::IPv4 => "IPv4",
            AddressScheme::IPv6 => "IPv6",
            AddressScheme::DomainName => "DOMAIN_NAME",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The facade prefix (`getPrefix()`).
    pub fn prefix(self) -> &'static str {
        match self {
            AddressScheme::IPv4 => "ipv4:",
            AddressScheme::IPv6 => "ipv6:",
            AddressScheme::DomainName => "dns:",
        }
    }
}

/// A host and port.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    pub host: String,
    pub port: i32,
}

/// A broker's endpoints: a scheme and its addresses, in order. Equality is Java's (scheme and addresses,
/// in order; the facade follows from them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Endpoints {
    scheme: AddressScheme,
    addresses: Vec<Address>,
}

impl Endpoints {
    /// As Java's constructors: no address, or several for `DOMAIN_NAME`, is refused (Java's
    /// `UnsupportedOperationException`, mapped to `IllegalArgument` with its message).
    pub fn new(scheme: AddressScheme, addresses: Vec<Address>) -> JavaResult<Self> {
        if scheme == AddressScheme::DomainName && addresses.len() > 1 {
            return Err(JavaError::IllegalArgument(
                "Multiple addresses not allowed in domain schema".to_owned(),
            ));
        }
        if addresses.is_empty() {
            return Err(JavaError::IllegalArgument(
                "No available address".to_owned(),
            ));
        }
        Ok(Endpoints { scheme, addresses })
    }

    pub fn scheme(&self) -> AddressScheme {
        self.scheme
    }

    pub fn addresses(&self) -> &[Address] {
        &self.addresses
    }

    /// Java's `toString()`: `ipv4:10.0.0.2:8081,10.0.0.3:8081`.
    pub fn facade(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Endpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.scheme.prefix())?;
        for (i, a) in self.addresses.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}:{}", a.host, a.port)?;
        }
        Ok(())
    }
}

/// `Permission`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    None,
    Read,
    Write,
    ReadWrite,
}

impl Permission {
    pub const ALL: [Permission; 4] = [
        Permission::None,
        Permission::Read,
        Permission::Write,
        Permission::ReadWrite,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Permission::None => "NONE",
            Permission::Read => "READ",
            Permission::Write => "WRITE",
            Permission::ReadWrite => "READ_WRITE",
        }
    }

    /// A permission by name; anything else is Java's `fromProtobuf` refusal.
    pub fn parse(name: &str) -> JavaResult<Self> {
        Self::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                JavaError::IllegalArgument("Message queue permission is not specified".to_owned())
            })
    }

    pub fn is_writable(self) -> bool {
        matches!(self, Permission::Write | Permission::ReadWrite)
    }

    pub fn is_readable(self) -> bool {
        matches!(self, Permission::Read | Permission::ReadWrite)
    }
}

/// `MessageType` (Java 5.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageType {
    Normal,
    Fifo,
    Lite,
    Delay,
    Priority,
    Transaction,
}

impl MessageType {
    pub const ALL: [MessageType; 6] = [
        MessageType::Normal,
        MessageType::Fifo,
        MessageType::Lite,
        MessageType::Delay,
        MessageType::Priority,
        MessageType::Transaction,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MessageType::Normal => "NORMAL",
            MessageType::Fifo => "FIFO",
            MessageType::Lite => "LITE",
            MessageType::Delay => "DELAY",
            MessageType::Priority => "PRIORITY",
            MessageType::Transaction => "TRANSACTION",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// One queue of a gRPC route (Java's `MessageQueueImpl`). Cheap to clone.
#[derive(Clone, Debug)]
pub struct GrpcMessageQueue {
    pub topic: Arc<str>,
    pub broker_name: Arc<str>,
    pub broker_id: i32,
    pub endpoints: Arc<Endpoints>,
    pub queue_id: i32,
    pub permission: Permission,
    pub accept_message_types: Arc<[MessageType]>,
}

impl GrpcMessageQueue {
    pub fn is_master(&self) -> bool {
        self.broker_id == MASTER_BROKER_ID
    }
}

/// Java's `equals`: topic, broker (name, id, endpoints), queue id and permission; not the accepted types.
impl PartialEq for GrpcMessageQueue {
    fn eq(&self, o: &Self) -> bool {
        self.queue_id == o.queue_id
            && self.topic == o.topic
            && self.broker_name == o.broker_name
            && self.broker_id == o.broker_id
            && self.endpoints == o.endpoints
            && self.permission == o.permission
    }
}

impl Eq for GrpcMessageQueue {}

impl std::hash::Hash for GrpcMessageQueue {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.topic.hash(h);
        self.broker_name.hash(h);
        self.broker_id.hash(h);
        self.endpoints.hash(h);
        self.queue_id.hash(h);
        self.permission.hash(h);
    }
}

/// Java's `toString()`: `brokerName.topic.queueId`.
impl fmt::Display for GrpcMessageQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.broker_name, self.topic, self.queue_id)
    }
}

/// Java's `TopicRouteData.toString()` of a route.
pub fn route_text(route: &[GrpcMessageQueue]) -> String {
    let items: Vec<String> = route.iter().map(|q| q.to_string()).collect();
    format!("TopicRouteData{{messageQueueImpls=[{}]}}", items.join(", "))
}

/// `RandomUtils.nextInt(0, Integer.MAX_VALUE)`: the constructors' start index.
pub fn random_start_index() -> i32 {
    JavaRandom::from_entropy()
        .next_int_bounded(i32::MAX)
        .unwrap_or(0)
}

/// `IntMath.mod(i, n)` for `n >= 1`.
fn floor_mod(i: i32, n: usize) -> usize {
    (i as i64).rem_euclid(n as i64) as usize
}

/// The queues a balancer picks from and the shared index.
#[derive(Debug)]
struct Picks {
    index: Arc<AtomicI32>,
    queues: Vec<GrpcMessageQueue>,
    /// Where each of `queues` is in the route it was built from.
    route_positions: Vec<usize>,
}

impl Picks {
    fn new(
        index: Arc<AtomicI32>,
        route: &[GrpcMessageQueue],
        keep: fn(&GrpcMessageQueue) -> bool,
        what: &str,
    ) -> JavaResult<Self> {
        if route.len() > MAX_QUEUES {
            return Err(JavaError::IllegalArgument(format!(
                "route has more than {MAX_QUEUES} queues"
            )));
        }
        let route_positions: Vec<usize> = (0..route.len()).filter(|&i| keep(&route[i])).collect();
        let queues: Vec<GrpcMessageQueue> =
            route_positions.iter().map(|&i| route[i].clone()).collect();
        if queues.is_empty() {
            return Err(JavaError::IllegalArgument(format!(
                "No {what} message queue found, topiRouteData={}",
                route_text(route)
            )));
        }
        Ok(Picks {
            index,
            queues,
            route_positions,
        })
    }

    fn next(&self) -> i32 {
        // AtomicInteger.getAndIncrement: wraps at Integer.MAX_VALUE
        self.index.fetch_add(1, Ordering::Relaxed)
    }
}

fn writable_master(q: &GrpcMessageQueue) -> bool {
    q.permission.is_writable() && q.is_master()
}

fn readable_master(q: &GrpcMessageQueue) -> bool {
    q.permission.is_readable() && q.is_master()
}

/// The producer's queue choice (Java's `PublishingLoadBalancer`).
#[derive(Debug)]
pub struct PublishingLoadBalancer {
    picks: Picks,
    /// Per queue: its broker name as a dense id, and its endpoints as a dense id.
    broker_of: Vec<u32>,
    endpoints_of: Vec<u32>,
    brokers: usize,
    endpoint_ids: HashMap<Arc<Endpoints>, u32>,
}

impl PublishingLoadBalancer {
    /// Over the writable master queues of `route`, the index starting at `start_index`.
    pub fn new(route: &[GrpcMessageQueue], start_index: i32) -> JavaResult<Self> {
        Self::with_index(Arc::new(AtomicI32::new(start_index)), route)
    }

    fn with_index(index: Arc<AtomicI32>, route: &[GrpcMessageQueue]) -> JavaResult<Self> {
        let picks = Picks::new(index, route, writable_master, "writable")?;
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut endpoint_ids: HashMap<Arc<Endpoints>, u32> = HashMap::new();
        let mut broker_of = Vec::with_capacity(picks.queues.len());
        let mut endpoints_of = Vec::with_capacity(picks.queues.len());
        for q in &picks.queues {
            let next = names.len() as u32;
            broker_of.push(*names.entry(&q.broker_name).or_insert(next));
            let next = endpoint_ids.len() as u32;
            endpoints_of.push(*endpoint_ids.entry(q.endpoints.clone()).or_insert(next));
        }
        let brokers = names.len();
        Ok(PublishingLoadBalancer {
            picks,
            broker_of,
            endpoints_of,
            brokers,
            endpoint_ids,
        })
    }

    /// Java's `takeMessageQueues(excluded, count)`, as positions in [`queues`](Self::queues).
    pub fn take_positions(&self, excluded: &[&Endpoints], count: i32) -> Vec<usize> {
        let n = self.picks.queues.len();
        let mut skip = vec![false; self.endpoint_ids.len()];
        for e in excluded {
            if let Some(&id) = self.endpoint_ids.get(*e) {
                skip[id as usize] = true;
            }
        }
        let mut next = self.picks.next();
        let mut taken = vec![false; self.brokers];
        let mut out = Vec::new();
        for _ in 0..n {
            let p = floor_mod(next, n);
            next = next.wrapping_add(1);
            let b = self.broker_of[p] as usize;
            if !skip[self.endpoints_of[p] as usize] && !taken[b] {
                taken[b] = true;
                out.push(p);
            }
            if out.len() as i64 >= count as i64 {
                return out;
            }
        }
        // every broker is excluded: scan again without the exclusion
        if out.is_empty() {
            for _ in 0..n {
                let p = floor_mod(next, n);
                next = next.wrapping_add(1);
                let b = self.broker_of[p] as usize;
                if !taken[b] {
                    taken[b] = true;
                    out.push(p);
                }
                if out.len() as i64 >= count as i64 {
                    break;
                }
            }
        }
        out
    }

    /// Java's `takeMessageQueues(excluded, count)`.
    pub fn take_message_queues(
        &self,
        excluded: &[&Endpoints],
        count: i32,
    ) -> Vec<&GrpcMessageQueue> {
        self.take_positions(excluded, count)
            .into_iter()
            .map(|p| &self.picks.queues[p])
            .collect()
    }

    /// The position `takeMessageQueueByMessageGroup` picks for a group given as Java's UTF-8 bytes.
    pub fn message_group_position(&self, group_utf8: &[u8]) -> usize {
        let n = self.picks.queues.len() as i64;
        siphash24(group_utf8).rem_euclid(n) as usize
    }

    /// Java's `takeMessageQueueByMessageGroup` (the index does not move).
    pub fn take_message_queue_by_message_group(&self, group: &str) -> &GrpcMessageQueue {
        &self.picks.queues[self.message_group_position(group.as_bytes())]
    }
}

/// The methods both balancers have, over their [`Picks`] (`picks`) and their `with_index` constructor.
macro_rules! over_picks {
    ($balancer:ident) => {
        impl $balancer {
            /// A balancer over `route` sharing this one's index (Java's `update`).
            pub fn update(&self, route: &[GrpcMessageQueue]) -> JavaResult<Self> {
                Self::with_index(self.picks.index.clone(), route)
            }

            /// The queues it picks from, in route order.
            pub fn queues(&self) -> &[GrpcMessageQueue] {
                &self.picks.queues
            }

            /// Where each of [`queues`](Self::queues) is in the route the balancer was built from.
            pub fn route_positions(&self) -> &[usize] {
                &self.picks.route_positions
            }

            /// The index now.
            pub fn index(&self) -> i32 {
                self.picks.index.load(Ordering::Relaxed)
            }

            /// Whether `other` advances the same index (one built from the other by `update`).
            pub fn shares_index_with(&self, other: &$balancer) -> bool {
                Arc::ptr_eq(&self.picks.index, &other.picks.index)
            }
        }
    };
}

over_picks!(PublishingLoadBalancer);
over_picks!(SubscriptionLoadBalancer);

/// The simple consumer's queue choice (Java's `SubscriptionLoadBalancer`).
#[derive(Debug)]
pub struct SubscriptionLoadBalancer {
    picks: Picks,
}

impl SubscriptionLoadBalancer {
    /// Over the readable master queues of `route`, the index starting at `start_index`.
    pub fn new(route: &[GrpcMessageQueue], start_index: i32) -> JavaResult<Self> {
        Self::with_index(Arc::new(AtomicI32::new(start_index)), route)
    }

    fn with_index(index: Arc<AtomicI32>, route: &[GrpcMessageQueue]) -> JavaResult<Self> {
        Ok(SubscriptionLoadBalancer {
            picks: Picks::new(index, route, readable_master, "readable")?,
        })
    }

    /// Java's `takeMessageQueue()`, as a position in [`queues`](Self::queues).
    pub fn take_position(&self) -> usize {
        floor_mod(self.picks.next(), self.picks.queues.len())
    }

    pub fn take_message_queue(&self) -> &GrpcMessageQueue {
        &self.picks.queues[self.take_position()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(scheme: AddressScheme, hosts: &[&str]) -> Arc<Endpoints> {
        let addresses = hosts
            .iter()
            .map(|h| Address {
                host: (*h).to_owned(),
                port: 8081,
            })
            .collect();
        Arc::new(Endpoints::new(scheme, addresses).unwrap())
    }

    fn q(
        broker: &str,
        id: i32,
        endpoints: &Arc<Endpoints>,
        queue_id: i32,
        perm: Permission,
    ) -> GrpcMessageQueue {
        GrpcMessageQueue {
            topic: Arc::from("grpc-topic"),
            broker_name: Arc::from(broker),
            broker_id: id,
            endpoints: endpoints.clone(),
            queue_id,
            permission: perm,
            accept_message_types: Arc::from([MessageType::Normal]),
        }
    }

    /// broker-a: 4 queues, broker-b: 2 (two addresses), broker-c: 3 (a domain name), as the vectors.
    fn three_brokers() -> (Vec<GrpcMessageQueue>, [Arc<Endpoints>; 3]) {
        let a = ep(AddressScheme::IPv4, &["10.0.0.1"]);
        let b = ep(AddressScheme::IPv4, &["10.0.0.2", "10.0.0.3"]);
        let c = ep(AddressScheme::DomainName, &["broker-c.example"]);
        let mut route = Vec::new();
        for i in 0..4 {
            route.push(q("broker-a", 0, &a, i, Permission::ReadWrite));
        }
        for i in 0..2 {
            route.push(q("broker-b", 0, &b, i, Permission::ReadWrite));
        }
        for i in 0..3 {
            route.push(q("broker-c", 0, &c, i, Permission::ReadWrite));
        }
        (route, [a, b, c])
    }

    fn names(qs: &[&GrpcMessageQueue]) -> Vec<String> {
        qs.iter().map(|q| q.to_string()).collect()
    }

    #[test]
    fn take_message_queues_matches_the_vectors_first_calls() {
        // pub-take-three-brokers-0: start 0
        let (route, _) = three_brokers();
        let lb = PublishingLoadBalancer::new(&route, 0).unwrap();
        assert_eq!(
            names(&lb.take_message_queues(&[], 1)),
            ["broker-a.grpc-topic.0"]
        );
        assert_eq!(lb.index(), 1);
        assert_eq!(
            names(&lb.take_message_queues(&[], 2)),
            ["broker-a.grpc-topic.1", "broker-b.grpc-topic.0"]
        );
        assert_eq!(
            names(&lb.take_message_queues(&[], 10)),
            [
                "broker-a.grpc-topic.2",
                "broker-b.grpc-topic.0",
                "broker-c.grpc-topic.0"
            ]
        );
    }

    #[test]
    fn excluded_endpoints_are_skipped_unless_all_are() {
        let (route, [a, b, c]) = three_brokers();
        let lb = PublishingLoadBalancer::new(&route, 0).unwrap();
        assert_eq!(
            names(&lb.take_message_queues(&[&a], 1)),
            ["broker-b.grpc-topic.0"]
        );
        // the same endpoints built anew are equal (addresses in order)
        let a2 = ep(AddressScheme::IPv4, &["10.0.0.1"]);
        assert_eq!(
            names(&lb.take_message_queues(&[&a2, &b], 3)),
            ["broker-c.grpc-topic.0"]
        );
        // addresses in another order are other endpoints
        let b_swapped = ep(AddressScheme::IPv4, &["10.0.0.3", "10.0.0.2"]);
        assert_ne!(*b, *b_swapped);
        // everything excluded: the second scan ignores the exclusion
        assert_eq!(
            names(&lb.take_message_queues(&[&a, &b, &c], 2)),
            ["broker-a.grpc-topic.2", "broker-b.grpc-topic.0"]
        );
    }

    #[test]
    fn count_zero_or_negative_still_takes_one() {
        let (route, _) = three_brokers();
        let lb = PublishingLoadBalancer::new(&route, 5).unwrap();
        assert_eq!(
            names(&lb.take_message_queues(&[], 0)),
            ["broker-b.grpc-topic.1"]
        );
        assert_eq!(
            names(&lb.take_message_queues(&[], -1)),
            ["broker-c.grpc-topic.0"]
        );
        assert_eq!(lb.index(), 7);
    }

    #[test]
    fn the_index_wraps_and_reads_with_a_floor_mod() {
        let (route, _) = three_brokers();
        let lb = SubscriptionLoadBalancer::new(&route, i32::MAX).unwrap();
        // floorMod(MAX, 9) = 1, then floorMod(MIN, 9) = 7: the rotation jumps where the int wraps
        assert_eq!(lb.take_message_queue().to_string(), "broker-a.grpc-topic.1");
        assert_eq!(lb.index(), i32::MIN);
        assert_eq!(lb.take_message_queue().to_string(), "broker-c.grpc-topic.1");
        let lb = SubscriptionLoadBalancer::new(&route, -1).unwrap();
        assert_eq!(lb.take_message_queue().to_string(), "broker-c.grpc-topic.2");
    }

    #[test]
    fn the_scan_wraps_its_local_index_too() {
        let (route, [a, _, _]) = three_brokers();
        let lb = PublishingLoadBalancer::new(&route, i32::MAX).unwrap();
        // position 1 (MAX, broker-a: excluded), then the local index wraps to MIN: position 7
        let got = lb.take_message_queues(&[&a], 1);
        assert_eq!(names(&got), ["broker-c.grpc-topic.1"]);
    }

    #[test]
    fn only_master_queues_with_the_permission_count() {
        let (mut route, [a, _, _]) = three_brokers();
        route.insert(0, q("broker-a", 1, &a, 9, Permission::ReadWrite));
        route.insert(0, q("broker-z", 0, &a, 0, Permission::Read));
        let lb = PublishingLoadBalancer::new(&route, 0).unwrap();
        assert_eq!(lb.queues().len(), 9);
        assert_eq!(lb.route_positions(), (2..11).collect::<Vec<_>>());
        let sub = SubscriptionLoadBalancer::new(&route, 0).unwrap();
        assert_eq!(sub.queues().len(), 10);
        assert_eq!(
            sub.take_message_queue().to_string(),
            "broker-z.grpc-topic.0"
        );
    }

    #[test]
    fn no_queue_is_javas_exception_with_its_typo() {
        let a = ep(AddressScheme::IPv4, &["10.0.0.1"]);
        let route = vec![
            q("broker-a", 0, &a, 0, Permission::Read),
            q("broker-a", 1, &a, 1, Permission::Write),
        ];
        let e = PublishingLoadBalancer::new(&route, 0).unwrap_err();
        assert_eq!(
            e,
            JavaError::IllegalArgument(
                "No writable message queue found, topiRouteData=TopicRouteData{messageQueueImpls=\
                 [broker-a.grpc-topic.0, broker-a.grpc-topic.1]}"
                    .to_owned()
            )
        );
        let e = SubscriptionLoadBalancer::new(&[], 0).unwrap_err();
        assert_eq!(
            e.message(),
            "No readable message queue found, topiRouteData=TopicRouteData{messageQueueImpls=[]}"
        );
    }

    #[test]
    fn update_shares_the_index() {
        let (route, _) = three_brokers();
        let lb = PublishingLoadBalancer::new(&route, 3).unwrap();
        let new = lb.update(&route[..4]).unwrap();
        assert!(new.shares_index_with(&lb));
        new.take_positions(&[], 1);
        assert_eq!(lb.index(), 4);
        let other = PublishingLoadBalancer::new(&route, 4).unwrap();
        assert!(!other.shares_index_with(&lb));
        assert!(lb.update(&[]).is_err());
        assert_eq!(lb.index(), 4);
    }

    #[test]
    fn message_group_is_siphash_with_a_floor_mod() {
        // pub-group-three-brokers: "" -> broker-a.0, "g" -> broker-c.1, "order-1" -> broker-c.0
        let (route, _) = three_brokers();
        let lb = PublishingLoadBalancer::new(&route, 0).unwrap();
        assert_eq!(
            lb.take_message_queue_by_message_group("").to_string(),
            "broker-a.grpc-topic.0"
        );
        assert_eq!(
            lb.take_message_queue_by_message_group("g").to_string(),
            "broker-c.grpc-topic.1"
        );
        assert_eq!(
            lb.take_message_queue_by_message_group("order-1")
                .to_string(),
            "broker-c.grpc-topic.0"
        );
        assert_eq!(lb.index(), 0);
    }

    #[test]
    fn endpoints_checks_and_facade() {
        let e = ep(AddressScheme::IPv4, &["10.0.0.2", "10.0.0.3"]);
        assert_eq!(e.facade(), "ipv4:10.0.0.2:8081,10.0.0.3:8081");
        assert_eq!(
            ep(AddressScheme::DomainName, &["x.example"]).facade(),
            "dns:x.example:8081"
        );
        let two = vec![
            Address {
                host: "a".into(),
                port: 1,
            },
            Address {
                host: "b".into(),
                port: 2,
            },
        ];
        assert_eq!(
            Endpoints::new(AddressScheme::DomainName, two)
                .unwrap_err()
                .message(),
            "Multiple addresses not allowed in domain schema"
        );
        assert_eq!(
            Endpoints::new(AddressScheme::IPv6, vec![])
                .unwrap_err()
                .message(),
            "No available address"
        );
        assert_eq!(
            Permission::parse("READ_WRITE").unwrap(),
            Permission::ReadWrite
        );
        assert!(Permission::parse("rw").is_err());
        assert_eq!(
            AddressScheme::parse("DOMAIN_NAME"),
            Some(AddressScheme::DomainName)
        );
        assert_eq!(MessageType::parse("FIFO"), Some(MessageType::Fifo));
    }

    #[test]
    fn equality_ignores_the_accepted_types_as_java() {
        let (route, _) = three_brokers();
        let mut other = route[0].clone();
        other.accept_message_types = Arc::from([MessageType::Fifo]);
        assert_eq!(route[0], other);
        other.permission = Permission::Read;
        assert_ne!(route[0], other);
    }

    #[test]
    fn random_start_is_in_range() {
        for _ in 0..100 {
            let s = random_start_index();
            assert!((0..i32::MAX).contains(&s));
        }
    }

    #[test]
    fn concurrent_takes_advance_the_index_once_each() {
        let (route, _) = three_brokers();
        let lb = Arc::new(SubscriptionLoadBalancer::new(&route, i32::MAX - 1000).unwrap());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lb = lb.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        lb.take_position();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(lb.index(), (i32::MAX - 1000).wrapping_add(4000));
    }
}
