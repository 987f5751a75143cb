//! Attribute values: sizes, set rules, DynamoDB equality and ordering, canonical form, item!.

use std::cmp::Ordering;

use engine::value::{canonicalize_item, canonicalize_value, MAX_DEPTH, MAX_ITEM_SIZE};
use engine::{item, item_size, AttributeValue as V, Blob, Item, Number};

fn s(x: &str) -> V {
    V::S(x.to_owned())
}
fn n(x: &str) -> V {
    V::N(x.to_owned())
}
fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|x| x.to_string()).collect()
}
fn invalid(v: V) -> String {
    canonicalize_value(v)
        .expect_err("should be refused")
        .message()
        .to_owned()
}

#[test]
fn the_developer_guide_example_is_23_bytes() {
    let it = item! { "shirt-color" => "R", "shirt-size" => "M" };
    assert_eq!(item_size(&it), 23);
    assert_eq!(MAX_ITEM_SIZE, 409_600);
}

#[test]
fn scalar_sizes() {
    assert_eq!(s("héllo").size(), 6, "UTF-8 bytes, not characters");
    assert_eq!(s("").size(), 0);
    assert_eq!(V::B(Blob::new(vec![0u8; 10])).size(), 10);
    assert_eq!(V::Bool(true).size(), 1);
    assert_eq!(V::Null(true).size(), 1);
    assert_eq!(n("123").size(), 3);
    assert_eq!(n("-1").size(), 3);
    assert_eq!(n("0").size(), 1);
}

#[test]
fn list_and_map_sizes_count_three_bytes_plus_one_per_element() {
    assert_eq!(V::L(vec![]).size(), 3);
    assert_eq!(V::M(Item::new()).size(), 3);
    assert_eq!(
        V::L(vec![s("ab"), V::Bool(false)]).size(),
        3 + (1 + 2) + (1 + 1)
    );
    assert_eq!(V::M(item! { "k" => "vv" }).size(), 3 + 1 + 1 + 2);
    let nested = V::M(item! { "a" => V::L(vec![V::M(item! { "b" => "c" })]) });
    // M{ a: L[ M{ b: "c" } ] } = 3 + (1 + 1 + (3 + 1 + (3 + 1 + 1 + 1)))
    assert_eq!(nested.size(), 3 + 1 + 1 + (3 + 1 + (3 + 1 + 1 + 1)));
    let it = item! { "doc" => nested.clone(), "id" => "x" };
    assert_eq!(item_size(&it), 3 + nested.size() + 2 + 1);
}

#[test]
fn set_sizes_are_the_sum_of_their_elements() {
    assert_eq!(V::Ss(strings(&["ab", "cde"])).size(), 5);
    assert_eq!(V::Ns(strings(&["1", "123"])).size(), 2 + 3);
    assert_eq!(
        V::Bs(vec![Blob::new(vec![1, 2]), Blob::new(vec![3])]).size(),
        3
    );
}

#[test]
fn type_names_are_dynamodb_spellings() {
    let names: Vec<&str> = [
        s("x"),
        n("1"),
        V::B(Blob::default()),
        V::Bool(true),
        V::Null(true),
        V::M(Item::new()),
        V::L(vec![]),
        V::Ss(vec![]),
        V::Ns(vec![]),
        V::Bs(vec![]),
    ]
    .iter()
    .map(V::type_name)
    .collect();
    assert_eq!(
        names,
        ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"]
    );
}

#[test]
fn sdk_style_accessors() {
    let v = s("x");
    assert_eq!(v.as_s(), Ok(&"x".to_owned()));
    assert_eq!(v.as_n(), Err(&v));
    assert!(v.is_s() && !v.is_n());
    assert_eq!(n("2.50").as_number(), Some(Number::parse("2.5").unwrap()));
    assert_eq!(n("x").as_number(), None);
    assert_eq!(s("1").as_number(), None);
}

