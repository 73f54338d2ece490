//! Java exceptions the routing path can throw, as one Rust error type.

use std::fmt;

/// A Java exception: its class decides the Python exception the bindings raise, its message is
/// Java's text (exact for RocketMQ's own exceptions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JavaError {
    /// `java.lang.IllegalArgumentException`
    IllegalArgument(String),
    /// `java.lang.NumberFormatException`
    NumberFormat(String),
    /// `java.lang.ArithmeticException` ("/ by zero")
    Arithmetic(String),
    /// `java.lang.NullPointerException`
    NullPointer(String),
    /// `java.lang.ArrayIndexOutOfBoundsException`
    IndexOutOfBounds(String),
}

impl JavaError {
    pub fn div_by_zero() -> Self {
        JavaError::Arithmetic("/ by zero".to_owned())
    }

    pub fn java_class(&self) -> &'static str {
        match self {
            JavaError::IllegalArgument(_) => "java.lang.IllegalArgumentException",
            JavaError::NumberFormat(_) => "java.lang.NumberFormatException",
            JavaError::Arithmetic(_) => "java.lang.ArithmeticException",
            JavaError::NullPointer(_) => "java.lang.NullPointerException",
            JavaError::IndexOutOfBounds(_) => "java.lang.ArrayIndexOutOfBoundsException",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            JavaError::IllegalArgument(m)
            | JavaError::NumberFormat(m)
            | JavaError::Arithmetic(m)
            | JavaError::NullPointer(m)
            | JavaError::IndexOutOfBounds(m) => m,
        }
    }
}

impl fmt::Display for JavaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.java_class(), self.message())
    }
}

impl std::error::Error for JavaError {}

pub type JavaResult<T> = Result<T, JavaError>;
