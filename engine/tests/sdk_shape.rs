//! The API as code written for `aws-sdk-dynamodb` uses it: builders that fail where the SDK's
//! do, `HashMap`s accepted wherever an item goes in, paginators that follow every page, and a
//! fluent builder whose `{:?}` is its request.

mod common;

use engine::error::ProvideErrorMetadata;
use std::collections::HashMap;

use common::{app, put, s};
use engine::operation::query::paginator::QueryPaginator;
use engine::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, KeysAndAttributes,
    Projection, PutRequest, ScalarAttributeType, WriteRequest,
};
use engine::{item, Item};

fn order(i: usize) -> Item {
    item! { "PK" => "C#1", "SK" => format!("O#{i:03}"), "n" => i as i64 }
}

#[test]
fn a_builder_without_a_required_field_fails_to_build_naming_it() {
    let err = KeySchemaElement::builder()
        .attribute_name("PK")
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "key_type was not specified but it is required when building KeySchemaElement"
    );
    let ok = KeySchemaElement::builder()
        .attribute_name("PK")
        .key_type(KeyType::Hash)
        .build()
        .unwrap();
    assert_eq!(ok, KeySchemaElement::new("PK", KeyType::Hash));
    // The SDK's Projection builder is infallible: every field is optional.
    assert_eq!(Projection::builder().build().projection_type(), None);
}

#[test]
fn an_sdk_hashmap_goes_in_wherever_an_item_does() {
    let (_world, client) = app();
    let mut item = HashMap::new();
    item.insert("PK".to_string(), s("C#1"));
    item.insert("SK".to_string(), s("PROFILE"));
    client
        .put_item()
        .table_name("app")
        .set_item(Some(item.clone()))
        .send()
        .unwrap();
    let mut key = HashMap::new();
    key.insert("PK".to_string(), s("C#1"));
    key.insert("SK".to_string(), s("PROFILE"));
    let got = client
        .get_item()
        .table_name("app")
        .set_key(Some(key.clone()))
        .consistent_read(true)
        .send()
        .unwrap();
    assert_eq!(got.item().unwrap().get("SK"), Some(&s("PROFILE")));
    let batch = client
        .batch_get_item()
        .request_items(
            "app",
            KeysAndAttributes::builder()
                .set_keys(Some(vec![key.clone()]))
                .build()
                .unwrap(),
        )
        .send()
        .unwrap();
    assert_eq!(batch.responses().unwrap()["app"].len(), 1);
    let write = WriteRequest::builder()
        .set_put_request(Some(
            PutRequest::builder().set_item(Some(item)).build().unwrap(),
        ))
        .build();
    assert!(write.put_request.is_some());
}

#[test]
fn a_query_paginator_follows_every_page_and_yields_items_in_order() {
    let (_world, client) = app();
    for i in 0..25 {
        put(&client, order(i));
    }
    let query = client
        .query()
        .table_name("app")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("C#1"));
    let pages: QueryPaginator = query.clone().into_paginator().page_size(10);
    let pages: Vec<_> = pages.send().collect::<Result<_, _>>().unwrap();
    let sizes: Vec<usize> = pages.iter().map(|p| p.items().len()).collect();
    // Two full pages carry a LastEvaluatedKey; the short third page ends the stream.
    assert_eq!(sizes, vec![10, 10, 5]);
    let items: Vec<Item> = query
        .into_paginator()
        .page_size(7)
        .items()
        .send()
        .collect::<Result<_, _>>()
        .unwrap();
    let ns: Vec<AttributeValue> = items.iter().map(|i| i["n"].clone()).collect();
    let expected: Vec<AttributeValue> = (0..25).map(|i| AttributeValue::N(i.to_string())).collect();
    assert_eq!(ns, expected);
}

#[test]
fn a_failed_page_is_yielded_as_an_error_and_ends_the_stream() {
    let (_world, client) = app();
    let mut pages = client
        .scan()
        .table_name("no-such-table")
        .into_paginator()
        .send();
    let first = pages.next().unwrap().unwrap_err();
    assert_eq!(first.code(), Some("ResourceNotFoundException"));
    assert!(pages.next().is_none());
}

