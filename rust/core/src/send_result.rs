//! The usual send response: `MQClientAPIImpl.processSendResponse` for a response that stored the message.
//!
//! The broker's response code gives the status (`SUCCESS` 0 is `SEND_OK`; `FLUSH_DISK_TIMEOUT` 10,
//! `FLUSH_SLAVE_TIMEOUT` 12 and `SLAVE_NOT_AVAILABLE` 11 are those statuses; any other code is an error), and the
//! `SendMessageResponseHeader` ext fields give the queue id, the queue offset and the rest. This module reads the
//! usual response only: queue id and offset written in plain ASCII digits that always fit, as every broker writes
//! them. Anything else (another code, a missing or unusual number) is `None`, for the caller's full reader, which
//! raises Java's errors with Java's words.

/// `org.apache.rocketmq.client.producer.SendStatus`, in its declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendStatus {
    SendOk = 0,
    FlushDiskTimeout = 1,
    FlushSlaveTimeout = 2,
    SlaveNotAvailable = 3,
}

impl SendStatus {
    /// The status `processSendResponse` gives a response `code`; `None`: the code is an error.
    pub fn of_response_code(code: i64) -> Option<SendStatus> {
        match code {
            0 => Some(SendStatus::SendOk),
            10 => Some(SendStatus::FlushDiskTimeout),
            12 => Some(SendStatus::FlushSlaveTimeout),
            11 => Some(SendStatus::SlaveNotAvailable),
            _ => None,
        }
    }

    /// The position in the declaration order (`ordinal()`).
    pub fn ordinal(self) -> usize {
        self as usize
    }
}

/// `Integer.parseInt(s)` for 1 to 9 ASCII digits (always in range); `None` for anything else.
pub fn usual_int(s: &str) -> Option<i32> {
    digits(s, 9).and_then(|v| i32::try_from(v).ok())
}

/// `Long.parseLong(s)` for 1 to 18 ASCII digits (always in range); `None` for anything else.
pub fn usual_long(s: &str) -> Option<i64> {
    digits(s, 18)
}

fn digits(s: &str, max_len: usize) -> Option<i64> {
    if s.is_empty() || s.len() > max_len {
        return None;
    }
    s.bytes().try_fold(0i64, |v, b| {
        b.is_ascii_digit().then(|| v * 10 + i64::from(b - b'0'))
    })
}

/// The name of the ext fields `processSendResponse` reads.
pub mod field {
    pub const MSG_ID: &str = "msgId";
    pub const QUEUE_ID: &str = "queueId";
    pub const QUEUE_OFFSET: &str = "queueOffset";
    pub const TRANSACTION_ID: &str = "transactionId";
    /// 5.3.3 only.
    pub const RECALL_HANDLE: &str = "recallHandle";
    pub const MSG_REGION: &str = "MSG_REGION";
    pub const TRACE_ON: &str = "TRACE_ON";
}

/// `MixAll.DEFAULT_TRACE_REGION_ID`: the region of a response without `MSG_REGION` (or with an empty one).
pub const DEFAULT_TRACE_REGION_ID: &str = "DefaultRegion";

/// Whether the region given is used: present and not empty.
pub fn region_given(region: Option<&str>) -> bool {
    region.is_some_and(|r| !r.is_empty())
}

/// `TRACE_ON`: anything but `"false"` (absent included) is on.
pub fn trace_on(value: Option<&str>) -> bool {
    value != Some("false")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_of_codes() {
        assert_eq!(SendStatus::of_response_code(0), Some(SendStatus::SendOk));
        assert_eq!(
            SendStatus::of_response_code(10),
            Some(SendStatus::FlushDiskTimeout)
        );
        assert_eq!(
            SendStatus::of_response_code(11),
            Some(SendStatus::SlaveNotAvailable)
        );
        assert_eq!(
            SendStatus::of_response_code(12),
            Some(SendStatus::FlushSlaveTimeout)
        );
        for code in [1, 2, 13, 16, 17, 25, -1, 1 << 40] {
            assert_eq!(SendStatus::of_response_code(code), None);
        }
        assert_eq!(SendStatus::SlaveNotAvailable.ordinal(), 3);
    }

    #[test]
    fn usual_numbers_only() {
        assert_eq!(usual_int("0"), Some(0));
        assert_eq!(usual_int("007"), Some(7));
        assert_eq!(usual_int("999999999"), Some(999_999_999));
        assert_eq!(
            usual_long("123456789012345678"),
            Some(123_456_789_012_345_678)
        );
        // Java reads these too, with other rules or errors: the full reader's
        for s in [
            "",
            "-1",
            "+1",
            "1000000000",
            "2147483647",
            " 1",
            "1 ",
            "1a",
            "\u{0663}",
        ] {
            assert_eq!(usual_int(s), None, "{s:?}");
        }
        for s in ["", "-1", "1234567890123456789", "0x1"] {
            assert_eq!(usual_long(s), None, "{s:?}");
        }
    }

    #[test]
    fn region_and_trace() {
        assert!(region_given(Some("r")));
        assert!(!region_given(Some("")));
        assert!(!region_given(None));
        assert!(trace_on(None));
        assert!(trace_on(Some("true")));
        assert!(trace_on(Some("FALSE")));
        assert!(!trace_on(Some("false")));
    }
}