#[test]
fn dynamo_equality_is_numeric_and_order_free_for_sets() {
    assert!(n("1").dynamo_eq(&n("1.0")));
    assert!(!n("1").dynamo_eq(&s("1")));
    assert!(V::Ss(strings(&["a", "b"])).dynamo_eq(&V::Ss(strings(&["b", "a"]))));
    assert!(!V::Ss(strings(&["a", "b"])).dynamo_eq(&V::Ss(strings(&["a"]))));
    assert!(V::Ns(strings(&["1", "2.0"])).dynamo_eq(&V::Ns(strings(&["2", "1.00"]))));
    assert!(!V::Ns(strings(&["1"])).dynamo_eq(&V::Ss(strings(&["1"]))));
    let a = V::L(vec![n("1"), V::M(item! { "x" => n("2.0") })]);
    let b = V::L(vec![n("1.0"), V::M(item! { "x" => n("2") })]);
    assert!(a.dynamo_eq(&b));
    assert!(
        !a.dynamo_eq(&V::L(vec![V::M(item! { "x" => n("2") }), n("1")])),
        "lists are ordered"
    );
    assert!(V::Null(true).dynamo_eq(&V::Null(true)));
}

#[test]
fn dynamo_ordering_covers_numbers_strings_and_binaries_only() {
    assert_eq!(n("10").dynamo_cmp(&n("9")), Some(Ordering::Greater));
    assert_eq!(n("-1").dynamo_cmp(&n("-1.0")), Some(Ordering::Equal));
    assert_eq!(s("a").dynamo_cmp(&s("A")), Some(Ordering::Greater));
    assert_eq!(
        s("¿").dynamo_cmp(&s("z")),
        Some(Ordering::Greater),
        "UTF-8 bytes"
    );
    let b = |x: &[u8]| V::B(Blob::new(x));
    assert_eq!(
        b(&[0x80]).dynamo_cmp(&b(&[0x7f])),
        Some(Ordering::Greater),
        "unsigned bytes"
    );
    assert_eq!(b(&[1]).dynamo_cmp(&b(&[1, 0])), Some(Ordering::Less));
    assert_eq!(n("1").dynamo_cmp(&s("1")), None);
    assert_eq!(V::Bool(true).dynamo_cmp(&V::Bool(false)), None);
    assert_eq!(
        V::Ss(strings(&["a"])).dynamo_cmp(&V::Ss(strings(&["a"]))),
        None
    );
}

#[test]
fn canonical_form_rewrites_numbers_everywhere() {
    let v = V::M(item! {
        "n" => n("+01.50"),
        "l" => V::L(vec![n("1e3")]),
        "ns" => V::Ns(strings(&["-0", "2.0"])),
    });
    let want = V::M(item! {
        "n" => n("1.5"),
        "l" => V::L(vec![n("1000")]),
        "ns" => V::Ns(strings(&["0", "2"])),
    });
    assert_eq!(canonicalize_value(v).unwrap(), want);
}

#[test]
fn sets_must_not_be_empty() {
    let p = "One or more parameter values were invalid: ";
    assert_eq!(
        invalid(V::Ss(vec![])),
        format!("{p}An string set  may not be empty")
    );
    assert_eq!(
        invalid(V::Ns(vec![])),
        format!("{p}An number set  may not be empty")
    );
    assert_eq!(
        invalid(V::Bs(vec![])),
        format!("{p}Binary sets should not be empty")
    );
}

#[test]
fn sets_must_not_hold_duplicates() {
    let p = "One or more parameter values were invalid: ";
    assert_eq!(
        invalid(V::Ss(strings(&["a", "b", "a"]))),
        format!("{p}Input collection [a, b, a] contains duplicates.")
    );
    assert_eq!(
        invalid(V::Ns(strings(&["1", "1.0"]))),
        format!("{p}Input collection [1, 1.0] contains duplicates."),
        "NS duplicates are numeric"
    );
    assert_eq!(
        invalid(V::Bs(vec![Blob::new(vec![1]), Blob::new(vec![1])])),
        format!("{p}Input collection [AQ==, AQ==]of type BS contains duplicates.")
    );
    // Empty elements are fine.
    assert!(canonicalize_value(V::Ss(strings(&["", "a"]))).is_ok());
    assert!(canonicalize_value(V::Bs(vec![Blob::default()])).is_ok());
}

