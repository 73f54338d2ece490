//! Bounded property tests ("fuzzing" that runs on stable Rust) for everything that parses or does
//! arithmetic on outside input: the name server's route JSON, `orderTopicConf`, UTF-16 hashing of any
//! code units (lone surrogates included), and queue counts far beyond any real topic.
//! Nothing here may panic: bad input is a `JavaError`. `PROPTEST_CASES` raises the case count
//! (`make fuzz`).

use std::sync::Arc;

use proptest::prelude::*;
use rocketroute_core::compat::Compat;
use rocketroute_core::counter::SendWhichQueue;
use rocketroute_core::java::{self, JavaRandom};
use rocketroute_core::publish_info::TopicPublishInfo;
use rocketroute_core::route::{self, parse_order_topic_conf, TopicRouteData};

/// `h = 31 * h + c` over the units, written out independently of the crate.
fn naive_hash(units: &[u16]) -> i32 {
    units
        .iter()
        .fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(c as i32))
}

fn count() -> impl Strategy<Value = i64> {
    prop_oneof![
        -3i64..16,
        Just(i32::MAX as i64),
        Just(i32::MIN as i64),
        Just(1 << 20),
        Just((1 << 20) + 1),
        Just(i64::MAX),
        any::<i64>(),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("broker-a".to_string()),
        Just("broker-b".to_string()),
        Just(String::new()),
        "\\PC{0,6}",
    ]
}

prop_compose! {
    fn route_doc()(
        queues in prop::collection::vec((name(), count(), count(), count(), 0i64..4), 0..5),
        brokers in prop::collection::vec((name(), prop::collection::vec(("[0-9]{1,3}|x|-1", "[0-9.:]{0,8}"), 0..3)), 0..5),
        conf in prop::option::of("[ab0-9:;,\\- ]{0,24}"),
    ) -> String {
        let qd: Vec<_> = queues.iter().map(|(b, r, w, p, f)| serde_json::json!({
            "brokerName": b, "readQueueNums": r, "writeQueueNums": w, "perm": p, "topicSysFlag": f,
        })).collect();
        let bd: Vec<_> = brokers.iter().map(|(b, addrs)| {
            let m: serde_json::Map<_, _> = addrs.iter().map(|(k, v)| (k.clone(), serde_json::json!(v))).collect();
            serde_json::json!({"cluster": "c", "brokerName": b, "brokerAddrs": m})
        }).collect();
        serde_json::json!({"orderTopicConf": conf, "queueDatas": qd, "brokerDatas": bd}).to_string()
    }
}

proptest! {
    #[test]
    fn route_json_of_any_text_is_a_route_or_an_error(text in "\\PC{0,200}") {
        let _ = TopicRouteData::from_json_str(&text);
    }

    #[test]
    fn route_json_of_any_bytes_mangled_from_a_real_one(doc in route_doc(), cut in 0usize..400, junk in "[{}\\[\\]\":,0-9a-z]{0,3}") {
        let mut text = doc.clone();
        let at = text.char_indices().map(|(i, _)| i).nth(cut.min(text.chars().count())).unwrap_or(text.len());
        text.insert_str(at, &junk);
        let _ = TopicRouteData::from_json_str(&text);
    }

    #[test]
    fn structured_routes_convert_or_fail_cleanly(doc in route_doc(), topic in name(), v49 in any::<bool>()) {
        let Ok(route) = TopicRouteData::from_json_str(&doc) else { return Ok(()) };
        let compat = if v49 { Compat::V4_9 } else { Compat::V5_3 };
        if let Ok((queues, _)) = route.publish_queues(&topic, rocketroute_core::Compat::V5_3) {
            prop_assert!(queues.len() <= 5 << 20, "no more queues than the cap allows per broker");
        }
        let _ = route.subscribe_queues(&topic, rocketroute_core::Compat::V5_3);
        let index = Arc::new(SendWhichQueue::new(compat, Some(-1), Arc::new(JavaRandom::new(1))));
        if let Ok(tp) = TopicPublishInfo::from_route(&topic, &route, compat, index) {
            if tp.ok() {
                for _ in 0..3 {
                    let pos = tp.select_one(None).expect("a non-empty topic selects");
                    prop_assert!(pos < tp.queues().len());
                }
            }
        }
    }

    #[test]
    fn order_topic_conf_of_any_text_parses_or_fails_cleanly(conf in "\\PC{0,64}") {
        if let Ok(pairs) = parse_order_topic_conf(&conf) {
            for (broker, _) in pairs {
                prop_assert!(conf.contains(broker));
            }
        }
    }

    #[test]
    fn utf16_hash_of_any_units_lone_surrogates_included(units in prop::collection::vec(any::<u16>(), 0..64)) {
        prop_assert_eq!(java::utf16_hash(&units), naive_hash(&units));
        prop_assert_eq!(java::utf16_compare(&units, &units), 0);
    }

    #[test]
    fn escaped_units_decode_with_exactly_the_lone_surrogates_masked(
        units in prop::collection::vec(prop_oneof![any::<u16>(), 0xD800u16..0xE000], 0..24),
        upper in any::<bool>(),
    ) {
        // a JSON string of any UTF-16 units, each escaped as Java's and Python's encoders may write it
        let body: String = units
            .iter()
            .map(|u| if upper { format!("\\u{u:04X}") } else { format!("\\u{u:04x}") })
            .collect();
        let text = format!("\"{body}\"");
        let lone = char::decode_utf16(units.iter().copied()).any(|c| c.is_err());
        let masked = route::mask_lone_surrogate_escapes(&text);
        prop_assert_eq!(masked.is_some(), lone);
        let decoded: String = serde_json::from_str(masked.as_deref().unwrap_or(&text)).unwrap();
        let expected: String = char::decode_utf16(units.iter().copied())
            .map(|c| c.unwrap_or('\u{FFFD}'))
            .collect();
        prop_assert_eq!(decoded, expected);
        prop_assert_eq!(java::utf16_to_java_utf8(&units).chars().count(), char::decode_utf16(units.iter().copied()).count());
    }

    #[test]
    fn string_hash_is_the_hash_of_its_utf16_units(s in "\\PC{0,64}") {
        let units: Vec<u16> = s.encode_utf16().collect();
        prop_assert_eq!(java::string_hash(&s), naive_hash(&units));
    }

    #[test]
    fn parse_int_never_panics(s in "[+\\-]?[0-9\u{0660}-\u{0669}\u{FF10}-\u{FF19}a]{0,14}") {
        if let Ok(v) = java::parse_int(&s) {
            prop_assert!(!s.is_empty());
            let _ = v;
        }
    }

    #[test]
    fn int_arithmetic_never_panics(a in any::<i32>(), b in any::<i32>()) {
        let r = java::rem(a, b);
        prop_assert_eq!(r.is_err(), b == 0);
        if let Ok(r) = r {
            prop_assert_eq!(r, a.wrapping_rem(b));
        }
        prop_assert!(java::abs(a) >= 0 || a == i32::MIN);
    }
}
