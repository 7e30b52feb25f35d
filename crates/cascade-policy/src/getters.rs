//! Read access to a validated configuration. A config's fields are private to this crate, so a
//! config outside it comes only from its validating constructor (`from_table`, the presets,
//! `Default`), never from a struct literal or a changed field: no invalid policy can be built.
//!
//! `config!` declares a config struct with fields private to the crate, or public with the
//! `edit` feature: the one exception, for a tool that restricts a validated config to what
//! another format can say (cascade's `export`) and answers for what it writes. A service
//! leaves `edit` off.
//!
//! `getters!` writes one documented getter per field, in one `impl` block: by value for a
//! `Copy` field (`name: T,`), by reference (`name: &T,`), or `Option<&T>` for an optional
//! compound (`name: Option<&T>,`). Every entry ends with a comma.
//!
//! The wall, checked: without `edit`, a config cannot be written by hand, nor changed.
#![cfg_attr(
    not(feature = "edit"),
    doc = r#"
```compile_fail,E0451
use cascade_policy::throttle::ThrottleConfig;
// The throttle's k must be positive; a literal could say anything.
let _ = ThrottleConfig { k: -1.0, window: cascade_policy::Nanos::from_secs(120) };
```

```compile_fail,E0616
use cascade_policy::table::{PolicyConfig, RawPolicy};
let mut policy = PolicyConfig::new(&RawPolicy::default()).unwrap();
policy.reserve = cascade_policy::Nanos::MAX;
```
"#
)]

macro_rules! config {
    ($(#[$meta:meta])* pub struct $name:ident $(<$g:ident = $d:ty>)? {
        $($field:ident: $ty:ty,)*
    }) => {
        #[cfg(not(feature = "edit"))]
        $(#[$meta])*
        pub struct $name $(<$g = $d>)? {
            $(pub(crate) $field: $ty,)*
        }
        #[cfg(feature = "edit")]
        $(#[$meta])*
        pub struct $name $(<$g = $d>)? {
            $(pub $field: $ty,)*
        }
    };
}

macro_rules! getters {
    ($ty:ty { $($body:tt)* }) => {
        getters!(@munch $ty [] $($body)*);
    };
    (@munch $ty:ty [$($done:tt)*]) => {
        impl $ty {
            $($done)*
        }
    };
    (@munch $ty:ty [$($done:tt)*]
        $(#[$doc:meta])* $field:ident: &$ret:ty, $($rest:tt)*) => {
        getters!(@munch $ty [$($done)*
            $(#[$doc])*
            pub fn $field(&self) -> &$ret {
                &self.$field
            }
        ] $($rest)*);
    };
    (@munch $ty:ty [$($done:tt)*]
        $(#[$doc:meta])* $field:ident: Option<&$ret:ty>, $($rest:tt)*) => {
        getters!(@munch $ty [$($done)*
            $(#[$doc])*
            pub fn $field(&self) -> Option<&$ret> {
                self.$field.as_ref()
            }
        ] $($rest)*);
    };
    (@munch $ty:ty [$($done:tt)*]
        $(#[$doc:meta])* $field:ident: $ret:ty, $($rest:tt)*) => {
        getters!(@munch $ty [$($done)*
            $(#[$doc])*
            pub fn $field(&self) -> $ret {
                self.$field
            }
        ] $($rest)*);
    };
}
