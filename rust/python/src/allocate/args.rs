//! What every strategy checks and builds: the checked lists of an `allocate` / `allocate_all` call, and
//! the result lists made of the caller's own `MessageQueue` objects.

use std::collections::HashSet;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rocketroute_core::allocate::check;
use rocketroute_core::JavaError;

use crate::convert::{arg, JavaInt, Name, Names};
use crate::errors::{illegal, Result};
use crate::message_queue::PyMessageQueue;
use crate::message_queue::Queues;

pub(crate) type Mqs<'py> = Vec<Bound<'py, PyMessageQueue>>;

/// The consumer list argument.
pub(crate) type CidAll = Names<arg::CidAll>;

/// The current consumer argument.
pub(crate) type CurrentCid<'a> = Name<'a, arg::CurrentCid>;

/// The checked arguments of an `allocate` call: the queues, the consumer ids, the current consumer and
/// its position in the ids.
pub(crate) struct Checked<'py> {
    pub mqs: Mqs<'py>,
    pub cids: Vec<Arc<str>>,
    pub cid: String,
    pub index: usize,
}

/// Java's checks of an `allocate` call; `None` for a consumer that is not a member (an empty result).
pub(crate) fn checked<'py>(
    current_cid: Option<CurrentCid<'_>>,
    mq_all: Option<Queues<'py>>,
    cid_all: Option<CidAll>,
) -> Result<Option<Checked<'py>>> {
    let (mqs, cids) = (mq_all.map(|q| q.0), cid_all.map(|c| c.0));
    let cid = current_cid.map(|c| c.0);
    let Some(index) = check(cid, mqs.as_ref().map(Vec::len), cids.as_deref())? else {
        return Ok(None);
    };
    Ok(Some(Checked {
        mqs: mqs.unwrap_or_default(),
        cids: cids.unwrap_or_default(),
        cid: cid.unwrap_or_default().to_owned(),
        index,
    }))
}

/// The queues, the consumers and the distinct consumers of an `allocate_all` call.
pub(crate) type Lists<'py> = (Mqs<'py>, Vec<Arc<str>>, Vec<Arc<str>>);

/// What `allocate_all` checks before computing every consumer's part: what `allocate` checks for each
/// distinct consumer, the first failure raised, with `all_named`. The queues, the consumers and the distinct consumers in
/// order, or `None` for an empty or missing `cid_all` (an empty result: as the reference, the queues are
/// not looked at then).
pub(crate) fn checked_all<'py>(
    mq_all: Option<&Bound<'py, PyAny>>,
    cids: Option<Vec<Arc<str>>>,
) -> Result<Option<Lists<'py>>> {
    let Some(cids) = cids.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let unique = unique_cids(&cids);
    let mqs = mq_all
        .map(|m| m.extract::<Queues<'py>>())
        .transpose()?
        .map(|q| q.0);
    // the first consumer's checks: the others' differ only in their own id (see `all_named`)
    check(
        Some(&*unique[0]),
        mqs.as_ref().map(Vec::len),
        Some(&cids[..]),
    )?;
    Ok(Some((mqs.unwrap_or_default(), cids, unique)))
}

/// The rest of `allocate`'s checks for every consumer of `unique` after the first: its id is not empty.
pub(crate) fn all_named(py: Python<'_>, unique: &[Arc<str>]) -> Result<()> {
    unique.iter().try_for_each(|c| named(py, c))
}

/// Java's check of a consumer id: not empty.
pub(crate) fn named(py: Python<'_>, cid: &str) -> Result<()> {
    match cid.is_empty() {
        true => Err(illegal(py, "currentCID is empty").into()),
        false => Ok(()),
    }
}

/// `virtual_node_cnt` of the consistent-hash strategies: 10 when left out, Java's message when negative.
pub(crate) fn vnodes(v: Option<JavaInt<arg::VirtualNodeCnt>>) -> Result<i32> {
    let vnodes = v.map_or(10, |v| v.0);
    if vnodes < 0 {
        return Err(JavaError::IllegalArgument(format!("illegal virtualNodeCnt :{vnodes}")).into());
    }
    // one consumer's ring would already be past the limit: refuse now rather than at every allocate
    rocketroute_core::ring::check_ring_size(vnodes as u64)?;
    Ok(vnodes)
}

/// The queues of `mqs` at positions `idx`, as a list.
pub(crate) fn pick<'py>(
    py: Python<'py>,
    mqs: &Mqs<'py>,
    idx: impl IntoIterator<Item = usize>,
) -> PyResult<Bound<'py, PyList>> {
    let picked: Vec<&Bound<'py, PyMessageQueue>> = idx.into_iter().map(|i| &mqs[i]).collect();
    PyList::new(py, picked)
}

/// `{cid: queues}` from each distinct consumer's positions in `mqs`.
pub(crate) fn assignment_dict<'py>(
    py: Python<'py>,
    mqs: &Mqs<'py>,
    cids: &[Arc<str>],
    positions: Vec<Vec<usize>>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (c, held) in cids.iter().zip(positions) {
        out.set_item(&**c, pick(py, mqs, held)?)?;
    }
    Ok(out)
}

/// The distinct consumer ids of `cids`, in first-occurrence order.
pub(crate) fn unique_cids(cids: &[Arc<str>]) -> Vec<Arc<str>> {
    let mut seen: HashSet<&str> = HashSet::new();
    cids.iter().filter(|c| seen.insert(&**c)).cloned().collect()
}

/// The positions in `mqs` of its distinct queues (the first of equal ones), in order.
pub(crate) fn distinct_queues(mqs: &Mqs<'_>) -> Vec<usize> {
    let mut seen = HashSet::new();
    (0..mqs.len())
        .filter(|&i| seen.insert(&mqs[i].get().inner))
        .collect()
}
