//! Setter macros shared by the fluent builders (each builder holds `client` and `input`).

/// `fn name(self, impl Into<String>)`, `fn set_name(self, Option<String>)` and
/// `fn get_name(&self) -> &Option<String>` for `input.name` (the SDK's three).
macro_rules! string_setter {
    ($(#[$m:meta])* $name:ident, $set:ident, $get:ident) => {
        $(#[$m])*
        pub fn $name(mut self, value: impl Into<String>) -> Self {
            self.input.$name = Some(value.into());
            self
        }
        $(#[$m])*
        pub fn $set(mut self, value: Option<String>) -> Self {
            self.input.$name = value;
            self
        }
        $(#[$m])*
        pub fn $get(&self) -> &Option<String> {
            &self.input.$name
        }
    };
}

/// `fn name(self, T)`, `fn set_name(self, Option<T>)` and `fn get_name(&self)` for
/// `input.name`.
macro_rules! value_setter {
    ($(#[$m:meta])* $name:ident, $set:ident, $get:ident: $t:ty) => {
        $(#[$m])*
        pub fn $name(mut self, value: $t) -> Self {
            self.input.$name = Some(value);
            self
        }
        $(#[$m])*
        pub fn $set(mut self, value: Option<$t>) -> Self {
            self.input.$name = value;
            self
        }
        $(#[$m])*
        pub fn $get(&self) -> &Option<$t> {
            &self.input.$name
        }
    };
}

/// `fn name(self, key, AttributeValue)` adding to the map `input.field`,
/// `fn set_name(self, Option<map>)` replacing it (an [`Item`](crate::Item) or an SDK-style
/// `HashMap`) and `fn get_name(&self)`.
macro_rules! item_setters {
    ($(#[$m:meta])* $name:ident, $set:ident, $get:ident, $field:ident) => {
        $(#[$m])*
        pub fn $name(mut self, key: impl Into<String>, value: $crate::value::AttributeValue) -> Self {
            self.input.$field.get_or_insert_with(Default::default).insert(key.into(), value);
            self
        }
        /// Replaces the whole map (an `Item` or a `HashMap<String, AttributeValue>`).
        pub fn $set(
            mut self,
            value: Option<impl $crate::value::MapInput<$crate::value::AttributeValue>>,
        ) -> Self {
            self.input.$field = value.map($crate::value::MapInput::into_map);
            self
        }
        /// The map as set so far.
        pub fn $get(&self) -> &Option<$crate::value::Item> {
            &self.input.$field
        }
    };
}

/// `expression_attribute_names` / `expression_attribute_values` and their `set_` and `get_`
/// forms.
macro_rules! placeholder_setters {
    () => {
        /// Adds a `#name` placeholder for an attribute name.
        pub fn expression_attribute_names(
            mut self,
            key: impl Into<String>,
            value: impl Into<String>,
        ) -> Self {
            self.input
                .expression_attribute_names
                .get_or_insert_with(Default::default)
                .insert(key.into(), value.into());
            self
        }
        /// Replaces all `#name` placeholders (a `BTreeMap` or a `HashMap`).
        pub fn set_expression_attribute_names(
            mut self,
            value: Option<impl $crate::value::MapInput<String>>,
        ) -> Self {
            self.input.expression_attribute_names = value.map($crate::value::MapInput::into_map);
            self
        }
        /// The `#name` placeholders set so far.
        pub fn get_expression_attribute_names(
            &self,
        ) -> &Option<std::collections::HashMap<String, String>> {
            &self.input.expression_attribute_names
        }
        /// Adds a `:value` placeholder.
        pub fn expression_attribute_values(
            mut self,
            key: impl Into<String>,
            value: $crate::value::AttributeValue,
        ) -> Self {
            self.input
                .expression_attribute_values
                .get_or_insert_with(Default::default)
                .insert(key.into(), value);
            self
        }
        /// Replaces all `:value` placeholders (a `BTreeMap` or a `HashMap`).
        pub fn set_expression_attribute_values(
            mut self,
            value: Option<impl $crate::value::MapInput<$crate::value::AttributeValue>>,
        ) -> Self {
            self.input.expression_attribute_values = value.map($crate::value::MapInput::into_map);
            self
        }
        /// The `:value` placeholders set so far.
        pub fn get_expression_attribute_values(
            &self,
        ) -> &Option<std::collections::HashMap<String, $crate::value::AttributeValue>> {
            &self.input.expression_attribute_values
        }
    };
}

/// A shape carried inside a request (a transaction's `Put`, a batch's `WriteRequest`, …), as
/// the SDK has it: `X::builder()` returns an `XBuilder` with one setter per field
/// (`field(..)`, `set_field(Option<..>)`, `get_field()`), and `build()` returns the shape —
/// fallibly, with the SDK's [`BuildError`](crate::error::BuildError) for the first required
/// field left unset, where the SDK's is fallible. The shape itself has the SDK's accessors:
/// `put.table_name()` is a `&str` (a required field), `put.condition_expression()` an
/// `Option<&str>`, `put.item()` a `&HashMap` (empty if unset, as the SDK's default).
///
/// Each field line reads `req|opt string|map|value name / set_name / get_name [: Type];`.
macro_rules! struct_setters {
    (@build fallible $ty:ident $builder:ident [$($req:ident $f:ident),*]) => {
        /// Finishes building. Fails, as the SDK's does, with a
        /// [`BuildError`](crate::error::BuildError) naming the first required field not set.
        pub fn build(self) -> std::result::Result<$ty, $crate::error::BuildError> {
            $( $crate::ops::builder::struct_setters!(@check $req $f $ty self); )*
            Ok(self.inner)
        }
    };
    (@build infallible $ty:ident $builder:ident [$($req:ident $f:ident),*]) => {
        /// Finishes building (the SDK's is infallible for this shape too). What is still
        /// missing is DynamoDB's to refuse, at `send()`.
        pub fn build(self) -> $ty {
            self.inner
        }
    };
    // `build()` written by hand next to the invocation (a required list, for one).
    (@build manual $ty:ident $builder:ident [$($req:ident $f:ident),*]) => {};
    (@check req $f:ident $ty:ident $self:ident) => {
        if !$crate::ops::builder::IsSet::is_set(&$self.inner.$f) {
            return Err($crate::error::BuildError::missing_field(stringify!($f), stringify!($ty)));
        }
    };
    (@check opt $f:ident $ty:ident $self:ident) => {};

    (@setters string $f:ident $set:ident $get:ident) => {
        pub fn $f(mut self, value: impl Into<String>) -> Self {
            self.inner.$f = Some(value.into());
            self
        }
        pub fn $set(mut self, value: Option<String>) -> Self {
            self.inner.$f = value;
            self
        }
        pub fn $get(&self) -> &Option<String> {
            &self.inner.$f
        }
    };
    (@setters value $f:ident $set:ident $get:ident $t:ty) => {
        pub fn $f(mut self, value: $t) -> Self {
            self.inner.$f = Some(value);
            self
        }
        pub fn $set(mut self, value: Option<$t>) -> Self {
            self.inner.$f = value;
            self
        }
        pub fn $get(&self) -> &Option<$t> {
            &self.inner.$f
        }
    };
    (@setters map $f:ident $set:ident $get:ident) => {
        /// Adds one attribute.
        pub fn $f(mut self, key: impl Into<String>, value: $crate::value::AttributeValue) -> Self {
            self.inner.$f.get_or_insert_with(Default::default).insert(key.into(), value);
            self
        }
        /// Replaces the whole map (the SDK's `HashMap`, or a `BTreeMap`).
        pub fn $set(
            mut self,
            value: Option<impl $crate::value::MapInput<$crate::value::AttributeValue>>,
        ) -> Self {
            self.inner.$f = value.map($crate::value::MapInput::into_map);
            self
        }
        pub fn $get(&self) -> &Option<$crate::value::Item> {
            &self.inner.$f
        }
    };

    (@accessor req string $f:ident) => {
        pub fn $f(&self) -> &str {
            self.$f.as_deref().unwrap_or_default()
        }
    };
    (@accessor opt string $f:ident) => {
        pub fn $f(&self) -> Option<&str> {
            self.$f.as_deref()
        }
    };
    (@accessor req map $f:ident) => {
        pub fn $f(&self) -> &$crate::value::Item {
            self.$f.as_ref().unwrap_or_else(|| $crate::ops::builder::empty_item())
        }
    };
    (@accessor opt map $f:ident) => {
        pub fn $f(&self) -> Option<&$crate::value::Item> {
            self.$f.as_ref()
        }
    };
    (@accessor $req:ident value $f:ident $t:ty) => {
        pub fn $f(&self) -> Option<&$t> {
            self.$f.as_ref()
        }
    };

    ($ty:ident => $builder:ident, $kind:ident {
        $( $req:ident $fk:ident $f:ident / $set:ident / $get:ident $(: $t:ty)? ; )*
    }) => {
        #[doc = concat!("Builds a [`", stringify!($ty), "`] (`", stringify!($ty), "::builder()`).")]
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $builder {
            inner: $ty,
        }

        impl $ty {
            /// Starts a builder (`aws_sdk_dynamodb`'s `builder()`).
            pub fn builder() -> $builder {
                $builder::default()
            }
            $( $crate::ops::builder::struct_setters!(@accessor $req $fk $f $($t)?); )*
        }

        impl $builder {
            $( $crate::ops::builder::struct_setters!(@setters $fk $f $set $get $($t)?); )*
            $crate::ops::builder::struct_setters!(@build $kind $ty $builder [$($req $f),*]);
        }
    };
}

/// The empty item a required map accessor returns when the map was never set (the SDK's
/// default for a required map is empty too).
pub(crate) fn empty_item() -> &'static crate::value::Item {
    static EMPTY: std::sync::LazyLock<crate::value::Item> =
        std::sync::LazyLock::new(crate::value::Item::new);
    &EMPTY
}

/// Whether a required field of a shape was set: an `Option` that is `Some`, a list that is
/// not empty.
pub(crate) trait IsSet {
    fn is_set(&self) -> bool;
}

impl<T> IsSet for Option<T> {
    fn is_set(&self) -> bool {
        self.is_some()
    }
}

impl<T> IsSet for Vec<T> {
    fn is_set(&self) -> bool {
        !self.is_empty()
    }
}

/// `expression_attribute_names` / `_values` setters on a shape's builder, and their
/// accessors on the shape.
macro_rules! struct_placeholder_setters {
    ($ty:ident => $builder:ident) => {
        impl $builder {
            /// Adds one `#name` placeholder.
            pub fn expression_attribute_names(
                mut self,
                key: impl Into<String>,
                value: impl Into<String>,
            ) -> Self {
                self.inner
                    .expression_attribute_names
                    .get_or_insert_with(Default::default)
                    .insert(key.into(), value.into());
                self
            }
            /// Replaces all `#name` placeholders (a `HashMap` or a `BTreeMap`).
            pub fn set_expression_attribute_names(
                mut self,
                names: Option<impl $crate::value::MapInput<String>>,
            ) -> Self {
                self.inner.expression_attribute_names =
                    names.map($crate::value::MapInput::into_map);
                self
            }
            pub fn get_expression_attribute_names(
                &self,
            ) -> &Option<std::collections::HashMap<String, String>> {
                &self.inner.expression_attribute_names
            }
            /// Adds one `:value` placeholder.
            pub fn expression_attribute_values(
                mut self,
                key: impl Into<String>,
                value: $crate::value::AttributeValue,
            ) -> Self {
                self.inner
                    .expression_attribute_values
                    .get_or_insert_with(Default::default)
                    .insert(key.into(), value);
                self
            }
            /// Replaces all `:value` placeholders (a `HashMap` or a `BTreeMap`).
            pub fn set_expression_attribute_values(
                mut self,
                values: Option<impl $crate::value::MapInput<$crate::value::AttributeValue>>,
            ) -> Self {
                self.inner.expression_attribute_values =
                    values.map($crate::value::MapInput::into_map);
                self
            }
            pub fn get_expression_attribute_values(&self) -> &Option<$crate::value::Item> {
                &self.inner.expression_attribute_values
            }
        }
        impl $ty {
            pub fn expression_attribute_names(
                &self,
            ) -> Option<&std::collections::HashMap<String, String>> {
                self.expression_attribute_names.as_ref()
            }
            pub fn expression_attribute_values(&self) -> Option<&$crate::value::Item> {
                self.expression_attribute_values.as_ref()
            }
        }
    };
}

/// `fn name(self, key, T)` inserting one entry into the map `input.name` (the SDK's form for
/// `expected`, `key_conditions`, `attribute_updates`…), `fn set_name(self, Option<HashMap>)`
/// and `fn get_name(&self)`.
macro_rules! map_setters {
    ($(#[$m:meta])* $name:ident, $set:ident, $get:ident: $t:ty) => {
        $(#[$m])*
        pub fn $name(mut self, key: impl Into<String>, value: $t) -> Self {
            self.input.$name.get_or_insert_with(Default::default).insert(key.into(), value);
            self
        }
        /// Replaces the whole map.
        pub fn $set(mut self, value: Option<std::collections::HashMap<String, $t>>) -> Self {
            self.input.$name = value;
            self
        }
        /// The map as set so far.
        pub fn $get(&self) -> &Option<std::collections::HashMap<String, $t>> {
            &self.input.$name
        }
    };
}

/// `fn name(self, impl Into<T>)` appending to the list `input.name` (the SDK's form for
/// `attributes_to_get`), `fn set_name(self, Option<Vec<T>>)` and `fn get_name(&self)`.
macro_rules! list_setters {
    ($(#[$m:meta])* $name:ident, $set:ident, $get:ident: $t:ty) => {
        $(#[$m])*
        pub fn $name(mut self, value: impl Into<$t>) -> Self {
            self.input.$name.get_or_insert_with(Vec::new).push(value.into());
            self
        }
        /// Replaces the whole list.
        pub fn $set(mut self, value: Option<Vec<$t>>) -> Self {
            self.input.$name = value;
            self
        }
        /// The list as set so far.
        pub fn $get(&self) -> &Option<Vec<$t>> {
            &self.input.$name
        }
    };
}

pub(crate) use {
    item_setters, list_setters, map_setters, placeholder_setters, string_setter,
    struct_placeholder_setters, struct_setters, value_setter,
};
