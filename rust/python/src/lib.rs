//! rocketroute._native: thin PyO3 bindings over `rocketroute-core`. Types are converted here and
//! Java exceptions mapped to `rocketroute.errors`; the algorithms live in the core crate.

mod allocate;
mod batch;
mod batch_args;
mod clock;
mod columns;
mod convert;
mod counter;
mod direct;
mod errors;
mod fault;
mod frame;
mod grpc_balancer;
mod java;
mod loop_future;
mod message_batch;
mod message_id;
mod message_queue;
mod profiles;
mod publish_info;
mod queue_cache;
mod ring;
mod round_robin;
mod route;
mod select;
mod send_loop;
mod send_properties;
mod send_result;
mod static_topic;
mod stored;
mod strategy;

use pyo3::prelude::*;

#[pymodule(gil_used = false)]
mod _native {
    use pyo3::prelude::*;
    use pyo3::types::PyTuple;

    #[pymodule_export]
    use crate::allocate::{
        allocate_all, PyAllocateMachineRoomNearby, PyAllocateMessageQueueAveragely,
        PyAllocateMessageQueueAveragelyByCircle, PyAllocateMessageQueueByConfig,
        PyAllocateMessageQueueByMachineRoom, PyAllocateMessageQueueConsistentHash,
        PyAllocateMessageQueueConsistentHashBounded, PyAllocateMessageQueueSticky,
        PyAllocateStrategy,
    };
    #[pymodule_export]
    use crate::batch::{hash_select_indices, java_string_hashes};
    #[pymodule_export]
    use crate::clock::{PyManualClock, PySystemClock};
    #[pymodule_export]
    use crate::counter::PySendWhichQueue;
    #[pymodule_export]
    use crate::direct::PyDirectConnection;
    #[pymodule_export]
    use crate::errors::{_broker_name_table, _panic_for_tests};
    #[pymodule_export]
    use crate::fault::PyLatencyFaultTolerance;
    #[pymodule_export]
    use crate::frame::{
        _encode_json_frame, _read_frames, _read_json_header, _send_request_frame, PyFrameReader,
    };
    #[pymodule_export]
    use crate::grpc_balancer::{
        PyEndpoints, PyGrpcMessageQueue, PyPublishingLoadBalancer, PySubscriptionLoadBalancer,
    };
    #[pymodule_export]
    use crate::java::{
        java_int_hash, java_long_hash, java_string_compare, java_string_hash, PyJavaRandom,
    };
    #[pymodule_export]
    use crate::loop_future::PyEagerFuture;
    #[pymodule_export]
    use crate::message_batch::{_encode_batch_body, _properties_string, _usual_batch_body};
    #[pymodule_export]
    use crate::message_id::PyMessageIdCounter;
    #[pymodule_export]
    use crate::message_queue::PyMessageQueue;
    #[pymodule_export]
    use crate::profiles::{profile_select_index, profile_select_indices, PyProfileSelector};
    #[pymodule_export]
    use crate::publish_info::PyTopicPublishInfo;
    #[pymodule_export]
    use crate::queue_cache::PyQueueCache;
    #[pymodule_export]
    use crate::ring::{md5_hash_py, PyConsistentHashRouter};
    #[pymodule_export]
    use crate::round_robin::round_robin_indices;
    #[pymodule_export]
    use crate::route::{PyBrokerData, PyPermName, PyQueueData, PyTopicRouteData};
    #[pymodule_export]
    use crate::select::{
        PySelectMessageQueueByHash, PySelectMessageQueueByMachineRoom, PySelectMessageQueueByRandom,
    };
    #[pymodule_export]
    use crate::send_loop::PySendLoop;
    #[pymodule_export]
    use crate::send_properties::_send_properties;
    #[pymodule_export]
    use crate::send_result::PySendResultMaker;
    #[pymodule_export]
    use crate::static_topic::{mock_broker_name, PyTopicQueueMappingInfo};
    #[pymodule_export]
    use crate::stored::_decode_stored;
    #[pymodule_export]
    use crate::strategy::PyMQFaultStrategy;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("MAX_QUEUES", rocketroute_core::route::MAX_QUEUES)?;
        m.add(
            "MAX_VIRTUAL_NODES",
            rocketroute_core::ring::MAX_VIRTUAL_NODES,
        )?;
        m.add("COMPAT_PROFILES", PyTuple::new(m.py(), ["5.3", "4.9"])?)?;
        m.add("PROFILES", crate::profiles::profiles_tuple(m.py())?)?;
        crate::static_topic::add_constants(m)?;
        Ok(())
    }
}

#[allow(unused_imports)]
use _native as _;
#[allow(dead_code)]
fn _unused(_: Python<'_>) {}
