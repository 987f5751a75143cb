//! DynamoDB JSON: round trips and malformed payloads.

use engine::value::{item_from_json, item_to_json, value_from_json, value_to_json};
use engine::{item, AttributeValue as V, Blob, Item};
use serde_json::json;

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| x.to_string()).collect()
}

fn every_type() -> Item {
    item! {
        "s" => "text",
        "n" => V::N("-1.5".into()),
        "b" => Blob::new(vec![0, 1, 254, 255]),
        "bool" => false,
        "null" => V::Null(true),
        "m" => item! { "inner" => V::L(vec![V::from(1), V::from("x")]) },
        "l" => V::L(vec![]),
        "ss" => V::Ss(strings(&["a", ""])),
        "ns" => V::Ns(strings(&["1", "2"])),
        "bs" => V::Bs(vec![Blob::new(b"hi".to_vec()), Blob::default()]),
    }
}

#[test]
fn every_type_has_its_wire_shape() {
    let j = item_to_json(&every_type());
    assert_eq!(
        j,
        json!({
            "s": {"S": "text"},
            "n": {"N": "-1.5"},
            "b": {"B": "AAH+/w=="},
            "bool": {"BOOL": false},
            "null": {"NULL": true},
            "m": {"M": {"inner": {"L": [{"N": "1"}, {"S": "x"}]}}},
            "l": {"L": []},
            "ss": {"SS": ["a", ""]},
            "ns": {"NS": ["1", "2"]},
            "bs": {"BS": ["aGk=", ""]},
        })
    );
}

#[test]
fn json_round_trips() {
    let it = every_type();
    assert_eq!(item_from_json(&item_to_json(&it)).unwrap(), it);
    // Through serde too: AttributeValue implements Serialize/Deserialize in the wire shape.
    let text = serde_json::to_string(&it).unwrap();
    let back: Item = serde_json::from_str(&text).unwrap();
    assert_eq!(back, it);
    for v in it.values() {
        assert_eq!(value_from_json(&value_to_json(v)).unwrap(), *v);
        assert_eq!(serde_json::to_value(v).unwrap(), value_to_json(v));
    }
}

#[test]
fn base64_round_trips_every_length() {
    for len in 0..20u8 {
        let bytes: Vec<u8> = (0..len).map(|i| i.wrapping_mul(37)).collect();
        let v = V::B(Blob::new(bytes));
        assert_eq!(value_from_json(&value_to_json(&v)).unwrap(), v);
    }
}

fn error(j: serde_json::Value) -> String {
    value_from_json(&j)
        .expect_err("should be refused")
        .message()
        .to_owned()
}

#[test]
fn an_attribute_value_must_have_exactly_one_type() {
    let empty =
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes";
    assert_eq!(error(json!({})), empty);
    assert_eq!(error(json!({"s": "lower-case tag"})), empty);
    assert_eq!(error(json!({"S": null})), empty);
    assert_eq!(
        error(json!({"S": "a", "N": "1"})),
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
    );
}

#[test]
fn wrong_typed_payloads_are_validation_errors() {
    assert!(error(json!({"N": 5})).contains("N expects a string"));
    assert!(error(json!({"S": 5})).contains("S expects a string"));
    assert!(error(json!({"BOOL": "true"})).contains("BOOL expects true or false"));
    assert!(error(json!({"M": []})).contains("M expects an object"));
    assert!(error(json!({"L": {}})).contains("L expects an array"));
    assert!(error(json!({"SS": [1]})).contains("SS expects"));
    assert!(error(json!("x")).contains("expected an object"));
    assert!(item_from_json(&json!([])).is_err());
    assert!(item_from_json(&json!({"a": {"L": [{"X": 1}]}})).is_err());
    assert!(serde_json::from_str::<V>(r#"{"S":"a","N":"1"}"#).is_err());
}

#[test]
fn binary_must_be_canonical_base64() {
    assert_eq!(
        error(json!({"B": "abc"})),
        "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3"
    );
    assert_eq!(
        error(json!({"B": "ab!="})),
        "'ab!=' can not be converted to a Blob: Invalid Base64 character: '!'"
    );
    assert!(error(json!({"B": "AB=="})).contains("Invalid last non-pad Base64 character"));
    assert!(error(json!({"B": "A=B="})).contains("Invalid Base64 character"));
    assert!(error(json!({"BS": ["AQ==", "x"]})).contains("multiple of 4"));
}

#[test]
fn reading_json_stops_at_the_nesting_limit() {
    let mut j = json!({"S": "x"});
    for _ in 0..40 {
        j = json!({ "L": [j] });
    }
    assert!(error(j).starts_with("Nesting Levels have exceeded supported limits"));
}