#[test]
fn a_list_tables_paginator_yields_every_name() {
    let (_world, client) = app();
    for t in ["t-a", "t-b", "t-c"] {
        client
            .create_table()
            .table_name(t)
            .attribute_definitions(AttributeDefinition::new("id", ScalarAttributeType::S))
            .key_schema(KeySchemaElement::new("id", KeyType::Hash))
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .unwrap();
    }
    let names: Vec<String> = client
        .list_tables()
        .into_paginator()
        .page_size(2)
        .items()
        .send()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(names, vec!["app", "t-a", "t-b", "t-c"]);
}

#[test]
fn a_fluent_builder_prints_its_request_not_the_world() {
    let (_world, client) = app();
    for i in 0..50 {
        put(&client, order(i));
    }
    let request = client
        .put_item()
        .table_name("app")
        .condition_expression("attribute_not_exists(PK)");
    let printed = format!("{request:?}");
    assert!(printed.contains("attribute_not_exists(PK)"), "{printed}");
    assert!(
        printed.len() < 600,
        "{} characters: {printed}",
        printed.len()
    );
}

// ---- errors in the SDK's layers --------------------------------------------------------

#[test]
fn a_failed_condition_is_the_operations_modeled_exception_with_the_current_item() {
    use engine::operation::put_item::PutItemError;
    use engine::types::ReturnValuesOnConditionCheckFailure;
    let (_w, c) = app();
    put(&c, item! { "PK" => "U", "SK" => "1", "name" => "Ana" });
    let err = c
        .put_item()
        .table_name("app")
        .set_item(Some(item! { "PK" => "U", "SK" => "1" }))
        .condition_expression("attribute_not_exists(PK)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .unwrap_err();
    assert_eq!(err.to_string(), "service error");
    assert_eq!(
        engine::error::DisplayErrorContext(&err).to_string(),
        "service error: ConditionalCheckFailedException: The conditional request failed"
    );
    assert_eq!(err.code(), Some("ConditionalCheckFailedException"));
    assert_eq!(err.raw_response().map(|r| r.status()), Some(400));
    assert!(err
        .as_service_error()
        .is_some_and(PutItemError::is_conditional_check_failed_exception));
    match err.into_service_error() {
        PutItemError::ConditionalCheckFailedException(e) => {
            assert_eq!(e.item().unwrap()["name"], s("Ana"));
            assert_eq!(e.message(), Some("The conditional request failed"));
        }
        other => panic!("expected ConditionalCheckFailedException, got {other:?}"),
    }
}

#[test]
fn a_validation_exception_is_unhandled_and_recognised_by_its_code() {
    use engine::operation::get_item::GetItemError;
    let (_w, c) = app();
    let err = c
        .get_item()
        .table_name("app")
        .key("nope", s("x"))
        .send()
        .unwrap_err();
    assert_eq!(err.code(), Some("ValidationException"));
    let service = err.into_service_error();
    assert!(matches!(service, GetItemError::Unhandled(_)), "{service:?}");
    assert!(service
        .to_string()
        .starts_with("unhandled error (ValidationException): "));
    // `?` into the service-wide error keeps the code and the message.
    let wide: engine::Error = service.into();
    assert!(matches!(wide, engine::Error::Unhandled(_)));
    assert_eq!(wide.code(), Some("ValidationException"));
    assert!(!wide.is_throttling());
}

#[test]
fn question_mark_turns_every_operations_error_into_the_service_wide_enum() {
    fn describe(c: &engine::Client, table: &str) -> Result<(), engine::Error> {
        c.describe_table().table_name(table).send()?;
        c.get_item()
            .table_name(table)
            .key("PK", s("a"))
            .key("SK", s("b"))
            .send()?;
        Ok(())
    }
    let (_w, c) = app();
    assert_eq!(describe(&c, "app"), Ok(()));
    let err = describe(&c, "nope").unwrap_err();
    assert!(
        matches!(err, engine::Error::ResourceNotFoundException(_)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "ResourceNotFoundException: Requested resource not found: Table: nope not found"
    );
}
