//! A learner's structs ↔ items through serde.

use std::collections::{BTreeMap, HashMap};

use engine::value::{from_attribute_value, to_attribute_value};
use engine::{from_item, item, to_item, AttributeValue as V, Blob, Item};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Address {
    street: String,
    zip: u32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Status {
    Active,
    Suspended { reason: String },
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct User {
    id: String,
    age: u8,
    balance: f64,
    vip: bool,
    nickname: Option<String>,
    address: Address,
    tags: Vec<String>,
    scores: HashMap<String, i64>,
    maybe: Vec<Option<i32>>,
    status: Status,
    previous: Status,
}

fn user() -> User {
    User {
        id: "u1".into(),
        age: 42,
        balance: 0.1,
        vip: true,
        nickname: None,
        address: Address {
            street: "Main St".into(),
            zip: 12345,
        },
        tags: vec!["a".into(), "b".into()],
        scores: HashMap::from([("math".to_owned(), -3), ("art".to_owned(), 7)]),
        maybe: vec![Some(1), None],
        status: Status::Active,
        previous: Status::Suspended {
            reason: "spam".into(),
        },
    }
}

#[test]
fn a_struct_becomes_an_item_of_dynamodb_types() {
    let it = to_item(user()).unwrap();
    let want = item! {
        "id" => "u1",
        "age" => 42,
        "balance" => V::N("0.1".into()),
        "vip" => true,
        "nickname" => V::Null(true),
        "address" => item! { "street" => "Main St", "zip" => 12345 },
        "tags" => vec![V::from("a"), V::from("b")],
        "scores" => item! { "math" => -3, "art" => 7 },
        "maybe" => vec![V::from(1), V::Null(true)],
        "status" => "Active",
        "previous" => item! { "Suspended" => item! { "reason" => "spam" } },
    };
    assert_eq!(
        it, want,
        "nickname: None is NULL, as serde_dynamo stores it"
    );
}

#[test]
fn an_item_maps_back_to_the_struct() {
    let u = user();
    assert_eq!(from_item::<_, User>(to_item(&u).unwrap()).unwrap(), u);
    let with_nick = User {
        nickname: Some("Bo".into()),
        ..user()
    };
    assert_eq!(
        from_item::<_, User>(to_item(&with_nick).unwrap()).unwrap(),
        with_nick
    );
}

#[test]
fn numbers_map_to_whatever_numeric_type_is_asked_for() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Nums {
        a: i8,
        b: u64,
        c: f32,
        d: i128,
        e: f64,
    }
    let it = item! {
        "a" => -128, "b" => u64::MAX, "c" => V::N("2.5".into()),
        "d" => V::N("-170141183460469231731687303715884105".into()), "e" => 3,
    };
    let got: Nums = from_item(it).unwrap();
    assert_eq!(
        got,
        Nums {
            a: -128,
            b: u64::MAX,
            c: 2.5,
            d: -170141183460469231731687303715884105,
            e: 3.0
        }
    );
}

#[test]
fn mismatches_name_the_attribute() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Small {
        n: u8,
        address: Address,
    }
    let msg = |it: Item| from_item::<_, Small>(it).unwrap_err().message().to_owned();
    let address = item! { "street" => "x", "zip" => 1 };
    assert_eq!(
        msg(item! { "n" => 300, "address" => address.clone() }),
        "Cannot map item: attribute `n`: N 300 is out of range for u8"
    );
    assert_eq!(
        msg(item! { "n" => V::N("1.5".into()), "address" => address.clone() }),
        "Cannot map item: attribute `n`: N 1.5 is not an integer, expected u8"
    );
    assert_eq!(
        msg(item! { "n" => "1", "address" => address }),
        "Cannot map item: attribute `n`: expected N (a number), found S"
    );
    assert_eq!(
        msg(item! { "n" => 1, "address" => item! { "street" => "x", "zip" => "nope" } }),
        "Cannot map item: attribute `address.zip`: expected N (a number), found S"
    );
    assert_eq!(
        msg(item! { "n" => 1 }),
        "Cannot map item: missing attribute `address`"
    );
    let list: Result<Vec<u8>, _> = from_attribute_value(V::L(vec![V::from(1), V::from("x")]));
    assert_eq!(
        list.unwrap_err().message(),
        "Cannot map value: attribute `[1]`: expected N (a number), found S"
    );
}

#[test]
fn floats_are_written_by_their_shortest_text_and_non_finite_ones_are_refused() {
    assert_eq!(to_attribute_value(&0.1f64).unwrap(), V::N("0.1".into()));
    assert_eq!(to_attribute_value(&0.1f32).unwrap(), V::N("0.1".into()));
    assert_eq!(
        to_attribute_value(&1e20f64).unwrap(),
        V::N("100000000000000000000".into())
    );
    assert_eq!(
        to_attribute_value(&-2.5e-7f64).unwrap(),
        V::N("-0.00000025".into())
    );
    assert!(to_attribute_value(&f64::NAN).is_err());
    assert!(to_attribute_value(&f64::INFINITY).is_err());
    assert!(to_attribute_value(&1e300f64)
        .unwrap_err()
        .message()
        .contains("overflow"));
}

#[test]
fn other_shapes() {
    assert_eq!(to_attribute_value(&None::<u8>).unwrap(), V::Null(true));
    assert_eq!(to_attribute_value(&()).unwrap(), V::Null(true));
    assert_eq!(
        to_attribute_value(&(1, "a")).unwrap(),
        V::L(vec![V::from(1), V::from("a")])
    );
    assert_eq!(to_attribute_value(&'c').unwrap(), V::from("c"));
    assert_eq!(
        to_attribute_value(&u128::MAX).unwrap_err().message(),
        "Attempting to store more than 38 significant digits in a Number"
    );
    let by_int: BTreeMap<u32, bool> = BTreeMap::from([(1, true), (20, false)]);
    let v = to_attribute_value(&by_int).unwrap();
    assert_eq!(v, V::M(item! { "1" => true, "20" => false }));
    assert_eq!(
        from_attribute_value::<BTreeMap<u32, bool>>(v).unwrap(),
        by_int
    );
    assert!(to_item(5).is_err(), "an item comes from a struct or a map");
    // Sets read into vectors; binaries into byte vectors.
    assert_eq!(
        from_attribute_value::<Vec<String>>(V::Ss(vec!["x".into()])).unwrap(),
        vec!["x"]
    );
    assert_eq!(
        from_attribute_value::<Vec<f64>>(V::Ns(vec!["1.5".into()])).unwrap(),
        vec![1.5]
    );
    assert_eq!(
        from_attribute_value::<Vec<u8>>(V::B(Blob::new(vec![1, 2]))).unwrap(),
        vec![1, 2]
    );
    assert_eq!(
        from_attribute_value::<Option<u8>>(V::Null(true)).unwrap(),
        None
    );
    // serde_json::Value as a target: self-describing deserialization works.
    let j: serde_json::Value = from_item(item! { "a" => 1, "b" => vec![V::from("x")] }).unwrap();
    assert_eq!(j, serde_json::json!({"a": 1, "b": ["x"]}));
}
