//! ProjectionExpression: nested paths keep the structure that encloses them, trimmed to what
//! was asked (§5.7); overlapping paths are refused.

use std::collections::HashMap;

use engine::expr::{parse_request, ExpressionInput, Projection};
use engine::{item, AttributeValue, Item};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn parse(expr: &str, names: &[(&str, &str)]) -> Result<Projection, String> {
    let names: HashMap<String, String> = names
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let input = ExpressionInput {
        projection: Some(expr),
        names: (!names.is_empty()).then_some(&names),
        ..Default::default()
    };
    parse_request(&input)
        .map(|p| p.projection.unwrap())
        .map_err(|e| e.message().to_string())
}

fn product() -> Item {
    item! {
        "Id" => 1,
        "Title" => "Book",
        "RelatedItems" => vec![s("r0"), s("r1"), s("r2")],
        "ProductReviews" => item! { "FiveStar" => vec![s("great")], "OneStar" => vec![s("meh")] },
        "a.b" => "literal dotted name",
        "Grid" => vec![AttributeValue::L(vec![s("00"), s("01")]), AttributeValue::L(vec![s("10"), s("11")])],
    }
}

#[test]
fn top_level_and_missing_attributes() {
    let p = parse("Title, Id, Nope", &[]).unwrap();
    assert_eq!(p.apply(&product()), item! { "Id" => 1, "Title" => "Book" });
    assert_eq!(p.top_level_names(), vec!["Id", "Nope", "Title"]);
}

#[test]
fn nested_paths_keep_the_enclosing_structure() {
    let p = parse(
        "RelatedItems[2], RelatedItems[0], ProductReviews.FiveStar, ProductReviews.ZeroStar",
        &[],
    )
    .unwrap();
    assert_eq!(
        p.apply(&product()),
        item! {
            "RelatedItems" => vec![s("r0"), s("r2")],
            "ProductReviews" => item! { "FiveStar" => vec![s("great")] },
        }
    );
    let p = parse("Grid[1][0], Grid[0][1]", &[]).unwrap();
    assert_eq!(
        p.apply(&product()),
        item! { "Grid" => vec![AttributeValue::L(vec![s("01")]), AttributeValue::L(vec![s("10")])] }
    );
    let p = parse("Title[0], RelatedItems.x, Id.y, ProductReviews[0]", &[]).unwrap();
    assert_eq!(
        p.apply(&product()),
        Item::new(),
        "paths through the wrong kind lead nowhere"
    );
}

#[test]
fn a_name_placeholder_is_one_literal_name() {
    let p = parse("#ab", &[("#ab", "a.b")]).unwrap();
    assert_eq!(
        p.apply(&product()),
        item! { "a.b" => "literal dotted name" }
    );
    let p = parse("#pr.#fs", &[("#pr", "ProductReviews"), ("#fs", "FiveStar")]).unwrap();
    assert_eq!(
        p.apply(&product()),
        item! { "ProductReviews" => item! { "FiveStar" => vec![s("great")] } }
    );
}

#[test]
fn rejections() {
    let p = "Invalid ProjectionExpression: ";
    assert_eq!(parse("a, a.b", &[]).unwrap_err(), format!("{p}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"));
    assert_eq!(parse("x.y, #x", &[("#x", "x")]).unwrap_err(), format!("{p}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [x, y], path two: [x]"));
    assert_eq!(parse("l[0], l.b", &[]).unwrap_err(), format!("{p}Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, b]"));
    assert_eq!(
        parse("Name, Title", &[]).unwrap_err(),
        format!("{p}Attribute name is a reserved keyword; reserved keyword: Name")
    );
    assert_eq!(
        parse("a,", &[]).unwrap_err(),
        format!("{p}Syntax error; token: \"<EOF>\", near: \",\"")
    );
    assert_eq!(
        parse("a b", &[]).unwrap_err(),
        format!("{p}Syntax error; token: \"b\", near: \"a b\"")
    );
    assert_eq!(
        parse("size(a)", &[]).unwrap_err(),
        format!("{p}Syntax error; token: \"(\", near: \"size(a\"")
    );
    assert_eq!(
        parse("1a", &[]).unwrap_err(),
        format!("{p}Syntax error; token: \"1\", near: \"1a\"")
    );
    assert_eq!(
        parse("", &[]).unwrap_err(),
        format!("{p}The expression can not be empty;")
    );
}
