//! The one inventory type. Every invariant that protects items lives here, and every method is an
//! all-or-nothing transaction: it checks first and writes only when the whole change fits, so a
//! refused call leaves the inventory exactly as it was.
//!
//! Invariants (checked by the property test in `tests/sim/inventory.rs`):
//! - at most [`INVENTORY_SLOTS`] slots, each empty or holding a stack of at least 1;
//! - a stack never exceeds its item's limit (at most [`MAX_STACK`]); quantities use checked
//!   arithmetic, so nothing wraps;
//! - a stackable item occupies at most one slot (the genre's rule: a second stack never opens);
//!   an unstackable item occupies one slot per item;
//! - nothing is created or destroyed: what leaves is returned to the caller.
//!
//! Several steps that must succeed together (a trade: remove what is given, add what is received)
//! go through [`Inventory::apply`], which undoes every step when one fails.

use std::fmt;
use std::mem;
use std::ops::Deref;

use wayfarer_content::{Item, ItemId};

/// Slots in an inventory.
pub const INVENTORY_SLOTS: usize = 28;

/// The largest stack any item may reach: `i32::MAX`, the genre's limit (2,147,483,647 coins).
pub const MAX_STACK: u32 = i32::MAX as u32;

/// A quantity of one item in one slot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Stack {
    /// The item.
    pub item_id: ItemId,
    /// How many (at least 1).
    pub quantity: u32,
}

/// How an item takes up slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stacking {
    /// One item per slot (weapons, logs).
    Unstackable,
    /// All of the item in one slot, up to `max_quantity` (coins, arrows).
    Stackable {
        /// The stack limit (1 ..= [`MAX_STACK`]).
        max_quantity: u32,
    },
}

impl Stacking {
    /// Stackable up to [`MAX_STACK`].
    pub const STACKABLE: Stacking = Stacking::Stackable {
        max_quantity: MAX_STACK,
    };

    /// How a content item stacks (its `maxStackSize`, at most [`MAX_STACK`]).
    pub fn of(item: &Item) -> Stacking {
        if item.stackable {
            Stacking::Stackable {
                max_quantity: item.max_stack.clamp(1, MAX_STACK),
            }
        } else {
            Stacking::Unstackable
        }
    }

    /// The most of the item one slot holds.
    pub fn max_quantity(self) -> u32 {
        match self {
            Stacking::Unstackable => 1,
            Stacking::Stackable { max_quantity } => max_quantity.clamp(1, MAX_STACK),
        }
    }
}

impl From<bool> for Stacking {
    /// `true` is [`Stacking::STACKABLE`], `false` is [`Stacking::Unstackable`].
    fn from(stackable: bool) -> Stacking {
        if stackable {
            Stacking::STACKABLE
        } else {
            Stacking::Unstackable
        }
    }
}

/// Why an inventory change was refused. The inventory is unchanged whenever one is returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InventoryError {
    /// Not enough free slots for what was added.
    InventoryFull,
    /// The stack would grow beyond its limit.
    StackLimit {
        /// The item.
        item_id: ItemId,
        /// The item's stack limit.
        max_quantity: u32,
    },
    /// A slot number outside `0..INVENTORY_SLOTS`.
    InvalidSlot(usize),
    /// The slot is empty.
    EmptySlot(usize),
    /// The slot is already occupied (when loading).
    SlotOccupied(usize),
    /// A quantity of zero, or above [`MAX_STACK`] when loading.
    InvalidQuantity,
    /// Fewer of the item than asked for.
    NotEnough {
        /// The item.
        item_id: ItemId,
        /// How many were asked for.
        wanted: u64,
        /// How many there are.
        held: u64,
    },
}

