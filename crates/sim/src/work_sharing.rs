//! Splitting a phase's independent pieces of work (the tick's views, its path searches) over the
//! tick's threads. Each piece writes only itself and reads what no piece writes, so which thread
//! does a piece never changes its result; callers put the results back in the pieces' order.

use std::iter::Enumerate;
use std::slice::ChunksMut;
use std::sync::Mutex;

/// A slice's blocks, handed out in order to whichever thread asks next.
pub(crate) struct Blocks<'a, T> {
    next: Mutex<Enumerate<ChunksMut<'a, T>>>,
}

impl<'a, T> Blocks<'a, T> {
    /// The next block no thread has taken, with its index among the slice's blocks; `None` once
    /// every block is taken.
    pub fn take(&self) -> Option<(usize, &'a mut [T])> {
        self.next.lock().ok()?.next()
    }
}

/// Runs `work` once on each of `scratches` (the calling thread with the first, a scoped thread for
/// each other), all of them taking `items`' blocks of `block_len` from one [`Blocks`]: small
/// blocks taken in turn rather than one equal share per thread, so a thread that gets no core for a
/// while (the machine also runs the sockets) or draws slow pieces leaves the rest to the others
/// instead of holding up the phase. Returns each thread's result in the order of `scratches`.
/// A panic on any thread is resumed on the calling thread, as it would be with one thread.
pub(crate) fn share_blocks<T: Send, S: Send, R: Send>(
    items: &mut [T],
    block_len: usize,
    scratches: &mut [S],
    work: impl Fn(&mut S, &Blocks<'_, T>) -> R + Sync,
) -> Vec<R> {
    let blocks = Blocks {
        next: Mutex::new(items.chunks_mut(block_len.max(1)).enumerate()),
    };
    let Some((mine, others)) = scratches.split_first_mut() else {
        return Vec::new();
    };
    if others.is_empty() {
        return vec![work(mine, &blocks)];
    }
    let (work, blocks) = (&work, &blocks);
    std::thread::scope(|scope| {
        let helpers: Vec<_> = others
            .iter_mut()
            .map(|scratch| scope.spawn(move || work(scratch, blocks)))
            .collect();
        let mut results = Vec::with_capacity(helpers.len() + 1);
        results.push(work(mine, blocks));
        for helper in helpers {
            results.push(
                helper
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block is taken exactly once, whatever the number of threads, and each thread's
    /// result comes back in the scratches' order.
    #[test]
    fn every_block_is_taken_once_and_results_come_in_scratch_order() {
        for threads in 1..=4 {
            let mut items: Vec<u32> = (0..1_000).collect();
            let mut scratches: Vec<usize> = (0..threads).collect();
            let taken = share_blocks(&mut items, 32, &mut scratches, |me, blocks| {
                let mut indices = Vec::new();
                while let Some((index, block)) = blocks.take() {
                    for item in block.iter_mut() {
                        *item += 1;
                    }
                    indices.push(index);
                }
                (*me, indices)
            });
            assert_eq!(
                taken.iter().map(|(me, _)| *me).collect::<Vec<_>>(),
                (0..threads).collect::<Vec<_>>()
            );
            let mut indices: Vec<usize> = taken.into_iter().flat_map(|(_, i)| i).collect();
            indices.sort_unstable();
            assert_eq!(indices, (0..1_000usize.div_ceil(32)).collect::<Vec<_>>());
            assert_eq!(
                items,
                (1..=1_000).collect::<Vec<u32>>(),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn a_panic_on_a_helper_thread_reaches_the_caller() {
        let mut items = vec![0u8; 64];
        let mut scratches = [0u8, 1];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            share_blocks(&mut items, 1, &mut scratches, |me, blocks| {
                if *me == 1 {
                    panic!("a helper's bug");
                }
                while blocks.take().is_some() {}
            })
        }));
        let panic = caught.expect_err("the helper's panic is resumed");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"a helper's bug"));
    }
}
