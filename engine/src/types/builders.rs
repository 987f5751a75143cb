//! # Builders of the shapes, as `aws_sdk_dynamodb::types::builders`
//!
//! Every shape a request carries is built the SDK's way: `KeySchemaElement::builder()`, one
//! setter per field (`attribute_name(..)`, `set_attribute_name(Option<..>)`,
//! `get_attribute_name()`), then `build()`. Where the SDK's `build()` is fallible — the shape
//! has required fields that are strings, lists, maps, enums or numbers — this one is too, and
//! returns the same [`BuildError`](crate::error::BuildError) for the first required field left unset. Where the SDK's
//! is infallible (every field optional, or the required ones are themselves shapes, like a
//! GSI's `projection`), `build()` returns the shape; what is still missing is DynamoDB's to
//! refuse, at `send()`, with the `ValidationException` it would send.
//!
//! One macro, `shape_builder!`, writes every builder, so the rule above lives once. Each
//! field is one of: `req` (required, a plain field on the shape), `opt` (an `Option` on the
//! shape), `req_list` (a required `Vec`, whose setter appends), `opt_list` (an
//! `Option<Vec<..>>`, whose setter appends) and `opt_map` (an `Option` of a map keyed by
//! name, whose setter inserts one entry and whose `set_` takes a `BTreeMap` or a `HashMap`).

