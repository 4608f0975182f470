//! The one rule for an inventory slot in a client message (`player:action` `slot`, `inventory:use`
//! `slot`/`targetSlot`, `bank:deposit` `slot`, `shop:sell` `slot`, `tradeAddItem`/`tradeRemoveItem`
//! `inventorySlot`):
//!
//! - a whole JSON number from 0 to 27 is that slot (`3.0` is 3: JSON has one number type, and a
//!   JavaScript client cannot tell them apart);
//! - any other whole number, negative or huge (even past 64 bits), is `invalid_slot`;
//! - anything else (a fraction, a string, `true`, `null`, an array, an object) is `invalid_message`.
//!
//! The shape is checked when the frame is read ([`SlotNumber`]'s `Deserialize`); the range when
//! the message is handled ([`SlotNumber::index`]), so a trade message's range error can be a
//! `tradeError` like its other errors.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

use super::{codes, ParseError};

/// Slots in an inventory (0–27).
pub const INVENTORY_SLOTS: usize = 28;

/// A whole number sent as an inventory slot, before its range is checked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SlotNumber(Number);

impl SlotNumber {
    /// `number` if it is whole; the reason otherwise.
    pub fn new(number: Number) -> Result<SlotNumber, String> {
        let whole = number.is_i64()
            || number.is_u64()
            || number
                .as_f64()
                .is_some_and(|f| f.is_finite() && f.fract() == 0.0);
        if whole {
            Ok(SlotNumber(number))
        } else {
            Err(format!("an inventory slot is a whole number, not {number}"))
        }
    }

    /// The slot, 0–27; `invalid_slot` for any other number.
    pub fn index(&self) -> Result<usize, ParseError> {
        let index = match (self.0.as_u64(), self.0.as_f64()) {
            (Some(n), _) => usize::try_from(n).ok(),
            // Whole by construction (negative zero, equal to zero, is slot 0).
            (None, Some(f)) if (0.0..INVENTORY_SLOTS as f64).contains(&f) => Some(f as usize),
            _ => None,
        };
        match index {
            Some(i) if i < INVENTORY_SLOTS => Ok(i),
            _ => Err(ParseError {
                code: codes::INVALID_SLOT,
                message: format!(
                    "an inventory slot is 0 to {}, not {}",
                    INVENTORY_SLOTS - 1,
                    self.0
                ),
            }),
        }
    }

    /// The number as sent.
    pub fn number(&self) -> &Number {
        &self.0
    }
}

impl From<u8> for SlotNumber {
    fn from(slot: u8) -> Self {
        SlotNumber(slot.into())
    }
}

impl From<i64> for SlotNumber {
    fn from(slot: i64) -> Self {
        SlotNumber(slot.into())
    }
}

impl From<u64> for SlotNumber {
    fn from(slot: u64) -> Self {
        SlotNumber(slot.into())
    }
}

impl From<usize> for SlotNumber {
    fn from(slot: usize) -> Self {
        SlotNumber(slot.into())
    }
}

impl Serialize for SlotNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SlotNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = Number::deserialize(deserializer)?;
        SlotNumber::new(number).map_err(serde::de::Error::custom)
    }
}

// Hand-written like its serde impls: the schema says what a valid slot is (a whole number 0–27);
// other whole numbers are read and answered with `invalid_slot`, see the module's rule.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for SlotNumber {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SlotNumber".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An inventory slot: a whole number from 0 to 27 (`3.0` is 3). Other whole numbers are answered with `invalid_slot`, anything else with `invalid_message`.",
            "type": "number",
            "multipleOf": 1,
            "minimum": 0,
            "maximum": INVENTORY_SLOTS - 1
        })
    }
}

/// The slot in a field whose type the message leaves open (`player:action`'s `slot`, which names an
/// equipment slot for `unequip`): [`SlotNumber`]'s rule, shape and range at once.
pub fn inventory_slot(value: &Value) -> Result<usize, ParseError> {
    let number = match value {
        Value::Number(n) => SlotNumber::new(n.clone()),
        other => Err(format!("an inventory slot is a whole number, not {other}")),
    };
    number
        .map_err(|message| ParseError {
            code: codes::INVALID_MESSAGE,
            message,
        })?
        .index()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_slot_rule() {
        for (value, expected) in [
            (json!(0), Ok(0)),
            (json!(27), Ok(27)),
            (json!(3.0), Ok(3)),
            (json!(-0.0), Ok(0)),
            (json!(28), Err(codes::INVALID_SLOT)),
            (json!(-1), Err(codes::INVALID_SLOT)),
            (json!(-1.0), Err(codes::INVALID_SLOT)),
            (json!(i64::MIN), Err(codes::INVALID_SLOT)),
            (json!(u64::MAX), Err(codes::INVALID_SLOT)),
            (json!(1e300), Err(codes::INVALID_SLOT)),
            (json!(-1e300), Err(codes::INVALID_SLOT)),
            (json!(27.5), Err(codes::INVALID_MESSAGE)),
            (json!(0.1), Err(codes::INVALID_MESSAGE)),
            (json!("3"), Err(codes::INVALID_MESSAGE)),
            (json!(true), Err(codes::INVALID_MESSAGE)),
            (json!(null), Err(codes::INVALID_MESSAGE)),
            (json!([3]), Err(codes::INVALID_MESSAGE)),
            (json!({"slot": 3}), Err(codes::INVALID_MESSAGE)),
        ] {
            let got = inventory_slot(&value).map_err(|e| e.code);
            assert_eq!(got, expected, "{value}");
            // The typed field agrees: its shape when read, its range when asked.
            let typed = crate::strict::from_value::<SlotNumber>(value.clone())
                .map_err(|_| codes::INVALID_MESSAGE)
                .and_then(|s| s.index().map_err(|e| e.code));
            assert_eq!(typed, expected, "{value} read as a field");
        }
        // A number past 64 bits, as sent in a frame.
        let huge: Value = serde_json::from_str("123456789012345678901234567890").unwrap();
        assert_eq!(inventory_slot(&huge).unwrap_err().code, codes::INVALID_SLOT);
    }
}
