//! The threads this module's calls run on (buffer_call.rs): as many as calls are under way at once,
//! each kept for the next call once it is done (its Scratch with it: odb.rs), never ended. A scan
//! has at most about six under way (three listings, two reads, a walk or a diff index), so the pool
//! stays that small; a thread costs its stack's address space and a few pages.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

type Task = Box<dyn FnOnce() + Send>;

struct Queue {
    tasks: VecDeque<Task>,
    /** Threads waiting for a task. */
    idle: usize,
    /** Threads there are. */
    threads: usize,
}

static QUEUE: Mutex<Queue> = Mutex::new(Queue { tasks: VecDeque::new(), idle: 0, threads: 0 });
static READY: Condvar = Condvar::new();

/**
 * libuv's worker threads have 8 MB stacks; the walks recurse once a tree level (listing.rs: up to
 * 1000 levels) and get as much here. Address space, not memory: only the pages used are resident.
 */
const STACK_SIZE: usize = 8 << 20;

/** Runs `task` on a pool thread: an idle one, or a new one when every thread has a task. */
pub fn run(task: Task) {
    let mut queue = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
    queue.tasks.push_back(task);
    // Tasks waiting beyond the threads waiting for them get a thread each.
    if queue.tasks.len() > queue.idle {
        queue.threads += 1;
        drop(queue);
        let spawned = std::thread::Builder::new().name("svc worker".into()).stack_size(STACK_SIZE).spawn(work);
        if spawned.is_err() {
            let mut queue = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
            queue.threads -= 1;
            if queue.threads > 0 {
                // No thread to be had: the task waits for one of those there are.
                READY.notify_one();
            } else if let Some(task) = queue.tasks.pop_front() {
                // None at all: done here, on the caller's thread, rather than never.
                drop(queue);
                task();
            }
        }
    } else {
        READY.notify_one();
    }
}

/** A pool thread: takes tasks as they come, waits when there are none. */
fn work() {
    let mut queue = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if let Some(task) = queue.tasks.pop_front() {
            drop(queue);
            // A task that panics has failed its call (buffer_call.rs catches its job's panics); the
            // thread goes on.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            queue = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
            continue;
        }
        queue.idle += 1;
        queue = READY.wait(queue).unwrap_or_else(|p| p.into_inner());
        queue.idle -= 1;
    }
}
