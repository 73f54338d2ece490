//! The JSON header of a send request (`SEND_MESSAGE_V2`, `SEND_BATCH_MESSAGE`) written in one go, byte for byte as
//! rocketroute's Python code writes it: `rocketroute.protocol.frame.encode_frame` of a command whose ext fields
//! are `rocketroute.protocol.headers.send.send_header_v2`'s, `a` to `n` in that order, numbers in decimal and
//! booleans as `true` / `false` (`crate::frame`'s JSON header).

use crate::decimal::{decimal, MAX_LEN};
use crate::frame::{JsonHeader, JsonHeaderWriter};

/// `SendMessageRequestHeaderV2`'s fields as a producer fills them.
pub struct SendHeaderV2<'a> {
    pub producer_group: &'a str,
    pub topic: &'a str,
    pub default_topic: &'a str,
    pub default_topic_queue_nums: i64,
    pub queue_id: i64,
    pub sys_flag: i64,
    pub born_timestamp: i64,
    pub flag: i64,
    pub properties: Option<&'a str>,
    pub reconsume_times: i64,
    pub unit_mode: bool,
    pub max_reconsume_times: Option<i64>,
    pub batch: bool,
    pub broker_name: Option<&'a str>,
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

impl SendHeaderV2<'_> {
    /// The ext fields `a` ... `n` into `w`.
    pub fn write(&self, w: &mut JsonHeaderWriter) {
        let number = |w: &mut JsonHeaderWriter, key: &str, v: i64| {
            let mut buf = [0; MAX_LEN];
            w.ext(key, decimal(v, &mut buf));
        };
        w.ext("a", self.producer_group);
        w.ext("b", self.topic);
        w.ext("c", self.default_topic);
        number(w, "d", self.default_topic_queue_nums);
        number(w, "e", self.queue_id);
        number(w, "f", self.sys_flag);
        number(w, "g", self.born_timestamp);
        number(w, "h", self.flag);
        if let Some(properties) = self.properties {
            w.ext("i", properties);
        }
        number(w, "j", self.reconsume_times);
        w.ext("k", bool_text(self.unit_mode));
        if let Some(max) = self.max_reconsume_times {
            number(w, "l", max);
        }
        w.ext("m", bool_text(self.batch));
        if let Some(broker_name) = self.broker_name {
            w.ext("n", broker_name);
        }
    }
}

/// The JSON header of a send request: `command`'s fixed fields and `header`'s ext fields (the frame is this
/// header and the body behind [`crate::frame::frame_prefix`]'s length words).
pub fn send_request_header(command: &JsonHeader<'_>, header: &SendHeaderV2<'_>) -> Vec<u8> {
    let guess = 320 + header.properties.map_or(0, |p| p.len() + p.len() / 4);
    let mut w = JsonHeaderWriter::new(command, guess);
    header.write(&mut w);
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::json_header;

    #[test]
    fn the_header_is_the_command_s_with_the_send_fields_in_order() {
        let command = JsonHeader {
            code: 310,
            language: "PYTHON",
            version: 479,
            opaque: 42,
            flag: 0,
            remark: None,
        };
        let header = SendHeaderV2 {
            producer_group: "g",
            topic: "T",
            default_topic: "TBW102",
            default_topic_queue_nums: 4,
            queue_id: 3,
            sys_flag: 0,
            born_timestamp: 1_700_000_000_000,
            flag: -1,
            properties: Some("WAIT\u{1}true\u{2}"),
            reconsume_times: 0,
            unit_mode: false,
            max_reconsume_times: None,
            batch: false,
            broker_name: Some("broker-a"),
        };
        let written = send_request_header(&command, &header);
        let fields = [
            ("a", "g"),
            ("b", "T"),
            ("c", "TBW102"),
            ("d", "4"),
            ("e", "3"),
            ("f", "0"),
            ("g", "1700000000000"),
            ("h", "-1"),
            ("i", "WAIT\u{1}true\u{2}"),
            ("j", "0"),
            ("k", "false"),
            ("m", "false"),
            ("n", "broker-a"),
        ];
        assert_eq!(written, json_header(&command, fields));
        let with_l = SendHeaderV2 {
            max_reconsume_times: Some(16),
            properties: None,
            broker_name: None,
            batch: true,
            ..header
        };
        let text = String::from_utf8(send_request_header(&command, &with_l)).unwrap();
        assert!(text.contains(r#""j":"0","k":"false","l":"16","m":"true"}"#));
        assert!(!text.contains(r#""i":"#) && !text.contains(r#""n":"#));
    }
}