#[test]
fn null_must_be_true_and_numbers_must_be_valid() {
    assert_eq!(
        invalid(V::Null(false)),
        "One or more parameter values were invalid: Null attribute value types must have the value of true"
    );
    assert_eq!(
        invalid(n("1x")),
        "The parameter cannot be converted to a numeric value: 1x"
    );
    assert_eq!(
        invalid(V::L(vec![V::Ns(strings(&["1E+126"]))])),
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
}

fn nested_lists(levels: usize) -> V {
    let mut v = s("leaf");
    for _ in 0..levels {
        v = V::L(vec![v]);
    }
    v
}

#[test]
fn documents_nest_at_most_32_levels() {
    assert_eq!(MAX_DEPTH, 32);
    assert!(canonicalize_value(nested_lists(32)).is_ok());
    assert_eq!(
        invalid(nested_lists(33)),
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
    );
    assert!(
        canonicalize_value(nested_lists(5_000)).is_err(),
        "deep input is refused, not a stack overflow"
    );
}

#[test]
fn item_canonicalization_checks_every_value_and_names() {
    let it = item! { "a" => n("01"), "b" => V::Ss(strings(&["x"])) };
    assert_eq!(
        canonicalize_item(it).unwrap(),
        item! { "a" => n("1"), "b" => V::Ss(strings(&["x"])) }
    );
    assert!(canonicalize_item(item! { "" => "x" }).is_err());
    assert!(canonicalize_item(item! { "a" => V::Null(false) }).is_err());
}

#[test]
fn the_item_macro_converts_with_from() {
    let it = item! {
        "PK" => "USER#1",
        "name" => String::from("Ann"),
        "n" => 5,
        "big" => u64::MAX,
        "neg" => -3i8,
        "ok" => true,
        "num" => Number::parse("2.50").unwrap(),
        "list" => vec![V::from(1), V::from("x")],
        "map" => item! { "inner" => 1usize },
        "bin" => Blob::new(vec![1, 2]),
        "tags" => V::Ss(strings(&["a", "b"])),
    };
    assert_eq!(it["PK"], s("USER#1"));
    assert_eq!(it["name"], s("Ann"));
    assert_eq!(it["n"], n("5"));
    assert_eq!(it["big"], n("18446744073709551615"));
    assert_eq!(it["neg"], n("-3"));
    assert_eq!(it["ok"], V::Bool(true));
    assert_eq!(it["num"], n("2.5"));
    assert_eq!(it["list"], V::L(vec![n("1"), s("x")]));
    assert_eq!(it["map"], V::M(item! { "inner" => n("1") }));
    assert_eq!(it["bin"], V::B(Blob::new(vec![1, 2])));
    assert_eq!(it.len(), 11);
    let empty: Item = item! {};
    assert!(empty.is_empty());
}

#[test]
fn large_sets_compare_as_sets_too() {
    let a: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let mut b = a.clone();
    b.reverse();
    assert!(V::Ss(a.clone()).dynamo_eq(&V::Ss(b.clone())));
    let b_decimals: Vec<String> = b.iter().map(|x| format!("{x}.0")).collect();
    assert!(V::Ns(a.clone()).dynamo_eq(&V::Ns(b_decimals)));
    let mut c = a.clone();
    c[50] = "x".into();
    assert!(!V::Ss(a.clone()).dynamo_eq(&V::Ss(c)));
    let mut d = a.clone();
    d[50] = "1000".into();
    assert!(!V::Ns(a).dynamo_eq(&V::Ns(d)));
}
