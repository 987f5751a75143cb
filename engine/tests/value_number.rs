//! DynamoDB numbers: parsing, canonical form, limits at the boundary, exact arithmetic, order.

use std::cmp::Ordering;

use engine::Number;

fn n(s: &str) -> Number {
    Number::parse(s).unwrap_or_else(|e| panic!("{s} should parse: {e}"))
}

fn parse_error(s: &str) -> String {
    match Number::parse(s) {
        Ok(v) => panic!("{s} should be refused, parsed as {v}"),
        Err(engine::error::Exception::Validation { message }) => message,
        Err(other) => panic!("{s}: expected a validation error, got {other:?}"),
    }
}

const DIGITS: &str = "Attempting to store more than 38 significant digits in a Number";
const OVERFLOW: &str =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
const UNDERFLOW: &str =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";

#[test]
fn canonical_form_has_no_exponent_and_no_superfluous_zeros() {
    for (input, canonical) in [
        ("+01.50", "1.5"),
        ("1e3", "1000"),
        ("1E+3", "1000"),
        ("-0", "0"),
        ("-0.000", "0"),
        ("0e999", "0"),
        (".5", "0.5"),
        ("5.", "5"),
        ("-12.500e3", "-12500"),
        ("123.456e-2", "1.23456"),
        ("1e-5", "0.00001"),
        ("000123000", "123000"),
        ("-7", "-7"),
        ("1.0", "1"),
        ("10", "10"),
    ] {
        assert_eq!(n(input).to_string(), canonical, "canonical form of {input}");
    }
}

#[test]
fn unparseable_text_is_refused_with_the_text_in_the_message() {
    for bad in [
        "abc", "1.2.3", "1e", "e5", ".", "-", "+", " 1", "1 ", "0x10", "NaN", "Infinity", "1e+",
        "--1", "1_000",
    ] {
        assert_eq!(
            parse_error(bad),
            format!("The parameter cannot be converted to a numeric value: {bad}")
        );
    }
    assert_eq!(
        parse_error(""),
        "The parameter cannot be converted to a numeric value"
    );
}

#[test]
fn thirty_eight_significant_digits_pass_and_thirty_nine_fail() {
    let d38 = "12345678901234567890123456789012345678";
    let d39 = "123456789012345678901234567890123456789";
    assert_eq!(n(d38).to_string(), d38);
    assert_eq!(parse_error(d39), DIGITS);
    assert_eq!(parse_error(&format!("0.{d39}")), DIGITS);
    // Trailing and leading zeros are not significant.
    assert_eq!(n(&format!("000{d38}000")).to_string(), format!("{d38}000"));
    assert_eq!(n(&format!("0.000{d38}")).significant_digits(), 38);
}

#[test]
fn magnitude_limits_hold_at_the_boundary() {
    let max = "9.9999999999999999999999999999999999999E+125";
    assert_eq!(
        n(max).to_string(),
        format!("99999999999999999999999999999999999999{}", "0".repeat(88))
    );
    assert_eq!(n(&format!("-{max}")).to_string().len(), 127);
    assert_eq!(parse_error("1E+126"), OVERFLOW);
    assert_eq!(parse_error("-1E+126"), OVERFLOW);
    assert_eq!(n("1E-130").to_string(), format!("0.{}1", "0".repeat(129)));
    assert_eq!(parse_error("1E-131"), UNDERFLOW);
    assert_eq!(parse_error("-1E-131"), UNDERFLOW);
    assert_eq!(parse_error("1e999999999999999999999999"), OVERFLOW);
    assert_eq!(parse_error("1e-999999999999999999999999"), UNDERFLOW);
}

#[test]
fn overflow_is_reported_before_too_many_digits() {
    assert_eq!(
        parse_error("1.23456789012345678901234567890123456789E+200"),
        OVERFLOW
    );
}

#[test]
fn equality_and_hash_are_numeric() {
    use std::collections::HashSet;
    assert_eq!(n("1.0"), n("1"));
    assert_eq!(n("-0"), n("0"));
    assert_eq!(n("1e2"), n("100"));
    let set: HashSet<Number> = ["1", "1.0", "1e0", "10e-1"].into_iter().map(n).collect();
    assert_eq!(set.len(), 1);
}

