//! The item literal.

/// Builds an [`Item`](crate::Item) from `name => value` pairs, each value converted with
/// `AttributeValue::from` (so `&str`/`String` → `S`, integers → `N`, `bool` → `BOOL`, a
/// `Vec<AttributeValue>` → `L`, an `Item` → `M`, or any `AttributeValue` as is).
///
/// Not part of the SDK: SDK code builds the `HashMap` itself (`HashMap::from([..])`, or the
/// builder's `.item(name, value)` one attribute at a time), which works here too.
///
/// ```
/// use engine::{item, AttributeValue};
/// let it = item! { "PK" => "USER#1", "n" => 5, "tags" => AttributeValue::Ss(vec!["a".into()]) };
/// assert_eq!(it["n"], AttributeValue::N("5".into()));
/// let empty = item! {};
/// assert!(empty.is_empty());
/// ```
#[macro_export]
macro_rules! item {
    () => {
        $crate::value::Item::new()
    };
    ($($name:expr => $value:expr),+ $(,)?) => {{
        let mut item = $crate::value::Item::new();
        $(
            item.insert(
                ::std::string::String::from($name),
                $crate::value::AttributeValue::from($value),
            );
        )+
        item
    }};
}