impl fmt::Display for InventoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InventoryError::InventoryFull => f.write_str("not enough free inventory slots"),
            InventoryError::StackLimit {
                item_id,
                max_quantity,
            } => write!(f, "a stack of {item_id} holds at most {max_quantity}"),
            InventoryError::InvalidSlot(slot) => write!(
                f,
                "inventory slot {slot} does not exist (0..{INVENTORY_SLOTS})"
            ),
            InventoryError::EmptySlot(slot) => write!(f, "inventory slot {slot} is empty"),
            InventoryError::SlotOccupied(slot) => {
                write!(f, "inventory slot {slot} is given twice")
            }
            InventoryError::InvalidQuantity => {
                write!(f, "a quantity must be between 1 and {MAX_STACK}")
            }
            InventoryError::NotEnough {
                item_id,
                wanted,
                held,
            } => write!(f, "{wanted} {item_id} wanted but only {held} held"),
        }
    }
}

impl std::error::Error for InventoryError {}

/// Writes a checked change consists of: `(slot, new content)`.
type Writes = Vec<(usize, Option<Stack>)>;

/// A player's 28 slots.
///
/// Kept sparse: only the occupied slots, in slot order. A new character holds 7 stacks, and 28
/// inline slots were 896 bytes of every online player's state (issue 33: memory per idle player);
/// a full inventory takes 28 × 40 bytes. Equal inventories are equal lists, since the list has one
/// form: sorted by slot, no slot twice.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inventory {
    occupied: Vec<(u8, Stack)>,
}

impl Inventory {
    /// An empty inventory.
    pub fn new() -> Inventory {
        Inventory::default()
    }

    /// An inventory holding saved stacks at their slots, refusing a slot out of range, a slot
    /// given twice or a quantity outside `1..=MAX_STACK`.
    pub fn from_stacks(
        stacks: impl IntoIterator<Item = (usize, Stack)>,
    ) -> Result<Inventory, InventoryError> {
        let mut inventory = Inventory::new();
        for (slot, stack) in stacks {
            check_slot(slot)?;
            if stack.quantity == 0 || stack.quantity > MAX_STACK {
                return Err(InventoryError::InvalidQuantity);
            }
            if inventory.get(slot).is_some() {
                return Err(InventoryError::SlotOccupied(slot));
            }
            inventory.replace(slot, Some(stack));
        }
        inventory.occupied.shrink_to_fit();
        Ok(inventory)
    }

