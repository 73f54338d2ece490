//! Compat profiles: the RocketMQ client release to behave like.

use crate::error::{JavaError, JavaResult};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Compat {
    /// RocketMQ 5.3.3 (the default); 5.5.0 routes the same (the live Java oracle), so "5.5" is an alias.
    #[default]
    V5_3,
    /// RocketMQ 4.9.8.
    V4_9,
}

impl Compat {
    pub fn parse(s: &str) -> JavaResult<Compat> {
        match s {
            "5.3" | "5.3.3" | "5" | "5.5" | "5.5.0" => Ok(Compat::V5_3),
            "4.9" | "4.9.8" | "4" => Ok(Compat::V4_9),
            _ => Err(JavaError::IllegalArgument(format!(
                "unknown compat profile '{s}'; expected one of ('5.3', '4.9')"
            ))),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Compat::V5_3 => "5.3",
            Compat::V4_9 => "4.9",
        }
    }
}
