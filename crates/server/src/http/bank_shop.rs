//! Reading `bank:*` and `shop:*` frames into sim requests (called by `ws::input`): slots and quantities checked here, so
//! bad input is an `error` with a code before anything reaches the world.

use wayfarer_protocol::ws::{
    codes, BankDepositRequest, BankWithdrawRequest, DepositSlot, ParseError, Quantity,
    ShopBuyRequest, ShopSellRequest, SlotNumber,
};
use wayfarer_sim::inventory::MAX_STACK;
use wayfarer_sim::{ActionError, BankRequest, Command, ShopRequest};

/// A bank or shop request, before it is addressed to a character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Bank(BankRequest),
    Shop(ShopRequest),
}

impl Request {
    /// The sim command for character `id`.
    pub fn command(self, id: String, reference: Option<u64>) -> Command {
        match self {
            Request::Bank(request) => Command::Bank {
                id,
                request,
                reference,
            },
            Request::Shop(request) => Command::Shop {
                id,
                request,
                reference,
            },
        }
    }
}

fn bad(code: &'static str, message: impl Into<String>) -> ActionError {
    ActionError {
        code,
        message: message.into(),
    }
}

/// The slot of `number`, by the one slot rule (`SlotNumber::index`).
fn slot(number: &SlotNumber) -> Result<usize, ActionError> {
    number
        .index()
        .map_err(|ParseError { code, message }| bad(code, message))
}

/// A quantity of at least 1 (larger ones are capped at the stack limit: "as many as possible").
fn quantity(value: i64) -> Result<u32, ActionError> {
    if value < 1 {
        return Err(bad(
            codes::INVALID_MESSAGE,
            format!("`quantity` must be at least 1, not {value}"),
        ));
    }
    Ok(u32::try_from(value).unwrap_or(MAX_STACK).min(MAX_STACK))
}

/// A bank quantity: a count as [`quantity`] reads it, or `"all"` (`None`): every one there is.
fn count_or_all(value: Quantity) -> Result<Option<u32>, ActionError> {
    match value {
        Quantity::All => Ok(None),
        Quantity::Count(n) => quantity(n).map(Some),
    }
}

/// `bank:deposit`: a slot or `"all"`, and a count or `"all"`.
pub fn deposit(d: &BankDepositRequest) -> Result<Request, ActionError> {
    let slot = match &d.slot {
        DepositSlot::All => None,
        DepositSlot::Slot(number) => Some(slot(number)?),
    };
    // `"all"` is what no quantity means: every one of the slot's item held.
    let quantity = d.quantity.map(count_or_all).transpose()?.flatten();
    Ok(Request::Bank(BankRequest::Deposit { slot, quantity }))
}

/// `bank:withdraw`: an item and a count or `"all"`.
pub fn withdraw(w: &BankWithdrawRequest) -> Result<Request, ActionError> {
    if w.item_id.is_empty() {
        return Err(bad(codes::INVALID_MESSAGE, "`itemId` is empty"));
    }
    Ok(Request::Bank(BankRequest::Withdraw {
        item_id: w.item_id.clone(),
        // All: as many as fit, which no bank stack can pass.
        quantity: count_or_all(w.quantity)?.unwrap_or(MAX_STACK),
    }))
}

/// `shop:buy`.
pub fn buy(b: &ShopBuyRequest) -> Result<Request, ActionError> {
    Ok(Request::Shop(ShopRequest::Buy {
        store_id: b.store_id.clone(),
        item_id: b.item_id.clone(),
        quantity: quantity(b.quantity)?,
    }))
}

/// `shop:sell`.
pub fn sell(s: &ShopSellRequest) -> Result<Request, ActionError> {
    Ok(Request::Shop(ShopRequest::Sell {
        store_id: s.store_id.clone(),
        slot: slot(&s.slot)?,
        quantity: s.quantity.map(quantity).transpose()?,
    }))
}

#[cfg(test)]
mod tests {
    use wayfarer_protocol::ws::ClientMessage;

    use super::*;

    fn parse(frame: &str) -> Result<Request, ActionError> {
        let (message, _) = ClientMessage::parse(frame);
        match message.unwrap() {
            ClientMessage::BankDeposit(d) => deposit(&d),
            ClientMessage::BankWithdraw(w) => withdraw(&w),
            ClientMessage::ShopBuy(b) => buy(&b),
            ClientMessage::ShopSell(s) => sell(&s),
            other => panic!("not a bank or shop frame with data: {other:?}"),
        }
    }

