//! What the engine's benches share.

use engine::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use engine::Client;

/// Creates the on-demand table `name` keyed by `PK`/`SK` (both S).
pub fn create_pk_sk_table(client: &Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(AttributeDefinition::new("PK", ScalarAttributeType::S))
        .attribute_definitions(AttributeDefinition::new("SK", ScalarAttributeType::S))
        .key_schema(KeySchemaElement::new("PK", KeyType::Hash))
        .key_schema(KeySchemaElement::new("SK", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .unwrap();
}
