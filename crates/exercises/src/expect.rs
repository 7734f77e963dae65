//! What the exercise tests compare with (book introduction, "Exercises"; the project's
//! own): [`assert_yours!`](crate::assert_yours), an `assert_eq!` that says which side is
//! what your code did and which is what was expected, as the "Build it" tests'
//! [`assert_same_run`](crate::build::assert_same_run) does, instead of `left` and `right`.

use std::fmt::{self, Debug};

/// Fail unless `yours` (what your code did) equals `expected`, saying which is which; an
/// optional message, as `assert_eq!`'s, says what was compared.
///
/// ```should_panic
/// exercises::assert_yours!(vec!["chunk 0", "chunk 1"], ["chunk 0", "timer"], "what ran");
/// // panics with:
/// // what ran
/// //   expected: ["chunk 0", "timer"]
/// //      yours: ["chunk 0", "chunk 1"]
/// ```
#[macro_export]
macro_rules! assert_yours {
    ($yours:expr, $expected:expr $(,)?) => {
        match (&$yours, &$expected) {
            (yours, expected) => {
                if !(*yours == *expected) {
                    $crate::expect::differ(yours, expected, ::core::option::Option::None);
                }
            }
        }
    };
    ($yours:expr, $expected:expr, $($what:tt)+) => {
        match (&$yours, &$expected) {
            (yours, expected) => {
                if !(*yours == *expected) {
                    let what = ::core::format_args!($($what)+);
                    $crate::expect::differ(yours, expected, ::core::option::Option::Some(what));
                }
            }
        }
    };
}

/// The failure of [`assert_yours!`](crate::assert_yours): what was compared (or that your
/// result is not the one expected), then the expected value and yours, one line each.
#[track_caller]
pub fn differ<Y, E>(yours: &Y, expected: &E, what: Option<fmt::Arguments<'_>>) -> !
where
    Y: Debug + ?Sized,
    E: Debug + ?Sized,
{
    match what {
        Some(what) => panic!("{}", told(&what.to_string(), yours, expected)),
        None => panic!(
            "{}",
            told("your result is not the one expected", yours, expected)
        ),
    }
}

/// The text of a failure: `what`, then the two values, labelled.
fn told<Y: Debug + ?Sized, E: Debug + ?Sized>(what: &str, yours: &Y, expected: &E) -> String {
    format!("{what}\n  expected: {expected:?}\n     yours: {yours:?}")
}

#[cfg(test)]
mod tests {
    use std::panic::{self, AssertUnwindSafe};

    /// The panic message of `f`, which must panic.
    fn message(f: impl FnOnce()) -> String {
        let payload = panic::catch_unwind(AssertUnwindSafe(f)).expect_err("it panics");
        match payload.downcast::<String>() {
            Ok(text) => *text,
            Err(_) => "not a String".to_owned(),
        }
    }

    #[test]
    fn a_difference_says_which_side_is_yours_and_which_is_expected() {
        let told = message(|| crate::assert_yours!(vec![1, 3], [1, 2], "ticks at {}", "1.000"));
        assert_eq!(
            told,
            "ticks at 1.000\n  expected: [1, 2]\n     yours: [1, 3]"
        );
        let told = message(|| crate::assert_yours!(Some(2), None::<i32>));
        assert_eq!(
            told,
            "your result is not the one expected\n  expected: None\n     yours: Some(2)"
        );
        crate::assert_yours!(String::from("same"), "same");
    }
}
