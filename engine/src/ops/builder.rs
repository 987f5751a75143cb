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

/// Chainable setters on a plain request struct (the SDK's `X::builder()…build()` shape,
/// infallible here): `fn field(self, value) -> Self` for each listed field.
macro_rules! struct_setters {
    (@build $ty:ident []) => {
        /// Finishes building (the SDK's is infallible for this shape too). What is still
        /// missing is DynamoDB's to refuse, at `send()`.
        pub fn build(self) -> Self {
            self
        }
    };
    (@build $ty:ident [$($r:ident),+]) => {
        /// Finishes building. Fails, as the SDK's does, with a
        /// [`BuildError`](crate::error::BuildError) naming the first required field not set.
        pub fn build(self) -> std::result::Result<Self, $crate::error::BuildError> {
            $(
                if !$crate::ops::builder::IsSet::is_set(&self.$r) {
                    return Err($crate::error::BuildError::missing_field(
                        stringify!($r),
                        stringify!($ty),
                    ));
                }
            )+
            Ok(self)
        }
    };
    ($ty:ident $(required($($r:ident),+))? { $(string $s:ident / $sset:ident;)* $(value $v:ident / $vset:ident: $vt:ty;)* $(map $m:ident, $mset:ident;)* }) => {
        impl $ty {
            /// Starts building (the struct is its own builder).
            pub fn builder() -> Self {
                Self::default()
            }
            $crate::ops::builder::struct_setters!(@build $ty [$($($r),+)?]);
            $(
                pub fn $s(mut self, value: impl Into<String>) -> Self {
                    self.$s = Some(value.into());
                    self
                }
                pub fn $sset(mut self, value: Option<String>) -> Self {
                    self.$s = value;
                    self
                }
            )*
            $(
                pub fn $v(mut self, value: $vt) -> Self {
                    self.$v = Some(value);
                    self
                }
                pub fn $vset(mut self, value: Option<$vt>) -> Self {
                    self.$v = value;
                    self
                }
            )*
            $(
                pub fn $m(mut self, key: impl Into<String>, value: $crate::value::AttributeValue) -> Self {
                    self.$m.get_or_insert_with(Default::default).insert(key.into(), value);
                    self
                }
                /// Replaces the whole map (an `Item` or a `HashMap<String, AttributeValue>`).
                pub fn $mset(
                    mut self,
                    value: Option<impl $crate::value::MapInput<$crate::value::AttributeValue>>,
                ) -> Self {
                    self.$m = value.map($crate::value::MapInput::into_map);
                    self
                }
            )*
        }
    };
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

/// `expression_attribute_names` / `_values` setters on a plain request struct.
macro_rules! struct_placeholder_setters {
    ($ty:ident) => {
        impl $ty {
            pub fn expression_attribute_names(
                mut self,
                key: impl Into<String>,
                value: impl Into<String>,
            ) -> Self {
                self.expression_attribute_names
                    .get_or_insert_with(Default::default)
                    .insert(key.into(), value.into());
                self
            }
            pub fn expression_attribute_values(
                mut self,
                key: impl Into<String>,
                value: $crate::value::AttributeValue,
            ) -> Self {
                self.expression_attribute_values
                    .get_or_insert_with(Default::default)
                    .insert(key.into(), value);
                self
            }
        }
    };
}

pub(crate) use {
    item_setters, placeholder_setters, string_setter, struct_placeholder_setters, struct_setters,
    value_setter,
};
