//! `rocketroute.batch.round_robin_indices`: a batch of `SendWhichQueue` picks in one call.

use pyo3::prelude::*;

use crate::batch::{maybe_detach, zeros};
use crate::batch_args::{Count, Modulus};
use crate::counter::PySendWhichQueue;
use crate::errors::Result;

/// The next `count` values of `counter.increment_and_get()` (positions modulo `num_queues` if given),
/// the counter advanced atomically by `count`.
#[pyfunction]
#[pyo3(signature = (counter, count, num_queues = None))]
pub fn round_robin_indices<'py>(
    py: Python<'py>,
    counter: &Bound<'py, PySendWhichQueue>,
    count: Count,
    num_queues: Option<Modulus>,
) -> Result<Bound<'py, PyAny>> {
    // made before the counter moves: a result too large to make changes nothing
    let mut out = zeros::<i32>(py, usize::try_from(count.0).unwrap_or(usize::MAX))?;
    let values = out.as_slice_mut().map_err(PyErr::from)?;
    let counter = &counter.get().inner;
    maybe_detach(py, values.len(), || {
        counter.next_values(values, num_queues.map(|n| n.0))
    });
    Ok(Bound::clone(&out).into_any())
}
