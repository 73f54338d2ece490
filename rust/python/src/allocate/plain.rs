//! `MACHINE_ROOM`'s state, and the positions of the strategies that place each consumer on its own
//! (`AVG`, `AVG_BY_CIRCLE`, `MACHINE_ROOM`).

use std::collections::HashSet;

use pyo3::prelude::*;
use pyo3::types::{PyFrozenSet, PyString};
use rocketroute_core::allocate::{averagely, averagely_by_circle, by_machine_room};

use super::args::Mqs;
use crate::errors::Result;

/// `MACHINE_ROOM`'s rooms: as given (for the getter and repr), and as the names they can match.
pub(crate) struct MachineRoom {
    rooms: Option<HashSet<String>>,
    pub(crate) given: Option<Py<PyFrozenSet>>,
}

impl MachineRoom {
    pub(crate) fn new(py: Python<'_>, consumer_idcs: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(c) = consumer_idcs.filter(|c| !c.is_none()) else {
            return Ok(MachineRoom {
                rooms: None,
                given: None,
            });
        };
        let items: Vec<Bound<'_, PyAny>> = c.try_iter()?.collect::<PyResult<_>>()?;
        // an idc with a lone surrogate matches no broker name (those are refused), so it is left out
        let rooms = items
            .iter()
            .filter_map(|i| i.cast::<PyString>().ok()?.to_str().ok().map(str::to_owned))
            .collect();
        Ok(MachineRoom {
            rooms: Some(rooms),
            given: Some(PyFrozenSet::new(py, items)?.unbind()),
        })
    }
}

/// A strategy that computes each consumer's queues from its position in the consumer list alone.
pub(crate) enum Positional<'s> {
    Averagely,
    Circle,
    MachineRoom(&'s MachineRoom),
}

impl Positional<'_> {
    /// The positions in `mqs` of the queues of the consumer at `index` of `n_cid`.
    pub(crate) fn positions(
        &self,
        mqs: &Mqs<'_>,
        n_cid: usize,
        index: usize,
    ) -> Result<Vec<usize>> {
        Ok(match self {
            Positional::Averagely => averagely(index, mqs.len(), n_cid).collect(),
            Positional::Circle => averagely_by_circle(index, mqs.len(), n_cid).collect(),
            Positional::MachineRoom(m) => {
                let brokers: Vec<Option<&str>> =
                    mqs.iter().map(|m| m.get().inner.broker_name()).collect();
                by_machine_room(m.rooms.as_ref(), &brokers, index, n_cid)?
            }
        })
    }
}