    /// Every slot in order: [`INVENTORY_SLOTS`] entries, `None` where empty.
    pub fn slots(&self) -> impl ExactSizeIterator<Item = Option<&Stack>> + '_ {
        (0..INVENTORY_SLOTS).map(|slot| self.get(slot))
    }

    /// The stack in `slot`, if any (`None` also for a slot out of range).
    pub fn get(&self, slot: usize) -> Option<&Stack> {
        let slot = u8::try_from(slot).ok()?;
        self.position(slot).ok().map(|i| &self.occupied[i].1)
    }

    /// The occupied slots in order, with their numbers.
    pub fn stacks(&self) -> impl Iterator<Item = (usize, &Stack)> {
        self.occupied
            .iter()
            .map(|(slot, stack)| (usize::from(*slot), stack))
    }

    /// Where `slot` is in the list, or where it would go.
    fn position(&self, slot: u8) -> Result<usize, usize> {
        self.occupied.binary_search_by_key(&slot, |(s, _)| *s)
    }

    /// Sets what `slot` (checked: in range) holds and returns what it held.
    fn replace(&mut self, slot: usize, content: Option<Stack>) -> Option<Stack> {
        let slot = slot as u8;
        match (self.position(slot), content) {
            (Ok(i), Some(stack)) => Some(mem::replace(&mut self.occupied[i].1, stack)),
            (Ok(i), None) => Some(self.occupied.remove(i).1),
            (Err(i), Some(stack)) => {
                self.occupied.insert(i, (slot, stack));
                None
            }
            (Err(_), None) => None,
        }
    }

    /// How many of `item_id` are held, over all slots.
    pub fn count(&self, item_id: &str) -> u64 {
        self.stacks()
            .filter(|(_, stack)| stack.item_id == item_id)
            .map(|(_, stack)| u64::from(stack.quantity))
            .sum()
    }

    /// Whether any of `item_id` is held.
    pub fn contains(&self, item_id: &str) -> bool {
        self.stacks().any(|(_, stack)| stack.item_id == item_id)
    }

    /// Empty slots.
    pub fn free_slots(&self) -> usize {
        INVENTORY_SLOTS - self.occupied.len()
    }

    /// Whether every slot is empty.
    pub fn is_empty(&self) -> bool {
        self.occupied.is_empty()
    }

    /// Adds `quantity` of an item, whole or not at all: a stackable item joins its existing stack
    /// (or takes the first free slot), an unstackable one takes one free slot per item.
    pub fn add(
        &mut self,
        item_id: &str,
        quantity: u32,
        stacking: impl Into<Stacking>,
    ) -> Result<(), InventoryError> {
        let writes = self.plan_add(item_id, quantity, stacking.into())?;
        self.write(writes, None);
        Ok(())
    }

    /// Takes `quantity` from the stack in `slot` and returns what was taken.
    pub fn remove(&mut self, slot: usize, quantity: u32) -> Result<Stack, InventoryError> {
        let (taken, writes) = self.plan_remove(slot, quantity)?;
        self.write(writes, None);
        Ok(taken)
    }

    /// Takes `quantity` of an item from wherever it is held, lowest slots first.
    pub fn remove_item(&mut self, item_id: &str, quantity: u32) -> Result<(), InventoryError> {
        let writes = self.plan_remove_item(item_id, quantity)?;
        self.write(writes, None);
        Ok(())
    }

    /// Swaps the contents of two slots (dragging an item onto another slot).
    pub fn move_slot(&mut self, from: usize, to: usize) -> Result<(), InventoryError> {
        let writes = self.plan_move(from, to)?;
        self.write(writes, None);
        Ok(())
    }

    /// Empties the inventory and returns every stack in slot order (death, banking all).
    pub fn take_all(&mut self) -> Vec<Stack> {
        mem::take(&mut self.occupied)
            .into_iter()
            .map(|(_, stack)| stack)
            .collect()
    }

    /// Whether every entry would fit if added together (stackables merge into an existing stack).
    /// Trade acceptance asks this of what each side would receive.
    pub fn can_fit<S: Into<Stacking> + Copy>(&self, items: &[(&str, u32, S)]) -> bool {
        let mut scratch = self.clone();
        scratch
            .apply(|tx| {
                for &(item_id, quantity, stacking) in items {
                    tx.add(item_id, quantity, stacking)?;
                }
                Ok(())
            })
            .is_ok()
    }

    /// Runs several changes as one: they all happen, or (when any step fails) none does and the
    /// first error is returned.
    ///
    /// ```
    /// use wayfarer_sim::inventory::{Inventory, InventoryError};
    ///
    /// let mut inventory = Inventory::new();
    /// inventory.add("coins", 100, true).unwrap();
    /// // Buying a sword for 150 coins fails whole: the coins stay.
    /// let bought = inventory.apply(|tx| {
    ///     tx.remove_item("coins", 150)?;
    ///     tx.add("bronze_sword", 1, false)
    /// });
    /// assert!(matches!(bought, Err(InventoryError::NotEnough { .. })));
    /// assert_eq!(inventory.count("coins"), 100);
    /// ```
    pub fn apply<T>(
        &mut self,
        change: impl FnOnce(&mut Transaction<'_>) -> Result<T, InventoryError>,
    ) -> Result<T, InventoryError> {
        self.transact(change, true)
    }

    /// Runs changes as [`Inventory::apply`] would and says how they would end, then undoes them
    /// either way: a check before a change that spans two inventories.
    pub fn dry_run<T>(
        &mut self,
        change: impl FnOnce(&mut Transaction<'_>) -> Result<T, InventoryError>,
    ) -> Result<T, InventoryError> {
        self.transact(change, false)
    }

    /// Runs `change` in a transaction, undone when it fails or when it is not to be `kept`.
    fn transact<T>(
        &mut self,
        change: impl FnOnce(&mut Transaction<'_>) -> Result<T, InventoryError>,
        kept: bool,
    ) -> Result<T, InventoryError> {
        let mut tx = Transaction {
            inventory: self,
            journal: Vec::new(),
        };
        let outcome = change(&mut tx);
        if outcome.is_err() || !kept {
            tx.roll_back();
        }
        outcome
    }

    fn plan_add(
        &self,
        item_id: &str,
        quantity: u32,
        stacking: Stacking,
    ) -> Result<Writes, InventoryError> {
        if quantity == 0 {
            return Err(InventoryError::InvalidQuantity);
        }
        let max_quantity = stacking.max_quantity();
        let too_many = || InventoryError::StackLimit {
            item_id: item_id.to_owned(),
            max_quantity,
        };
        match stacking {
            Stacking::Stackable { .. } => {
                if let Some((slot, stack)) = self.stacks().find(|(_, s)| s.item_id == item_id) {
                    let total = stack
                        .quantity
                        .checked_add(quantity)
                        .filter(|&total| total <= max_quantity)
                        .ok_or_else(too_many)?;
                    return Ok(vec![(
                        slot,
                        Some(Stack {
                            item_id: item_id.to_owned(),
                            quantity: total,
                        }),
                    )]);
                }
                if quantity > max_quantity {
                    return Err(too_many());
                }
                let slot = self
                    .free_slot_numbers()
                    .next()
                    .ok_or(InventoryError::InventoryFull)?;
                Ok(vec![(
                    slot,
                    Some(Stack {
                        item_id: item_id.to_owned(),
                        quantity,
                    }),
                )])
            }
            Stacking::Unstackable => {
                let wanted = quantity as usize;
                if wanted > self.free_slots() {
                    return Err(InventoryError::InventoryFull);
                }
                Ok(self
                    .free_slot_numbers()
                    .take(wanted)
                    .map(|slot| {
                        (
                            slot,
                            Some(Stack {
                                item_id: item_id.to_owned(),
                                quantity: 1,
                            }),
                        )
                    })
                    .collect())
            }
        }
    }

    fn plan_remove(&self, slot: usize, quantity: u32) -> Result<(Stack, Writes), InventoryError> {
        check_slot(slot)?;
        let stack = self.get(slot).ok_or(InventoryError::EmptySlot(slot))?;
        if quantity == 0 {
            return Err(InventoryError::InvalidQuantity);
        }
        let left =
            stack
                .quantity
                .checked_sub(quantity)
                .ok_or_else(|| InventoryError::NotEnough {
                    item_id: stack.item_id.clone(),
                    wanted: u64::from(quantity),
                    held: u64::from(stack.quantity),
                })?;
        let taken = Stack {
            item_id: stack.item_id.clone(),
            quantity,
        };
        let rest = (left > 0).then(|| Stack {
            item_id: stack.item_id.clone(),
            quantity: left,
        });
        Ok((taken, vec![(slot, rest)]))
    }

    fn plan_remove_item(&self, item_id: &str, quantity: u32) -> Result<Writes, InventoryError> {
        if quantity == 0 {
            return Err(InventoryError::InvalidQuantity);
        }
        let held = self.count(item_id);
        if held < u64::from(quantity) {
            return Err(InventoryError::NotEnough {
                item_id: item_id.to_owned(),
                wanted: u64::from(quantity),
                held,
            });
        }
        let mut owed = quantity;
        let mut writes = Writes::new();
        for (slot, stack) in self.stacks().filter(|(_, s)| s.item_id == item_id) {
            if owed == 0 {
                break;
            }
            let taken = owed.min(stack.quantity);
            owed -= taken;
            let left = stack.quantity - taken;
            let rest = (left > 0).then(|| Stack {
                item_id: stack.item_id.clone(),
                quantity: left,
            });
            writes.push((slot, rest));
        }
        Ok(writes)
    }

    fn plan_move(&self, from: usize, to: usize) -> Result<Writes, InventoryError> {
        check_slot(from)?;
        check_slot(to)?;
        let moved = self.get(from).ok_or(InventoryError::EmptySlot(from))?;
        if from == to {
            return Ok(Writes::new());
        }
        Ok(vec![
            (to, Some(moved.clone())),
            (from, self.get(to).cloned()),
        ])
    }

    fn free_slot_numbers(&self) -> impl Iterator<Item = usize> + '_ {
        (0..INVENTORY_SLOTS).filter(|&slot| self.get(slot).is_none())
    }

    /// Applies checked writes, recording what each replaced when a journal is given.
    fn write(&mut self, writes: Writes, mut journal: Option<&mut Vec<(usize, Option<Stack>)>>) {
        for (slot, content) in writes {
            let before = self.replace(slot, content);
            if let Some(journal) = journal.as_deref_mut() {
                journal.push((slot, before));
            }
        }
    }
}

/// Changes in progress inside [`Inventory::apply`]; reads (through `Deref`) see them.
#[derive(Debug)]
pub struct Transaction<'a> {
    inventory: &'a mut Inventory,
    /// What each write replaced, oldest first.
    journal: Vec<(usize, Option<Stack>)>,
}