#[test]
fn ordering_is_numeric() {
    let mut values: Vec<Number> = [
        "10", "9", "-1", "0", "-10", "0.5", "-0.5", "1e100", "-1e100", "1e-100", "2.5", "2.45",
    ]
    .into_iter()
    .map(n)
    .collect();
    values.sort();
    let expected: Vec<Number> = [
        "-1e100", "-10", "-1", "-0.5", "0", "1e-100", "0.5", "2.45", "2.5", "9", "10", "1e100",
    ]
    .into_iter()
    .map(n)
    .collect();
    assert_eq!(values, expected);
    assert_eq!(
        n("12345678901234567890123456789012345678")
            .cmp(&n("12345678901234567890123456789012345679")),
        Ordering::Less
    );
    assert_eq!(
        n("1.5").cmp(&n("1.49999999999999999999999999999999999")),
        Ordering::Greater
    );
}

#[test]
fn addition_is_exact() {
    assert_eq!(n("0.1").checked_add(&n("0.2")).unwrap(), n("0.3"));
    assert_eq!(n("0.1").checked_add(&n("0.2")).unwrap().to_string(), "0.3");
    assert_eq!(n("5").checked_add(&n("5")).unwrap().to_string(), "10");
    assert_eq!(n("1").checked_sub(&n("1")).unwrap().to_string(), "0");
    assert_eq!(n("1").checked_sub(&n("3.25")).unwrap().to_string(), "-2.25");
    assert_eq!(n("-1.5").checked_add(&n("-1.5")).unwrap().to_string(), "-3");
    assert_eq!(
        n("1e38").checked_sub(&n("1")).unwrap().to_string(),
        "9".repeat(38)
    );
    let big = "99999999999999999999999999999999999999";
    assert_eq!(n(big).checked_sub(&n(big)).unwrap(), Number::ZERO);
    assert_eq!(n("0").checked_add(&n("-4.2")).unwrap().to_string(), "-4.2");
}

#[test]
fn adding_a_large_and_a_small_number_beyond_38_digits_fails() {
    assert_eq!(
        n("1e30")
            .checked_add(&n("0.0000001"))
            .unwrap()
            .significant_digits(),
        38
    );
    // The service words a sum past 38 digits as an overflow, not as too many digits.
    let e = n("1e31").checked_add(&n("0.0000001")).unwrap_err();
    assert_eq!(e.message(), OVERFLOW);
    let e = n("1e125").checked_add(&n("1e-130")).unwrap_err();
    assert_eq!(e.message(), OVERFLOW);
    let e = n("12345678901234567890123456789012345678")
        .checked_add(&n("0.1"))
        .unwrap_err();
    assert_eq!(e.message(), OVERFLOW);
    // 39-digit span that cancels back to one digit is fine.
    assert_eq!(
        n("1e38")
            .checked_sub(&n("99999999999999999999999999999999999999"))
            .unwrap()
            .to_string(),
        "1"
    );
}

#[test]
fn arithmetic_results_must_stay_in_range() {
    let max = n("9.9999999999999999999999999999999999999E+125");
    assert_eq!(
        max.checked_add(&n("1E+88")).unwrap_err().message(),
        OVERFLOW
    );
    assert_eq!(
        (-max).checked_sub(&n("1E+88")).unwrap_err().message(),
        OVERFLOW
    );
    assert_eq!(max.checked_sub(&max).unwrap(), Number::ZERO);
}

#[test]
fn integers_convert_exactly() {
    assert_eq!(Number::from_i64(i64::MIN).to_string(), i64::MIN.to_string());
    assert_eq!(Number::from_i64(i64::MAX).to_i64(), Some(i64::MAX));
    assert_eq!(Number::from_i64(-1200).to_string(), "-1200");
    assert_eq!(n("1e3").to_i64(), Some(1000));
    assert_eq!(n("1.5").to_i64(), None);
    assert_eq!(n("1e20").to_i64(), None);
    assert_eq!(n("-9223372036854775808").to_i64(), Some(i64::MIN));
    assert_eq!(n("-9223372036854775809").to_i64(), None);
    assert_eq!(n("2.5").to_f64_lossy(), 2.5);
    assert!(Number::from_i64(0).is_zero());
    assert_eq!("42".parse::<Number>().unwrap(), Number::from_i64(42));
}

#[test]
fn number_size_follows_the_centesimal_storage_formula() {
    for (s, size) in [
        ("0", 1),
        ("1", 2),
        ("10", 2),
        ("12", 2),
        ("123", 3),
        ("1.2", 3),
        ("1.23", 3),
        ("-1", 3),
        ("12345678901234567890123456789012345678", 20),
        ("0.1", 2),
    ] {
        assert_eq!(n(s).size(), size, "size of {s}");
    }
}