    #[test]
    fn frames_become_requests_and_bad_input_gets_a_code() {
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":"all"}}"#).unwrap(),
            Request::Bank(BankRequest::Deposit {
                slot: None,
                quantity: None
            })
        );
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":3,"quantity":5}}"#).unwrap(),
            Request::Bank(BankRequest::Deposit {
                slot: Some(3),
                quantity: Some(5)
            })
        );
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":28}}"#)
                .unwrap_err()
                .code,
            codes::INVALID_SLOT
        );
        assert_eq!(
            parse(r#"{"type":"bank:withdraw","data":{"itemId":"logs","quantity":0}}"#)
                .unwrap_err()
                .code,
            codes::INVALID_MESSAGE
        );
        assert_eq!(
            parse(r#"{"type":"bank:withdraw","data":{"itemId":"coins","quantity":99999999999}}"#)
                .unwrap(),
            Request::Bank(BankRequest::Withdraw {
                item_id: "coins".into(),
                quantity: MAX_STACK
            })
        );
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":-1}}"#)
                .unwrap_err()
                .code,
            codes::INVALID_SLOT
        );
        assert_eq!(
            parse(r#"{"type":"shop:sell","data":{"storeId":"s","slot":1e30}}"#)
                .unwrap_err()
                .code,
            codes::INVALID_SLOT
        );
        // Not a number at all: refused when the frame is read.
        assert_eq!(
            ClientMessage::parse(r#"{"type":"shop:sell","data":{"storeId":"s","slot":"x"}}"#)
                .0
                .unwrap_err()
                .code,
            codes::INVALID_MESSAGE
        );
        assert!(matches!(
            parse(r#"{"type":"shop:buy","data":{"storeId":"s","itemId":"i"}}"#).unwrap(),
            Request::Shop(ShopRequest::Buy { quantity: 1, .. })
        ));
    }

    fn withdrawn(quantity: &str) -> Result<u32, &'static str> {
        let frame = format!(
            r#"{{"type":"bank:withdraw","data":{{"itemId":"logs","quantity":{quantity}}}}}"#
        );
        match ClientMessage::parse(&frame).0 {
            Err(err) => Err(err.code),
            Ok(ClientMessage::BankWithdraw(w)) => match withdraw(&w) {
                Ok(Request::Bank(BankRequest::Withdraw { quantity, .. })) => Ok(quantity),
                Ok(other) => panic!("{other:?}"),
                Err(err) => Err(err.code),
            },
            Ok(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn bank_quantities_are_a_count_from_one_capped_at_a_stack_or_all() {
        // The first refused and the last allowed at each end.
        assert_eq!(withdrawn("0"), Err(codes::INVALID_MESSAGE));
        assert_eq!(withdrawn("1"), Ok(1));
        assert_eq!(withdrawn("5"), Ok(5));
        assert_eq!(withdrawn("10"), Ok(10));
        assert_eq!(withdrawn(&MAX_STACK.to_string()), Ok(MAX_STACK));
        assert_eq!(
            withdrawn(&(u64::from(MAX_STACK) + 1).to_string()),
            Ok(MAX_STACK)
        );
        // "all": every one banked that fits, which no stack can pass.
        assert_eq!(withdrawn(r#""all""#), Ok(MAX_STACK));
        for bad in [r#""some""#, r#""ALL""#, "2.5", "-1", "null", "true", "[5]"] {
            assert_eq!(withdrawn(bad), Err(codes::INVALID_MESSAGE), "{bad}");
        }
        // Deposits: "all" is the same as no quantity (every one of the slot's item held).
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":3,"quantity":"all"}}"#).unwrap(),
            Request::Bank(BankRequest::Deposit {
                slot: Some(3),
                quantity: None
            })
        );
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":3,"quantity":1}}"#).unwrap(),
            Request::Bank(BankRequest::Deposit {
                slot: Some(3),
                quantity: Some(1)
            })
        );
        assert_eq!(
            parse(r#"{"type":"bank:deposit","data":{"slot":3,"quantity":0}}"#)
                .unwrap_err()
                .code,
            codes::INVALID_MESSAGE
        );
    }
}