impl Transaction<'_> {
    /// [`Inventory::add`] within the transaction.
    pub fn add(
        &mut self,
        item_id: &str,
        quantity: u32,
        stacking: impl Into<Stacking>,
    ) -> Result<(), InventoryError> {
        let writes = self
            .inventory
            .plan_add(item_id, quantity, stacking.into())?;
        self.inventory.write(writes, Some(&mut self.journal));
        Ok(())
    }

    /// [`Inventory::remove`] within the transaction.
    pub fn remove(&mut self, slot: usize, quantity: u32) -> Result<Stack, InventoryError> {
        let (taken, writes) = self.inventory.plan_remove(slot, quantity)?;
        self.inventory.write(writes, Some(&mut self.journal));
        Ok(taken)
    }

    /// [`Inventory::remove_item`] within the transaction.
    pub fn remove_item(&mut self, item_id: &str, quantity: u32) -> Result<(), InventoryError> {
        let writes = self.inventory.plan_remove_item(item_id, quantity)?;
        self.inventory.write(writes, Some(&mut self.journal));
        Ok(())
    }

    /// [`Inventory::move_slot`] within the transaction.
    pub fn move_slot(&mut self, from: usize, to: usize) -> Result<(), InventoryError> {
        let writes = self.inventory.plan_move(from, to)?;
        self.inventory.write(writes, Some(&mut self.journal));
        Ok(())
    }

    /// Puts back everything the journal replaced, newest first.
    fn roll_back(&mut self) {
        while let Some((slot, before)) = self.journal.pop() {
            self.inventory.replace(slot, before);
        }
    }
}

impl Deref for Transaction<'_> {
    type Target = Inventory;

    fn deref(&self) -> &Inventory {
        self.inventory
    }
}

fn check_slot(slot: usize) -> Result<(), InventoryError> {
    if slot < INVENTORY_SLOTS {
        Ok(())
    } else {
        Err(InventoryError::InvalidSlot(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inventory_is_a_list_header_not_28_slots() {
        let size = mem::size_of::<Inventory>();
        assert!(size <= 24, "{size} bytes");
        // A loaded starter's list has no spare room.
        let starter = Inventory::from_stacks((0..7).map(|slot| {
            (
                slot,
                Stack {
                    item_id: format!("item_{slot}"),
                    quantity: 1,
                },
            )
        }))
        .unwrap();
        assert_eq!(starter.occupied.capacity(), 7);
    }
}