/// Writes `$builder` for `$shape` and `$shape::builder()`. `fallible` builders return
/// `Result<$shape, BuildError>`, `infallible` ones the shape.
macro_rules! shape_builder {
    (
        $(#[$doc:meta])*
        $shape:ident => $builder:ident, $kind:ident {
            $( $fk:ident $field:ident / $set:ident / $get:ident : $fty:ty ),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $builder {
            $( $field: Option<$crate::types::builders::shape_builder!(@slot $fk $fty)>, )*
        }

        impl $shape {
            /// Starts a builder (`aws_sdk_dynamodb`'s `builder()`).
            pub fn builder() -> $builder {
                $builder::default()
            }
        }

        impl $builder {
            $( $crate::types::builders::shape_builder!(@setters $fk $field $set $get $fty); )*
            $crate::types::builders::shape_builder!(@build $kind $shape { $( $fk $field ),* });
        }
    };

    (@slot req $t:ty) => { $t };
    (@slot opt $t:ty) => { $t };
    (@slot req_list $t:ty) => { Vec<$t> };
    (@slot opt_list $t:ty) => { Vec<$t> };
    (@slot opt_map $t:ty) => { std::collections::HashMap<String, $t> };

    (@setters req $field:ident $set:ident $get:ident $t:ty) => {
        $crate::types::builders::shape_builder!(@scalar $field $set $get $t);
    };
    (@setters opt $field:ident $set:ident $get:ident $t:ty) => {
        $crate::types::builders::shape_builder!(@scalar $field $set $get $t);
    };
    (@setters req_list $field:ident $set:ident $get:ident $t:ty) => {
        $crate::types::builders::shape_builder!(@list $field $set $get $t);
    };
    (@setters opt_list $field:ident $set:ident $get:ident $t:ty) => {
        $crate::types::builders::shape_builder!(@list $field $set $get $t);
    };
    (@setters opt_map $field:ident $set:ident $get:ident $t:ty) => {
        /// Inserts one entry.
        pub fn $field(mut self, key: impl Into<String>, value: impl Into<$t>) -> Self {
            self.$field.get_or_insert_with(Default::default).insert(key.into(), value.into());
            self
        }
        /// Replaces the whole map (a `BTreeMap` or a `HashMap`).
        pub fn $set(mut self, input: Option<impl $crate::value::MapInput<$t>>) -> Self {
            self.$field = input.map($crate::value::MapInput::into_map);
            self
        }
        /// The map as set so far.
        pub fn $get(&self) -> &Option<std::collections::HashMap<String, $t>> {
            &self.$field
        }
    };
    (@scalar $field:ident $set:ident $get:ident $t:ty) => {
        pub fn $field(mut self, input: impl Into<$t>) -> Self {
            self.$field = Some(input.into());
            self
        }
        pub fn $set(mut self, input: Option<$t>) -> Self {
            self.$field = input;
            self
        }
        pub fn $get(&self) -> &Option<$t> {
            &self.$field
        }
    };
    (@list $field:ident $set:ident $get:ident $t:ty) => {
        /// Appends one element.
        pub fn $field(mut self, input: impl Into<$t>) -> Self {
            self.$field.get_or_insert_with(Vec::new).push(input.into());
            self
        }
        /// Replaces the whole list.
        pub fn $set(mut self, input: Option<Vec<$t>>) -> Self {
            self.$field = input;
            self
        }
        pub fn $get(&self) -> &Option<Vec<$t>> {
            &self.$field
        }
    };

    (@build fallible $shape:ident { $( $fk:ident $field:ident ),* }) => {
        /// Consumes the builder. Fails, as the SDK's does, if a required field is not set.
        pub fn build(self) -> std::result::Result<$shape, $crate::error::BuildError> {
            Ok($shape {
                $( $field: $crate::types::builders::shape_builder!(@take $fk self.$field, $field, $shape), )*
            })
        }
    };
    (@build infallible $shape:ident { $( $fk:ident $field:ident ),* }) => {
        /// Consumes the builder (the SDK's is infallible for this shape too).
        pub fn build(self) -> $shape {
            $shape {
                $( $field: $crate::types::builders::shape_builder!(@take $fk self.$field, $field, $shape), )*
            }
        }
    };

    (@take req $value:expr, $field:ident, $shape:ident) => {
        $value.ok_or_else(|| {
            $crate::error::BuildError::missing_field(stringify!($field), stringify!($shape))
        })?
    };
    (@take req_list $value:expr, $field:ident, $shape:ident) => {
        $value.ok_or_else(|| {
            $crate::error::BuildError::missing_field(stringify!($field), stringify!($shape))
        })?
    };
    (@take opt $value:expr, $field:ident, $shape:ident) => { $value };
    (@take opt_list $value:expr, $field:ident, $shape:ident) => { $value };
    (@take opt_map $value:expr, $field:ident, $shape:ident) => { $value };
}

pub(crate) use shape_builder;

use super::{
    AttributeDefinition, CreateGlobalSecondaryIndexAction, CreateReplicationGroupMemberAction,
    DeleteGlobalSecondaryIndexAction, DeleteReplicationGroupMemberAction, GlobalSecondaryIndex,
    GlobalSecondaryIndexUpdate, KeySchemaElement, KeyType, LocalSecondaryIndex, Projection,
    ProjectionType, ProvisionedThroughput, ReplicationGroupUpdate, ScalarAttributeType,
    StreamSpecification, StreamViewType, TimeToLiveSpecification, UpdateGlobalSecondaryIndexAction,
};

shape_builder! {
    /// Builds an [`AttributeDefinition`]; both fields are required.
    AttributeDefinition => AttributeDefinitionBuilder, fallible {
        req attribute_name / set_attribute_name / get_attribute_name: String,
        req attribute_type / set_attribute_type / get_attribute_type: ScalarAttributeType,
    }
}

shape_builder! {
    /// Builds a [`KeySchemaElement`]; both fields are required.
    KeySchemaElement => KeySchemaElementBuilder, fallible {
        req attribute_name / set_attribute_name / get_attribute_name: String,
        req key_type / set_key_type / get_key_type: KeyType,
    }
}

shape_builder! {
    /// Builds a [`ProvisionedThroughput`]; both figures are required.
    ProvisionedThroughput => ProvisionedThroughputBuilder, fallible {
        req read_capacity_units / set_read_capacity_units / get_read_capacity_units: i64,
        req write_capacity_units / set_write_capacity_units / get_write_capacity_units: i64,
    }
}

shape_builder! {
    /// Builds a [`Projection`]; nothing is required here (an index without a projection
    /// type is DynamoDB's to refuse).
    Projection => ProjectionBuilder, infallible {
        opt projection_type / set_projection_type / get_projection_type: ProjectionType,
        opt_list non_key_attributes / set_non_key_attributes / get_non_key_attributes: String,
    }
}

shape_builder! {
    /// Builds a [`GlobalSecondaryIndex`]; the name and the key schema are required.
    GlobalSecondaryIndex => GlobalSecondaryIndexBuilder, fallible {
        req index_name / set_index_name / get_index_name: String,
        req_list key_schema / set_key_schema / get_key_schema: KeySchemaElement,
        opt projection / set_projection / get_projection: Projection,
        opt provisioned_throughput / set_provisioned_throughput / get_provisioned_throughput: ProvisionedThroughput,
    }
}

shape_builder! {
    /// Builds a [`LocalSecondaryIndex`]; the name and the key schema are required.
    LocalSecondaryIndex => LocalSecondaryIndexBuilder, fallible {
        req index_name / set_index_name / get_index_name: String,
        req_list key_schema / set_key_schema / get_key_schema: KeySchemaElement,
        opt projection / set_projection / get_projection: Projection,
    }
}

shape_builder! {
    /// Builds a [`StreamSpecification`]; `stream_enabled` is required.
    StreamSpecification => StreamSpecificationBuilder, fallible {
        req stream_enabled / set_stream_enabled / get_stream_enabled: bool,
        opt stream_view_type / set_stream_view_type / get_stream_view_type: StreamViewType,
    }
}

shape_builder! {
    /// Builds a [`TimeToLiveSpecification`]; both fields are required.
    TimeToLiveSpecification => TimeToLiveSpecificationBuilder, fallible {
        req enabled / set_enabled / get_enabled: bool,
        req attribute_name / set_attribute_name / get_attribute_name: String,
    }
}

shape_builder! {
    /// Builds a [`GlobalSecondaryIndexUpdate`]: set exactly one of the three actions (the SDK's
    /// `build()` is infallible; DynamoDB refuses none or several).
    GlobalSecondaryIndexUpdate => GlobalSecondaryIndexUpdateBuilder, infallible {
        opt update / set_update / get_update: UpdateGlobalSecondaryIndexAction,
        opt create / set_create / get_create: CreateGlobalSecondaryIndexAction,
        opt delete / set_delete / get_delete: DeleteGlobalSecondaryIndexAction,
    }
}

shape_builder! {
    /// Builds a [`CreateGlobalSecondaryIndexAction`]; the name and the key schema are required.
    CreateGlobalSecondaryIndexAction => CreateGlobalSecondaryIndexActionBuilder, fallible {
        req index_name / set_index_name / get_index_name: String,
        req_list key_schema / set_key_schema / get_key_schema: KeySchemaElement,
        opt projection / set_projection / get_projection: Projection,
        opt provisioned_throughput / set_provisioned_throughput / get_provisioned_throughput: ProvisionedThroughput,
    }
}

shape_builder! {
    /// Builds a [`DeleteGlobalSecondaryIndexAction`]; the name is required.
    DeleteGlobalSecondaryIndexAction => DeleteGlobalSecondaryIndexActionBuilder, fallible {
        req index_name / set_index_name / get_index_name: String,
    }
}

shape_builder! {
    /// Builds an [`UpdateGlobalSecondaryIndexAction`]; the name is required.
    UpdateGlobalSecondaryIndexAction => UpdateGlobalSecondaryIndexActionBuilder, fallible {
        req index_name / set_index_name / get_index_name: String,
        opt provisioned_throughput / set_provisioned_throughput / get_provisioned_throughput: ProvisionedThroughput,
    }
}

shape_builder! {
    /// Builds a [`ReplicationGroupUpdate`]: set `create` or `delete` (the SDK's `build()` is
    /// infallible; DynamoDB refuses none or both). The SDK's `update` action is not modelled.
    ReplicationGroupUpdate => ReplicationGroupUpdateBuilder, infallible {
        opt create / set_create / get_create: CreateReplicationGroupMemberAction,
        opt delete / set_delete / get_delete: DeleteReplicationGroupMemberAction,
    }
}

shape_builder! {
    /// Builds a [`CreateReplicationGroupMemberAction`]; the Region is required. (The SDK's
    /// KMS key, capacity override and table class are not modelled.)
    CreateReplicationGroupMemberAction => CreateReplicationGroupMemberActionBuilder, fallible {
        req region_name / set_region_name / get_region_name: String,
    }
}

shape_builder! {
    /// Builds a [`DeleteReplicationGroupMemberAction`]; the Region is required.
    DeleteReplicationGroupMemberAction => DeleteReplicationGroupMemberActionBuilder, fallible {
        req region_name / set_region_name / get_region_name: String,
    }
}

// The builders of the shapes a transaction or a batch carries, at the SDK's paths
// (`types::builders::PutBuilder`, …); they are written next to their shapes, by
// `ops::builder::struct_setters!`.
pub use super::legacy::{
    AttributeValueUpdateBuilder, ConditionBuilder, ExpectedAttributeValueBuilder,
};
pub use super::settings::{PointInTimeRecoverySpecificationBuilder, SseSpecificationBuilder};
pub use crate::ops::batch_execute_statement::{
    BatchStatementErrorBuilder, BatchStatementRequestBuilder, BatchStatementResponseBuilder,
};
pub use crate::ops::batch_get_item::KeysAndAttributesBuilder;
pub use crate::ops::batch_write_item::{
    DeleteRequestBuilder, PutRequestBuilder, WriteRequestBuilder,
};
pub use crate::ops::execute_transaction::ParameterizedStatementBuilder;
pub use crate::ops::tags::TagBuilder;
pub use crate::ops::transact_get_items::{GetBuilder, TransactGetItemBuilder};
pub use crate::ops::transact_write_items::{
    ConditionCheckBuilder, DeleteBuilder, PutBuilder, TransactWriteItemBuilder, UpdateBuilder,
};
