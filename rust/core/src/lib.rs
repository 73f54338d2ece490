//! rocketroute-core: the routing path of an Apache RocketMQ client, bit-exact with the Java client
//! (RocketMQ 5.3.3 and 4.9.8). Pure Rust; the Python bindings live in `rocketroute-python`.

pub mod allocate;
pub mod batch;
pub mod bounded;
pub mod clock;
pub mod compat;
pub mod counter;
pub mod decimal;
pub mod direct;
pub mod error;
pub mod fault;
pub mod frame;
pub mod grpc_balancer;
pub mod intern;
pub mod java;
pub mod java_collections;
pub mod json_header;
pub mod json_scan;
pub mod message_batch;
pub mod message_id;
pub mod message_queue;
pub mod offset_map;
pub mod profiles;
pub mod publish_info;
pub mod ring;
pub mod route;
pub mod select;
pub mod send_header;
pub mod send_loop;
pub mod send_properties;
pub mod send_result;
pub mod slots;
pub mod static_topic;
pub mod sticky;
pub mod stored;
pub mod strategy;

pub use clock::{Clock, ManualClock};
pub use compat::Compat;
pub use counter::SendWhichQueue;
pub use error::{JavaError, JavaResult};
pub use fault::LatencyFaultTolerance;
pub use java::JavaRandom;
pub use message_queue::MessageQueue;
pub use publish_info::TopicPublishInfo;
pub use route::{BrokerData, QueueData, TopicRouteData};
pub use strategy::{MQFaultStrategy, Selected};
