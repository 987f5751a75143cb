//! Scenario tests for tags: CreateTable's `Tags`, TagResource, UntagResource,
//! ListTagsOfResource, addressed by the table's ARN.
mod common;

use common::*;
use engine::error::ProvideErrorMetadata;
use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, Tag,
};
use engine::Client;

fn tag(k: &str, v: &str) -> Tag {
    Tag::builder().key(k).value(v).build().unwrap()
}

fn arn(c: &Client, table: &str) -> String {
    c.describe_table()
        .table_name(table)
        .send()
        .unwrap()
        .table
        .unwrap()
        .table_arn
        .unwrap()
}

/// Every tag of the table, following the pages as SDK code must.
fn listed(c: &Client, arn: &str) -> Vec<(String, String)> {
    let mut all = Vec::new();
    let mut token = None;
    loop {
        let page = c
            .list_tags_of_resource()
            .resource_arn(arn)
            .set_next_token(token)
            .send()
            .unwrap();
        all.extend(
            page.tags()
                .iter()
                .map(|t| (t.key().to_string(), t.value().to_string())),
        );
        token = page.next_token().map(str::to_string);
        if token.is_none() {
            return all;
        }
    }
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn tags_given_at_creation_are_listed_in_key_order_and_tag_resource_overwrites() {
    let w = engine::World::new(1);
    let c = w.client();
    c.create_table()
        .table_name("orders")
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .tags(tag("team", "checkout"))
        .tags(tag("env", "test"))
        .send()
        .unwrap();
    let arn = arn(&c, "orders");
    assert_eq!(
        listed(&c, &arn),
        pairs(&[("env", "test"), ("team", "checkout")])
    );
    c.tag_resource()
        .resource_arn(&arn)
        .tags(tag("env", "prod"))
        .tags(tag("cost-center", ""))
        .send()
        .unwrap();
    assert_eq!(
        listed(&c, &arn),
        pairs(&[("cost-center", ""), ("env", "prod"), ("team", "checkout")])
    );
    c.untag_resource()
        .resource_arn(&arn)
        .tag_keys("team")
        .tag_keys("never-there")
        .send()
        .unwrap();
    assert_eq!(
        listed(&c, &arn),
        pairs(&[("cost-center", ""), ("env", "prod")])
    );
}

#[test]
fn a_table_holds_at_most_fifty_tags() {
    let (_w, c) = app();
    let arn = arn(&c, "app");
    let mut req = c.tag_resource().resource_arn(&arn);
    for i in 0..50 {
        req = req.tags(tag(&format!("k{i:02}"), "v"));
    }
    req.send().unwrap();
    // Overwriting one is fine; a 51st is not, and nothing of the request is applied.
    c.tag_resource()
        .resource_arn(&arn)
        .tags(tag("k00", "w"))
        .send()
        .unwrap();
    let err = c
        .tag_resource()
        .resource_arn(&arn)
        .tags(tag("k01", "changed"))
        .tags(tag("k50", "v"))
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("LimitExceededException"));
    let tags = listed(&c, &arn);
    assert_eq!(tags.len(), 50);
    assert_eq!(tags[0], ("k00".to_string(), "w".to_string()));
    assert_eq!(tags[1], ("k01".to_string(), "v".to_string()));
}

#[test]
fn tag_keys_and_values_follow_the_tagging_rules() {
    let (_w, c) = app();
    let arn = arn(&c, "app");
    let try_tag =
        |k: &str, v: &str| message(c.tag_resource().resource_arn(&arn).tags(tag(k, v)).send());
    assert_eq!(
        try_tag("", "v"),
        "1 validation error detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
    let long_key = "k".repeat(129);
    assert_eq!(
        try_tag(&long_key, "v"),
        format!("1 validation error detected: Value '{long_key}' at 'tags.1.member.key' failed to satisfy constraint: Member must have length less than or equal to 128")
    );
    assert!(try_tag("k", &"v".repeat(257)).contains("at 'tags.1.member.value'"));
    assert!(try_tag("aws:owner", "me").contains("The aws: prefix is reserved"));
    assert!(try_tag("AWS:owner", "me").contains("The aws: prefix is reserved"));
    assert!(try_tag("bad*key", "v").contains("Tag key contains characters"));
    assert!(try_tag("k", "semi;colon").contains("Tag value contains characters"));
    // Unicode letters, numbers, spaces and the allowed punctuation pass.
    c.tag_resource()
        .resource_arn(&arn)
        .tags(tag("équipe 1", "a+b-c=d.e_f:g/h"))
        .send()
        .unwrap();
    assert!(message(
        c.untag_resource()
            .resource_arn(&arn)
            .tag_keys("aws:x")
            .send()
    )
    .contains("The aws: prefix is reserved"));
}

#[test]
fn the_arn_must_name_an_existing_table_of_this_region() {
    let (_w, c) = app();
    let good = arn(&c, "app");
    let list = |a: &str| {
        c.list_tags_of_resource()
            .resource_arn(a)
            .send()
            .unwrap_err()
    };
    let e = list("not-an-arn");
    assert_eq!(e.code(), Some("ValidationException"));
    assert_eq!(
        e.message(),
        Some("Invalid TableArn: Invalid ResourceArn provided as input not-an-arn")
    );
    let missing = good.replace("table/app", "table/nope");
    let e = list(&missing);
    assert_eq!(e.code(), Some("ResourceNotFoundException"));
    assert_eq!(
        e.message().unwrap(),
        format!("Requested resource not found: ResourcArn: {missing} not found")
    );
    let elsewhere = good.replacen("local-1", "eu-west-1", 1);
    assert_eq!(list(&elsewhere).code(), Some("ResourceNotFoundException"));
    assert_eq!(
        message(c.tag_resource().resource_arn(&good).send()),
        "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null"
    );
}

#[test]
fn a_deleted_table_takes_its_tags_with_it() {
    let (w, c) = app();
    let arn = arn(&c, "app");
    c.tag_resource()
        .resource_arn(&arn)
        .tags(tag("a", "1"))
        .send()
        .unwrap();
    c.delete_table().table_name("app").send().unwrap();
    w.advance(std::time::Duration::from_secs(60));
    create_app(&c);
    assert!(listed(&c, &arn).is_empty());
}

#[test]
fn list_tags_of_resource_pages_with_next_token() {
    let (_w, c) = app();
    let arn = arn(&c, "app");
    let mut req = c.tag_resource().resource_arn(&arn);
    for i in 0..25 {
        req = req.tags(tag(&format!("k{i:02}"), "v"));
    }
    req.send().unwrap();
    let first = c.list_tags_of_resource().resource_arn(&arn).send().unwrap();
    assert_eq!(first.tags().len(), 10);
    assert_eq!(first.next_token(), Some("k09"));
    let second = c
        .list_tags_of_resource()
        .resource_arn(&arn)
        .next_token("k09")
        .send()
        .unwrap();
    assert_eq!(second.tags()[0].key(), "k10");
    let all = listed(&c, &arn);
    assert_eq!(all.len(), 25);
    assert_eq!(all.last().map(|(k, _)| k.as_str()), Some("k24"));
    let last = c
        .list_tags_of_resource()
        .resource_arn(&arn)
        .next_token("k19")
        .send()
        .unwrap();
    assert_eq!((last.tags().len(), last.next_token()), (5, None));
}
