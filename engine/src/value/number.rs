//! Exact decimal numbers (to be implemented).

/// An exact decimal number within DynamoDB's limits (38 significant digits,
/// magnitude 1E-130 … 9.99…E+125).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number {
    // placeholder representation; the value module replaces it
    _private: (),
}
