//! A connection's held answers (long-polling pulls at the end of their queues): a thread of the connection's own
//! writes each when its wait is over, earliest first, while the connection goes on answering.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

use crate::answers::Link;

/// A thread that writes a connection's held answers when their time comes (earliest first); it ends with the
/// connection, once the answers already held are written.
pub struct Held(mpsc::Sender<(Instant, Vec<u8>)>);

impl Held {
    pub fn start(writer: Link) -> Held {
        let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
        std::thread::spawn(move || {
            let mut due: BinaryHeap<Reverse<(Instant, u64)>> = BinaryHeap::new();
            let mut answers = HashMap::new();
            let mut seq = 0u64;
            let mut open = true;
            while open || !due.is_empty() {
                let next = due.peek().map(|Reverse((at, _))| *at);
                let received = match next {
                    None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    Some(at) if open => {
                        rx.recv_timeout(at.saturating_duration_since(Instant::now()))
                    }
                    Some(at) => {
                        std::thread::sleep(at.saturating_duration_since(Instant::now()));
                        Err(RecvTimeoutError::Timeout)
                    }
                };
                match received {
                    Ok((at, answer)) => {
                        due.push(Reverse((at, seq)));
                        answers.insert(seq, answer);
                        seq += 1;
                    }
                    Err(RecvTimeoutError::Disconnected) => open = false,
                    Err(RecvTimeoutError::Timeout) => {}
                }
                while let Some(Reverse((at, n))) = due.peek().copied() {
                    if at > Instant::now() {
                        break;
                    }
                    due.pop();
                    let answer = answers.remove(&n).expect("a held answer");
                    if writer
                        .lock()
                        .expect("writer lock")
                        .write_all(&answer)
                        .is_err()
                    {
                        return; // the client is gone
                    }
                }
            }
        });
        Held(tx)
    }

    pub fn hold(&self, at: Instant, answer: Vec<u8>) {
        let _ = self.0.send((at, answer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    #[test]
    fn held_answers_go_out_when_their_wait_is_over_earliest_first() {
        let written = Arc::new(Mutex::new(Vec::new()));
        let held = Held::start(written.clone());
        let now = Instant::now();
        held.hold(now + Duration::from_millis(80), b"late".to_vec());
        held.hold(now + Duration::from_millis(20), b"soon".to_vec());
        drop(held); // the connection ends: what is held still goes out
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(written.lock().unwrap().as_slice(), b"soon");
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(written.lock().unwrap().as_slice(), b"soonlate");
    }
}
